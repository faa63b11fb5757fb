"""jnp.matmul's semantics for every kernel, differentiable in reverse mode.

`matmul(kernel, ...)` is the front door each public entry point calls once
its arguments are checked: vectors become (1, K) rows or (K, 1) columns as
in jnp.matmul, batches go to `batching`, and the product is a
`jax.custom_vjp` whose backward runs the same kernel, reading the operands
transposed where they lie: dA = dC·Bᵀ and dB = Aᵀ·dC, no transposed
copies. The backward is itself differentiable, so second-order reverse mode
works. Forward mode (`jax.jvp`, `jax.jacfwd`) is not supported: JAX does
not allow it through a custom_vjp and raises a TypeError saying so.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import jax
import jax.numpy as jnp

from pallas_tiled import batching
from pallas_tiled import kernel as kernel_lib


@functools.partial(jax.custom_vjp, nondiff_argnums=(2,))
def _product(a, b, op: kernel_lib.Op) -> jax.Array:
  return batching.batchable(op)(a, b)


def _product_fwd(a, b, op):
  return _product(a, b, op), (a, b)


def _sum_to_shape(x, shape):
  """Sums a gradient over the batch dimensions its operand was broadcast in.

  `x` and `shape` agree in their last two (matrix) dimensions.
  """
  lead = x.ndim - len(shape)
  if lead > 0:
    x = x.sum(axis=tuple(range(lead)))
  elif lead < 0:
    x = x.reshape((1,) * -lead + x.shape)
  axes = tuple(i for i, (size, x_size) in enumerate(zip(shape, x.shape))
               if size == 1 and x_size != 1)
  return x.sum(axis=axes, keepdims=True) if axes else x


def _product_bwd(op, residuals, g):
  a, b = residuals
  ta, tb = op.transpose_a, op.transpose_b
  g = g.astype(a.dtype)  # Backward products run in the operands' dtype.
  grad_op = dataclasses.replace(op, out_dtype=a.dtype)
  mm = lambda x, y, tx, ty: _product(x, y, grad_op.transposed(tx, ty))
  # With op(X) the operand as multiplied (X, or X stored transposed):
  # dop(A) = dC op(B)ᵀ and dop(B) = op(A)ᵀ dC, each read in place.
  da = mm(g, b, False, not tb) if not ta else mm(b, g, tb, True)
  batch_size = math.prod(g.shape[:-2])
  b_shared = math.prod(b.shape[:-2]) == 1 and batch_size > 1
  if b_shared and a.shape[:-2] == g.shape[:-2] and not ta:
    # b served every batch element: its gradient sums over the batch, which
    # folds into the contraction: (batch * M, K)ᵀ (batch * M, N).
    a, g = a.reshape(-1, a.shape[-1]), g.reshape(-1, g.shape[-1])
  db = mm(a, g, not ta, False) if not tb else mm(g, a, True, ta)
  return (_sum_to_shape(da, residuals[0].shape),
          _sum_to_shape(db, residuals[1].shape))


_product.defvjp(_product_fwd, _product_bwd)


def matmul(kernel: kernel_lib.Kernel, a, b, call, config) -> jax.Array:
  """`a @ b` with `kernel`, for a call checked by `validation`."""
  if call.is_empty:
    return call.empty_result()
  a, b = jnp.asarray(a), jnp.asarray(b)
  op = kernel_lib.Op(kernel, config, call.precision, call.out_dtype,
                     call.interpret)
  # jnp.matmul's promotion: a vector a is a (1, K) row, a vector b a (K, 1)
  # column, and the unit dimension is dropped from the result.
  out = _product(a.reshape(1, -1) if a.ndim == 1 else a,
                 b.reshape(-1, 1) if b.ndim == 1 else b, op)
  return out.reshape(call.out_shape)
