#!/usr/bin/env bash
# Ran from the repository root with the candidate table in abtest/h200_f8_new.json (a scratch copy; it is pallas_tiled/tuned/h200.json at 1e2b5fc).
# float8 square/llm suites: the shipped table (tiled auto + xla), then the
# table with the two re-tuned float8 entries (8192^3, 4096x4096x16384 bucket:
# 64x256x256/s2), full row set as in h200_float8.json.
set -uo pipefail
out=$1
export PYTHONPATH=. PYTHONUNBUFFERED=1
B="python3 benchmarks/matmul_benchmark.py --suite=square --suite=llm --dtypes=float8_e4m3fn"
$B --backends=auto --impls=tiled,xla --json_out=$out/f8_old.json 2>&1 | grep -v -i deprecat > $out/f8_old.log
cp pallas_tiled/tuned/h200.json /tmp/h200_orig.json; cp abtest/h200_f8_new.json pallas_tiled/tuned/h200.json
$B --backends=auto,triton --impls=tiled,naive,xla --json_out=$out/f8_new.json 2>&1 | grep -v -i deprecat > $out/f8_new.log
cp /tmp/h200_orig.json pallas_tiled/tuned/h200.json
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def rows(name):
  d = json.load(open(f"{out}/{name}.json")); d = d["rows"] if isinstance(d, dict) else d
  return {(r["suite"], r["m"], r["n"], r["k"]): r for r in d if r["impl"] == "tiled" and r["backend"] != "triton"}
old, new = rows("f8_old"), rows("f8_new")
for key in old:
  o, n = old[key], new.get(key)
  print(key, o["config_label"], o["time_us"], o["speedup_vs_xla"], "|", n and n["config_label"], n and n["time_us"], n and n["speedup_vs_xla"])
PY
