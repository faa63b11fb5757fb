"""Writes probe/pp64_<gpu>_float32.json for time_pairs.py: float32 picks of
64x128 cooperative consumers (a 128x128 CTA, often over K ranges) against
ping-pong 64x128 tiles, one per consumer over the whole K, as cuBLAS runs
197x3072x768 (`..._tilesize64x128x32_warpgroupsize1x1x1_...`, 9.9 us on
the H100, where ours is a 1.5 us relayout, an 8.7 us kernel over two K
ranges and a 2.5 us sum). Tune and fresh shapes only, never wild-check.
From the repo root:
  PYTHONPATH=.:benchmarks python probe/pp64_pairs.py h100"""
import dataclasses
import json
import sys

import checkout
import moved_picks
from pallas_tiled.mosaic.config import MosaicConfig
from pallas_tiled.mosaic.config import check_mosaic_config

KINDS = {"h100": "NVIDIA H100 80GB HBM3", "h200": "NVIDIA H200"}
kind, dtype = KINDS[sys.argv[1]], "float32"
shapes = moved_picks.shape_sets(["wild-tune", "fresh:1", "fresh:2",
                                 "fresh:3"])
pairs = []
for (m, n, k), name in sorted(shapes.items(), key=lambda s: s[0][0] * s[0][1] * s[0][2]):
  # Outputs of under one round of 128x128 CTAs (the ones that take K
  # ranges or leave SMs idle), of up to 2^32 multiply-adds.
  if not 2**24 <= m * n * k <= 2**32 or -(-m // 128) * -(-n // 128) >= 132:
    continue
  pick = checkout.expected_pick(m, n, k, dtype, kind, 132)
  if not (isinstance(pick, MosaicConfig) and pick.cta_tile == (128, 128)
          and pick.tile_m == 64 and not pick.ping_pong):
    continue
  new = dataclasses.replace(pick, ping_pong=True, split_k=1,
                            max_concurrent_steps=4, tile_k=32,
                            epi_tile_n=64)
  check_mosaic_config(new, dtype, dtype)
  pairs.append({"shape": [m, n, k], "set": name,
                "old": moved_picks.as_json(pick),
                "new": moved_picks.as_json(new)})
  print(f"{m}x{n}x{k}", name, pick.label, "->", new.label)
pairs = pairs[::-(-len(pairs) // 32)]  # At most 32, spread over sizes.
path = f"probe/pp64_{sys.argv[1]}_{dtype}.json"
with open(path, "w") as f:
  json.dump({"dtype": dtype, "device_kind": kind, "pairs": pairs}, f, indent=1)
print(len(pairs), "pairs ->", path)
