"""Writes probe/tiny_k2_<gpu>_<dtype>.json: large outputs over a K of 17-32
(one 32-deep K-phase today), the pick against 64x256/w8 tiles over one
32-deep phase and over two 16-deep ones (the 64x256x16/w8 tile ran 1.26-1.34x
the pick where K <= 16, bfloat16, H100; ~1.00x at K = 28). Made-up shapes,
none of wild-check."""
import dataclasses
import json
import sys

import moved_picks
from pallas_tiled import cost_model
from pallas_tiled.triton.config import TileConfig

KINDS = {"h100": "NVIDIA H100 80GB HBM3", "h200": "NVIDIA H200"}
SHAPES = [(9192, 6328, 28), (11000, 7001, 24), (6001, 9000, 30),
          (12000, 5003, 18)]
kind, dtype = KINDS[sys.argv[1]], sys.argv[2]
pairs = []
for m, n, k in SHAPES:
  pick = cost_model.choose_on(kind, 132, m, n, k, dtype)
  assert isinstance(pick, TileConfig), pick
  for block_k, stages in ((32, 2), (16, 2), (16, 3)):
    new = dataclasses.replace(pick, block_m=64, block_n=256, block_k=block_k,
                              num_warps=8, num_stages=stages)
    pairs.append({"shape": [m, n, k], "set": "fresh",
                  "old": moved_picks.as_json(pick),
                  "new": moved_picks.as_json(new)})
    print(f"{m}x{n}x{k}", pick.label, "->", new.label)
with open(f"probe/tiny_k2_{sys.argv[1]}_{dtype}.json", "w") as f:
  json.dump({"dtype": dtype, "device_kind": kind, "pairs": pairs}, f, indent=1)
