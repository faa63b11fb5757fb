"""jnp.matmul's shape semantics and jax.vmap (`batching.py`), on every
implementation.

Batch dimensions broadcast as in NumPy, 1-D operands are vectors, and vmap
maps onto the kernels' batch grid axis. References are float64 NumPy.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import pallas_tiled
from pallas_tiled import autodiff
from pallas_tiled import batching
from tests import helpers

IMPLS = pallas_tiled.IMPLEMENTATIONS


def _shapes_id(shapes):
  return "@".join("x".join(map(str, s)) or "scalar" for s in shapes)


# (a.shape, b.shape): batches, broadcasts, vectors and odd sizes.
SHAPE_PAIRS = [
    ((2, 5, 7), (2, 7, 3)),          # Same batch.
    ((3, 1, 5, 7), (4, 7, 3)),       # Broadcast both ways: batch (3, 4).
    ((4, 33, 17), (17, 9)),          # Shared b: folded into a's rows.
    ((9, 17), (2, 3, 17, 33)),       # Shared a.
    ((7,), (7, 3)),                  # Vector-matrix.
    ((5, 7), (7,)),                  # Matrix-vector.
    ((129,), (129,)),                # Vector-vector: a scalar result.
    ((2, 3, 127), (127,)),           # Batched matrix-vector.
    ((127,), (2, 127, 1)),           # Vector times a batch of columns.
    ((1, 1, 129), (2, 1, 129, 1)),   # Unit sizes everywhere.
]
if helpers.ON_GPU:
  SHAPE_PAIRS += [((8, 1000, 1000), (8, 1000, 1000)),
                  ((3, 1, 129, 4097), (2, 4097, 127))]


# "mosaic" (helpers.mosaic_matmul): fewer, as Mosaic GPU's interpreter is
# slow.
MOSAIC_SHAPE_PAIRS = [
    ((3, 1, 65, 70), (2, 70, 33)),   # Broadcast batches.
    ((2, 70), (70, 3)),              # A batch of row vectors: M = 2.
    ((5, 40, 64), (64,)),            # Batched matrix-vector.
]
# Not xla: on the H200, jnp.matmul's own bfloat16 dot of two 129-long
# vectors missed this bound (relative error 2.6e-2 against 3.9e-3).
SHAPE_CASES = [
    pytest.param(impl, shapes, id=f"{impl}-{_shapes_id(shapes)}")
    for impl, pairs in [("tiled", SHAPE_PAIRS), ("naive", SHAPE_PAIRS),
                        ("mosaic", MOSAIC_SHAPE_PAIRS)]
    for shapes in pairs]


@pytest.mark.parametrize("impl, shapes", SHAPE_CASES)
def test_shapes_follow_jnp_matmul(impl, shapes, rng):
  a, b = (helpers.random_array(rng, s, jnp.bfloat16) for s in shapes)
  out = helpers.call_with_poisoned_output(helpers.IMPLS_AND_MOSAIC[impl],
                                          a, b)
  assert out.shape == jnp.matmul(a, b).shape
  helpers.assert_matmul_close(out, a, b)


@pytest.mark.parametrize("dtype", helpers.DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("impl", ["tiled", "naive"])
def test_broadcast_batches_in_every_dtype(impl, dtype, rng):
  a = helpers.random_array(rng, (3, 1, 65, 129), dtype)
  b = helpers.random_array(rng, (2, 129, 31), dtype)
  out = helpers.call_with_poisoned_output(IMPLS[impl], a, b)
  helpers.assert_matmul_close(out, a, b)


def _vmap_reference(a, b, in_axes):
  """A float64 loop over the mapped axis: what vmap must compute."""
  a_axis, b_axis = in_axes
  size = a.shape[a_axis] if a_axis is not None else b.shape[b_axis]
  take = lambda x, axis, i: x if axis is None else np.take(x, i, axis)
  a, b = helpers.as_f64(a), helpers.as_f64(b)
  return np.stack([np.matmul(take(a, a_axis, i), take(b, b_axis, i))
                   for i in range(size)])


# (in_axes, per-call a.shape, b.shape as passed to vmap).
VMAP_CASES = [
    ((0, None), (4, 5, 7), (7, 3)),
    ((None, 0), (5, 7), (4, 7, 3)),
    ((0, 0), (4, 5, 7), (4, 7, 3)),
    ((1, None), (5, 4, 7), (7, 3)),       # A mapped axis that is not first.
    ((0, 2), (3, 5, 7), (7, 3, 3)),
    ((0, 0), (4, 7), (4, 7, 3)),          # Per-example vector times matrix.
    ((0, None), (4, 7), (2, 7, 3)),       # Vector against a batch of b.
    ((None, 0), (2, 6, 5, 7), (3, 7, 3)),  # Per-example batch broadcast.
]


@pytest.mark.parametrize(
    "case", VMAP_CASES,
    ids=[f"axes{c[0][0]}-{c[0][1]}-{_shapes_id(c[1:])}" for c in VMAP_CASES])
@pytest.mark.parametrize("impl", ["tiled", "naive"])
def test_vmap_over_either_or_both_operands(impl, case, rng):
  in_axes, a_shape, b_shape = case
  a = helpers.random_array(rng, a_shape, jnp.float32)
  b = helpers.random_array(rng, b_shape, jnp.float32)
  fn = lambda x, y: IMPLS[impl](x, y, precision="highest")
  out = jax.jit(jax.vmap(fn, in_axes=in_axes))(a, b)
  ref = _vmap_reference(a, b, in_axes)
  assert out.shape == ref.shape
  assert np.abs(helpers.as_f64(out) - ref).max() <= 1e-5 * np.abs(ref).max()


def test_nested_vmap(rng):
  a = helpers.random_array(rng, (2, 3, 5, 7), jnp.float32)
  b = helpers.random_array(rng, (3, 7, 4), jnp.float32)
  fn = lambda x, y: pallas_tiled.matmul(x, y, precision="highest")
  out = jax.vmap(jax.vmap(fn), in_axes=(0, None))(a, b)
  helpers.assert_matmul_close(out, a, b, precision="highest")


def _pallas_grids(jaxpr):
  """The launch grid of every pallas_call in a jaxpr, recursively (into
  what our product primitives lower to)."""
  grids = []
  for eqn in jaxpr.eqns:
    if eqn.primitive is autodiff.product_p:
      grids += _pallas_grids(helpers.launch_jaxpr(eqn))
    if eqn.primitive.name == "pallas_call":
      mapping = eqn.params["grid_mapping"]
      grids.append((mapping.grid, mapping.vmapped_dims))
    for param in eqn.params.values():
      inner = getattr(param, "jaxpr", None)
      if inner is not None:
        grids += _pallas_grids(getattr(inner, "jaxpr", inner))
  return grids


@pytest.mark.parametrize("impl", ["tiled", "naive"])
def test_vmap_uses_the_batch_grid_axis(impl):
  """Our vmap rule, not Pallas' generic one: no vmapped grid dimensions."""
  a, b = jnp.ones((6, 32, 16), jnp.bfloat16), jnp.ones((6, 16, 8),
                                                      jnp.bfloat16)
  jaxpr = jax.make_jaxpr(jax.vmap(IMPLS[impl]))(a, b)
  [(grid, vmapped)] = _pallas_grids(jaxpr.jaxpr)
  # The batch axis is last (times the K ranges where split-K is picked).
  assert grid[-1] % 6 == 0 and vmapped == ()


def test_transposed_problem_swaps_the_operands():
  """out^T = op(b)^T op(a)^T: b and a as stored, batches swapped with them."""
  p = batching.BatchedProblem.from_shapes((3, 1, 5, 7), (4, 7, 2))
  t = p.transposed()
  assert (t.m, t.n, t.k) == (2, 5, 7)
  assert (t.a_batch, t.b_batch, t.batch) == (p.b_batch, p.a_batch, p.batch)
  assert (t.transpose_a, t.transpose_b) == (True, True)
  assert t.transposed() == p
