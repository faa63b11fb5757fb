#!/usr/bin/env bash
# Probe chain (one device call): calibrate float32 on a wild-tune subset
# (every candidate), fit the H200's own 64x128x64/s3 class over the H100's
# terms, write the table, list the stale wild-check float32 rows, re-time
# them.
set -uo pipefail
OUT=$1
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=.:benchmarks
runs=$OUT/h200_wild_tune_f32_k64.jsonl
timeout 215 python3 benchmarks/calibrate.py --suite=wild-tune --dtype=float32 \
  --workers=12 --deadline_s=170 --max_shapes=24 --out=$runs > $OUT/calibrate.log 2>&1
echo "calibrate rc=$? rows=$(grep -c . $runs)"
python3 - "$runs" > $OUT/fit.log 2>&1 <<'PY'
import json, sys
import fit_cost_model as fcm
from pallas_tiled import cost_model as cm
times, kind, dtype = fcm.load([sys.argv[1]])
times = fcm.offered(times, dtype)
shapes = sorted(s for s in times if {"xla", "pick"} <= set(times[s]))
base = cm.coefficients(cm.HOPPER_REFERENCE_KIND, dtype)
own = fcm.fit_classes(times, shapes, dtype, base, "^mosaic:64x128x64/s3/")
print(kind, dtype, len(shapes), "shapes; own classes:", own)
table = json.load(open(cm.TABLE_PATH))
table.setdefault(kind, {})[dtype] = own
json.dump(table, open(cm.TABLE_PATH, "w"), indent=1, sort_keys=True)
PY
tail -2 $OUT/fit.log
cp pallas_tiled/tuning/tables/cost_model.json $OUT/
python3 benchmarks/stale_picks.py --results=benchmarks/results/h200_wild_check.json > $OUT/stale.log 2>&1
grep -v -i "warn\|tpu" $OUT/stale.log | tail -12
shapes=$(grep -o '^float32: .*--shapes=.*' $OUT/stale.log | sed 's/.*--shapes=//')
if [[ -n $shapes ]]; then
  WORKERS=3 timeout 125 benchmarks/run_wild.sh /tmp/w wild-check float32 0/1 --shapes=$shapes > $OUT/wild.log 2>&1
  echo "wild rc=$?"; cp /tmp/w/wild-check_*.json $OUT/ 2>/dev/null
fi
ls $OUT
