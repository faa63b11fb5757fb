"""Probe: float32 one-row products (M = 1) as 16-row Triton dots at
TF32_TF32_F32_X3 (three TF32 products: hi*hi + hi*lo + lo*hi, about
float32's accuracy) against today's vector tiles (IEEE FMA sums) and the
same strips as one TF32 dot (jnp.matmul's rate and error). Shapes of
wild-tune and of neither split. Operands cycled past L2; CUPTI medians of
two interleaved rounds, errors against float64."""
import json, statistics, sys, time
import numpy as np
import jax, jax.numpy as jnp
from jax import lax
import pallas_tiled
from pallas_tiled import timing
from pallas_tiled.triton import heuristics
from pallas_tiled.triton.config import TileConfig

OUT = sys.argv[1]
BUDGET = float(sys.argv[2]) if len(sys.argv) > 2 else 200
START = time.time()
HI = lax.Precision.HIGHEST
SHAPES = [(1, 4096, 4096), (1, 5120, 5120), (1, 6144, 6144), (1, 4096, 3840),
          (1, 4608, 36864), (1, 11008, 4096), (1, 32000, 4096),
          (1, 14336, 4096), (1, 28672, 4096), (1, 8192, 8192),
          (1, 256000, 3584), (1, 768, 3072), (1, 5120, 2048),
          (1, 1536, 6144), (1, 2560, 10240)]


def fill_split(n, k, width, block_k, programs=330, most=16):
  strips, sk = -(-n // width), 1
  while strips * sk < programs and sk < most and k // (2 * sk) >= 4 * block_k:
    sk *= 2
  return sk


def strip(n, k, width, block_k, warps, stages):
  return TileConfig(16, width, block_k, num_warps=warps, num_stages=stages,
                    split_k=fill_split(n, k, width, block_k))

rows = []
for m, n, k in SHAPES:
  if time.time() - START > BUDGET:
    break
  ka, kb = jax.random.split(jax.random.key(n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32)
  b = jax.random.normal(kb, (k, n), jnp.float32)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  vec = heuristics.vector_config(m, n, k)
  cfgs = {"vec": (vec, None),
          "tf32-128": (strip(n, k, 128, 64, 4, 4), None),
          "x3-128": (strip(n, k, 128, 64, 4, 4), HI),
          "x3-64": (strip(n, k, 64, 64, 4, 4), HI),
          "x3-256": (strip(n, k, 256, 64, 4, 3), HI),
          "x3-128k32": (strip(n, k, 128, 32, 4, 5), HI),
          "x3-128w8": (strip(n, k, 128, 64, 8, 4), HI)}
  fs = {"xla": jnp.matmul,
        "xla-hi": lambda a, b: jnp.matmul(a, b, precision=HI)}
  for name, (c, p) in cfgs.items():
    fs[name] = lambda a, b, c=c, p=p: pallas_tiled.matmul(a, b, c,
                                                          precision=p)
  row = dict(shape=f"{m}x{n}x{k}",
             labels={v: c.label for v, (c, p) in cfgs.items()})
  good = {}
  for name, f in fs.items():
    try:
      out = np.asarray(jax.jit(f)(a, b), np.float64)
      err = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
      row[f"{name}_err"] = err
      if err < 1e-3:
        good[name] = f
      else:
        row.setdefault("errors", []).append(f"{name} err {err}")
    except Exception as e:
      row.setdefault("errors", []).append(
          name + ": " + (type(e).__name__ + ": " + str(e))[:300])
  sets = timing.cold_operand_sets(m, n, (a, b), 100e6)
  t = {v: [] for v in good}
  for r in range(2):
    names = list(good)[r:] + list(good)[:r]
    for v in names:
      t[v].append(timing.measure_cold(good[v], sets, iterations=10).median_us)
  for v, ts in t.items():
    row[f"{v}_us"] = round(statistics.median(ts), 2)
  print(row["shape"], " ".join(
      "%s %.3f(%.0e)" % (v, row["xla_us"] / row[f"{v}_us"], row[f"{v}_err"])
      for v in t if v != "xla"), row.get("errors", ""),
        "(%.0f s)" % (time.time() - START), flush=True)
  rows.append(row)
  json.dump(rows, open(f"{OUT}/x3_rows.json", "w"), indent=1)
