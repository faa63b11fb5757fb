"""Components of an edge-peeled 4097^3: main kernel on 4096 x 4096 outputs, edge GEMVs, assembly."""
# Ran on 47d1d06 (issue 5 step 34). Log: edge_peel_probe.log.
import statistics
import jax, jax.numpy as jnp, numpy as np
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled as pt

def med(f, *args):
  _, runs = profiler.measure(f, iterations=10, aggregate=False)(*args)
  tot = statistics.median(sum(ms for _, ms in run) for run in runs) * 1e3
  kern = [(n[:20], round(statistics.median(r[i][1] for r in runs) * 1e3, 2)) for i, (n, _) in enumerate(runs[0])]
  return tot, kern

for dt in (jnp.bfloat16, jnp.float16):
  ka, kb = jax.random.split(jax.random.key(1))
  M = 4097
  a = jax.random.normal(ka, (M, M), jnp.float32).astype(dt)
  b = jax.random.normal(kb, (M, M), jnp.float32).astype(dt)
  ap = jax.random.normal(ka, (4096, 4160), jnp.float32).astype(dt)
  bp = jax.random.normal(kb, (4160, 4096), jnp.float32).astype(dt)
  c00 = jnp.zeros((4096, 4096), dt) + 1
  fns = {
    "current": (jax.jit(lambda x, y: pt.matmul(x, y, backend="mosaic")), (a, b)),
    "jnp": (jax.jit(jnp.matmul), (a, b)),
    "kernel 4096x4096x4160 aligned": (jax.jit(lambda x, y: pt.matmul(x, y, backend="mosaic")), (ap, bp)),
    "gemv A@b[:,-1]": (jax.jit(lambda x, y: x @ y[:, -1]), (a, b)),
    "gemv a[-1]@B": (jax.jit(lambda x, y: x[-1] @ y), (a, b)),
    "gemv both": (jax.jit(lambda x, y: (x @ y[:, -1], x[-1] @ y)), (a, b)),
    "pads A[:4096]->4160, B[:, :4096]->4104": (jax.jit(lambda x, y: (jnp.pad(x[:4096], ((0, 0), (0, 63))), jnp.pad(y[:, :4096], ((0, 7), (0, 0))))), (a, b)),
    "assemble": (jax.jit(lambda c, x, y: jnp.concatenate([jnp.concatenate([c, (x @ y[:, -1])[:4096, None]], 1), (x[-1] @ y)[None]], 0)), (c00, a, b)),
  }
  for name, (f, args) in fns.items():
    try:
      t = [med(f, *args) for _ in range(2)]
      print(f"{jnp.dtype(dt).name} {name:42s} {min(x for x, _ in t):8.2f} us  {t[0][1]}", flush=True)
    except Exception as e:
      print(name, "FAILED", type(e).__name__, str(e)[:300], flush=True)
