"""Writes probe/ksum_<gpu>_<dtype>.json for time_pairs.py: every wild-tune
and fresh shape whose default pick is a Mosaic split-K config, that pick
(partial sums added by XLA after the kernel) against the same config with
sum_in_kernel=True. Never wild-check. From the repo root:
  PYTHONPATH=.:benchmarks python probe/ksum_pairs.py h100 float32"""
import dataclasses
import json
import sys

import moved_picks
from pallas_tiled import cost_model
from pallas_tiled.mosaic.config import MosaicConfig

KINDS = {"h100": "NVIDIA H100 80GB HBM3", "h200": "NVIDIA H200"}
kind, dtype = KINDS[sys.argv[1]], sys.argv[2]
shapes = moved_picks.shape_sets(["wild-tune", "fresh:1", "fresh:2"])
pairs = []
for (m, n, k), name in sorted(shapes.items(), key=lambda s: s[0][0] * s[0][1] * s[0][2]):
  if m * n * k < 2**24:
    continue
  pick = cost_model.choose_on(kind, 132, m, n, k, dtype)
  if not isinstance(pick, MosaicConfig) or pick.split_k == 1 or pick.cluster_size > 1:
    continue
  new = dataclasses.replace(pick, sum_in_kernel=True)
  pairs.append({"shape": [m, n, k], "set": name,
                "old": moved_picks.as_json(pick),
                "new": moved_picks.as_json(new)})
  print(f"{m}x{n}x{k}", name, pick.label)
path = f"probe/ksum_{sys.argv[1]}_{dtype}.json"
with open(path, "w") as f:
  json.dump({"dtype": dtype, "device_kind": kind, "pairs": pairs}, f, indent=1)
print(len(pairs), "pairs ->", path)
