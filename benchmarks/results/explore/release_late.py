"""A/B: consumers wait for all wgmmas (off) vs keep one in flight and
release each K-tile one step late (on). Alternated 3 rounds, medians."""
import dataclasses, statistics, sys
import numpy as np
import jax, jax.numpy as jnp
import pallas_tiled as pt
from pallas_tiled import mosaic, timing
CASES = [(d, s) for d in ("bfloat16", "float16") for s in
         [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
          (4096, 14336, 4096), (4096, 4096, 14336)]]
CASES += [("bfloat16", (4097, 4097, 4097)), ("bfloat16", (3000, 5000, 700)),
          ("bfloat16", (2047, 8191, 1023)), ("bfloat16", (1000, 1000, 1000)),
          ("float8_e4m3fn", (4096, 4096, 4096)), ("float8_e4m3fn", (8192, 8192, 8192))]
if len(sys.argv) > 1:
  CASES = CASES[:int(sys.argv[1])]
for dtype, (m, n, k) in CASES:
  ka, kb = jax.random.split(jax.random.key(m + n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32).astype(dtype)
  b = jax.random.normal(kb, (k, n), jnp.float32).astype(dtype)
  ref = jnp.matmul(a.astype(jnp.float32), b.astype(jnp.float32),
                   precision="highest")
  c = mosaic.select_config(m, n, k, jnp.dtype(dtype), None,
                           out_dtype=jnp.dtype(dtype), auto=True)
  fns, errs = {}, {}
  for on in (False, True):
    mosaic._RELEASE_LATE = on; jax.clear_caches()
    f = jax.jit(lambda a, b, c=c: pt.matmul(a, b, config=c, backend="mosaic")).lower(a, b).compile()
    out = f(a, b).astype(jnp.float32)
    errs[on] = float(jnp.linalg.norm(out - ref) / jnp.linalg.norm(ref))
    fns[on] = f
  res = {False: [], True: [], "jnp": []}
  for rep in range(3):
    res["jnp"].append(timing.measure(jnp.matmul, a, b).median_us)
    for on in (False, True):
      _, totals, _ = timing._cupti_times(fns[on], (a, b), 20)
      res[on].append(statistics.median(totals) * 1e3)
  x = statistics.median(res["jnp"])
  off, on_ = statistics.median(res[False]), statistics.median(res[True])
  print(f"{dtype:13s} {m}x{n}x{k} {c.label}: jnp {x:.1f}  off {off:.1f} ({x/off:.3f}x)  on {on_:.1f} ({x/on_:.3f}x)  off/on {off/on_:.4f}  err off {errs[False]:.2e} on {errs[True]:.2e}  raw off={['%.1f'%t for t in res[False]]} on={['%.1f'%t for t in res[True]]} jnp={['%.1f'%t for t in res['jnp']]}", flush=True)
mosaic._RELEASE_LATE = True
