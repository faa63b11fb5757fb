#!/usr/bin/env bash
# Re-tune the 16-bit square/llm buckets from 2048^3 on Mosaic with the
# 256-byte-K-tile candidate; merge into the shipped table (copied to $OUT).
set -uo pipefail
out=$1
export PYTHONPATH=. PYTHONUNBUFFERED=1
python3 benchmarks/tune.py --shapes=2048x2048x2048,4096x4096x4096,8192x8192x8192,4096x14336x4096,4096x4096x14336 --dtypes=bfloat16,float16 --backend=mosaic --cache_out=$out/tune16.json 2>&1 | grep -v Deprecat > $out/tune16.log
grep -E "TUNED|best" $out/tune16.log
python3 benchmarks/tune.py --merge=pallas_tiled/tuned/h200.json,$out/tune16.json --cache_out=$out/h200_table.json 2>&1 | tail -2
