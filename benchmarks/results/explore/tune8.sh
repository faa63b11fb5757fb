#!/usr/bin/env bash
# Re-tune the float8 square/llm buckets from 2048^3 on Mosaic, now with the
# 256-byte-K-tile candidate (tile_k 256 for float8); merge into the shipped
# table (written to $OUT).
set -uo pipefail
out=$1
export PYTHONPATH=. PYTHONUNBUFFERED=1
python3 benchmarks/tune.py --shapes=2048x2048x2048,4096x4096x4096,8192x8192x8192,4096x14336x4096,4096x4096x14336 --dtypes=float8_e4m3fn --backend=mosaic --cache_out=$out/tune8.json 2>&1 | grep -v Deprecat > $out/tune8.log
grep -E "TUNED|best" $out/tune8.log
python3 benchmarks/tune.py --merge=pallas_tiled/tuned/h200.json,$out/tune8.json --cache_out=$out/h200_table.json 2>&1 | tail -2
