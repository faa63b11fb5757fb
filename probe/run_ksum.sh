#!/usr/bin/env bash
# Probe (removed next commit): compiled tests of sum_in_kernel, then its time pairs.
set -uo pipefail
gpu=${1:?h100|h200}
export PYTHONPATH=.:benchmarks PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 170 python3 -m pytest tests/mosaic/test_kernel.py -n 16 -k summed_in_kernel -rfE -p no:cacheprovider -q >"$OUT/pytest.log" 2>&1
echo "pytest rc=$?"; tail -5 "$OUT/pytest.log"
python3 benchmarks/time_pairs.py --pairs=probe/ksum_${gpu}_float32.json --json_out=$OUT/ksum_${gpu}_f32.json --budget_s=${F32_S:-150} 2>&1 | grep -v Warning | tail -30
python3 benchmarks/time_pairs.py --pairs=probe/ksum_${gpu}_bfloat16.json --json_out=$OUT/ksum_${gpu}_bf16.json --budget_s=${BF16_S:-80} 2>&1 | grep -v Warning | tail -20
[[ -n ${TINY_S:-} ]] && python3 benchmarks/time_pairs.py --pairs=probe/tiny_k_${gpu}_bfloat16.json --json_out=$OUT/tiny_k_${gpu}_bf16.json --budget_s=$TINY_S 2>&1 | grep -v Warning | tail -30
exit 0
