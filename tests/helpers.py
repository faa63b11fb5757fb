"""Shared test tools: operands, the float64 reference, tolerances, poisoning.

The same tests run compiled on a GPU and through Pallas interpret mode on a
CPU-only JAX; `ON_GPU` only decides which shapes are large enough to be worth
running.
"""

from __future__ import annotations

import functools

import jax
from jax.extend import core as jax_core
import jax.numpy as jnp
import numpy as np

import pallas_tiled
from pallas_tiled import accuracy
from pallas_tiled import autodiff
from pallas_tiled import batching
from pallas_tiled import dtypes
from pallas_tiled import platforms

ON_GPU = jax.default_backend() == "gpu"
FLOAT8 = jnp.float8_e4m3fn
DTYPES = (jnp.float32, jnp.bfloat16, jnp.float16, FLOAT8)
# matmul on the Mosaic GPU backend, by name; on the CPU it runs Mosaic GPU's
# interpreter (slow, so tests give it fewer and smaller shapes).
mosaic_matmul = functools.partial(pallas_tiled.matmul, backend="mosaic")
# Every implementation, and matmul on Mosaic GPU as "mosaic".
IMPLS_AND_MOSAIC = pallas_tiled.IMPLEMENTATIONS | {"mosaic": mosaic_matmul}


def random_array(rng, shape, dtype):
  """Fresh standard-normal values (no zeros drawn, as they hide unwritten
  tiles; float8 still rounds |x| < 2^-10 to zero), float64 with all of its
  bits, complex parts both normal; int8 uniform over all its values."""
  dtype = jnp.dtype(dtype)
  if dtype == jnp.int8:
    values = rng.integers(-128, 128, shape)
  elif dtype in dtypes.COMPLEX_DTYPES:
    values = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
  elif dtype == jnp.float64:
    values = rng.standard_normal(shape)
  else:
    values = rng.standard_normal(shape, np.float32)
    # float32's sampler returns an exact zero now and then (a -0.0 among
    # 4096 draws divided a relative error by zero in CI): ones instead.
    values = np.where(values == 0, np.float32(1), values)
  # Cast on the host (ml_dtypes rounds to nearest even, as XLA does) and
  # device_put: jnp.asarray would compile a cast and a copy for each shape.
  return jax.device_put(values.astype(dtype))


def random_operands(rng, m, n, k, dtype):
  """Fresh (M, K) and (K, N) operands."""
  return random_array(rng, (m, k), dtype), random_array(rng, (k, n), dtype)


as_f64 = accuracy.as_float64


def stored_product(batched_product, a, b, *, transpose_a, transpose_b,
                   config, out_dtype=None):
  """A kernel's `batched_product` of a @ b (in `out_dtype`, default a's)
  with a stored (K, M) if `transpose_a` and b stored (N, K) if
  `transpose_b`, as the backward reads them: compiled on a GPU, interpreted
  on a CPU."""
  a_stored = a.T if transpose_a else a
  b_stored = b.T if transpose_b else b
  problem = batching.BatchedProblem.from_shapes(
      a_stored.shape, b_stored.shape, transpose_a=transpose_a,
      transpose_b=transpose_b)
  out = batched_product(
      a_stored[None], b_stored[None], problem=problem, config=config,
      precision=None, out_dtype=out_dtype or a.dtype, interpret=not ON_GPU)
  return out[0]


def cuda_module_text(batched_product, a_shape, b_shape, dtype, *, config,
                     transpose_a=False, transpose_b=False, precision=None,
                     out_dtype=None) -> str:
  """The module a kernel's `batched_product` lowers to for CUDA, on any
  machine (Mosaic GPU's passes run; no GPU needed): a of `a_shape` and b of
  `b_shape` as stored (batch first), `dtype` in, `out_dtype` (default
  `dtype`) out."""
  a = jax.ShapeDtypeStruct(a_shape, dtype)
  b = jax.ShapeDtypeStruct(b_shape, dtype)
  problem = batching.BatchedProblem.from_shapes(
      a_shape, b_shape, transpose_a=transpose_a, transpose_b=transpose_b)
  traced = batched_product.trace(
      a, b, problem=problem, config=config, precision=precision,
      out_dtype=out_dtype or dtype, interpret=False)
  return traced.lower(lowering_platforms=("cuda",)).as_text()


def assert_matmul_close(out, a, b, *, out_dtype=None, precision=None):
  out_dtype = jnp.dtype(out_dtype or a.dtype)
  assert out.dtype == out_dtype, (out.dtype, out_dtype)
  ref = np.matmul(as_f64(a), as_f64(b))
  assert out.shape == ref.shape, (out.shape, ref.shape)
  assert not np.isnan(as_f64(out)).any(), "unwritten (NaN) output elements"
  err = accuracy.relative_error(out, ref)
  tol = accuracy.tolerance(a, b, ref, out_dtype, precision)
  assert err <= tol, f"relative error {err:.3e} > tolerance {tol:.3e}"


# The output poisoning shared with benchmarks/fuzz.py.
call_with_poisoned_output = accuracy.call_with_poisoned_output


def launch_jaxpr(eqn):
  """What a product primitive's equation lowers to for the CPU: one
  launch (reshapes, pads, the pallas_call)."""
  launch = functools.partial(
      batching.launch, op=platforms.resolved(eqn.params["op"], "cpu"))
  return jax.make_jaxpr(launch)(*(v.aval for v in eqn.invars)).jaxpr


def primitive_names(jaxpr, *, expand_kernels=False):
  """The primitives of a jaxpr and of the jaxprs in its params, in order.

  With `expand_kernels`, each product primitive is followed by what its
  lowering traces for the CPU (one launch: reshapes, pads, the pallas_call);
  without it, the product primitive's own name stands for its kernel, and
  the kernels' bodies (their dots) are not walked.
  """
  names = []
  for eqn in jaxpr.eqns:
    names.append(eqn.primitive.name)
    if eqn.primitive is autodiff.product_p and expand_kernels:
      names += primitive_names(launch_jaxpr(eqn), expand_kernels=True)
    if eqn.primitive.name == "pallas_call" and not expand_kernels:
      continue
    for param in eqn.params.values():
      # A closed jaxpr (jit's, a loop's) or a plain one (a kernel's body).
      inner = param if isinstance(param, jax_core.Jaxpr) else getattr(
          param, "jaxpr", None)
      if inner is not None:
        names += primitive_names(getattr(inner, "jaxpr", inner),
                                 expand_kernels=expand_kernels)
  return names
