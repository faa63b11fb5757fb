"""Writes probe/cluster_m128_<dtype>.json for time_pairs.py: each M = 128
16-bit product's pick against 64x256 CTA tiles (two 64x128 consumers along
N) in clusters of two along M, sharing b's tile by multicast, whole and over
the K ranges that leave the busiest cluster the least work. From the repo
root: PYTHONPATH=.:benchmarks python probe/cluster_m128_pairs.py bfloat16"""
import json
import sys

import moved_picks
from pallas_tiled import cost_model
from pallas_tiled.mosaic.config import MosaicConfig
from pallas_tiled.mosaic.config import check_mosaic_config
from pallas_tiled.mosaic.config import fit_mosaic_config
from pallas_tiled.mosaic.config import k_range_variants

SHAPES = {"wild-check": ["128x28672x4096", "128x5120x27648", "128x8192x28672",
                         "128x32000x4096"],
          "wild-tune": ["128x27648x5120", "128x28672x8192", "128x32064x3072"],
          "fresh": ["128x12288x4096", "128x6144x24576", "128x10240x8192"]}

for dtype in sys.argv[1:]:
  pairs = []
  for name, shapes in SHAPES.items():
    for shape in shapes:
      m, n, k = map(int, shape.split("x"))
      pick = cost_model.choose_on("NVIDIA H200", 132, m, n, k, dtype)
      whole = fit_mosaic_config(MosaicConfig(
          tile_m=64, tile_n=128, wg_dimension="n", cluster_dimension="m",
          grid_tile_width=8, max_concurrent_steps=5, lowering=pick.lowering),
          dtype, dtype)
      split = min([whole, *k_range_variants(whole, m, n, k, dtype, dtype)],
                  key=lambda c: (c.busiest_sm_work(m, n), c.split_k))
      for new in dict.fromkeys([whole, split]):
        check_mosaic_config(new, dtype, dtype)
        pairs.append({"shape": [m, n, k], "set": name,
                      "old": moved_picks.as_json(pick),
                      "new": moved_picks.as_json(new)})
        print(shape, pick.label, "->", new.label)
  with open(f"probe/cluster_m128_{dtype}.json", "w") as f:
    json.dump({"dtype": dtype, "device_kind": "NVIDIA H200", "pairs": pairs},
              f, indent=1)
