#!/usr/bin/env bash
# Probe: the in-flight variants' errors, and the PTX and SASS of two of them.
export PYTHONPATH=. PYTHONUNBUFFERED=1
run() { env "$@" python3 probe/variants.py 2>&1 | grep -v -i warn; }
run PT_PRE=1 PT_POST=1 PT_WAIT=0
run PT_PRE=1 PT_POST=0 PT_WAIT=1
run PT_PRE=0 PT_POST=0 PT_WAIT=1
for v in 1 0; do
  d=/tmp/dump$v; mkdir -p $d
  env PT_ONE=1 PT_PRE=1 PT_POST=1 PT_WAIT=$v MOSAIC_GPU_DUMP_PTX=1 MOSAIC_GPU_DUMP_SASS=1 \
    MOSAIC_GPU_DUMP_TO=$d python3 probe/variants.py > /dev/null 2>&1
  ls -la $d | head; f=$(ls -S $d/*.ptx 2>/dev/null | head -1); [ -n "$f" ] && cp "$f" $OUT/wait$v.ptx
  f=$(ls -S $d/*sass* 2>/dev/null | head -1); [ -n "$f" ] && cp "$f" $OUT/wait$v.sass
done
