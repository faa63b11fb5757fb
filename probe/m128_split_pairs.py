"""Writes probe/m128_<kind>_<dtype>.json for time_pairs.py: on 16-bit
products of 128 rows and K >= 6144 (wild-tune and fresh shapes, never
wild-check), the pick against (a) 64x256 CTAs (fewer than 100 of 128x256) in clusters of two along M
(cuBLAS's nvjet 1x2 kernels) and (b) the plain 128x256 CTA, each over the
most K ranges that keep its CTAs within one round of the SMs: (b) tells
whether a gain of (a) comes from the cluster or from fewer K ranges (less
partial-sum traffic on an HBM-bound product). From the repo root:
  PYTHONPATH=.:benchmarks python probe/m128_split_pairs.py h100 bfloat16"""
import json
import sys

import moved_picks
import wild
from pallas_tiled import cost_model
from pallas_tiled.mosaic.config import MosaicConfig
from pallas_tiled.mosaic.config import check_mosaic_config
from pallas_tiled.mosaic.config import fit_mosaic_config
from pallas_tiled.mosaic.config import k_range_variants

KINDS = {"h100": "NVIDIA H100 80GB HBM3", "h200": "NVIDIA H200"}
SMS = 132
kind, dtype = KINDS[sys.argv[1]], sys.argv[2]
shapes = {"wild-tune": [tuple(map(int, s.split("x")))
                        for s in wild.suite("wild-tune")]}
shapes["fresh"] = sorted({s for seed in range(1, 10) for s in wild.fresh(seed)})


def one_round(config, m, n, k):
  """`config` over the most K ranges whose CTAs fit one round."""
  cta_m, cta_n = config.cta_tile
  ctas = -(-m // cta_m) * -(-n // cta_n)
  want = max(1, SMS // ctas)
  options = [config, *k_range_variants(config, m, n, k, dtype, dtype)]
  return max((c for c in options if c.split_k <= want),
             key=lambda c: c.split_k)


pairs = []
for name, group in shapes.items():
  for m, n, k in group:
    if m != 128 or k < 6144 or m * n * k < 2**30 or -(-n // 256) > 100:
      continue
    pick = cost_model.choose_on(kind, SMS, m, n, k, dtype)
    if not isinstance(pick, MosaicConfig):
      continue
    base = dict(tile_k=64, max_concurrent_steps=4, num_sms=SMS,
                lowering=pick.lowering, epi_tile_n=64)
    cluster = fit_mosaic_config(MosaicConfig(
        tile_m=64, tile_n=128, wg_dimension="n", cluster_dimension="m",
        grid_tile_width=8, **base), dtype, dtype)
    plain = fit_mosaic_config(MosaicConfig(
        tile_m=64, tile_n=256, wg_dimension="m", **base), dtype, dtype)
    for new in (one_round(cluster, m, n, k), one_round(plain, m, n, k)):
      check_mosaic_config(new, dtype, dtype)
      if new.label == pick.label:
        continue
      pairs.append({"shape": [m, n, k], "set": name,
                    "old": moved_picks.as_json(pick),
                    "new": moved_picks.as_json(new)})
      print(f"{m}x{n}x{k}", pick.label, "->", new.label)
path = f"probe/m128_{sys.argv[1]}_{dtype}.json"
with open(path, "w") as f:
  json.dump({"dtype": dtype, "device_kind": kind, "pairs": pairs}, f, indent=1)
print(len(pairs), "pairs ->", path)
