#!/usr/bin/env bash
# Probe (not kept): short-K rows re-timed after K stopped being padded to the
# pipeline depth; the five float32 rows whose rounded transposes moved to the
# Pallas copy; TF32 rounding on/off.
set -uo pipefail
out=${1:?out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv | tee "$out/gpu.txt"
w=/tmp/w15
t0=$SECONDS
timeout -k 5 200 benchmarks/run_wild.sh $w wild-check bfloat16 0/1 \
  --shapes=8192x28672x128,768x50257x128
timeout -k 5 240 benchmarks/run_wild.sh $w wild-check float8_e4m3fn 0/1 \
  --shapes=8192x28672x128,768x50257x128,5120x1280x224,4096x28672x250
echo "short K done at $((SECONDS - t0)) s"
timeout -k 5 150 benchmarks/run_wild.sh $w wild-check float32 0/1 \
  --shapes=1000x768x768,384x1152x1024,384x1024x1024,448x1280x1280,788x2304x768
echo "f32 done at $((SECONDS - t0)) s"
PYTHONPATH=. timeout -k 5 $((560 - (SECONDS - t0))) python3 benchmarks/probe_tf32_rounding_ab.py \
  512x2304x768,1024x1024x4096,128x28672x4096,6000x1280x2560,1576x768x768,512x3072x1024,1000x1536x1152,256x6912x1152,1024x1280x588,197x3072x1024 \
  2>&1 | grep -v -i warn | tee "$out/tf32_ab.txt"
cp $w/*.json $w/wild*.log "$out/" 2>/dev/null
echo "all done at $((SECONDS - t0)) s"
