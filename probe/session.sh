#!/usr/bin/env bash
# One device call of the 57th session: wide-store pairs, stale rows and (H100)
# the float32 short-K calibration; everything tarred into $OUT/all.tgz.
out=${1:?out}; w=/tmp/s57; mkdir -p $w
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=.:benchmarks
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
gpu=h100; [[ $name == *H200* ]] && gpu=h200
echo "$name -> $gpu"; t0=$SECONDS
finish() { tar czf $out/all.tgz -C $w . ; echo "total $((SECONDS - t0)) s"; }
trap finish EXIT
BUDGET_S=40 timeout 200 probe/run_wide.sh $w/wide 2>&1 | tail -60
echo "== stale at $((SECONDS - t0)) s"
if [[ $gpu == h100 ]]; then
  DTYPES="bfloat16 float16" timeout 150 benchmarks/run_stale.sh $w/wc \
    benchmarks/results/h100_wild_check.json wild-check 0/1 2>&1 | tail -12
  left=$((560 - (SECONDS - t0)))
  echo "== calibrate at $((SECONDS - t0)) s, $left s left"
  timeout $left python benchmarks/calibrate.py --suite=wild-tune --dtype=float32 \
    --workers=12 --labels='/sk[0-9]|/nows/' --out=$w/f32_sk.jsonl \
    --deadline_s=$((left - 80)) --shapes=128x768x2304,128x2304x768,128x50257x768,168x2451x719,196x1024x768,224x5120x1280,256x1600x1600,257x5120x1280,643x4054x1080,784x768x768,1024x1280x1280,1024x2048x2048,1024x3072x1024,3000x3072x768,3152x4096x1024,8192x768x768 > $w/cal.log 2>&1
  echo "calibrate rc=$?"; grep -v -i warn $w/cal.log | tail -5; wc -l $w/f32_sk.jsonl
else
  timeout 200 benchmarks/run_stale.sh $w/wc benchmarks/results/h200_wild_check.json \
    wild-check 0/1 2>&1 | tail -12
  timeout 200 benchmarks/run_stale.sh $w/fr benchmarks/results/h200_fresh.json \
    shapes 0/1 2>&1 | tail -12
fi
