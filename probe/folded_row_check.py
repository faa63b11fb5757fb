"""Probe: the folded-row vector rule (fcc2df8) on one-row products it was
not fitted on (neither wild split): LM heads of real vocabularies with odd N
(GPT-2 50257, Whisper 51865, CLIP 49407) and with N = 2 mod 4 (BERT 30522,
fold 4, not probed before), bfloat16 and float16: the pick against the
model's choice without the rule (`cost_model._choose`) and jnp.matmul.
Operands cycled past L2; CUPTI medians of two interleaved rounds, errors
against float64."""
import json, statistics, sys, time
import numpy as np
import jax, jax.numpy as jnp
import pallas_tiled
from pallas_tiled import cost_model, device, timing

OUT = sys.argv[1]
BUDGET = float(sys.argv[2]) if len(sys.argv) > 2 else 150
START = time.time()
SHAPES = [(1, 50257, 1024), (1, 50257, 1280), (1, 50257, 1600),
          (1, 51865, 768), (1, 51865, 1024), (1, 49407, 768),
          (1, 30522, 768), (1, 30522, 1024)]
rows = []
for (m, n, k) in SHAPES:
  for dtype in (jnp.bfloat16, jnp.float16):
    if time.time() - START > BUDGET:
      break
    dt = jnp.dtype(dtype)
    ka, kb = jax.random.split(jax.random.key(n + k))
    a = jax.random.normal(ka, (m, k), dtype)
    b = jax.random.normal(kb, (k, n), dtype)
    ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
    new = cost_model.choose(m, n, k, dt, backends=("triton",))
    old = cost_model._choose(m, n, k, dt, None, dt, ("triton",),
                             device.device_kind(), device.sm_count())
    fs = {"xla": jnp.matmul,
          "new": lambda a, b, c=new: pallas_tiled.matmul(a, b, c),
          "old": lambda a, b, c=old: pallas_tiled.matmul(a, b, c)}
    row = dict(shape=f"{m}x{n}x{k}", dtype=dt.name, new=new.label,
               old=old.label)
    for name, f in fs.items():
      out = np.asarray(jax.jit(f)(a, b), np.float64)
      row[f"{name}_err"] = float(np.linalg.norm(out - ref)
                                 / np.linalg.norm(ref))
    sets = timing.cold_operand_sets(m, n, (a, b), 100e6)
    t = {v: [] for v in fs}
    for r in range(2):
      for v in list(fs)[r:] + list(fs)[:r]:
        t[v].append(timing.measure_cold(fs[v], sets, iterations=10).median_us)
    for v, ts in t.items():
      row[f"{v}_us"] = round(statistics.median(ts), 2)
    print(row["shape"], dt.name[:4], "new", new.label, "%.3f" % (
        row["xla_us"] / row["new_us"]), "old", old.label, "%.3f" % (
        row["xla_us"] / row["old_us"]), "err %.1e %.1e" % (
        row["new_err"], row["xla_err"]), "(%.0f s)" % (time.time() - START),
          flush=True)
    rows.append(row)
    json.dump(rows, open(f"{OUT}/folded_row_check.json", "w"), indent=1)
