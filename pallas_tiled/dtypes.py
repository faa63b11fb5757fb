"""Which dtypes the kernels take, what they accumulate in, and the result
dtype rules of `jnp.matmul` they follow.

* Floats (float32, bfloat16, float16, float8_e4m3fn) accumulate in float32,
  float64 (with jax_enable_x64) in float64: on Hopper, Triton's fp64 dot
  runs on the FP64 tensor cores (DMMA). A float8_e4m3fn result that rounds
  past its largest value (448) is NaN in every path (`cast_result`).
* int8 multiplies on the integer tensor cores (Triton's s8 dot, IMMA or
  wgmma s8) into an int32 accumulator, exact. As in jnp.matmul the result
  is int8 unless `preferred_element_type` widens it (int32); an int8 result
  wraps modulo 2^8 as jnp.matmul's does, and the int32 accumulator cast
  once to int8 is exactly that.
* complex64 and complex128 have no kernel of their own: `complex_products`
  composes them from three real products (float32, float64).
* Other integer dtypes (int16, int32, uint8, bool, ...) have no integer
  tensor-core instruction: `TypeError`, pointing to jnp.matmul.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

FLOAT_DTYPES = tuple(map(jnp.dtype, (jnp.float32, jnp.bfloat16, jnp.float16,
                                     jnp.float8_e4m3fn, jnp.float64)))
INTEGER_DTYPES = (jnp.dtype(jnp.int8),)
# The dtypes a kernel multiplies; complex ones are split into these.
KERNEL_DTYPES = FLOAT_DTYPES + INTEGER_DTYPES
COMPLEX_DTYPES = tuple(map(jnp.dtype, (jnp.complex64, jnp.complex128)))
OPERAND_DTYPES = KERNEL_DTYPES + COMPLEX_DTYPES
X64_DTYPES = tuple(map(jnp.dtype, (jnp.float64, jnp.complex128)))
# What preferred_element_type may name for int8 operands: int8 (the
# default, wrapping) or int32 (the accumulator's exact sums).
INTEGER_RESULT_DTYPES = tuple(map(jnp.dtype, (jnp.int8, jnp.int32)))


def names(dtypes) -> str:
  """'float32, int8' for error messages."""
  return ", ".join(jnp.dtype(d).name for d in dtypes)


def accumulator_dtype(dtype) -> np.dtype:
  """What a kernel sums `dtype` products in: int32 for integers, float64
  for float64, float32 for every other float."""
  dtype = jnp.dtype(dtype)
  if jnp.issubdtype(dtype, jnp.integer):
    return jnp.dtype(jnp.int32)
  if dtype == jnp.float64:
    return dtype
  return jnp.dtype(jnp.float32)


def real_dtype(dtype) -> np.dtype:
  """The dtype of a complex dtype's parts (any other dtype is its own)."""
  return jnp.finfo(dtype).dtype if jnp.dtype(dtype) in COMPLEX_DTYPES else (
      jnp.dtype(dtype))


def at_least_float32(dtype) -> np.dtype:
  """`dtype`, or float32 for a narrower float: what float references and
  test data are computed in. (jnp.promote_types(dtype, float32) says the
  same but raises for float8, which promotes with no other dtype.)"""
  dtype = jnp.dtype(dtype)
  narrow = jnp.issubdtype(dtype, jnp.floating) and dtype.itemsize < 4
  return jnp.dtype(jnp.float32) if narrow else dtype


def missing_x64_reason(dtype) -> str | None:
  """Why `dtype` cannot be used now, if it is 64-bit and jax_enable_x64 is
  off (JAX would compute it in 32 bits); else None."""
  dtype = jnp.dtype(dtype)
  if dtype not in X64_DTYPES or jax.config.jax_enable_x64:
    return None
  return (f"{dtype} needs 64-bit types enabled (jax.enable_x64(True) or"
          " JAX_ENABLE_X64=1); without them JAX computes in 32 bits")


def unsupported_reason(dtype) -> str | None:
  """Why operands of `dtype` are refused, or None where they run."""
  dtype = jnp.dtype(dtype)
  if dtype in OPERAND_DTYPES:
    return missing_x64_reason(dtype)
  if jnp.issubdtype(dtype, jnp.integer) or dtype == jnp.bool_:
    return ("integer products run on the integer tensor cores, which take"
            f" int8 only; use jnp.matmul for {dtype}, or cast to int8 where"
            " the values fit")
  return f"supported dtypes are {names(OPERAND_DTYPES)}"


def allowed_result_dtypes(dtype) -> tuple[np.dtype, ...]:
  """What preferred_element_type may name for operands of `dtype`: a dtype
  of the same kind (float for floats, int8/int32 for int8, complex for
  complex), which the accumulator is cast to once."""
  dtype = jnp.dtype(dtype)
  if dtype in INTEGER_DTYPES:
    return INTEGER_RESULT_DTYPES
  if dtype in COMPLEX_DTYPES:
    return COMPLEX_DTYPES
  return FLOAT_DTYPES


def exact_result_dtype(dtype) -> np.dtype:
  """What tests, benchmarks and the fuzzer ask products of `dtype` for:
  int32 for integers (the accumulator's exact sums; jnp.matmul's int8
  default wraps), else `dtype` itself."""
  dtype = jnp.dtype(dtype)
  return accumulator_dtype(dtype) if jnp.issubdtype(dtype,
                                                    jnp.integer) else dtype


# Where float32 -> float8_e4m3fn rounds past 448, its largest value: to NaN
# in ml_dtypes (e4m3fn has no infinity); 464 itself rounds to 448 (ties to
# even).
_FLOAT8_E4M3FN_ROUNDS_TO_MAX = 464.0


def cast_result(acc, dtype):
  """The accumulator cast once to the result dtype. A float8 result that
  rounds past 448 is NaN, as NumPy's (ml_dtypes') conversion makes it. The
  GPU does not agree with itself there: cvt .satfinite (PTX's only e4m3
  conversion) clamps to +-448, and XLA's conversion clamped in one fusion
  and gave NaN in others (H100, jax 0.11.2), so the same product came out
  448 or NaN by config: a silently wrong value."""
  dtype = jnp.dtype(dtype)
  if dtype == jnp.float8_e4m3fn:  # Comparisons with NaN are false: kept.
    limit = _FLOAT8_E4M3FN_ROUNDS_TO_MAX
    acc = jnp.where((acc > limit) | (acc < -limit), jnp.nan, acc)
  return acc.astype(dtype)


def random_operand(key, shape, dtype) -> jax.Array:
  """Test data for timing and tuning: standard normal values (complex: in
  both parts), integers uniform over all their values (int8: exact int32
  sums for K < 2^17). float8 values are normal / 4, so that products stay
  inside e4m3fn's +-448 (six standard deviations of a sum over K = 10^6;
  unscaled, sums over K of ~10^4 reached NaN: 8x4096x11008)."""
  shape = tuple(shape)
  if jnp.issubdtype(dtype, jnp.integer):
    info = jnp.iinfo(dtype)
    return jax.random.randint(key, shape, info.min, info.max + 1, dtype)
  real = real_dtype(dtype)
  if jnp.dtype(dtype) in COMPLEX_DTYPES:
    real_key, imag_key = jax.random.split(key)
    return jax.lax.complex(jax.random.normal(real_key, shape, real),
                           jax.random.normal(imag_key, shape, real))
  values = jax.random.normal(key, shape, at_least_float32(real))
  if jnp.dtype(dtype) == jnp.float8_e4m3fn:
    values = values / 4
  return values.astype(dtype)


def shape_seeded_operands(m: int, n: int, k: int, dtype):
  """(a, b) of an (m, k) @ (k, n) product, `random_operand`s drawn from a
  key its shape seeds: every tool that times a shape (calibration, the
  side-by-side pairs) multiplies the same data for it."""
  key_a, key_b = jax.random.split(jax.random.key(m * 7919 + n * 31 + k))
  return (random_operand(key_a, (m, k), dtype),
          random_operand(key_b, (k, n), dtype))
