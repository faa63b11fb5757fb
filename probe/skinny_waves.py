"""Probe (removed next commit), offline (no GPU): the cost model with a
skinny Triton grid's waves counted fractionally (max(1, programs / SMs):
the streams of a partly full last wave share HBM, not a whole wave's time)
or as now (ceil), refitted on the H100's committed runs of a dtype
(tests/test_cost_model.py's RUNS): each shape left out of its own fit, the
model's pick over jnp.matmul per regime; the H100 fit on all of them
picking on the H200's wild-tune runs; with a third argument, the skinny
picks of wild-check and wild.fresh(1..3) that the refit moves (H200).
Usage: PYTHONPATH=.:benchmarks python probe/skinny_waves.py base|frac|EXP
DTYPE [list]"""
import inspect, math, sys, textwrap, collections
import jax.numpy as jnp
sys.path.insert(0, 'benchmarks'); sys.path.insert(0, 'tests')
import fit_cost_model as F
from pallas_tiled import cost_model
import glob
sys.path.insert(0, ".")
import importlib.util
spec = importlib.util.spec_from_file_location("tcm", "tests/test_cost_model.py")
RUNS_T = {}
src_t = open("tests/test_cost_model.py").read()
exec(src_t[src_t.index("RUNS = {"):src_t.index("@pytest.fixture")], {"RESULTS": __import__("pathlib").Path("benchmarks/results")}, RUNS_T)
RUNS_T = RUNS_T["RUNS"]
DT = sys.argv[2] if len(sys.argv) > 2 else "float32"
H200 = {"float32": ["h200_wild_tune_f32_skinny.jsonl", "h200_wild_tune_f32_k64.jsonl", "h200_wild_tune_f32_next24.jsonl", "h200_wild_tune_f32_ksplit.jsonl"],
        "bfloat16": ["h200_wild_tune_bf16.jsonl", "h200_wild_tune_bf16_decode.jsonl", "h200_wild_tune_bf16_direct.jsonl", "h200_wild_tune_bf16_s4.jsonl"],
        "float8_e4m3fn": ["h200_wild_tune_f8_direct.jsonl", "h200_wild_tune_f8_ksplit.jsonl"]}[DT]
RUNS = {"float32": ["h100_wild_tune_f32.jsonl","h100_wild_tune_f32_shortk.jsonl","h100_wild_tune_f32_lora.jsonl","h100_wild_tune_f32_shortk_stored.jsonl","h100_wild_tune_f32_mosaic_k64.jsonl","h100_wild_tune_f32_skinny_stored.jsonl","h100_wild_tune_f32_pp2.jsonl","h100_wild_tune_f32_sk16.jsonl"]}
src = textwrap.dedent(inspect.getsource(cost_model.features))
orig = cost_model.features
mode = sys.argv[1]
if mode != "base":
  new = src.replace("    waves = pl.cdiv(config.num_programs(m, n), num_sms)\n",
    "    waves = pl.cdiv(config.num_programs(m, n), num_sms)\n"
    "    if layouts.is_skinny(m, n):\n"
    f"      waves = max(1.0, config.num_programs(m, n) / num_sms) ** {float(mode)}\n" if mode != "frac" else
    "    waves = pl.cdiv(config.num_programs(m, n), num_sms)\n"
    "    if layouts.is_skinny(m, n):\n"
    "      waves = max(1.0, config.num_programs(m, n) / num_sms)\n")
  assert new != src
  exec(compile(new, "features", "exec"), cost_model.__dict__)
def stats(res):
  s = sorted(r for r in res)
  g = math.exp(sum(map(math.log, s)) / len(s))
  return f"{len(s)} geo {g:.3f} p10 {s[len(s)//10]:.3f} min {s[0]:.3f}"
times, kind, dtype = F.load(list(map(str, RUNS_T[DT])))
times = F.offered(times, dtype)
shapes = sorted(s for s in times if {"xla", "pick"} <= set(times[s]))
fitted = lambda sh: F.fit(times, sh, dtype, num_sms=132, min_shapes=3)
out = collections.defaultdict(list)
fit_all = fitted(shapes)
for s in shapes:
  r = F.picks(times, s, fitted([t for t in shapes if t != s]), dtype, 132)
  if r: out[cost_model.regime(s[0], s[1])].append(r[0])
for k, v in out.items(): print(mode, DT, "H100 LOO", k, stats(v))
# The H100 fit (on all its runs) picking on the H200's float32 tune runs.
h200 = H200
t2, _, _ = F.load(["benchmarks/results/" + f for f in h200])
t2 = F.offered(t2, dtype)
out2 = collections.defaultdict(list)
for s in sorted(s for s in t2 if {"xla", "pick"} <= set(t2[s])):
  r = F.picks(t2, s, fit_all, dtype, 132)
  if r: out2[cost_model.regime(s[0], s[1])].append(r[0])
for k, v in out2.items(): print(mode, "H100 fit on H200 runs", k, stats(v))
if len(sys.argv) > 3:
  import json as _j
  table = _j.load(open(cost_model.TABLE_PATH))
  own = table.get("NVIDIA H200", {}).get(DT)
  new_coefs = cost_model.extended(fit_all, own) if own else fit_all
  base_choose = {}
  import wild
  sys.path.insert(0, "benchmarks")
  shapes_q = [(e.m, e.n, e.k) for e in wild.load("check")] + sorted({s for seed in (1, 2, 3) for s in wild.fresh(seed)})
  shapes_q = [s for s in shapes_q if cost_model.regime(s[0], s[1]) == "skinny" and s[0] * s[1] * s[2] >= 2**24]
  old = {s: cost_model.choose_on("NVIDIA H200", 132, *s, jnp.dtype(DT)) for s in shapes_q}
  cost_model.coefficients = lambda kind, dtype: new_coefs
  cost_model._choose.cache_clear()
  moved = []
  for s in shapes_q:
    n_ = cost_model.choose_on("NVIDIA H200", 132, *s, jnp.dtype(DT))
    if (n_ and n_.label) != (old[s] and old[s].label):
      moved.append((s, old[s].label if old[s] else None, n_.label if n_ else None))
  check = {(e.m, e.n, e.k) for e in wild.load("check")}
  print(len(shapes_q), "skinny shapes;", len(moved), "moved;", sum(s in check for s, _, _ in moved), "of them wild-check")
  for mv in moved: print("  ", mv, "check" if mv[0] in check else "")
