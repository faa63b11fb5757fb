"""Probe: float32 one-row products' wide strips (256x64/w8/s3, the rule's
pick where they give 2.5 programs an SM) over 4, 8 and 16 K ranges, and the
narrow 64-wide strip, on shapes in neither wild split. wild-check's
1x30720x3840 ran 0.825x jnp.matmul over 8 ranges (K = 3840: 7.5 phases a
range, so ranges of 8 and a last of 4), where the narrow strip had run
0.894x; K = 3584 and 4096 divide evenly. Operands cycled past L2; CUPTI
medians of two interleaved rounds, errors against float64."""
import concurrent.futures, json, statistics, sys, time
import numpy as np
import jax, jax.numpy as jnp
import pallas_tiled
from pallas_tiled import timing
from pallas_tiled.triton import heuristics

OUT = sys.argv[1]
BUDGET = float(sys.argv[2]) if len(sys.argv) > 2 else 200
START = time.time()
SHAPES = [(1, 24576, 3840), (1, 32768, 3840), (1, 40960, 3840),
          (1, 24576, 3584), (1, 32768, 3584), (1, 24576, 4096),
          (1, 32768, 4096), (1, 32768, 2560), (1, 32768, 5120),
          (1, 16384, 6144), (1, 40960, 2816)]
VARIANTS = {
    "narrow": lambda m, n, k: heuristics.narrow_vector_config(m, n, k),
    "wide-sk4": lambda m, n, k: heuristics.wide_vector_config(m, n, k, 4),
    "wide-sk8": lambda m, n, k: heuristics.wide_vector_config(m, n, k, 8),
    "wide-sk16": lambda m, n, k: heuristics.wide_vector_config(m, n, k, 16),
    "128-sk8": lambda m, n, k: heuristics.vector_tile_config(
        m, n, k, 128, 64, num_warps=4, num_stages=4, most_splits=8),
}
rows = []
for m, n, k in SHAPES:
  if time.time() - START > BUDGET:
    break
  ka, kb = jax.random.split(jax.random.key(n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32)
  b = jax.random.normal(kb, (k, n), jnp.float32)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  fs = {"xla": jnp.matmul}
  for name, make in VARIANTS.items():
    c = make(m, n, k)
    fs[name] = lambda a, b, c=c: pallas_tiled.matmul(a, b, c)
  sets = timing.cold_operand_sets(m, n, (a, b), 100e6)
  row = dict(shape=f"{m}x{n}x{k}",
             pick=heuristics.vector_config(m, n, k).label)
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
        if err < 1e-3:
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
      "%s %.3f" % (v, row["xla_us"] / row[f"{v}_us"]) for v in t
      if v != "xla"), row.get("errors", ""),
        "(%.0f s)" % (time.time() - START), flush=True)
  rows.append(row)
  json.dump(rows, open(f"{OUT}/vector_krange.json", "w"), indent=1)
