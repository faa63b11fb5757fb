"""Writes probe/tiny_k_<gpu>_<dtype>.json for time_pairs.py: large outputs
over a tiny K whose rows are no 16-byte multiple (the H100's 16-bit minimum,
wild-check 14052x7183x26, is one: 64x128 Triton tiles store its 202 MB at
1.56 TB/s where jnp.matmul stores at 1.96), fresh shapes only (never
wild-check), the pick against wider and thinner Triton tiles of the same
K-phase. From the repo root:
  PYTHONPATH=.:benchmarks python probe/tiny_k_store_pairs.py h100 bfloat16"""
import dataclasses
import json
import sys

import moved_picks
from pallas_tiled import cost_model
from pallas_tiled.triton.config import TileConfig

KINDS = {"h100": "NVIDIA H100 80GB HBM3", "h200": "NVIDIA H200"}
# wild.fresh draws, K <= 32, M * N >= 2^24 (one aligned control, 9192x6328).
SHAPES = [(10688, 7484, 15), (8126, 3170, 3), (2457, 12098, 8),
          (16152, 1074, 3), (2637, 7382, 7), (14778, 1540, 20),
          (9192, 6328, 28)]
kind, dtype = KINDS[sys.argv[1]], sys.argv[2]
pairs = []
for m, n, k in SHAPES:
  pick = cost_model.choose_on(kind, 132, m, n, k, dtype)
  if not isinstance(pick, TileConfig):
    print(m, n, k, "pick not Triton:", pick and pick.label)
    continue
  for block_m, block_n, warps in ((128, 128, 4), (64, 256, 8), (32, 128, 4)):
    new = dataclasses.replace(pick, block_m=block_m, block_n=block_n,
                              num_warps=warps)
    if new == pick:
      continue
    pairs.append({"shape": [m, n, k], "set": "fresh",
                  "old": moved_picks.as_json(pick),
                  "new": moved_picks.as_json(new)})
    print(f"{m}x{n}x{k}", pick.label, "->", new.label)
path = f"probe/tiny_k_{sys.argv[1]}_{dtype}.json"
with open(path, "w") as f:
  json.dump({"dtype": dtype, "device_kind": kind, "pairs": pairs}, f, indent=1)
print(len(pairs), "pairs ->", path)
