"""Probe: folded b rows through 16-row windows (8-16 output rows), against
the unfolded pick and jnp.matmul (not kept)."""
import json
import numpy as np, jax, jax.numpy as jnp
import pallas_tiled as pt
from pallas_tiled import timing, cost_model, device
from pallas_tiled.triton.config import TileConfig
SHAPES = [(8, 32001, 4096), (16, 51865, 1280), (8, 50257, 768), (16, 30522, 768),
          (12, 40001, 2048)]
rng = np.random.default_rng(0)
dt = jnp.bfloat16
coefs = cost_model.coefficients(device.device_kind(), dt)
for m, n, k in SHAPES:
  a = jnp.asarray(rng.standard_normal((m, k)), dt)
  b = jnp.asarray(rng.standard_normal((k, n)), dt)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  sets = timing.cold_operand_sets(m, n, (a, b), 200e6)
  cands = cost_model.model_candidates(m, n, k, dt)
  unfolded = min((c for c in cands if not c.fold_b),
                 key=lambda c: cost_model.predict_us(c, m, n, k, dt, coefs, 132) or 1e9)
  picked = cost_model.choose(m, n, k, dt)
  runs = [("xla", None), ("unfolded", unfolded), ("pick", picked)] + [
      ("fold", c) for c in cands if c.fold_b and c != picked]
  base = None
  for kind, cfg in runs:
    try:
      f = (lambda x, y: jnp.matmul(x, y)) if cfg is None else (lambda x, y, cfg=cfg: pt.matmul(x, y, cfg))
      t = timing.measure_cold(f, sets, iterations=30)
      err = float(np.linalg.norm(np.asarray(t.result, np.float64) - ref) / np.linalg.norm(ref))
      base = base or t.median_us
      print(json.dumps(dict(shape=f"{m}x{n}x{k}", kind=kind, label=getattr(cfg, "label", "-"),
                            us=round(t.median_us, 2), vs_xla=round(base / t.median_us, 3),
                            err=f"{err:.1e}")), flush=True)
    except Exception as e:
      print(json.dumps(dict(shape=f"{m}x{n}x{k}", kind=kind, label=getattr(cfg, "label", "-"), error=str(e)[:200])), flush=True)
