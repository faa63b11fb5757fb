# Runs on main (1b4b73f) with epilogue_probe.diff applied to pallas_tiled/mosaic.py.
"""Where the epilogue's time goes. The table's entry (T, 64x256x128/s2 for
these shapes) as is; without the waits for a slot's previous store (nowait:
racy, timing only); without the TMA stores (nostore: timing only); and with
more epilogue slots: 4 slots of 64x32 pieces (same shared memory), and
128-byte K-tiles in two stages with 2 or 4 slots of 64x64 pieces.
5 rounds, order rotated, CUPTI medians."""
import dataclasses, statistics, sys
import jax, jax.numpy as jnp
import pallas_tiled as pt
from pallas_tiled import mosaic, timing
CASES = [("bfloat16", (4096, 14336, 4096)), ("bfloat16", (8192, 8192, 8192)),
         ("float16", (4096, 4096, 4096)), ("bfloat16", (2048, 2048, 2048))]
if len(sys.argv) > 1:
  CASES = CASES[:int(sys.argv[1])]
R = dataclasses.replace
VARIANTS = {
    "T": ("full", 2, lambda c: c),
    "T nowait": ("nowait", 2, lambda c: c),
    "T nostore": ("nostore", 2, lambda c: c),
    "T epi64x32 4slots": ("full", 4, lambda c: R(c, epi_tile_n=32)),
    "k64s2 2slots": ("full", 2, lambda c: R(c, tile_k=64)),
    "k64s2 4slots": ("full", 4, lambda c: R(c, tile_k=64)),
}
for dtype, (m, n, k) in CASES:
  ka, kb = jax.random.split(jax.random.key(m + n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32).astype(dtype)
  b = jax.random.normal(kb, (k, n), jnp.float32).astype(dtype)
  ref = jnp.matmul(a.astype(jnp.float32), b.astype(jnp.float32),
                   precision="highest")
  c0 = mosaic.select_config(m, n, k, jnp.dtype(dtype), None,
                            out_dtype=jnp.dtype(dtype), auto=True)
  fns, errs, labels = {"jnp": jax.jit(jnp.matmul)}, {}, {}
  for name, (mode, slots, tf) in VARIANTS.items():
    mosaic._EPI_MODE, mosaic._EPI_SLOTS = mode, slots; jax.clear_caches()
    c = tf(c0); labels[name] = c.label
    try:
      f = jax.jit(lambda a, b, c=c: pt.matmul(a, b, config=c, backend="mosaic")).lower(a, b).compile()
      out = f(a, b).astype(jnp.float32)
      errs[name] = float(jnp.linalg.norm(out - ref) / jnp.linalg.norm(ref))
      fns[name] = f
    except Exception as e:  # report and go on
      print(f"   {name}: FAILED {type(e).__name__}: {str(e)[:300]}", flush=True)
  names = list(fns)
  res = {v: [] for v in names}
  for rep in range(5):
    order = names[rep % len(names):] + names[:rep % len(names)]
    for v in order:
      _, totals, _ = timing._cupti_times(fns[v], (a, b), 20)
      res[v].append(statistics.median(totals) * 1e3)
  med = {v: statistics.median(r) for v, r in res.items()}
  base = med["T"]
  print(f"{dtype:9s} {m}x{n}x{k}: jnp {med['jnp']:.1f} us", flush=True)
  for v in names[1:]:
    print(f"   {v:18s} {labels[v]:42s} {med[v]:8.1f} us  speedup vs T {base/med[v]:.4f}  vs jnp {med['jnp']/med[v]:.4f}  err {errs[v]:.1e}  raw {['%.1f' % t for t in res[v]]}", flush=True)
  print(f"   jnp raw {['%.1f' % t for t in res['jnp']]}", flush=True)
