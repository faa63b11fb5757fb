#!/usr/bin/env bash
# Regenerates the committed GPU results: the square, llm and ragged suites in
# bfloat16, float16, float32 and float8_e4m3fn (both backends, the naive
# kernel, jnp.matmul and jax's Hopper example), float32 at HIGHEST precision
# on the square suite, the two tile sweeps, and forward+backward (value and
# both gradients) on the square and batched suites in bfloat16. Usage (repo
# root, on the GPU machine with jax preinstalled):
#   benchmarks/run_h200.sh OUTPUT_DIR [PARTS]
# PARTS: any of suites (= suites_bfloat16 suites_float16 suites_float32
# suites_float8_e4m3fn), highest, sweeps, fwd_bwd, dtypes (int8, float64 and
# complex64 against jnp.matmul; not in the default). The suites time each
# shape's cases in ROUNDS interleaved rounds (default 3; --rounds).
set -uo pipefail
out=${1:?usage: benchmarks/run_h200.sh OUTPUT_DIR}
mkdir -p "$out"
export PYTHONPATH=.${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
bench="python3 benchmarks/matmul_benchmark.py"
parts=${2:-suites highest sweeps fwd_bwd}
status=0
want() { [[ " $parts " == *" $1 "* ]]; }
# One report per dtype and suite (each run well inside the GPU machine's
# 10-minute command limit), merged into h200.json from whatever is in $out.
dtypes="bfloat16 float16 float32 float8_e4m3fn"
suite_names="square llm ragged"
for dtype in $dtypes; do
  want suites || want "suites_$dtype" || continue
  for suite in $suite_names; do
    $bench --suite="$suite" --dtypes="$dtype" --backends=auto,triton \
      --impls=tiled,naive,xla,jax_example --rounds="${ROUNDS:-3}" \
      --json_out="$out/suite_${dtype}_$suite.json" || status=1
  done
done
found=()
for dtype in $dtypes; do
  for suite in $suite_names; do
    [[ -f $out/suite_${dtype}_$suite.json ]] \
      && found+=("$out/suite_${dtype}_$suite.json")
  done
done
if (( ${#found[@]} )); then
  inputs=$(IFS=,; echo "${found[*]}")
  python3 benchmarks/merge_results.py --out="$out/h200.json" \
    --inputs="$inputs" || status=1
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
if want dtypes; then  # int8 (int32 results), float64 (x64) and complex64.
  $bench --suite=square --suite=llm --suite=ragged --dtypes=int8 \
    --impls=tiled,xla --json_out="$out/dtypes_int8.json" || status=1
  # Not 8192^3: a float64 product there takes ~16 s (67 TF/s FP64 peak).
  JAX_ENABLE_X64=1 $bench --dtypes=float64,complex64 --iters=5 --warmup=1 \
    --shapes=1024x1024x1024,2048x2048x2048,4096x4096x4096,1000x1000x1000 \
    --impls=tiled,xla --json_out="$out/dtypes_float64_complex64.json" \
    || status=1
fi
exit $status
