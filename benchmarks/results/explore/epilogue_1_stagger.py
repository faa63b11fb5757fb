# Runs on main (1b4b73f) with epilogue_probe.diff applied to pallas_tiled/mosaic.py.
"""Epilogue ceiling and consumer stagger: the table's entry compiled as is
(full), with its epilogue skipped at run time (none: the upper bound of what
hiding the epilogue can give; output unwritten), and with consumer 1 started
`ns` nanoseconds late (nanosleep), so that the two consumers' epilogues fall
at different times. 3 alternating rounds, CUPTI medians."""
import statistics, sys
import jax, jax.numpy as jnp
import pallas_tiled as pt
from pallas_tiled import mosaic, timing
CASES = [("bfloat16", s) for s in [(2048, 2048, 2048), (4096, 4096, 4096),
         (8192, 8192, 8192), (4096, 14336, 4096)]]
CASES += [("float16", s) for s in [(4096, 4096, 4096), (8192, 8192, 8192),
          (4096, 14336, 4096)]]
VARIANTS = [("full", 0), ("none", 0), ("full", 300), ("full", 1000),
            ("full", 3000)]
for dtype, (m, n, k) in CASES:
  ka, kb = jax.random.split(jax.random.key(m + n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32).astype(dtype)
  b = jax.random.normal(kb, (k, n), jnp.float32).astype(dtype)
  ref = jnp.matmul(a.astype(jnp.float32), b.astype(jnp.float32),
                   precision="highest")
  c = mosaic.select_config(m, n, k, jnp.dtype(dtype), None,
                           out_dtype=jnp.dtype(dtype), auto=True)
  fns, errs = {}, {}
  for v in VARIANTS:
    mosaic._EPI_MODE, mosaic._STAGGER_NS = v; jax.clear_caches()
    f = jax.jit(lambda a, b, c=c: pt.matmul(a, b, config=c, backend="mosaic")).lower(a, b).compile()
    out = f(a, b).astype(jnp.float32)
    errs[v] = float(jnp.linalg.norm(out - ref) / jnp.linalg.norm(ref))
    fns[v] = f
  res = {v: [] for v in VARIANTS + ["jnp"]}
  for rep in range(3):
    res["jnp"].append(timing.measure(jnp.matmul, a, b).median_us)
    for v in VARIANTS:
      _, totals, _ = timing._cupti_times(fns[v], (a, b), 20)
      res[v].append(statistics.median(totals) * 1e3)
  x = statistics.median(res["jnp"])
  base = statistics.median(res[VARIANTS[0]])
  line = f"{dtype:9s} {m}x{n}x{k} {c.label}: jnp {x:.1f} full {base:.1f} ({x/base:.3f}x)"
  for v in VARIANTS[1:]:
    t = statistics.median(res[v])
    line += f" | {v[0]}/{v[1]} {t:.1f} ({base/t:.4f} err {errs[v]:.1e})"
  print(line, flush=True)
  print("   raw", {f"{v}": ['%.1f' % t for t in r] for v, r in res.items()}, flush=True)
