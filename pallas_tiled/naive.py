"""The naive matmul: the Pallas analogue of the seeds' basic kernel.

Each grid program owns one (block_m x block_n) output tile, as in the tiled
kernel, but sweeps the dot product one k at a time straight from the input
refs: column k of `a` times row k of `b`, a rank-1 update of an
accumulator (float32; int32 for int8, float64 for float64: dtypes.py).
Nothing is staged in K-tiles and no matrix units are used, so every input
element is fetched once per output tile that needs it. It is the baseline
that shows what tiling buys, and it is correct on any shape.
"""

from __future__ import annotations

import functools

from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton
import jax.numpy as jnp

from pallas_tiled import complex_products
from pallas_tiled import dtypes
from pallas_tiled import kernel as kernel_lib
from pallas_tiled import validation
from pallas_tiled import vma
from pallas_tiled.triton import masking
from pallas_tiled.triton.config import TileConfig
from pallas_tiled.triton.config import check_power_of_two_tiles
from pallas_tiled.triton.heuristics import fit_block


def _kernel(a_ref, b_ref, o_ref, *, m, n, transpose_a, transpose_b):
  block_m, block_n = o_ref.shape
  row_mask = masking.edge_mask(pl.program_id(0), block_m, m)
  col_mask = masking.edge_mask(pl.program_id(1), block_n, n)
  k = a_ref.shape[0] if transpose_a else a_ref.shape[1]
  acc_dtype = dtypes.accumulator_dtype(a_ref.dtype)

  def rank1_update(kk, acc):
    # Operands stored transposed give a row of a, or a column of b, instead.
    a_col = masking.load(a_ref.at[kk, :] if transpose_a else a_ref.at[:, kk],
                         row_mask).astype(acc_dtype)
    b_row = masking.load(b_ref.at[:, kk] if transpose_b else b_ref.at[kk, :],
                         col_mask).astype(acc_dtype)
    return acc + a_col[:, None] * b_row[None, :]

  acc = jnp.zeros((block_m, block_n), acc_dtype)
  acc = lax.fori_loop(0, k, rank1_update, acc)
  masking.store(o_ref, dtypes.cast_result(acc, o_ref.dtype),
                masking.tile_mask(row_mask, col_mask))


@kernel_lib.jit_product
def batched_product(a, b, *, problem, config, precision, out_dtype,
                    interpret):
  """The kernel on flattened operands: (problem.size, M, N); see
  triton/kernel.py.

  Products are multiply-adds in the accumulator's dtype whatever
  `precision` asks for.
  """
  del precision
  p, bm, bn = problem, config.block_m, config.block_n
  a_block = (None, p.k, bm) if p.transpose_a else (None, bm, p.k)
  b_block = (None, bn, p.k) if p.transpose_b else (None, p.k, bn)
  return pl.pallas_call(
      functools.partial(_kernel, m=p.m, n=p.n, transpose_a=p.transpose_a,
                        transpose_b=p.transpose_b),
      out_shape=vma.out_struct((p.size, p.m, p.n), out_dtype, a, b),
      # Batch last: the GPU launches the first axis fastest.
      grid=(pl.cdiv(p.m, bm), pl.cdiv(p.n, bn), p.size),
      in_specs=[
          pl.BlockSpec(a_block, lambda i, j, g: (
              (p.a_index(g), 0, i) if p.transpose_a else (p.a_index(g), i, 0))),
          pl.BlockSpec(b_block, lambda i, j, g: (
              (p.b_index(g), j, 0) if p.transpose_b else (p.b_index(g), 0, j))),
      ],
      out_specs=pl.BlockSpec((None, bm, bn), lambda i, j, g: (g, i, j)),
      compiler_params=pltriton.CompilerParams(
          num_warps=config.num_warps, num_stages=config.num_stages),
      interpret=interpret,
      name="pallas_naive_matmul",
  )(a, b)


def default_naive_config(m: int, n: int, k: int, dtype,
                         precision=None) -> TileConfig:
  """The naive kernel's tiles: 32x32 outputs per program, like a 2-D block."""
  del k, dtype, precision  # The naive kernel stages nothing along K.
  return TileConfig(fit_block(m, 1, 32), fit_block(n, 1, 32), 1, num_warps=4,
                    num_stages=1)


def _select_config(m, n, k, dtype, precision, *, out_dtype, auto=False):
  del out_dtype, auto  # The naive kernel has nothing to tune.
  if validation.is_symbolic(m, n):  # jax.export: the largest tiles.
    return default_naive_config(32, 32, k, dtype, precision)
  return default_naive_config(m, n, k, dtype, precision)


def naive_matmul(a, b, config: TileConfig | None = None, *,
                 precision=None, preferred_element_type=None, interpret=None):
  """`a @ b` with the naive kernel; the same signature and semantics
  (shapes, batching, grad, vmap) as `matmul`.

  Only block_m, block_n and num_warps of `config` matter (nothing is staged
  along K). Products are multiply-adds in the accumulator's dtype (float32,
  float64 for float64, int32 for int8), so every precision gives full
  accuracy; `precision` is checked and accepted for compatibility.
  """
  call = validation.check_matmul_call(
      a, b, precision=precision,
      preferred_element_type=preferred_element_type, interpret=interpret)
  validation.check_config_type(config, TileConfig)
  validation.check_kernel_dims(call)
  if config is not None and not call.interpret:
    check_power_of_two_tiles(
        config, ("block_m", "block_n"),
        why="Triton needs for the naive kernel's tile vectors")
  return complex_products.matmul(KERNEL, a, b, call, config)


KERNEL = kernel_lib.Kernel("triton", batched_product, _select_config)
