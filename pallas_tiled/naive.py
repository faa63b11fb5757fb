"""The naive matmul: the Pallas analogue of the seeds' basic kernel.

Each grid program owns one (block_m x block_n) output tile, as in the tiled
kernel, but sweeps the dot product one k at a time straight from the input
refs: column k of `a` times row k of `b`, a rank-1 update of a float32
accumulator. Nothing is staged in K-tiles and no matrix units are used, so
every input element is fetched once per output tile that needs it. It is the
baseline that shows what tiling buys, and it is correct on any shape.
"""

from __future__ import annotations

import functools

import jax
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton
import jax.numpy as jnp

from pallas_tiled import config as config_lib
from pallas_tiled import masking
from pallas_tiled import validation


def _kernel(a_ref, b_ref, o_ref, *, m, n):
  block_m, block_n = o_ref.shape
  row_mask = masking.edge_mask(pl.program_id(0), block_m, m)
  col_mask = masking.edge_mask(pl.program_id(1), block_n, n)

  def rank1_update(kk, acc):
    a_col = masking.load(a_ref.at[:, kk], row_mask).astype(jnp.float32)
    b_row = masking.load(b_ref.at[kk, :], col_mask).astype(jnp.float32)
    return acc + a_col[:, None] * b_row[None, :]

  acc = jnp.zeros((block_m, block_n), jnp.float32)
  acc = lax.fori_loop(0, a_ref.shape[1], rank1_update, acc)
  masking.store(o_ref, acc.astype(o_ref.dtype),
                masking.tile_mask(row_mask, col_mask))


@functools.partial(jax.jit, static_argnames=("config", "out_dtype",
                                             "interpret"))
def _naive_matmul(a, b, *, config, out_dtype, interpret):
  (m, k), n = a.shape, b.shape[1]
  grid = (pl.cdiv(m, config.block_m), pl.cdiv(n, config.block_n))
  return pl.pallas_call(
      functools.partial(_kernel, m=m, n=n),
      out_shape=jax.ShapeDtypeStruct((m, n), out_dtype),
      grid=grid,
      in_specs=[
          pl.BlockSpec((config.block_m, k), lambda i, j: (i, 0)),
          pl.BlockSpec((k, config.block_n), lambda i, j: (0, j)),
      ],
      out_specs=pl.BlockSpec((config.block_m, config.block_n),
                             lambda i, j: (i, j)),
      compiler_params=pltriton.CompilerParams(
          num_warps=config.num_warps, num_stages=config.num_stages),
      interpret=interpret,
      name="pallas_naive_matmul",
  )(a, b)


def naive_matmul(a, b, config: config_lib.TileConfig | None = None, *,
                 precision=None, preferred_element_type=None, interpret=None):
  """`a @ b` with the naive kernel; the same signature as `matmul`.

  Only block_m, block_n and num_warps of `config` matter (nothing is staged
  along K). Products are float32 multiply-adds, so every precision gives full
  float32 accuracy; `precision` is checked and accepted for compatibility.
  """
  call = validation.check_matmul_call(
      a, b, precision=precision,
      preferred_element_type=preferred_element_type, interpret=interpret)
  validation.check_config_type(config, config_lib.TileConfig)
  if call.is_empty:
    return call.empty_result()
  if config is None:
    config = config_lib.default_naive_config(call.m, call.n, call.k,
                                             call.dtype)
  if not call.interpret:
    config_lib.check_power_of_two_tiles(
        config, ("block_m", "block_n"),
        why="Triton needs for the naive kernel's tile vectors")
  return _naive_matmul(a, b, config=config, out_dtype=call.out_dtype,
                       interpret=call.interpret)
