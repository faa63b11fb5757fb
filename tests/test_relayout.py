"""The operand and result copies around both kernels (`relayout.py`), against
NumPy: padding, cutting and transposing, with odd sizes, several blocks each
way, whole blocks (no masks) and a batch axis. Compiled on a GPU,
interpreted on a CPU (where unwritten elements show as NaN)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pallas_tiled import relayout
from tests import helpers


def _expected(x, shape, transpose):
  """x (or its transpose) zero-padded / cut to `shape`, in float32."""
  x = np.asarray(x, np.float32)
  if transpose:
    x = np.swapaxes(x, 1, 2)
  out = np.zeros((x.shape[0], *shape), np.float32)
  rows, cols = min(shape[0], x.shape[1]), min(shape[1], x.shape[2])
  out[:, :rows, :cols] = x[:, :rows, :cols]
  return out


def _pallas_copy(x, *, shape, transpose, tf32=False, interpret):
  """One array through `copy_all`: the Pallas kernel, whatever the shapes."""
  return relayout.copy_all([x], shapes=(shape,), transposes=(transpose,),
                           tf32s=(tf32,), interpret=interpret)[0]


def _launches(fn, *args) -> int:
  """The Pallas kernels `fn` launches on `args`."""
  jaxpr = jax.make_jaxpr(fn)(*args).jaxpr
  return helpers.primitive_names(jaxpr).count("pallas_call")


def _tf32_rna(x):
  """x rounded to TF32 (nearest, ties away from zero) in NumPy, infinities
  and NaNs kept: what cvt.rna.tf32.f32 does."""
  bits = np.asarray(x, np.float32).view(np.uint32)
  rounded = ((bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000))
  return np.where(np.isfinite(x), rounded.view(np.float32), x)


@pytest.mark.parametrize("src, shape, transpose, dtype", [
    ((37, 1029), (40, 1088), False, jnp.bfloat16),  # Pad both axes.
    ((40, 1100), (33, 1029), False, jnp.bfloat16),  # Cut a padded result.
    ((16, 1024), (24, 1024), False, jnp.float16),  # Whole blocks, then more.
    ((1, 7), (8, 32), False, jnp.float32),
    ((33, 1029), (33, 1029), False, jnp.bfloat16),  # Already that shape.
    ((127, 129), (136, 160), True, jnp.float32),  # TF32's B: to (N', K').
    ((128, 64), (64, 128), True, jnp.float32),  # Whole blocks: no masks.
    ((7, 1), (8, 32), True, jnp.float32),
    ((70, 65), (65, 70), True, jnp.bfloat16),  # Transpose only, odd sizes.
    # float8's B to K-major, in 64x128 blocks: partial both ways, and whole.
    ((129, 200), (208, 144), True, jnp.float8_e4m3fn),
    ((128, 256), (256, 128), True, jnp.float8_e4m3fn),
], ids=["pad", "cut", "pad-whole-blocks", "pad-1x7", "same",
        "transpose-pad", "transpose-whole", "transpose-7x1",
        "transpose-16bit", "transpose-pad-8bit", "transpose-whole-8bit"])
@pytest.mark.parametrize("fn", [relayout.relayout, _pallas_copy],
                         ids=["relayout", "copy"])
def test_relayout_matches_numpy(src, shape, transpose, dtype, fn, rng):
  """`relayout` (XLA for small plain transposes) and the Pallas copy give
  the same, exact result."""
  x = helpers.random_array(rng, (2, *src), dtype)
  out = fn(x, shape=shape, transpose=transpose, interpret=not helpers.ON_GPU)
  assert out.shape == (2, *shape) and out.dtype == dtype
  np.testing.assert_array_equal(np.asarray(out, np.float32),
                                _expected(x, shape, transpose))


@pytest.mark.parametrize("src, shape, transpose", [
    ((127, 129), (136, 160), True), ((1, 7), (8, 32), False),
    ((65, 70), (70, 65), True)], ids=["transpose-pad", "pad", "transpose"])
@pytest.mark.parametrize("fn", [relayout.relayout, _pallas_copy],
                         ids=["relayout", "copy"])
def test_tf32_copies_round_to_nearest(src, shape, transpose, fn, rng):
  """A float32 operand copied for TF32 comes out rounded to TF32, as cuBLAS
  rounds its inputs (wgmma truncates): ties away from zero, infinities and
  NaNs kept (`relayout`'s pad of 1x7 goes to XLA)."""
  x = np.array(helpers.random_array(rng, (2, *src), jnp.float32))
  x.flat[:6] = [np.inf, -np.inf, np.nan, 1 + 2**-11, -(1 + 2**-11),
                1 + 2**-11 - 2**-23]  # The ties round up, the last down.
  out = fn(jnp.asarray(x), shape=shape, transpose=transpose, tf32=True,
           interpret=not helpers.ON_GPU)
  expected = _expected(_tf32_rna(x), shape, transpose)
  assert (np.asarray(out).view(np.uint32) & 0x1FFF).max() == 0
  np.testing.assert_array_equal(np.asarray(out), expected)


def test_copy_all_shares_one_launch(rng):
  """Several arrays' copies in one launch (A's and B's around the Mosaic
  kernel): each comes out as its own copy would, whatever the others are
  (a pad, a transposing pad in another dtype, a cut, each with a batch)."""
  jobs = [((37, 1029), (40, 1088), False, jnp.bfloat16),
          ((127, 129), (136, 160), True, jnp.float32),
          ((40, 1100), (33, 1029), False, jnp.float16)]
  xs = [helpers.random_array(rng, (2, *src), dtype)
        for src, _, _, dtype in jobs]
  outs = relayout.copy_all(xs, shapes=tuple(job[1] for job in jobs),
                           transposes=tuple(job[2] for job in jobs),
                           interpret=not helpers.ON_GPU)
  for x, out, (_, shape, transpose, dtype) in zip(xs, outs, jobs):
    assert out.shape == (2, *shape) and out.dtype == dtype
    np.testing.assert_array_equal(np.asarray(out, np.float32),
                                  _expected(x, shape, transpose))


def test_relayout_all_copies_only_what_needs_it(rng):
  """An array already of its shape comes back as it is; the others are
  copied (here by XLA or Pallas, as `relayout` would choose)."""
  x = helpers.random_array(rng, (1, 16, 64), jnp.bfloat16)
  y = helpers.random_array(rng, (1, 7, 33), jnp.float32)
  same, padded = relayout.relayout_all(
      [x, y], shapes=[(16, 64), (8, 64)], transposes=[False, False],
      interpret=not helpers.ON_GPU)
  assert same is x
  np.testing.assert_array_equal(np.asarray(padded),
                                _expected(y, (8, 64), False))


@pytest.mark.parametrize("count, launches", [(1, 0), (2, 1)],
                         ids=["alone-xla", "pair-one-launch"])
def test_unaligned_pads_share_a_launch_or_go_to_xla(count, launches, rng):
  """Pads of rows that are not 16-byte multiples (1029 bfloat16 elements):
  alone, XLA's; two, one Pallas launch for both (faster on an H200 than
  XLA's two, BUILD_NOTES.md issue 5 step 35). Either way, exact."""
  xs = [helpers.random_array(rng, (1, 37, 1029), jnp.bfloat16)
        for _ in range(count)]
  kwargs = dict(shapes=[(40, 1088)] * count, transposes=[False] * count,
                interpret=not helpers.ON_GPU)
  assert _launches(lambda *xs: relayout.relayout_all(list(xs), **kwargs),
                   *xs) == launches
  for x, out in zip(xs, relayout.relayout_all(xs, **kwargs)):
    np.testing.assert_array_equal(np.asarray(out, np.float32),
                                  _expected(x, (40, 1088), False))


@pytest.mark.parametrize("tf32, launches", [(False, 0), (True, 1)],
                         ids=["plain-xla", "tf32-pallas"])
def test_small_transposes_go_to_xla_unless_rounded(tf32, launches, rng):
  """A small plain transpose is XLA's, but not one that rounds to TF32:
  XLA's rounding transpose ran as three fusions, 5x its plain one (an H100,
  BUILD_NOTES.md fourteenth session)."""
  x = helpers.random_array(rng, (1, 65, 70), jnp.float32)
  assert _launches(lambda x: relayout.relayout_all(
      [x], shapes=[(70, 65)], transposes=[True], tf32s=[tf32],
      interpret=not helpers.ON_GPU), x) == launches
