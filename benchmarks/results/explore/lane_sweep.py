"""Lane configs (swizzled untiled epilogue) on 1000^3 and 3000x5000x700: tuner candidates + extras."""
# Ran on 47d1d06 (issue 5 step 32). Log: lane_sweep.log.
import dataclasses, statistics, sys
import jax, jax.numpy as jnp, numpy as np
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled as pt
from pallas_tiled import tuning, config as cl
MC = pt.MosaicConfig

def inputs(m, n, k, dt):
  ka, kb = jax.random.split(jax.random.key(5))
  return (jax.random.normal(ka, (m, k), jnp.float32).astype(dt), jax.random.normal(kb, (k, n), jnp.float32).astype(dt))

def med(f, a, b):
  _, runs = profiler.measure(f, iterations=10, aggregate=False)(a, b)
  return statistics.median(sum(ms for _, ms in run) for run in runs) * 1e3, statistics.median(runs[i][-1][1] for i in range(len(runs))) * 1e3

def extras(m, n, k, dt):
  tk = cl.swizzle_elements(dt)
  L = dict(lowering="lane")
  if m * n * k > 1e10:
    return [MC(tile_m=64, tile_n=192, wg_dimension="m", tile_k=tk, max_concurrent_steps=s, **L) for s in (3, 4)] + [
      MC(tile_m=64, tile_n=192, wg_dimension="m", tile_k=tk, max_concurrent_steps=4, grid_minor_dim="m", **L),
      MC(tile_m=64, tile_n=256, wg_dimension="m", tile_k=tk, max_concurrent_steps=3, grid_tile_width=8, **L),
      MC(tile_m=64, tile_n=256, wg_dimension="m", tile_k=tk, max_concurrent_steps=3, grid_tile_width=16, **L),
      MC(tile_m=128, tile_n=192, wg_dimension="n", tile_k=tk, max_concurrent_steps=3, epi_tile_n=32, **L) if False else
      MC(tile_m=128, tile_n=96, wg_dimension="n", tile_k=tk, max_concurrent_steps=4, epi_tile_n=32, **L),
      MC(tile_m=64, tile_n=128, wg_dimension="m", tile_k=tk, max_concurrent_steps=6, **L),
      MC(tile_m=64, tile_n=192, wg_dimension="m", tile_k=tk // 2 * 2, max_concurrent_steps=4, epi_tile_m=32, **L) if False else
      MC(tile_m=64, tile_n=256, wg_dimension="m", tile_k=tk, max_concurrent_steps=4, grid_minor_dim="m", **L)]
  return [MC(tile_m=64, tile_n=64, wg_dimension=w, tile_k=2 * tk, max_concurrent_steps=s, **L) for w in ("m", "n") for s in (3, 4)] + [
      MC(tile_m=64, tile_n=64, wg_dimension="n", tile_k=tk, max_concurrent_steps=6, **L),
      MC(tile_m=64, tile_n=64, wg_dimension="n", tile_k=4 * tk, max_concurrent_steps=2, **L),
      MC(tile_m=64, tile_n=128, wg_dimension="n", tile_k=tk, max_concurrent_steps=4, **L),
      MC(tile_m=64, tile_n=64, wg_dimension="n", tile_k=2 * tk, max_concurrent_steps=4, grid_minor_dim="m", **L),
      MC(tile_m=64, tile_n=64, wg_dimension="n", tile_k=2 * tk, max_concurrent_steps=4, grid_tile_width=8, **L)]

for dt in (jnp.bfloat16, jnp.float16):
  for (m, n, k) in [(1000, 1000, 1000), (3000, 5000, 700)]:
    a, b = inputs(m, n, k, dt)
    ref = np.matmul(np.asarray(a, np.float64), np.asarray(b, np.float64))
    cands = tuning._mosaic_candidates(m, n, k, dt, None)
    cands = [dataclasses.replace(c, lowering="lane") for c in cands] + extras(m, n, k, dt)
    seen, fns = set(), {}
    for c in cands:
      if c in seen: continue
      seen.add(c)
      try:
        cl.check_mosaic_config(c, dt, dt)
        g = jax.jit(lambda x, y, c=c: pt.matmul(x, y, c, backend="mosaic")).lower(a, b).compile()
        out = np.asarray(g(a, b), np.float64)
        err = np.linalg.norm(out - ref) / np.linalg.norm(ref)
        if not err < 1e-2: print("WRONG", c.label, err); continue
        fns[c.label] = g
      except Exception as e:
        print("FAILED", getattr(c, "label", c), type(e).__name__, str(e)[:200], flush=True)
    jf = jax.jit(jnp.matmul)
    res = {x: [] for x in fns}; jt = []
    for _ in range(2):
      jt.append(med(jf, a, b)[0])
      for name, g in fns.items(): res[name].append(med(g, a, b))
    j = statistics.median(jt)
    print(f"== {jnp.dtype(dt).name} {m}x{n}x{k}: jnp {j:.2f} us", flush=True)
    for name, ts in sorted(res.items(), key=lambda kv: min(t for t, _ in kv[1])):
      t = min(x for x, _ in ts); kt = min(y for _, y in ts)
      print(f"  {name:45s} {t:7.2f} us (kernel {kt:6.2f})  {j / t:6.3f}x", flush=True)
