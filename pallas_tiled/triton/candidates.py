"""The Triton configs the autotuner times for one problem."""

from __future__ import annotations

import dataclasses

from jax.experimental import pallas as pl
import jax.numpy as jnp
import numpy as np

from pallas_tiled import config_checks
from pallas_tiled import device
from pallas_tiled import layouts
from pallas_tiled.triton import folding
from pallas_tiled.triton import heuristics
from pallas_tiled.triton.config import MIN_DOT_DIM
from pallas_tiled.triton.config import TileConfig
from pallas_tiled.triton.config import check_triton_tiles

# The most rows a folded a may have in one tile row (`_folded_configs`).
_MAX_FOLDED_ROWS = 32
# The largest share of b's bytes a folded product's kept partial sums may
# add (`_folded_configs`).
_MAX_KEPT_SHARE = 1 / 8


def candidate_configs(m: int, n: int, k: int, dtype, precision=None,
                      compute_capability=device.HOPPER) -> list[TileConfig]:
  """Configs worth timing, the heuristic's choice first.

  Hand-picked per shape class from the H200 experiments in BUILD_NOTES.md
  rather than a full product, so that tuning one shape costs 8 to 33
  compiles (float64's, not measured yet, are smaller tiles; a float32
  matrix-vector product's, vector tiles only, 3 to 5). Every
  candidate passes `check_triton_tiles` for `compute_capability`.
  """
  wide = np.dtype(dtype).itemsize == 4
  bk = layouts.swizzle_elements(dtype)  # 128-byte K-phases.
  unaligned = layouts.has_unaligned_rows(n, k, dtype)
  # K-major B: float32 and float8 (their wgmma needs it) unless skinny,
  # where the transpose pass can cost more than the product; 16-bit tries
  # both where rows are unaligned (aligned copies of Bᵀ come with the
  # transpose). 8-bit tries both at any M: without the pass, float8 ran up
  # to 1.6x faster for 128 rows (H100 wild-tune, BUILD_NOTES.md).
  needs_k_major = layouts.wgmma_needs_k_major(dtype)
  kmajors = ([True] if needs_k_major
             else [False, True] if unaligned else [False])
  if needs_k_major and (m <= layouts.SKINNY_DIM
                        or np.dtype(dtype).itemsize == 1):
    kmajors = [False, True]
  candidates = [heuristics.default_tiled_config(m, n, k, dtype, precision)]
  if heuristics.takes_vector_tiles(m, n, dtype):  # Accuracy is not traded.
    candidates += _vector_configs(m, n, k)
  elif m <= layouts.SKINNY_DIM:
    candidates += _decode_configs(m, dtype, kmajors, unaligned)
    candidates += _folded_configs(m, n, k, dtype)
    candidates += _folded_row_vector_configs(m, n, k, dtype)
  elif n <= layouts.SKINNY_DIM:
    candidates += _skinny_n_configs(n, dtype, needs_k_major, unaligned)
    if np.dtype(dtype) == jnp.float8_e4m3fn:
      candidates += _upcast_configs(candidates)
  else:
    candidates += short_k_configs(candidates[0], k, dtype)
    candidates += _other_in_place_rows(candidates[0], m, n, k, dtype,
                                       precision)
    shapes = [(128, 256, 8), (256, 128, 8), (128, 128, 8), (128, 128, 4),
              (128, 64, 4), (64, 128, 4)]
    if wide:
      shapes = [(128, 128, 4), (128, 128, 8), (256, 128, 8), (64, 128, 4),
                (128, 64, 4), (64, 64, 4)]
    if np.dtype(dtype) == np.float64:  # Accumulators twice float32's size.
      shapes = [(64, 64, 4), (128, 64, 4), (64, 128, 4), (128, 128, 8),
                (32, 64, 4)]
    for bm, bn, warps in shapes:
      for stages in (3, 4):
        for kmajor in kmajors:
          if kmajor and not needs_k_major and stages == 4:
            continue  # Keeps unaligned 16-bit tuning to 18 compiles.
          candidates.append(TileConfig(bm, bn, bk, warps, stages, group_m=16,
                                       k_major_b=kmajor,
                                       align_operands=unaligned))
  if np.dtype(dtype) == jnp.float8_e4m3fn and 1 in (m, n):
    candidates += _float8_vector_configs(m, n, k)
  candidates = list(dict.fromkeys(candidates))  # Short K repeats splits.
  valid = config_checks.passing(
      candidates, lambda c: check_triton_tiles(c, dtype, compute_capability))
  tiles = lambda c: pl.cdiv(m, c.block_m) * pl.cdiv(n, c.block_n)
  return [c for c in valid if c is candidates[0] or layouts.is_skinny(m, n)
          or tiles(c) >= device.sm_count() // 4]


def short_k_configs(first: TileConfig, k: int, dtype) -> list[TileConfig]:
  """Where K fits in one 128-byte K-phase (LoRA's (x A) @ B, K = its rank of 8
  to 64; tiny random K), each program loads its strips once, multiplies once
  and stores: smaller tiles than the heuristic's 128x256 (96 programs for
  664x3982x14 on 132 SMs) give more programs to overlap those stores.
  128x128, 64x128 and 128x64 tiles over two stages, with `first`'s K-phase
  and operand layout, and where that is a K-major b (float32, float8) also
  b as stored: one phase of it is loaded once, where the transpose pass
  cost 1.1-3 us of the H100's float32 LoRA rows (128x5120x32: 1.3 of 4.1).
  float32's also 32x128 with b as stored, which stored fastest on seven
  of eight H200 shapes of K <= 16 and ran within 3% at K = 32
  (`heuristics.stores_tiny_k_in_thin_tiles`). Not for float64, whose
  128x128 sums would need twice the registers four warps have."""
  if not layouts.fits_one_k_phase(k, dtype) or np.dtype(dtype).itemsize == 8:
    return []
  layouts_b = [first.k_major_b] + ([False] if first.k_major_b else [])
  configs = [TileConfig(bm, bn, first.block_k, 4, 2, group_m=16,
                        k_major_b=k_major_b,
                        align_operands=first.align_operands)
             for k_major_b in layouts_b
             for bm, bn in ((128, 128), (64, 128), (128, 64))]
  if np.dtype(dtype) == np.float32:
    configs.append(TileConfig(32, 128, first.block_k, 4, 2, group_m=16,
                              align_operands=first.align_operands))
  return configs


def _other_in_place_rows(first: TileConfig, m: int, n: int, k: int, dtype,
                         precision) -> list[TileConfig]:
  """Where `first` reads a float32 K longer than one 128-byte phase in
  place (`heuristics.reads_short_k_in_place`; a shorter one has both row
  counts in `short_k_configs`), the same tile in the other row count, 64
  or 32: which ran faster followed N's parity on every H200 probe shape
  (`heuristics._thin_short_k_tiles`), for a cause not found."""
  if (np.dtype(dtype) != np.float32 or layouts.fits_one_k_phase(k, dtype)
      or not heuristics.reads_short_k_in_place(m, n, k, dtype, precision)):
    return []
  return [dataclasses.replace(first, block_m={32: 64, 64: 32}[first.block_m])]


def _decode_configs(m, dtype, kmajors, unaligned) -> list[TileConfig]:
  """Decode outputs (M <= 64): one tile row, so the grid is the N tiles
  times the K ranges; narrow tiles and up to 16 K ranges give a small N
  enough programs to keep every SM streaming b."""
  bk = layouts.swizzle_elements(dtype)  # 128-byte K-phases.
  bm = heuristics.fit_block(m, MIN_DOT_DIM, 64)
  configs = []
  for (bn, bkk), stages, split in (
      ((64, 2 * bk), 4, 1), ((64, 2 * bk), 4, 2), ((128, 2 * bk), 4, 1),
      ((128, 2 * bk), 4, 2), ((32, 4 * bk), 4, 1), ((64, 4 * bk), 3, 2),
      ((128, bk), 5, 4), ((64, 2 * bk), 3, 4)):
    for kmajor in kmajors:
      # Also unaligned rows read in place: an aligned copy reads and
      # writes all of b before a product that reads it once (1x51865x1280
      # ran 0.30x jnp.matmul on an H100); a K-major b's transpose aligns.
      for align in ([True, False] if unaligned and not kmajor
                    else [unaligned]):
        configs.append(TileConfig(bm, bn, bkk, 4, stages, split_k=split,
                                  k_major_b=kmajor, align_operands=align))
  # Many K ranges, b read in place as it lies: for a small N.
  for bn, bkk, split in ((64, 2 * bk, 8), (64, 2 * bk, 16), (32, 4 * bk, 4),
                         (32, 4 * bk, 8)):
    configs.append(TileConfig(bm, bn, bkk, 4, 4, split_k=split))
  configs += _widened_decode_configs(bm, dtype)
  if unaligned:  # Their in-place reads of unaligned rows are unmeasured.
    return configs
  # More of b in flight per program, b read as stored: wider strips or more
  # stages. Where N is large they stream up to 11% faster than 128-wide
  # strips over 4 stages (H100 wild-tune, cold; BUILD_NOTES.md); XLA's own
  # Triton GEMMs there run 128- to 256-wide strips. Only for aligned rows:
  # wild-tune has no large decode product with unaligned ones to calibrate
  # them on, and read in place such rows load element by element.
  for bn, bkk, warps, stages in ((256, 2 * bk, 4, 3), (256, bk, 4, 5),
                                 (512, bk, 8, 3), (128, 2 * bk, 4, 5)):
    configs.append(TileConfig(bm, bn, bkk, warps, stages))
  return configs


def _widened_decode_configs(bm: int, dtype) -> list[TileConfig]:
  """float8 decode tiles of 64 rows (33-64 output rows) widened to float16
  (`upcast`), b read as stored and in place, over 128-element K-phases and
  4 to 16 K ranges. A 64-row float8 dot wants b K-major; reading b as
  stored it ran at under half the widened tiles' speed (an H200, shapes in
  neither wild split: 64x64x128/sk16 widened 11.5, 11.1 and 9.6 us on
  60x701x4097, 50x333x5001 and 64x515x3001, the unwidened 64x64x256/sk8
  over 29.1, 25.3 and 22.5, the best K-major candidate 15.8-21.4;
  BUILD_NOTES.md, thirtieth session).
  Narrower tiles are float16 dots already."""
  if np.dtype(dtype) != jnp.float8_e4m3fn or bm < 64:
    return []
  bk = layouts.swizzle_elements(dtype)
  return [TileConfig(bm, bn, bk, 4, 4, split_k=split, upcast=True)
          for bn, split in ((64, 16), (64, 8), (128, 4))]


def _folded_configs(m: int, n: int, k: int, dtype) -> list[TileConfig]:
  """Decode products of up to 16 rows whose b rows are not 16-byte
  multiples, over b's rows folded into aligned ones (`folding.py`), in the
  wide strips aligned decode rows stream fastest. Up to 32 folded rows in
  one tile row: on an H100 (bfloat16, shapes in neither wild split), 1-4
  output rows folded ran 0.94-1.18x jnp.matmul against the in-place reads'
  0.60-0.90x, and 8 rows folded into one 64-row tile 0.60x; more through
  16-row windows, two per column tile. Only where the kept partial sums
  (fold * M float32 a column, written and read again) are at most an
  eighth of b's bytes (K a column): through windows, 8-16 rows ran 1.06-1.11x
  jnp.matmul where they were 3-9% (8x32001x4096, 12x40001x2048; the
  in-place reads 0.63-0.85x), and 0.63-0.79x where they were 17-20%
  (16x51865x1280, 8x50257x768, 16x30522x768; in place 0.86-0.95x). Only
  strips that fold (`folding.folds`: windows span at most two fold groups)
  and give every SM a program (they are not split along K). 16-bit dtypes
  only: TF32 wants b K-major, float32
  matrix-vector products take vector tiles, and a float8 decode product
  of one row already tunes 32 candidates (folded, its best 256-wide strip
  ran 1.33-1.47x the pick's speed on three of four such H100 shapes, 0.78x
  on the fourth; BUILD_NOTES.md)."""
  fold = folding.fold_factor(n, dtype)
  itemsize = np.dtype(dtype).itemsize
  if (m > MIN_DOT_DIM or itemsize != 2
      or fold * m * 4 > _MAX_KEPT_SHARE * k * itemsize):
    return []
  bk = layouts.swizzle_elements(dtype)
  # One tile row of every group's rows, else 16-row windows (folding.py).
  bm = (heuristics.fit_block(fold * m, MIN_DOT_DIM, _MAX_FOLDED_ROWS)
        if fold * m <= _MAX_FOLDED_ROWS else MIN_DOT_DIM)
  configs = [TileConfig(bm, bn, bkk, warps, stages, fold_b=True)
             for bn, bkk, warps, stages in ((128, 2 * bk, 4, 4),
                                            (256, 2 * bk, 4, 3),
                                            (256, bk, 4, 5), (512, bk, 8, 3))]
  return [c for c in configs if folding.folds(c, m, n, k, dtype) > 1
          and pl.cdiv(fold * n, c.block_n) >= device.sm_count()]


def _folded_row_vector_configs(m: int, n: int, k: int,
                               dtype) -> list[TileConfig]:
  """A 16-bit one-row product whose b rows fold, as the 128-wide vector
  strips of `heuristics.folded_row_vector_config`, at any K: where K is
  shallow they ran up to 1.3x the folded pick's speed, and from K = 1536
  on 0.84-1.05x (H200, BUILD_NOTES.md). Over 16 K ranges they ran
  0.94-1.02x their speed over 8, so not tried (one more compile, 33 in
  all)."""
  if not heuristics.is_folded_row(m, n, dtype):
    return []
  return [heuristics.folded_row_vector_config(m, n, k)]


def _skinny_n_configs(n, dtype, kmajor, unaligned) -> list[TileConfig]:
  """Skinny outputs (N <= 64 < M): one tile column, so the grid is the M
  tiles times the K ranges, each program streaming a block_m-row strip of
  a; 64- and 128-row tiles over 1 to 8 K ranges, 64-row ones also over 16
  (a few hundred rows over 8 K ranges are 48 programs for 132 SMs: on the
  H100's wild-tune, 8 ranges were the best of 1-8 on six of the 20 float32
  shapes, all of 1000 rows or fewer; not 8-bit dtypes: float8's candidates
  come widened too and would pass 32), and unaligned rows both
  read in place and copied aligned (the copy reads and writes all of a).
  Where wgmma wants b K-major (float32, float8) and its rows are aligned,
  also b as stored: b is at most 64 columns wide, and its transpose pass
  cost 1.3-2.2 us of the H100's 6-15 us float32 LoRA x @ A rows
  (384x64x6144: 2.2 of 14.8 us)."""
  bk = layouts.swizzle_elements(dtype)
  bn = heuristics.fit_block(n, MIN_DOT_DIM, 64)
  splits = (1, 2, 4, 8)
  splits_64 = splits + ((16,) if np.dtype(dtype).itemsize > 1 else ())
  layouts_b = [kmajor] + ([False] if kmajor and not unaligned else [])
  return [TileConfig(bm, bn, 2 * bk, 4, 4, split_k=split, k_major_b=k_major_b,
                     align_operands=align)
          for k_major_b in layouts_b
          for bm, bm_splits in ((64, splits_64), (128, splits))
          for split in bm_splits
          for align in ([True, False] if unaligned else [False])]


def _upcast_configs(configs) -> list[TileConfig]:
  """float8 skinny-N configs widened to float16 (`upcast`) beside each that
  reads b K-major, reading b as stored and in place instead: float8's wgmma
  wants b K-major, so those pay an XLA transpose of b (tiny here, but a
  pass of its own: on an H100, 2048x8x4096's best widened config took 7.3
  us, its best K-major one 8.3). Only wgmma tiles (64 rows or more): Triton's
  16-row float8 dots already widen to float16 (the same times to 0.1%
  on wild-tune's decode shapes, BUILD_NOTES.md)."""
  return [dataclasses.replace(c, k_major_b=False, align_operands=False,
                              upcast=True)
          for c in configs if c.k_major_b and c.block_m >= 64]


def _vector_configs(m: int, n: int, k: int) -> list[TileConfig]:
  """The runners-up to `heuristics.vector_config` on wild-tune's float32
  M = 1 shapes (H100): 32- to 64-wide strips (down to 16 for a narrower
  output), 64- to 128-deep K-phases, over 4 to 16 K ranges; and both of
  the default's strips (64 wide on 2 warps, 256 on 8) wherever it takes
  the other, 256 also over 16 K ranges, which on an H200 ran ahead of the
  default on some shapes it keeps 64 wide (1x6144x6144 0.98x against 0.95x
  jnp.matmul, 1x6144x8192 0.97x against 0.92x; BUILD_NOTES.md)."""
  configs = [heuristics.vector_tile_config(m, n, k, *fields)
             for fields in ((64, 64, 4, 3, 16), (64, 128, 4, 3, 4),
                            (32, 128, 4, 3, 8), (64, 64, 4, 3, 4))]
  configs.append(heuristics.narrow_vector_config(m, n, k))
  if max(m, n) >= 256:  # Only whole 256-wide strips (8 warps were timed so).
    configs += [heuristics.wide_vector_config(m, n, k, most_splits=split)
                for split in (8, 16)]
  return configs


def _float8_vector_configs(m: int, n: int, k: int) -> list[TileConfig]:
  """float8 matrix-vector products (M or N = 1) as vector tiles, summed
  without a dot: float8's wgmma wants b K-major, and the 16-row dot that
  reads b as stored streamed it at 1.0-1.8 TB/s on wild-tune's M = 1
  shapes of 10 to 170 MB (H100). Vector tiles are bound by converting
  float8 to float32 (1.3-2.2 TB/s there): 1.09-1.36x the dot's speed on
  seven of the ten, even on two, 0.79x on the largest (1x256000x3584,
  where the dot streams at 2.7 TB/s), so the cost model chooses. Of 18
  timed (64- to 256-wide, 32- to 128-deep, 1 to 16 K ranges), three
  within 20% of the fastest on average, and 128-wide strips of 128-deep
  K-phases over four stages, 7-13% faster than those on four of the ten
  (BUILD_NOTES.md); four, so that an unaligned decode product tunes at
  most 32 candidates."""
  return [heuristics.vector_tile_config(m, n, k, *fields)
          for fields in ((64, 64, 2, 3, 16), (64, 128, 4, 3, 16),
                         (64, 128, 4, 3, 4), (128, 128, 4, 4, 16))]
