# Runs on main (1b4b73f) with epilogue_probe.diff applied to pallas_tiled/mosaic.py.
"""Why the TMA stores cost 1-4%: the table's entry (T) as is; without the
stores (nostore); with each piece written to unswizzled shared memory,
read back 16 bytes per thread and stored with st.global (lsustore: no TMA,
coalesced); with one slot of 64x128 pieces (half the TMA stores, same
shared memory); and with clusters of two (multicast halves one operand's
TMA loads per SM). Timing only where the output is wrong.
5 rounds, order rotated, CUPTI medians."""
import dataclasses, statistics, sys
import jax, jax.numpy as jnp
import pallas_tiled as pt
from pallas_tiled import mosaic, timing
CASES = [("bfloat16", (4096, 14336, 4096)), ("float16", (4096, 4096, 4096)),
         ("bfloat16", (8192, 8192, 8192))]
if len(sys.argv) > 1:
  CASES = CASES[:int(sys.argv[1])]
R = dataclasses.replace
VARIANTS = {
    "T": ("full", 2, lambda c: c),
    "T nostore": ("nostore", 2, lambda c: c),
    "lsustore lane": ("lsustore", 1, lambda c: R(c, lowering="lane")),
    "lsustore wg": ("lsustore", 1, lambda c: c),
    "epi64x128 1slot": ("full", 1, lambda c: R(c, epi_tile_n=128)),
    "T cluster m": ("full", 2, lambda c: R(c, cluster_dimension="m")),
    "T cluster n": ("full", 2, lambda c: R(c, cluster_dimension="n")),
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
    c = tf(c0)
    labels[name] = c.label + "/" + c.lowering
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
