#!/usr/bin/env bash
# Times this session's probe pairs on the GPU it runs on (h100 or h200).
# Usage (repo root): probe/run_probes.sh OUT
out=${1:?out}; mkdir -p "$out"
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=.:benchmarks
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
gpu=h100; [[ $name == *H200* ]] && gpu=h200
echo "$name -> $gpu"
for spec in single_wg_${gpu}_float32:${SWG_S:-210} tiny_k_${gpu}_bfloat16:${TKB_S:-110} tiny_k_${gpu}_float32:${TKF_S:-110}; do
  f=${spec%%:*}; s=${spec##*:}
  echo "== $f (budget $s s)"
  python benchmarks/time_pairs.py --pairs=probe/$f.json --json_out=$out/$f.json \
    --budget_s=$s > $out/$f.log 2>&1
  echo "rc=$?"; grep -v -i warn $out/$f.log | tail -${TAIL:-40}
done
