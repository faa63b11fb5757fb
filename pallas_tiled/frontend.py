"""jnp.matmul's semantics for every Pallas kernel: shapes, gradients and vmap.

A kernel module supplies one batched product (see `Kernel`); this module
turns it into a function that behaves like jnp.matmul under JAX's
transformations:

* Shapes: 1-D operands (vector-matrix, matrix-vector) and broadcast batch
  dimensions, all mapped onto the kernel's batch grid axis.
* Reverse mode (`jax.grad`, `jax.vjp`): a `jax.custom_vjp` whose backward
  runs the same kernel, reading the operands transposed where they lie:
  dA = dC·Bᵀ and dB = Aᵀ·dC, no transposed copies. The backward is itself
  differentiable, so second-order reverse mode works.
* `jax.vmap`: a `custom_vmap` rule that turns the mapped axis into one more
  batch dimension, i.e. more programs on the batch grid axis.
* Forward mode (`jax.jvp`, `jax.jacfwd`) is not supported: JAX does not
  allow it through a custom_vjp and raises a TypeError saying so.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any, Callable, NamedTuple

import jax
from jax import custom_batching
import jax.numpy as jnp

from pallas_tiled import batching


class Kernel(NamedTuple):
  """What a kernel module provides.

  name: the backend ("triton" or "mosaic"), for logs and benchmark rows.
  product(a, b, *, problem, config, precision, out_dtype, interpret) returns
    (problem.size, M, N) for operands flattened to (batch, rows, cols).
  select_config(m, n, k, dtype, precision, *, out_dtype, auto) picks the
    kernel's config.
  """

  name: str
  product: Callable[..., jax.Array]
  select_config: Callable[..., Any]


# Jits a Kernel's product: everything but the two operands is static.
jit_product = functools.partial(
    jax.jit, static_argnames=("problem", "config", "precision", "out_dtype",
                              "interpret"))


@dataclasses.dataclass(frozen=True)
class _Op:
  """Everything static about one product: hashable, for custom_vjp."""

  kernel: Kernel
  config: Any  # The kernel's config class; None and "auto" select one.
  precision: Any
  out_dtype: Any
  interpret: bool
  transpose_a: bool = False  # a is stored (..., K, M).
  transpose_b: bool = False  # b is stored (..., N, K).

  def transposed(self, transpose_a: bool, transpose_b: bool) -> _Op:
    """This op for a backward product in the given layouts, on the same
    kernel, with a config selected for its own shape (an explicit config
    was chosen for the forward)."""
    return dataclasses.replace(
        self, config="auto" if self.config == "auto" else None,
        transpose_a=transpose_a, transpose_b=transpose_b)


def selection_shape(problem: batching.BatchedProblem) -> tuple[int, int, int]:
  """The (M, N, K) a batched problem's config is picked for.

  Tiles are chosen for the rows of all batch elements together, which decide
  how many programs there are, unless the matrices are skinny (M < 64).
  """
  rows = problem.m * (problem.size if problem.m >= 64 else 1)
  return rows, problem.n, problem.k


def _launch(a, b, op: _Op) -> jax.Array:
  """One kernel launch for (..., M, K) @ (..., K, N) in op's layouts."""
  problem = batching.BatchedProblem.from_shapes(
      a.shape, b.shape, transpose_a=op.transpose_a,
      transpose_b=op.transpose_b)
  out_shape = (*problem.batch, problem.m, problem.n)
  if 0 in (problem.size, problem.m, problem.n, problem.k):
    return jnp.zeros(out_shape, op.out_dtype)
  if (problem.size > 1 and math.prod(problem.b_batch) == 1
      and problem.a_batch == problem.batch and not op.transpose_a):
    # Every batch element shares b: fold the batch into a's rows, one
    # (batch * M, K) @ (K, N) product with larger tiles.
    a = a.reshape(-1, problem.k)
    problem = batching.BatchedProblem.from_shapes(
        a.shape, b.shape[-2:], transpose_b=op.transpose_b)
  config = op.config
  if config is None or config == "auto":
    config = op.kernel.select_config(*selection_shape(problem), a.dtype,
                                     op.precision, out_dtype=op.out_dtype,
                                     auto=config == "auto")
  out = op.kernel.product(
      a.reshape(-1, *a.shape[-2:]), b.reshape(-1, *b.shape[-2:]),
      problem=problem, config=config, precision=op.precision,
      out_dtype=op.out_dtype, interpret=op.interpret)
  return out.reshape(out_shape)


@functools.cache
def _batchable(op: _Op):
  """`_launch` for `op`, with a vmap rule onto the batch grid axis."""

  @custom_batching.custom_vmap
  def product(a, b):
    return _launch(a, b, op)

  @product.def_vmap
  def _vmap_rule(axis_size, in_batched, a, b):
    del axis_size
    # Batch dimensions align from the right, so the mapped axis (in front)
    # must sit left of every per-example batch dimension: pad the shorter
    # batched operand with unit dimensions behind it.
    rank = max(x.ndim - batched for x, batched in zip((a, b), in_batched))
    a, b = (x.reshape(x.shape[0], *(1,) * (rank + 1 - x.ndim), *x.shape[1:])
            if batched else x for x, batched in zip((a, b), in_batched))
    return product(a, b), True

  return product


@functools.partial(jax.custom_vjp, nondiff_argnums=(2,))
def _product(a, b, op: _Op) -> jax.Array:
  return _batchable(op)(a, b)


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


def matmul(kernel: Kernel, a, b, call, config) -> jax.Array:
  """`a @ b` with `kernel`, for a call checked by `validation`."""
  if call.is_empty:
    return call.empty_result()
  a, b = jnp.asarray(a), jnp.asarray(b)
  op = _Op(kernel, config, call.precision, call.out_dtype, call.interpret)
  # jnp.matmul's promotion: a vector a is a (1, K) row, a vector b a (K, 1)
  # column, and the unit dimension is dropped from the result.
  out = _product(a.reshape(1, -1) if a.ndim == 1 else a,
                 b.reshape(-1, 1) if b.ndim == 1 else b, op)
  return out.reshape(call.out_shape)
