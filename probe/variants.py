"""Probe: which piece of the in-flight register path goes wrong: errors
against float64 for the variant the PT_* variables select."""
import json, os, sys
import numpy as np
import jax, jax.numpy as jnp
import pallas_tiled
from pallas_tiled.mosaic import plan as plan_lib

plan_lib.REGISTER_RING = True
W = dict(wg_dimension="m", epi_tile_n=32, grid_tile_width=4)
configs = [pallas_tiled.MosaicConfig(tile_m=64, tile_n=128, tile_k=64,
                                     max_concurrent_steps=3, **W),
           pallas_tiled.MosaicConfig(tile_m=64, tile_n=256, tile_k=32, **W)]
row = {v: os.environ.get(v) for v in ("PT_PRE", "PT_POST", "PT_WAIT")}
shapes = ((1000, 3000, 700), (2048, 2048, 2048))
if os.environ.get("PT_ONE"):  # One kernel, for its dumps.
  shapes, configs = shapes[1:], configs[int(os.environ["PT_ONE"]):][:1]
for m, n, k in shapes:
  a = jax.random.normal(jax.random.key(1), (m, k), jnp.float32)
  b = jax.random.normal(jax.random.key(2), (k, n), jnp.float32)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  for c in configs:
    out = np.asarray(jax.jit(lambda a, b: pallas_tiled.matmul(a, b, c))(a, b),
                     np.float64)
    row[f"{m}x{n}x{k} {c.label}"] = float(np.linalg.norm(out - ref)
                                          / np.linalg.norm(ref))
print(json.dumps(row), flush=True)
