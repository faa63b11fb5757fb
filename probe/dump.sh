#!/usr/bin/env bash
# Probe: the PTX of the in-flight register path (64x256x32 and 64x128x64 at
# 2048^3, over the own ring) with one group in flight and with none.
export PYTHONPATH=. PYTHONUNBUFFERED=1
for cfg in 1 0; do for v in 1 0; do
  d=/tmp/dump$cfg$v; mkdir -p $d
  env PT_ONE=$cfg PT_PRE=1 PT_POST=0 PT_WAIT=$v MOSAIC_GPU_DUMP_PTX=1 \
    MOSAIC_GPU_DUMP_TO=$d python3 probe/variants.py 2>&1 | grep -v -i warn
  cp $d/*.ptx $OUT/c${cfg}w$v.ptx
done; done
