#!/usr/bin/env bash
# Re-times a wild report's stale rows (`stale_picks.py --min_macs=1`: picks,
# copies or kernels that changed since a row was timed), one run_wild.sh
# shard per dtype that has any, written to OUTPUT_DIR for merge_results.py.
# DTYPES limits it to some dtypes (default: every dtype with stale rows).
# Usage (repo root, on the GPU machine the report was timed on):
#   [DTYPES="float32"] benchmarks/run_stale.sh OUTPUT_DIR REPORT SUITE SHARD/SHARDS
# e.g. benchmarks/run_stale.sh $OUT/wc benchmarks/results/h100_wild_check.json \
#        wild-check 0/2
# SUITE names the report's suite (wild-check, wild-tune), or "shapes" for a
# report of shapes in no suite (fresh draws).
set -uo pipefail
out=${1:?usage: run_stale.sh OUT REPORT SUITE SHARD/SHARDS}
results=${2:?report}
suite=${3:?suite}
shard=${4:?shard}
export PYTHONPATH=.:benchmarks${PYTHONPATH:+:$PYTHONPATH}
listed=$(python3 benchmarks/stale_picks.py --results="$results" --min_macs=1 \
  2>/dev/null) || { echo "stale_picks.py failed" >&2; exit 1; }
status=0
while read -r dtype shapes; do
  [[ -n ${DTYPES:-} && " $DTYPES " != *" $dtype "* ]] && continue
  if [[ $suite == shapes ]]; then
    benchmarks/run_wild.sh "$out" "shapes:$shapes" "$dtype" "$shard" || status=1
  else
    benchmarks/run_wild.sh "$out" "$suite" "$dtype" "$shard" \
      --shapes="$shapes" || status=1
  fi
done < <(sed -n 's/^\([a-z0-9_]*\): [0-9]* stale: --shapes=\(.*\)$/\1 \2/p' \
  <<<"$listed")
exit $status
