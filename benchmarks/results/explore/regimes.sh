#!/usr/bin/env bash
# Archived as regimes_*: burst_X -> regimes_burst_X, sustained_X -> regimes_sustained_X, smi_X.csv -> regimes_smi_X.csv, the printed table -> regimes_X.txt.
# One dtype's square/llm suites twice in one call: as the shipped rows were
# measured (each case timed right after its warmup), then with each case run
# back to back for 5 s first (--sustain_s=5), with clocks and power sampled.
set -uo pipefail
out=$1; dt=$2
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv,noheader,nounits -lms 500 > $out/smi_$dt.csv &
smi=$!
B="python3 benchmarks/matmul_benchmark.py --suite=square --suite=llm --backends=auto --impls=tiled,xla,jax_example --dtypes=$dt"
$B --json_out=$out/burst_$dt.json 2>&1 | grep -v -i deprecat > $out/burst_$dt.log
$B --sustain_s=5 --json_out=$out/sustained_$dt.json 2>&1 | grep -v -i deprecat > $out/sustained_$dt.log
kill $smi
python3 - "$out" "$dt" <<'PY'
import json, sys
out, dt = sys.argv[1:]
def rows(name):
  return json.load(open(f"{out}/{name}_{dt}.json"))["rows"]
def index(rs):
  return {(r["suite"], r["m"], r["n"], r["k"], r["impl"]): r for r in rs}
b, s = index(rows("burst")), index(rows("sustained"))
print(f"{dt}: shape | burst: ours us, jnp us, ratio | sustained 5 s: ours us, jnp us, ratio")
for key, r in b.items():
  if key[4] != "tiled": continue
  x, y = b[key[:4] + ("xla",)], s.get(key)
  z = s.get(key[:4] + ("xla",))
  print(f"{key[0]:6s} {key[1]}x{key[2]}x{key[3]} {r['backend']} | {r['time_us']:.1f} {x['time_us']:.1f} {x['time_us']/r['time_us']:.3f}x | {y['time_us']:.1f} {z['time_us']:.1f} {z['time_us']/y['time_us']:.3f}x")
PY
