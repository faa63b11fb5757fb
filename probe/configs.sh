#!/usr/bin/env bash
# Probe (removed next commit): whether the parity of N decides which Triton
# tile reads a float32 short K of unaligned rows in place fastest (64x128, the
# rule's, or 32x128), pairs of shapes in neither split, N even and odd, beside
# the Mosaic pick and jnp.matmul; compiled ahead by 16 workers, timed over 3
out=$1
export PYTHONPATH=. PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
export JAX_COMPILATION_CACHE_DIR=/tmp/pt_cache
export JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0
export JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES=-1
shapes=3000x500x111,3000x501x111,200x2400x105,200x2401x105,1000x3000x110,1000x3001x110,2850x102x85,2850x103x85,120x5000x75,120x5001x75,5000x200x99,5000x201x99,600x1500x90,600x1501x90
configs=default,32x128x64/w4/s2/g16
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
