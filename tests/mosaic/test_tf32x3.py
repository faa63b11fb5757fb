"""Three-pass TF32 operands (`mosaic/tf32x3.py`): exact TF32 parts that sum
back to the float32 input, and the tripled-K product that equals a @ b."""

from jax import lax
import jax.numpy as jnp
import numpy as np
import pytest

from pallas_tiled.mosaic import tf32x3
from tests import helpers

LOW_BITS = 0x1FFF  # The 13 mantissa bits TF32 drops.


def _bits(x):
  return np.asarray(lax.bitcast_convert_type(x, jnp.uint32))


def _f64(x):
  return np.asarray(x, np.float64)


def test_round_to_tf32_is_nearest(rng):
  x = helpers.random_array(rng, (4096,), jnp.float32) * 1e3
  r = tf32x3.round_to_tf32(x)
  assert not (_bits(r) & LOW_BITS).any(), "low mantissa bits left set"
  # The two TF32 neighbours of x: truncated, and one TF32 ulp further out.
  down = lax.bitcast_convert_type(_bits(x) & ~np.uint32(LOW_BITS), jnp.float32)
  up = lax.bitcast_convert_type(_bits(down) + np.uint32(LOW_BITS + 1),
                                jnp.float32)
  dist = lambda y: np.abs(_f64(y) - _f64(x))
  np.testing.assert_array_equal(dist(r), np.minimum(dist(down), dist(up)))


def test_split_parts_are_tf32_and_sum_to_the_input(rng):
  x = helpers.random_array(rng, (4096,), jnp.float32)
  hi, lo = tf32x3.split(x)
  assert not ((_bits(hi) | _bits(lo)) & LOW_BITS).any()
  # hi carries 11 significant bits, lo the next 11: 22 of float32's 24.
  rel = np.abs(_f64(hi) + _f64(lo) - _f64(x)) / np.abs(_f64(x))
  assert rel.max() <= 2.0**-22, rel.max()
  assert np.abs(_f64(lo)).max() > 0, "lo is all zeros: no second pass"


def test_split_keeps_special_values():
  big = np.float32(np.finfo(np.float32).max)
  x = jnp.array([np.inf, -np.inf, np.nan, big, -big, 0.0, -0.0, 1e-40],
                jnp.float32)
  hi, lo = tf32x3.split(x)
  hi, lo = np.asarray(hi), np.asarray(lo)
  np.testing.assert_array_equal(hi[:2], [np.inf, -np.inf])
  assert np.isnan(hi[2]) and (lo[:3] == 0).all()
  # The largest floats must not round up to infinity.
  assert np.isfinite(hi[3:5]).all() and np.isfinite(lo[3:5]).all()
  np.testing.assert_allclose(_f64(hi[3:5]) + _f64(lo[3:5]), _f64(x[3:5]),
                             rtol=2.0**-22)
  assert (hi[5:7] == 0).all() and (lo[5:7] == 0).all()


@pytest.mark.parametrize("k, k_tile", [(77, 32), (64, 32), (1, 64)])
def test_tripled_k_operands_give_the_product(k, k_tile, rng):
  a = helpers.random_array(rng, (2, 33, k), jnp.float32)
  b = helpers.random_array(rng, (2, 20, k), jnp.float32)
  a3, b3 = tf32x3.tripled_k_operands(a, b, k_tile=k_tile)
  kp = -(-k // k_tile) * k_tile
  assert a3.shape == (2, 33, 3 * kp) and b3.shape == (2, 20, 3 * kp)
  # Products of TF32 values are exact in float64: only the dropped
  # a_lo @ b_lo and the roundings (about 2^-21 of |a||b|) remain.
  out = np.einsum("gmk,gnk->gmn", _f64(a3), _f64(b3))
  ref = np.einsum("gmk,gnk->gmn", _f64(a), _f64(b))
  terms = np.sqrt(np.einsum("gmk,gnk->gmn", _f64(a) ** 2, _f64(b) ** 2))
  assert (np.abs(out - ref) <= 2.0**-20 * terms).all()
