#!/usr/bin/env bash
# Re-tune the float32 (TF32) square/llm buckets on Mosaic (register path,
# 256-byte-K-tile candidate), merge into the shipped table (copied in place),
# then the float32 square and llm suites.
set -uo pipefail
out=$1
export PYTHONPATH=. PYTHONUNBUFFERED=1
python3 benchmarks/tune.py --shapes=2048x2048x2048,4096x4096x4096,8192x8192x8192,4096x14336x4096,4096x4096x14336 --dtypes=float32 --backend=mosaic --cache_out=$out/tune32.json 2>&1 | grep -v Deprecat > $out/tune32.log
grep -E "TUNED" $out/tune32.log | sed 's/.*TUNED //'
python3 benchmarks/tune.py --merge=pallas_tiled/tuned/h200.json,$out/tune32.json --cache_out=$out/h200_table.json 2>&1 | tail -1
cp $out/h200_table.json pallas_tiled/tuned/h200.json
python3 benchmarks/matmul_benchmark.py --suite=square --suite=llm --backends=auto,triton --impls=tiled,naive,xla,jax_example --dtypes=float32 --json_out=$out/sqllm32.json > $out/sqllm32.log 2>&1
grep -E "^(tiled|xla) " $out/sqllm32.log
