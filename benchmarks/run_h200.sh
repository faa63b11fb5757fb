#!/usr/bin/env bash
# Regenerates the committed GPU results: the square, llm and ragged suites in
# bfloat16, float16, float32 and float8_e4m3fn (both backends, jax's Hopper
# example), float32
# at HIGHEST precision on the square suite, the two tile sweeps, and
# forward+backward (value and both gradients) on the square and batched
# suites in bfloat16. Usage (repo root, on the GPU machine with jax
# preinstalled):
#   benchmarks/run_h200.sh OUTPUT_DIR [PARTS]
# PARTS: any of suites (= suites16 suites32 suites8), highest, sweeps,
# fwd_bwd.
set -uo pipefail
out=${1:?usage: benchmarks/run_h200.sh OUTPUT_DIR}
mkdir -p "$out"
export PYTHONPATH=.${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
bench="python3 benchmarks/matmul_benchmark.py"
parts=${2:-suites highest sweeps fwd_bwd}
status=0
want() { [[ " $parts " == *" $1 "* ]]; }
# The suites run in three parts (each within the GPU machine's 10-minute
# command limit), merged into one report.
suites="--suite=square --suite=llm --suite=ragged --backends=auto,triton"
suites="$suites --impls=tiled,naive,xla,jax_example"
if want suites || want suites16; then
  $bench $suites --dtypes=bfloat16,float16 --json_out="$out/h200_16bit.json" \
    || status=1
fi
if want suites || want suites32; then
  $bench $suites --dtypes=float32 --json_out="$out/h200_float32.json" \
    || status=1
fi
if want suites || want suites8; then
  $bench $suites --dtypes=float8_e4m3fn --json_out="$out/h200_float8.json" \
    || status=1
fi
if [[ -f $out/h200_16bit.json && -f $out/h200_float32.json ]]; then
  parts_found=("$out/h200_16bit.json" "$out/h200_float32.json")
  [[ -f $out/h200_float8.json ]] && parts_found+=("$out/h200_float8.json")
  python3 benchmarks/merge_results.py "$out/h200.json" "${parts_found[@]}" \
    || status=1
fi
if want highest; then
  $bench --suite=square --dtypes=float32 --precision=highest \
    --backends=auto,triton --json_out="$out/h200_highest.json" || status=1
fi
if want sweeps; then
  $bench --sweep_tiles --shapes=2048x2048x2048 --dtypes=float32 \
    --json_out="$out/h200_sweep_2048_float32.json" \
    --plot_out="$out/h200_sweep_2048_float32.png" || status=1
  $bench --sweep_tiles --shapes=4096x4096x4096 --dtypes=bfloat16 \
    --json_out="$out/h200_sweep_4096_bfloat16.json" \
    --plot_out="$out/h200_sweep_4096_bfloat16.png" || status=1
fi
if want fwd_bwd; then
  $bench --suite=square --suite=batched --dtypes=bfloat16 \
    --impls=tiled,xla,tiled_fwd_bwd,xla_fwd_bwd --backends=auto,triton \
    --json_out="$out/h200_fwd_bwd.json" --plot_out="$out/h200_fwd_bwd.png" \
    || status=1
fi
exit $status
