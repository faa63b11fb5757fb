"""TileConfig (`triton/config.py`): its checks, its arithmetic and the limits
of Triton's compiled path; the default tiles (`triton/heuristics.py`, and
`naive.py`'s) and the autotuner's candidates (`triton/candidates.py`)."""

import collections
import dataclasses

from jax import lax
from jax.experimental import pallas as pl
import jax.numpy as jnp
import pytest

import pallas_tiled
from pallas_tiled import cost_model
from pallas_tiled.triton import config as triton_config
from pallas_tiled.triton import folding
from pallas_tiled.triton import heuristics as triton_heuristics
from pallas_tiled.triton import kernel as triton_kernel
from tests import helpers


def test_tile_config_is_frozen_and_hashable():
  config = pallas_tiled.TileConfig(64, 64, 32)
  assert hash(config) == hash(pallas_tiled.TileConfig(64, 64, 32))
  assert {config: 1}[pallas_tiled.TileConfig(64, 64, 32)] == 1
  with pytest.raises(dataclasses.FrozenInstanceError):
    config.block_m = 32


@pytest.mark.parametrize("config", [
    pallas_tiled.TileConfig(64, 64, 32),
    pallas_tiled.TileConfig(128, 256, 64, num_warps=8, group_m=8, split_k=2,
                            k_major_b=True, align_operands=True),
    pallas_tiled.TileConfig(16, 16, 128, num_stages=4, upcast=True),
    pallas_tiled.TileConfig(16, 512, 64, num_warps=8, fold_b=True),
], ids=lambda c: c.label)
def test_label_parses_back_to_its_config(config):
  assert pallas_tiled.TileConfig.from_label(config.label) == config


BAD_FIELDS = [
    (dict(block_m=0), ValueError, "TileConfig.block_m must be positive, got 0"),
    (dict(block_k=-16), ValueError, "TileConfig.block_k must be positive"),
    (dict(block_n=16.0), TypeError, "TileConfig.block_n must be an int"),
    (dict(num_stages=True), TypeError, "TileConfig.num_stages must be an int"),
    (dict(num_warps=3), ValueError, "num_warps must be a power of two, got 3"),
    (dict(group_m=0), ValueError, "TileConfig.group_m must be positive, got 0"),
    (dict(split_k=2.5), TypeError, "TileConfig.split_k must be an int"),
    (dict(k_major_b=1), TypeError, "TileConfig.k_major_b must be a bool"),
]


@pytest.mark.parametrize("fields, exc, message", BAD_FIELDS,
                         ids=[str(f) for f, _, _ in BAD_FIELDS])
def test_tile_config_validates_itself(fields, exc, message):
  kwargs = dict(block_m=16, block_n=16, block_k=16) | fields
  with pytest.raises(exc, match=message.replace("(", r"\(")):
    pallas_tiled.TileConfig(**kwargs)


@pytest.mark.parametrize(
    "tile, expected_bytes",
    # Seed 004: 2 x 16 x 16 x 4 bytes = 2 KiB and 2 x 32 x 32 x 4 = 8 KiB.
    # Seed 001: 78 x 78 x 4 x 2 = 48672 bytes = 47.5 KiB; 96 x 96 -> 72 KiB.
    [(16, 2048), (32, 8192), (78, 48672), (96, 73728), (128, 131072)])
def test_shared_memory_estimate_matches_the_seeds(tile, expected_bytes):
  config = pallas_tiled.TileConfig(tile, tile, tile, num_stages=1)
  assert config.shared_memory_bytes(jnp.float32) == expected_bytes


HOPPER = (9, 0)
BAD_TRITON_TILES = [
    (pallas_tiled.TileConfig(48, 64, 32), "config.block_m=48 is not a power"),
    (pallas_tiled.TileConfig(64, 64, 8), "config.block_k=8 is below 16"),
    (pallas_tiled.TileConfig(3, 3, 3), "config.block_m=3 is not a power"),
    (pallas_tiled.TileConfig(2, 64, 32), "config.block_m=2 is below 16"),
    # A one-wide K-phase is no vector tile.
    (pallas_tiled.TileConfig(64, 64, 1), "config.block_k=1 is below 16"),
    # 5 stages x (256 + 256) x 64 x 2 bytes = 327680 > 232448 (227 KiB).
    (pallas_tiled.TileConfig(256, 256, 64, num_warps=8, num_stages=5),
     "needs about 327680 bytes of shared memory.*232448-byte limit"),
    # Found by fuzz.py on an H100 ("requested 262144" while compiling): the
    # output tile changes layout through shared memory, here 256 x 256
    # float32 split-K partial sums, though the stages need only 32768.
    (pallas_tiled.TileConfig(256, 256, 16, num_warps=8, num_stages=2,
                             split_k=2),
     "needs about 262144 bytes of shared memory.*output tile"),
]


@pytest.mark.parametrize("config, message", BAD_TRITON_TILES,
                         ids=[str(c) for c, _ in BAD_TRITON_TILES])
def test_compiled_path_rejects_tiles_triton_cannot_take(config, message):
  with pytest.raises(ValueError, match=message):
    triton_config.check_triton_tiles(config, jnp.bfloat16, HOPPER)


@pytest.mark.parametrize("config", [pallas_tiled.TileConfig(1, 128, 64),
                                    pallas_tiled.TileConfig(64, 1, 32),
                                    pallas_tiled.TileConfig(1, 1, 16)],
                         ids=lambda c: c.label)
def test_compiled_path_takes_vector_tiles(config):
  """One row or one column: no dot, so no 16-wide minimum."""
  triton_config.check_triton_tiles(config, jnp.bfloat16, HOPPER)


@pytest.mark.skipif(not helpers.ON_GPU, reason="checks the compiled path")
def test_compiled_matmul_rejects_toy_tiles_before_tracing():
  a, b = jnp.ones((4, 8), jnp.float32), jnp.ones((8, 3), jnp.float32)
  with pytest.raises(ValueError, match="is not a power of two"):
    pallas_tiled.matmul(a, b, config=pallas_tiled.TileConfig(3, 3, 3))


SHAPES = [(1, 1, 1), (7, 4097, 3), (16, 8192, 8192), (4096, 4096, 4096),
          (1000, 1000, 1000), (129, 127, 4097)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [jnp.float32, jnp.bfloat16, jnp.float16,
                                   jnp.float8_e4m3fn],
                         ids=lambda d: jnp.dtype(d).name)
def test_default_tiles_compile_on_hopper(shape, dtype):
  config = pallas_tiled.default_tiled_config(*shape, dtype)
  triton_config.check_triton_tiles(config, dtype, HOPPER)
  m, n, _ = shape
  assert config.block_m <= max(16, 2 * m) and config.block_n <= max(16, 2 * n)


def test_default_naive_tiles_shrink_to_small_outputs():
  config = pallas_tiled.default_naive_config(1, 7, 5, jnp.float32)
  assert (config.block_m, config.block_n) == (1, 8)
  config = pallas_tiled.default_naive_config(4096, 4096, 5, jnp.float32)
  assert (config.block_m, config.block_n) == (32, 32)


CANDIDATE_SHAPES = [(16, 8192, 8192), (1024, 1024, 1024), (4096, 4096, 4096),
                    (4097, 4097, 4097), (7, 129, 1000), (3000, 5000, 700),
                    (1, 51865, 1280), (1000, 1, 1001)]


DTYPE_CASES = {"bf16": (jnp.bfloat16, None), "f16": (jnp.float16, None),
               "f32": (jnp.float32, None),
               "f32-highest": (jnp.float32, lax.Precision.HIGHEST),
               "f8": (helpers.FLOAT8, None)}
# float32 matrix-vector products take vector tiles only (tested below).
CANDIDATE_CASES = [
    pytest.param(shape, *case, id=f"{name}-{shape}")
    for shape in CANDIDATE_SHAPES for name, case in DTYPE_CASES.items()
    if not triton_heuristics.takes_vector_tiles(*shape[:2], case[0])]


@pytest.mark.parametrize("shape, dtype, precision", CANDIDATE_CASES)
def test_candidates_are_valid_unique_and_start_with_the_heuristic(
    shape, dtype, precision):
  candidates = pallas_tiled.candidate_configs(*shape, dtype, precision)
  assert candidates[0] == triton_heuristics.default_tiled_config(
      *shape, dtype, precision)
  assert len(candidates) == len(set(candidates))
  assert 4 <= len(candidates) <= 33  # 33: a folded row's vector strip.
  step = 16 // jnp.dtype(dtype).itemsize
  unaligned = bool(shape[2] % step or shape[1] % step)
  for c in candidates:
    triton_config.check_triton_tiles(c, dtype, HOPPER)
  # Unaligned rows are copied aligned, or for skinny products also read in
  # place (never with a K-major b, whose transpose aligns anyway).
  in_place = [c for c in candidates if not c.align_operands]
  dots = [c for c in candidates if c.block_m > 1 and c.block_n > 1]
  if not unaligned:
    assert len(in_place) == len(candidates)
  elif shape[0] <= 64:
    assert in_place and not any(c.k_major_b for c in in_place)
    assert candidates[0].align_operands
  elif shape[1] <= 64:  # Skinny N: a's rows read in place or copied.
    assert {c.align_operands for c in candidates} == {False, True}
  else:
    assert not in_place
  if jnp.dtype(dtype).itemsize == 4 and shape[0] > 64:
    # TF32 wgmma needs it (vector tiles have no dot).
    assert all(c.k_major_b for c in dots)
  if jnp.dtype(dtype).itemsize == 1 and shape[1] > 64:
    # float8 wgmma needs it too, but its transpose pass may cost more than
    # the product (128x32000x4096 on an H100): both. (A skinny N's b is
    # small: K-major only.)
    assert {c.k_major_b for c in candidates} == {False, True}
  if shape[0] <= 64:  # Skinny: the transpose pass may cost more than it buys.
    assert not candidates[0].k_major_b


@pytest.mark.parametrize("shape", [(1, 4096, 4096), (4096, 1, 4096),
                                   (1, 51865, 1280), (1000, 1, 1001),
                                   (1, 8, 4096), (1, 1, 7)], ids=str)
def test_float32_matrix_vector_products_take_only_vector_tiles(shape):
  """float32 (IEEE sums, at any precision) picks and tunes vector tiles
  only, along the output's one row or column; bfloat16 none but a folded
  row's (`test_folded_rows_stream_as_vector_tiles_over_a_shallow_k`)."""
  m, n, k = shape
  for precision in (None, lax.Precision.HIGHEST):
    picked = triton_kernel.select_config(m, n, k, jnp.float32, precision,
                                         out_dtype=jnp.float32)
    tuned = pallas_tiled.candidate_configs(m, n, k, jnp.float32, precision)
    assert tuned[0] == picked and len(tuned) >= 3
    for c in tuned:
      triton_config.check_triton_tiles(c, jnp.float32, HOPPER)
      assert (c.block_m, c.block_n)[m != 1] == 1 and not c.k_major_b
      assert c.split_k <= pl.cdiv(k, c.block_k)  # No empty K ranges.
  folded_row = triton_heuristics.folded_row_vector_config(*shape)
  assert all(c == folded_row for c in pallas_tiled.candidate_configs(
      *shape, jnp.bfloat16) if c.is_vector)


@pytest.mark.parametrize("shape, width", [
    ((1, 256000, 3584), 256), ((1, 12288, 4096), 256), ((1, 8192, 4096), 64),
    ((1, 4608, 36864), 64), ((12288, 1, 4096), 64)], ids=str)
def test_matrix_vector_strips_widen_where_they_fill_the_sms(
    shape, width, monkeypatch):
  """One row streams b in 256-wide strips of 8 warps where those strips
  and their K ranges give each of 132 SMs 2.5 programs (384 and 8000
  here), else in 64-wide strips (256 and 144); a column keeps 64."""
  monkeypatch.setattr(triton_heuristics.device, "sm_count", lambda: 132)
  config = triton_heuristics.vector_config(*shape)
  assert max(config.block_m, config.block_n) == width
  assert config.num_warps == (8 if width == 256 else 2)


@pytest.mark.parametrize("shape, dtype, vector", [
    ((1, 51865, 1280), jnp.bfloat16, True),
    ((1, 50257, 768), jnp.float16, True),
    ((1, 32001, 512), jnp.bfloat16, True),
    ((1, 32001, 1536), jnp.bfloat16, False),  # Past 1280: folded.
    ((1, 32001, 256), jnp.bfloat16, False),  # Below 512: not measured.
    ((1, 32000, 1024), jnp.bfloat16, False),  # Aligned rows.
    ((2, 51865, 1280), jnp.bfloat16, False),  # Two rows.
    ((1, 5001, 1024), jnp.bfloat16, False),  # 320 programs: 2.4 an SM.
    ((1, 5301, 1024), jnp.bfloat16, True),  # 336: 2.5 an SM.
    ((1, 51865, 1280), jnp.float32, False),  # float32's own vector rule.
    ((1, 51865, 1280), helpers.FLOAT8, False),
    ((1, 30522, 640), jnp.bfloat16, True),  # Fold 4: K / 4 = 160.
    ((1, 30522, 768), jnp.bfloat16, False),  # K / 4 = 192.
], ids=["bf16-whisper", "f16-gpt2", "k512", "k1536", "k256", "aligned",
        "m2", "few-programs", "enough-programs", "f32", "f8", "fold4-k640",
        "fold4-k768"])
def test_folded_rows_stream_as_vector_tiles_over_a_shallow_k(
    shape, dtype, vector, monkeypatch):
  """A 16-bit row (M = 1) whose b rows fold, over K of at least 512 and at
  most 160 per fold (1280 for odd N, 640 for BERT's N = 30522, fold 4),
  runs 128-wide vector strips over 8 K ranges where they give 132 SMs 2.5
  programs each: the cost model's pick (a rule; on an H200 1.05-1.3x the
  folded pick's speed there, BUILD_NOTES.md). The autotuner tries them for
  such rows at any K."""
  monkeypatch.setattr(triton_heuristics.device, "sm_count", lambda: 132)
  assert triton_heuristics.streams_folded_row_as_vector(
      *shape, dtype) == vector
  rule = triton_heuristics.folded_row_vector_config(*shape)
  assert not vector or (rule.block_m, rule.block_n, rule.num_warps,
                        rule.split_k) == (1, 128, 4, 8)
  chosen = cost_model.choose_on("NVIDIA H200", 132, *shape, dtype)
  assert (chosen == rule) == vector
  tuned = pallas_tiled.candidate_configs(*shape, dtype)
  folds = (jnp.dtype(dtype).itemsize == 2 and shape[0] == 1
           and shape[1] % 8 != 0)
  assert (rule in tuned) == folds
  for config in tuned:
    triton_config.check_triton_tiles(config, dtype, HOPPER)


def test_skinny_candidates_split_k():
  candidates = pallas_tiled.candidate_configs(16, 8192, 8192, jnp.bfloat16)
  assert {c.split_k for c in candidates} >= {1, 2, 4}
  assert all(c.block_m == 16 for c in candidates)


@pytest.mark.parametrize("k, short", [(8, True), (64, True), (65, False)],
                         ids=["k8", "k64-one-phase", "k65-two-phases"])
def test_short_k_candidates_where_k_fits_one_k_phase(k, short):
  """Where K fits one 128-byte K-phase (LoRA's rank-deep products), smaller
  tiles than the heuristic's join the candidates, over two stages."""
  candidates = pallas_tiled.candidate_configs(2048, 8960, k, jnp.bfloat16)
  two_stage = {(c.block_m, c.block_n) for c in candidates
               if c.num_stages == 2}
  assert (two_stage == {(128, 128), (64, 128), (128, 64)}) == short
  assert not short or all(c.block_k == candidates[0].block_k for c in
                          candidates if c.num_stages == 2)


@pytest.mark.parametrize("shape, dtype, precision, in_place", [
    ((664, 3982, 14), jnp.float32, None, True),
    ((700, 4001, 30), jnp.bfloat16, None, True),
    ((700, 4000, 30), jnp.float16, None, True),  # a's rows: 60 bytes.
    ((2048, 8960, 16), jnp.bfloat16, None, False),  # Aligned rows.
    ((40, 3982, 14), jnp.float32, None, False),  # Decode: its own set.
    ((664, 3982, 14), jnp.float32, lax.Precision.HIGHEST, False),
    ((664, 3982, 14), helpers.FLOAT8, None, False),  # Not measured.
    # A small product (64x128 tiles in at most 3 rounds of 132 SMs) of K up
    # to 512 bytes; float8 from K = 64 to one 128-byte K-phase.
    ((250, 1999, 200), jnp.bfloat16, None, True),
    ((1000, 3001, 110), jnp.float32, None, True),
    ((1000, 3000, 110), jnp.float32, None, True),
    ((250, 1999, 200), jnp.float32, None, False),  # 800 bytes.
    ((150, 2501, 120), helpers.FLOAT8, None, True),
    ((150, 2501, 130), helpers.FLOAT8, None, False),  # Past one K-phase.
    ((1500, 3001, 110), jnp.bfloat16, None, False),  # 4.4 rounds.
], ids=["f32", "bf16", "f16-a-unaligned", "aligned", "decode",
        "f32-highest", "f8", "small-bf16", "small-f32", "small-f32-even-n",
        "small-f32-long-k", "small-f8", "small-f8-long-k",
        "small-bf16-large-output"])
def test_short_unaligned_k_reads_in_place(shape, dtype, precision, in_place):
  """A K shorter than one K-phase with unaligned rows, or a small product's
  short K: the heuristic, the cost model and the autotuner's first
  candidate read them in place (a rule: no wild-tune product is of this
  kind)."""
  assert triton_heuristics.reads_short_k_in_place(
      *shape, dtype, precision) == in_place
  picked = triton_heuristics.default_tiled_config(*shape, dtype, precision)
  rule = triton_heuristics.short_k_config(*shape, dtype)
  assert (picked == rule) == in_place
  if in_place:
    assert not picked.align_operands and not picked.k_major_b
    assert cost_model.choose_on("NVIDIA H200", 132, *shape, dtype) == rule
    assert pallas_tiled.candidate_configs(*shape, dtype)[0] == rule


@pytest.mark.parametrize("shape, dtype, block_m", [
    ((3000, 500, 111), jnp.float32, 32),  # N even.
    ((3000, 501, 111), jnp.float32, 64),
    ((3000, 500, 21), jnp.float32, 64),  # K of one K-phase: unmeasured.
    ((3000, 500, 61), jnp.float32, 64),  # One 256-byte phase: unmeasured.
    ((3000, 500, 111), jnp.bfloat16, 64),
], ids=["f32-even-n", "f32-odd-n", "f32-k-below-a-phase",
        "f32-k-of-one-wide-phase", "bf16-even-n"])
def test_float32_short_k_in_place_tile_rows_follow_n_parity(shape, dtype,
                                                             block_m):
  """float32's two 256-byte K-phases read in place run in 32-row tiles where
  N is even (64-row ones ran 0.38-0.76x jnp.matmul there on an H200, at
  0.96-1.08x where N is odd); other dtypes and K keep 64 rows."""
  assert triton_heuristics.reads_short_k_in_place(*shape, dtype)
  config = cost_model.choose_on("NVIDIA H200", 132, *shape, dtype)
  assert (config.block_m, config.block_n, config.num_stages) == (
      block_m, 128, 2)
  assert not config.align_operands and not config.k_major_b
  # The autotuner times float32's other row count too.
  other = dataclasses.replace(config, block_m=96 - block_m)
  assert (other in pallas_tiled.candidate_configs(*shape, dtype)) == (
      dtype == jnp.float32)


@pytest.mark.parametrize("shape, dtype, wide", [
    ((14000, 7001, 24), jnp.bfloat16, True),
    ((14000, 7001, 24), jnp.float16, True),
    ((8126, 3171, 9), jnp.float32, True),
    ((8126, 3171, 24), jnp.float32, False),  # float32 past K = 16: unmeasured.
    ((16152, 1075, 3), jnp.bfloat16, False),  # N < 2048: a partial tile wastes.
    ((664, 3983, 14), jnp.bfloat16, False),  # Below 2^24 output elements.
    ((9192, 6328, 28), jnp.bfloat16, False),  # Output rows aligned.
    ((14000, 7001, 40), jnp.bfloat16, False),  # K past 32: unmeasured.
], ids=["bf16", "f16", "f32-k9", "f32-k24", "narrow-n", "small-output",
        "aligned-output", "bf16-k40"])
def test_tiny_k_unaligned_outputs_store_in_wide_tiles(shape, dtype, wide):
  """A tiny K read in place whose large output's rows are no 16-byte
  multiple stores in 64x256 tiles of eight warps (1.13-1.34x the 64x128
  tile in bfloat16 on an H100); elsewhere the rule keeps 64x128."""
  assert triton_heuristics.reads_short_k_in_place(*shape, dtype)
  config = cost_model.choose_on("NVIDIA H100 80GB HBM3", 132, *shape, dtype)
  assert config == triton_heuristics.short_k_config(*shape, dtype)
  assert ((config.block_m, config.block_n, config.num_warps)
          == ((64, 256, 8) if wide else (64, 128, 4)))
  assert pallas_tiled.candidate_configs(*shape, dtype)[0] == config


@pytest.mark.parametrize("shape, dtype, copies", [
    ((3, 11, 49), jnp.bfloat16, False),  # a's rows: 98 bytes.
    ((53, 962, 6), helpers.FLOAT8, False),  # Both operands unaligned.
    ((1636, 6, 9), jnp.float32, False),  # b K-major otherwise: 216 bytes.
    ((1636, 6, 9), helpers.FLOAT8, False),
    ((2048, 64, 130), jnp.bfloat16, True),  # 2^24 multiply-adds.
    ((600, 40, 300), jnp.bfloat16, True),  # a's copy: 351.6 KiB.
    ((300, 60, 300), jnp.float32, True),  # b K-major: 70.3 KiB.
], ids=["bf16", "f8-both-unaligned", "f32-k-major", "f8-k-major",
        "2^24-macs", "copy-past-64-KiB", "f32-copy-past-64-KiB"])
def test_tiny_products_copy_nothing(shape, dtype, copies):
  """The heuristic's config for a tiny product (below 2^24 multiply-adds,
  at most 64 KiB to copy) reads its operands as stored: each copy would be
  a launch of about the kernel's own time."""
  assert triton_heuristics.copies_nothing(*shape, dtype) == (not copies)
  picked = triton_heuristics.default_tiled_config(*shape, dtype)
  assert (picked.align_operands or picked.k_major_b) == copies


@pytest.mark.parametrize("n, as_stored", [(32, True), (30, False)],
                         ids=["aligned-rows", "unaligned-rows"])
def test_skinny_n_candidates_also_read_a_k_major_b_as_stored(n, as_stored):
  """float32 wants b K-major; an N <= 64 output's b is narrow, and where its
  rows are aligned the candidates also read it as stored (no transpose
  pass), as many as K-major."""
  candidates = pallas_tiled.candidate_configs(2048, n, 4096, jnp.float32)
  layouts_b = collections.Counter(c.k_major_b for c in candidates[1:])
  assert layouts_b[True] == 9 * (1 if as_stored else 2)
  assert layouts_b[False] == (9 if as_stored else 0)


@pytest.mark.parametrize("shape, dtype, thin", [
    ((2048, 8, 1536), jnp.float32, True),
    ((8192, 32, 1152), jnp.float32, True),
    ((2048, 64, 4096), jnp.float32, False),  # The K-major copy won there.
    ((2048, 25, 4096), jnp.float32, False),  # b's rows: 100 bytes.
    ((2048, 8, 1538), jnp.float32, False),  # a's rows: 6152 bytes.
    ((64, 8, 4096), jnp.float32, False),  # Decode: its own set.
    ((2048, 8, 1536), helpers.FLOAT8, False),  # Not measured.
], ids=["n8", "n32", "n64", "n25-unaligned", "k-unaligned", "decode", "f8"])
def test_thin_float32_b_is_read_as_stored(shape, dtype, thin):
  """The cost model picks a float32 skinny-N product's b as stored where it
  is at most 32 wide, rows aligned, on every Hopper part (a rule: on both
  GPUs' wild-tune such shapes ran faster that way; BUILD_NOTES.md).
  The autotuner still times both."""
  assert triton_heuristics.reads_thin_b_as_stored(*shape, dtype) == thin
  if thin:
    for kind in ("NVIDIA H100 80GB HBM3", "NVIDIA H200"):
      assert not cost_model.choose_on(kind, 132, *shape, dtype).k_major_b
    assert any(c.k_major_b
               for c in pallas_tiled.candidate_configs(*shape, dtype))


def test_short_k_candidates_also_read_a_k_major_b_as_stored():
  """float32 wants b K-major (a transpose pass); with one K-phase the
  two-stage tiles also read it as stored."""
  candidates = pallas_tiled.candidate_configs(2048, 8960, 32, jnp.float32)
  assert candidates[0].k_major_b
  two_stage = collections.Counter(
      c.k_major_b for c in candidates if c.num_stages == 2)
  assert two_stage == {True: 3, False: 4}  # As stored also 32x128.


@pytest.mark.parametrize("shape, dtype, precision, small", [
    ((128, 4096, 32), jnp.float32, None, True),  # 64 tiles of 64x128.
    ((256, 5120, 24), jnp.float32, None, True),  # 160: 1.2 rounds.
    ((512, 5120, 32), jnp.float32, None, False),  # 320: 2.4 rounds.
    ((128, 4096, 16), jnp.float32, None, False),  # Thin tiles instead.
    ((128, 4096, 48), jnp.float32, None, False),  # Past one K-phase.
    ((128, 4001, 32), jnp.float32, None, False),  # Unaligned: in place.
    ((128, 4096, 32), jnp.float32, lax.Precision.HIGHEST, False),
    ((128, 4096, 32), jnp.bfloat16, None, False),  # Not measured.
], ids=["k32-half-round", "k24-1.2-rounds", "k32-2.4-rounds", "k16",
        "k48", "unaligned", "f32-highest", "bf16"])
def test_short_float32_k_over_few_tiles_spreads_over_small_tiles(
    shape, dtype, precision, small):
  """A float32 (TF32) product of K 17-32, rows aligned, whose 64x128 tiles
  would fill at most 1.25 rounds of 132 SMs: the cost model picks 32x64
  tiles (a rule: on an H200, 3-21% faster than the model's picks on six of
  eight such shapes, 2% slower on two; BUILD_NOTES.md)."""
  assert triton_heuristics.spreads_short_k_over_small_tiles(
      *shape, dtype, precision, num_sms=132) == small
  rule = triton_heuristics.small_tile_config(shape[2])
  assert not small or (rule.block_m, rule.block_n, rule.block_k) == (32, 64,
                                                                 32)
  chosen = cost_model.choose_on("NVIDIA H200", 132, *shape, dtype, precision)
  assert (chosen == rule) == small
  triton_config.check_triton_tiles(rule, jnp.float32, HOPPER)


@pytest.mark.parametrize("shape, dtype, precision, thin", [
    ((2048, 17920, 8), jnp.float32, None, True),
    ((4096, 8192, 16), jnp.float32, None, True),
    ((1000, 4096, 12), jnp.float32, None, True),  # 48-byte rows of a.
    ((2048, 8960, 32), jnp.float32, None, False),  # Past one 16-deep phase.
    ((2048, 8960, 14), jnp.float32, None, False),  # Unaligned: in place.
    ((64, 8192, 8), jnp.float32, None, False),  # Decode: its own set.
    ((2048, 64, 8), jnp.float32, None, False),  # Skinny N: its own set.
    ((2048, 8960, 8), jnp.float32, lax.Precision.HIGHEST, False),
    ((2048, 8960, 8), jnp.bfloat16, None, False),  # Not measured.
], ids=["k8", "k16", "k12", "k32", "k14-unaligned", "decode", "skinny-n",
        "f32-highest", "bf16"])
def test_tiny_float32_k_stores_in_thin_tiles(shape, dtype, precision, thin):
  """A float32 (TF32) product whose K fits one 16-deep K-phase, rows
  aligned, outside the skinny regime: the cost model picks 32x128 tiles,
  b as stored (a rule: on an H200 they stored 5-11% faster than the
  model's picks on seven of eight such shapes, BUILD_NOTES.md); the
  autotuner tries them at any K of one 128-byte K-phase."""
  assert triton_heuristics.stores_tiny_k_in_thin_tiles(
      *shape, dtype, precision) == thin
  rule = triton_heuristics.thin_store_config()
  chosen = cost_model.choose_on("NVIDIA H200", 132, *shape, dtype, precision)
  assert (chosen == rule) == thin
  if thin:
    assert rule in pallas_tiled.candidate_configs(*shape, dtype)
    triton_config.check_triton_tiles(rule, dtype, HOPPER)


@pytest.mark.parametrize("n, wide", [(32000, True), (51865, False)],
                         ids=["aligned-rows", "unaligned-rows"])
def test_decode_candidates_stream_wide_strips_over_aligned_rows_only(n, wide):
  """Strips of 256 or 512 columns read b as stored: over rows that are not
  16-byte multiples they would load element by element (1x51865x1280 ran
  0.56x jnp.matmul on an H100 against 0.83x), so only aligned rows get them
  (unaligned ones only folded into aligned rows, `fold_b`)."""
  candidates = pallas_tiled.candidate_configs(16, n, 4096, jnp.bfloat16)
  assert any(c.block_n >= 256 and not c.fold_b for c in candidates) == wide


@pytest.mark.parametrize("shape", [(2048, 8, 1536), (2048, 64, 4096)],
                         ids=["unaligned-b", "aligned-b"])
def test_float8_skinny_n_candidates_also_widen_to_float16(shape):
  """Each float8 skinny-N candidate of 64 rows or more that reads b K-major
  (a transpose pass) comes also widened to float16, b read as stored and in
  place; decode strips of 16 rows, wide and other dtypes' candidates get
  none (decode tiles of 64 rows: the next test)."""
  candidates = pallas_tiled.candidate_configs(*shape, jnp.float8_e4m3fn)
  upcast = [c for c in candidates if c.upcast]
  twin = lambda c: dataclasses.replace(c, k_major_b=False,
                                       align_operands=False, upcast=True)
  assert set(upcast) == {twin(c) for c in candidates
                         if c.k_major_b and c.block_m >= 64}
  assert upcast and not any(c.k_major_b or c.align_operands for c in upcast)
  for other in ((16, 4096, 4096, jnp.float8_e4m3fn),
                (2048, 2048, 2048, jnp.float8_e4m3fn),
                (*shape, jnp.bfloat16), (*shape, jnp.float32)):
    assert not any(c.upcast for c in pallas_tiled.candidate_configs(*other))


@pytest.mark.parametrize("shape", [(50, 333, 5001), (64, 8192, 8192)],
                         ids=["unaligned", "aligned"])
def test_float8_decode_tiles_of_64_rows_also_widen_to_float16(shape):
  """float8 decode products of 33-64 rows (64-row tiles) also tune widened
  tiles over 128-element K-phases, b read as stored and in place; 32 rows
  and fewer (tiles Triton's dot widens itself) and bfloat16 get none."""
  upcast = [c for c in pallas_tiled.candidate_configs(*shape,
                                                      jnp.float8_e4m3fn)
            if c.upcast]
  assert len(upcast) == 3
  assert all(c.block_m == 64 and c.block_k == 128 and not c.k_major_b
             and not c.align_operands for c in upcast)
  for other in ((32, *shape[1:], jnp.float8_e4m3fn), (*shape, jnp.bfloat16)):
    assert not any(c.upcast for c in pallas_tiled.candidate_configs(*other))


@pytest.mark.parametrize("shape, dtype", [
    ((1, 50257, 768), jnp.bfloat16), ((4, 32001, 4096), jnp.float16),
    ((8, 32001, 4096), jnp.bfloat16)],
                         ids=["bf16-1", "f16-4", "bf16-8-windows"])
def test_unaligned_decode_candidates_also_fold(shape, dtype):
  """Decode products of up to 16 rows whose b rows are not 16-byte
  multiples come also over folded rows, each config folding (not read as
  stored); aligned rows, float32, float8, more rows, and kept partial sums
  past an eighth of b's bytes (16 rows over K = 1280) get none."""
  folded = [c for c in pallas_tiled.candidate_configs(*shape, dtype)
            if c.fold_b]
  assert folded
  assert all(folding.folds(c, *shape, dtype) > 1 for c in folded)
  for other in ((1, 50304, 768, jnp.bfloat16), (17, 32001, 4096, jnp.float16),
                (16, 51865, 1280, jnp.bfloat16),
                (1, 32001, 4096, jnp.float8_e4m3fn),
                (2, 32001, 4096, jnp.float32)):
    assert not any(c.fold_b for c in pallas_tiled.candidate_configs(*other))


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float32, jnp.int8],
                         ids=lambda d: jnp.dtype(d).name)
@pytest.mark.parametrize("interpret", [True, False],
                         ids=["interpreted", "compiled-check"])
def test_upcast_takes_float8_alone(dtype, interpret):
  """Widening anything but float8 to float16 would round (float32) or
  change the accumulator (int8): refused before tracing, interpreted too."""
  config = pallas_tiled.TileConfig(16, 64, 64, upcast=True)
  message = "config.upcast=True widens float8_e4m3fn.*these are " + (
      jnp.dtype(dtype).name)
  with pytest.raises(ValueError, match=message):
    if interpret:
      a = jnp.ones((8, 64), dtype)
      pallas_tiled.matmul(a, a.T, config=config, interpret=True)
    else:
      triton_config.check_triton_tiles(config, dtype, HOPPER)
  triton_config.check_triton_tiles(config, jnp.float8_e4m3fn, HOPPER)


@pytest.mark.parametrize("k", [1, 16, 17, 5000])
def test_int8_k_phases_are_at_least_32_wide(k):
  """16-wide int8 K-phases returned twice the exact sums compiled on an
  H100: the heuristic never picks them and the compiled kernel refuses
  them before launch."""
  for m in (8, 1000):
    config = triton_heuristics.default_tiled_config(m, 64, k, jnp.int8)
    assert config.block_k >= 32
  tiles = pallas_tiled.TileConfig(64, 64, 16)
  with pytest.raises(ValueError, match="block_k=16 is below 32 for int8"):
    triton_config.check_triton_tiles(tiles, jnp.int8, (9, 0))
  triton_config.check_triton_tiles(tiles, jnp.bfloat16, (9, 0))
