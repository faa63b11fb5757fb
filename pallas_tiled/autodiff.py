"""jnp.matmul's semantics for every kernel, in both modes of autodiff.

`matmul(kernel, ...)` is the front door each public entry point calls once
its arguments are checked: operands are cast once to their promoted dtype,
vectors become (1, K) rows or (K, 1) columns as in jnp.matmul, and the
product binds `product_p`, a bilinear primitive like `lax.dot_general`:
* forward mode: dC = dA·B + A·dB, two more products on the same kernel
  (a zero tangent costs nothing: JAX skips its term);
* transpose (reverse mode): dA = dC·Bᵀ and dB = Aᵀ·dC on the same kernel,
  reading the operands transposed where they lie, no transposed copies;
* vmap: `batching.vmap_rule`; lowering: `platforms.register_lowerings`.
Every rule binds `product_p` again, so any composition (grad of jvp,
jacfwd of grad, hessian, vmap of either) runs only our kernels.

A primitive because JAX's higher-level routes each miss a case: a
custom_vjp cannot be jvp'ed; a custom_jvp's tangent must be transposable,
which a pallas_call is not; `linear_call` transposes it but cannot take a
tangent in its residual operand (forward over reverse, as in jax.hessian).
"""

from __future__ import annotations

import dataclasses
import functools
import math

import jax
from jax._src import dispatch as jax_dispatch  # Private: the one use below.
from jax.extend import core as jex_core
from jax.interpreters import ad
from jax.interpreters import batching as jax_batching
import jax.numpy as jnp

from pallas_tiled import batching
from pallas_tiled import kernel as kernel_lib
from pallas_tiled import platforms
from pallas_tiled import sharding
from pallas_tiled import validation
from pallas_tiled import vma

product_p = jex_core.Primitive("pallas_tiled_product")


def product(a, b, op: kernel_lib.Op) -> jax.Array:
  """op(a) @ op(b) for operands of rank >= 2 (batch dims broadcast), in a
  shard_map over Explicit mesh axes (`sharding.over_explicit_axes`)."""
  return sharding.over_explicit_axes(
      functools.partial(_bind, op=op), a, b, transpose_a=op.transpose_a,
      transpose_b=op.transpose_b)


def _bind(a, b, *, op):
  return product_p.bind(a, b, op=op)


def _abstract_eval(a, b, *, op):
  problem = batching.BatchedProblem.from_shapes(
      a.shape, b.shape, transpose_a=op.transpose_a,
      transpose_b=op.transpose_b)
  out = vma.out_aval((*problem.batch, problem.m, problem.n), op.out_dtype,
                     a, b)
  return out, platforms.host_effects(batching.launch, a, b, op)


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


def _cotangent_product(op, dtype):
  """The backward's product in the given layouts: in the operands' dtype,
  which is also the cotangent's (a float32 dC of a bfloat16 product runs
  through bfloat16 kernels)."""
  grad_op = dataclasses.replace(op, out_dtype=jnp.dtype(dtype))
  return lambda x, y, tx, ty: product(x.astype(dtype), y.astype(dtype),
                                      grad_op.transposed(tx, ty))


def _transpose_a(g, a, b, *, op):
  """dop(A) = dC op(B)ᵀ, with op(X) the operand as multiplied (X, or X
  stored transposed), each read in place."""
  mm = _cotangent_product(op, a.aval.dtype)
  if op.transpose_a:
    da = mm(b, g, op.transpose_b, True)
  else:
    da = mm(g, b, False, not op.transpose_b)
  return _sum_to_shape(da, a.aval.shape)


def _transpose_b(g, a, b, *, op):
  """dop(B) = op(A)ᵀ dC."""
  mm = _cotangent_product(op, b.aval.dtype)
  ta = op.transpose_a
  b_shared = (not validation.is_symbolic(*g.shape[:-2])
              and math.prod(b.aval.shape[:-2]) == 1
              and math.prod(g.shape[:-2]) > 1)
  if b_shared and a.shape[:-2] == g.shape[:-2] and not ta:
    # b served every batch element: its gradient sums over the batch, which
    # folds into the contraction: (batch * M, K)ᵀ (batch * M, N).
    a, g = a.reshape(-1, a.shape[-1]), g.reshape(-1, g.shape[-1])
  db = mm(g, a, True, ta) if op.transpose_b else mm(a, g, not ta, False)
  return _sum_to_shape(db, b.aval.shape)


product_p.def_effectful_abstract_eval(_abstract_eval)
product_p.def_impl(platforms.eager_impl(batching.partitioned_launch))
ad.defbilinear(product_p, _transpose_a, _transpose_b)
jax_batching.primitive_batchers[product_p] = functools.partial(
    batching.vmap_rule, product)
platforms.register_lowerings(product_p, batching.partitioned_launch)
# The lowering holds a custom_partitioning call (sharding.py), which needs the
# computation's devices, and jax.jit leaves them out of lowering unless a
# primitive asks. No public route: jax's own cuDNN attention primitives,
# partitioned the same way, register in this private set too.
jax_dispatch.prim_requires_devices_during_lowering.add(product_p)


def matmul(kernel: kernel_lib.Kernel, a, b, call, config) -> jax.Array:
  """`a @ b` with `kernel`, for a call checked by `validation`."""
  if call.is_empty:
    return call.empty_result()
  # jnp.matmul's promotion, one cast outside the kernel (none if equal).
  a, b = jnp.asarray(a, call.dtype), jnp.asarray(b, call.dtype)
  interpret = None if call.interpret_per_platform else call.interpret
  op = kernel_lib.Op(kernel, config, call.precision, call.out_dtype,
                     interpret)
  # jnp.matmul's promotion: a vector a is a (1, K) row, a vector b a (K, 1)
  # column, and the unit dimension is dropped from the result.
  out = product(a.reshape(1, -1) if a.ndim == 1 else a,
                b.reshape(-1, 1) if b.ndim == 1 else b, op)
  return out.reshape(call.out_shape)
