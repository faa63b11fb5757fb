"""The copies around the Mosaic GPU kernel, as masked Pallas copies.

Mosaic GPU's TMA needs layouts that a caller's arrays may not have: operand
rows that are whole swizzle widths, TF32 operands K-major, outputs with
16-byte rows. `relayout` makes each such copy one pass: an operand is
zero-padded (and, for TF32's B, transposed) in one kernel, a padded result
cut to shape in another. Against XLA in the suites on an H200
(BUILD_NOTES.md, issue 5, step 20): float32 B transposed and padded,
4097^2: 43 us vs 89 (XLA transposes, then pads); a 4104x4160 result cut to
4097^2: 22 us vs 80 (XLA's slice writes odd rows at 0.8 TB/s). Where XLA's
copy was the faster one, `relayout` uses it. The kernel runs on Pallas'
Triton lowering, chosen explicitly: Mosaic GPU has no masked loads or
stores.
"""

from __future__ import annotations

import functools

import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton
import jax.numpy as jnp

from pallas_tiled import config as config_lib
from pallas_tiled import masking

# (rows, bytes per row) of one program's block, and its warps; measured on
# an H200 over the suites' operand and result shapes (BUILD_NOTES.md).
_PAD_BLOCK, _PAD_WARPS = (8, 2048), 4
_CUT_BLOCK, _CUT_WARPS = (16, 1024), 4
# A transposing copy moves square tiles through registers.
_TRANSPOSE_BLOCK, _TRANSPOSE_WARPS = (64, 64), 8
# Plain float32 transposes before the suites' matmuls: XLA's took 2.15 and
# 8.9 us at 1024^2 and 2048^2 (ours 2.3, 9.4); ours 32.8 and 114.5 us at
# 4096^2 and 4096x14336 (XLA's 33.6, 121.8).
_XLA_TRANSPOSE_BELOW = 1 << 23


def _mask(i, j, block, size, span):
  """In-range positions of block (i, j) of an array of `size`, whose blocks
  span `span` (None where every position is in range)."""
  edge = lambda index, b, n, covered: (
      None if n == covered else index * b + jnp.arange(b) < n)
  return masking.tile_mask(edge(i, block[0], size[0], span[0]),
                           edge(j, block[1], size[1], span[1]))


def _kernel(x_ref, o_ref, *, src, dst, span, transpose):
  """One block of x (zero past `src`), or its transpose, into o (clipped to
  `dst`). The grid's blocks span `span` of x's axes."""
  i, j = pl.program_id(1), pl.program_id(2)
  block = x_ref.shape
  value = masking.load(x_ref, _mask(i, j, block, src, span))
  if transpose:
    value, i, j, block, span = value.T, j, i, block[::-1], span[::-1]
  masking.store(o_ref, value, _mask(i, j, block, dst, span))


def _block(itemsize: int, transpose: bool, shrinks: bool):
  if transpose:
    return _TRANSPOSE_BLOCK, _TRANSPOSE_WARPS
  (rows, row_bytes), warps = ((_CUT_BLOCK, _CUT_WARPS) if shrinks
                              else (_PAD_BLOCK, _PAD_WARPS))
  return (rows, row_bytes // itemsize), warps


def relayout(x, *, shape: tuple[int, int], transpose: bool = False,
             interpret: bool = False):
  """x, or x with its last two axes swapped, zero-padded or cut to `shape`.

  x: (batch, R, C). Returns (batch, *shape): element [g, r, c] is
  y[g, r, c] where y = x (or swapaxes(x, 1, 2)) has it, else 0. Two
  copies are XLA's, which was faster at them: a plain transpose of fewer
  than `_XLA_TRANSPOSE_BELOW` elements, and a plain pad of rows that are not
  16-byte multiples (which Triton loads element by element). So are all
  copies compiled on a machine without a GPU (lowering for CUDA from a CPU,
  e.g. jax.export): jax 0.11 lowers Triton kernels only with a GPU present.
  Every other copy is `copy`'s, and x already of `shape` is returned as it
  is.
  """
  _, rows, cols = x.shape
  if not transpose and tuple(shape) == (rows, cols):
    return x
  plain_transpose = transpose and tuple(shape) == (cols, rows)
  plain_pad = not transpose and shape[0] >= rows and shape[1] >= cols
  # Padding bfloat16 operands in the suites: rows of 16-byte multiples, ours
  # was faster (1000x1000: 1.4 us vs 2.3; 700x5000: 5.3 vs 6.0); other
  # rows, XLA's (4097^2: 21.6 vs 24.3; 1023x8191: 11.5 vs 13.0; but
  # 3000x700: 4.1 vs 3.4).
  unaligned_rows = cols % config_lib.rows_alignment(x.dtype)
  if ((plain_transpose and x.size < _XLA_TRANSPOSE_BELOW)
      or (plain_pad and unaligned_rows)
      or (not interpret and jax.default_backend() != "gpu")):
    return _xla_relayout(x, tuple(shape), transpose)
  return copy(x, shape=tuple(shape), transpose=transpose, interpret=interpret)


def _xla_relayout(x, shape, transpose):
  """`relayout` in XLA ops."""
  if transpose:
    x = jnp.swapaxes(x, 1, 2)
  x = x[:, :shape[0], :shape[1]]
  return jnp.pad(x, [(0, 0), (0, shape[0] - x.shape[1]),
                     (0, shape[1] - x.shape[2])])


@functools.partial(jax.jit, static_argnames=("shape", "transpose",
                                             "interpret"))
def copy(x, *, shape: tuple[int, int], transpose: bool = False,
         interpret: bool = False):
  """`relayout` as one masked Pallas copy, whatever the shapes."""
  batch, *src = x.shape
  out = tuple(shape[::-1]) if transpose else tuple(shape)  # In x's axes.
  shrinks = out[0] <= src[0] and out[1] <= src[1]
  block, warps = _block(x.dtype.itemsize, transpose, shrinks)
  # Programs cover the larger of source and destination along each axis.
  grid = (batch, *(pl.cdiv(max(s, d), b) for s, d, b in zip(src, out, block)))
  span = tuple(n * b for n, b in zip(grid[1:], block))
  out_block = block[::-1] if transpose else block
  out_index = ((lambda g, i, j: (g, j, i)) if transpose
               else (lambda g, i, j: (g, i, j)))
  return pl.pallas_call(
      functools.partial(_kernel, src=tuple(src), dst=tuple(shape),
                        span=span, transpose=transpose),
      out_shape=jax.ShapeDtypeStruct((batch, *shape), x.dtype),
      grid=grid,
      in_specs=[pl.BlockSpec((None, *block), lambda g, i, j: (g, i, j))],
      out_specs=pl.BlockSpec((None, *out_block), out_index),
      compiler_params=pltriton.CompilerParams(num_warps=warps, num_stages=1),
      interpret=interpret,
      name="pallas_tiled_relayout",
  )(x)
