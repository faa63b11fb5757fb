"""Probe: 16-bit one-row (M = 1) products as vector tiles summed each
K-phase (c133e66), against the cost model's pick (16-row dots, folded where
b's rows are unaligned) and jnp.matmul. wild-tune's ten M = 1 shapes (what a
rule may be fitted on) and seven in neither split (four with unaligned N,
as the folded picks run); bfloat16 throughout, float16 on the unaligned
ones; operands cycled past L2; CUPTI medians of two interleaved rounds,
errors against float64."""
import concurrent.futures, json, statistics, sys, time
import numpy as np
import jax, jax.numpy as jnp
import pallas_tiled
from pallas_tiled import timing
from pallas_tiled.triton import heuristics
from pallas_tiled.triton import kernel as triton_kernel

OUT = sys.argv[1]
BUDGET = float(sys.argv[2]) if len(sys.argv) > 2 else 300
START = time.time()
TUNE = [(1, 256000, 3584), (1, 4608, 36864), (1, 6144, 6144), (1, 5120, 5120),
        (1, 4096, 4096), (1, 4096, 3840), (1, 5120, 2048), (1, 3840, 1280),
        (1, 3072, 768), (1, 768, 3072)]
UNALIGNED = [(1, 50257, 768), (1, 32001, 4096), (1, 49953, 1280),
             (1, 100003, 2048)]
NEITHER = UNALIGNED + [(1, 8192, 4096), (1, 12288, 4096), (1, 16384, 4096)]
FIELDS = [(64, 64, 2, 4, 8), (128, 64, 4, 4, 8), (128, 128, 4, 4, 16),
          (256, 64, 8, 3, 8), (256, 128, 8, 3, 8), (256, 64, 4, 3, 8),
          (512, 64, 8, 3, 8)]
label = lambda f: "%dx%d/w%d/s%d/sk%d" % f

CASES = [(s, jnp.bfloat16) for s in TUNE + NEITHER] + [
    (s, jnp.float16) for s in UNALIGNED]
rows = []
for (m, n, k), dtype in CASES:
  if time.time() - START > BUDGET:
    break
  ka, kb = jax.random.split(jax.random.key(n + k))
  a = jax.random.normal(ka, (m, k), dtype)
  b = jax.random.normal(kb, (k, n), dtype)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  pick = triton_kernel.select_config(m, n, k, jnp.dtype(dtype), None,
                                     out_dtype=jnp.dtype(dtype))
  fs = {"xla": jnp.matmul, "pick": lambda a, b: pallas_tiled.matmul(a, b)}
  for f in FIELDS:
    c = heuristics.vector_tile_config(m, n, k, *f)
    fs[label(f)] = lambda a, b, c=c: pallas_tiled.matmul(a, b, c)
  sets = timing.cold_operand_sets(m, n, (a, b), 100e6)
  row = dict(shape=f"{m}x{n}x{k}", dtype=jnp.dtype(dtype).name,
             split="tune" if (m, n, k) in TUNE else "neither",
             pick=str(getattr(pick, "label", pick)))
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
        if err < 2e-2:
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
  gb = (m * k + k * n + m * n) * jnp.dtype(dtype).itemsize / 1e3
  print(row["shape"], row["dtype"][:4], row["split"], row["pick"],
        "xla %.0fGB/s" % (gb / row["xla_us"]) if "xla_us" in row else "",
        " ".join("%s %.3f" % (v, row["xla_us"] / row[f"{v}_us"])
                 for v in t if v != "xla"),
        row.get("errors", ""), "(%.0f s)" % (time.time() - START), flush=True)
  rows.append(row)
  json.dump(rows, open(f"{OUT}/vector16.json", "w"), indent=1)
