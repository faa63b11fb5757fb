#!/usr/bin/env bash
# Issue 4's first experiments (see BUILD_NOTES.md, "Performance log"): one
# benchmark run per question, each against jnp.matmul in the same run.
# Usage (repo root, GPU machine): benchmarks/explore_tiles.sh OUTPUT_DIR
set -uo pipefail
out=${1:?usage: benchmarks/explore_tiles.sh OUTPUT_DIR}
mkdir -p "$out"
export PYTHONPATH=.${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
run() { python3 benchmarks/matmul_benchmark.py --impls=tiled,xla --iters=10 "$@" 2>&1 | grep -v "C\[" | grep -v "^I1"; }
if [[ "${ROUND:-1}" == 2 ]]; then
# Q7: program order. The old 2-D grid launched tile rows fastest
# (column-major over tiles); g >= tiles per column reproduces that.
run --dtypes=bfloat16 --shapes=4096x4096x4096,8192x8192x8192 --json_out="$out/q7_order.json" \
  --configs=128x256x64/w8/s3,128x256x64/w8/s3/g4,128x256x64/w8/s3/g16,128x256x64/w8/s3/g64,256x128x64/w8/s3/g64
# Q8: TF32 with K-major B: pipeline depth, warps and tile shape.
run --dtypes=float32 --shapes=4096x4096x4096 --json_out="$out/q8_tf32_tiles.json" \
  --configs=128x128x32/w4/s3/kmajor,128x128x32/w4/s5/kmajor,128x128x32/w4/s4/g64/kmajor,64x128x32/w4/s4/kmajor,128x64x32/w4/s4/kmajor,128x256x32/w8/s4/kmajor,256x128x32/w8/s4/kmajor,64x256x32/w4/s4/kmajor,128x128x16/w4/s6/kmajor
# Q9: HIGHEST as three-pass TF32 (K-major B): tile shape.
run --dtypes=float32 --shapes=4096x4096x4096 --precision=tf32x3 --json_out="$out/q9_tf32x3_tiles.json" \
  --configs=128x128x32/w4/s4/kmajor,64x128x32/w4/s4/kmajor,128x64x32/w4/s3/kmajor,128x128x32/w8/s4/g64/kmajor
exit 0
fi
# Q1: does staging B K-major (Bᵀ) unlock TF32 wgmma for float32?
run --dtypes=float32 --shapes=4096x4096x4096 --json_out="$out/q1_tf32.json" \
  --configs=default,128x128x32/w8/s3/kmajor,128x256x32/w8/s3/kmajor,128x128x64/w8/s3/kmajor,128x128x32/w4/s4/kmajor,256x128x32/w8/s3/kmajor,128x128x32/w8/s4/g8/kmajor
# Q2: float32 HIGHEST: IEEE FMA dots vs the three-pass TF32 algorithm.
run --dtypes=float32 --shapes=4096x4096x4096 --precision=highest --json_out="$out/q2_highest.json" \
  --configs=default,64x64x32/w4/s3,128x64x32/w4/s3
run --dtypes=float32 --shapes=4096x4096x4096 --precision=tf32x3 --json_out="$out/q2_tf32x3.json" \
  --configs=128x128x32/w8/s3/kmajor,128x128x32/w8/s3,128x256x32/w8/s3/kmajor
# Q3: big bfloat16: grouped order, deeper pipelines, tile shape.
run --dtypes=bfloat16 --shapes=4096x4096x4096,8192x8192x8192 --json_out="$out/q3_bf16_large.json" \
  --configs=default,128x256x64/w8/s3/g8,128x256x64/w8/s4,128x256x64/w8/s4/g8,256x128x64/w8/s3/g8,256x128x64/w8/s4/g8,128x128x64/w4/s4/g8
# Q4: small bfloat16: more programs for 132 SMs.
run --dtypes=bfloat16 --shapes=1024x1024x1024 --json_out="$out/q4_bf16_1024.json" \
  --configs=default,128x128x64/w4/s3,128x128x64/w8/s4,64x128x64/w4/s4,128x64x64/w4/s4,64x64x64/w4/s4,128x128x64/w4/s3/sk2,64x128x64/w4/s4/sk2
# Q5: decode: split-K and narrow tiles.
run --dtypes=bfloat16 --shapes=16x8192x8192 --json_out="$out/q5_decode.json" \
  --configs=default,16x64x128/w4/s4,16x128x128/w4/s4/sk2,16x64x128/w4/s4/sk2,16x128x64/w4/s5/sk4,16x64x256/w4/s3/sk2,16x64x128/w4/s4/sk4,16x32x256/w4/s4
# Q6: unaligned rows (K = N = 4097): masking alone vs aligned copies.
run --dtypes=bfloat16,float32 --shapes=4097x4097x4097 --json_out="$out/q6_align.json" \
  --configs=default,128x256x64/w8/s3/align,128x256x64/w8/s4/g8/align,128x128x32/w8/s3/kmajor/align
