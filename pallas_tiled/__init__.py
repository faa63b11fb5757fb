"""pallas_tiled: tiled matrix multiplication as a JAX Pallas kernel."""

from pallas_tiled.api import matmul
from pallas_tiled.collective import all_gather_matmul
from pallas_tiled.collective import matmul_reduce_scatter
from pallas_tiled.mosaic.config import MosaicConfig
from pallas_tiled.mosaic.heuristics import default_mosaic_config
from pallas_tiled.naive import default_naive_config
from pallas_tiled.naive import naive_matmul
from pallas_tiled.triton.config import TileConfig
from pallas_tiled.triton.heuristics import default_tiled_config
from pallas_tiled.tuning.autotune import autotune
from pallas_tiled.tuning.autotune import candidate_configs
from pallas_tiled.tuning.cache import CacheAccessWarning
from pallas_tiled.tuning.cache import CorruptCacheWarning
from pallas_tiled.xla import xla_matmul

# Every implementation shares one signature (matmul also takes backend=):
#   fn(a, b, config=None, *, precision=None, preferred_element_type=None,
#      interpret=None)
IMPLEMENTATIONS = {
    "tiled": matmul,
    "naive": naive_matmul,
    "xla": xla_matmul,
}

__all__ = [
    "IMPLEMENTATIONS",
    "CacheAccessWarning",
    "CorruptCacheWarning",
    "MosaicConfig",
    "TileConfig",
    "all_gather_matmul",
    "autotune",
    "candidate_configs",
    "default_mosaic_config",
    "default_naive_config",
    "default_tiled_config",
    "matmul",
    "matmul_reduce_scatter",
    "naive_matmul",
    "xla_matmul",
]
