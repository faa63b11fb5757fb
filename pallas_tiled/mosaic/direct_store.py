"""Stores of a tile from registers into rows of any pitch, without TMA.

TMA stores rows of 16-byte multiples only: an output of N = 50257 bfloat16
columns would be stored padded and cut to shape by a copy. wgmma's register
layout holds pairs of adjacent elements, which such rows leave unaligned,
so `store` stages a tile in shared memory and reads it back in Mosaic GPU's
strided layout, where each thread holds runs of consecutive elements that
the rows do align, and stores those: each warp's 32 runs lie side by side
in one row. Built by hand (`plgpu.inline_mgpu`): Pallas lowers
`ref[...] = x` as a swap, loading the old values first in runs of its own
choosing, which such rows leave unaligned too.
"""

from __future__ import annotations

import math

from jax.experimental.mosaic.gpu import fragmented_array as fa
from jax.experimental.mosaic.gpu import utils as mgpu_utils
from jax.experimental.pallas import mosaic_gpu as plgpu
import jax.numpy as jnp
from jaxlib.mlir.dialects import vector

# Bytes added to each staged row: 16 shift consecutive rows by four banks,
# so that the eight rows one warp's wgmma registers span fall in different
# banks (at a pitch of 128 bytes they all fall in the same four).
ROW_PAD_BYTES = 16
# The longest run of consecutive elements a thread stores at once.
_MAX_RUN_BYTES = 16


def run_elements(pitch: int, dtype) -> int:
  """The most consecutive elements (16 bytes at most) that rows of `pitch`
  elements align: one where the pitch is odd."""
  return math.gcd(pitch, _MAX_RUN_BYTES // jnp.dtype(dtype).itemsize)


def staging_shape(rows: int, cols: int, dtype) -> tuple[int, int]:
  """The shared-memory tile `store` stages a (rows, cols) tile in."""
  return rows, cols + ROW_PAD_BYTES // jnp.dtype(dtype).itemsize


def store(value, smem, window, *, run: int) -> None:
  """window[...] = value: value (rows, cols) in the WGMMA layout, smem a
  plain `staging_shape` shared-memory tile of its dtype, window a
  global-memory view of value's shape whose row pitch and start are
  multiples of `run` elements (`run_elements`)."""
  rows, cols = value.shape

  @plgpu.inline_mgpu(
      arg_types=(plgpu.Layout.WGMMA, plgpu.RefType(), plgpu.RefType()),
      return_type=None)
  def _store(ctx, value, smem, gmem):
    del ctx
    for register, index in zip(value.registers.flat,
                               value.layout.thread_idxs(value.shape)):
      vector.store(register, smem, index)
    mgpu_utils.warpgroup_barrier()  # Every thread's part is staged.
    staged = mgpu_utils.memref_slice(smem, (slice(0, rows), slice(0, cols)))
    fa.FragmentedArray.load_strided(staged, vec_size=run).store_untiled(gmem)
    mgpu_utils.warpgroup_barrier()  # Read before the next tile refills smem.

  _store(value, smem, window)
