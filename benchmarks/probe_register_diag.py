"""Probe (to be removed): where register-store outputs go wrong."""
import dataclasses
import numpy as np
import jax, jax.numpy as jnp
import pallas_tiled
from pallas_tiled.mosaic import config as mc
from tests import helpers

rng = np.random.default_rng(1)


def diag(m, n, k, dtype, cfg):
  a, b = helpers.random_operands(rng, m, n, k, dtype)
  out = np.asarray(helpers.call_with_poisoned_output(pallas_tiled.matmul, a, b, config=cfg), np.float64)
  ref = np.matmul(helpers.as_f64(a), helpers.as_f64(b))
  bad = ~(np.abs(out - ref) <= 0.05 * (np.abs(ref) + 1))
  print(f"{m}x{n}x{k} {jnp.dtype(dtype).name} {cfg.label}: bad {bad.sum()} of {bad.size}, nan {np.isnan(out).sum()}")
  if bad.any():
    rows, cols = np.nonzero(bad)
    print("  rows:", np.unique(rows)[:40], "... count", len(np.unique(rows)))
    print("  cols:", np.unique(cols)[:40], "... count", len(np.unique(cols)))
    print("  rows%64 hist:", np.bincount(rows % 64, minlength=64))
    print("  cols%64 hist:", np.bincount(cols % 64, minlength=64))
    r, c = rows[0], cols[0]
    v = out[r, c]
    hits = np.argwhere(np.abs(ref - v) < 1e-3 * (abs(v) + 1))
    print(f"  first bad ({r},{c}) = {v:.4f} ref {ref[r,c]:.4f}; ref positions holding that value: {hits[:5].tolist()}")


cfg = pallas_tiled.MosaicConfig(tile_m=128, tile_n=128, tile_k=32, max_concurrent_steps=3, ping_pong=True, epi_tile_n=32, num_sms=2)
diag(200, 330, 300, jnp.float32, cfg)
cfg = pallas_tiled.MosaicConfig(tile_m=128, tile_n=128, tile_k=64, max_concurrent_steps=3, ping_pong=True, epi_tile_n=64, num_sms=2)
diag(200, 330, 300, jnp.bfloat16, cfg)
diag(257, 3841, 1280, jnp.bfloat16, mc.fit_mosaic_config(pallas_tiled.default_mosaic_config(257, 3841, 1280, jnp.bfloat16), jnp.bfloat16, jnp.bfloat16))
cfg = pallas_tiled.MosaicConfig(tile_m=64, tile_n=128, tile_k=64, wg_dimension="m", num_sms=1)
diag(257, 3841, 1280, jnp.bfloat16, cfg)
cfg = pallas_tiled.MosaicConfig(tile_m=64, tile_n=128, tile_k=64, wg_dimension="m", epi_tile_n=128)
diag(257, 3841, 1280, jnp.bfloat16, cfg)
