"""K ranges summed in the kernel (`MosaicConfig.sum_in_kernel`).

With split_k, every output tile is computed once per K range. Here each
range but the last stores its float32 partial sum into a workspace and
signals the tile's semaphore; the tile's last range waits for all of them,
adds them to its own in a fixed order (range 0 first: bitwise
deterministic) and stores the sum as the output, so that no pass after the
kernel reads the partial sums back and adds them.

Partial sums go between registers and global memory directly (each thread
its pairs of wgmma's register layout; the workspace is padded to whole CTA
tiles, so no access falls outside it), in plain loads and stores that the
semaphore's release and acquire order. The persistent CTAs take work items
in order, batch element and K range major, so every range of a tile comes
before its last one, and every wait is on CTAs that do not wait on it.
"""

from __future__ import annotations

import math

from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.mosaic.gpu import fragmented_array as fa
from jax.experimental.pallas import mosaic_gpu as plgpu
import jax.numpy as jnp

from pallas_tiled.mosaic import plan as plan_lib


def workspace_shape(plan: plan_lib.Plan) -> tuple[int, int, int]:
  """The workspace of partial sums: one slab per batch element and K range
  but the last, over whole CTA tiles of the (m, n) product (not
  transposed: the accumulator's own orientation)."""
  c = plan.config
  (cta_m, cta_n), (tiles_m, tiles_n) = c.cta_tile, plan.tile_grid
  return plan.problem.size * (c.split_k - 1), tiles_m * cta_m, tiles_n * cta_n


def semaphores(plan: plan_lib.Plan):
  """One semaphore per consumer tile: batch element x tile x consumer. Each
  is back at zero when its last range has waited, as `pl.get_global`'s
  semaphores, kept across calls, must be."""
  count = (plan.problem.size * math.prod(plan.tile_grid)
           * plan.config.num_compute_wgs)
  return pl.get_global(plgpu.SemaphoreType.REGULAR((count,)))


def _store_partial(value, window) -> None:
  """window[...] = value, from wgmma's register layout into global
  memory."""

  @plgpu.inline_mgpu(arg_types=(plgpu.Layout.WGMMA, plgpu.RefType()),
                     return_type=None)
  def _store(ctx, value, gmem):
    del ctx
    value.store_untiled(gmem, optimized=False)

  _store(value, window)


def _load_partial(window, shape):
  """window[...] in wgmma's register layout, from global memory."""

  @plgpu.inline_mgpu(
      arg_types=(plgpu.RefType(),),
      return_type=plgpu.ShapeDtypeStruct(shape, jnp.float32,
                                         layout=plgpu.Layout.WGMMA))
  def _load(ctx, gmem):
    del ctx
    return fa.FragmentedArray.load_untiled(gmem, layout=fa.WGMMA_LAYOUT,
                                           optimized=False)

  return _load(window)


def store(plan: plan_lib.Plan, acc, *, ws_ref, sems, g, k_range, tile, wg,
          store_sum) -> None:
  """Consumer wg's part of the K-range sum for its tile (linear index
  `tile`) of batch element g: a partial sum stored and signalled, or, in
  the last range, the other ranges' partials awaited, added and stored by
  `store_sum(total)`."""
  c = plan.config
  last = c.split_k - 1
  # Any one-to-one map of tiles to workspace windows will do: row-major.
  tiles_n = jnp.int32(plan.tile_grid[1])
  cta_m, cta_n = c.cta_tile
  rows = pl.ds(lax.div(tile, tiles_n) * cta_m
               + (wg * c.tile_m if plan.split_m else 0), c.tile_m)
  cols = pl.ds(lax.rem(tile, tiles_n) * cta_n
               + (wg * c.tile_n if plan.split_n else 0), c.tile_n)
  window = lambda k: ws_ref.at[g * last + k, rows, cols]
  sem = sems.at[(g * math.prod(plan.tile_grid) + tile) * c.num_compute_wgs
                + wg]

  @pl.when(k_range < last)
  def _partial():
    _store_partial(acc, window(k_range))
    plgpu.semaphore_signal(sem, 1, memory_scope="gpu")

  @pl.when(k_range == last)
  def _sum():
    plgpu.semaphore_wait(sem, last, memory_scope="gpu")
    total = _load_partial(window(0), plan.acc_shape)
    for k in range(1, last):
      total = total + _load_partial(window(k), plan.acc_shape)
    store_sum(total + acc)
