"""Cutting a padded result back to its shape, as a masked Pallas copy.

The Mosaic GPU kernel stores through TMA, which needs every row of the output
to be a multiple of 16 bytes (and, swizzled, of the swizzle width), so a
ragged output is computed into a padded buffer and cut to shape afterwards.
XLA's slice does that at about 0.8 TB/s when the rows it writes are not
16-byte multiples (2047x8191 bfloat16: 80 us on an H200); this copy, in
(16 x 512) tiles with masked stores, took 23 us (BUILD_NOTES.md). It runs on
Pallas' Triton lowering, chosen explicitly: Mosaic GPU has no masked stores.
"""

from __future__ import annotations

import functools

import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallas_tiled import masking

_BLOCK = (16, 512)


def _kernel(x_ref, o_ref, *, m, n):
  i, j = pl.program_id(1), pl.program_id(2)
  block_m, block_n = o_ref.shape
  mask = masking.tile_mask(masking.edge_mask(i, block_m, m),
                           masking.edge_mask(j, block_n, n))
  masking.store(o_ref, masking.load(x_ref, mask), mask)


@functools.partial(jax.jit, static_argnames=("m", "n", "interpret"))
def unpad(x, *, m: int, n: int, interpret: bool):
  """x[:, :m, :n] for a (batch, M', N') array x with M' >= m, N' >= n."""
  batch = x.shape[0]
  block = (None, *_BLOCK)
  index = lambda g, i, j: (g, i, j)
  return pl.pallas_call(
      functools.partial(_kernel, m=m, n=n),
      out_shape=jax.ShapeDtypeStruct((batch, m, n), x.dtype),
      grid=(batch, pl.cdiv(m, _BLOCK[0]), pl.cdiv(n, _BLOCK[1])),
      in_specs=[pl.BlockSpec(block, index)],
      out_specs=pl.BlockSpec(block, index),
      compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1),
      interpret=interpret,
      name="pallas_tiled_unpad",
  )(x)
