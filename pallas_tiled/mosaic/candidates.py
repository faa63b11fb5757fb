"""The MosaicConfigs the autotuner times for one problem."""

from __future__ import annotations

import dataclasses

from pallas_tiled import config_checks
from pallas_tiled import layouts
from pallas_tiled.mosaic import heuristics
from pallas_tiled.mosaic import tf32x3
from pallas_tiled.mosaic.config import MosaicConfig
from pallas_tiled.mosaic.config import PROMOTED_MAX_TILE
from pallas_tiled.mosaic.config import check_mosaic_config
from pallas_tiled.mosaic.config import k_range_variants
from pallas_tiled.mosaic.config import ping_pong_variants
from pallas_tiled.mosaic.config import single_warpgroup_variants
from pallas_tiled.mosaic.config import skinny_n_variants
from pallas_tiled.mosaic.config import transposed_variants


def candidate_configs(m, n, k, dtype, precision=None) -> list[MosaicConfig]:
  """The heuristic's choice, then CTA tiles of 128x256 (two 64x256 or two
  128x128 consumers) and of 128x128 (two 128x64 or two 64x128) at two pipeline
  depths (and two 64x128 over six stages, as cuBLAS runs outputs of a few
  hundred rows with a long K), of 128x64 (two 64x64, 256-byte K-tiles), of
  128x192 (fewer waves where a dimension just passes a multiple of 128, e.g.
  4097^3), of 128x256 with 256-byte K-tiles in two stages (half the barrier
  round trips per FLOP: bfloat16 8192^3 1.9% faster on an H200, TF32 1-8%
  slower), and the tile orders and the cluster that came close on an H200
  (BUILD_NOTES.md); where K ranges fill the SMs' rounds better
  (`k_range_variants`), 128x256 and 128x128 tiles over them; for 16-bit inputs,
  the transposed product's tile of 128 columns by the M tile width that fills
  the rounds best (`transposed_variants`); ping-pong consumers
  (`ping_pong_variants`: one stores while the other multiplies; bfloat16
  8192x32128x768 0.93x -> 1.01x jnp.matmul on an H100); for float32 of 33
  to 64 columns, 64x64 consumers (`skinny_n_variants`); for float32 of a
  short K over few tiles, one warpgroup's 64x128 and 64x64 CTA tiles
  (`single_warpgroup_variants`).

  float32 at HIGHEST keeps the consumers of at most 64x128 (its promoted
  sums double the accumulator registers).
  """
  promoted = tf32x3.applies(dtype, precision)
  first = heuristics.default_mosaic_config(m, n, k, dtype, promoted=promoted)
  # The cost model's K-tiles: 128 bytes, narrower where K is shorter (a
  # K-tile wider than K would pad both operands with a copy); 256 bytes
  # where K holds them.
  tile_k = layouts.k_tile_elements(k, dtype)
  long_k = layouts.long_k_tile_elements(k, dtype)
  # Epilogue pieces at most 64 wide, as the narrowest candidate tile is
  # (it narrows only float8's 128-byte pieces).
  base = dict(tile_k=tile_k, epi_tile_n=min(first.epi_tile_n, 64),
              lowering=first.lowering, num_sms=first.num_sms)
  wide = MosaicConfig(tile_m=64, tile_n=256, wg_dimension="m", **base)
  candidates = [first]
  for stages in (3, 4):
    candidates += [
        dataclasses.replace(wide, max_concurrent_steps=stages),
        MosaicConfig(max_concurrent_steps=stages, **base)]
  candidates += [
      dataclasses.replace(wide, grid_minor_dim="m"),
      dataclasses.replace(wide, grid_tile_width=8, cluster_dimension="m"),
      dataclasses.replace(wide, tile_n=192, max_concurrent_steps=4),
      dataclasses.replace(wide, tile_k=long_k, max_concurrent_steps=2)]
  for stages in (4, 5):
    candidates += [
        MosaicConfig(tile_n=64, max_concurrent_steps=stages, **base),
        MosaicConfig(tile_m=64, wg_dimension="m",
                     max_concurrent_steps=stages, **base)]
  candidates.append(MosaicConfig(tile_m=64, wg_dimension="m",
                                 max_concurrent_steps=6, **base))
  for wg_dimension in ("m", "n"):
    candidates.append(MosaicConfig(
        tile_m=64, tile_n=64, wg_dimension=wg_dimension,
        max_concurrent_steps=4, **dict(base, tile_k=long_k)))
  if promoted:  # Plus what came close on an H200 (BUILD_NOTES.md).
    candidates = [c for c in candidates
                  if c.tile_m * c.tile_n <= PROMOTED_MAX_TILE]
    candidates += [
        dataclasses.replace(first, grid_tile_width=8, cluster_dimension="m"),
        dataclasses.replace(first, tile_k=long_k, max_concurrent_steps=3)]
  else:  # 128x256 and 128x128 over K ranges, where they fill the SMs better;
    # ping-pong consumers.
    candidates += [
        *ping_pong_variants(n, k, dtype, dtype, **base),
        *k_range_variants(wide, m, n, k, dtype, dtype),
        *k_range_variants(MosaicConfig(tile_m=64, wg_dimension="m", **base),
                          m, n, k, dtype, dtype),
        *skinny_n_variants(m, n, k, dtype, dtype, first.num_sms),
        *single_warpgroup_variants(m, n, k, dtype, dtype, first.num_sms)]
  candidates += transposed_variants(m, n, dtype, dtype, first.num_sms)
  return config_checks.passing(
      candidates, lambda c: check_mosaic_config(c, dtype, dtype))
