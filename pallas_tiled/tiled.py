"""The tiled matmul: output tiles to grid programs, K-phases, a float32 acc.

This is the shared-memory tiling of the seed documents, written in Pallas and
lowered through Triton (chosen explicitly with `pltriton.CompilerParams`; on
jax 0.11 Mosaic GPU is the default GPU lowering, so it must be asked for).

* Grid: one program per (block_m x block_n) output tile.
* BlockSpecs hand each program its row strip of `a` (block_m x K), its column
  strip of `b` (K x block_n) and its output tile.
* K-phases: the program walks its strips block_k at a time. Each phase loads
  one (block_m x block_k) tile of `a` and one (block_k x block_n) tile of `b`
  (Triton stages them through shared memory, `num_stages` phases in flight)
  and adds their product into a float32 accumulator, cast once on store.
* Boundaries: any M, N and K. Out-of-range rows, columns and the partial last
  K-phase are zero-filled by masked loads, so they add nothing; edge output
  tiles are stored with a mask. Operands are never padded in memory.
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


def _kernel(a_ref, b_ref, o_ref, *, m, n, k, block_k, precision):
  block_m, block_n = o_ref.shape
  row_mask = masking.edge_mask(0, block_m, m)
  col_mask = masking.edge_mask(1, block_n, n)

  def phase(start, acc, k_mask=None):
    ks = pl.ds(start, block_k)
    a = masking.load(a_ref.at[:, ks], masking.tile_mask(row_mask, k_mask))
    b = masking.load(b_ref.at[ks, :], masking.tile_mask(k_mask, col_mask))
    return acc + jnp.dot(a, b, precision=precision,
                         preferred_element_type=jnp.float32)

  acc = jnp.zeros((block_m, block_n), jnp.float32)
  full_phases, tail = divmod(k, block_k)
  acc = lax.fori_loop(
      0, full_phases, lambda p, acc: phase(p * block_k, acc), acc)
  if tail:  # The partial last K-phase: zero-fill columns K.. of a, rows of b.
    start = full_phases * block_k
    acc = phase(start, acc, k_mask=start + jnp.arange(block_k) < k)

  masking.store(o_ref, acc.astype(o_ref.dtype),
                masking.tile_mask(row_mask, col_mask))


@functools.partial(
    jax.jit, static_argnames=("config", "precision", "out_dtype", "interpret"))
def _tiled_matmul(a, b, *, config, precision, out_dtype, interpret):
  (m, k), n = a.shape, b.shape[1]
  kernel = functools.partial(_kernel, m=m, n=n, k=k, block_k=config.block_k,
                             precision=precision)
  grid = (pl.cdiv(m, config.block_m), pl.cdiv(n, config.block_n))
  # The strips span whole K-phases; the last one may reach past K (masked).
  k_strip = pl.cdiv(k, config.block_k) * config.block_k
  return pl.pallas_call(
      kernel,
      out_shape=jax.ShapeDtypeStruct((m, n), out_dtype),
      grid=grid,
      in_specs=[
          pl.BlockSpec((config.block_m, k_strip), lambda i, j: (i, 0)),
          pl.BlockSpec((k_strip, config.block_n), lambda i, j: (0, j)),
      ],
      out_specs=pl.BlockSpec((config.block_m, config.block_n),
                             lambda i, j: (i, j)),
      compiler_params=pltriton.CompilerParams(
          num_warps=config.num_warps, num_stages=config.num_stages),
      interpret=interpret,
      name="pallas_tiled_matmul",
  )(a, b)


def matmul(a, b, config: config_lib.TileConfig | None = None, *,
           precision=None, preferred_element_type=None, interpret=None):
  """`a @ b` for 2-D `a` (M, K) and `b` (K, N) with the tiled Pallas kernel.

  Follows jnp.matmul: the result dtype is the inputs' unless
  `preferred_element_type` sets it; float32 at default precision may use TF32
  on GPU, as XLA does, and `precision=jax.lax.Precision.HIGHEST` gives full
  float32. Accumulation is always float32. `config=None` picks tiles with
  `default_tiled_config`; `interpret=None` interprets on a CPU-only JAX.
  Usable inside `jax.jit`: all checks run on static shapes and dtypes.
  """
  call = validation.check_matmul_call(
      a, b, precision=precision,
      preferred_element_type=preferred_element_type, interpret=interpret)
  validation.check_config_type(config, config_lib.TileConfig)
  if call.is_empty:
    return call.empty_result()
  if config is None:
    config = config_lib.default_tiled_config(call.m, call.n, call.k,
                                             call.dtype)
  if not call.interpret:
    config_lib.check_triton_tiles(config, call.dtype,
                                  validation.compute_capability())
  return _tiled_matmul(a, b, config=config, precision=call.precision,
                       out_dtype=call.out_dtype, interpret=call.interpret)
