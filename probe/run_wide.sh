#!/usr/bin/env bash
# Times the 64x256/w8 tiny-K pairs (probe/wide_<gpu>_<dtype>.json) and the
# picks the rule moves (probe/moved_<gpu>_<dtype>.json) on the GPU it lands on.
out=${1:?out}; mkdir -p "$out"
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=.:benchmarks
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
gpu=h100; [[ $name == *H200* ]] && gpu=h200
echo "$name -> $gpu"
for f in probe/moved_${gpu}_*.json probe/wide_${gpu}_*.json; do
  b=$(basename $f .json); echo "== $b"
  python benchmarks/time_pairs.py --pairs=$f --json_out=$out/$b.json --budget_s=${BUDGET_S:-60} 2>&1 \
    | grep -v -i "warn\|libtpu" | tail -16
done
