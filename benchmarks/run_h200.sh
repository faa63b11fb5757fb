#!/usr/bin/env bash
# Regenerates the committed GPU results: the square, llm and ragged suites in
# bfloat16, float16 and float32, float32 at HIGHEST precision on the square
# suite, the two tile sweeps, and forward+backward (value and both gradients)
# on the square and batched suites in bfloat16. Usage (repo root, on the GPU machine with
# jax preinstalled): benchmarks/run_h200.sh OUTPUT_DIR [suites|highest|sweeps|fwd_bwd]
set -uo pipefail
out=${1:?usage: benchmarks/run_h200.sh OUTPUT_DIR}
mkdir -p "$out"
export PYTHONPATH=.${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
bench="python3 benchmarks/matmul_benchmark.py"
parts=${2:-suites highest sweeps fwd_bwd}
status=0
if [[ $parts == *suites* ]]; then
  $bench --suite=square --suite=llm --suite=ragged \
    --dtypes=bfloat16,float16,float32 --json_out="$out/h200.json" \
    --csv_out="$out/h200.csv" --plot_out="$out/h200.png" || status=1
fi
if [[ $parts == *highest* ]]; then
  $bench --suite=square --dtypes=float32 --precision=highest \
    --json_out="$out/h200_highest.json" || status=1
fi
if [[ $parts == *sweeps* ]]; then
  $bench --sweep_tiles --shapes=2048x2048x2048 --dtypes=float32 \
    --json_out="$out/h200_sweep_2048_float32.json" \
    --plot_out="$out/h200_sweep_2048_float32.png" || status=1
  $bench --sweep_tiles --shapes=4096x4096x4096 --dtypes=bfloat16 \
    --json_out="$out/h200_sweep_4096_bfloat16.json" \
    --plot_out="$out/h200_sweep_4096_bfloat16.png" || status=1
fi
if [[ $parts == *fwd_bwd* ]]; then
  $bench --suite=square --suite=batched --dtypes=bfloat16 \
    --impls=tiled,xla,tiled_fwd_bwd,xla_fwd_bwd \
    --json_out="$out/h200_fwd_bwd.json" --plot_out="$out/h200_fwd_bwd.png" \
    || status=1
fi
exit $status
