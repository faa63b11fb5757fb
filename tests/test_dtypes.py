"""int8, float64 and complex operands (dtypes.py, complex_products.py):
exact int8 products and jnp.matmul's integer result dtypes, float64 to
float64 accuracy, complex products from three real ones, and the dtypes
refused with a reason.

Compiled on a GPU (int8 on the integer tensor cores, float64 on the FP64
ones: only there do these tests exercise the hardware paths), interpreted on
the CPU. float64 and complex128 run inside `jax.enable_x64(True)`, which
restores the flag afterwards, so that no other test sees 64-bit types.
"""

import jax
from jax import lax
import jax.numpy as jnp
import numpy as np
import pytest

import pallas_tiled
from pallas_tiled import accuracy
from pallas_tiled import dtypes
from tests import helpers

KERNELS = ["tiled", "naive"]
IMPLS = pallas_tiled.IMPLEMENTATIONS
x64 = jax.enable_x64  # A context manager: `with x64(True):`.

# K = 300 and 1000: random int8 sums pass int16's range (|sum| ~ 5e3 * sqrt(K)),
# and stay far within int32's (K * 2^14 < 2^31 for K < 2^17).
INT8_SHAPES = [(1, 1, 1), (7, 13, 300), (65, 33, 1000)]
FLOAT_SHAPES = [(7, 13, 30), (65, 33, 129)]
if helpers.ON_GPU:
  INT8_SHAPES += [(1000, 1000, 4097), (4096, 4096, 4096), (16, 8192, 8192)]
  FLOAT_SHAPES += [(1000, 1000, 1000), (127, 4097, 1000)]


def _shape_id(shape):
  return "x".join(map(str, shape))


def _int8_reference(a, b):
  """The exact int64 product, through float64 BLAS: every partial sum is an
  integer below 2^53 (NumPy's own integer matmul takes minutes at 4096^3)."""
  return np.matmul(np.asarray(a, np.float64),
                   np.asarray(b, np.float64)).astype(np.int64)


@pytest.mark.parametrize("shape", INT8_SHAPES, ids=_shape_id)
@pytest.mark.parametrize("impl", KERNELS)
def test_int8_products_are_exact(impl, shape, rng):
  a, b = helpers.random_operands(rng, *shape, jnp.int8)
  out = helpers.call_with_poisoned_output(IMPLS[impl], a, b,
                                          preferred_element_type=jnp.int32)
  assert out.dtype == jnp.int32
  ref = _int8_reference(a, b)
  np.testing.assert_array_equal(np.asarray(out), ref)
  if shape[2] >= 300:  # Sums an int16 accumulator would have wrapped.
    assert np.abs(ref).max() > np.iinfo(np.int16).max


@pytest.mark.parametrize("impl", [*KERNELS, "xla"])
def test_int8_results_wrap_as_jnp_matmuls_do(impl, rng):
  """int8 x int8 is int8 by default in jnp.matmul, wrapping modulo 2^8: the
  int32 sums cast once."""
  a, b = helpers.random_operands(rng, 9, 17, 300, jnp.int8)
  out = IMPLS[impl](a, b)
  assert out.dtype == jnp.matmul(a, b).dtype == jnp.int8
  np.testing.assert_array_equal(np.asarray(out),
                                _int8_reference(a, b).astype(np.int8))
  np.testing.assert_array_equal(np.asarray(out), np.asarray(jnp.matmul(a, b)))


@pytest.mark.parametrize("config", [
    pallas_tiled.TileConfig(16, 32, 32, split_k=3),
    pallas_tiled.TileConfig(32, 16, 128, k_major_b=True,
                            align_operands=True),
], ids=lambda c: c.label)
def test_int8_knobs_and_batches(config, rng):
  """Split K adds int32 partial sums; K-major B and aligned copies keep
  int8; a broadcast batch and a vector."""
  a = helpers.random_array(rng, (2, 1, 20, 150), jnp.int8)
  b = helpers.random_array(rng, (3, 150, 40), jnp.int8)
  out = pallas_tiled.matmul(a, b, config, preferred_element_type=jnp.int32)
  np.testing.assert_array_equal(np.asarray(out), _int8_reference(a, b))
  v = helpers.random_array(rng, (150,), jnp.int8)
  out = pallas_tiled.matmul(a, v, config, preferred_element_type=jnp.int32)
  np.testing.assert_array_equal(np.asarray(out), _int8_reference(a, v))


# Every place a float8 result is cast: each kernel's store (naive, Triton,
# Mosaic; the tiled default) and XLA's split-K sums (Triton, Mosaic). Not
# jnp.matmul: on an H100 (jax 0.11.2) it clamped 480 to 448 here, and gave
# NaN for long-K sums on the wild-check.
FLOAT8_OVERFLOW_CASES = [
    pytest.param(impl, None, id=impl) for impl in KERNELS] + [
        pytest.param("tiled", config, id=config.label) for config in [
            pallas_tiled.TileConfig(64, 32, 32),
            pallas_tiled.TileConfig(64, 32, 32, split_k=2),
            pallas_tiled.MosaicConfig(tile_m=64, tile_n=64, epi_tile_n=64),
            pallas_tiled.MosaicConfig(tile_m=64, tile_n=64, epi_tile_n=64,
                                      split_k=2)]]


@pytest.mark.parametrize("impl, config", FLOAT8_OVERFLOW_CASES)
def test_float8_results_past_448_are_nan_in_every_path(impl, config, rng):
  """A float8_e4m3fn result that rounds past 448 is NaN (e4m3fn has no
  infinity), as NumPy's cast makes it; 464 rounds to 448. The GPU's own
  conversion clamps to 448, and XLA's sometimes does: without
  `dtypes.cast_result` a kernel's store (compiled) gave 448 where XLA's
  split-K sum of a long-K product gave NaN. Each sum here is exact in
  float32: only the cast differs."""
  m, n, k = 70, 40, 256
  # a's first two columns times b's (equal) first two rows: each result is
  # (a0 + a1) * s, from 5 to 928 in size, past 464 on some rows.
  # The first rows and columns give 448, 464 (to 448), -464, 480 (to NaN),
  # -896, 232 and 5; the rest are drawn from the same values.
  a = np.zeros((m, k), np.float32)
  a[:, 0] = rng.choice([448.0, 224.0, -448.0, 3.0, 0.0], m)
  a[:, 1] = rng.choice([0.0, 16.0, 32.0, -448.0, 2.0], m)
  a[:5, :2] = [[448.0, 0.0], [448.0, 16.0], [448.0, 32.0], [-448.0, -448.0],
               [3.0, 2.0]]
  b = np.zeros((k, n), np.float32)
  b[0] = b[1] = rng.choice([1.0, 0.5, -1.0, 2.0, 0.25], n)
  b[:2, :3] = [1.0, -1.0, 0.5]
  a, b = jnp.asarray(a, helpers.FLOAT8), jnp.asarray(b, helpers.FLOAT8)
  out = IMPLS[impl](a, b) if config is None else pallas_tiled.matmul(
      a, b, config)
  sums = np.matmul(helpers.as_f64(a), helpers.as_f64(b))
  expected = np.asarray(sums.astype(np.float32).astype(helpers.FLOAT8),
                        np.float32)
  assert out.dtype == helpers.FLOAT8
  np.testing.assert_array_equal(np.asarray(out, np.float32), expected)


@pytest.mark.parametrize("shape", FLOAT_SHAPES, ids=_shape_id)
@pytest.mark.parametrize("impl", KERNELS)
def test_float64_to_float64_accuracy(impl, shape, rng):
  with x64(True):
    a, b = helpers.random_operands(rng, *shape, jnp.float64)
    out = helpers.call_with_poisoned_output(IMPLS[impl], a, b)
    helpers.assert_matmul_close(out, a, b)
    assert accuracy.relative_error(out, np.matmul(a, b)) < 1e-12


@pytest.mark.parametrize("impl", KERNELS)
def test_float64_gradients(impl, rng):
  """The backward products run float64 kernels too."""
  with x64(True):
    a, b = helpers.random_operands(rng, 20, 30, 40, jnp.float64)
    ct = helpers.random_array(rng, (20, 30), jnp.float64)
    da, db = jax.vjp(IMPLS[impl], a, b)[1](ct)
    assert da.dtype == db.dtype == jnp.float64
    assert accuracy.relative_error(da, np.matmul(ct, b.T)) < 1e-12
    assert accuracy.relative_error(db, np.matmul(a.T, ct)) < 1e-12


def test_x64_does_not_leak_out_of_the_tests():
  assert not jax.config.jax_enable_x64
  assert jnp.asarray(1.0).dtype == jnp.float32


COMPLEX_CASES = [
    pytest.param(dtype, shape, id=f"{jnp.dtype(dtype).name}-{_shape_id(shape)}")
    for dtype, shape in [(jnp.complex64, (7, 13, 30)),
                         (jnp.complex64, (65, 33, 129)),
                         (jnp.complex128, (65, 33, 129))]]


@pytest.mark.parametrize("dtype, shape", COMPLEX_CASES)
@pytest.mark.parametrize("impl", KERNELS)
def test_complex_products(impl, dtype, shape, rng):
  with x64(dtype == jnp.complex128):
    a, b = helpers.random_operands(rng, *shape, dtype)
    out = helpers.call_with_poisoned_output(IMPLS[impl], a, b)
    helpers.assert_matmul_close(out, a, b)


@pytest.mark.parametrize("impl", KERNELS)
def test_complex_gradients_match_jnp(impl, rng):
  """Reverse mode through the three real products gives jnp.matmul's
  complex gradients (of a real loss), batched and broadcast."""
  with x64(True):
    a = helpers.random_array(rng, (2, 9, 20), jnp.complex128)
    b = helpers.random_array(rng, (20, 11), jnp.complex128)
    w = helpers.random_array(rng, (2, 9, 11), jnp.complex128)
    loss = lambda fn: lambda a, b: jnp.sum(fn(a, b) * w).real
    grads = jax.grad(loss(IMPLS[impl]), (0, 1))(a, b)
    expected = jax.grad(loss(jnp.matmul), (0, 1))(a, b)
    for grad, ref in zip(grads, expected):
      assert grad.dtype == jnp.complex128
      assert accuracy.relative_error(grad, ref) < 1e-12


# (case id, a dtype, b dtype, kwargs, exception, words the message contains)
REFUSED = [
    ("int32", jnp.int32, {}, TypeError, ["a.dtype=int32", "int8 only",
                                         "jnp.matmul"]),
    ("bool", jnp.bool_, {}, TypeError, ["a.dtype=bool", "int8 only"]),
    ("uint8", jnp.uint8, {}, TypeError, ["a.dtype=uint8", "int8 only"]),
    ("float64-without-x64", np.float64, {}, TypeError,
     ["a.dtype=float64", "jax.enable_x64"]),
    ("int8-to-float32", jnp.int8, dict(preferred_element_type=jnp.float32),
     TypeError, ["preferred_element_type", "int8 operands", "int32"]),
    ("float32-to-int32", jnp.float32, dict(preferred_element_type=jnp.int32),
     TypeError, ["preferred_element_type", "float32 operands"]),
]


@pytest.mark.parametrize("case", REFUSED, ids=[c[0] for c in REFUSED])
@pytest.mark.parametrize("impl", IMPLS)
def test_refused_dtypes_name_the_rule(impl, case):
  _, dtype, kwargs, exc, words = case
  a, b = np.ones((4, 8), dtype), np.ones((8, 3), dtype)
  with pytest.raises(exc) as info:
    IMPLS[impl](a, b, **kwargs)
  for word in words:
    assert word in str(info.value), (word, str(info.value))


@pytest.mark.parametrize("dtype", [jnp.int8, jnp.float64],
                         ids=lambda d: jnp.dtype(d).name)
def test_mosaic_refuses_what_its_kernel_does_not_multiply(dtype):
  with x64(True), pytest.raises(ValueError, match="backend='triton'"):
    helpers.mosaic_matmul(np.ones((4, 8), dtype), np.ones((8, 3), dtype))


def test_precision_is_ignored_for_float64_and_int8(rng):
  """As in XLA: float64 products are float64 at any precision; int8 exact."""
  a, b = helpers.random_operands(rng, 20, 30, 40, jnp.int8)
  out = pallas_tiled.matmul(a, b, precision=lax.Precision.HIGHEST,
                            preferred_element_type=jnp.int32)
  np.testing.assert_array_equal(np.asarray(out), _int8_reference(a, b))
  with x64(True):
    a, b = helpers.random_operands(rng, 20, 30, 40, jnp.float64)
    out = pallas_tiled.matmul(a, b, precision=lax.Precision.DEFAULT)
    assert accuracy.relative_error(out, np.matmul(a, b)) < 1e-12


@pytest.mark.parametrize("dtype", [
    jnp.float32, jnp.bfloat16, jnp.float16, helpers.FLOAT8, jnp.int8,
    jnp.float64, jnp.complex64, jnp.complex128], ids=lambda d: jnp.dtype(d).name)
def test_timing_data_for_every_dtype(dtype):
  """`dtypes.random_operand`, the benchmark's, calibration's and autotuner's
  data: of the dtype asked for and not constant (float8 promotes with no
  other dtype: drawing it through jnp.promote_types raised, which failed
  every float8 benchmark run and autotune)."""
  with x64(jnp.dtype(dtype).itemsize == 8 or dtype == jnp.complex128):
    x = dtypes.random_operand(jax.random.key(0), (16, 8), dtype)
    assert x.dtype == jnp.dtype(dtype)
    assert np.unique(np.asarray(x)).size > 4


def test_random_float8_products_stay_in_range():
  """Benchmark data for float8: sums over a long K stay finite (unscaled
  normals reached NaN past 448 at K = 11008, for jnp.matmul and kernels
  alike), yet are far from float8's smallest values (std 16 here)."""
  k = 65536
  keys = jax.random.split(jax.random.key(1))
  a = dtypes.random_operand(keys[0], (64, k), helpers.FLOAT8)
  b = dtypes.random_operand(keys[1], (k, 64), helpers.FLOAT8)
  sums = np.matmul(helpers.as_f64(a), helpers.as_f64(b))
  assert 16 < np.abs(sums).max() < 448
