"""Every implementation (`matmul` on either backend, `naive_matmul`,
`xla_matmul`) against a float64 NumPy reference, and which backend `matmul`
picks (`api.resolve_backend`).

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
from pallas_tiled import api
from pallas_tiled import device
from pallas_tiled import validation
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
# "mosaic" (helpers.mosaic_matmul): fewer, smaller shapes, as Mosaic GPU's
# interpreter is slow (~1 s a call, whatever the shape, and CPU-bound: more
# workers than cores ran the suite slower): one tile cut to 1x1, and a 2x4
# grid of tiles with ragged edges and a ragged K-tile (narrower outputs:
# tests/mosaic/test_kernel.py's NARROW_SHAPES).
MOSAIC_SHAPES = [(1, 1, 1), (130, 200, 77)]
if helpers.ON_GPU:
  # 50x333x5001: float32 runs Mosaic's K ranges on one 64-row tile.
  SHAPES += [(1000, 1000, 1000), (4097, 4097, 4097), (127, 4097, 1000),
             (4097, 129, 4097), (50, 333, 5001)]
  MOSAIC_SHAPES += [(7, 7, 7), (127, 129, 100), (128, 256, 64),
                    (1000, 1000, 1000),
                    (4097, 4097, 4097),
                    (127, 4097, 1000), (2048, 2048, 2048), (16, 8192, 4096)]


def _shape_id(shape):
  return "x".join(map(str, shape))


def _dtype_id(dtype):
  return jnp.dtype(dtype).name


# The naive kernel interprets one rank-1 update per k and program: on the
# CPU, its K = 1000 runs on few programs (33x1000x1000 took 1-5.6 s a dtype).
NAIVE_SHAPES = [
    (7, 129, 1000) if s == (33, 1000, 1000) and not helpers.ON_GPU else s
    for s in SHAPES]
REFERENCE_CASES = [
    pytest.param(impl, shape, id=f"{impl}-{_shape_id(shape)}")
    for impl, shapes in [*((impl, NAIVE_SHAPES if impl == "naive" else SHAPES)
                           for impl in IMPLS),
                         ("mosaic", MOSAIC_SHAPES)]
    for shape in shapes]


@pytest.mark.parametrize("dtype", helpers.DTYPES, ids=_dtype_id)
@pytest.mark.parametrize("impl, shape", REFERENCE_CASES)
def test_matches_float64_reference(impl, shape, dtype, rng):
  a, b = helpers.random_operands(rng, *shape, dtype)
  out = helpers.call_with_poisoned_output(helpers.IMPLS_AND_MOSAIC[impl],
                                          a, b)
  helpers.assert_matmul_close(out, a, b)


@pytest.mark.parametrize("shape", [(7, 129, 127), (129, 127, 1000)],
                         ids=_shape_id)
@pytest.mark.parametrize("impl", IMPLS)
def test_highest_precision_is_full_float32(impl, shape, rng):
  a, b = helpers.random_operands(rng, *shape, jnp.float32)
  out = IMPLS[impl](a, b, precision=lax.Precision.HIGHEST)
  helpers.assert_matmul_close(out, a, b, precision=lax.Precision.HIGHEST)


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


@pytest.mark.parametrize("shapes", [((40, 30), (30, 20)),
                                    ((3, 40, 30), (30, 20)),
                                    ((30,), (2, 30, 20))],
                         ids=["2d", "batched-a", "vector-a-batched-b"])
def test_tolerance_is_the_same_on_the_host_and_the_device(shapes, rng,
                                                          monkeypatch):
  """Small products size their terms on the host (no compile per shape),
  large ones on the device: both give one tolerance."""
  a = helpers.random_array(rng, shapes[0], jnp.bfloat16)
  b = helpers.random_array(rng, shapes[1], jnp.bfloat16)
  ref = np.matmul(helpers.as_f64(a), helpers.as_f64(b))
  host = accuracy.tolerance(a, b, ref, jnp.bfloat16)
  monkeypatch.setattr(accuracy, "_HOST_TERMS_MAX_MACS", 0)
  device = accuracy.tolerance(a, b, ref, jnp.bfloat16)
  assert host == pytest.approx(device, rel=1e-5)


@pytest.mark.parametrize("out, ok", [(0.0, True), (-0.0, True),
                                     (2.0**-9, False), (np.nan, False)],
                         ids=["zero", "negative-zero", "tiny", "nan"])
def test_all_zero_reference_demands_an_exact_zero(out, ok):
  """A product of zeros has no scale to be relative to: it must be exactly
  zero (a float8 normal draw can round to -0, which once gave 0/0 here)."""
  a = jnp.asarray([[-0.0]], jnp.float8_e4m3fn)
  b = jnp.asarray([[-1.5]], jnp.float8_e4m3fn)
  ref = helpers.as_f64(a) @ helpers.as_f64(b)
  out = np.full((1, 1), out)
  tol = accuracy.tolerance(a, b, ref, jnp.float8_e4m3fn)
  assert (accuracy.relative_error(out, ref) <= tol) == ok


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


MIXED_DTYPES = [(jnp.bfloat16, jnp.float32, None),
                (jnp.float16, jnp.bfloat16, None),
                (jnp.float32, jnp.bfloat16, jnp.bfloat16)]


@pytest.mark.parametrize(
    "a_dtype, b_dtype, out_dtype", MIXED_DTYPES,
    ids=["bf16xf32", "f16xbf16", "f32xbf16->bf16"])
@pytest.mark.parametrize("impl", IMPLS)
def test_mixed_dtypes_promote_as_jnp_matmul(impl, a_dtype, b_dtype,
                                             out_dtype, rng):
  """The operands are cast to jnp's promoted dtype, and the product is that
  dtype's (a float16 x bfloat16 product is float32, by float32 rules)."""
  a = helpers.random_array(rng, (2, 17, 33), a_dtype)
  b = helpers.random_array(rng, (33, 9), b_dtype)
  out = IMPLS[impl](a, b, preferred_element_type=out_dtype,
                    precision="highest")
  expected = jnp.matmul(a, b, preferred_element_type=out_dtype)
  assert out.dtype == expected.dtype
  promoted = jnp.result_type(a, b)
  helpers.assert_matmul_close(out, a.astype(promoted), b.astype(promoted),
                              out_dtype=expected.dtype, precision="highest")


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


def _writes_first_tile_only(o_ref):
  @pl.when((pl.program_id(0) == 0) & (pl.program_id(1) == 0))
  def _():
    o_ref[...] = jnp.ones(o_ref.shape, o_ref.dtype)


# Ten runs on a GPU (the bound), two in the slow interpreters.
DETERMINISM_SHAPE, DETERMINISM_RUNS = (
    ((1000, 1000, 4096), 10) if helpers.ON_GPU else ((40, 72, 200), 2))


@pytest.mark.parametrize("impl, kwargs", [
    ("tiled", dict(backend="triton")),
    ("tiled", dict(config=pallas_tiled.TileConfig(32, 32, 32, split_k=4))),
    ("tiled", dict(backend="mosaic")),
    ("tiled", dict(config=pallas_tiled.MosaicConfig(
        tile_m=64, tile_n=64, epi_tile_n=32, split_k=3))),
    ("tiled", dict(backend="mosaic", precision=lax.Precision.HIGHEST)),
    ("naive", {}),
    ("xla", {}),
], ids=["triton", "triton-split-k", "mosaic", "mosaic-split-k",
        "mosaic-highest", "naive", "xla"])
def test_results_are_bitwise_deterministic(impl, kwargs, rng):
  """The same inputs give the same bits on every run: no atomics, and split
  K's partial sums are added in a fixed order (README)."""
  dtype = jnp.float32 if "precision" in kwargs else jnp.bfloat16
  a, b = helpers.random_operands(rng, *DETERMINISM_SHAPE, dtype)
  fn = jax.jit(lambda a, b: IMPLS[impl](a, b, **kwargs))
  first = np.asarray(fn(a, b)).tobytes()
  for _ in range(DETERMINISM_RUNS - 1):
    assert np.asarray(fn(a, b)).tobytes() == first


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


F32 = jnp.ones((64, 64), jnp.float32)


@pytest.mark.parametrize("kwargs, words", [
    (dict(backend="cuda"), "backend='cuda' is not one of"),
    (dict(backend="triton", config=pallas_tiled.MosaicConfig()),
     "runs on the 'mosaic' backend, but backend='triton'"),
    (dict(backend="mosaic", config=pallas_tiled.TileConfig(16, 16, 16)),
     "runs on the 'triton' backend, but backend='mosaic'"),
    (dict(backend="mosaic", precision=lax.Precision.HIGH),
     r"default precision \(TF32\) or HIGHEST"),
    (dict(config=pallas_tiled.MosaicConfig(tile_k=32, epi_tile_n=32,
                                           split_k=2),
          precision=lax.Precision.HIGHEST),
     "config.split_k=2: float32 at HIGHEST precision runs three-pass TF32"),
], ids=["unknown", "mosaic-config-on-triton", "tile-config-on-mosaic",
        "high", "mosaic-split-k-at-highest"])
def test_backend_errors(kwargs, words):
  with pytest.raises(ValueError, match=words):
    pallas_tiled.matmul(F32, F32, **kwargs)


def _call(m, n, k, dtype=jnp.bfloat16, precision=None, interpret=False):
  return validation.MatmulCall(m, n, k, (), (m, n), jnp.dtype(dtype),
                               jnp.dtype(dtype), precision, interpret)


@pytest.mark.parametrize("call, capability, expected", [
    (_call(4096, 4096, 4096), (9, 0), "mosaic"),
    (_call(1024, 1024, 1024), (9, 0), "mosaic"),
    (_call(512, 512, 512), (9, 0), "mosaic"),          # 32 CTA tiles.
    (_call(256, 256, 256), (9, 0), "triton"),          # Too few CTA tiles.
    (_call(4097, 4097, 4097), (9, 0), "mosaic"),       # Padded.
    (_call(2047, 8191, 1023), (9, 0), "mosaic"),       # Padded, smaller.
    (_call(1000, 1000, 1000), (9, 0), "mosaic"),       # Padded.
    (_call(16, 8192, 8192), (9, 0), "triton"),         # Decode: skinny.
    (_call(2048, 2048, 2048, jnp.float32), (9, 0), "mosaic"),  # TF32.
    (_call(16, 4096, 4096, jnp.float32), (9, 0), "triton"),
    (_call(1024, 1024, 1024, jnp.float32, lax.Precision.HIGHEST), (9, 0),
     "mosaic"),                                         # Three-pass TF32.
    (_call(16, 4096, 4096, jnp.float32, lax.Precision.HIGHEST), (9, 0),
     "triton"),
    (_call(4096, 4096, 4096), (8, 0), "triton"),       # Not Hopper.
    (_call(4096, 4096, 4096, interpret=True), (9, 0), "triton"),
], ids=["bf16-4096", "bf16-1024", "bf16-512", "bf16-256", "bf16-4097",
        "bf16-2047x8191x1023",
        "bf16-1000", "decode", "f32",
        "f32-decode", "f32-highest", "f32-highest-decode",
        "ampere", "interpret"])
def test_auto_backend_rule(call, capability, expected, monkeypatch):
  """The rule where the cost model has no coefficients (float32, or a
  device family it was not fitted for)."""
  monkeypatch.setattr(device, "compute_capability", lambda: capability)
  monkeypatch.setattr(api.cost_model, "choose", lambda *a, **k: None)
  assert api.resolve_backend(call, None, "auto") == expected


@pytest.mark.parametrize("m, n", [(1, 4096), (4096, 1)], ids=["row", "col"])
@pytest.mark.parametrize("precision", [None, lax.Precision.HIGHEST],
                         ids=["default", "highest"])
def test_float32_matrix_vector_products_run_on_triton(m, n, precision,
                                                      monkeypatch):
  """Vector tiles (IEEE float32) whatever the model or a tuned table would
  pick; a bfloat16 product of the same shape follows them."""
  monkeypatch.setattr(device, "compute_capability", lambda: (9, 0))
  monkeypatch.setattr(api.cost_model, "choose",
                      lambda *a, **k: pallas_tiled.MosaicConfig())
  monkeypatch.setattr(api.tuning_cache, "fastest_backend",
                      lambda *args, **kwargs: "mosaic")
  call = lambda dtype, precision: _call(m, n, 4096, dtype, precision)
  assert api.resolve_backend(call(jnp.float32, precision), None,
                             "auto") == "triton"
  assert api.resolve_backend(call(jnp.bfloat16, None), None,
                             "auto") == "mosaic"


@pytest.mark.parametrize("modeled", ["triton", "mosaic"])
def test_auto_backend_follows_the_cost_model(modeled, monkeypatch):
  monkeypatch.setattr(device, "compute_capability", lambda: (9, 0))
  pick = (pallas_tiled.TileConfig(64, 64, 128, split_k=4)
          if modeled == "triton" else pallas_tiled.MosaicConfig())
  monkeypatch.setattr(api.cost_model, "choose", lambda *a, **k: pick)
  assert api.resolve_backend(_call(256, 256, 4096), None, "auto") == modeled


@pytest.mark.parametrize("tuned, expected", [("triton", "triton"),
                                             ("mosaic", "mosaic"),
                                             (None, "mosaic")])
def test_auto_backend_follows_the_tuned_table(tuned, expected, monkeypatch):
  """Where both backends have tuned entries, the faster one runs; else the
  rule decides (4096^3 bfloat16: Mosaic)."""
  monkeypatch.setattr(device, "compute_capability", lambda: (9, 0))
  monkeypatch.setattr(api.tuning_cache, "fastest_backend",
                      lambda *args, **kwargs: tuned)
  monkeypatch.setattr(api.cost_model, "choose", lambda *a, **k: None)
  call = _call(4096, 4096, 4096)
  assert api.resolve_backend(call, None, "auto") == expected
