#!/usr/bin/env bash
# Probe (not kept): the wild-tune shapes whose candidates' K padding changed
# (K below a pipeline's depth), every candidate re-timed, per dtype.
set -uo pipefail
out=${1:?out}; mkdir -p "$out"
nvidia-smi --query-gpu=name --format=csv,noheader
export PYTHONPATH=.:benchmarks PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
shapes=768x2304x128,1280x1280x448,5120x27648x128,6912x1152x256,11924x347x178
for d in bfloat16 float32 float8_e4m3fn; do
  t=$SECONDS
  timeout -k 5 185 python3 benchmarks/calibrate.py --suite=wild-tune --dtype=$d \
    --shapes=$shapes --workers=12 --deadline_s=120 \
    --out="$out/tune_shortk_$d.jsonl" > "$out/tune_shortk_$d.log" 2>&1
  echo "$d: rc $? in $((SECONDS - t)) s, $(wc -l < "$out/tune_shortk_$d.jsonl") rows"
done
