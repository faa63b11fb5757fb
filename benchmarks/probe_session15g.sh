#!/usr/bin/env bash
# Probe (not kept): float8's short-K wild-tune shapes re-calibrated, and the
# H100's wild-check rows whose picks or copies moved, re-timed.
set -uo pipefail
out=${1:?out}; mkdir -p "$out"
export XLA_PYTHON_CLIENT_PREALLOCATE=false
PYTHONPATH=.:benchmarks timeout -k 5 150 python3 benchmarks/calibrate.py \
  --suite=wild-tune --dtype=float8_e4m3fn --workers=12 --deadline_s=100 \
  --shapes=768x2304x128,1280x1280x448,5120x27648x128,6912x1152x256,11924x347x178 \
  --out=/tmp/tune_f8.jsonl > /tmp/tune_f8.log 2>&1
cp /tmp/tune_f8.jsonl "$out/"
unset XLA_PYTHON_CLIENT_PREALLOCATE
w=/tmp/wg
run() { timeout -k 5 "$1" benchmarks/run_wild.sh $w wild-check "$2" 0/1 --shapes="$3" | tail -1; }
run 120 bfloat16 5120x1280x224,8192x28672x128,512x4096x14336,768x50257x128
run 120 float16 5120x1280x224,8192x28672x128,512x4096x14336,768x50257x128
run 200 float32 16x50400x4096,8x4096x11008,2x4096x14336,8x4800x1600,8x151936x1536,4096x28672x250,8192x28672x128,1000x768x768,384x1152x1024,384x1024x1024,448x1280x1280,788x2304x768
run 150 float8_e4m3fn 197x3072x768,8192x28672x128,768x50257x128,5120x1280x224,4096x28672x250
cp $w/*.json "$out/"
