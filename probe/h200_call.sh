#!/usr/bin/env bash
# Probe (one H200 call): the compiled suite, then the m128 split pairs.
set -uo pipefail
out=${1:?}
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=.:benchmarks
nvidia-smi --query-gpu=name --format=csv,noheader
PARTS=pytest LIMIT_S=400 WORKERS=16 benchmarks/run_gpu_checks.sh $out 2>&1 | tail -6
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && echo h200 || echo h100)
timeout 170 python3 benchmarks/time_pairs.py --pairs=probe/m128_${gpu}_bfloat16.json \
  --json_out=$out/m128_${gpu}.json --budget_s=120 > $out/m128.log 2>&1
echo "pairs rc=$?"; tail -25 $out/m128.log
