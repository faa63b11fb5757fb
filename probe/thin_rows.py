"""Probe (removed next commit): the thin-b rule's 64-row picks
(`heuristics.thin_b_tile`) against the 128-row picks the model made
without it, side by side: CUPTI medians of 3 interleaved rounds over cold
operand sets (as the benchmark times skinny shapes), beside jnp.matmul.
Usage: probe/thin_rows.py OUT SHAPE..."""
import json, statistics, sys
import numpy as np
import jax, jax.numpy as jnp
import pallas_tiled
from pallas_tiled import cost_model, device, timing
from pallas_tiled.triton import heuristics

OUT = sys.argv[1]
rows = []
for shape in sys.argv[2:]:
  m, n, k = map(int, shape.split("x"))
  ka, kb = jax.random.split(jax.random.key(m + n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32)
  b = jax.random.normal(kb, (k, n), jnp.float32)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  new = cost_model.choose(m, n, k, jnp.float32)
  rule = cost_model.thin_b_tile
  cost_model.thin_b_tile = lambda c: not c.k_major_b
  cost_model._choose.cache_clear()
  old = cost_model.choose(m, n, k, jnp.float32)
  cost_model.thin_b_tile = rule
  cost_model._choose.cache_clear()
  fs = {"xla": jnp.matmul,
        "new": lambda a, b, c=new: pallas_tiled.matmul(a, b, c),
        "old": lambda a, b, c=old: pallas_tiled.matmul(a, b, c)}
  row = dict(shape=shape, new=new.label, old=old.label)
  for name, f in fs.items():
    out = np.asarray(jax.jit(f)(a, b), np.float64)
    row[f"{name}_err"] = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
  sets = timing.cold_operand_sets(m, n, (a, b), 100e6)
  t = {name: [] for name in fs}
  for r in range(3):
    names = list(fs)[r:] + list(fs)[:r]
    for name in names:
      t[name].append(timing.measure_cold(fs[name], sets,
                                         iterations=10).median_us)
  for name, ts in t.items():
    row[f"{name}_us"] = round(statistics.median(ts), 2)
  print(shape, f"new {new.label} {row['new_us']}us"
        f" {row['xla_us'] / row['new_us']:.3f}x | old {old.label}"
        f" {row['old_us']}us {row['xla_us'] / row['old_us']:.3f}x | xla"
        f" {row['xla_us']}", flush=True)
  rows.append(row)
  json.dump(rows, open(f"{OUT}/thin_rows.json", "w"), indent=1)
