"""Writes probe/single_wg_<gpu>_<dtype>.json for time_pairs.py: outputs of
few CTA tiles (one round of 128x128 tiles or less) whose pick is a Mosaic
tile, the pick against one warpgroup doing both loads and wgmmas on a 64x128
or 64x64 CTA tile over the whole K (cuBLAS runs the H100's float32 minimum,
197x3072x768, as a 64x128 tile per warpgroup: twice our CTAs, no K ranges,
no sum). wild-tune and fresh shapes only (never wild-check). From the repo
root:  PYTHONPATH=.:benchmarks python probe/single_wg_pairs.py h100 float32"""
import dataclasses
import json
import sys

from jax.experimental import pallas as pl
import jax.numpy as jnp

import moved_picks
from pallas_tiled import cost_model
from pallas_tiled import layouts
from pallas_tiled.mosaic.config import MosaicConfig, fit_mosaic_config

KINDS = {"h100": "NVIDIA H100 80GB HBM3", "h200": "NVIDIA H200"}
kind, dtype = KINDS[sys.argv[1]], sys.argv[2]
shapes = moved_picks.shape_sets(["wild-tune", "fresh:1", "fresh:2", "fresh:3"])
pairs = []
for (m, n, k), name in sorted(shapes.items(), key=lambda s: (s[1] != 'wild-tune', s[0][0] * s[0][1] * s[0][2])):
  if (m * n * k < 2**24 or cost_model.regime(m, n) != "wide"
      or pl.cdiv(m, 128) * pl.cdiv(n, 128) > 132 or k > 4096):
    continue
  pick = cost_model.choose_on(kind, 132, m, n, k, dtype)
  if not isinstance(pick, MosaicConfig) or pick.transposed:
    continue
  for tile_n in (128, 64):
    if not 48 <= pl.cdiv(m, 64) * pl.cdiv(n, tile_n) <= 132:
      continue
    new = fit_mosaic_config(dataclasses.replace(
        pick, tile_m=64, tile_n=tile_n, warp_specialized=False, split_k=1,
        tile_k=layouts.k_tile_elements(k, jnp.dtype(dtype)),
        ping_pong=False, cluster_dimension="none", grid_tile_width=4,
        max_concurrent_steps=4), jnp.dtype(dtype), jnp.dtype(dtype))
    pairs.append({"shape": [m, n, k], "set": name.split(":")[0],
                  "old": moved_picks.as_json(pick),
                  "new": moved_picks.as_json(new)})
    print(f"{m}x{n}x{k}", name, pick.label, "->", new.label)
    break
pairs = pairs[:int(sys.argv[3])] if len(sys.argv) > 3 else pairs
path = f"probe/single_wg_{sys.argv[1]}_{dtype}.json"
with open(path, "w") as f:
  json.dump({"dtype": dtype, "device_kind": kind, "pairs": pairs}, f, indent=1)
print(len(pairs), "pairs ->", path)
