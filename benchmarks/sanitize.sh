#!/usr/bin/env bash
# compute-sanitizer over the kernels: memcheck on a representative set (both
# backends, aligned, ragged, decode and batched shapes, every dtype),
# racecheck and synccheck on three products. Writes one log per tool and
# prints each one's error summary. Usage (repo root, on the GPU machine):
#   benchmarks/sanitize.sh OUTPUT_DIR
set -uo pipefail
out=${1:?usage: benchmarks/sanitize.sh OUTPUT_DIR}
mkdir -p "$out"
export PYTHONPATH=.${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
# One process owns the GPU's memory as it goes: no preallocated pool, whose
# unused bytes the sanitizer cannot tell from the kernels' buffers.
export XLA_PYTHON_CLIENT_PREALLOCATE=false
status=0
run() {  # tool, case set
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
