"""Pairs: the H100 pick against 64x256 CTAs in clusters of two along M over
the most K ranges that keep the CTAs within one wave (132 SMs)."""
import json
import sys
import moved_picks
from pallas_tiled import cost_model
from pallas_tiled.mosaic.config import MosaicConfig, check_mosaic_config, fit_mosaic_config, k_range_variants

SHAPES = {"wild-tune": ["128x768x50257", "128x5120x5120", "128x50257x768"],
          "wild-check": ["128x4096x14336", "128x8192x8192"],
          "fresh": ["128x6144x24576"]}
dtype = sys.argv[1]
pairs = []
for name, shapes in SHAPES.items():
  for shape in shapes:
    m, n, k = map(int, shape.split("x"))
    pick = cost_model.choose_on("NVIDIA H100 80GB HBM3", 132, m, n, k, dtype)
    whole = fit_mosaic_config(MosaicConfig(
        tile_m=64, tile_n=128, wg_dimension="n", cluster_dimension="m",
        grid_tile_width=8, max_concurrent_steps=5, lowering=getattr(pick, "lowering", "warpgroup")), dtype, dtype)
    ctas = 2 * -(-m // 128) * -(-n // 256)
    want = max(1, 132 // ctas)
    cands = [whole, *k_range_variants(whole, m, n, k, dtype, dtype)]
    new = max([c for c in cands if c.split_k <= want], key=lambda c: c.split_k)
    check_mosaic_config(new, dtype, dtype)
    pairs.append({"shape": [m, n, k], "set": name, "old": moved_picks.as_json(pick),
                  "new": moved_picks.as_json(new)})
    print(shape, ctas, want, pick.label, "->", new.label)
json.dump({"dtype": dtype, "device_kind": "NVIDIA H100 80GB HBM3", "pairs": pairs},
          open(f"probe/cluster_rule_{dtype}.json", "w"), indent=1)
