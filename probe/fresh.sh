#!/usr/bin/env bash
# Probe (removed next commit): the default pick against jnp.matmul on fresh
# shapes (probe/fresh_shapes.py), compiled ahead by 16 workers, then timed in
# chunks so that a run cut short keeps what it timed. Usage: fresh.sh OUT DTYPES
out=$1; dtypes=$2; chunks=${CHUNKS:-4}
export PYTHONPATH=. PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
export JAX_COMPILATION_CACHE_DIR=/tmp/pt_cache
export JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0
export JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES=-1
shapes=$(python3 probe/fresh_shapes.py ${FRESH_ARGS:-})
bench="python3 benchmarks/matmul_benchmark.py --shapes=$shapes --dtypes=$dtypes"
start=$SECONDS
for ((i = 0; i < 16; i++)); do
  $bench --impls=tiled --iters=1 --warmup=0 --shard=$i/16 >/tmp/warm_$i.log 2>&1 &
done
wait
echo "compiled ahead in $((SECONDS - start)) s"; grep -l Traceback /tmp/warm_*.log
for ((c = 0; c < chunks; c++)); do
  $bench --impls=tiled,xla --rounds=2 --shard=$c/$chunks \
    --json_out=$out/fresh_$c.json >$out/fresh_$c.log 2>&1
  echo "chunk $c timed at $((SECONDS - start)) s (exit $?)"
done
