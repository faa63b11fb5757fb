"""Which MosaicConfig a shape gets when nobody tuned it: a wave cost model
over a few CTA tiles, and how it arbitrates the shipped tables' entries."""

from __future__ import annotations

import functools


from pallas_tiled import cost_model
from pallas_tiled import device
from pallas_tiled import layouts
from pallas_tiled.mosaic import tf32x3
from pallas_tiled.mosaic.config import MosaicConfig
from pallas_tiled.mosaic.config import PROMOTED_MAX_TILE
from pallas_tiled.mosaic.config import fit_mosaic_config
from pallas_tiled.mosaic.config import output_lowering
from pallas_tiled.tuning import cache as tuning_cache

# How much faster (predicted) the heuristic's CTA tile must be before it
# replaces a tuned entry's on a shape the entry was not tuned on: the cost
# model ranks tiles, but is not exact (bfloat16 5120^3: 1.2% apart,
# measured equal).
_REFIT_MARGIN = 1.05
# Relative throughput of one CTA tile by its area (elements), measured on an
# H200 as whole-kernel speed with the SMs equally busy (bfloat16 6144^3 and
# 3072x8192x3072: 128x128 CTA tiles at 0.92-0.96x of 128x256; 1024^3 and
# 6144^3: 128x64 at ~0.8x).
_CTA_TILE_EFFICIENCY = ((128 * 256, 1.0), (128 * 128, 0.94), (128 * 64, 0.8))


def mosaic_wave_cost(config: MosaicConfig, m: int, n: int) -> float:
  """Predicted relative time of `config` on an (m, n) output: the waves of
  CTA tiles its persistent grid runs (a partly full last wave costs a whole
  one), times each tile's work over its throughput (_CTA_TILE_EFFICIENCY).

  On an H200 this picked the faster CTA tile on each of 11 shapes measured
  (e.g. bfloat16 3072^3: 128x256 tiles make 288, 2.2 waves, 0.76x
  jnp.matmul; 128x128 make 576, 4.4 waves, 0.90x).
  """
  cta_m, cta_n = config.cta_tile
  area = cta_m * cta_n
  efficiency = next((e for a, e in _CTA_TILE_EFFICIENCY if area >= a), 0.6)
  return config.waves(m, n) * area / efficiency


def default_mosaic_config(m: int, n: int, k: int, dtype, out_dtype=None, *,
                          promoted: bool = False) -> MosaicConfig:
  """A heuristic for the Mosaic GPU kernel, from measurements on an H200.

  * 128-byte K-tiles (the widest swizzle; narrower where K is shorter:
    `layouts.k_tile_elements`, the cost model's), 4 stages (3 ran as fast,
    but 4 divides more K-step counts, which lets one pipeline run across a
    CTA's tiles), epilogue pieces of 64 x 128 bytes.
  * The CTA tile with the lowest `mosaic_wave_cost` for this output, of:
    128x256 split by rows into two 64x256 consumers (wgmma's widest N;
    0.3-1% faster than two 128x128 ones); 128x128 as two 64x128 consumers;
    128x64 as two 64x64 consumers with 256-byte K-tiles (fewer, longer
    K-steps: float32 1024^3 1.12x jnp.matmul, bfloat16 1.15x, against
    0.78x and 0.81x with two 128x64 consumers and 0.46x with two 64x256).
  * `promoted` (float32 at HIGHEST, three-pass TF32): 128x128 CTA tiles of
    two 64x128 consumers, whose K-step products and float32 sums both fit
    in registers (64x256 consumers spill: 2.3x slower at 4096^3). As
    fast as two 128x64 consumers to 2048^3, 11-19% faster from 4096^3.
  * Ragged outputs: the lowering `output_lowering` gives.
  See BUILD_NOTES.md for the numbers; the H200 table overrides this.
  """
  epi_n = layouts.swizzle_elements(out_dtype or dtype)
  tile_k = layouts.k_tile_elements(k, dtype)
  common = dict(
      tile_k=tile_k, wg_dimension="m",
      max_concurrent_steps=4, epi_tile_n=epi_n, num_sms=device.sm_count(),
      lowering=output_lowering(m, n, out_dtype or dtype))
  if promoted:
    return MosaicConfig(tile_m=64, tile_n=PROMOTED_MAX_TILE // 64, **common)
  candidates = (
      MosaicConfig(tile_m=64, tile_n=256, **common),
      MosaicConfig(tile_m=64, tile_n=128, **common),
      # float8 outputs' 128-byte epilogue pieces are 128 wide: narrow them.
      MosaicConfig(tile_m=64, tile_n=64,
                   **dict(common, tile_k=layouts.long_k_tile_elements(k, dtype),
                          epi_tile_n=min(epi_n, 64))))
  # The first of the cheapest: ties go to the larger tile.
  return min(candidates, key=lambda c: mosaic_wave_cost(c, m, n))



def select_config(m, n, k, dtype, precision, *, out_dtype, auto=False):
  """The config `matmul(..., backend="mosaic")` runs when given none: see
  `tuning.cache.select_config`.

  Where the cost model has coefficients for this device and dtype
  (`pallas_tiled/cost_model.py`), its pick, and tuned entries only on the
  shape they were tuned on. Elsewhere (float32, uncalibrated devices):

  A tuned entry holds the best config for the shape it was tuned on; on
  another shape of its bucket, its CTA tile can fill the SMs' waves badly
  (bfloat16 3072^3 with 4096^3's 128x256 tiles: 2.2 waves, 0.76x
  jnp.matmul). Such an entry gives way to the heuristic where
  `mosaic_wave_cost` predicts the heuristic's tile faster by more than
  `_REFIT_MARGIN` (3072^3: 0.90x). Whichever config is chosen is fitted to
  the output dtype's shared memory (`fit_mosaic_config`): entries are tuned
  with outputs of the input dtype.
  """
  promoted = tf32x3.applies(dtype, precision)
  modeled = None if promoted else cost_model.choose(
      m, n, k, dtype, precision, out_dtype=out_dtype, backends=("mosaic",))
  if modeled is not None:  # Tuned entries: only for their own shape.
    default = lambda: modeled
    fits = lambda _, tuned_shape: tuned_shape == (m, n, k)
  else:
    default = functools.partial(default_mosaic_config, m, n, k, dtype,
                                out_dtype, promoted=promoted)

    def fits(config, tuned_shape):
      if promoted or tuned_shape is None or tuned_shape[:2] == (m, n):
        return True
      cost = lambda c: mosaic_wave_cost(c, m, n)
      return cost(config) <= _REFIT_MARGIN * cost(default())

  config = tuning_cache.select_config(
      "mosaic", m, n, k, dtype, precision, auto=auto, default=default,
      fits=fits)
  return fit_mosaic_config(config, dtype, out_dtype)
