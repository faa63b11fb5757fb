"""float32 at HIGHEST precision on TF32 matrix units: three-pass TF32.

TF32 keeps 10 of float32's 23 mantissa bits. Splitting each float32 x into
x_hi (x rounded to TF32) and x_lo (the rest, rounded to TF32) gives

  a @ b = a_lo @ b_hi + a_hi @ b_lo + a_hi @ b_hi   (+ a_lo @ b_lo, dropped)

with the dropped term and the roundings about 2^-21 of each product: float32
accuracy from three TF32 products. The Mosaic kernel runs them as one TF32
product over a tripled K, [a_lo a_hi a_hi] @ [b_hi; b_lo; b_hi], built here
by XLA. Each part of K is zero-padded to whole K-tiles, so that every K-step
holds terms of one size; the kernel adds each K-step's wgmma result into a
float32 register sum (wgmma's own accumulation loses about 2.4e-9 per unit
of K, relative, measured on an H200: 2.4e-6 at K = 1024; BUILD_NOTES.md).
"""

from __future__ import annotations

from jax import lax
import jax.numpy as jnp

from pallas_tiled import validation

_U32 = jnp.uint32
# TF32 drops float32's 13 low mantissa bits; adding half of the dropped range
# before clearing them rounds to nearest (ties away from zero).
_TF32_MASK = 0xFFFFE000
_TF32_HALF = 0x1000


def applies(dtype, precision) -> bool:
  """Whether the Mosaic kernel computes this call as three-pass TF32:
  float32 at HIGHEST precision."""
  return (jnp.dtype(dtype) == jnp.float32
          and validation.is_highest(precision))


def round_to_tf32(x):
  """x rounded to the nearest TF32 value, in float32.

  A finite x whose rounding would overflow is truncated instead; infinities
  and NaNs are kept.
  """
  bits = lax.bitcast_convert_type(x, _U32)
  rounded = lax.bitcast_convert_type(
      (bits + _U32(_TF32_HALF)) & _U32(_TF32_MASK), jnp.float32)
  truncated = lax.bitcast_convert_type(bits & _U32(_TF32_MASK), jnp.float32)
  return jnp.where(jnp.isfinite(rounded) | ~jnp.isfinite(x), rounded,
                   truncated)


def split(x):
  """(x_hi, x_lo): both TF32 values, x_hi + x_lo = x to about 2^-22 |x|.

  x_lo is 0 where x is not finite, so infinities and NaNs propagate through
  x_hi alone, as they would through a float32 product.
  """
  hi = round_to_tf32(x)
  lo = jnp.where(jnp.isfinite(x), round_to_tf32(x - hi), 0.0)
  return hi, lo


def tripled_k_operands(a, b, *, k_tile: int):
  """([a_lo a_hi a_hi], [b_hi b_lo b_hi]) along K, for K-major operands.

  a: (..., M, K), b: (..., N, K). Each part is zero-padded to a multiple of
  `k_tile` along K (the result's K is 3 * that), which adds nothing.
  """
  k = a.shape[-1]
  pad = -k % k_tile

  def padded(x):
    return jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, pad)]) if pad else x

  a_hi, a_lo = map(padded, split(a))
  b_hi, b_lo = map(padded, split(b))
  return (jnp.concatenate([a_lo, a_hi, a_hi], axis=-1),
          jnp.concatenate([b_hi, b_lo, b_hi], axis=-1))
