"""Masked tile access: how the kernels handle shapes the tiles do not divide.

As in the seeds (seed 004, sections 11-12), out-of-range input elements are
loaded as zeros, which add nothing to a dot product, and out-of-range output
elements are never stored. Masks are built only where a dimension leaves a
partial tile, so evenly tiled shapes compile to plain, unmasked loads.
"""

from __future__ import annotations

from jax.experimental.pallas import triton as pltriton
import jax.numpy as jnp


def edge_mask(index, block: int, size: int):
  """In-range positions of block number `index` along a dimension, or None.

  None means every position is in range for every block (block divides
  size), so no mask is needed.
  """
  if size % block == 0:
    return None
  return index * block + jnp.arange(block) < size


def tile_mask(row_mask, col_mask):
  """A 2-D tile mask from optional 1-D row and column masks; None if none."""
  if row_mask is None:
    return None if col_mask is None else col_mask[None, :]
  if col_mask is None:
    return row_mask[:, None]
  return row_mask[:, None] & col_mask[None, :]


def load(ref, mask):
  """Loads `ref`, zero-filling wherever `mask` (if any) is False.

  The fill is a zero of the ref's kind: Triton lowers no integer-to-float8
  cast.
  """
  zero = 0 if jnp.issubdtype(ref.dtype, jnp.integer) else 0.0
  return ref[...] if mask is None else pltriton.load(ref, mask=mask,
                                                     other=zero)


def store(ref, value, mask) -> None:
  """Stores `value` into `ref`, skipping wherever `mask` (if any) is False."""
  if mask is None:
    ref[...] = value
  else:
    pltriton.store(ref, value, mask=mask)
