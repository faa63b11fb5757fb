#!/usr/bin/env bash
# Probe: the PTX of the paired in-flight steps (64x256x32 at 2048^3), then
# the timings of tf32ring.py.
export PYTHONPATH=. PYTHONUNBUFFERED=1
d=/tmp/dump; mkdir -p $d
env PT_ONE=1 PT_PRE=1 PT_POST=0 PT_WAIT=1 MOSAIC_GPU_DUMP_PTX=1 \
  MOSAIC_GPU_DUMP_TO=$d python3 probe/variants.py 2>&1 | grep -v -i "warn\|nvdisasm\|Source Loc\|dump.cc"
cp $d/*.ptx $OUT/pair.ptx
timeout 480 python3 probe/tf32ring.py $OUT 2>&1 | grep -v -i warn | tee $OUT/ring.log
