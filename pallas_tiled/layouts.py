"""Row alignment and swizzle widths: the memory layouts both kernels' loads
and Hopper's matrix units need, in elements of a dtype; and which outputs
are skinny, one tile row or column across."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# The widest shared-memory swizzle: both kernels' default K-phases and
# Mosaic's epilogue pieces are rows of this many bytes.
SWIZZLE_BYTES = 128
# M or N at most this: a decode or skinny product. Its output is one tile
# row (or column) across, so it streams the other operand once: its own
# candidate tiles, cost-model coefficients and cold-operand timing.
SKINNY_DIM = 64


def rows_alignment(dtype, alignment_bytes: int = 16) -> int:
  """Elements per `alignment_bytes`: rows whose length is not a multiple of
  16 bytes' worth cannot be loaded with wide, aligned accesses."""
  return alignment_bytes // np.dtype(dtype).itemsize


class RowPads(NamedTuple):
  """Zeros appended to the two trailing axes of each operand, and to K."""
  a: tuple[int, int]
  b: tuple[int, int]
  k: int


def row_pads(m: int, n: int, k: int, dtype, *, transpose_a: bool = False,
             transpose_b: bool = False) -> RowPads:
  """The pads that make every operand row a 16-byte multiple, as Triton's
  aligned operands take them (and the cost model prices them).

  Rows run along the last axis: K for a (M, K) and for b (N, K), M for a
  stored (K, M), N for b (K, N). Padding K pads it in both operands, so that
  they agree; padded M and N are never stored (the masks keep the true
  sizes).
  """
  to_step = lambda size: -size % rows_alignment(dtype)
  pad_k = to_step(k) if not transpose_a or transpose_b else 0
  return RowPads(a=(pad_k, to_step(m)) if transpose_a else (0, pad_k),
                 b=(0, pad_k) if transpose_b else (pad_k, to_step(n)),
                 k=pad_k)


def swizzle_elements(dtype) -> int:
  """Elements in one SWIZZLE_BYTES row: 32 float32, 64 16-bit, 128 float8."""
  return rows_alignment(dtype, SWIZZLE_BYTES)


# float8 products get Mosaic's candidates from this K, over K-tiles narrowed
# to K (`k_tile_elements`; `cost_model._mosaic_offered`), and Triton's
# in-place small-K tile below one K-phase (`heuristics.reads_short_k_in_place`).
MOSAIC_MIN_FLOAT8_K = 64


def k_tile_elements(k: int, dtype) -> int:
  """The Mosaic kernel's K-tile for a product of depth `k`: SWIZZLE_BYTES of
  `dtype`, or where K is shorter the widest power-of-two width it holds, down
  to 32 bytes (wgmma's narrowest swizzle): a box wider than K would be
  zero-padded by a copy of both operands (float8 K = 64: 64-element, 64-byte
  K-tiles)."""
  width, itemsize = swizzle_elements(dtype), np.dtype(dtype).itemsize
  while width > k and width * itemsize > 32:
    width //= 2
  return width


def long_k_tile_elements(k: int, dtype) -> int:
  """A 256-byte K-tile (two swizzle widths: half the barrier round trips per
  FLOP) where K holds one, else `k_tile_elements`: a K-tile wider than K
  would pad both operands to it with a copy."""
  long_k = 2 * swizzle_elements(dtype)
  return long_k if k >= long_k else k_tile_elements(k, dtype)


def fits_one_k_phase(k: int, dtype) -> bool:
  """Whether all of K fits one SWIZZLE_BYTES K-phase (a LoRA rank, a tiny
  K): each program then loads its strips once (`short_k_configs`)."""
  return k <= swizzle_elements(dtype)


def has_unaligned_rows(n: int, k: int, dtype,
                       alignment_bytes: int = 16) -> bool:
  """Whether a row of `a` (K long) or of `b` (N long) is not a multiple of
  `alignment_bytes`."""
  step = rows_alignment(dtype, alignment_bytes)
  return bool(k % step or n % step)


def wgmma_needs_k_major(dtype) -> bool:
  """Whether Hopper's wgmma needs both operands K-major for `dtype`: TF32,
  float8 and int8 do; 16-bit operands may be stored either way, and
  float64 has no wgmma (Triton's fp64 dot is mma.sync, either layout)."""
  return np.dtype(dtype).itemsize in (1, 4)


def is_skinny(m: int, n: int) -> bool:
  """Whether an (m, n) output is a decode or skinny one (`SKINNY_DIM`)."""
  return min(m, n) <= SKINNY_DIM
