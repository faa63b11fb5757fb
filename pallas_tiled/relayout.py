"""The copies around both kernels, as masked Pallas copies.

Mosaic GPU's TMA needs layouts that a caller's arrays may not have: operand
rows that are whole swizzle widths, TF32 operands K-major, outputs with
16-byte rows; Triton configs may ask for a K-major b or aligned rows too.
`relayout` makes each such copy one pass: an operand is zero-padded (and,
for a K-major B, transposed) in one kernel, a padded result cut to shape in
another; `relayout_all` puts both operands' copies in one launch. Against
XLA in the suites on an H200 (BUILD_NOTES.md, issue 5, step 20): float32 B
transposed and padded, 4097^2: 43 us vs 89 (XLA transposes, then pads); a
4104x4160 result cut to 4097^2: 22 us vs 80 (XLA's slice writes odd rows at
0.8 TB/s). Where XLA's copy was the faster one, `relayout` uses it. The
kernel runs on Pallas' Triton lowering, chosen explicitly: Mosaic GPU has no
masked loads or stores.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton
import jax.numpy as jnp

from pallas_tiled import layouts
from pallas_tiled import vma
from pallas_tiled.mosaic import tf32x3
from pallas_tiled.triton import masking

# (rows, bytes per row) of one program's block, and its warps; measured on
# an H200 over the suites' operand and result shapes (BUILD_NOTES.md).
_PAD_BLOCK, _PAD_WARPS = (8, 2048), 4
_CUT_BLOCK, _CUT_WARPS = (16, 1024), 4
# A transposing copy moves tiles through registers: 64x64 over 8 warps, and
# for 1-byte dtypes 64x128 over 4 (an H200, float8 B of rows not 16-byte
# multiples: 128x50001 in 4.0 us against 9.4, 1024x12289 8.1 against 16.9;
# aligned 1024x12288 6.1 against 7.5; BUILD_NOTES.md, thirtieth session).
_TRANSPOSE_BLOCK, _TRANSPOSE_WARPS = (64, 64), 8
_BYTE_TRANSPOSE_BLOCK, _BYTE_TRANSPOSE_WARPS = (64, 128), 4
# Plain float32 transposes before the suites' matmuls: XLA's took 2.15 and
# 8.9 us at 1024^2 and 2048^2 (ours 2.3, 9.4); ours 32.8 and 114.5 us at
# 4096^2 and 4096x14336 (XLA's 33.6, 121.8). Not transposes that round to
# TF32: XLA splits those into three fusions (an H100, 768^2: 10.2 us, 5x its
# plain transpose; BUILD_NOTES.md, fourteenth session).
_XLA_TRANSPOSE_BELOW = 1 << 23
# Pads of rows that are not 16-byte multiples, which Triton loads element by
# element: alone, XLA's pad was faster (1023x8191 bfloat16: 11.5 us vs 13.0);
# sharing a launch with the other operand's copy, ours (2047x8191x1023:
# 13.7 us for both, XLA's two 15.3; 3000x5000x700: 6.7 vs 9.1), except on
# the largest arrays (4097^2: XLA 21.5 us, ours 22.1).
_XLA_UNALIGNED_PAD_FROM = 1 << 24


def _mask(i, j, block, size, span):
  """In-range positions of block (i, j) of an array of `size`, whose blocks
  span `span` (None where every position is in range)."""
  edge = lambda index, b, n, covered: (
      None if n == covered else index * b + jnp.arange(b) < n)
  return masking.tile_mask(edge(i, block[0], size[0], span[0]),
                           edge(j, block[1], size[1], span[1]))


class _Job(NamedTuple):
  """One array's copy in a launch: its programs are [start, start + size)."""

  start: int
  grid: tuple[int, int, int]  # (batch, row blocks, column blocks) of x.
  block: tuple[int, int]  # In x's axes.
  src: tuple[int, int]
  dst: tuple[int, int]
  span: tuple[int, int]  # What the blocks cover of x's axes.
  transpose: bool
  tf32: bool  # Rounds each element to TF32.

  @property
  def size(self) -> int:
    return self.grid[0] * self.grid[1] * self.grid[2]

  def block_index(self, p):
    """(batch, row block, column block) of x for launch program p."""
    q = jnp.clip(p - self.start, 0, self.size - 1)
    _, rows, cols = self.grid
    return q // (rows * cols), q // cols % rows, q % cols


def _kernel(*refs, jobs):
  """Each program copies one block of one job's x (zero past `src`), or its
  transpose, into that job's output (clipped to `dst`). refs: every job's
  x, then every job's output."""
  p = pl.program_id(0)
  for job, x_ref, o_ref in zip(jobs, refs[:len(jobs)], refs[len(jobs):]):

    @pl.when((p >= job.start) & (p < job.start + job.size))
    def _copy(job=job, x_ref=x_ref, o_ref=o_ref):
      _, i, j = job.block_index(p)
      block, span = job.block, job.span
      value = masking.load(x_ref, _mask(i, j, block, job.src, span))
      if job.tf32:
        value = tf32x3.round_to_tf32(value)
      if job.transpose:
        value, i, j, block, span = value.T, j, i, block[::-1], span[::-1]
      masking.store(o_ref, value, _mask(i, j, block, job.dst, span))


def _block(itemsize: int, transpose: bool, shrinks: bool):
  if transpose:
    return ((_BYTE_TRANSPOSE_BLOCK, _BYTE_TRANSPOSE_WARPS) if itemsize == 1
            else (_TRANSPOSE_BLOCK, _TRANSPOSE_WARPS))
  (rows, row_bytes), warps = ((_CUT_BLOCK, _CUT_WARPS) if shrinks
                              else (_PAD_BLOCK, _PAD_WARPS))
  return (rows, row_bytes // itemsize), warps


def relayout(x, *, shape: tuple[int, int], transpose: bool = False,
             tf32: bool = False, interpret: bool = False):
  """x, or x with its last two axes swapped, zero-padded or cut to `shape`,
  and with `tf32` its elements rounded to TF32 (`tf32x3.round_to_tf32`).

  x: (batch, R, C). Returns (batch, *shape): element [g, r, c] is
  y[g, r, c] where y = x (or swapaxes(x, 1, 2)) has it, else 0.
  """
  return relayout_all([x], shapes=[shape], transposes=[transpose],
                      tf32s=[tf32], interpret=interpret)[0]


def relayout_all(xs, *, shapes, transposes, tf32s=None,
                 interpret: bool = False) -> list:
  """`relayout` of each x, with every Pallas copy among them in one launch
  (an H200 pads bfloat16 A and B for a 1000^3 product in 1.9 us together,
  2.8 us apart: BUILD_NOTES.md, issue 5, step 27).

  Two kinds of copy are XLA's, which was faster at them: a plain transpose
  of fewer than `_XLA_TRANSPOSE_BELOW` elements that does not round to
  TF32, and a plain pad of rows that are not 16-byte multiples (which
  Triton loads element by element) where it would be the launch's only copy
  or has `_XLA_UNALIGNED_PAD_FROM` elements or more.
  So are all copies compiled on a machine without a GPU (lowering for CUDA
  from a CPU, e.g. jax.export): jax 0.11 lowers Triton kernels only with a
  GPU present. An x already of its shape is returned as it is, unrounded:
  `tf32s` (default all False) rounds only the copies the layout needs.
  """
  tf32s = [bool(t) for t in tf32s] if tf32s else [False] * len(xs)
  out, pallas, unaligned_pads = list(xs), [], []
  for index, (x, shape, transpose, tf32) in enumerate(
      zip(xs, shapes, transposes, tf32s)):
    shape = tuple(shape)
    _, rows, cols = x.shape
    if not transpose and shape == (rows, cols):
      continue
    plain_transpose = transpose and shape == (cols, rows)
    plain_pad = not transpose and shape[0] >= rows and shape[1] >= cols
    # Padding bfloat16 operands in the suites: rows of 16-byte multiples,
    # ours was faster (1000x1000: 1.4 us vs 2.3; 700x5000: 5.3 vs 6.0).
    unaligned_rows = cols % layouts.rows_alignment(x.dtype)
    if ((plain_transpose and not tf32 and x.size < _XLA_TRANSPOSE_BELOW)
        or (plain_pad and unaligned_rows and x.size >= _XLA_UNALIGNED_PAD_FROM)
        or (not interpret and jax.default_backend() != "gpu")):
      out[index] = _xla_relayout(x, shape, transpose, tf32)
    else:
      pallas.append(index)
      if plain_pad and unaligned_rows:
        unaligned_pads.append(index)
  if len(pallas) == 1 and pallas == unaligned_pads:  # Alone: XLA's.
    out[pallas[0]] = _xla_relayout(xs[pallas[0]], tuple(shapes[pallas[0]]),
                                   False, tf32s[pallas[0]])
    pallas = []
  if pallas:
    copied = copy_all([xs[i] for i in pallas],
                      shapes=tuple(tuple(shapes[i]) for i in pallas),
                      transposes=tuple(bool(transposes[i]) for i in pallas),
                      tf32s=tuple(tf32s[i] for i in pallas),
                      interpret=interpret)
    for index, y in zip(pallas, copied):
      out[index] = y
  return out


def _xla_relayout(x, shape, transpose, tf32):
  """`relayout` in XLA ops."""
  if tf32:
    x = tf32x3.round_to_tf32(x)
  if transpose:
    x = jnp.swapaxes(x, 1, 2)
  x = x[:, :shape[0], :shape[1]]
  return jnp.pad(x, [(0, 0), (0, shape[0] - x.shape[1]),
                     (0, shape[1] - x.shape[2])])


@functools.partial(jax.jit, static_argnames=("shapes", "transposes", "tf32s",
                                             "interpret"))
def copy_all(xs, *, shapes: tuple[tuple[int, int], ...],
             transposes: tuple[bool, ...],
             tf32s: tuple[bool, ...] | None = None, interpret: bool = False):
  """`relayout` of each x as masked Pallas copies, all in one launch: a
  1-D grid whose programs are each array's blocks in turn."""
  tf32s = tf32s or (False,) * len(xs)
  jobs, warps, start = [], 1, 0
  for x, shape, transpose, tf32 in zip(xs, shapes, transposes, tf32s):
    batch, *src = x.shape
    out = tuple(shape[::-1]) if transpose else tuple(shape)  # In x's axes.
    shrinks = out[0] <= src[0] and out[1] <= src[1]
    block, job_warps = _block(x.dtype.itemsize, transpose, shrinks)
    warps = max(warps, job_warps)
    # Programs cover the larger of source and destination along each axis.
    grid = (batch, *(pl.cdiv(max(s, d), b) for s, d, b in zip(src, out, block)))
    span = tuple(n * b for n, b in zip(grid[1:], block))
    job = _Job(start, grid, block, tuple(src), tuple(shape), span, transpose,
               tf32)
    jobs.append(job)
    start += job.size

  def in_spec(job):
    return pl.BlockSpec((None, *job.block), job.block_index)

  def out_spec(job):
    if not job.transpose:
      return in_spec(job)

    def index(p):
      g, i, j = job.block_index(p)
      return g, j, i

    return pl.BlockSpec((None, *job.block[::-1]), index)

  return pl.pallas_call(
      functools.partial(_kernel, jobs=tuple(jobs)),
      out_shape=[vma.out_struct((x.shape[0], *shape), x.dtype, *xs)
                 for x, shape in zip(xs, shapes)],
      grid=(start,),
      in_specs=[in_spec(job) for job in jobs],
      out_specs=[out_spec(job) for job in jobs],
      compiler_params=pltriton.CompilerParams(num_warps=warps, num_stages=1),
      interpret=interpret,
      name="pallas_tiled_relayout",
  )(*xs)
