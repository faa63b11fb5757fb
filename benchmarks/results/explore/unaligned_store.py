"""Unaligned output rows stored in place (unaligned_store) vs padded + cut."""
import os, statistics, sys
import jax, jax.numpy as jnp, numpy as np
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled as pt

def inputs(sa, sb, dt, seed):
  ka, kb = jax.random.split(jax.random.key(seed))
  return (jax.random.normal(ka, sa, jnp.float32).astype(dt), jax.random.normal(kb, sb, jnp.float32).astype(dt))

def rel_err(out, a, b):
  ref = np.matmul(np.asarray(a.astype(jnp.float32), np.float64), np.asarray(b.astype(jnp.float32), np.float64))
  out = np.asarray(out.astype(jnp.float32), np.float64)
  assert out.shape == ref.shape, (out.shape, ref.shape)
  return np.linalg.norm(out - ref) / np.linalg.norm(ref), np.isfinite(out).all()

TOL = {"bfloat16": 1e-2, "float16": 2e-3, "float32": 2e-3, "float8_e4m3fn": 8e-2}
if "check" in sys.argv:
  print("== correctness", flush=True)
  cases = [((2047, 1023), (1023, 8191)), ((7, 7), (7, 7)), ((1, 9), (9, 3)), ((129, 65), (65, 127)),
           ((1000, 1000), (1000, 1001)), ((3, 100, 99), (3, 99, 101)), ((300, 4097), (4097, 333)),
           ((64, 64), (64, 1)), ((257, 200), (200, 1023))]
  for dt in (jnp.bfloat16, jnp.float16, jnp.float32, jnp.float8_e4m3fn):
    for sa, sb in cases:
      a, b = inputs(sa, sb, dt, sum(sa) + 3 * sum(sb))
      for name, f in (("mosaic", lambda x, y: pt.matmul(x, y, backend="mosaic")),
                      ("mosaic f32 out", lambda x, y: pt.matmul(x, y, backend="mosaic", preferred_element_type=jnp.float32))):
        if name != "mosaic" and dt == jnp.float32: continue
        try:
          out = jax.jit(f)(a, b)
          err, fin = rel_err(out, a, b)
          tol = TOL[jnp.dtype(out.dtype).name]
          print(f"  {jnp.dtype(dt).name} {sa}@{sb} {name}: {err:.2e} {'ok' if fin and err < tol else 'WRONG'}", flush=True)
        except Exception as e:
          print(f"  {jnp.dtype(dt).name} {sa}@{sb} {name}: FAILED {type(e).__name__}: {str(e)[:800]}", flush=True)

def measure(f, a, b):
  _, runs = profiler.measure(f, iterations=10, aggregate=False)(a, b)
  total = statistics.median(sum(ms for _, ms in run) for run in runs) * 1e3
  kern = [(name[:24], round(statistics.median(r[i][1] for r in runs) * 1e3, 1)) for i, (name, _) in enumerate(runs[0])]
  return total, kern

shapes = [(2047, 8191, 1023), (4097, 4097, 4097)]
dts = [jnp.bfloat16, jnp.float16, jnp.float32] if "f32" in sys.argv else [jnp.bfloat16, jnp.float16]
for dt in dts:
  for (m, n, k) in shapes:
    a, b = inputs((m, k), (k, n), dt, 11)
    fns = {"jnp": jax.jit(jnp.matmul)}
    for name, env in (("inplace", None), ("padcut", "1")):
      if env: os.environ["PT_NO_UNALIGNED"] = env
      else: os.environ.pop("PT_NO_UNALIGNED", None)
      jax.clear_caches()
      try:
        g = jax.jit(lambda x, y: pt.matmul(x, y, backend="mosaic")).lower(a, b).compile()
        err, fin = rel_err(g(a, b), a, b) if m * n * k < 5e10 else (0.0, True)
        print(f"  {jnp.dtype(dt).name} {m}x{n}x{k} {name}: rel err {err:.2e}", flush=True)
        fns[name] = g
      except Exception as e:
        print(f"  {name}: FAILED {type(e).__name__}: {str(e)[:800]}", flush=True)
    os.environ.pop("PT_NO_UNALIGNED", None)
    times = {x: [] for x in fns}; kerns = {}
    for _ in range(3):
      for name, f in fns.items():
        t, kern = measure(f, a, b); times[name].append(t); kerns[name] = kern
    ref = statistics.median(times["jnp"])
    print(f"== {jnp.dtype(dt).name} {m}x{n}x{k}: jnp {ref:.1f} us", flush=True)
    for name, ts in times.items():
      t = statistics.median(ts)
      print(f"  {name:10s} {t:8.1f} us {ref / t:6.3f}x  {[round(x, 1) for x in ts]}  {kerns[name]}", flush=True)
