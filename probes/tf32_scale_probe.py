"""Probe (twelfth session, NumPy only): can a scale fix TF32 truncation?
sim.py: per-thread sampled scale vs rounding; sim2.py: whole-matrix scale on heavy tails."""
# --- sim.py ---
import numpy as np
rng = np.random.default_rng(0)
def trunc(x):
  return (x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)
def rnd(x):  # round to nearest, ties away (cvt.rna)
  b = x.astype(np.float32).view(np.uint32)
  return ((b + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32)
def err(c, ref): return np.linalg.norm(c - ref) / np.linalg.norm(ref)
M = N = 256
for name, gen in [("normal", lambda s: rng.standard_normal(s)),
                  ("unif01", lambda s: rng.random(s)),
                  ("relu", lambda s: np.maximum(rng.standard_normal(s), 0)),
                  ("relu@normal", None),
                  ("lognorm", lambda s: rng.lognormal(0, 2, s) * rng.choice([-1, 1], s))]:
  for K in [128, 4096]:
    if gen is None:
      a = np.maximum(rng.standard_normal((M, K)), 0).astype(np.float32); b = rng.standard_normal((K, N)).astype(np.float32)
    else:
      a = gen((M, K)).astype(np.float32); b = gen((K, N)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    jnp_like = rnd(a).astype(np.float64) @ rnd(b).astype(np.float64)
    ours = trunc(a).astype(np.float64) @ trunc(b).astype(np.float64)
    # register operand = b^T rows (rounded), smem operand = a (truncated)
    half = trunc(a).astype(np.float64) @ rnd(b).astype(np.float64)
    steps = max(1, K // 32)
    res = []
    for per_step in [1, 4, 16]:
      n = steps * per_step
      # per output row-group (64-row consumer x 128 threads): each thread
      # samples n elements of the smem operand's tiles (any elements of A's
      # consumer tile: rows of its 64, all K)
      out = half.copy()
      for r0 in range(0, M, 64):
        tile = a[r0:r0 + 64].ravel()
        for t in range(128):   # thread t owns rows (r0 + t//4 %8 ...) ~ emulate: 2 rows x N/8 cols... assign rows
          idx = rng.integers(0, tile.size, n)
          x = np.abs(tile[idx]).astype(np.float64); tx = np.abs(trunc(tile[idx])).astype(np.float64)
          s = x.sum() / tx.sum() if tx.sum() > 0 else 1.0
          w = t // 4; rows = [r0 + (w // 8) * 16 + (w % 8), r0 + (w // 8) * 16 + (w % 8) + 8]
          cols = slice((t % 4) * (N // 4), (t % 4 + 1) * (N // 4))
          for rr in rows: out[rr, cols] = half[rr, cols] * s
      res.append(err(out, ref))
    glob = half * (np.abs(a).sum() / np.abs(trunc(a)).sum())
    print(f"{name:8} K={K:5} jnp {err(jnp_like, ref):.2e} trunc {err(ours, ref)/err(jnp_like, ref):.2f}x "
          f"rna-b {err(half, ref)/err(jnp_like, ref):.2f}x +global s(a) {err(glob, ref)/err(jnp_like, ref):.2f}x "
          "per-thread s(a) n/step=1,4,16: " + " ".join(f"{e/err(jnp_like, ref):.2f}x" for e in res))
# --- sim2.py ---
import numpy as np
def trunc(x): return (x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)
def rnd(x): return ((x.astype(np.float32).view(np.uint32) + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32)
def err(c, ref): return np.linalg.norm(c - ref) / np.linalg.norm(ref)
s = lambda x: np.abs(x).astype(np.float64).sum() / np.abs(trunc(x)).astype(np.float64).sum()
for seed in range(4):
  rng = np.random.default_rng(seed)
  for sigma in [1, 2]:
    for K in [256, 4096]:
      gen = lambda sh: (rng.lognormal(0, sigma, sh) * rng.choice([-1, 1], sh)).astype(np.float32)
      a, b = gen((512, K)), gen((K, 512))
      ref = a.astype(np.float64) @ b.astype(np.float64)
      r = err(rnd(a).astype(np.float64) @ rnd(b).astype(np.float64), ref)
      t = trunc(a).astype(np.float64) @ trunc(b).astype(np.float64)
      print(f"seed {seed} sigma {sigma} K {K}: rounded {r:.2e} trunc {err(t, ref)/r:.2f}x scaled {err(t*s(a)*s(b), ref)/r:.2f}x")
