#!/usr/bin/env bash
# Everything that checks correctness on a GPU, in one command: the pytest
# suite compiled (pytest-xdist workers sharing the GPU, junit XML), the
# fuzzer (1000 cases from SEED over 8 processes) and the sanitizers
# (sanitize.sh); none of them times anything. PARTS picks some of them
# (default "pytest fuzz sanitize"; one device command may not fit all three).
# Usage (repo root, on the GPU machine):
#   [PARTS=...] [LIMIT_S=480] benchmarks/run_gpu_checks.sh OUTPUT_DIR [SEED]
set -uo pipefail
out=${1:?usage: benchmarks/run_gpu_checks.sh OUTPUT_DIR [SEED]}
seed=${2:-2611}
limit=${LIMIT_S:-480}
parts=" ${PARTS:-pytest fuzz sanitize} "
mkdir -p "$out"
export PYTHONPATH=.${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
export XLA_PYTHON_CLIENT_PREALLOCATE=false  # Several processes share the GPU.
export PALLAS_TILED_CACHE=${PALLAS_TILED_CACHE:-$out/autotune.json}
pids=()
if [[ $parts == *" pytest "* ]]; then
  # -vv (past addopts' -q): each test's name and outcome reach the log as it
  # ends, so a run cut off by the limit still names its failures.
  timeout "$limit" python3 -m pytest tests -n "${WORKERS:-12}" -vv -rfE \
    -p no:cacheprovider --junitxml="$out/pytest.xml" >"$out/pytest.log" 2>&1 &
  pids+=($!)
fi
if [[ $parts == *" fuzz "* ]]; then
  timeout "$limit" python3 benchmarks/fuzz.py --cases=1000 --workers=8 \
    --seed="$seed" --json_out="$out/fuzz.json" >"$out/fuzz.log" 2>&1 &
  pids+=($!)
fi
if [[ $parts == *" sanitize "* ]]; then
  timeout "$limit" benchmarks/sanitize.sh "$out/sanitizer" \
    >"$out/sanitize.log" 2>&1 &
  pids+=($!)
fi
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
if [[ -f $out/pytest.log ]]; then  # A cut-off run has no summary line.
  echo "pytest: $(grep -E '^=+ .*(passed|failed|error).* =+$' \
    "$out/pytest.log" | tail -1)"
  grep -oE '(FAILED|ERROR) tests/[^ ]+' "$out/pytest.log" | sort -u
fi
[[ -f $out/fuzz.log ]] && echo "fuzz: $(tail -1 "$out/fuzz.log")"
[[ -f $out/sanitize.log ]] && cat "$out/sanitize.log"
exit $status
