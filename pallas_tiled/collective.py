"""Collective matmuls for tensor parallelism, on the tiled kernel, inside
`jax.shard_map`: each hides its transfers behind the products.

Both walk a ring of `jax.lax.ppermute`s over one mesh axis of n devices in
n steps: each step's product needs only data already here, and the transfer
for the next step is independent of it, so XLA's GPU scheduler is free to
run the two concurrently (collective-permute-start/done around the kernel;
on the CPU the permutes are synchronous, and no multi-GPU schedule has been
inspected yet). Gradients are JAX's through ppermute, slicing and
`matmul`'s own VJP.
"""

from __future__ import annotations

import jax
from jax import lax
import jax.numpy as jnp

from pallas_tiled import api
from pallas_tiled import dtypes


def _ring(axis_name):
  """(this device's index, axis size, the shift to the next device)."""
  size = lax.axis_size(axis_name)
  shift = [(i, (i + 1) % size) for i in range(size)]
  return lax.axis_index(axis_name), size, shift


def all_gather_matmul(a, b, *, axis_name, **matmul_kwargs) -> jax.Array:
  """`all_gather(a, axis_name, tiled=True) @ b`, gathering while multiplying.

  For column-parallel layers: `a` (m, K) is this device's block of rows of
  an (n * m, K) matrix sharded along M over `axis_name`; `b` (K, N) is
  local. Each step multiplies the block at hand while the ring passes it
  on, so the result (n * m, N) costs no separate all-gather.
  `matmul_kwargs` go to `pallas_tiled.matmul` (config, backend, precision,
  preferred_element_type). Under check_vma the result varies over
  `axis_name` (each device assembles its own copy), so out_specs name it,
  as with `b` sharded by columns over it (Megatron's column parallelism).
  """
  index, size, shift = _ring(axis_name)
  block = a
  out = None
  for step in range(size):
    if step + 1 < size:  # Sent while this step's product runs.
      next_block = lax.ppermute(block, axis_name, shift)
    product = api.matmul(block, b, **matmul_kwargs)
    if out is None:
      out = jnp.zeros((size, *product.shape), product.dtype)
    # The block at hand started `step` devices back along the ring.
    out = lax.dynamic_update_index_in_dim(
        out, product, (index - step) % size, axis=0)
    if step + 1 < size:
      block = next_block
  return out.reshape(size * product.shape[0], product.shape[1])


def matmul_reduce_scatter(a, b, *, axis_name, **matmul_kwargs) -> jax.Array:
  """`psum_scatter(a @ b, axis_name, scatter_dimension=0, tiled=True)`,
  reducing while multiplying.

  For row-parallel layers: `a` (M, k) and `b` (k, N) are this device's
  slices of a contraction sharded along K over `axis_name`; the result is
  this device's (M / n, N) block of rows of the summed product. A float32
  partial sum travels the ring, each device adding its product for the
  block it is bound for, so there is no separate reduce-scatter. The
  result has matmul's dtype; M must divide by the axis size.
  """
  index, size, shift = _ring(axis_name)
  if a.shape[0] % size:
    raise ValueError(
        f"a.shape={a.shape}: M={a.shape[0]} must divide by the size {size}"
        f" of axis {axis_name!r} to scatter the product's rows.")
  rows = a.shape[0] // size
  out_dtype = jax.eval_shape(
      lambda a, b: api.matmul(a, b, **matmul_kwargs), a, b).dtype
  partial_kwargs = dict(matmul_kwargs, preferred_element_type=jnp.float32)
  acc = None
  for step in range(size):
    # Device i ends holding block i: at step s it adds block i - s - 1 + n.
    block = (index - step - 1) % size
    a_block = lax.dynamic_slice_in_dim(a, block * rows, rows, axis=0)
    product = api.matmul(a_block, b, **partial_kwargs)
    acc = product if acc is None else acc + product
    if step + 1 < size:  # Overlaps the next step's product.
      acc = lax.ppermute(acc, axis_name, shift)
  return dtypes.cast_result(acc, out_dtype)
