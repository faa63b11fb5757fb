"""Bad calls fail with a clear error before any kernel is traced: the
argument checks every entry point shares (`validation.py`)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import pallas_tiled
from pallas_tiled import accuracy
from tests import helpers

IMPLS = pallas_tiled.IMPLEMENTATIONS
F32 = jnp.ones((4, 8), jnp.float32)
F32_T = jnp.ones((8, 3), jnp.float32)

# (case id, a, b, kwargs, exception, words the message must contain)
BAD_CALLS = [
    ("a-0d", np.float32(1.0), F32_T, {}, ValueError,
     ["a must have at least 1 dimension", "ndim=0"]),
    ("b-0d", F32, jnp.float32(2.0), {}, ValueError,
     ["b must have at least 1 dimension", "shape ()"]),
    ("batch-mismatch", jnp.ones((2, 4, 8)), jnp.ones((3, 8, 3)), {},
     ValueError, ["batch dimensions do not broadcast", "(2,)", "(3,)"]),
    ("batch-mismatch-broadcast", jnp.ones((3, 2, 4, 8)), jnp.ones((4, 8, 3)),
     {}, ValueError, ["do not broadcast", "(3, 2)", "(4,)"]),
    ("vector-inner-mismatch", jnp.ones((7,)), F32_T, {}, ValueError,
     ["inner dimensions", "K=7", "K=8"]),
    ("batched-inner-mismatch", jnp.ones((2, 4, 8)), jnp.ones((2, 7, 3)), {},
     ValueError, ["inner dimensions", "b.shape[-2]"]),
    ("inner-mismatch", F32, jnp.ones((7, 3)), {}, ValueError,
     ["inner dimensions", "K=8", "K=7"]),
    ("float8-promotes-to-nothing", F32.astype(helpers.FLOAT8),
     F32_T.astype(jnp.bfloat16), {}, TypeError,
     ["do not promote", "float8_e4m3fn", "bfloat16"]),
    ("int-dtype", F32.astype(jnp.int32), F32_T.astype(jnp.int32), {},
     TypeError, ["a.dtype=int32", "not supported"]),
    ("list-input", [[1.0] * 8] * 4, F32_T, {}, TypeError,
     ["a must be an array", "list"]),
    ("str-input", F32, "b", {}, TypeError, ["b must be an array", "str"]),
    ("none-input", None, F32_T, {}, TypeError, ["a must be an array"]),
    ("bad-out-dtype", F32, F32_T, dict(preferred_element_type=jnp.int8),
     TypeError, ["preferred_element_type", "int8"]),
    ("bad-precision", F32, F32_T, dict(precision="medium"), ValueError,
     ["precision='medium'"]),
]


@pytest.mark.parametrize("case", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
@pytest.mark.parametrize("impl", IMPLS)
def test_bad_calls_raise_clear_errors(impl, case):
  _, a, b, kwargs, exc, words = case
  with pytest.raises(exc) as info:
    IMPLS[impl](a, b, **kwargs)
  for word in words:
    assert word in str(info.value), (word, str(info.value))


@pytest.mark.parametrize("impl", IMPLS)
def test_errors_raise_inside_jit_too(impl):
  """Under jit the checks run at trace time, on static shapes."""
  with pytest.raises(ValueError, match="inner dimensions"):
    jax.jit(IMPLS[impl])(F32, jnp.ones((7, 3)))


@pytest.mark.parametrize("impl", ["tiled", "naive"])
def test_config_must_be_a_tile_config(impl):
  with pytest.raises(TypeError, match="config must be one of None, .*"
                     "a TileConfig.*; got \\(32, 32, 32\\)"):
    IMPLS[impl](F32, F32_T, config=(32, 32, 32))


def test_xla_takes_no_config():
  with pytest.raises(ValueError, match="xla_matmul takes no config"):
    pallas_tiled.xla_matmul(F32, F32_T,
                            config=pallas_tiled.TileConfig(16, 16, 16))


@pytest.mark.skipif(helpers.ON_GPU, reason="compiling is valid on a GPU")
def test_compiling_without_a_gpu_is_refused():
  with pytest.raises(ValueError, match="interpret=False compiles a Triton"):
    pallas_tiled.matmul(F32, F32_T, interpret=False)


BIG = 2**31  # One past the largest dimension the Pallas kernels index.


@pytest.mark.parametrize("a_shape, b_shape, words", [
    ((BIG, 8), (8, 8), "M = 2147483648 is over 2147483647"),
    ((8, 8), (8, BIG), "N = 2147483648 is over"),
    ((8, BIG), (BIG, 8), "K = 2147483648 is over"),
    ((2**16, 2**15, 8, 8), (8, 8), "the batch (all batch dimensions"
     " together) = 2147483648 is over"),
], ids=["M", "N", "K", "batch"])
@pytest.mark.parametrize("impl", ["tiled", "naive"])
def test_dimensions_past_int32_are_refused_before_tracing(
    impl, a_shape, b_shape, words):
  """Checked on abstract shapes: nothing is allocated. (Unchecked, JAX
  raised OverflowError from inside the kernels' index math.)"""
  a = jax.ShapeDtypeStruct(a_shape, jnp.bfloat16)
  b = jax.ShapeDtypeStruct(b_shape, jnp.bfloat16)
  with pytest.raises(ValueError) as raised:
    jax.jit(IMPLS[impl]).lower(a, b)
  assert words in str(raised.value)
  # jnp.matmul has no such limit, and xla_matmul keeps its behaviour.
  assert jax.eval_shape(IMPLS["xla"], a, b).shape[-2:] == (a_shape[-2],
                                                           b_shape[-1])


@pytest.mark.parametrize("impl", ["tiled", "naive"])
def test_the_largest_indexable_dimension_lowers(impl):
  a = jax.ShapeDtypeStruct((BIG - 1, 8), jnp.bfloat16)
  b = jax.ShapeDtypeStruct((8, 8), jnp.bfloat16)
  assert jax.jit(IMPLS[impl]).lower(a, b).out_info.shape == (BIG - 1, 8)


@pytest.mark.skipif(not helpers.ON_GPU, reason="4 GiB operands: GPU only")
@pytest.mark.parametrize("backend", ["triton", "mosaic"])
@pytest.mark.parametrize("a_shape, b_shape", [
    ((2**16 + 8, 2**15), (2**15, 64)),   # a: 2^31 + 2^18 elements.
    ((2**16 + 8, 64), (64, 2**15)),      # the output: as many.
], ids=["big-a", "big-out"])
def test_operands_past_int32_elements_index_correctly(backend, a_shape,
                                                      b_shape, rng):
  """Each dimension fits in int32, but offsets into a or the output pass
  2^31: the kernels' address arithmetic must not wrap. Rows at both ends
  are compared with jnp.matmul's."""
  a = helpers.random_array(rng, a_shape, jnp.bfloat16)
  b = helpers.random_array(rng, b_shape, jnp.bfloat16)
  out = pallas_tiled.matmul(a, b, backend=backend)
  for rows in (slice(0, 64), slice(-64, None)):
    ref = accuracy.as_float64(a[rows]) @ accuracy.as_float64(b)
    assert accuracy.relative_error(out[rows], ref) < 1e-2, rows
