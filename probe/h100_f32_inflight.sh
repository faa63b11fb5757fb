#!/usr/bin/env bash
# Probe (one H100 call, ~8 min): every float32 candidate timed on the 40
# wild-tune shapes whose pick on the H100 or the H200 is a 64x128 or 64x192
# TF32 Mosaic tile (the kernels that have kept a wgmma group in flight since
# the thirty-seventh session, after the H100's float32 runs the shipped fit
# came from; and TF32's 64x128 tile over 256-byte K-tiles, whose class only
# the H200 has). Afterwards, here: a whole H100 float32 fit with this run
# last (fit_cost_model.py --runs=<test_cost_model's H100 float32 runs>,this
# --write), the left-out report against the shipped fit, then stale_picks.py
# on results/h100_wild_check.json and run_stale.sh for the moved rows.
#   probe/h100_f32_inflight.sh $OUT
set -uo pipefail
out=${1:?usage: probe/h100_f32_inflight.sh OUT}
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=.:benchmarks
runs=$out/h100_wild_tune_f32_inflight.jsonl
shapes=64x7168x5120,64x8192x8192,128x768x2304,128x768x50257,128x1024x4096,128x2304x768,128x5120x5120,128x27648x5120,128x28672x8192,128x32064x3072,128x50257x768,224x5120x1280,256x1152x6912,256x1600x1600,256x8192x5376,257x5120x1280,384x1024x8192,384x5376x4096,384x6144x64,384x16384x4096,384x22016x4096,384x262208x2560,512x10240x8192,643x4054x1080,768x2304x128,1024x768x3072,1024x1280x1280,1024x2048x2048,1024x2048x5120,1024x14336x4096,1280x1280x448,1280x3840x6000,3000x3072x768,3000x6144x24576,3152x768x3072,3152x4096x1024,3821x1309x4077,4096x768x3072,8192x256x32,8192x768x768
# Partial (--labels): only the 64x128 and 64x192 Mosaic tiles, the kernels
# the in-flight change touched, joined to the shapes' earlier rows.
timeout ${LIMIT_S:-330} python3 benchmarks/calibrate.py --suite=wild-tune --dtype=float32 \
  --workers=12 --deadline_s=${DEADLINE_S:-250} --shapes=$shapes --out=$runs \
  ${SKIP:+--skip=$SKIP} --labels='^64x(128|192)x(32|64)/s' \
  > $out/calibrate.log 2>&1
echo "calibrate rc=$? rows=$(grep -c . $runs)" \
  "shapes=$(python3 -c 'import json,sys; print(len({(r["m"],r["n"],r["k"]) for r in map(json.loads, open(sys.argv[1]))}))' $runs)"
