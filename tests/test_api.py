"""Correctness of every implementation against a float64 NumPy reference.

Compiled on a GPU, interpreted on the CPU: the same bodies, with larger
shapes on the GPU where they cost nothing.
"""


import jax
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton
import jax.numpy as jnp
import numpy as np
import pytest

import pallas_tiled
from pallas_tiled import accuracy
from pallas_tiled import tiled
from tests import helpers

IMPLS = pallas_tiled.IMPLEMENTATIONS

# (M, N, K): dimensions of 1, 7, 127, 129 and 1000, square and rectangular.
SHAPES = [
    (1, 1, 1),
    (7, 7, 7),
    (1, 129, 127),
    (127, 1, 129),
    (129, 127, 7),
    (128, 256, 64),
    (1000, 7, 129),
    (33, 1000, 1000),
]
if helpers.ON_GPU:
  SHAPES += [(1000, 1000, 1000), (4097, 4097, 4097), (127, 4097, 1000),
             (4097, 129, 4097)]


def _shape_id(shape):
  return "x".join(map(str, shape))


def _dtype_id(dtype):
  return jnp.dtype(dtype).name


@pytest.mark.parametrize("shape", SHAPES, ids=_shape_id)
@pytest.mark.parametrize("dtype", helpers.DTYPES, ids=_dtype_id)
@pytest.mark.parametrize("impl", IMPLS)
def test_matches_float64_reference(impl, dtype, shape, rng):
  a, b = helpers.random_operands(rng, *shape, dtype)
  out = helpers.call_with_poisoned_output(IMPLS[impl], a, b)
  helpers.assert_matmul_close(out, a, b)


@pytest.mark.parametrize("shape", [(7, 129, 127), (129, 127, 1000)],
                         ids=_shape_id)
@pytest.mark.parametrize("impl", IMPLS)
def test_highest_precision_is_full_float32(impl, shape, rng):
  a, b = helpers.random_operands(rng, *shape, jnp.float32)
  out = IMPLS[impl](a, b, precision=lax.Precision.HIGHEST)
  helpers.assert_matmul_close(out, a, b, precision=lax.Precision.HIGHEST)


@pytest.mark.parametrize("impl", IMPLS)
def test_float8_takes_any_precision(impl, rng):
  """float8 products are exact: HIGHEST asks nothing more of them."""
  a, b = helpers.random_operands(rng, 65, 130, 129, helpers.FLOAT8)
  out = IMPLS[impl](a, b, precision=lax.Precision.HIGHEST,
                    preferred_element_type=jnp.float32)
  helpers.assert_matmul_close(out, a, b, out_dtype=jnp.float32)


@pytest.mark.parametrize(
    "dtype, out_dtype",
    [(jnp.bfloat16, jnp.float32), (jnp.float16, jnp.float32),
     (jnp.float32, jnp.bfloat16), (helpers.FLOAT8, jnp.float32),
     (helpers.FLOAT8, jnp.bfloat16)],
    ids=["bf16->f32", "f16->f32", "f32->bf16", "f8->f32", "f8->bf16"])
@pytest.mark.parametrize("impl", IMPLS)
def test_preferred_element_type_sets_result_dtype(impl, dtype, out_dtype,
                                                  rng):
  a, b = helpers.random_operands(rng, 65, 33, 129, dtype)
  out = IMPLS[impl](a, b, preferred_element_type=out_dtype)
  expected = jnp.matmul(a, b, preferred_element_type=out_dtype)
  assert out.dtype == expected.dtype
  helpers.assert_matmul_close(out, a, b, out_dtype=out_dtype)


@pytest.mark.parametrize("dtype", helpers.DTYPES, ids=_dtype_id)
@pytest.mark.parametrize("impl", IMPLS)
def test_result_dtype_matches_jnp(impl, dtype, rng):
  a, b = helpers.random_operands(rng, 16, 16, 16, dtype)
  assert IMPLS[impl](a, b).dtype == jnp.matmul(a, b).dtype


@pytest.mark.parametrize("impl", IMPLS)
def test_composes_under_jit(impl, rng):
  """Two chained products and elementwise work, traced into one jit."""
  fn = IMPLS[impl]

  @jax.jit
  def f(a, b, c):
    return jnp.tanh(fn(fn(a, b, precision="highest"), c,
                       precision="highest")) * 2.0

  # The second call, with fresh values, reuses the first call's trace.
  for _ in range(2):
    a, b = helpers.random_operands(rng, 65, 47, 129, jnp.float32)
    c = jnp.asarray(rng.standard_normal((47, 30)), jnp.float32)
    expected = np.tanh(helpers.as_f64(a) @ helpers.as_f64(b)
                       @ helpers.as_f64(c)) * 2.0
    assert accuracy.relative_error(f(a, b, c), expected) < 1e-5


@pytest.mark.parametrize(
    "shape", [(0, 5, 7), (5, 0, 7), (5, 7, 0), (0, 0, 0)], ids=_shape_id)
@pytest.mark.parametrize("impl", IMPLS)
def test_zero_size_dimensions_follow_jnp(impl, shape):
  m, n, k = shape
  a, b = jnp.ones((m, k), jnp.bfloat16), jnp.ones((k, n), jnp.bfloat16)
  out = IMPLS[impl](a, b)
  expected = jnp.matmul(a, b)
  assert out.shape == expected.shape and out.dtype == expected.dtype
  np.testing.assert_array_equal(np.asarray(out, np.float32),
                                np.asarray(expected, np.float32))


# Tiles that divide nothing evenly, tiny and odd (interpret mode takes any
# positive tile), and what the compiled path runs.
CONFIGS = [
    pallas_tiled.TileConfig(16, 16, 16, num_warps=4, num_stages=2),
    pallas_tiled.TileConfig(32, 64, 16, num_warps=4, num_stages=3, group_m=3),
    pallas_tiled.TileConfig(64, 32, 128, num_warps=4, num_stages=2,
                            k_major_b=True),
    pallas_tiled.TileConfig(128, 128, 32, num_warps=8, num_stages=4,
                            group_m=8),
    # Split-K: 150 = 5 phases of 32, so 2 splits of 3 + 2 phases (the last
    # one partial) and 4 splits of 2 + 2 + 1 + 0 phases (one split idle).
    pallas_tiled.TileConfig(32, 32, 32, split_k=2),
    pallas_tiled.TileConfig(16, 64, 32, split_k=4, group_m=2, k_major_b=True),
    pallas_tiled.TileConfig(64, 64, 32, align_operands=True),
    pallas_tiled.TileConfig(32, 64, 64, split_k=2, k_major_b=True,
                            align_operands=True),
]
TOY_CONFIGS = [
    pallas_tiled.TileConfig(3, 5, 2),
    pallas_tiled.TileConfig(7, 1, 9),
    pallas_tiled.TileConfig(3, 4, 5, group_m=2, split_k=3, k_major_b=True,
                            align_operands=True),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.label)
@pytest.mark.parametrize("impl", ["tiled", "naive"])
def test_explicit_configs(impl, config, rng):
  """The naive kernel takes only block_m, block_n and num_warps of these."""
  a, b = helpers.random_operands(rng, 100, 70, 150, jnp.bfloat16)
  out = helpers.call_with_poisoned_output(IMPLS[impl], a, b, config=config)
  helpers.assert_matmul_close(out, a, b)


@pytest.mark.parametrize("config", TOY_CONFIGS, ids=lambda c: c.label)
@pytest.mark.parametrize("impl", ["tiled", "naive"])
def test_interpret_mode_takes_any_positive_tile(impl, config, rng):
  a, b = helpers.random_operands(rng, 10, 11, 13, jnp.float32)
  out = helpers.call_with_poisoned_output(IMPLS[impl], a, b, config=config,
                                          interpret=True)
  helpers.assert_matmul_close(out, a, b)


def _writes_first_tile_only(o_ref):
  @pl.when((pl.program_id(0) == 0) & (pl.program_id(1) == 0))
  def _():
    o_ref[...] = jnp.ones(o_ref.shape, o_ref.dtype)


def test_poison_harness_catches_unwritten_elements(rng):
  """The poisoning harness must see a kernel that skips all but one tile."""
  del rng

  def partial_writer(a, b):
    del b
    return pl.pallas_call(
        _writes_first_tile_only,
        out_shape=jax.ShapeDtypeStruct((32, 32), jnp.float32),
        grid=(2, 2),
        out_specs=pl.BlockSpec((16, 16), lambda i, j: (i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=4),
        interpret=not helpers.ON_GPU,
        name="partial_writer",
    )()

  x = jnp.ones((32, 32), jnp.float32)
  out = np.asarray(helpers.call_with_poisoned_output(partial_writer, x, x))
  assert (out[:16, :16] == 1).all()
  assert np.isnan(out[16:, :]).all() and np.isnan(out[:, 16:]).all()


def test_tolerance_rejects_tf32_rounding_at_highest_precision(rng):
  """The float32 HIGHEST bound is tight enough to catch a TF32 product."""
  a, b = helpers.random_operands(rng, 64, 64, 1024, jnp.float32)
  tf32 = lambda x: np.asarray(x).view(np.uint32) & np.uint32(0xFFFFE000)
  out = tf32(a).view(np.float32) @ tf32(b).view(np.float32)
  ref = helpers.as_f64(a) @ helpers.as_f64(b)
  err = accuracy.relative_error(out, ref)
  assert err > accuracy.tolerance(a, b, ref, jnp.float32,
                                  lax.Precision.HIGHEST)
  assert err < accuracy.tolerance(a, b, ref, jnp.float32)


@pytest.mark.parametrize("transposes", [(True, False), (False, True),
                                        (True, True)],
                         ids=["a-stored-KxM", "b-stored-NxK", "both"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.label)
def test_transposed_operand_kernels(config, transposes, rng):
  """The backward's kernel variants read a stored (K, M) and b stored (N, K)
  in place; every knob must hold for them too."""
  transpose_a, transpose_b = transposes
  a, b = helpers.random_operands(rng, 100, 70, 150, jnp.bfloat16)
  out = helpers.stored_product(tiled.batched_product, a, b,
                               transpose_a=transpose_a,
                               transpose_b=transpose_b, config=config)
  helpers.assert_matmul_close(out, a, b)
