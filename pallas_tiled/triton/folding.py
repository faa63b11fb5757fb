"""Folded rows of b: decode products whose b rows are not 16-byte multiples.

A row-major b of N columns where N * itemsize is no multiple of 16 bytes
(vocabularies of 50257 or 51865) starts its rows at every alignment, so the
kernel loads them element by element; an aligned copy reads and writes all
of b before a product that reads it once. But `fold` consecutive rows,
fold = 16 / gcd(16, N * itemsize), are a 16-byte multiple: b viewed as
(K / fold, fold * N), a free reshape, has aligned rows. Its column c holds,
in row j, b[j * fold + c // N, c % N]. With a's columns regrouped alike (a
small XLA copy of a; of one row, a free reshape read as a transposed a),

  a_folded[g * M + i, j] = a[i, j * fold + g]       ((fold * M, K / fold)),

row g * M + i of the folded product holds, in column h * N + n, the sum over
j of a[i, j * fold + g] b[j * fold + h, n]: where g = h, the terms of
a[i, k] b[k, n] with k = g (mod fold). The kernel keeps only that diagonal
block of each column (`kernel._diagonal_blocks`), so it stores fold * M * N
float32 partial sums, and one XLA pass adds each element's fold of them
(and its K ranges') in a fixed order.

Where the fold * M rows pass one tile row, each group's M rows get a tile
row of their own in a_folded (zero rows pad them), and a column tile, which
spans at most two groups, multiplies the two groups' windows into two
accumulators and keeps each column's own (`windowed`): two dots of block_m
rows where one of fold * M rows would do fold / 2 times the work.
"""

from __future__ import annotations

import dataclasses
import math

import jax.numpy as jnp
import numpy as np

from pallas_tiled import batching
from pallas_tiled import dtypes
from pallas_tiled import validation

# What each row of the folded b must span a multiple of (wide, aligned loads).
ALIGNMENT_BYTES = 16


def fold_factor(n: int, dtype) -> int:
  """Rows of b (N long) that together span a 16-byte multiple."""
  row_bytes = n * np.dtype(dtype).itemsize
  return ALIGNMENT_BYTES // math.gcd(ALIGNMENT_BYTES, row_bytes)


def folds(config, m: int, n: int, k: int, dtype, *,
          transpose_b: bool = False) -> int:
  """The fold `config` runs an (m, k) @ (k, n) product with: fold_factor
  where it asks to fold (`TileConfig.fold_b`, not a vector tile), b is
  stored (K, N) with unaligned rows, K is a whole number of folds, and the
  folded a's rows fit one tile row, or M rows fit one and a column tile
  spans at most two fold groups (`windowed`); else 1, and b is read as
  stored (also for symbolic dimensions)."""
  if (not config.fold_b or config.is_vector or transpose_b
      or validation.is_symbolic(m, n, k)):
    return 1
  fold = fold_factor(n, dtype)
  if fold == 1 or k % fold:
    return 1
  if fold * m <= config.block_m or (m <= config.block_m
                                    and config.block_n <= n):
    return fold
  return 1


def windowed(config, m: int, fold: int) -> bool:
  """Whether a folded product reads each fold group's rows of a through a
  window of its own (the groups pass one tile row)."""
  return fold > 1 and fold * m > config.block_m


def fold_operands(a, b, problem: batching.BatchedProblem, fold: int,
                  group_rows: int):
  """(a_folded, b viewed with folded rows, their problem): a is (batches,
  M, K), or (batches, K, M) with transpose_a; b is (batches, K, N). Each
  fold group takes `group_rows` rows of a_folded: M, or a window's (zeros
  past M)."""
  p = problem
  batches = a.shape[0]
  b = b.reshape(b.shape[0], p.k // fold, fold * p.n)
  folded = dataclasses.replace(p, m=fold * group_rows, n=fold * p.n,
                               k=p.k // fold, transpose_a=False)
  if p.m == group_rows == 1:  # a_folded^T is a's (K / fold, fold) view.
    a = a.reshape(batches, p.k // fold, fold)
    return a, b, dataclasses.replace(folded, transpose_a=True)
  if p.transpose_a:
    a = jnp.swapaxes(a, 1, 2)
  a = a.reshape(batches, p.m, p.k // fold, fold).transpose(0, 3, 1, 2)
  a = jnp.pad(a, ((0, 0), (0, 0), (0, group_rows - p.m), (0, 0)))
  a = a.reshape(batches, fold * group_rows, p.k // fold)
  return a, b, folded


def unfold(partials, fold: int, out_dtype):
  """(K ranges, batch, M, fold * N) partial sums to the (batch, M, N)
  product: each element's K ranges and folds added, then cast."""
  ranges, size, m, folded_n = partials.shape
  partials = partials.reshape(ranges, size, m, fold, folded_n // fold)
  return dtypes.cast_result(partials.sum(axis=(0, 3), dtype=partials.dtype),
                            out_dtype)
