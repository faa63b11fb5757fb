"""Pad variants: 3000x5000x700 with A's unaligned pad joining B's Pallas launch (PT_JOIN); 1000^3 pad-pair block shapes (PT_PADBLOCK)."""
# Ran before 8e0c233 with the env toggles of joined_pads.diff (shown against the committed relayout.py). Log: joined_pads.log (issue 5 step 35).
import os, statistics
import jax, jax.numpy as jnp, numpy as np
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled as pt

def med(f, *args):
  _, runs = profiler.measure(f, iterations=10, aggregate=False)(*args)
  tot = statistics.median(sum(ms for _, ms in run) for run in runs) * 1e3
  kern = [(n[:14], round(statistics.median(r[i][1] for r in runs) * 1e3, 2)) for i, (n, _) in enumerate(runs[0])]
  return tot, kern

def setenv(env):
  for k in ("PT_JOIN", "PT_PADBLOCK"): os.environ.pop(k, None)
  os.environ.update(env); jax.clear_caches()

plans = {(3000, 5000, 700): [("base", {}), ("join", {"PT_JOIN": "1"})],
         (2047, 8191, 1023): [("base", {}), ("join", {"PT_JOIN": "1"})],
         (1000, 1000, 1000): [("base 8x2048B w4", {})] + [(f"{r}x{b}B w{w}", {"PT_PADBLOCK": f"{r},{b},{w}"}) for r, b, w in
                              [(4, 2048, 4), (16, 2048, 4), (8, 1024, 4), (16, 2048, 8), (32, 2048, 8), (8, 2048, 8), (4, 2048, 2), (2, 2048, 2)]]}
for dt in (jnp.bfloat16, jnp.float16):
  for (m, n, k), vs in plans.items():
    ka, kb = jax.random.split(jax.random.key(3))
    a = jax.random.normal(ka, (m, k), jnp.float32).astype(dt); b = jax.random.normal(kb, (k, n), jnp.float32).astype(dt)
    ref = np.matmul(np.asarray(a, np.float64), np.asarray(b, np.float64))
    fns = {"jnp": jax.jit(jnp.matmul)}
    for name, env in vs:
      setenv(env)
      g = jax.jit(lambda x, y: pt.matmul(x, y, backend="mosaic")).lower(a, b).compile()
      out = np.asarray(g(a, b), np.float64)
      err = np.linalg.norm(out - ref) / np.linalg.norm(ref)
      assert err < 1e-2, (name, err)
      fns[name] = g
    setenv({})
    res = {x: [] for x in fns}
    for _ in range(3):
      for x, f in fns.items(): res[x].append(med(f, a, b))
    j = statistics.median(t for t, _ in res["jnp"])
    print(f"== {jnp.dtype(dt).name} {m}x{n}x{k}: jnp {j:.2f}", flush=True)
    for x, r in res.items():
      t = statistics.median(t for t, _ in r)
      print(f"  {x:18s} {t:7.2f} us {j / t:6.3f}x  {r[0][1]}", flush=True)
