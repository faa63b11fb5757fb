"""Choosing a config for a shape nobody tuned: a cost model that ranks
candidate configs of both backends by predicted time.

Each candidate's time is predicted from the shape alone:

  time = launch + waves * (per_k * k_tile + per_wave)
         + reduce * split-K partial-sum bytes + align * operand bytes copied
         + unaligned * operand bytes read from unaligned rows uncopied
         + relayout * bytes of the other copies around the kernel
         + unaligned_serial * waves * bytes one such program reads
         + unaligned_out * output bytes stored into unaligned rows
         + extra_ops * XLA ops run around the kernel (pads, transposes,
                       copies, the split-K sum), each a launch of its own

where `waves` counts the rounds of output tiles the SMs run (a partly full
last wave costs a whole one; a split-K product has split times the tiles,
each over k / split), `per_k` (the K-loop's cost per element of K: the
tile's compute or its loads, whichever bounds it) and `per_wave` (pipeline
fill and epilogue; paid once, not per wave, by ping-pong consumers, which
overlap each tile's epilogue with the other consumer's K-loop) belong to
the candidate's tile class, and the other terms are shared within a
regime: decode and skinny products (M or N <= 64), which stream one operand
once, have their own coefficients, apart from the wide ones'. A Mosaic
split-K candidate shares its unsplit twin's tile class (the same CTA tile
and K-loop over a shorter K); what splitting adds, float32 partial sums
written and added, is the shared `reduce` term. A
transposed 16-bit candidate (M tiles of any multiple of 8) is priced by
one class for every width, its per-class terms scaled by width. The
coefficients are fitted per device kind and dtype on CUPTI times of every
candidate on the `wild-tune` shapes (`benchmarks/calibrate.py`,
`benchmarks/fit_cost_model.py`) and shipped in
`tuning/tables/cost_model.json`; wild-check shapes are never fitted on.
Another device kind takes the H100's, plus tile classes fitted on its own
timings alone (`coefficients`). A
candidate whose tile class or shared term has no coefficient yet (nothing
like it was timed) is never chosen.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import pathlib

from jax.experimental import pallas as pl
import jax.numpy as jnp

from pallas_tiled import config_checks
from pallas_tiled import device
from pallas_tiled import layouts
from pallas_tiled import validation
from pallas_tiled.mosaic import plan as plan_lib
from pallas_tiled.mosaic.config import MosaicConfig
from pallas_tiled.mosaic.config import check_mosaic_config
from pallas_tiled.mosaic.config import fit_mosaic_config
from pallas_tiled.mosaic.config import k_range_variants
from pallas_tiled.mosaic.config import output_lowering
from pallas_tiled.mosaic.config import PING_PONG_STAGES
from pallas_tiled.mosaic.config import ping_pong_variants
from pallas_tiled.mosaic.config import single_warpgroup_variants
from pallas_tiled.mosaic.config import skinny_n_variants
from pallas_tiled.mosaic.config import TRANSPOSED_WIDTH_OFFSET
from pallas_tiled.mosaic.config import transposed_variants
from pallas_tiled.triton import candidates as triton_candidates
from pallas_tiled.triton import folding
from pallas_tiled.triton.config import TileConfig
from pallas_tiled.triton.config import check_triton_tiles
from pallas_tiled.triton.heuristics import default_tiled_config
from pallas_tiled.triton.heuristics import folded_row_vector_config
from pallas_tiled.triton.heuristics import reads_short_k_in_place
from pallas_tiled.triton.heuristics import reads_thin_b_as_stored
from pallas_tiled.triton.heuristics import short_k_config
from pallas_tiled.triton.heuristics import shortens_tail
from pallas_tiled.triton.heuristics import small_tile_config
from pallas_tiled.triton.heuristics import spreads_short_k_over_small_tiles
from pallas_tiled.triton.heuristics import stores_tiny_k_in_thin_tiles
from pallas_tiled.triton.heuristics import streams_folded_row_as_vector
from pallas_tiled.triton.heuristics import takes_vector_tiles
from pallas_tiled.triton.heuristics import thin_store_config

TABLE_PATH = pathlib.Path(__file__).parent / "tuning" / "tables" / (
    "cost_model.json")
# Shared terms of the model, in the order `features` returns them.
SHARED_TERMS = ("launch", "reduce", "align", "unaligned", "relayout",
                "unaligned_serial", "unaligned_out", "extra_ops")
# The model's regimes (`regime`), each with its own coefficients.
REGIMES = ("wide", "skinny")
# A Hopper part without coefficients of its own uses these (same SM design;
# its own SM count enters through the waves). The H200 is one: a fit on its
# own wild-tune timings picked worse there than these (BUILD_NOTES.md); it
# adds only tile classes of its own, which the H100 has not timed
# (`coefficients`).
HOPPER_REFERENCE_KIND = "NVIDIA H100 80GB HBM3"
# float16 runs the same tiles at the same tensor-core rate as bfloat16.
_SAME_COST_DTYPES = {"float16": "bfloat16"}
# A byte of output stored directly (`plan.stores_direct`) costs the kernel
# about this share of the `relayout` term's byte copied: on an H200's
# wild-tune shapes of unaligned rows (bfloat16 and float8, the model's
# Mosaic picks), the kernel took a median 0.13 us longer per MB of output
# stored directly than per MB stored by TMA (0.02-0.36), against 0.37 us per
# MB copied (bfloat16's fitted coefficient; float8's 0.49).
DIRECT_STORE_COPY_SHARE = 1 / 3

# Split-K on Triton pays off only where the output has few tiles: below this
# many 128x128 tiles per SM.
_SPLIT_K_MAX_TILES_PER_SM = 1.0
# Mosaic's K ranges only from this many 128-byte K-tiles (K = 6144 in
# bfloat16): on an H200's bfloat16 wild-tune calibration the model's K-range
# pick lost to the unsplit 128x64 CTA tile at K = 1600, 3072 and 5120 (5-22%
# slower) and won at K >= 6912 (up to 1.35x). float32's and float8's ranges
# pay at any K where they fill the rounds (`k_range_variants`): on the H200's
# wild-tune calibrations the shapes they reach below 96 K-tiles took them,
# the best candidate on each: float32 128x768x2304, 128x2304x768 and
# 256x1600x1600 at 1.18-1.33x jnp.matmul (0.66-0.95x before), float8
# 256x1152x6912, 384x1024x8192 and 768x768x8192 6-21% faster.
_MOSAIC_MIN_SPLIT_K_TILES = {"float32": 0, "float8_e4m3fn": 0}
_MOSAIC_DEFAULT_MIN_SPLIT_K_TILES = 96
# ...and at any K where even 128x64 CTA tiles, unsplit, would fill at most
# this share of the SMs: on 5 H200 probe shapes in neither split (16-bit,
# 24-64 such tiles, K = 3072-5632) the model's K-range picks ran 1.00-1.22x
# the picks without them; the one wild-tune product the bound itself keeps
# from ranges, 128x5120x5120 (80 such tiles), is the known loss above.
_FEW_TILES_SM_SHARE = 0.5
# float32 outputs of more rows than this get Mosaic's candidates
# (`_mosaic_offered`).
_MOSAIC_MIN_F32_ROWS = 32


def _mosaic_candidates(m, n, k, dtype, out_dtype) -> list[MosaicConfig]:
  """CTA tiles of 128x256, 256x128, 128x192, 128x128 (also over six stages
  where they fill one round), 64x256 and 128x64, a cluster and a two-stage
  256-byte K-tile variant of the widest; ping-pong consumers
  (`ping_pong_variants`: a tile's store overlaps the other consumer's
  wgmmas); where ranges fill the SMs' rounds better (`k_range_variants`)
  and, for 16-bit inputs, K is long (`_MOSAIC_MIN_SPLIT_K_TILES`) or the
  output has few tiles (`_FEW_TILES_SM_SHARE`), the 128x256 and 128x128
  tiles over K ranges; for
  16-bit inputs, the transposed product's tile of 128 columns by the M
  width that fills the rounds best (`transposed_variants`); for float32,
  the 128x128 tile over three 256-byte K-tiles and, for a short K over few
  tiles, one warpgroup's 64x128 and 64x64 CTA tiles
  (`single_warpgroup_variants`; no coefficients until calibrated)."""
  tile_k = layouts.k_tile_elements(k, dtype)  # 128 bytes, or K if shorter.
  long_k = layouts.long_k_tile_elements(k, dtype)  # 256-byte where K holds.
  base = dict(tile_k=tile_k, max_concurrent_steps=4, num_sms=device.sm_count(),
              lowering=output_lowering(m, n, out_dtype),
              epi_tile_n=min(64, layouts.swizzle_elements(out_dtype)))
  wide = MosaicConfig(tile_m=64, tile_n=256, wg_dimension="m", **base)
  square = MosaicConfig(tile_m=64, tile_n=128, wg_dimension="m", **base)
  configs = [
      wide,
      MosaicConfig(tile_m=128, tile_n=128, wg_dimension="m", **base),
      MosaicConfig(tile_m=64, tile_n=192, wg_dimension="m", **base),
      square,
      MosaicConfig(tile_m=64, tile_n=128, wg_dimension="n", **base),
      dataclasses.replace(wide, grid_tile_width=8, cluster_dimension="m"),
      *ping_pong_variants(n, k, dtype, out_dtype, **base),
  ]
  if long_k != tile_k:  # Only where K holds a 256-byte K-tile.
    configs += [
        MosaicConfig(tile_m=64, tile_n=64, wg_dimension="m",
                     **dict(base, tile_k=long_k)),
        dataclasses.replace(wide, tile_k=long_k, max_concurrent_steps=2)]
    if jnp.dtype(dtype) == jnp.float32:
      # TF32 reads A through registers (`tf32_wgmma`), loading and waiting
      # once a K-step: twice the K-step halves those, and 128-wide
      # consumers keep three stages of it. On an H200: 1024x6144x3072 117.7
      # us against the 128-byte K-tile's 128.9 (jnp.matmul 111.0),
      # 896x7168x2048 85.2 against 88.2; its class is the H200's own
      # (BUILD_NOTES.md).
      configs.append(dataclasses.replace(square, tile_k=long_k,
                                         max_concurrent_steps=3))
  if square.waves(m, n) == 1:
    # Six stages: cuBLAS's tile for outputs of a few hundred rows with a
    # long K (nvjet 128x128_64x6, 384x5120x5120 on an H100), where each CTA
    # computes one tile: six stages seldom divide the K-steps, and a CTA
    # whose pipeline cannot run across its tiles drains and refills it for
    # each (H100 wild-tune, bfloat16: one round, 384x5376x4096 0.99x against
    # four stages' 0.90x; 61 rounds, 1000x128256x4096 0.63x against the
    # pick's 0.99x).
    configs.append(dataclasses.replace(square, max_concurrent_steps=6))
  configs = [fit_mosaic_config(c, dtype, out_dtype) for c in configs]
  min_tiles = _MOSAIC_MIN_SPLIT_K_TILES.get(
      jnp.dtype(dtype).name, _MOSAIC_DEFAULT_MIN_SPLIT_K_TILES)
  few_tiles = (pl.cdiv(m, 128) * pl.cdiv(n, 64)
               <= _FEW_TILES_SM_SHARE * base["num_sms"])
  if few_tiles or k >= min_tiles * layouts.swizzle_elements(dtype):
    configs += (k_range_variants(wide, m, n, k, dtype, out_dtype)
                + k_range_variants(square, m, n, k, dtype, out_dtype))
  configs += transposed_variants(m, n, dtype, out_dtype, base["num_sms"])
  configs += single_warpgroup_variants(m, n, k, dtype, out_dtype,
                                       base["num_sms"])
  return configs


def _triton_candidates(m, n, k, dtype, precision) -> list[TileConfig]:
  """The Triton heuristic's pick (and, for unaligned rows, it reading them
  in place); for few output tiles, split-K variants; for decode and skinny
  outputs (M or N <= 64), the autotuner's sets for them."""
  if regime(m, n) == "skinny":  # No K range narrower than one K-phase.
    return [c for c in triton_candidates.candidate_configs(
        m, n, k, dtype, precision) if (k // c.split_k >= c.block_k
                                       or c.split_k == 1)
            and not _slow_in_place_tf32(c, m, n, k, dtype)]
  first = default_tiled_config(m, n, k, dtype, precision)
  # Smaller tiles where K fits one K-phase (the stores bound those).
  configs = [first, *triton_candidates.short_k_configs(first, k, dtype)]
  if first.k_major_b and jnp.dtype(dtype).itemsize == 1:
    # float8 b read as stored, without the transpose pass wgmma wants: on
    # the H100's float8 wild-check, outputs of 128 to 768 rows spent 60-70%
    # of their time in that pass (128x32000x4096: 113 of 170 us), where
    # jnp.matmul's one Triton fusion reads b as stored (113 us in all).
    common = dict(num_warps=4, num_stages=4, group_m=16,
                  align_operands=first.align_operands)
    configs += [dataclasses.replace(first, k_major_b=False),
                TileConfig(128, 128, first.block_k, **common),
                TileConfig(64, 128, 2 * first.block_k, **common)]
  float8 = jnp.dtype(dtype) == jnp.float8_e4m3fn
  if first.align_operands and (not first.k_major_b or float8):
    # Unaligned rows read in place, no pads, by the configs reading b as
    # stored: the best candidate on 3 H100 wild-tune shapes with N unaligned
    # (128x50257x768 and the like) and on small ones with K unaligned
    # (184x2486x111: 0.81x jnp.matmul, aligned 0.49x; float8 2048x17920x8:
    # 15.2 us, padded 19.0), 2.3-12.5x the best on large ones with K
    # unaligned (float8 3821x1309x4077: 6.4x), which the extra_ops and
    # unaligned_serial terms tell apart; float32's (TF32 wants b K-major)
    # are not offered.
    configs += [dataclasses.replace(c, align_operands=False)
                for c in configs if not c.k_major_b]
  tiles = pl.cdiv(m, 128) * pl.cdiv(n, 128)
  if tiles <= _SPLIT_K_MAX_TILES_PER_SM * device.sm_count():
    bk = layouts.swizzle_elements(dtype)
    common = dict(k_major_b=first.k_major_b,
                  align_operands=first.align_operands)
    for bm, bn, split in ((64, 64, 2), (64, 64, 4), (64, 64, 8),
                          (128, 128, 2), (128, 128, 4)):
      if k // split >= 2 * bk:
        configs.append(TileConfig(bm, bn, 2 * bk if bm == 64 else bk,
                                  num_warps=4, num_stages=4, split_k=split,
                                  **common))
  return configs


def _slow_in_place_tf32(config, m, n, k, dtype) -> bool:
  """Whether a Triton config would read an unaligned N-major b in place for
  a float32 product Mosaic also runs: TF32 wants b K-major in shared
  memory, and with rows not 16-byte multiples its tiles load element by
  element, 2.0-2.2x the time of the same config over aligned copies (H100
  probes at 60x4701x821 and 50x333x5001, in neither split; BUILD_NOTES.md).
  None of wild-tune's float32 products reads such a b, so the fit cannot
  price it."""
  return (jnp.dtype(dtype) == jnp.float32 and _mosaic_offered(m, n, k, dtype)
          and not config.align_operands and not config.k_major_b
          and n % layouts.rows_alignment(dtype) != 0)


def _mosaic_offered(m, n, k, dtype) -> bool:
  """Mosaic's candidates: for outputs of 128 rows and columns or more, and
  for float32 ones of more than 32 rows (more than half of one 64-row
  tile), whose TF32 runs transposed and streams b once through registers;
  where K holds one whole 128-byte K-tile or more (a shorter one would be
  padded to it), so from K = 64 in 16-bit, where a store-bound product
  wants TMA's stores (Triton's thread stores ran 0.76-0.81x on the H200).
  On the H100's float32 wild-tune calibration those won at 64 rows (64xNxK:
  up to 1.13x jnp.matmul, where Triton's best ran 0.68-0.76x) and lost to
  Triton at every M <= 32 (their best 0.41-0.98x, Triton's 0.91-1.24x);
  wild-tune has no such product of 33 to 63 rows, where H100 probes of
  shapes in neither split (40 to 60 rows) found Mosaic's best at 0.93-1.04x
  and Triton's at 0.45-0.79x (BUILD_NOTES.md). float8's 128-element K-tile
  is longer than its LoRA ranks (K = 32, 64), whose store-bound products
  Triton ran at 0.73-0.91x jnp.matmul on the H100's wild-check: float8
  gets Mosaic from K = 64, over 64-byte K-tiles (K = 64 on the H100's
  wild-tune: 1.35x against Triton's 0.96x at 2048x12288x64; K = 32, 32-byte
  K-tiles, lost to Triton on all three shapes, 0.55-1.16x against
  0.92-1.53x)."""
  float8 = jnp.dtype(dtype) == jnp.float8_e4m3fn
  min_k = (layouts.MOSAIC_MIN_FLOAT8_K if float8
           else layouts.swizzle_elements(dtype))
  return n >= 128 and k >= min_k and (
      m >= 128 or (m > _MOSAIC_MIN_F32_ROWS
                   and jnp.dtype(dtype) == jnp.float32))


def model_candidates(m: int, n: int, k: int, dtype, precision=None, *,
                     out_dtype=None, mosaic: bool = True) -> list:
  """The configs the cost model chooses among for an (m, n, k) product, each
  valid for the compiled kernels on Hopper."""
  out_dtype = out_dtype or dtype
  configs = _triton_candidates(m, n, k, dtype, precision)
  if mosaic and _mosaic_offered(m, n, k, dtype):
    configs += _mosaic_candidates(m, n, k, dtype, out_dtype)
  elif mosaic:  # Tall skinny float32: Mosaic's 64-column tiles alone.
    configs += skinny_n_variants(m, n, k, dtype, out_dtype, device.sm_count())

  def check(config):
    if isinstance(config, MosaicConfig):
      check_mosaic_config(config, dtype, out_dtype)
    else:
      check_triton_tiles(config, dtype, device.HOPPER, out_dtype)

  return config_checks.passing(list(dict.fromkeys(configs)), check)


def calibrated_twin(config):
  """`config` as the calibration runs timed it: ping-pong tiles in strips
  of four tile columns, which `ping_pong_variants` walks row by row where K
  is short (the runs' times price both)."""
  if isinstance(config, MosaicConfig) and config.ping_pong:
    return dataclasses.replace(config, grid_minor_dim="n", grid_tile_width=4)
  return config


def tile_class(config, k: int, dtype) -> str:
  """The key of a config's per_k and per_wave coefficients on a product of
  depth `k` in `dtype`: its label without what the waves or a shared term
  account for (the SM count, aligned operand copies, Mosaic's K ranges) or
  what changes no tile (the lowering of ragged outputs, Mosaic's epilogue
  pieces, which candidates size by bytes of the stored dtype, the depth of
  a ping-pong ring or its tile order, which `ping_pong_variants` sets by K
  (`calibrated_twin`), or a K-tile
  narrowed to a short K, `layouts.k_tile_elements`). Transposed
  Mosaic configs share one class whatever their M tile's width and depth:
  `features` scales their terms by width. Where all of K fits one 128-byte
  K-phase (a LoRA rank, a tiny K: `short_k_configs`), a Triton tile is one
  class whatever its K-phase's width, "K": there the width follows K (16,
  32, 64 in bfloat16) rather than being chosen, and K enters through
  `features`' k_tile."""
  if isinstance(config, MosaicConfig):
    config = dataclasses.replace(config, num_sms=device.FALLBACK_SM_COUNT,
                                 lowering="warpgroup", split_k=1)
    config = calibrated_twin(config)
    if config.ping_pong:  # Named by its long-K ring, whatever K's depth.
      config = dataclasses.replace(config, max_concurrent_steps=(
          PING_PONG_STAGES.get(config.tile_n, config.max_concurrent_steps)))
    if config.tile_k < layouts.swizzle_elements(dtype):  # Narrowed to K.
      config = dataclasses.replace(
          config, tile_k=layouts.swizzle_elements(dtype))
    parts = [part for part in config.label.split("/")
             if not part.startswith("epi")]
    if config.transposed:  # One class for every M tile width and depth.
      parts[:2] = [f"{config.tile_m}xWx{config.tile_k}"]
    label = "/".join(parts)
  else:
    label = dataclasses.replace(config, align_operands=False,
                                fold_b=False).label
    if is_one_phase_class(config, k, dtype):
      parts = label.split("/")
      parts[0] = f"{config.block_m}x{config.block_n}xK"
      label = "/".join(parts)
  return f"{config.backend}:{label}"


def priced_class(config, m: int, n: int, k: int, dtype) -> str:
  """The tile class pricing `config` on an (m, n, k) product: a folded
  product's is that of the (shallower) product it runs (folding.py)."""
  fold = (1 if isinstance(config, MosaicConfig)
          else folding.folds(config, m, n, k, dtype))
  return tile_class(config, k // fold, dtype)


def is_one_phase_class(config, k: int, dtype) -> bool:
  """Whether `config` on a product of depth `k` falls in a tile class of
  one-phase K alone (`tile_class`'s "K" width): an unsplit Triton tile
  whose one K-phase holds all of K."""
  return (not isinstance(config, MosaicConfig) and config.split_k == 1
          and k <= config.block_k and layouts.fits_one_k_phase(k, dtype))


def features(config, m: int, n: int, k: int, dtype, num_sms: int, *,
             layout_version: int = plan_lib.LAYOUT_VERSION):
  """(shared terms, (waves * k_tile / 1000, waves, or 1 for ping-pong)) of
  `config` on an (m, n, k) product: what the model's coefficients multiply.
  `num_sms` counts a Triton grid's waves (a MosaicConfig carries its own).
  An older `layout_version` prices a Mosaic kernel's copies as they were
  then (`plan.LAYOUT_VERSION`), e.g. a padded output cut before unaligned
  outputs were stored directly, as calibration runs of that time timed
  it.
  A transposed config's waves count (width + TRANSPOSED_WIDTH_OFFSET) /
  (256 + TRANSPOSED_WIDTH_OFFSET) each: its class's coefficients are a
  256-wide tile's."""
  itemsize = jnp.dtype(dtype).itemsize
  if isinstance(config, MosaicConfig):
    relayout, transposed, direct = _mosaic_layout(
        m, n, k, config, jnp.dtype(dtype).name, layout_version)
    relayout += DIRECT_STORE_COPY_SHARE * direct
    # Over the config's own num_sms, and the tiles of the product it runs.
    waves = config.waves(n, m) if transposed else config.waves(m, n)
    split, aligned_bytes, unaligned_reads, serial = config.split_k, 0, 0, 0
    unaligned_out = 0  # Mosaic pads such an output: relayout counts it.
    k_tile = pl.cdiv(k, split)
    partial_sums = (split > 1) * m * n * split * 4  # float32, added after.
    copies = relayout > 0  # Counted as one op: most copy a single array.
    if config.transposed:  # Per-class terms of a 256-wide tile, rescaled.
      width = config.tile_n + TRANSPOSED_WIDTH_OFFSET
      waves *= width / (256 + TRANSPOSED_WIDTH_OFFSET)
  else:
    # A folded product is priced as the one it runs (folding.py), plus a's
    # regrouping copy and the added partial sums of its kept rows; read
    # through windows, as one tile row.
    fold, rows, a_bytes = folding.folds(config, m, n, k, dtype), m, m * k
    if fold > 1:
      m = config.block_m if folding.windowed(config, m, fold) else fold * m
      n, k = fold * n, k // fold
    split = config.split_k
    waves = pl.cdiv(config.num_programs(m, n), num_sms)
    k_tile, aligned = pl.cdiv(k, split), config.align_operands
    # The operands whose rows are not 16-byte multiples (b's are K long
    # where it is K-major): aligning pads them, else they are read in place.
    pads = layouts.row_pads(m, n, k, dtype, transpose_b=config.k_major_b)
    unaligned_a, unaligned_b = any(pads.a), any(pads.b)
    # Each row block of the output reads all of b, each column block a.
    unaligned_reads = (not aligned) * (
        unaligned_b * pl.cdiv(m, config.block_m) * k * n
        + unaligned_a * pl.cdiv(n, config.block_n) * m * k)
    # Rows read in place element by element: besides their bytes, what
    # each program loads in turn (its strips of a and b over its K range).
    serial = bool(unaligned_reads) * waves * (
        config.block_m + config.block_n) * k_tile
    # A K-major b is an XLA transpose of b, read and written.
    relayout = config.k_major_b * 2 * k * n * itemsize
    # The kernel stores its tiles into the (M, N) output as it is: rows
    # that are not 16-byte multiples take narrow stores, aligned a or not.
    step = layouts.rows_alignment(dtype)
    unaligned_out = (n % step != 0) * m * n
    aligned_bytes = aligned * (unaligned_a * m * k + unaligned_b * k * n)
    copies = config.k_major_b + aligned * (unaligned_a + unaligned_b)
    # float32 partial sums added after: of K ranges, or a folded product's
    # kept rows (of the original a, each folded column's own).
    partial_sums = (split > 1 or fold > 1) * rows * n * split * 4
    if fold > 1 and rows > 1:  # One row's regrouped a is a view.
      aligned_bytes, copies = aligned_bytes + a_bytes, copies + 1
  shared = (1.0, partial_sums / 1e6,
            aligned_bytes * itemsize / 1e6,
            unaligned_reads * itemsize / 1e6, relayout / 1e6,
            serial * itemsize / 1e3, unaligned_out * itemsize / 1e6,
            float(copies + (partial_sums > 0)))
  # Ping-pong consumers store one tile while the other computes the next:
  # only the last epilogue (and the pipeline's fill) is paid, once per CTA.
  ping_pong = isinstance(config, MosaicConfig) and config.ping_pong
  return shared, (waves * k_tile / 1e3, 1.0 if ping_pong else float(waves))


@functools.lru_cache(maxsize=65536)
def _mosaic_layout(m, n, k, config, dtype_name,
                   layout_version) -> plan_lib.HostLayout:
  """`plan.host_layout` (outputs of the input dtype, as the candidates are
  timed), cached: the fit and every pick ask for each pair many times."""
  return plan_lib.host_layout(m, n, k, config, dtype_name, dtype_name,
                              layout_version=layout_version)


@functools.cache
def _table() -> dict:
  with open(TABLE_PATH) as f:
    return json.load(f)


def coefficients(device_kind: str, dtype) -> dict | None:
  """The fitted coefficients for a Hopper part's device kind and an input
  dtype, or None where none apply (then the backends' own heuristics
  choose): the H100's (`HOPPER_REFERENCE_KIND`), with the tile classes
  another kind has of its own (`fit_cost_model.py --extend`) added."""
  name = jnp.dtype(dtype).name
  return _coefficients(device_kind, _SAME_COST_DTYPES.get(name, name))


@functools.cache
def _coefficients(device_kind: str, dtype_name: str) -> dict | None:
  """`coefficients`, merged once: a kind's own entry holds, per regime,
  only "classes", fitted on its own timings over the reference's shared
  terms (a Hopper part's timings alone fitted every term worse than the
  H100's did: BUILD_NOTES.md)."""
  table = _table()
  reference = table[HOPPER_REFERENCE_KIND].get(dtype_name)
  own = table.get(device_kind, {}).get(dtype_name)
  if reference is None or own is None or device_kind == HOPPER_REFERENCE_KIND:
    return reference
  return extended(reference, own)


def extended(reference: dict, own: dict) -> dict:
  """`reference`'s coefficients (per regime) with `own`'s classes added."""
  return {name: dict(coefs, classes={**coefs["classes"],
                                     **own.get(name, {}).get("classes", {})})
          for name, coefs in reference.items()}


def regime(m: int, n: int) -> str:
  """Which coefficients an (m, n) output's candidates take: "skinny" for
  decode and skinny products (M or N <= 64, the ones timed over cold
  operand copies), else "wide"."""
  return "skinny" if layouts.is_skinny(m, n) else "wide"


def predict_us(config, m: int, n: int, k: int, dtype,
               coefs: dict, num_sms: int) -> float | None:
  """Predicted time of `config` in microseconds; None for a regime, a tile
  class or a shared term (with work to do here) the coefficients were not
  fitted for. `coefs` holds one device kind's and dtype's regimes."""
  coefs = coefs.get(regime(m, n))
  if coefs is None:
    return None
  per_class = coefs["classes"].get(priced_class(config, m, n, k, dtype))
  if per_class is None:
    return None
  shared, per_tile = features(config, m, n, k, dtype, num_sms)
  if any(x and t not in coefs for t, x in zip(SHARED_TERMS, shared)):
    return None
  return (math.fsum(coefs.get(t, 0.0) * x for t, x in zip(SHARED_TERMS,
                                                          shared))
          + math.fsum(c * x for c, x in zip(per_class, per_tile)))


def choose(m: int, n: int, k: int, dtype, precision=None, *, out_dtype=None,
           backends: tuple[str, ...] = ("triton", "mosaic")):
  """The candidate of `backends` with the lowest predicted time on the
  device kernels are built for, or None where the model has no
  coefficients (not Hopper, an uncalibrated dtype; float32 coefficients
  are TF32's, so not for another precision, which no candidate was timed
  with), or where a rule decides (float32 matrix-vector products:
  `takes_vector_tiles`; a short K of unaligned rows, read in place:
  `reads_short_k_in_place`, whose config it returns; a float32 K of one
  16-deep K-phase, rows aligned: `stores_tiny_k_in_thin_tiles`, or of up
  to 32 over few tiles: `spreads_short_k_over_small_tiles`; a 16-bit row
  whose b rows fold, over a shallow K: `streams_folded_row_as_vector`; a
  float32 grid's short tail round, `shortens_tail`; a float32 b of at most
  32 columns, read as stored: `reads_thin_b_as_stored`)."""
  if not device.is_hopper():
    return None
  return choose_on(device.device_kind(), device.sm_count(), m, n, k, dtype,
                   precision, out_dtype=out_dtype, backends=backends)


def choose_on(device_kind: str, num_sms: int, m: int, n: int, k: int, dtype,
              precision=None, *, out_dtype=None,
              backends: tuple[str, ...] = ("triton", "mosaic")):
  """`choose` for a Hopper part named by its device kind and SM count, not
  the target device: what a result recorded on it would run now
  (`benchmarks/stale_picks.py`)."""
  if (jnp.dtype(dtype) == jnp.float32
      and not validation.is_default(precision)):
    return None
  if takes_vector_tiles(m, n, dtype):  # A rule, for accuracy, not speed.
    return None
  if "triton" in backends and reads_short_k_in_place(
      m, n, k, dtype, precision, num_sms=num_sms):
    # A rule: wild-tune holds no such product to fit the in-place reads on.
    return short_k_config(m, n, k, dtype)
  if "triton" in backends and stores_tiny_k_in_thin_tiles(
      m, n, k, dtype, precision):
    return thin_store_config()  # A rule: no wild-tune row timed the tile.
  if "triton" in backends and spreads_short_k_over_small_tiles(
      m, n, k, dtype, precision, num_sms=num_sms):
    return small_tile_config(k)  # A rule, as above.
  if "triton" in backends and streams_folded_row_as_vector(
      m, n, k, dtype, num_sms=num_sms):
    return folded_row_vector_config(m, n, k)  # A rule, as above.
  chosen = _choose(m, n, k, dtype, precision, out_dtype, backends,
                   device_kind, num_sms)
  if isinstance(chosen, TileConfig):  # A rule the waves cannot price.
    return shortens_tail(chosen, m, n, dtype, num_sms)
  return chosen


@functools.lru_cache(maxsize=4096)
def _choose(m, n, k, dtype, precision, out_dtype, backends, device_kind,
            num_sms):
  """`choose_on`, cached."""
  coefs = coefficients(device_kind, dtype)
  if coefs is None:
    return None
  timed = []
  thin_b = reads_thin_b_as_stored(m, n, k, dtype)  # A rule: `choose`.
  for config in model_candidates(m, n, k, dtype, precision,
                                 out_dtype=out_dtype,
                                 mosaic="mosaic" in backends):
    if config.backend in backends and not (
        thin_b and isinstance(config, TileConfig) and config.k_major_b):
      predicted = predict_us(config, m, n, k, dtype, coefs, num_sms)
      if predicted is not None:
        timed.append((predicted, config))
  return min(timed, key=lambda t: t[0])[1] if timed else None
