#!/usr/bin/env bash
# Everything that checks correctness on a GPU, in one command: the pytest
# suite compiled (in GROUPS parallel processes, junit XML per group), the
# fuzzer (1000 cases from SEED over 8 processes) and the sanitizers
# (sanitize.sh), all at once: none of them times anything. Usage (repo
# root, on the GPU machine):
#   benchmarks/run_gpu_checks.sh OUTPUT_DIR [SEED]
set -uo pipefail
out=${1:?usage: benchmarks/run_gpu_checks.sh OUTPUT_DIR [SEED]}
seed=${2:-2611}
limit=${LIMIT_S:-480}
mkdir -p "$out"
export PYTHONPATH=.${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
export XLA_PYTHON_CLIENT_PREALLOCATE=false  # Several processes share the GPU.
export PALLAS_TILED_CACHE=${PALLAS_TILED_CACHE:-$out/autotune.json}
# Balanced on an H100 (the second group ran out of 500 s at 97% when it
# also held test_api.py and tests/tuning).
groups=(
  "tests/mosaic"
  "tests/triton tests/test_cost_model.py tests/test_seeds.py"
  "tests/test_api.py tests/tuning"
  "tests/test_autodiff.py tests/test_batching.py tests/test_export.py tests/test_sharding.py"
  "tests/test_dtypes.py tests/test_validation.py tests/test_benchmark.py tests/test_fuzz.py tests/test_wild.py"
)
pids=()
for i in "${!groups[@]}"; do
  # shellcheck disable=SC2086
  timeout "$limit" python3 -m pytest ${groups[$i]} -q -rfE -p no:cacheprovider \
    --junitxml="$out/pytest_$i.xml" >"$out/pytest_$i.log" 2>&1 &
  pids+=($!)
done
timeout "$limit" python3 benchmarks/fuzz.py --cases=1000 --workers=8 \
  --seed="$seed" --json_out="$out/fuzz.json" >"$out/fuzz.log" 2>&1 &
pids+=($!)
timeout "$limit" benchmarks/sanitize.sh "$out/sanitizer" \
  >"$out/sanitize.log" 2>&1 &
pids+=($!)
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
for i in "${!groups[@]}"; do  # A cut-off group has no summary line.
  echo "pytest ${groups[$i]}: $(grep -E '(passed|failed|error)' \
    "$out/pytest_$i.log" | tail -1)"
  grep -E '^(FAILED|ERROR) ' "$out/pytest_$i.log"
done
echo "fuzz: $(tail -1 "$out/fuzz.log")"
cat "$out/sanitize.log"
exit $status
