"""16-bit square/llm: the table's entry vs 256-byte K-tiles (2 stages) and
wider epilogue pieces, alternated rounds, CUPTI medians."""
import dataclasses, statistics
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled as pt
from pallas_tiled import mosaic, config as cl
R = dataclasses.replace

def med(f, a, b):
  _, runs = profiler.measure(f, iterations=20, aggregate=False)(a, b)
  return statistics.median(sum(ms for _, ms in run) for run in runs) * 1e3

SHAPES = [("bfloat16", s) for s in [(2048,) * 3, (4096,) * 3, (8192,) * 3,
                                     (4096, 14336, 4096), (4096, 4096, 14336)]]
SHAPES += [("float16", (8192,) * 3), ("float16", (4096, 14336, 4096))]
for dt, (m, n, k) in SHAPES:
  dt = jnp.dtype(dt)
  ka, kb = jax.random.split(jax.random.key(m + n))
  a = jax.random.normal(ka, (m, k), jnp.float32).astype(dt)
  b = jax.random.normal(kb, (k, n), jnp.float32).astype(dt)
  ref = jnp.matmul(a.astype(jnp.float32), b.astype(jnp.float32), precision="highest")
  t = mosaic.select_config(m, n, k, dt, None, out_dtype=dt, auto=True)
  cands = {"table": t,
           "k128s2": R(t, tile_k=128, max_concurrent_steps=2),
           "k128s2-64x256": R(t, tile_m=64, tile_n=256, wg_dimension="m", tile_k=128, max_concurrent_steps=2),
           "epi128s3": R(t, epi_tile_n=128, max_concurrent_steps=3),
           "epiFULLs3": R(t, epi_tile_n=t.tile_n, max_concurrent_steps=3)}
  fns = {}
  for name, c in cands.items():
    if name != "table" and c == t: continue
    try:
      cl.check_mosaic_config(c, dt, dt)
      g = jax.jit(lambda x, y, c=c: pt.matmul(x, y, config=c, backend="mosaic")).lower(a, b).compile()
      out = g(a, b).astype(jnp.float32)
      err = float(jnp.linalg.norm(out - ref) / jnp.linalg.norm(ref))
      if not err < 1e-2: print("WRONG", name, c.label, err, flush=True); continue
      fns[name] = (c, g)
    except Exception as e:
      print("FAILED", name, c.label, type(e).__name__, str(e)[:200], flush=True)
  jf = jax.jit(jnp.matmul)
  res = {x: [] for x in fns}; jt = []
  for _ in range(3):
    jt.append(med(jf, a, b))
    for name, (c, g) in fns.items(): res[name].append(med(g, a, b))
  x = statistics.median(jt)
  print(f"{dt.name} {m}x{n}x{k}: jnp {x:.1f} us", flush=True)
  for name, (c, g) in fns.items():
    v = statistics.median(res[name])
    print(f"   {name:14s} {c.label:45s} {v:8.1f} us  {x / v:.3f}x  raw {['%.1f' % r for r in res[name]]}", flush=True)
