"""Untiled operand staging (no pads for 16-byte-aligned ragged rows) vs pads."""
# The log holds two runs: the first with the correctness section on (for dt in
# (jnp.bfloat16, jnp.float16)) and tile_k 64 variants on the table tile; the
# second, this version, with the wg_dimension="m" variants.
import dataclasses, os, statistics, subprocess, sys
import jax, jax.numpy as jnp, numpy as np
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled as pt
from pallas_tiled import mosaic, batching
R = dataclasses.replace

def inputs(shape_a, shape_b, dt, seed):
  ka, kb = jax.random.split(jax.random.key(seed))
  return (jax.random.normal(ka, shape_a, jnp.float32).astype(dt),
          jax.random.normal(kb, shape_b, jnp.float32).astype(dt))

def rel_err(out, a, b):
  ref = np.asarray(a.astype(jnp.float32), np.float64) @ np.asarray(b.astype(jnp.float32), np.float64)
  out = np.asarray(out.astype(jnp.float32), np.float64)
  return np.linalg.norm(out - ref) / np.linalg.norm(ref), np.isfinite(out).all()

def stored(a, b, ta, tb, config):
  a_s = a.T if ta else a; b_s = b.T if tb else b
  p = batching.BatchedProblem.from_shapes(a_s.shape, b_s.shape, transpose_a=ta, transpose_b=tb)
  f = jax.jit(lambda x, y: mosaic.batched_product(x[None], y[None], problem=p, config=config, precision=None, out_dtype=a.dtype, interpret=False)[0])
  return f(a_s, b_s)

def cfg(m, n, k, dt, **kw):
  return R(mosaic.select_config(m, n, k, dt, None, out_dtype=dt, auto=True), **kw)

print("== correctness (tolerance 1e-2 for 16-bit)", flush=True)
cases = [((1000, 1000, 1000), {}), ((1000, 1000, 1000), dict(tile_k=64)),
         ((300, 1000, 1000), dict(tile_k=64)), ((129, 1000, 2000), dict(tile_k=64)),
         ((1000, 3000, 1000), dict(tile_k=64, max_concurrent_steps=8)),
         ((1000, 1000, 4000), dict(tile_k=64)), ((2000, 520, 760), dict(tile_k=64)),
         ((1000, 1000, 1000), dict(tile_k=64, tile_m=128, wg_dimension="m")),
         ((1000, 1000, 1000), dict(tile_k=64, tile_n=32, epi_tile_n=32, wg_dimension="n")),]
for dt in ():
  for (m, n, k), kw in cases:
    c = cfg(m, n, k, dt, **kw)
    for ta, tb in ((False, False), (False, True), (True, False), (True, True)):
      a, b = inputs((m, k), (k, n), dt, m + 7 * n + 13 * k + 2 * ta + tb)
      try:
        err, fin = rel_err(stored(a, b, ta, tb, c), a, b)
        print(f"  {dt.__name__} {m}x{n}x{k} {kw} {'tn'[ta]}{'nt'[tb]}: {err:.2e} {'ok' if fin and err < 1e-2 else 'WRONG'}", flush=True)
      except Exception as e:
        print(f"  {dt.__name__} {m}x{n}x{k} {kw} {'tn'[ta]}{'nt'[tb]}: FAILED {type(e).__name__}: {str(e)[:1200]}", flush=True)

def measure(f, a, b):
  _, runs = profiler.measure(f, iterations=20, aggregate=False)(a, b)
  total = statistics.median(sum(ms for _, ms in run) for run in runs) * 1e3
  kern = [(name[:28], round(statistics.median(r[i][1] for r in runs) * 1e3, 2)) for i, (name, _) in enumerate(runs[0])]
  return total, kern

ROUNDS = 3
for dt in (jnp.bfloat16, jnp.float16):
  for (m, n, k) in [(1000, 1000, 1000)]:
    a, b = inputs((m, k), (k, n), dt, 5)
    fns = {"jnp": jax.jit(jnp.matmul)}
    base = cfg(m, n, k, dt)
    variants = {"table": base, "m128": R(base, wg_dimension="m"), "m64": R(base, wg_dimension="m", tile_k=64),
                "m64s6": R(base, wg_dimension="m", tile_k=64, max_concurrent_steps=6),
                "m128s3": R(base, wg_dimension="m", max_concurrent_steps=3)}
    if (m, n, k) == (3000, 5000, 700):
      variants = {"table": base}
    for name, c in variants.items():
      for pad in ("", "/pad"):
        if pad: os.environ["PT_NO_UNTILED"] = "1"
        else: os.environ.pop("PT_NO_UNTILED", None)
        jax.clear_caches()
        try:
          g = jax.jit(lambda x, y, c=c: pt.matmul(x, y, c, backend="mosaic")).lower(a, b).compile()
          err, fin = rel_err(g(a, b), a, b); assert fin and err < 1e-2, err
          fns[name + pad] = g
        except Exception as e:
          print(f"  {name + pad}: FAILED {type(e).__name__}: {str(e)[:600]}", flush=True)
    times = {n_: [] for n_ in fns}; kerns = {}
    for rnd in range(ROUNDS):
      for name, f in fns.items():
        t, kern = measure(f, a, b); times[name].append(t); kerns[name] = kern
    os.environ.pop("PT_NO_UNTILED", None)
    ref = statistics.median(times["jnp"])
    print(f"== {dt.__name__} {m}x{n}x{k}: jnp {ref:.2f} us  {times['jnp']}", flush=True)
    for name, ts in times.items():
      if not ts or name == "jnp": continue
      t = statistics.median(ts)
      print(f"  {name:14s} {t:8.2f} us {ref / t:6.3f}x  rounds {[round(x, 2) for x in ts]}  {kerns[name]}", flush=True)
