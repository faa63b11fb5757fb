# Runs on main (1b4b73f) with epilogue_probe.diff applied to pallas_tiled/mosaic.py.
"""Consumer stagger, second look: the table's entry as is (twice, compiled
separately: the noise control), with consumer 1 started `ns` late, and with
only the first 64x64 epilogue piece stored (one: bounds what hiding the
epilogue can give). 5 rounds, the order rotated each round, CUPTI medians."""
import statistics, sys
import jax, jax.numpy as jnp
import pallas_tiled as pt
from pallas_tiled import mosaic, timing
CASES = [("bfloat16", (8192, 8192, 8192)), ("float16", (8192, 8192, 8192)),
         ("bfloat16", (4096, 4096, 14336)), ("bfloat16", (2048, 2048, 2048)),
         ("bfloat16", (4096, 14336, 4096))]
if len(sys.argv) > 1:
  CASES = CASES[:int(sys.argv[1])]
VARIANTS = [("full", 0, "a"), ("full", 0, "b"), ("full", 100, ""),
            ("full", 300, ""), ("full", 600, ""), ("one", 0, "")]
for dtype, (m, n, k) in CASES:
  ka, kb = jax.random.split(jax.random.key(m + n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32).astype(dtype)
  b = jax.random.normal(kb, (k, n), jnp.float32).astype(dtype)
  ref = jnp.matmul(a.astype(jnp.float32), b.astype(jnp.float32),
                   precision="highest")
  c = mosaic.select_config(m, n, k, jnp.dtype(dtype), None,
                           out_dtype=jnp.dtype(dtype), auto=True)
  fns, errs = {"jnp": jax.jit(jnp.matmul)}, {}
  for v in VARIANTS:
    mosaic._EPI_MODE, mosaic._STAGGER_NS = v[:2]; jax.clear_caches()
    f = jax.jit(lambda a, b, c=c: pt.matmul(a, b, config=c, backend="mosaic")).lower(a, b).compile()
    out = f(a, b).astype(jnp.float32)
    errs[v] = float(jnp.linalg.norm(out - ref) / jnp.linalg.norm(ref))
    fns[v] = f
  names = ["jnp"] + VARIANTS
  res = {v: [] for v in names}
  for rep in range(5):
    order = names[rep % len(names):] + names[:rep % len(names)]
    for v in order:
      _, totals, _ = timing._cupti_times(fns[v], (a, b), 20)
      res[v].append(statistics.median(totals) * 1e3)
  med = {v: statistics.median(r) for v, r in res.items()}
  base = med[VARIANTS[0]]
  print(f"{dtype:9s} {m}x{n}x{k} {c.label}: jnp {med['jnp']:.1f} ({med['jnp']/base:.3f}x of full/a)", flush=True)
  for v in VARIANTS:
    print(f"   {v[0]:4s} stagger {v[1]:4d}ns {v[2]:1s}: {med[v]:8.1f} us  speedup vs full/a {base/med[v]:.4f}  vs jnp {med['jnp']/med[v]:.4f}  err {errs[v]:.1e}  raw {['%.1f' % t for t in res[v]]}", flush=True)
  print(f"   jnp raw {['%.1f' % t for t in res['jnp']]}", flush=True)
