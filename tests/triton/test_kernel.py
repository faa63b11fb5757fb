"""The Triton-lowered kernels (`triton/kernel.py`, and `naive.py` where it
shares a knob): explicit TileConfigs (split-K, group_m, K-major B, aligned
copies), any tile in interpret mode, and operands stored transposed."""

import jax
import jax.numpy as jnp
import pytest

import pallas_tiled
from pallas_tiled import batching
from pallas_tiled.triton import folding
from pallas_tiled.triton import heuristics as triton_heuristics
from pallas_tiled.triton import kernel as triton_kernel
from tests import helpers

IMPLS = pallas_tiled.IMPLEMENTATIONS

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


@pytest.mark.parametrize("transposes", [(True, False), (False, True),
                                        (True, True)],
                         ids=["a-stored-KxM", "b-stored-NxK", "both"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.label)
def test_transposed_operand_kernels(config, transposes, rng):
  """The backward's kernel variants read a stored (K, M) and b stored (N, K)
  in place; every knob must hold for them too."""
  transpose_a, transpose_b = transposes
  a, b = helpers.random_operands(rng, 100, 70, 150, jnp.bfloat16)
  out = helpers.stored_product(triton_kernel.batched_product, a, b,
                               transpose_a=transpose_a,
                               transpose_b=transpose_b, config=config)
  helpers.assert_matmul_close(out, a, b)


@pytest.mark.parametrize("shape, config, dtype", [
    # Decode: 1000 = 3 phases of 256 and a partial one, over 8 K ranges of
    # one phase each, so four ranges hold nothing and add zeros.
    ((7, 129, 1000), pallas_tiled.TileConfig(16, 32, 256, split_k=8),
     jnp.bfloat16),
    # Skinny N: odd K, so rows of a unaligned and read in place.
    ((1000, 3, 1001), pallas_tiled.TileConfig(64, 16, 128, split_k=8),
     jnp.bfloat16),
    # Decode over a 512-wide strip: N = 1000 leaves the second one partial.
    ((5, 1000, 300), pallas_tiled.TileConfig(16, 512, 64, num_warps=8,
                                             num_stages=3), jnp.bfloat16),
    # Short K in one K-phase: K = 14 pads to 16 (aligned copies) or is
    # masked in place; 130 x 300 leaves partial tiles both ways.
    ((130, 300, 14), pallas_tiled.TileConfig(64, 128, 16, num_stages=2,
                                             group_m=16,
                                             align_operands=True),
     jnp.bfloat16),
    ((130, 300, 14), pallas_tiled.TileConfig(128, 64, 16, num_stages=2,
                                             group_m=16), jnp.bfloat16),
    # float32 (TF32) b read as stored, not K-major: K = 28 masks 4 of 32;
    # an 8-wide output over 4 K ranges, K = 300 leaving the last partial.
    ((130, 300, 28), pallas_tiled.TileConfig(64, 128, 32, num_stages=2,
                                             group_m=16), jnp.float32),
    ((130, 8, 300), pallas_tiled.TileConfig(64, 16, 64, split_k=4),
     jnp.float32),
    # float32 of a K of one 16-deep phase in 32-row tiles, as
    # `stores_tiny_k_in_thin_tiles` picks: K = 8 masks half the phase;
    # M = 130 leaves a partial tile of 2 rows, N = 300 one of 44 columns.
    ((130, 300, 8), pallas_tiled.TileConfig(32, 128, 16, num_stages=2,
                                            group_m=16), jnp.float32),
    # float32 of K = 24 over few tiles in 32x64 ones, as
    # `spreads_short_k_over_small_tiles` picks: one 32-deep phase masked
    # past 24; 100 rows leave a partial tile of 4, 300 columns one of 44.
    ((100, 300, 24), pallas_tiled.TileConfig(32, 64, 32, num_stages=2,
                                             group_m=16), jnp.float32),
    # float32 of a short K with unaligned rows (K = 14, N = 301) read in
    # place, as `reads_short_k_in_place` picks.
    ((130, 301, 14), pallas_tiled.TileConfig(64, 128, 16, num_stages=2,
                                             group_m=16), jnp.float32),
    # float8 short K (14, unaligned rows) read in place, b as stored.
    ((130, 300, 14), pallas_tiled.TileConfig(64, 128, 16, num_stages=2,
                                             group_m=16), jnp.float8_e4m3fn),
    # float8 widened to float16, b read as stored: a skinny N of 8 (8-byte
    # rows read in place) in 64-row tiles over 2 K ranges, as the
    # candidates widen; a decode strip over 4 K ranges (K = 1001: the last
    # range partial, rows unaligned).
    ((1000, 8, 300), pallas_tiled.TileConfig(64, 16, 256, split_k=2,
                                             upcast=True), jnp.float8_e4m3fn),
    ((7, 129, 1001), pallas_tiled.TileConfig(16, 64, 256, split_k=4,
                                             upcast=True), jnp.float8_e4m3fn),
    # A 64-row decode tile widened, as the candidates do for 33-64 rows:
    # 41 rows of 64, K = 1001 over 16 ranges of 128-element phases (the
    # last ranges partial or empty), N = 130 a partial last strip.
    ((41, 130, 1001), pallas_tiled.TileConfig(64, 64, 128, split_k=16,
                                              upcast=True),
     jnp.float8_e4m3fn),
    # A small product's short K read in place, as `short_k_config` picks:
    # 256-byte K-phases, the last partial (float32 K = 100: 64 + 36;
    # bfloat16 K = 200: 128 + 72); float8's 64x64 over one masked phase.
    ((130, 301, 100), pallas_tiled.TileConfig(64, 128, 64, num_stages=2,
                                              group_m=16), jnp.float32),
    # float32's in 32-row tiles where N is even: 130 rows leave a partial
    # tile of 2, 300 columns one of 44.
    ((130, 300, 100), pallas_tiled.TileConfig(32, 128, 64, num_stages=2,
                                              group_m=16), jnp.float32),
    ((130, 301, 200), pallas_tiled.TileConfig(64, 128, 128, num_stages=2,
                                              group_m=16), jnp.bfloat16),
    ((130, 301, 100), pallas_tiled.TileConfig(64, 64, 128, group_m=16),
     jnp.float8_e4m3fn),
    # A tiny K's unaligned output rows stored in 64x256 tiles of eight warps
    # (`heuristics._stores_unaligned_rows_wide`): K = 24 of one 32-deep
    # phase, 301 columns a partial second column tile of 45.
    ((130, 301, 24), pallas_tiled.TileConfig(64, 256, 32, num_warps=8,
                                             num_stages=2, group_m=16),
     jnp.bfloat16),
], ids=["decode-sk8", "skinny-n-sk8", "decode-512-wide", "short-k-aligned",
        "short-k-in-place", "short-k-f32-b-as-stored",
        "skinny-n-f32-b-as-stored", "tiny-k-f32-thin",
        "short-k-f32-few-tiles",
        "short-k-f32-in-place",
        "short-k-f8-in-place", "skinny-n-f8-upcast-sk2",
        "decode-f8-upcast-sk4", "decode-64-rows-f8-upcast-sk16",
        "small-k-f32-in-place", "small-k-f32-in-place-even-n",
        "small-k-bf16-in-place",
        "small-k-f8-in-place", "tiny-k-bf16-wide-store"])
def test_decode_and_skinny_configs(shape, config, dtype, rng):
  """The cost model's candidates for M or N <= 64 (many K ranges, wide
  strips) and for a K of one K-phase."""
  a, b = helpers.random_operands(rng, *shape, dtype)
  out = helpers.call_with_poisoned_output(IMPLS["tiled"], a, b, config=config)
  helpers.assert_matmul_close(out, a, b)


# Folded b rows (`folding.py`): decode products whose b rows (N long) are
# not 16-byte multiples, each with the fold it runs (8 rows of 16-bit b where
# N is odd, 16 of 8-bit, 4 of float32). K / fold leaves a partial last
# K-phase (1000 / 8 = 125 over 64-wide phases; 20 over 32); the folded N
# (8 * 1001) a partial last strip; 2 rows x 8 folds fill a 16-row tile; K
# ranges add their partial sums with the folds'; int8 sums exactly in int32.
# 8 and 16 rows fold past one tile row: each group's rows through a window
# of their own, two per column tile (the last tile's second one clamped).
FOLD_CASES = [
    ((8, 1001, 1000), pallas_tiled.TileConfig(16, 128, 64, fold_b=True),
     jnp.bfloat16, None, 8),
    ((16, 257, 64), pallas_tiled.TileConfig(16, 64, 32, split_k=2,
                                            fold_b=True), jnp.float16, None,
     8),
    ((1, 1001, 1000), pallas_tiled.TileConfig(16, 128, 64, fold_b=True),
     jnp.bfloat16, None, 8),
    ((2, 127, 136), pallas_tiled.TileConfig(16, 64, 16, split_k=2,
                                            fold_b=True), jnp.float16, None,
     8),
    ((1, 129, 320), pallas_tiled.TileConfig(16, 128, 32, fold_b=True),
     jnp.float8_e4m3fn, None, 16),
    ((1, 1001, 64), pallas_tiled.TileConfig(16, 128, 32, fold_b=True),
     jnp.int8, jnp.int32, 16),
    ((3, 129, 40), pallas_tiled.TileConfig(16, 64, 16, fold_b=True),
     jnp.float32, None, 4),
]


@pytest.mark.parametrize(
    "shape, config, dtype, out_dtype, fold", FOLD_CASES,
    ids=[f"{jnp.dtype(c[2]).name}-{'x'.join(map(str, c[0]))}-{c[1].label}"
         for c in FOLD_CASES])
def test_folded_decode_configs(shape, config, dtype, out_dtype, fold, rng):
  """Interpreted, an unstored partial sum stays NaN and poisons its sum."""
  m, n, k = shape
  assert folding.folds(config, m, n, k, dtype) == fold  # Not read as stored.
  a, b = helpers.random_operands(rng, *shape, dtype)
  out = helpers.call_with_poisoned_output(
      IMPLS["tiled"], a, b, config=config, preferred_element_type=out_dtype)
  helpers.assert_matmul_close(out, a, b, out_dtype=out_dtype)


def test_folded_batch_shares_b(rng):
  a, b = helpers.random_operands(rng, 1, 129, 64, jnp.bfloat16)
  a = jnp.stack([a, 2 * a, -a])
  config = pallas_tiled.TileConfig(16, 64, 32, fold_b=True)
  out = helpers.call_with_poisoned_output(IMPLS["tiled"], a, b, config=config)
  helpers.assert_matmul_close(out, a, b)


def _around_kernel(config, shape, dtype, *, transpose_a=False):
  """The primitives `batched_product` runs on (M, N, K) operands of `dtype`
  (a stored (K, M) with `transpose_a`), its kernels' bodies not walked,
  as the CPU traces them (Pallas copies interpreted)."""
  m, n, k = shape
  a = jax.ShapeDtypeStruct((1, k, m) if transpose_a else (1, m, k), dtype)
  b = jax.ShapeDtypeStruct((1, k, n), dtype)
  problem = batching.BatchedProblem.from_shapes(a.shape[1:], b.shape[1:],
                                                transpose_a=transpose_a)
  traced = jax.make_jaxpr(lambda a, b: triton_kernel.batched_product(
      a, b, problem=problem, config=config, precision=None, out_dtype=dtype,
      interpret=True))(a, b)
  return helpers.primitive_names(traced.jaxpr)


@pytest.mark.parametrize("transpose_a", [False, True],
                         ids=["a", "a-stored-KxM"])
def test_one_row_folds_a_as_a_view(transpose_a, rng):
  """One row's folded a is a (K / fold, fold) view of a, read as a
  transposed a: no regrouping copy, stored either way."""
  config = pallas_tiled.TileConfig(16, 128, 64, fold_b=True)
  names = _around_kernel(config, (1, 1001, 1000), jnp.bfloat16,
                         transpose_a=transpose_a)
  assert names.count("pallas_call") == 1
  assert "transpose" not in names and "pad" not in names
  a, b = helpers.random_operands(rng, 1, 1001, 1000, jnp.bfloat16)
  out = helpers.stored_product(triton_kernel.batched_product, a, b,
                               transpose_a=transpose_a, transpose_b=False,
                               config=config)
  helpers.assert_matmul_close(out, a, b)


def test_k_major_and_aligned_copies_share_one_launch():
  """A config asking for a K-major b and aligned rows copies both operands
  (a padded, b transposed and padded) in one Pallas launch, as Mosaic's
  (`relayout.relayout_all`), where XLA ran a pad, a transpose and a pad."""
  config = pallas_tiled.TileConfig(64, 128, 32, k_major_b=True,
                                   align_operands=True)
  names = _around_kernel(config, (300, 301, 26), jnp.float8_e4m3fn)
  assert names.count("pallas_call") == 2  # The copy, then the kernel.
  assert "transpose" not in names and "pad" not in names


@pytest.mark.parametrize("shape", [(1636, 6, 9), (53, 962, 6), (3, 11, 49)],
                         ids=lambda shape: "x".join(map(str, shape)))
@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float16, jnp.float32,
                                   jnp.float8_e4m3fn],
                         ids=lambda dtype: jnp.dtype(dtype).name)
def test_tiny_products_run_on_operands_as_stored(shape, dtype, rng):
  """The default pick for a tiny product (`heuristics.copies_nothing`)
  reads unaligned rows in place and b as stored: one launch, correct."""
  config = triton_heuristics.default_tiled_config(*shape, dtype)
  assert _around_kernel(config, shape, dtype).count("pallas_call") == 1
  a, b = helpers.random_operands(rng, *shape, dtype)
  out = helpers.call_with_poisoned_output(IMPLS["tiled"], a, b, config=config)
  helpers.assert_matmul_close(out, a, b)


@pytest.mark.parametrize("shape, transpose_b, block_m", [
    ((1, 1001, 1000), True, 16),  # b stored (N, K): its rows are K long.
    ((1, 1001, 1001), False, 16),  # K not a whole number of folds.
    ((17, 1001, 1000), False, 16),  # More rows than a window.
    ((3, 57, 1000), False, 16),  # 24 folded rows; a tile spans 3 groups.
    ((1, 1000, 1000), False, 16),  # Aligned rows: nothing to fold.
    ((1, 1001, 1000), False, 1),  # A vector tile.
], ids=["b-stored-NxK", "k-not-whole-folds", "rows-past-a-window",
        "tile-past-two-groups", "aligned", "vector-tile"])
def test_fold_where_it_cannot_reads_b_as_stored(shape, transpose_b, block_m,
                                                rng):
  """A config that asks to fold runs unfolded where it cannot, correctly."""
  config = pallas_tiled.TileConfig(block_m, 64, 64, fold_b=True)
  assert folding.folds(config, *shape, jnp.bfloat16,
                       transpose_b=transpose_b) == 1
  a, b = helpers.random_operands(rng, *shape, jnp.bfloat16)
  out = helpers.stored_product(triton_kernel.batched_product, a, b,
                               transpose_a=False, transpose_b=transpose_b,
                               config=config)
  helpers.assert_matmul_close(out, a, b)


# Vector tiles (block_m or block_n 1): matrix-vector products without a dot.
# K = 300 is 9 phases of 32 and a partial one over 4 K ranges of 3 phases
# (the last range partial), and 2 phases of 128 and a partial one over 2
# ranges; 127 and 129 rows or columns leave partial tiles; M = 3 with
# block_m = 1 runs a row each. Strips wider than 64 (128 and 256 here) sum
# each phase, narrower ones once at the end. 1x1001x700 is the 16-bit
# folded-row rule's tile (`streams_folded_row_as_vector`): b's rows of 1001
# unaligned, 11 phases of 64 over 8 ranges of 2 (the sixth of 1, the last
# two empty).
VECTOR_CASES = [
    ((1, 129, 300), pallas_tiled.TileConfig(1, 64, 32, split_k=4)),
    ((1, 1001, 700), pallas_tiled.TileConfig(1, 128, 64, num_stages=4,
                                             split_k=8)),
    ((3, 127, 129), pallas_tiled.TileConfig(1, 128, 64, num_stages=2)),
    ((1, 300, 257), pallas_tiled.TileConfig(1, 256, 64, num_warps=8,
                                            num_stages=3, split_k=2)),
    ((127, 1, 300), pallas_tiled.TileConfig(64, 1, 128, split_k=2)),
    ((1, 1, 7), pallas_tiled.TileConfig(1, 1, 16)),
]


# Every stored layout in float32; bfloat16, float16 (the folded-row rule's),
# int8 (exact int32 sums) and float8 (exact products summed in float32; the
# cost model picks its vector tiles for M or N = 1) as stored by the forward
# product.
VECTOR_LAYOUTS = [(jnp.float32, jnp.float32, layout)
                  for layout in ("nn", "tn", "nt", "tt")] + [
                      (jnp.bfloat16, jnp.bfloat16, "nn"),
                      (jnp.float16, jnp.float16, "nn"),
                      (jnp.int8, jnp.int32, "nn"),
                      (jnp.float8_e4m3fn, jnp.float32, "nn")]


@pytest.mark.parametrize(
    "dtype, out_dtype, layout", VECTOR_LAYOUTS,
    ids=[f"{jnp.dtype(d).name}-{layout}" for d, _, layout in VECTOR_LAYOUTS])
@pytest.mark.parametrize(
    "shape, config", VECTOR_CASES,
    ids=["x".join(map(str, s)) + "-" + c.label for s, c in VECTOR_CASES])
def test_vector_tiles(shape, config, dtype, out_dtype, layout, rng):
  """float32 and float8 products are summed in IEEE float32 (held to
  HIGHEST's tolerance), int8 sums exact in int32; "t" where a or b is
  stored transposed."""
  a, b = helpers.random_operands(rng, *shape, dtype)
  out = helpers.stored_product(triton_kernel.batched_product, a, b,
                               transpose_a=layout[0] == "t",
                               transpose_b=layout[1] == "t", config=config,
                               out_dtype=out_dtype)
  helpers.assert_matmul_close(out, a, b, out_dtype=out_dtype,
                              precision="highest")


@pytest.mark.parametrize("block_m, block_n, shape", [
    (1, 64, (32, 64)), (1, 128, (1, 128)), (1, 256, (1, 256)),
    (64, 1, (64, 32)), (256, 1, (256, 1))], ids=str)
def test_wide_vector_tiles_sum_each_phase(block_m, block_n, shape):
  """Running sums (stored layouts, 32-deep phases): a tile of them for
  strips up to 64 wide, one per output element for wider ones."""
  sums_shape, _ = triton_kernel._vector_sums(
      block_m, block_n, 32, transpose_a=False, transpose_b=False)
  assert sums_shape == shape


def test_vector_tiles_have_no_dot():
  """What makes them IEEE float32 on the GPU, where a float32 dot at
  default precision is TF32."""
  a, b = jnp.ones((1, 300), jnp.float32), jnp.ones((300, 40), jnp.float32)
  names = lambda config: helpers.primitive_names(jax.make_jaxpr(
      lambda a, b: pallas_tiled.matmul(a, b, config=config))(a, b).jaxpr,
                                                 expand_kernels=True)
  assert "dot_general" in names(pallas_tiled.TileConfig(16, 64, 32))
  for config in (pallas_tiled.TileConfig(1, 64, 32, split_k=2), None):
    vector = names(config)  # None: float32 matrix-vector products' pick.
    assert "pallas_call" in vector and "dot_general" not in vector


@pytest.mark.parametrize("shape", [(1, 200, 700), (700, 1, 200)],
                         ids=["row", "col"])
def test_float32_matrix_vector_products_are_ieee_by_default(shape, rng):
  """With no config and default precision, held to HIGHEST's tolerance,
  which a TF32 dot misses compiled."""
  a, b = helpers.random_operands(rng, *shape, jnp.float32)
  out = helpers.call_with_poisoned_output(IMPLS["tiled"], a, b)
  helpers.assert_matmul_close(out, a, b, precision="highest")


def test_vector_tiles_over_a_broadcast_batch(rng):
  """(3, 1, K) @ (K, N) and (3, M, K) @ (K, 1): one grid of vector tiles
  across the batch, b read in place for every batch element."""
  k = 200
  x = helpers.random_array(rng, (3, 1, k), jnp.float32)
  w = helpers.random_array(rng, (k, 77), jnp.float32)
  out = helpers.call_with_poisoned_output(
      IMPLS["tiled"], x, w, config=pallas_tiled.TileConfig(1, 64, 32,
                                                           split_k=2))
  helpers.assert_matmul_close(out, x, w, precision="highest")
  a = helpers.random_array(rng, (3, 45, k), jnp.float32)
  v = helpers.random_array(rng, (k, 1), jnp.float32)
  out = helpers.call_with_poisoned_output(
      IMPLS["tiled"], a, v, config=pallas_tiled.TileConfig(32, 1, 64))
  helpers.assert_matmul_close(out, a, v, precision="highest")
