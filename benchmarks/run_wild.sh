#!/usr/bin/env bash
# Times one shard of a wild suite with the compiles done ahead: WORKERS
# processes first run our kernels' cases of the shard (untimed: their times
# are thrown away) into JAX's persistent compilation cache, then one process
# times our kernel and jnp.matmul side by side, loading our executables from
# the cache. jnp.matmul is compiled (and autotuned by XLA) only in that one
# process, with the GPU to itself. Usage (repo root, on the GPU machine):
#   benchmarks/run_wild.sh OUTPUT_DIR SUITE DTYPE SHARD/SHARDS [FLAGS...]
# e.g. benchmarks/run_wild.sh /tmp/w wild-check bfloat16 0/2
# SUITE fresh:SEED times `wild.py --fresh=SEED`'s shapes of neither split
# (their rows unlabelled by a suite), e.g. fresh:7 float32 0/4 a quarter;
# SUITE shapes:MxNxK,... any shapes (e.g. stale rows of a fresh report, which
# a suite's --shapes refuses: they are in no suite).
set -uo pipefail
out=${1:?usage: run_wild.sh OUT SUITE DTYPE SHARD/SHARDS [FLAGS...]}
suite=${2:?suite}
dtype=${3:?dtype}
shard=${4:?shard}
shift 4
index=${shard%/*}
shards=${shard#*/}
workers=${WORKERS:-12}
# The compile-ahead workers' logs go elsewhere: the device machine returns at
# most 8 files of its output folder, and 12 logs there crowded out the JSON.
warm_logs=${WARM_LOGS:-/tmp/run_wild_warm}
mkdir -p "$out" "$warm_logs"
export PYTHONPATH=.${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
export JAX_COMPILATION_CACHE_DIR=${JAX_COMPILATION_CACHE_DIR:-/tmp/pallas_tiled_jax_cache}
export JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0
export JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES=-1
if [[ $suite == fresh:* ]]; then
  shapes=$(python3 benchmarks/wild.py --fresh="${suite#fresh:}") || exit 1
  select="--shapes=$shapes"
  suite=fresh${suite#fresh:}
elif [[ $suite == shapes:* ]]; then
  select="--shapes=${suite#shapes:}"
  suite=shapes
else
  select="--suite=$suite"
fi
bench="python3 benchmarks/matmul_benchmark.py $select --dtypes=$dtype"
name="${suite}_${dtype}_$((index + 1))of$shards"
start=$SECONDS
pids=()
for ((i = 0; i < workers; i++)); do
  # Shape s is in shard index/shards when s % shards == index; worker i
  # takes those with (s // shards) % workers == i.
  XLA_PYTHON_CLIENT_PREALLOCATE=false $bench --impls=tiled --backends=auto \
    --iters=1 --warmup=0 --shard=$((index + shards * i))/$((shards * workers)) \
    "$@" >"$warm_logs/warm_$i.log" 2>&1 &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
echo "compiled ahead in $((SECONDS - start)) s"
$bench --impls=tiled,xla --backends=auto --shard="$shard" "$@" \
  --json_out="$out/$name.json" >"$out/$name.log" 2>&1
status=$?
echo "timed in $((SECONDS - start)) s (exit $status)"
tail -4 "$out/$name.log"
exit $status
