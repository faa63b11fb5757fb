"""The tiled matmul: output tiles to grid programs, K-phases, a float32 acc.

This is the shared-memory tiling of the seed documents, written in Pallas and
lowered through Triton (chosen explicitly with `pltriton.CompilerParams`; on
jax 0.11 Mosaic GPU is the default GPU lowering, so it must be asked for).

* Grid: one program per (block_m x block_n) output tile (per K range with
  split_k), in row-major or grouped order (`group_m`) for L2 reuse.
* BlockSpecs hand each program its row strip of `a` (block_m x K), its column
  strip of `b` (K x block_n, or block_n x K when B is staged K-major) and its
  output tile.
* K-phases: the program walks its strips block_k at a time. Each phase loads
  one (block_m x block_k) tile of `a` and one (block_k x block_n) tile of `b`
  (Triton stages them through shared memory, `num_stages` phases in flight)
  and adds their product into a float32 accumulator, cast once on store.
* Boundaries: any M, N and K. Out-of-range rows, columns and the partial last
  K-phase are zero-filled by masked loads, so they add nothing; edge output
  tiles are stored with a mask. Operands are copied (transposed, or padded to
  16-byte rows) only where the config asks for it; the output never is.
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
from pallas_tiled import tuning_cache
from pallas_tiled import validation


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


def _grid_and_tiles(num_m, num_n, split_k, group_m):
  """The launch grid (tiles, tiles, K ranges) and its map to tile (i, j).

  group_m=1 is a plain 2-D grid (the GPU launches the first axis fastest);
  otherwise the tiles form one grid axis, remapped into grouped order.
  """
  if group_m == 1:
    return (num_m, num_n, split_k), lambda p0, p1: (p0, p1)
  grouped = functools.partial(_grouped_tile, num_m=num_m, num_n=num_n,
                              group_m=group_m)
  return (num_m * num_n, 1, split_k), lambda p0, p1: grouped(p0)


def _kernel(a_ref, b_ref, o_ref, *, m, n, k, block_k, split_k, tile_indices,
            b_transposed, precision):
  block_m, block_n = o_ref.shape[-2:]
  i, j = tile_indices(pl.program_id(0), pl.program_id(1))
  row_mask = masking.edge_mask(i, block_m, m)
  col_mask = masking.edge_mask(j, block_n, n)
  # This program's strips hold its K range, a whole number of phases; only
  # the range holding K's end may stop early, in a partial last phase.
  k_len = k
  if split_k > 1:
    k_len = jnp.clip(k - pl.program_id(2) * a_ref.shape[1], 0, a_ref.shape[1])

  def phase(start, acc, k_mask=None):
    ks = pl.ds(start, block_k)
    a = masking.load(a_ref.at[:, ks], masking.tile_mask(row_mask, k_mask))
    if b_transposed:  # b_ref holds Bᵀ: (block_n, K) strips, K-major tiles.
      b = masking.load(b_ref.at[:, ks], masking.tile_mask(col_mask, k_mask))
      contract = ((1,), (1,))
    else:
      b = masking.load(b_ref.at[ks, :], masking.tile_mask(k_mask, col_mask))
      contract = ((1,), (0,))
    return acc + lax.dot_general(a, b, (contract, ((), ())),
                                 precision=precision,
                                 preferred_element_type=jnp.float32)

  acc = jnp.zeros((block_m, block_n), jnp.float32)
  full_phases = k_len // block_k
  acc = lax.fori_loop(
      0, full_phases, lambda p, acc: phase(p * block_k, acc), acc)
  if k % block_k:  # The partial last K-phase: zero-fill past K.
    start = full_phases * block_k
    acc = phase(start, acc, k_mask=start + jnp.arange(block_k) < k_len)

  masking.store(o_ref, acc.astype(o_ref.dtype),
                masking.tile_mask(row_mask, col_mask))


def _aligned(a, b):
  """Zero-pads K (and b's N) so every row starts on a 16-byte boundary."""
  step = config_lib.rows_alignment(a.dtype)
  (_, k), n = a.shape, b.shape[1]
  pad_k, pad_n = -k % step, -n % step
  if pad_k:
    a = jnp.pad(a, ((0, 0), (0, pad_k)))
  if pad_k or pad_n:
    b = jnp.pad(b, ((0, pad_k), (0, pad_n)))
  return a, b


@functools.partial(
    jax.jit, static_argnames=("config", "precision", "out_dtype", "interpret"))
def _tiled_matmul(a, b, *, config, precision, out_dtype, interpret):
  c = config
  n = b.shape[1]  # Masks and the output keep the true N.
  if c.align_operands:
    a, b = _aligned(a, b)
  m, k = a.shape
  grid, tile_indices = _grid_and_tiles(
      pl.cdiv(m, c.block_m), pl.cdiv(n, c.block_n), c.split_k, c.group_m)
  # Each program's strips span whole K-phases: with split_k, its share of K.
  k_strip = pl.cdiv(pl.cdiv(k, c.block_k), c.split_k) * c.block_k
  a_spec = pl.BlockSpec((c.block_m, k_strip),
                        lambda p0, p1, s: (tile_indices(p0, p1)[0], s))
  if c.k_major_b:
    b = b.T  # An XLA transpose before the kernel: (N, K), K-major.
    b_spec = pl.BlockSpec((c.block_n, k_strip),
                          lambda p0, p1, s: (tile_indices(p0, p1)[1], s))
  else:
    b_spec = pl.BlockSpec((k_strip, c.block_n),
                          lambda p0, p1, s: (s, tile_indices(p0, p1)[1]))
  if c.split_k == 1:
    out_shape = jax.ShapeDtypeStruct((m, n), out_dtype)
    out_spec = pl.BlockSpec((c.block_m, c.block_n),
                            lambda p0, p1, s: tile_indices(p0, p1))
  else:  # float32 partial sums, one (M, N) slab per K range.
    out_shape = jax.ShapeDtypeStruct((c.split_k, m, n), jnp.float32)
    out_spec = pl.BlockSpec((None, c.block_m, c.block_n),
                            lambda p0, p1, s: (s, *tile_indices(p0, p1)))
  kernel = functools.partial(
      _kernel, m=m, n=n, k=k, block_k=c.block_k, split_k=c.split_k,
      tile_indices=tile_indices, b_transposed=c.k_major_b,
      precision=precision)
  out = pl.pallas_call(
      kernel,
      out_shape=out_shape,
      grid=grid,
      in_specs=[a_spec, b_spec],
      out_specs=out_spec,
      compiler_params=pltriton.CompilerParams(
          num_warps=c.num_warps, num_stages=c.num_stages),
      interpret=interpret,
      name="pallas_tiled_matmul",
  )(a, b)
  if c.split_k > 1:
    out = out.sum(axis=0).astype(out_dtype)
  return out


def _kernel_precision(precision, dtype, interpret):
  """HIGHEST float32 runs as three-pass TF32 on the GPU: on an H200 (4096^3)
  that was 1.26x faster than IEEE float32 dots and 4.6x more accurate
  (BUILD_NOTES.md). The CPU interpreter has no TF32, so it keeps HIGHEST."""
  if (not interpret and jnp.dtype(dtype) == jnp.float32
      and config_lib.is_highest(precision)):
    return lax.DotAlgorithmPreset.TF32_TF32_F32_X3
  return precision


def matmul(a, b, config: config_lib.TileConfig | str | None = None, *,
           precision=None, preferred_element_type=None, interpret=None):
  """`a @ b` for 2-D `a` (M, K) and `b` (K, N) with the tiled Pallas kernel.

  Follows jnp.matmul: the result dtype is the inputs' unless
  `preferred_element_type` sets it; float32 at default precision may use TF32
  on GPU, as XLA does, and `precision=jax.lax.Precision.HIGHEST` gives full
  float32 accuracy. Accumulation is always float32.

  config: a TileConfig; None for the table tuned for this GPU (or the
    heuristic `default_tiled_config`); "auto" to prefer the user's autotune
    cache (filled by `pallas_tiled.autotune`).
  interpret: None interprets exactly when JAX's default backend is the CPU.
  Usable inside `jax.jit`: all checks run on static shapes and dtypes.
  """
  call = validation.check_matmul_call(
      a, b, precision=precision,
      preferred_element_type=preferred_element_type, interpret=interpret)
  validation.check_config_type(config, config_lib.TileConfig, ("auto",))
  if call.is_empty:
    return call.empty_result()
  if not isinstance(config, config_lib.TileConfig):
    config = tuning_cache.select_config(call.m, call.n, call.k, call.dtype,
                                        call.precision, auto=config == "auto")
  if not call.interpret:
    config_lib.check_triton_tiles(config, call.dtype,
                                  validation.compute_capability())
  return _tiled_matmul(
      a, b, config=config,
      precision=_kernel_precision(call.precision, call.dtype, call.interpret),
      out_dtype=call.out_dtype, interpret=call.interpret)
