"""How close a matmul result must be: relative error and its tolerance.

Shared by the tests, the benchmark's checks and the autotuner, so that all of
them hold every implementation to the same bound; and the output poisoning
that catches elements a kernel never writes.
"""

from __future__ import annotations

import jax
from jax import lax
import jax.numpy as jnp
import numpy as np

from pallas_tiled import dtypes

TF32_EPS = 2.0**-10  # TF32 keeps 10 explicit mantissa bits.
# Hopper's float8 wgmma adds into an accumulator narrower than float32. On
# an H200 both jnp.matmul (cuBLAS) and our kernel gave relative errors of
# 5.4e-4, 8.5e-4 and 1.33e-3 at K = 1024, 2048 and 4096 with float32
# outputs (float64 reference; BUILD_NOTES.md): about 2^-13 * sqrt(K) / 6.
FP8_ACCUMULATOR_EPS = 2.0**-13


def as_float64(x) -> np.ndarray:
  """x in float64, exactly (complex128 for complex x): the reference's
  precision. 8- and 16-bit floats are cast on the host (ml_dtypes, as
  NumPy holds them), which compiles nothing."""
  dtype = jnp.dtype(x.dtype)
  if jnp.issubdtype(dtype, jnp.complexfloating):
    return np.asarray(x, np.complex128)
  return np.asarray(x).astype(np.float64)


# Products up to this many multiply-adds have their terms' sizes summed on
# the host: on the device each operation compiles once per shape (~25 ms
# each on a CPU), far longer than the host takes for them.
_HOST_TERMS_MAX_MACS = 2**24


def _magnitudes(x, xp):
  """|x| in float32 (as an array of `xp`, NumPy or jax.numpy), the sizes its
  products' terms have."""
  x = xp.asarray(x)
  return (xp.abs(x) if xp.iscomplexobj(x) else x).astype(xp.float32)


def _term_norm(a, b) -> float:
  """‖sqrt(|A|^2 |B|^2)‖ in float32: how large the summed terms are."""
  # A bound on the multiply-adds whatever the batch and vector shapes:
  # size(a) * size(b) / K >= batch * M * K * N.
  macs = np.size(a) * np.size(b) // max(np.shape(a)[-1], 1)
  host = macs <= _HOST_TERMS_MAX_MACS
  xp = np if host else jnp
  a_abs, b_abs = _magnitudes(a, xp), _magnitudes(b, xp)
  terms = (np.matmul(a_abs * a_abs, b_abs * b_abs) if host
           else jnp.matmul(a_abs * a_abs, b_abs * b_abs,
                           precision=lax.Precision.HIGHEST))
  return float(xp.linalg.norm(xp.sqrt(terms)))


def relative_error(out, ref) -> float:
  """‖out − ref‖ / ‖ref‖ in float64 (NaN if `out` holds any NaN); against
  an all-zero `ref`, 0 where `out` is zero too and infinite elsewhere."""
  out, ref = as_float64(out), as_float64(ref)
  diff, size = np.linalg.norm(out - ref), np.linalg.norm(ref)
  if size == 0:
    return 0.0 if diff == 0 else float(diff * np.inf)  # NaN stays NaN.
  return float(diff / size)


def tolerance(a, b, ref, out_dtype, precision=None) -> float:
  """The relative error a correct `a @ b` stays under: 0 for integers (exact
  wherever the sums fit the result dtype), else from the sources below.

  Any shapes jnp.matmul takes; K is a.shape[-1].

  The sources (the estimated ones given a 2-6x margin):
  * rounding the result once to `out_dtype`: at most eps/2 per element,
    relative, and where results are subnormal (float8 e4m3's below 2^-6)
    at most half the smallest subnormal, absolute: sqrt(size) times that
    over |ref| (a float8 1x1x1 product of 0.0027 rounds to 0.0020);
  * products and K-step accumulation in the accumulator (dtypes.py:
    float64 for float64, else float32): random-walk errors of about
    eps_acc * sqrt(K) relative to the sizes of the summed terms;
  * float32 inputs at default precision may be rounded to TF32 on GPU (as
    XLA does): about 2 * eps_tf32 relative to the summed terms;
  * float8 inputs accumulate on Hopper's tensor cores with fewer bits than
    float32 (jnp.matmul's too): FP8_ACCUMULATOR_EPS * sqrt(K), about 6x
    the errors measured on an H200 at K = 1024 to 4096.
  * complex products are three real ones (complex_products.py), whose
    errors add, the third's terms up to twice the size: 4x a real one's.
  The last four are measured against sqrt(|A|^2 |B|^2), not |AB| = |ref|,
  through their ratio `spread`: about 1 for random data, large only where
  dot products cancel to small values, whose rounding is relatively larger.
  """
  if jnp.issubdtype(out_dtype, jnp.integer):
    return 0.0
  term_norm = _term_norm(a, b)
  ref_norm = float(np.linalg.norm(as_float64(ref)))
  if not ref_norm:  # Every product zero: exact; else cancellation: unknown.
    return 0.0 if not term_norm else np.inf
  spread = term_norm / ref_norm
  dtype = dtypes.real_dtype(a.dtype)
  acc_eps = float(jnp.finfo(dtypes.accumulator_dtype(dtype)).eps)
  summed = 2 * acc_eps * np.sqrt(a.shape[-1])
  if dtype == jnp.float32 and precision != lax.Precision.HIGHEST:
    summed += 2 * TF32_EPS
  if dtype == jnp.float8_e4m3fn:
    summed += FP8_ACCUMULATOR_EPS * np.sqrt(a.shape[-1])
  if jnp.dtype(a.dtype) in dtypes.COMPLEX_DTYPES:
    summed *= 4
  finfo = jnp.finfo(out_dtype)
  subnormal = (float(finfo.smallest_subnormal) / 2 * np.sqrt(np.size(ref))
               / ref_norm)
  return float(finfo.eps) / 2 + subnormal + spread * summed


@jax.jit
def device_reference(a, b) -> jax.Array:
  """a @ b on the device, for checks past a float64 NumPy product's size:
  jnp.matmul at HIGHEST in the widest of float32 and the operands' dtype
  (`dtypes.at_least_float32`); integers as int32 sums (exact, where
  float32 would round sums past 2^24)."""
  if jnp.issubdtype(a.dtype, jnp.integer):
    return jnp.matmul(a, b, preferred_element_type=jnp.int32)
  wide = dtypes.at_least_float32(a.dtype)
  return jnp.matmul(a.astype(wide), b.astype(wide),
                    precision=lax.Precision.HIGHEST)


def call_with_poisoned_output(fn, a, b, **kwargs):
  """Calls `fn(a, b, **kwargs)` with its output buffer pre-filled with NaN
  (integers: their least value, which random products hardly reach).

  The poisoned buffer is donated to the jitted call, so XLA reuses it for
  the result; an element the kernel never writes stays poisoned. (In
  interpret mode Pallas also starts every output as NaN.) Shared by the
  tests and benchmarks/fuzz.py; tests/test_api.py's
  `test_poison_harness_catches_unwritten_elements` checks that it really
  catches an unwritten tile.
  """
  out_type = jax.eval_shape(lambda a, b: fn(a, b, **kwargs), a, b)
  # Filled on the host: jnp.full compiles a broadcast for each shape.
  poison = jax.device_put(np.full(
      out_type.shape, jnp.iinfo(out_type.dtype).min
      if jnp.issubdtype(out_type.dtype, jnp.integer) else np.nan,
      out_type.dtype))
  run = jax.jit(lambda a, b, poison: fn(a, b, **kwargs), donate_argnums=2,
                keep_unused=True)
  return run(a, b, poison)
