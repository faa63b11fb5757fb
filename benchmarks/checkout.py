"""The library as this checkout has it, for tools that set its picks beside
timed rows or beside another tree's picks: what `matmul` runs for a shape
today (`expected_pick`), and the check that `pallas_tiled` is imported
from this checkout at all (`require_own_library`). Apart from `report.py`,
which reads and writes results without importing the library.
"""

from __future__ import annotations

import pathlib

import pallas_tiled
from pallas_tiled import api
from pallas_tiled import cost_model
from pallas_tiled.triton import heuristics
from pallas_tiled.tuning import cache as tuning_cache


def expected_pick(m: int, n: int, k: int, dtype: str, device_kind: str,
                  num_sms: int):
  """What `matmul` runs today on a device of `device_kind` (a row's): the
  cost model's pick, or where a rule decides instead (float32
  matrix-vector products: `heuristics.takes_vector_tiles`), the rule's
  vector tile; where the model makes no pick, for a product that goes to
  Triton (`api.below_mosaic_min_dim`) on a device without a
  shipped table, the Triton heuristic's tile
  (`heuristics.default_tiled_config`, over this machine's SM count: 132
  where it has no GPU, as both Hopper GPUs here); None elsewhere (a shipped
  table or the device itself decides)."""
  if heuristics.takes_vector_tiles(m, n, dtype):
    return heuristics.vector_config(m, n, k)
  modeled = cost_model.choose_on(device_kind, num_sms, m, n, k, dtype)
  if (modeled is not None or tuning_cache.shipped_table(device_kind)
      or not api.below_mosaic_min_dim(m, n, k)):
    return modeled
  return heuristics.default_tiled_config(m, n, k, dtype)


def require_own_library() -> None:
  """Raises RuntimeError unless `pallas_tiled` is imported from the
  checkout holding these benchmarks: another one (a virtual environment's
  editable install of another clone, found first from `benchmarks/`)
  would price picks, or be written a fitted table, that are not this
  tree's (BUILD_NOTES, forty-eighth session)."""
  root = pathlib.Path(__file__).resolve().parent.parent
  library = pathlib.Path(pallas_tiled.__file__).resolve().parent
  if library.parent != root:
    raise RuntimeError(
        f"pallas_tiled is imported from {library}, not from this checkout"
        f" ({root}); run from its root with PYTHONPATH=.:benchmarks")
