#!/usr/bin/env bash
# Probe (removed next commit): Triton tiles for float32 short-K products of
# unaligned rows (K 70-127, 340-508 byte rows) over narrow and wide outputs,
# shapes in neither split, against the rule's tile, the Mosaic pick and
# jnp.matmul; compiled ahead by 16 workers, timed over 3 interleaved rounds.
out=$1
export PYTHONPATH=. PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
export JAX_COMPILATION_CACHE_DIR=/tmp/pt_cache
export JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0
export JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES=-1
shapes=3747x272x85,2850x102x85,5000x200x99,1800x384x127,4500x130x70,3000x500x111,6000x300x90,2000x1000x75,200x2400x105,1000x3001x110,120x5001x75
configs=default,64x128x64/w4/s2/g16,64x128x128/w4/s2/g16,64x64x64/w4/s2/g16,128x64x64/w4/s2/g16,128x128x64/w4/s2/g16,32x128x64/w4/s2/g16,64x128x32/w4/s3/g16,64x128x32/w4/s4/g16/align
bench="python3 benchmarks/matmul_benchmark.py --shapes=$shapes --dtypes=float32 --configs=$configs"
start=$SECONDS
for ((i = 0; i < 16; i++)); do
  $bench --impls=tiled --backends=triton,mosaic --iters=1 --warmup=0 --shard=$i/16 >/tmp/warm_$i.log 2>&1 &
done
wait
echo "compiled ahead in $((SECONDS - start)) s"; grep -l Traceback /tmp/warm_*.log
for c in 0 1; do
  $bench --impls=tiled,xla --backends=triton,mosaic --rounds=3 --shard=$c/2 \
    --json_out=$out/cfg_$c.json >$out/cfg_$c.log 2>&1
  echo "chunk $c timed at $((SECONDS - start)) s (exit $?)"
done
