"""The Triton kernel's default tiles for a shape nobody tuned, from
measurements on an H200 (BUILD_NOTES.md)."""

from __future__ import annotations

import dataclasses

from jax.experimental import pallas as pl
import jax.numpy as jnp
import numpy as np

from pallas_tiled import config_checks
from pallas_tiled import device
from pallas_tiled import layouts
from pallas_tiled import validation
from pallas_tiled.triton import folding
from pallas_tiled.triton.config import MIN_DOT_DIM
from pallas_tiled.triton.config import min_block_k
from pallas_tiled.triton.config import TileConfig


def fit_block(dim: int, lo: int, hi: int) -> int:
  """The power of two nearest above `dim`, clamped to [lo, hi]."""
  return min(hi, max(lo, config_checks.next_power_of_two(dim)))


def _float64_config(m: int, n: int, k: int) -> TileConfig:
  """float64 tiles, not measured yet: 64x64 outputs (a float64 accumulator
  of 32 values a thread with 4 warps), 128x64 once those fill every SM, and
  K-phases of 32 elements (Triton's fp64 dot takes K >= 16)."""
  fills_sms = pl.cdiv(m, 128) * pl.cdiv(n, 64) >= device.sm_count()
  return TileConfig(
      fit_block(m, MIN_DOT_DIM, 128 if fills_sms else 64),
      fit_block(n, MIN_DOT_DIM, 64), fit_block(k, MIN_DOT_DIM, 32),
      num_warps=4, num_stages=3,
      align_operands=layouts.has_unaligned_rows(n, k, np.float64))


def symbolic_shape_config(dtype) -> TileConfig:
  """The config for a product with a symbolic dimension (jax.export shape
  polymorphism), where no size can be compared: 64x64 output tiles (few
  masked rows or columns on small outputs; the 1024^3-and-up class of
  128-wide tiles is for known-large outputs), 128-byte K-phases, no
  operand copies (aligning or staging K-major needs the sizes), no split-K
  and no grouped order (both compute with the grid's sizes in the kernel).
  Shape-independent, so valid for every size the exported module is called
  with."""
  return TileConfig(64, 64, layouts.swizzle_elements(dtype), num_warps=4,
                    num_stages=3)


def takes_vector_tiles(m: int, n: int, dtype) -> bool:
  """Whether a product runs as vector tiles at any precision: float32
  matrix-vector products (M or N = 1), which a vector tile sums in IEEE
  float32 as XLA's gemv does. A TF32 dot there is 3e-4 off where
  jnp.matmul is 1e-7 (1x768x3072, 1x3072x768, 1x3840x1280 on an H100);
  `vector_config` ran 0.92-1.00x jnp.matmul wherever the product streams
  over 40 MB. Other dtypes' dots are exact already, and their vector tiles
  ran 0.79-0.93x as fast as the 16-row dot (bfloat16, BUILD_NOTES.md);
  16-bit rows take them for speed where b's rows fold over a shallow K
  (`streams_folded_row_as_vector`)."""
  return (np.dtype(dtype) == np.float32 and not validation.is_symbolic(m, n)
          and 1 in (m, n))


# The dtypes `reads_short_k_in_place` takes at any K shorter than one
# 128-byte K-phase (float8 was not faster in place on large outputs).
_SHORT_K_IN_PLACE_DTYPES = tuple(map(np.dtype, (jnp.bfloat16, jnp.float16,
                                                jnp.float32)))
# A small product's K, read in place: up to two 256-byte K-phases in 16-bit
# and float32 (float32's 64x128 tiles over three or four ran 2.4-3.2x
# slower than the pick); float8 from where Mosaic's candidates begin
# (`layouts.MOSAIC_MIN_FLOAT8_K`) to one K-phase. "Small": its 64x128 tiles
# fill at most this many rounds of the SMs (the probe's largest output,
# 1000x3001, fills 2.9 on 132 SMs).
_SMALL_K_BYTES = 512
_SMALL_OUTPUT_ROUNDS = 3


def _short_k_tile_rounds(m: int, n: int, num_sms: int | None) -> float:
  """Rounds of the SMs that 64x128 tiles over an (m, n) output fill: the
  short-K rules' measure of a small output (`reads_short_k_in_place`,
  `spreads_short_k_over_small_tiles`)."""
  return pl.cdiv(m, 64) * pl.cdiv(n, 128) / (num_sms or device.sm_count())


def reads_short_k_in_place(m: int, n: int, k: int, dtype, precision=None, *,
                           num_sms: int | None = None) -> bool:
  """Whether a product of a short K, with rows that are not 16-byte
  multiples, reads them in place (`short_k_config`) instead of behind
  aligned copies: outputs of more than 64 rows and columns, and a K
  (1) shorter than one 128-byte K-phase, in 16-bit and float32 (TF32),
  where Mosaic's candidates are not offered (they would pad K to a
  K-tile). Each program loads its strips once, so element loads cost less
  than the copies' launches: on an H200 (shapes in neither wild split,
  BUILD_NOTES.md), 64x128 tiles read in place ran 0.94-1.09x jnp.matmul
  where the aligned picks ran 0.61-0.78x (float32 700x4001x14 8.85 ->
  5.74 us, 10000x7001x22 116.8 -> 96.6) and bfloat16's 0.83-0.86x
  (3000x5003x30 21.5 -> 16.4 us); or (2) of a small product
  (`_SMALL_OUTPUT_ROUNDS`) up to 512 bytes (float8: 64 to 127 elements),
  where the model's picks wait on copies or pipeline fills longer than
  the product: on 7 H200 probe shapes in neither split (120x5001x75 to
  1000x3001x110), the in-place tiles ran 1.08-1.37x faster than the pick
  in bfloat16 (jnp.matmul's speed in geomean, the picks 0.86x), float32's
  (K <= 128; every N odd, see `_thin_short_k_tiles`) 1.33-1.89x (1.05x
  jnp.matmul, the picks 0.66x), float8's
  (K < 128) 1.21x in geomean (BUILD_NOTES.md). No wild-tune product is of
  either kind, so this is a rule and not a fit."""
  dtype = np.dtype(dtype)
  if (validation.is_symbolic(m, n, k) or layouts.is_skinny(m, n)
      or not layouts.has_unaligned_rows(n, k, dtype)
      or (dtype == np.float32 and not validation.is_default(precision))):
    return False
  phase = layouts.swizzle_elements(dtype)
  if dtype in _SHORT_K_IN_PLACE_DTYPES and k < phase:
    return True
  if dtype == np.dtype(jnp.float8_e4m3fn):
    small_k = layouts.MOSAIC_MIN_FLOAT8_K <= k < phase
  else:
    small_k = (dtype in _SHORT_K_IN_PLACE_DTYPES
               and k * dtype.itemsize <= _SMALL_K_BYTES)
  return (small_k
          and _short_k_tile_rounds(m, n, num_sms) <= _SMALL_OUTPUT_ROUNDS)


def short_k_config(m: int, n: int, k: int, dtype) -> TileConfig:
  """`reads_short_k_in_place`'s tile, b as stored, unaligned rows read in
  place: 64x128 over one K-phase as long as K (16 to 64 elements), two
  stages, where K is shorter than a 128-byte K-phase (of the tiles read in
  place, 128x128, 64x128 and 128x64, the fastest on 8 of 10 probe rows and
  within 5% on the others; 128x64 ran up to 1.5x slower on large
  outputs; 64x256 over eight warps where a tiny K's wide output stores
  unaligned rows, `_stores_unaligned_rows_wide`); over 256-byte K-phases
  for a longer K (of nine tiles on the small-product probe the fastest in
  geomean, the only one never slower than the pick), in 32-row tiles for
  float32 of two such phases and an even N (`_thin_short_k_tiles`);
  float8's 64x64 over one 128-byte K-phase
  (1.21x the pick in geomean, 64x128 1.17x)."""
  phase = layouts.swizzle_elements(dtype)
  if np.dtype(dtype) == np.dtype(jnp.float8_e4m3fn):
    return TileConfig(64, 64, phase, num_warps=4, num_stages=4, group_m=16)
  block_k = fit_block(k, min_block_k(dtype), 2 * phase)
  if _stores_unaligned_rows_wide(m, n, k, dtype):
    return TileConfig(64, 256, block_k, num_warps=8, num_stages=2,
                      group_m=16)
  block_m = 32 if _thin_short_k_tiles(n, k, dtype) else 64
  return TileConfig(block_m, 128, block_k, num_warps=4, num_stages=2,
                    group_m=16)


# `short_k_config`'s wide tile: the deepest tiny K measured faster in it,
# per input dtype; the fewest columns (wide tiles waste more of a partial
# last column tile); the fewest output elements (all measured outputs held
# 2^24 or more: a smaller one has fewer programs to overlap its stores).
_WIDE_STORE_MAX_K = {np.dtype(jnp.bfloat16): 32, np.dtype(jnp.float16): 32,
                     np.dtype(jnp.float32): MIN_DOT_DIM}
_WIDE_STORE_MIN_N = 2048
_WIDE_STORE_MIN_OUTPUT = 2**24


def _stores_unaligned_rows_wide(m: int, n: int, k: int, dtype) -> bool:
  """Whether `short_k_config`'s tile is 64x256 over eight warps: a tiny K
  (`_WIDE_STORE_MAX_K`: one K-phase, loaded once) and a large output
  (`_WIDE_STORE_MIN_OUTPUT`, N >= 2048) whose rows are no 16-byte multiple.
  Storing such rows bounds the product (no row starts aligned for wide
  stores); twice the columns and the warps a tile stored them faster. On
  an H100 (fresh shapes, none of either wild split; BUILD_NOTES.md),
  against the 64x128 tile: bfloat16 1.13-1.34x on six outputs of N
  3170-12098 (K 3-24; 11000x7001x24 101.1 -> 84.6 us), 0.97x and 0.98x at
  N = 1074 and 1540, 0.98-1.00x where the output rows are aligned (K 28,
  30); float32 1.06-1.08x on three of K <= 16 and N 3170-12098, 0.93x at
  N = 1074, 0.91x on aligned rows. float16 is taken as bfloat16 (the same
  bytes stored); a float32 K of 17-32 ran 1.008x in geomean (0.95-1.04x on
  four shapes), so float32 stays at K <= 16."""
  dtype = np.dtype(dtype)
  return (k <= _WIDE_STORE_MAX_K.get(dtype, 0)
          and n % layouts.rows_alignment(dtype) != 0
          and n >= _WIDE_STORE_MIN_N and m * n >= _WIDE_STORE_MIN_OUTPUT)


def _thin_short_k_tiles(n: int, k: int, dtype) -> bool:
  """Whether a float32 K of two 256-byte phases read in place takes 32-row
  tiles: where N is even. On an H200 (19 shapes in neither wild split, M
  120-6000, N 102-5001, K 70-127, BUILD_NOTES.md), 64x128 tiles ran
  0.96-1.08x jnp.matmul for every odd N but 0.38-0.76x for every even one
  (120x5000x75 8.1 us, 120x5001x75 4.2), where 32x128 ran 0.74-1.30x (0.94x
  in geomean; over odd N 0.81x). Why the parity matters was not found; a K
  of one phase was not measured."""
  return (np.dtype(dtype) == np.float32
          and k > 2 * layouts.swizzle_elements(dtype) and n % 2 == 0)


# A float32 (TF32) product whose K fits one K-phase this deep stores its
# output fastest in 32x128 tiles (an H200, `stores_tiny_k_in_thin_tiles`).
_THIN_STORE_MAX_K = MIN_DOT_DIM


def _is_aligned_tf32_output(m: int, n: int, k: int, dtype,
                            precision) -> bool:
  """Whether a product is float32 at default precision (TF32), of known
  sizes, outside the skinny regime, with aligned rows: where the float32
  short-K tile rules apply (`stores_tiny_k_in_thin_tiles`,
  `spreads_short_k_over_small_tiles`)."""
  dtype = np.dtype(dtype)
  return (dtype == np.float32 and validation.is_default(precision)
          and not validation.is_symbolic(m, n, k)
          and not layouts.is_skinny(m, n)
          and not layouts.has_unaligned_rows(n, k, dtype))


def stores_tiny_k_in_thin_tiles(m: int, n: int, k: int, dtype,
                                precision=None) -> bool:
  """Whether a float32 (TF32) product of a K that fits one 16-deep K-phase
  (LoRA's (x A) @ B at rank 8 or 16), rows aligned, outside the skinny
  regime, runs `thin_store_config`. Each program loads its strips once and
  multiplies once, so storing the output bounds it. On an H200 (wild-tune's
  seven such shapes and one in neither split, BUILD_NOTES.md), 32x128
  tiles stored at 2.2-4.3 TB/s, 0.91-1.03x jnp.matmul, where the model's
  64- and 128-row picks ran 0.89-0.97x: 5-11% faster on seven of the
  eight, 5% slower on 4096x59136x16; at K = 32 no faster. The model has no
  coefficients for the tile (no wild-tune row timed it), so this is a rule.
  Unaligned rows keep `reads_short_k_in_place`'s tile (32 rows there
  unmeasured)."""
  return (_is_aligned_tf32_output(m, n, k, dtype, precision)
          and k <= _THIN_STORE_MAX_K)


def thin_store_config() -> TileConfig:
  """`stores_tiny_k_in_thin_tiles`'s tile: 32x128 over one 16-deep K-phase,
  b as stored (one phase of it is loaded once: no transpose pass), two
  stages, groups of 16 tile rows, as the short-K tiles
  (`candidates.short_k_configs`)."""
  return TileConfig(32, 128, MIN_DOT_DIM, num_warps=4, num_stages=2,
                    group_m=16)


# A float32 (TF32) product of K from past _THIN_STORE_MAX_K to one 128-byte
# K-phase runs 32x64 tiles where its 64x128 ones would fill at most this
# many rounds of the SMs (an H200, `spreads_short_k_over_small_tiles`).
_SMALL_TILES_MAX_ROUNDS = 1.25


def spreads_short_k_over_small_tiles(m: int, n: int, k: int, dtype,
                                     precision=None, *,
                                     num_sms: int | None = None) -> bool:
  """Whether a float32 (TF32) product of K 17-32 (one 128-byte K-phase),
  rows aligned, outside the skinny regime, whose 64x128 tiles would fill
  at most 1.25 rounds of the SMs, runs `small_tile_config`: four times
  those programs, each loading its strips once. On an H200 (eight shapes
  in neither wild split, 128x4096x32 to 512x2048x32, 0.5-1.2 rounds;
  BUILD_NOTES.md), 32x64 tiles ran 0.94-0.98x jnp.matmul where the
  model's picks ran 0.80-0.98x: 3-21% faster on six, 2% slower on the two
  at 0.97 rounds. No wild-tune product is of this kind, so this is a
  rule."""
  return (_is_aligned_tf32_output(m, n, k, dtype, precision)
          and _THIN_STORE_MAX_K < k <= layouts.swizzle_elements(dtype)
          and _short_k_tile_rounds(m, n, num_sms) <= _SMALL_TILES_MAX_ROUNDS)


def small_tile_config(k: int) -> TileConfig:
  """`spreads_short_k_over_small_tiles`' tile: 32x64 over one K-phase as
  deep as K (32 elements, 128 bytes), b as stored, two stages, groups of
  16 tile rows."""
  return TileConfig(32, 64, fit_block(k, MIN_DOT_DIM, 32), num_warps=4,
                    num_stages=2, group_m=16)


# A tiny product: fewer multiply-adds than this (the wild statistics' lower
# bound), whose copies before the kernel would move at most _TINY_COPY_BYTES.
_TINY_MACS = 1 << 24
_TINY_COPY_BYTES = 64 * 1024


def _stages_b_k_major(m: int, dtype) -> bool:
  """Whether the heuristic copies b K-major (float32 and float8 outside the
  skinny regime: `default_tiled_config`)."""
  return layouts.wgmma_needs_k_major(dtype) and m > layouts.SKINNY_DIM


# The widest float32 b that `reads_thin_b_as_stored`.
_THIN_B_MAX_N = 32


def reads_thin_b_as_stored(m: int, n: int, k: int, dtype) -> bool:
  """Whether the cost model picks among configs that read a float32
  skinny-N product's b as stored, not through a K-major copy: N <=
  `_THIN_B_MAX_N`, M > 64, rows 16-byte multiples. On wild-tune, b as
  stored beat K-major on every such shape timed both ways (an H200 10 of
  10: 512x8x8192 0.97x jnp.matmul against 0.81x, 1000x32x1024 1.06x
  against 0.86x; an H100 7 of 7, at the same tiles and K ranges), while at
  N = 64 the K-major copy won all 5 (2048x64x4096 0.90x against 0.83x on
  the H200; BUILD_NOTES.md): a 32-wide N-major TF32 dot costs less than
  the copy's launch. A rule: the H100's fit prices the K-major tiles
  partly from shapes timed only K-major."""
  return (np.dtype(dtype) == np.float32 and n <= _THIN_B_MAX_N
          and m > layouts.SKINNY_DIM
          and not layouts.has_unaligned_rows(n, k, dtype))


def copies_nothing(m: int, n: int, k: int, dtype) -> bool:
  """Whether the heuristic's config reads a tiny product's operands as
  stored: no aligned copies of unaligned rows and no K-major copy of b,
  which the heuristic would otherwise make (`default_tiled_config`). Each
  copy is a launch (one launch for both: `relayout.py`) of about the
  kernel's own 1.2-1.7 us. On an H200 (BUILD_NOTES.md; 16 shapes of
  wild-tune's tiny ones and in neither split, in every 16-bit, float8 and
  float32 dtype: the 29 heuristic picks that copied, 0.1-59 KB), reading
  in place ran 1.6-2.1x faster than the aligned picks (bfloat16 3x11x49
  2.54 -> 1.25 us, 53x962x6 3.03 -> 1.49, float32 25x3144x6 3.22 -> 1.74),
  and as stored 1.8-2.0x faster than the K-major ones (float8 and float32
  1636x6x9 3.30 -> 1.62 us, 2.89 -> 1.57). The model has no coefficients
  for such products (none is fitted below 2^24 multiply-adds), so this is
  a rule of the heuristic that picks there."""
  if validation.is_symbolic(m, n, k) or m * n * k >= _TINY_MACS:
    return False
  pads = layouts.row_pads(m, n, k, dtype)
  copied = (any(pads.a) * m * k
            + (any(pads.b) or _stages_b_k_major(m, dtype)) * k * n)
  return copied * np.dtype(dtype).itemsize <= _TINY_COPY_BYTES


# A float32 Triton grid of at most this many rounds of programs over the SMs
# (and more than one) runs its tail round with too few SMs to stream b.
_SHORT_TAIL_ROUNDS = 1.25


def shortens_tail(config: TileConfig, m: int, n: int, dtype,
                  num_sms: int) -> TileConfig:
  """`config` over three stages instead of four where it is a float32 (TF32)
  tile of up to 32 rows whose programs overflow one round of the SMs by at
  most a quarter: a 4-stage 32x128x64 tile (160 KiB of shared memory) runs
  one program an SM, so the few programs past the first round stream b in
  a second round of a few SMs, too few to stream b at HBM's rate; over
  three stages such grids ran as if the tail shared the first round
  (whether Triton then fits two programs an SM was not checked). On an
  H200 (BUILD_NOTES.md; shapes in neither split), 32x17000x5000 (133
  programs), 32x18000x4096 (141) and 24x17920x5120 (140) ran 1.29-1.31x
  faster over three stages; at 71 and 224 programs 2-4% slower, where no
  short tail starves the stream. The model prices waves of one program an
  SM, so it cannot see this, and no wild-tune product has such a tail: a
  rule. Folded products (another grid) keep their stages."""
  if (np.dtype(dtype) != np.float32 or config.block_m > 32
      or config.num_stages != 4 or config.fold_b):
    return config
  rounds = config.num_programs(m, n) / num_sms
  if 1 < rounds <= _SHORT_TAIL_ROUNDS:
    return dataclasses.replace(config, num_stages=3)
  return config


def vector_split(k: int, block_k: int, most: int) -> int:
  """K ranges for a vector tile: `most`, or the largest power of two that
  leaves each range a K-phase where K is shorter."""
  phases = pl.cdiv(max(k, 1), block_k)
  return min(most, 1 << (phases.bit_length() - 1))


def vector_tile(m: int, n: int, width: int) -> tuple[int, int]:
  """(block_m, block_n) of a vector tile along an (m, n) output's one row
  (m = 1) or column: `width` wide, down to 16 for a narrower output (a
  Triton tile is at least 16 wide unless 1)."""
  width = fit_block(n if m == 1 else m, MIN_DOT_DIM, width)
  return (1, width) if m == 1 else (width, 1)


def vector_tile_config(m: int, n: int, k: int, width: int, block_k: int,
                       num_warps: int, num_stages: int,
                       most_splits: int) -> TileConfig:
  """A vector tile `width` wide along an (m, n) output's one row or column
  (`vector_tile`), over K-phases of block_k and up to `most_splits` K
  ranges (`vector_split`)."""
  return TileConfig(*vector_tile(m, n, width), block_k, num_warps=num_warps,
                    num_stages=num_stages,
                    split_k=vector_split(k, block_k, most_splits))


# A matrix-vector product's b streams fastest in 256-column strips of 8 warps
# where those strips and their K ranges give every SM at least this many
# programs, else in 64-column strips of 2 (an H200, `vector_config`).
_WIDE_VECTOR_WIDTH = 256
_WIDE_VECTOR_PROGRAMS_PER_SM = 2.5


def _fills_sms(config: TileConfig, m: int, n: int,
               num_sms: int | None = None) -> bool:
  """Whether `config`'s programs over an (m, n) output (tiles times K
  ranges) give every SM at least _WIDE_VECTOR_PROGRAMS_PER_SM: where wider
  vector strips than 64 stream b faster (`vector_config`,
  `streams_folded_row_as_vector`)."""
  return config.num_programs(m, n) >= (_WIDE_VECTOR_PROGRAMS_PER_SM
                                       * (num_sms or device.sm_count()))


def vector_config(m: int, n: int, k: int) -> TileConfig:
  """float32 vector tiles (`takes_vector_tiles`), K in up to 8 ranges:
  64-wide strips of the other operand (16 to 64 for a narrower output: a
  Triton tile is at least 16 wide unless 1), 64-deep K-phases, 2 warps, 4
  stages; for one row (M = 1) with enough 256-wide strips to give every SM
  2.5 programs, 256-wide strips of 8 warps over 3 stages. On wild-tune's ten
  float32 M = 1 shapes on an H100, the 64-wide strip was within 5% of the
  fastest of 9 vector configs on the seven that stream over 40 MB. On an
  H200 the 256-wide strip streamed b 4-13% faster where its programs filled
  the SMs 2.9 times or more (1x256000x3584, and in neither split 1x12288x4096
  and 1x16384x4096) and 6-59% slower at 1.9 times or less (every other
  wild-tune shape, and 1x8192x4096 in neither split; BUILD_NOTES.md)."""
  wide = wide_vector_config(m, n, k)
  if m == 1 and _fills_sms(wide, m, n):
    return wide
  return narrow_vector_config(m, n, k)


def narrow_vector_config(m: int, n: int, k: int) -> TileConfig:
  """`vector_config`'s 64-wide strip: 2 warps, 4 stages, K in up to 8
  ranges."""
  return vector_tile_config(m, n, k, 64, 64, num_warps=2, num_stages=4,
                            most_splits=8)


def wide_vector_config(m: int, n: int, k: int,
                       most_splits: int = 8) -> TileConfig:
  """`vector_config`'s 256-wide strip: 8 warps, 3 stages, K in up to
  `most_splits` ranges."""
  return vector_tile_config(m, n, k, _WIDE_VECTOR_WIDTH, 64, num_warps=8,
                            num_stages=3, most_splits=most_splits)


# A 16-bit one-row product whose b rows fold (`folding.py`) streams b faster
# as 128-wide vector strips where K is at least _FOLDED_ROW_MIN_K and each
# folded program's K range (K / fold) at most _FOLDED_ROW_MAX_DEPTH deep: 2.5
# K-phases of 64 (an H200, `streams_folded_row_as_vector`).
_FOLDED_ROW_MIN_K = 512
_FOLDED_ROW_MAX_DEPTH = 160


def is_folded_row(m: int, n: int, dtype) -> bool:
  """Whether a product is a 16-bit one row (M = 1) whose b rows are not
  16-byte multiples, so that the model's decode picks fold them
  (`folding.fold_factor` rows into one): where 128-wide vector strips may
  stream b faster (`streams_folded_row_as_vector`)."""
  return (not validation.is_symbolic(m, n) and m == 1
          and np.dtype(dtype).itemsize == 2
          and folding.fold_factor(n, dtype) > 1)


def streams_folded_row_as_vector(m: int, n: int, k: int, dtype, *,
                                 num_sms: int | None = None) -> bool:
  """Whether a 16-bit one-row product (M = 1) whose b rows are not 16-byte
  multiples (so the model's picks fold them: `folding.fold_factor` rows
  into one) runs as vector tiles (`folded_row_vector_config`) instead:
  K of at least 512 and at most 160 times the fold (1280 for odd N, 640
  for N = 2 mod 4), with those strips and their K ranges giving every SM
  at least 2.5 programs (the float32 wide strips' bound; `vector_config`).
  Folded, each program's K range is K / fold deep, at most 2.5 K-phases
  there, too short to fill the pipeline. On an H200 (shapes in neither
  wild split, BUILD_NOTES.md), bfloat16 with odd N (fold 8): the 128-wide
  strips ran 1.05-1.30x the folded pick's speed at K of 768 to 1280 (N of
  32001 to 128257), 1.32-1.68x at K = 512 (where the pick reads b in
  place), even at 1536 (0.95-1.05x) and 0.84-1.01x from 2048 on; checked
  after on eight LM heads it was not set on, bfloat16 1.13-1.27x and
  float16 0.98-1.25x the folded pick at K of 768 to 1280, and with BERT's
  N = 30522 (fold 4; K / 4 of 192 and 256, past the bound) 0.84-0.96x.
  The model has no coefficients for 16-bit vector tiles (wild-tune holds
  no one-row product of unaligned rows): a rule."""
  if validation.is_symbolic(k) or not is_folded_row(m, n, dtype):
    return False
  fold = folding.fold_factor(n, dtype)
  return (_FOLDED_ROW_MIN_K <= k <= fold * _FOLDED_ROW_MAX_DEPTH
          and _fills_sms(folded_row_vector_config(m, n, k), m, n, num_sms))


def folded_row_vector_config(m: int, n: int, k: int) -> TileConfig:
  """`streams_folded_row_as_vector`'s tile: 128-wide strips of 4 warps over
  4 stages, 64-deep K-phases, K in up to 8 ranges: of the vector tiles
  timed, the fastest (or within 1%) wherever the rule takes it; 256-wide
  strips of 8 warps ran 1-9% slower there, 16 K ranges 2-6%, 128-deep
  K-phases 8-19%."""
  return vector_tile_config(m, n, k, 128, 64, num_warps=4, num_stages=4,
                            most_splits=8)


def default_tiled_config(m: int, n: int, k: int, dtype,
                         precision=None) -> TileConfig:
  """A plain heuristic for the tiled kernel, from measurements on an H200.

  * Large outputs: 128x256 tiles (16-bit) or 128x128 (float32) in groups of
    16 tile rows for L2 reuse.
  * Outputs with fewer of those tiles than half the SMs: 128x64 tiles, so
    that every SM gets work (1024^3 bfloat16 runs 2.1x faster than with
    128x256).
  * Skinny outputs (M <= 64, decode): narrow 64-column tiles with deep
    K-phases; split K when there are too few tiles for the SMs.
  * float32 and float8 stage B K-major (their wgmma needs it; float8
    4096^3 ran 1.27x faster with it), except for skinny outputs: there the
    product only streams B once, and a transpose pass would cost more than
    the product (float32 16x8192x8192 ran 3.3x slower than jnp.matmul with
    it, float8 1.6x slower than without).
  * Rows that are not 16-byte multiples get aligned copies, except in tiny
    products, which copy nothing (`copies_nothing`).
  * K-phases of 128 bytes (32 float32, 64 16-bit, 128 float8 elements).
  * float64 (mma.sync, DMMA): `_float64_config`.
  * float32 matrix-vector products: vector tiles (`vector_config`).
  * K shorter than one K-phase (or, for small products, up to 512 bytes),
    rows unaligned: read in place (`reads_short_k_in_place`).
  See BUILD_NOTES.md for the numbers; the H200 table overrides this.
  """
  if takes_vector_tiles(m, n, dtype):
    return vector_config(m, n, k)
  if np.dtype(dtype) == np.float64:
    return _float64_config(m, n, k)
  if reads_short_k_in_place(m, n, k, dtype, precision):
    return short_k_config(m, n, k, dtype)
  wide = np.dtype(dtype).itemsize == 4
  sm_count = device.sm_count()
  block_k = layouts.swizzle_elements(dtype)  # 128-byte K-phases.
  copies = not copies_nothing(m, n, k, dtype)
  common = dict(k_major_b=copies and _stages_b_k_major(m, dtype),
                align_operands=(copies
                                and layouts.has_unaligned_rows(n, k, dtype)))
  if m <= layouts.SKINNY_DIM:
    block_m = fit_block(m, MIN_DOT_DIM, 64)
    block_n = fit_block(n, MIN_DOT_DIM, 64)
    tiles = pl.cdiv(m, block_m) * pl.cdiv(n, block_n)
    split_k = 1
    while tiles * split_k * 2 <= sm_count and k // (split_k * 2) >= 1024:
      split_k *= 2
    return TileConfig(block_m, block_n,
                      fit_block(k, min_block_k(dtype), 2 * block_k),
                      num_warps=4, num_stages=4, split_k=split_k, **common)
  block_n = 128 if wide else 256
  if pl.cdiv(m, 128) * pl.cdiv(n, block_n) < sm_count // 2:
    return TileConfig(fit_block(m, MIN_DOT_DIM, 128),
                      fit_block(n, MIN_DOT_DIM, 64),
                      fit_block(k, min_block_k(dtype), block_k), num_warps=4,
                      num_stages=4, **common)
  if wide and validation.is_highest(precision):
    return TileConfig(64, 128, 32, num_warps=4, num_stages=4, group_m=16,
                      **common)
  return TileConfig(128, block_n, fit_block(k, min_block_k(dtype), block_k),
                    num_warps=4 if wide else 8, num_stages=4 if wide else 3,
                    group_m=16, **common)

