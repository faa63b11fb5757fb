"""Probe: products of a short unaligned K (one K-phase) read in place.

float32's Triton candidates never read unaligned rows in place (TF32 wants
b K-major; element loads were 2x slower over long K). Where K fits one
K-phase each program loads its strips once, so the pads' launches may cost
more than element loads. Shapes in neither wild split; the model's pick,
its short-K tiles read in place (b as stored, no pads), jnp.matmul; CUPTI
medians of 3 interleaved rounds of 20 runs, against float64."""
import dataclasses, json, statistics, sys
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import cost_model
from pallas_tiled.triton import candidates as tc
from pallas_tiled.triton.heuristics import default_tiled_config

OUT = sys.argv[1]
kind, sms = jax.devices()[0].device_kind, jax.devices()[0].core_count
SHAPES = [(700, 4001, 14), (1500, 3001, 10), (10000, 7001, 22),
          (3000, 5003, 30), (600, 3001, 6)]


def time_us(f, *args):
  _, runs = profiler.measure(f, iterations=20, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3


rows = []
for dtype in (jnp.float8_e4m3fn,):
  for m, n, k in SHAPES:
    ka, kb = jax.random.split(jax.random.key(m + n + k))
    a = jax.random.normal(ka, (m, k), jnp.float32).astype(dtype)
    b = jax.random.normal(kb, (k, n), jnp.float32).astype(dtype)
    ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
    pick = cost_model.choose_on(kind, sms, m, n, k, dtype)
    configs = {"pick": pick}
    first = default_tiled_config(m, n, k, dtype)
    for c in tc.short_k_configs(first, k, dtype):
      v = dataclasses.replace(c, align_operands=False, k_major_b=False)
      configs.setdefault(v.label, v)
    row = dict(shape=f"{m}x{n}x{k}", dtype=jnp.dtype(dtype).name,
               pick=pick.label)
    fs = {"xla": jax.jit(jnp.matmul)}
    for name, c in configs.items():
      fs[name] = jax.jit(lambda a, b, c=c: pallas_tiled.matmul(a, b, c))
    good = {}
    for name, f in fs.items():
      try:
        out = np.asarray(f(a, b), np.float64)
        row[f"{name}_err"] = float(np.linalg.norm(out - ref)
                                   / np.linalg.norm(ref))
        good[name] = f
      except Exception as e:
        row[f"{name}_error"] = (type(e).__name__ + ": " + str(e))[:200]
    t = {v: [] for v in good}
    for _ in range(3):
      for v, f in good.items():
        t[v].append(time_us(f, a, b))
    for v, ts in t.items():
      row[f"{v}_us"] = round(statistics.median(ts), 2)
    print(json.dumps(row), flush=True)
    rows.append(row)
json.dump(rows, open(f"{OUT}/shortk.json", "w"), indent=1)
