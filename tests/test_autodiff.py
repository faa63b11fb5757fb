"""Autodiff through the Pallas kernels, in both modes.

The backward products run our own kernels on the operands as stored; the
gradients are checked numerically (check_grads, float32 at HIGHEST) and
against float64 references in every dtype. Forward and mixed modes are
checked against jnp.matmul's derivatives.
"""

import jax
from jax import lax
import jax.numpy as jnp
from jax.test_util import check_grads
import numpy as np
import pytest

import pallas_tiled
from pallas_tiled import accuracy
from tests import helpers

KERNELS = ["tiled", "naive"]
IMPLS = pallas_tiled.IMPLEMENTATIONS


def _shapes_id(shapes):
  return "@".join("x".join(map(str, s)) for s in shapes)


GRAD_SHAPES = [
    ((5, 7), (7, 3)),
    ((2, 5, 7), (7, 3)),        # Shared b: its gradient sums the batch.
    ((3, 1, 5, 7), (4, 7, 3)),  # Broadcast both ways.
    ((7,), (7, 3)),
    ((5, 7), (7,)),
]


@pytest.mark.parametrize("shapes", GRAD_SHAPES, ids=_shapes_id)
@pytest.mark.parametrize("impl", KERNELS)
def test_check_grads_first_and_second_order(impl, shapes, rng):
  a, b = (helpers.random_array(rng, s, jnp.float32) for s in shapes)
  fn = lambda x, y: IMPLS[impl](x, y, precision=lax.Precision.HIGHEST)
  # A matmul is a polynomial of degree 2 in (a, b), its vjp of degree 3, so
  # central differences lose little to a wide step, and float32 rounding
  # would swamp a narrow one: with JAX's default step, a second-order check
  # on the H200 missed by 3% on one seed.
  check_grads(fn, (a, b), order=2, modes=["rev"], atol=1e-2, rtol=1e-2,
              eps=1e-2)


def _grad_references(a, b, ct):
  """float64 dA = dC·Bᵀ and dB = Aᵀ·dC, with the pairs of factors whose
  product each is (for its tolerance). b is 2-D or batched like a."""
  a64, b64, ct64 = map(helpers.as_f64, (a, b, ct))
  if b.ndim == 2 and a.ndim == 3:  # Shared b: contract over batch and rows.
    a64, ct64 = a64.reshape(-1, a.shape[-1]), ct64.reshape(-1, ct.shape[-1])
  da_factors = (ct, jnp.swapaxes(b, -1, -2))
  db_factors = (jnp.swapaxes(a64, -1, -2), ct64)
  return (np.matmul(*map(helpers.as_f64, da_factors)), da_factors,
          np.matmul(*db_factors), db_factors)


GRAD_CASES = [
    ((1, 129), (129, 127)),
    ((127, 7), (7, 1000)),
    ((3, 65, 33), (3, 33, 129)),
    ((4, 33, 129), (129, 65)),
]
if helpers.ON_GPU:
  GRAD_CASES += [((1000, 1000), (1000, 1000)),
                 ((8, 512, 4097), (4097, 129))]


# The naive kernel's backward is the same custom_vjp over the same batching
# as the tiled one's: on the CPU it takes a 2-D and a shared-b case (each
# interpreted case costs about a second, whatever its size).
GRAD_IMPL_CASES = [
    pytest.param(impl, shapes, id=f"{impl}-{_shapes_id(shapes)}")
    for impl in KERNELS for shapes in GRAD_CASES
    if impl == "tiled" or helpers.ON_GPU or shapes in GRAD_CASES[1::2]]


@pytest.mark.parametrize("dtype", helpers.DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("impl, shapes", GRAD_IMPL_CASES)
def test_gradients_match_float64_in_every_dtype(impl, dtype, shapes, rng):
  a, b = (helpers.random_array(rng, s, dtype) for s in shapes)
  out, vjp = jax.vjp(IMPLS[impl], a, b)
  ct = helpers.random_array(rng, out.shape, dtype)
  da, db = jax.jit(vjp)(ct)
  assert da.dtype == a.dtype and db.dtype == b.dtype
  da_ref, da_factors, db_ref, db_factors = _grad_references(a, b, ct)
  for grad, ref, factors in ((da, da_ref, da_factors),
                             (db, db_ref, db_factors)):
    assert grad.shape == ref.shape
    err = accuracy.relative_error(grad, ref)
    tol = accuracy.tolerance(*factors, ref, dtype)
    assert err <= tol, f"relative error {err:.3e} > tolerance {tol:.3e}"


@pytest.mark.parametrize("impl", KERNELS)
def test_preferred_element_type_and_precision_carry_through(impl, rng):
  """bfloat16 in, float32 out: grads come back bfloat16; the float32
  cotangent (bfloat16-representable here) runs through bfloat16 kernels.
  float32 at HIGHEST: the backward holds the HIGHEST tolerance."""
  a, b = helpers.random_operands(rng, 65, 33, 129, jnp.bfloat16)
  fn = lambda x, y: IMPLS[impl](x, y, preferred_element_type=jnp.float32)
  out, vjp = jax.vjp(fn, a, b)
  assert out.dtype == jnp.float32
  ct = helpers.random_array(rng, out.shape, jnp.bfloat16).astype(jnp.float32)
  da, db = vjp(ct)
  assert da.dtype == db.dtype == jnp.bfloat16
  helpers.assert_matmul_close(da, ct.astype(jnp.bfloat16), b.T)
  helpers.assert_matmul_close(db, a.T, ct.astype(jnp.bfloat16))

  highest = lax.Precision.HIGHEST
  a, b = helpers.random_operands(rng, 65, 33, 1000, jnp.float32)
  fn = lambda x, y: IMPLS[impl](x, y, precision=highest)
  ct = helpers.random_array(rng, (65, 33), jnp.float32)
  da, db = jax.vjp(fn, a, b)[1](ct)
  helpers.assert_matmul_close(da, ct, b.T, precision=highest)
  helpers.assert_matmul_close(db, a.T, ct, precision=highest)


PRODUCT = "pallas_tiled_product"


@pytest.mark.parametrize("impl", KERNELS)
def test_backward_reads_operands_in_place(impl):
  """Forward and backward: three kernels and no transposed copies, nor
  any XLA dot."""
  a, b = jnp.ones((64, 32), jnp.bfloat16), jnp.ones((32, 16), jnp.bfloat16)
  loss = lambda x, y: IMPLS[impl](x, y).astype(jnp.float32).sum()
  jaxpr = jax.make_jaxpr(jax.grad(loss, (0, 1)))(a, b).jaxpr
  names = helpers.primitive_names(jaxpr)
  assert names.count(PRODUCT) == 3 and "dot_general" not in names
  names = helpers.primitive_names(jaxpr, expand_kernels=True)
  assert names.count("pallas_call") == 3
  assert "transpose" not in names


def _sin_loss(matmul):
  """A scalar loss whose second derivatives are not just products. Not
  tanh: its float32 derivative 1 - tanh(z)² cancels for |z| > 4, where a
  last-bit difference in z (another summation order) moves it by 1e-3."""
  return lambda x, y: jnp.sin(matmul(x, y, precision="highest")).sum()


def _jvp_both(matmul):
  return lambda x, y: jax.jvp(lambda x, y: matmul(x, y, precision="highest"),
                              (x, y), (jnp.cos(x), jnp.sin(y)))


def _linearized(matmul):
  def fn(x, y):
    _, lin = jax.linearize(lambda x: matmul(x, y, precision="highest"), x)
    return lin(jnp.cos(x))
  return fn


PLAIN, BROADCAST, VECTOR = ((3, 5), (5, 2)), ((2, 1, 2, 3), (2, 3, 2)), (
    (3,), (3, 2))
# Each transform of a matmul-based function, first and second derivatives
# in forward, reverse and mixed modes, on one of a plain product, a
# broadcast batch and a vector (interpret mode compiles each case: all
# nine pairs would cost the CPU suite half a minute).
TRANSFORMS = {
    "jvp": (_jvp_both, BROADCAST),
    "linearize": (_linearized, VECTOR),
    "jacfwd": (lambda mm: jax.jacfwd(
        lambda x, y: mm(x, y, precision="highest"), (0, 1)), PLAIN),
    "hessian": (lambda mm: jax.hessian(_sin_loss(mm), (0, 1)), VECTOR),
    "jacfwd_of_grad": (
        lambda mm: jax.jacfwd(jax.grad(_sin_loss(mm), 1), 0), BROADCAST),
    "jacrev_of_jacfwd": (
        lambda mm: jax.jacrev(jax.jacfwd(_sin_loss(mm), 0), 1), PLAIN),
    "grad_of_jvp": (lambda mm: jax.grad(
        lambda x, y: _jvp_both(mm)(x, y)[1].sum() ** 2, (0, 1)), BROADCAST),
}


@pytest.mark.parametrize("transform", list(TRANSFORMS))
def test_forward_and_mixed_modes_match_jnp(transform, rng):
  """Every derivative matches jnp.matmul's and runs only our kernels: no
  dot_general in the jaxpr outside them."""
  make, shapes = TRANSFORMS[transform]
  a, b = (helpers.random_array(rng, s, jnp.float32) for s in shapes)
  ours, ref = make(pallas_tiled.matmul), make(jnp.matmul)
  names = helpers.primitive_names(jax.make_jaxpr(ours)(a, b).jaxpr)
  assert PRODUCT in names and "dot_general" not in names
  # HIGHEST is three-pass TF32 on the GPU (jnp's is IEEE float32): its
  # products differ by ~1e-6; a wrong term would differ by O(1).
  for out, want in zip(jax.tree.leaves(jax.jit(ours)(a, b)),
                       jax.tree.leaves(ref(a, b))):
    assert out.shape == want.shape and out.dtype == want.dtype
    np.testing.assert_allclose(out, want, rtol=1e-4,
                               atol=1e-4 * float(jnp.abs(want).max()))


JVPS = {
    "a_and_b": (lambda a, b: jax.jvp(pallas_tiled.matmul, (a, b), (a, b)),
                3),
    "a_only": (lambda a, b: jax.jvp(lambda x: pallas_tiled.matmul(x, b),
                                    (a,), (a,)), 2),
}


@pytest.mark.parametrize("tangents", list(JVPS))
def test_jvp_costs_one_kernel_per_nonzero_tangent(tangents):
  """dC = dA·B + A·dB: a zero tangent (an argument not differentiated)
  adds no kernel."""
  fn, products = JVPS[tangents]
  jaxpr = jax.make_jaxpr(fn)(jnp.ones((8, 4)), jnp.ones((4, 2))).jaxpr
  assert helpers.primitive_names(jaxpr).count(PRODUCT) == products


def _mlp_loss(matmul, params, x, y):
  """A two-layer MLP: the README's example."""
  w1, w2 = params
  hidden = jax.nn.relu(matmul(x, w1, precision="highest"))
  return jnp.mean((matmul(hidden, w2, precision="highest") - y) ** 2)


def test_jit_grad_of_a_vmapped_mlp_matches_jnp(rng):
  """jit(grad(...)) of a loss built on vmap(matmul), against jnp.matmul."""
  params = (helpers.random_array(rng, (33, 65), jnp.float32) / 6,
            helpers.random_array(rng, (65, 7), jnp.float32) / 8)
  x = helpers.random_array(rng, (4, 16, 33), jnp.float32)
  y = helpers.random_array(rng, (4, 16, 7), jnp.float32)

  def batched_loss(matmul, params, x, y):
    per_example = lambda xi, yi: _mlp_loss(matmul, params, xi, yi)
    return jax.vmap(per_example)(x, y).mean()

  grad = lambda matmul: jax.jit(jax.grad(
      lambda p: batched_loss(matmul, p, x, y)))(params)
  for ours, ref in zip(grad(pallas_tiled.matmul), grad(jnp.matmul)):
    np.testing.assert_allclose(ours, ref, rtol=1e-4,
                               atol=1e-5 * float(jnp.abs(ref).max()))
