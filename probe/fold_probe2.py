"""Probe: folded b rows for unaligned-N decode (not kept)."""
import sys, json
import numpy as np, jax, jax.numpy as jnp
import pallas_tiled as pt
from pallas_tiled import timing, cost_model
from pallas_tiled.triton.config import TileConfig

SHAPES = [(1, 4097, 4096), (1, 8191, 2048), (2, 12289, 4096), (1, 16385, 1024),
          (4, 20001, 2048), (1, 11009, 4096)]
DTYPES = sys.argv[1].split(",") if len(sys.argv) > 1 else ["bfloat16"]
rng = np.random.default_rng(0)
rows = []
for dname in DTYPES:
  dt = jnp.dtype(dname)
  bk = 128 // dt.itemsize
  for m, n, k in SHAPES:
    a = jnp.asarray(rng.standard_normal((m, k)), dt)
    b = jnp.asarray(rng.standard_normal((k, n)), dt)
    sets = timing.cold_operand_sets(m, n, (a, b), 200e6)
    from pallas_tiled.triton import folding
    g = folding.fold_factor(n, dt)
    bm = min(64, max(16, 1 << (g * m - 1).bit_length()))
    pick = cost_model.choose(m, n, k, dt)
    cands = [("xla", None), ("pick", pick)]
    for bn, bkk, w, s, sk in ((128, 2*bk, 4, 4, 1), (256, 2*bk, 4, 3, 1),
                               (256, bk, 4, 5, 1), (512, bk, 8, 3, 1)):
      cands.append(("fold", TileConfig(bm, bn, bkk, w, s, split_k=sk, fold_b=True)))
    ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
    base = None
    for kind, cfg in cands:
      try:
        if kind == "xla":
          f = lambda x, y: jnp.matmul(x, y)
        else:
          f = lambda x, y, cfg=cfg: pt.matmul(x, y, cfg)
        t = timing.measure_cold(f, sets, iterations=30)
        out = np.asarray(t.result, np.float64)
        err = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
        us = t.median_us
        if kind == "xla": base = us
        gbs = (k * n + m * k) * dt.itemsize / us / 1e3
        row = dict(dtype=dname, shape=f"{m}x{n}x{k}", kind=kind, label=getattr(cfg, "label", "-"),
                   us=round(us, 2), gbs=round(gbs), vs_xla=round(base / us, 3), err=err,
                   kernels=[(kn, round(v, 2)) for kn, v in t.kernels])
      except Exception as e:
        row = dict(dtype=dname, shape=f"{m}x{n}x{k}", kind=kind, label=getattr(cfg, "label", "-"), error=str(e)[:300])
      rows.append(row)
      print(json.dumps(row), flush=True)
