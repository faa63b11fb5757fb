"""64x256x128/s2 consumers: tile orders, alternated rounds, CUPTI medians."""
import dataclasses, statistics
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled as pt
from pallas_tiled import mosaic
MC = pt.MosaicConfig

def med(f, a, b):
  _, runs = profiler.measure(f, iterations=20, aggregate=False)(a, b)
  return statistics.median(sum(ms for _, ms in run) for run in runs) * 1e3

SHAPES = [(d, s) for d in ("bfloat16", "float16") for s in
          [(4096,) * 3, (4096, 14336, 4096), (4096, 4096, 14336), (8192,) * 3, (2048,) * 3]]
ORDERS = [(d, w) for d, w in [("n", 4), ("m", 4), ("n", 8), ("m", 8), ("n", 16), ("m", 16), ("n", 2)]]
for dt, (m, n, k) in SHAPES:
  dt = jnp.dtype(dt)
  ka, kb = jax.random.split(jax.random.key(m + n))
  a = jax.random.normal(ka, (m, k), jnp.float32).astype(dt)
  b = jax.random.normal(kb, (k, n), jnp.float32).astype(dt)
  ref = jnp.matmul(a.astype(jnp.float32), b.astype(jnp.float32), precision="highest")
  t = mosaic.select_config(m, n, k, dt, None, out_dtype=dt, auto=True)
  cands = {"table": t}
  for d, w in ORDERS:
    c = MC(tile_m=64, tile_n=256, tile_k=128, wg_dimension="m", max_concurrent_steps=2, grid_minor_dim=d, grid_tile_width=w)
    if c != t: cands[f"{d}{w}"] = c
  fns = {}
  for name, c in cands.items():
    try:
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
    print(f"   {name:6s} {c.label:45s} {v:8.1f} us  {x / v:.3f}x  raw {['%.1f' % r for r in res[name]]}", flush=True)
