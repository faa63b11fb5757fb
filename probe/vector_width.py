"""Probe: which strip width for float32 vector tiles, now that they sum each
K-phase (1-D running sums; 7c8e00c: 256- and 512-wide strips 5-7% faster
than 64-wide on b of 180 MB to 3.7 GB, far slower where few strips fill the
SMs, 1x2560x10240). wild-tune's ten M = 1 shapes (what the rule may be fitted
on) and five in neither split between, operands cycled past L2; CUPTI
medians of two interleaved rounds, errors against float64."""
import concurrent.futures, json, statistics, sys, time
import numpy as np
import jax, jax.numpy as jnp
import pallas_tiled
from pallas_tiled import timing
from pallas_tiled.triton import heuristics

OUT = sys.argv[1]
START = time.time()
TUNE = [(1, 256000, 3584), (1, 4608, 36864), (1, 6144, 6144), (1, 5120, 5120),
        (1, 4096, 4096), (1, 4096, 3840), (1, 5120, 2048), (1, 3840, 1280),
        (1, 3072, 768), (1, 768, 3072)]
NEITHER = [(1, 4096, 8192), (1, 6144, 8192), (1, 8192, 4096),
           (1, 12288, 4096), (1, 16384, 4096)]
FIELDS = [(64, 64, 2, 4, 8), (128, 64, 4, 4, 8), (256, 64, 8, 3, 8),
          (256, 64, 4, 3, 8), (512, 32, 8, 3, 8), (256, 64, 8, 3, 16)]
label = lambda f: "%dx%d/w%d/s%d/sk%d" % f

rows = []
for m, n, k in TUNE + NEITHER:
  if time.time() - START > 260:
    break
  ka, kb = jax.random.split(jax.random.key(n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32)
  b = jax.random.normal(kb, (k, n), jnp.float32)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  fs = {"xla": jnp.matmul}
  for f in FIELDS:
    c = heuristics.vector_tile_config(m, n, k, *f)
    fs[label(f)] = lambda a, b, c=c: pallas_tiled.matmul(a, b, c)
  sets = timing.cold_operand_sets(m, n, (a, b), 100e6)
  row = dict(shape=f"{m}x{n}x{k}", split="tune" if (m, n, k) in TUNE else "neither")
  def check(item):
    name, f = item
    out = np.asarray(jax.jit(f)(a, b), np.float64)
    return name, float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
  good = {}
  with concurrent.futures.ThreadPoolExecutor(8) as pool:
    for fut in concurrent.futures.as_completed([pool.submit(check, it) for it in fs.items()]):
      try:
        name, err = fut.result()
        row[f"{name}_err"], good[name] = err, fs[name]
      except Exception as e:
        row.setdefault("errors", []).append((type(e).__name__ + ": " + str(e))[:200])
  t = {v: [] for v in good}
  for r in range(2):
    names = list(good)[r:] + list(good)[:r]
    for v in names:
      t[v].append(timing.measure_cold(good[v], sets, iterations=10).median_us)
  for v, ts in t.items():
    row[f"{v}_us"] = round(statistics.median(ts), 2)
  print(row["shape"], row["split"], " ".join("%s %.3f" % (v, row["xla_us"] / row[f"{v}_us"])
                                             for v in t if v != "xla"),
        "(%.0f s)" % (time.time() - START), flush=True)
  rows.append(row)
  json.dump(rows, open(f"{OUT}/vector_width.json", "w"), indent=1)
