#!/usr/bin/env bash
# compute-sanitizer over the kernels: memcheck on a representative set (both
# backends, aligned, ragged, decode and batched shapes, every dtype),
# racecheck and synccheck on three products. Each set first runs without a
# sanitizer into a persistent compilation cache, so the sanitized runs load
# their executables instead of compiling under the tool (memcheck segfaulted
# in a slow compile on an H100). Writes one log per tool and prints each
# one's error summary. Usage (repo root, on the GPU machine):
#   benchmarks/sanitize.sh OUTPUT_DIR
set -uo pipefail
out=${1:?usage: benchmarks/sanitize.sh OUTPUT_DIR}
mkdir -p "$out"
export PYTHONPATH=.${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
# One process owns the GPU's memory as it goes: no preallocated pool, whose
# unused bytes the sanitizer cannot tell from the kernels' buffers.
export XLA_PYTHON_CLIENT_PREALLOCATE=false
export JAX_COMPILATION_CACHE_DIR=$out/compilation_cache
export JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0
export JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES=-1
status=0
run() {  # tool, case set
  python3 benchmarks/sanitize_cases.py --set="$2" >"$out/$2.warm.log" 2>&1 \
    || status=1
  compute-sanitizer --tool "$1" --error-exitcode 9 \
    python3 benchmarks/sanitize_cases.py --set="$2" >"$out/$1.log" 2>&1 \
    || status=1
  echo "$1 ($2): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$1.log" \
    | tail -1) $(grep -c ': ok' "$out/$1.log") products ok"
}
run memcheck representative
run racecheck small
run synccheck small
exit $status
