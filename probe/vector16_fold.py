"""Probe: bfloat16 one-row (M = 1) products with b's rows unaligned (N odd),
shapes in neither wild split, K from 512 to 3072: vector tiles summed each
K-phase against the model's folded pick and every folded candidate
(`candidates._folded_configs`). vector16.py (0f90720) had vector tiles 1.24x
the folded pick's speed at K = 1280 and 0.84-0.93x at K = 2048 and 4096.
Operands cycled past L2; CUPTI medians of two interleaved rounds, errors
against float64."""
import concurrent.futures, json, statistics, sys, time
import numpy as np
import jax, jax.numpy as jnp
import pallas_tiled
from pallas_tiled import timing
from pallas_tiled.triton import candidates
from pallas_tiled.triton import heuristics
from pallas_tiled.triton import kernel as triton_kernel

OUT = sys.argv[1]
BUDGET = float(sys.argv[2]) if len(sys.argv) > 2 else 200
START = time.time()
SHAPES = [(1, n, k) for n in (32001, 128257) for k in (512, 768, 1024, 1280,
                                                       1536, 2048, 3072)]
SHAPES += [(1, 50001, k) for k in (1024, 1280, 1536)]
VECTORS = [(128, 64, 4, 4, 8), (128, 64, 4, 4, 16), (256, 64, 8, 3, 8),
           (128, 128, 4, 4, 8)]
dtype = jnp.bfloat16
rows = []
for m, n, k in SHAPES:
  if time.time() - START > BUDGET:
    break
  ka, kb = jax.random.split(jax.random.key(n + k))
  a = jax.random.normal(ka, (m, k), dtype)
  b = jax.random.normal(kb, (k, n), dtype)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  pick = triton_kernel.select_config(m, n, k, jnp.dtype(dtype), None,
                                     out_dtype=jnp.dtype(dtype))
  configs = candidates._folded_configs(m, n, k, jnp.dtype(dtype))
  configs += [heuristics.vector_tile_config(m, n, k, *f) for f in VECTORS]
  fs = {"xla": jnp.matmul, "pick": lambda a, b: pallas_tiled.matmul(a, b)}
  for c in configs:
    fs[c.label] = lambda a, b, c=c: pallas_tiled.matmul(a, b, c)
  sets = timing.cold_operand_sets(m, n, (a, b), 100e6)
  row = dict(shape=f"{m}x{n}x{k}", dtype=jnp.dtype(dtype).name,
             pick=pick.label)
  def check(item):
    name, f = item
    out = np.asarray(jax.jit(f)(a, b), np.float64)
    return name, float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
  good = {}
  with concurrent.futures.ThreadPoolExecutor(8) as pool:
    for fut in concurrent.futures.as_completed(
        [pool.submit(check, it) for it in fs.items()]):
      try:
        name, err = fut.result()
        row[f"{name}_err"] = err
        if err < 1e-2:
          good[name] = fs[name]
        else:
          row.setdefault("errors", []).append(f"{name} err {err}")
      except Exception as e:
        row.setdefault("errors", []).append(
            (type(e).__name__ + ": " + str(e))[:200])
  t = {v: [] for v in good}
  for r in range(2):
    names = list(good)[r:] + list(good)[:r]
    for v in names:
      t[v].append(timing.measure_cold(good[v], sets, iterations=10).median_us)
  for v, ts in t.items():
    row[f"{v}_us"] = round(statistics.median(ts), 2)
  print(row["shape"], row["pick"], " ".join(
      "%s %.2f" % (v, row["pick_us"] / row[f"{v}_us"]) for v in t
      if v != "pick"), row.get("errors", ""),
        "(%.0f s)" % (time.time() - START), flush=True)
  rows.append(row)
  json.dump(rows, open(f"{OUT}/vector16_fold.json", "w"), indent=1)
