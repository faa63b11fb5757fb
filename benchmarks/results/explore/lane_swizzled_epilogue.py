"""Lane epilogue through swizzled, untiled SMEM (SWZ) vs unswizzled (NOSWZ=1); K padded for cross-tile pipelining (PT_KPAD=1)."""
# Ran on the tree before 47d1d06 with its change plus env toggles; lane_swizzled_epilogue.diff has the same toggles on the committed code. Log: lane_swizzled_epilogue.log (issue 5 step 32).
import dataclasses, os, statistics, sys
import jax, jax.numpy as jnp, numpy as np
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled as pt
from pallas_tiled import mosaic, config as cl

def inputs(sa, sb, dt, seed):
  ka, kb = jax.random.split(jax.random.key(seed))
  return (jax.random.normal(ka, sa, jnp.float32).astype(dt), jax.random.normal(kb, sb, jnp.float32).astype(dt))

def rel_err(out, a, b):
  ref = np.matmul(np.asarray(a.astype(jnp.float32), np.float64), np.asarray(b.astype(jnp.float32), np.float64))
  out = np.asarray(out.astype(jnp.float32), np.float64)
  assert out.shape == ref.shape, (out.shape, ref.shape)
  return np.linalg.norm(out - ref) / np.linalg.norm(ref), np.isfinite(out).all()

def setenv(**kw):
  for k in ("NOSWZ", "PT_KPAD"):
    os.environ.pop(k, None)
  for k, v in kw.items():
    os.environ[k] = v
  jax.clear_caches()

TOL = {"bfloat16": 1e-2, "float16": 2e-3, "float32": 2e-3, "float8_e4m3fn": 8e-2}
def lane_cfg(m, n, k, dt, out_dt, **kw):
  c = mosaic.select_config(m, n, k, dt, None, out_dtype=out_dt, auto=True)
  return dataclasses.replace(c, lowering="lane", **kw)

if "check" in sys.argv:
  print("== correctness (forced lane)", flush=True)
  cases = [(1000, 1000, 1000), (3000, 5000, 700), (1001, 1000, 1000), (999, 1000, 999), (7, 8, 9), (129, 1000, 65), (300, 4104, 200), (1, 1000, 64), (65, 40, 33), (2048, 2048, 1000)]
  bad = 0
  for dt in (jnp.bfloat16, jnp.float16, jnp.float32, jnp.float8_e4m3fn):
    for (m, n, k) in cases:
      for out_dt in (dt, jnp.float32) if dt != jnp.float32 else (dt,):
        for env in ({}, {"PT_KPAD": "1"}):
          setenv(**env)
          a, b = inputs((m, k), (k, n), dt, m + 3 * n + 7 * k)
          try:
            cfg = lane_cfg(m, n, k, dt, out_dt)
            out = jax.jit(lambda x, y: pt.matmul(x, y, cfg, backend="mosaic", preferred_element_type=out_dt))(a, b)
            err, fin = rel_err(out, a, b)
            ok = fin and err < TOL[jnp.dtype(out.dtype).name]
            bad += not ok
            if not ok or (m, n, k) in cases[:2]:
              print(f"  {jnp.dtype(dt).name}->{jnp.dtype(out_dt).name} {m}x{n}x{k} {env} {cfg.label if hasattr(cfg,'label') else ''}: {err:.2e} {'ok' if ok else 'WRONG'}", flush=True)
          except Exception as e:
            bad += 1
            print(f"  {jnp.dtype(dt).name}->{jnp.dtype(out_dt).name} {m}x{n}x{k} {env}: FAILED {type(e).__name__}: {str(e)[:600]}", flush=True)
  print(f"== correctness: {bad} bad", flush=True)

def measure(f, a, b):
  _, runs = profiler.measure(f, iterations=10, aggregate=False)(a, b)
  total = statistics.median(sum(ms for _, ms in run) for run in runs) * 1e3
  kern = [(name[:12], round(statistics.median(r[i][1] for r in runs) * 1e3, 2)) for i, (name, _) in enumerate(runs[0])]
  return total, kern

def variants(m, n, k, dt):
  base = mosaic.select_config(m, n, k, dt, None, out_dtype=dt, auto=True)
  v = [("noswz", {"NOSWZ": "1"}, None), ("swz", {}, None), ("swz+kpad", {"PT_KPAD": "1"}, None)]
  if base.lowering == "lane" and m * n * k > 1e10 and dt != jnp.float32:
    v += [("swz s3", {}, dataclasses.replace(base, max_concurrent_steps=3)),
          ("swz s3+kpad", {"PT_KPAD": "1"}, dataclasses.replace(base, max_concurrent_steps=3)),
          ("swz tk128 s2+kpad", {"PT_KPAD": "1"}, dataclasses.replace(base, tile_k=128, max_concurrent_steps=2)),
          ("swz 128x128 s5+kpad", {"PT_KPAD": "1"}, dataclasses.replace(base, tile_n=128, max_concurrent_steps=5)),
          ("wg pad+cut", {}, dataclasses.replace(base, lowering="warpgroup"))]
  return base, v

shapes = [(1000, 1000, 1000), (3000, 5000, 700)]
for dt in (jnp.bfloat16, jnp.float16, jnp.float32):
  for (m, n, k) in shapes:
    a, b = inputs((m, k), (k, n), dt, 11)
    fns = {"jnp": jax.jit(jnp.matmul)}
    base, vs = variants(m, n, k, dt)
    for name, env, cfg in vs:
      setenv(**env)
      try:
        g = jax.jit(lambda x, y: pt.matmul(x, y, cfg, backend="mosaic")).lower(a, b).compile()
        err, fin = rel_err(g(a, b), a, b)
        if not (fin and err < TOL[jnp.dtype(dt).name]): print(f"  {name}: WRONG {err}"); continue
        fns[name] = g
      except Exception as e:
        print(f"  {name}: FAILED {type(e).__name__}: {str(e)[:600]}", flush=True)
    setenv()
    times = {x: [] for x in fns}; kerns = {}
    for _ in range(3):
      for name, f in fns.items():
        t, kern = measure(f, a, b); times[name].append(t); kerns[name] = kern
    ref = statistics.median(times["jnp"])
    print(f"== {jnp.dtype(dt).name} {m}x{n}x{k}: jnp {ref:.2f} us; table config {base}", flush=True)
    for name, ts in times.items():
      t = statistics.median(ts)
      print(f"  {name:20s} {t:8.2f} us {ref / t:6.3f}x  {[round(x, 2) for x in ts]}  {kerns[name]}", flush=True)
