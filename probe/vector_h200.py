"""Probe: float32 matrix-vector products (M = 1) as Triton vector tiles on an
H200. Wild-check's float32 M = 1 rows stream b at 4.0-4.2 TB/s against
jnp.matmul's 4.5-4.7 (0.82-0.93x); the vector config was chosen on an H100.
Which vector tiles stream fastest here? wild-tune's ten M = 1 shapes (what a
choice may be fitted on) and four in neither split; operands cycled past L2
(timing.measure_cold); CUPTI medians of 2 interleaved rounds; errors against
float64. jnp.matmul at HIGHEST is printed as what an exact gemv reaches."""
import concurrent.futures, json, statistics, sys, time
import numpy as np
import jax, jax.numpy as jnp
from jax import lax
import pallas_tiled
from pallas_tiled import timing
from pallas_tiled.triton import heuristics

OUT = sys.argv[1]
START = time.time()
TUNE = [(1, 256000, 3584), (1, 4608, 36864), (1, 6144, 6144), (1, 5120, 5120),
        (1, 4096, 4096), (1, 4096, 3840), (1, 5120, 2048), (1, 3840, 1280),
        (1, 3072, 768), (1, 768, 3072)]
NEITHER = [(1, 100000, 4096), (1, 11008, 4096), (1, 2560, 10240),
           (1, 32000, 5120)]
FIELDS = [  # width, block_k, warps, stages, most K ranges
    (64, 64, 2, 4, 8), (64, 64, 4, 3, 16), (64, 128, 4, 3, 4),
    (32, 128, 4, 3, 8), (64, 64, 4, 3, 4), (128, 64, 4, 4, 8),
    (256, 64, 4, 4, 8), (256, 32, 4, 4, 8), (128, 32, 2, 4, 8),
    (64, 64, 2, 6, 8), (64, 64, 2, 2, 8), (64, 32, 2, 4, 8),
    (128, 64, 2, 4, 8), (512, 32, 8, 3, 8), (64, 64, 2, 4, 16),
    (64, 64, 2, 4, 4), (64, 128, 2, 4, 8), (128, 128, 4, 3, 8)]


def label(f):
  return "1x%dx%d/w%d/s%d/sk%d" % f


rows = []
for m, n, k in TUNE + NEITHER:
  if time.time() - START > 480:
    break
  ka, kb = jax.random.split(jax.random.key(n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32)
  b = jax.random.normal(kb, (k, n), jnp.float32)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  fs = {"xla": jnp.matmul,
        "xla_highest": lambda a, b: jnp.matmul(a, b, precision=lax.Precision.HIGHEST)}
  for f in FIELDS:
    c = heuristics.vector_tile_config(m, n, k, *f)
    fs[label(f)] = lambda a, b, c=c: pallas_tiled.matmul(a, b, c)
  sets = timing.cold_operand_sets(m, n, (a, b), 100e6)
  row = dict(shape=f"{m}x{n}x{k}", split="tune" if (m, n, k) in TUNE else "neither",
             mb=b.nbytes / 1e6, copies=len(sets))
  good = {}
  def check(item):
    name, f = item
    out = np.asarray(jax.jit(f)(a, b), np.float64)
    return name, float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
  with concurrent.futures.ThreadPoolExecutor(8) as pool:
    futs = {pool.submit(check, it): it[0] for it in fs.items()}
    for fut in concurrent.futures.as_completed(futs):
      name = futs[fut]
      try:
        name, err = fut.result()
        row[f"{name}_err"] = err
        good[name] = fs[name]
      except Exception as e:
        row[f"{name}_error"] = (type(e).__name__ + ": " + str(e))[:200]
  t = {v: [] for v in good}
  for r in range(2):
    names = list(good)
    names = names[r:] + names[:r]
    for v in names:
      t[v].append(timing.measure_cold(good[v], sets, iterations=10).median_us)
  for v, ts in t.items():
    row[f"{v}_us"] = round(statistics.median(ts), 2)
  best = min((v for v in t if v.startswith("1x")), key=lambda v: row[f"{v}_us"])
  row["best"] = best
  print(row["shape"], "xla %.1f  pick %.1f  best %s %.1f  (%.0f s)" % (
      row["xla_us"], row[f"{label(FIELDS[0])}_us"], best, row[f"{best}_us"],
      time.time() - START), flush=True)
  rows.append(row)
  json.dump(rows, open(f"{OUT}/vector_h200.json", "w"), indent=1)
