"""The tiled matmul: output tiles to grid programs, K-phases, an accumulator.

This is the shared-memory tiling of the seed documents, written in Pallas and
lowered through Triton (chosen explicitly with `pltriton.CompilerParams`; on
jax 0.11 Mosaic GPU is the default GPU lowering, so it must be asked for).

* Grid: one program per (block_m x block_n) output tile, per batch element
  and per K range with split_k, in row-major or grouped order (`group_m`)
  for L2 reuse.
* BlockSpecs hand each program its row strip of `a` (block_m x K), its column
  strip of `b` (K x block_n) and its output tile. Operands stored transposed
  (the backward pass's dA = dC·Bᵀ and dB = Aᵀ·dC, or B staged K-major) are
  read as they lie: K x block_m strips of a, block_n x K strips of b.
* K-phases: the program walks its strips block_k at a time. Each phase loads
  one (block_m x block_k) tile of `a` and one (block_k x block_n) tile of `b`
  (Triton stages them through shared memory, `num_stages` phases in flight)
  and adds their product into the accumulator (float32; int32 for int8,
  float64 for float64: dtypes.py), cast once on store.
* Vector tiles: a one-row (block_m = 1) or one-column (block_n = 1) tile
  has no dot to fill (tl.dot wants 16 rows): each phase multiplies the
  vector into the other operand's tile elementwise, and sums along K once
  at the end (strips wider than 64: each phase, into one running sum per
  output element), exactly in the accumulator's dtype (IEEE float32 for
  float32 at any precision, as XLA's matrix-vector products are).
* Folded rows (`fold_b`, `folding.py`): a decode product whose b rows are
  not 16-byte multiples runs over b viewed with several rows per aligned
  row and a's columns regrouped alike; each output column keeps only its
  own group's rows of the tile (`_diagonal_blocks`), or, where the groups'
  rows pass one tile, its own group's window of a (two per tile); the
  kept partial sums are added up after.
* Boundaries: any M, N and K. Out-of-range rows, columns and the partial last
  K-phase are zero-filled by masked loads, so they add nothing; edge output
  tiles are stored with a mask. Operands are copied (transposed, or padded to
  16-byte rows; both in one launch, `relayout.py`) only where the config
  asks for it; the output never is.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton
import jax.numpy as jnp

from pallas_tiled import cost_model
from pallas_tiled import dtypes
from pallas_tiled import kernel as kernel_lib
from pallas_tiled import layouts
from pallas_tiled import relayout
from pallas_tiled import validation
from pallas_tiled import vma
from pallas_tiled.triton import folding
from pallas_tiled.triton import heuristics
from pallas_tiled.triton import masking
from pallas_tiled.tuning import cache as tuning_cache


def _grouped_tile(pid, *, num_m, num_n, group_m):
  """Output tile (i, j) of the pid-th program in grouped order.

  Programs take `group_m` rows of tiles at a time and walk them column by
  column, so programs that run together share strips of `a` and `b` in L2.
  """
  tiles_per_group = group_m * num_n
  group, rank = pid // tiles_per_group, pid % tiles_per_group
  first_m = group * group_m
  rows = jnp.minimum(num_m - first_m, group_m)
  return first_m + rank % rows, rank // rows


def _grid_and_tiles(batch, num_m, num_n, split_k, group_m):
  """The launch grid (tiles, tiles, batch x K ranges) and its map to (i, j).

  group_m=1 is a plain 2-D grid of tiles; otherwise the tiles form one grid
  axis, remapped into grouped order. The GPU launches the first axis
  fastest, so each batch element's tiles run together and share L2.
  """
  if group_m == 1:
    return (num_m, num_n, batch * split_k), lambda p0, p1: (p0, p1)
  grouped = functools.partial(_grouped_tile, num_m=num_m, num_n=num_n,
                              group_m=group_m)
  return (num_m * num_n, 1, batch * split_k), lambda p0, p1: grouped(p0)


# Vector tiles wider than this sum each K-phase (`_vector_sums`).
_SUMMED_EACH_PHASE_ABOVE = 64


def _vector_sums(block_m, block_n, block_k, *, transpose_a, transpose_b):
  """(shape, K axis) of a vector tile's running sums, laid as the other
  operand's K-phase tile (b's where block_m = 1, else a's): a whole tile of
  them, summed along K once after the last phase, or, for strips wider
  than 64, one per output element, each phase summed into it. On an H200
  (BUILD_NOTES.md) summing each phase let float32 strips of 128-256 stream
  b of 180 MB or more 7-50% faster (float8's 128-wide 7%), and cost
  64-wide strips over few programs up to 16%."""
  summed = max(block_m, block_n) > _SUMMED_EACH_PHASE_ABOVE
  depth = 1 if summed else block_k
  if block_m == 1:
    return ((block_n, depth), 1) if transpose_b else ((depth, block_n), 0)
  return ((depth, block_m), 0) if transpose_a else ((block_m, depth), 1)


def _vector_products(a, b, acc, *, a_is_vector, k_axis):
  """One K-phase of a vector tile, without a dot: the vector (a's row, or
  b's column) laid along the other tile's K axis, times that tile, added
  into the running sums `acc` (summed along K first where they are one per
  output element)."""
  vector, tile = (a, b) if a_is_vector else (b, a)
  shape = [1, 1]
  shape[k_axis] = vector.size
  products = vector.reshape(shape).astype(acc.dtype) * tile.astype(acc.dtype)
  if acc.shape[k_axis] == 1:
    products = products.sum(axis=k_axis, keepdims=True)
  return acc + products


def _diagonal_blocks(acc, group, *, rows: int):
  """A folded product's tile (`folding.py`) to the partial sums it keeps:
  column c (of fold group group[c]) keeps acc's rows group[c] * rows + i,
  as its row i (rows past `rows` are zeros, not stored)."""
  row = jnp.arange(acc.shape[0])[:, None]
  kept = jnp.zeros_like(acc)
  for i in range(rows):
    diagonal = jnp.where(row == group * rows + i, acc, 0).sum(axis=0)
    kept = jnp.where(row == i, diagonal[None, :], kept)
  return kept


def _fold_groups(col0, block_n, *, n: int, fold: int):
  """The fold groups of a folded product's column tile from `col0` (b's
  rows of group g are its columns g * n to g * n + n - 1): each column's,
  and the first two (a tile no wider than n spans at most two)."""
  group = ((col0 + jnp.arange(block_n)) // n)[None, :]
  first = col0 // n
  return group, (first, jnp.minimum(first + 1, fold - 1))


def _kernel(a_ref, b_ref, o_ref, *, m, n, k, block_m, block_n, block_k,
            k_strip, split_k, tile_indices, transpose_a, transpose_b,
            precision, upcast, fold, fold_rows, windowed):
  acc_dtype = dtypes.accumulator_dtype(a_ref.dtype)
  vector = block_m == 1 or block_n == 1
  sums_shape, k_axis = _vector_sums(block_m, block_n, block_k,
                                    transpose_a=transpose_a,
                                    transpose_b=transpose_b)
  i, j = tile_indices(pl.program_id(0), pl.program_id(1))
  row_mask = masking.edge_mask(i, block_m, m)
  col_mask = masking.edge_mask(j, block_n, n)
  # This program's strips hold its K range, a whole number of phases; only
  # the range holding K's end may stop early, in a partial last phase.
  k_len = k
  if split_k > 1:
    k_range = pl.program_id(2) % split_k
    k_len = jnp.clip(k - k_range * k_strip, 0, k_strip)

  if fold > 1:
    group, windows = _fold_groups(j * block_n, block_n, n=n // fold,
                                  fold=fold)
  contract = ((0,) if transpose_a else (1,), (1,) if transpose_b else (0,))
  dot = lambda a, b, acc: acc + lax.dot_general(
      a, b, (contract, ((), ())), precision=precision,
      preferred_element_type=acc.dtype)

  def phase(start, acc, k_mask=None):
    ks = pl.ds(start, block_k)
    # Operands stored transposed are read as they lie, (K, block_m) tiles of
    # a or (block_n, K) tiles of b (K-major: what TF32 wgmma wants), and the
    # dot contracts their K axis.
    if transpose_b:
      b = masking.load(b_ref.at[:, ks], masking.tile_mask(col_mask, k_mask))
    else:
      b = masking.load(b_ref.at[ks, :], masking.tile_mask(k_mask, col_mask))
    if windowed:  # The tile's two fold groups, a window of a each.
      return tuple(
          dot(masking.load(a_ref.at[pl.ds(g * block_m, block_m), ks],
                           masking.tile_mask(None, k_mask)), b, acc_g)
          for g, acc_g in zip(windows, acc))
    if transpose_a:
      a = masking.load(a_ref.at[ks, :], masking.tile_mask(k_mask, row_mask))
    else:
      a = masking.load(a_ref.at[:, ks], masking.tile_mask(row_mask, k_mask))
    if upcast:  # Exact: float8 to float16, whose dot takes b as stored.
      a, b = a.astype(jnp.float16), b.astype(jnp.float16)
    if vector:
      return _vector_products(a, b, acc, a_is_vector=block_m == 1,
                              k_axis=k_axis)
    return dot(a, b, acc)

  acc = jnp.zeros(sums_shape if vector else (block_m, block_n), acc_dtype)
  if windowed:
    acc = (acc, acc)
  full_phases = k_len // block_k
  acc = lax.fori_loop(
      0, full_phases, lambda p, acc: phase(p * block_k, acc), acc)
  if k % block_k:  # The partial last K-phase: zero-fill past K.
    start = full_phases * block_k
    acc = phase(start, acc, k_mask=start + jnp.arange(block_k) < k_len)
  if vector:
    acc = acc.sum(axis=k_axis).reshape(block_m, block_n)
  if windowed:  # Each column's own group's window.
    acc = jnp.where(group == windows[0], *acc)
  elif fold > 1:  # Each column's own block of rows (folding.py).
    acc = _diagonal_blocks(acc, group, rows=fold_rows)
  if fold > 1:
    row_mask = masking.edge_mask(0, block_m, fold_rows)

  masking.store(o_ref, dtypes.cast_result(acc, o_ref.dtype),
                masking.tile_mask(row_mask, col_mask))


def _staged(a, b, problem, *, k_major_b, align, interpret):
  """The operands as the config stages them, in one copy launch where any
  (`relayout.relayout_all`, as Mosaic's): b transposed K-major where
  `k_major_b`, each operand's rows zero-padded to 16-byte multiples
  (`layouts.row_pads`) where `align`. Returns them and the padded K."""
  p = problem
  pads = (layouts.row_pads(p.m, p.n, p.k, a.dtype, transpose_a=p.transpose_a,
                           transpose_b=p.transpose_b) if align
          else layouts.RowPads(a=(0, 0), b=(0, 0), k=0))

  def staged_shape(x, widths, transpose):  # (rows, columns) once copied.
    rows, cols = x.shape[:0:-1] if transpose else x.shape[1:]
    return rows + widths[0], cols + widths[1]

  a, b = relayout.relayout_all(
      [a, b], shapes=[staged_shape(a, pads.a, False),
                      staged_shape(b, pads.b, k_major_b)],
      transposes=[False, k_major_b], interpret=interpret)
  return a, b, p.k + pads.k


def _kernel_precision(precision, dtype, interpret):
  """HIGHEST float32 runs as three-pass TF32 on the GPU: on an H200 (4096^3)
  that was 1.26x faster than IEEE float32 dots and 4.6x more accurate
  (BUILD_NOTES.md). The CPU interpreter has no TF32, so it keeps HIGHEST.
  float8 and int8 products are exact in their accumulators and float64's
  are IEEE float64 (as in XLA, which ignores precision for it); Triton's
  dot takes no precision for them."""
  if jnp.dtype(dtype).itemsize not in (2, 4):
    return None
  if (not interpret and jnp.dtype(dtype) == jnp.float32
      and validation.is_highest(precision)):
    return lax.DotAlgorithmPreset.TF32_TF32_F32_X3
  return precision


def _block_specs(p, c, tile_indices, k_strip, out_dtype, acc_dtype, *,
                 a_rows, kept_rows):
  """Each program's blocks: its row strip of `a`, its column strip of `b`
  (both k_strip deep: all of K, or its K range with split_k), and its output
  tile; and the output's shape (partial sums in `acc_dtype`, one slab per K
  range, with split_k; a folded product's `kept_rows` rows of partial sums,
  `folding.py`). a's strips are `a_rows` rows: block_m, or a folded a's
  whole one, whose windows the kernel reads."""
  # Grid point (p0, p1, pz) -> batch element g, tile (i, j), K range s.
  tile_i = lambda p0, p1: tile_indices(p0, p1)[0]
  tile_j = lambda p0, p1: tile_indices(p0, p1)[1]
  g_of = lambda pz: pz // c.split_k
  s_of = lambda pz: pz % c.split_k
  if p.transpose_a:
    a_spec = pl.BlockSpec((None, k_strip, c.block_m),
                          lambda p0, p1, pz: (p.a_index(g_of(pz)), s_of(pz),
                                              tile_i(p0, p1)))
  else:
    a_spec = pl.BlockSpec((None, a_rows, k_strip),
                          lambda p0, p1, pz: (p.a_index(g_of(pz)),
                                              tile_i(p0, p1), s_of(pz)))
  if p.transpose_b:
    b_spec = pl.BlockSpec((None, c.block_n, k_strip),
                          lambda p0, p1, pz: (p.b_index(g_of(pz)),
                                              tile_j(p0, p1), s_of(pz)))
  else:
    b_spec = pl.BlockSpec((None, k_strip, c.block_n),
                          lambda p0, p1, pz: (p.b_index(g_of(pz)), s_of(pz),
                                              tile_j(p0, p1)))
  if kept_rows:  # One tile row of them (folding.folds).
    out_shape = jax.ShapeDtypeStruct((c.split_k, p.size, kept_rows, p.n),
                                     acc_dtype)
    out_spec = pl.BlockSpec(
        (None, None, c.block_m, c.block_n),
        lambda p0, p1, pz: (s_of(pz), g_of(pz), 0, tile_j(p0, p1)))
  elif c.split_k == 1:
    out_shape = jax.ShapeDtypeStruct((p.size, p.m, p.n), out_dtype)
    out_spec = pl.BlockSpec((None, c.block_m, c.block_n),
                            lambda p0, p1, pz: (pz, *tile_indices(p0, p1)))
  else:
    out_shape = jax.ShapeDtypeStruct((c.split_k, p.size, p.m, p.n),
                                     acc_dtype)
    out_spec = pl.BlockSpec((None, None, c.block_m, c.block_n),
                            lambda p0, p1, pz: (s_of(pz), g_of(pz),
                                                *tile_indices(p0, p1)))
  return [a_spec, b_spec], out_spec, out_shape


@kernel_lib.jit_product
def batched_product(a, b, *, problem, config, precision, out_dtype,
                    interpret):
  """The kernel on flattened operands: (problem.size, M, N) from a and b.

  a is (a batches, M, K), or (a batches, K, M) with problem.transpose_a; b is
  (b batches, K, N), or (b batches, N, K) with problem.transpose_b.
  """
  c, p = config, problem
  precision = _kernel_precision(precision, a.dtype, interpret)
  k_major_b = c.k_major_b and not p.transpose_b  # b copied K-major.
  p = dataclasses.replace(p, transpose_b=p.transpose_b or k_major_b)
  fold = folding.folds(c, p.m, p.n, p.k, a.dtype, transpose_b=p.transpose_b)
  windowed, kept_rows = folding.windowed(c, p.m, fold), p.m
  if fold > 1:
    a, b, p = folding.fold_operands(a, b, p, fold,
                                    c.block_m if windowed else p.m)
  a, b, k = _staged(a, b, p, k_major_b=k_major_b, align=c.align_operands,
                    interpret=interpret)
  grid, tile_indices = _grid_and_tiles(
      p.size, 1 if windowed else pl.cdiv(p.m, c.block_m),
      pl.cdiv(p.n, c.block_n), c.split_k, c.group_m)
  # Each program's strips span whole K-phases: with split_k, its share of K.
  k_strip = pl.cdiv(pl.cdiv(k, c.block_k), c.split_k) * c.block_k
  in_specs, out_spec, out_shape = _block_specs(
      p, c, tile_indices, k_strip, out_dtype,
      dtypes.accumulator_dtype(a.dtype),
      a_rows=p.m if windowed else c.block_m,
      kept_rows=kept_rows if fold > 1 else None)
  out_shape = vma.out_struct(out_shape.shape, out_shape.dtype, a, b)
  kernel = functools.partial(
      _kernel, m=p.m, n=p.n, k=k, block_m=c.block_m, block_n=c.block_n,
      block_k=c.block_k, k_strip=k_strip, split_k=c.split_k,
      tile_indices=tile_indices, transpose_a=p.transpose_a,
      transpose_b=p.transpose_b, precision=precision, upcast=c.upcast,
      fold=fold, fold_rows=kept_rows, windowed=windowed)
  out = pl.pallas_call(
      kernel,
      out_shape=out_shape,
      grid=grid,
      in_specs=in_specs,
      out_specs=out_spec,
      compiler_params=pltriton.CompilerParams(
          num_warps=c.num_warps, num_stages=c.num_stages),
      interpret=interpret,
      name="pallas_tiled_matmul",
  )(a, b)
  if fold > 1:  # Adds each element's folds and K ranges.
    return folding.unfold(out, fold, out_dtype)
  if c.split_k > 1:  # Adds the K ranges' partial sums.
    out = dtypes.cast_result(out.sum(axis=0, dtype=out.dtype), out_dtype)
  return out


def select_config(m, n, k, dtype, precision, *, out_dtype, auto=False):
  """The config a call runs when given none: see
  `tuning.cache.select_config`; with a symbolic dimension, a fixed one.
  Where the cost model has coefficients for this device, it picks, and
  tuned entries apply only to the shape they were tuned on; elsewhere the
  heuristic fills in for untuned buckets. float32 matrix-vector products
  take only vector-tile entries (`heuristics.takes_vector_tiles`)."""
  if validation.is_symbolic(m, n, k):
    return heuristics.symbolic_shape_config(dtype)
  if heuristics.takes_vector_tiles(m, n, dtype):
    return tuning_cache.select_config(
        "triton", m, n, k, dtype, precision, auto=auto,
        default=lambda: heuristics.vector_config(m, n, k),
        fits=lambda config, _: config.is_vector)
  modeled = cost_model.choose(m, n, k, dtype, precision, out_dtype=out_dtype,
                              backends=("triton",))
  if modeled is not None:  # Tuned entries: only for their own shape.
    default = lambda: modeled
    fits = lambda _, tuned_shape: tuned_shape == (m, n, k)
  else:
    default = functools.partial(heuristics.default_tiled_config, m, n, k,
                                dtype, precision)
    fits = None
  return tuning_cache.select_config(
      "triton", m, n, k, dtype, precision, auto=auto, default=default,
      fits=fits)


KERNEL = kernel_lib.Kernel("triton", batched_product, select_config)
