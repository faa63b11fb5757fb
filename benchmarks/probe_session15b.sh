#!/usr/bin/env bash
# Probe (not kept): the compiled suite, then TF32 rounding on/off with the
# order rotated between rounds.
set -uo pipefail
out=${1:?out}; mkdir -p "$out"
t0=$SECONDS
PARTS=pytest LIMIT_S=440 WORKERS=14 benchmarks/run_gpu_checks.sh /tmp/checks | tail -30
cp /tmp/checks/pytest.log "$out/" 2>/dev/null
echo "pytest done at $((SECONDS - t0)) s"
PYTHONPATH=. timeout -k 5 $((575 - (SECONDS - t0))) python3 benchmarks/probe_tf32_rounding_ab.py \
  512x2304x768,1024x1280x588,197x3072x1024,1576x768x768,1000x1536x1152,256x6912x1152 \
  2>&1 | grep -v -i warn | tee "$out/tf32_ab.txt"
