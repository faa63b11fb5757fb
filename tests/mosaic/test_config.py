"""MosaicConfig (`mosaic/config.py`): its checks, label and shared-memory
fit; the default configs and wave costs (`mosaic/heuristics.py`), the
selection of tuned entries, and the autotuner's candidates
(`mosaic/candidates.py`)."""

import dataclasses

import jax
from jax import lax
import jax.numpy as jnp
import pytest

import pallas_tiled
from pallas_tiled import cost_model
from pallas_tiled import device
from pallas_tiled.mosaic import config as mosaic_config
from pallas_tiled.mosaic import heuristics as mosaic_heuristics
from pallas_tiled.mosaic import kernel as mosaic_kernel
from pallas_tiled.tuning import cache as tuning_cache
from tests import helpers

BAD_CONFIGS = [
    (dict(tile_m=96), ValueError, "multiple of 64"),
    (dict(tile_n=264), ValueError, "at most 256"),
    (dict(tile_k=True), TypeError, "must be an int"),
    (dict(wg_dimension="k"), ValueError, "wg_dimension must be one of"),
    (dict(epi_tile_n=48), ValueError, "must divide"),
    (dict(cluster_dimension="k"), ValueError, "cluster_dimension must be one"),
    (dict(cluster_dimension="m", warp_specialized=False), ValueError,
     "needs warp_specialized=True"),
    (dict(split_k=0), ValueError, "split_k must be positive"),
    (dict(ping_pong=True, warp_specialized=False), ValueError,
     "ping_pong=True needs warp_specialized=True"),
    (dict(ping_pong=True, split_k=2), ValueError,
     "ping_pong=True runs without split_k; got split_k=2"),
    (dict(ping_pong=True, transposed=True), ValueError,
     "ping_pong=True runs without transposed"),
]


@pytest.mark.parametrize("fields, exc, words", BAD_CONFIGS,
                         ids=[str(c[0]) for c in BAD_CONFIGS])
def test_config_validates_itself(fields, exc, words):
  with pytest.raises(exc, match=words):
    pallas_tiled.MosaicConfig(**fields)


@pytest.mark.parametrize("dtype, fields, words", [
    (jnp.bfloat16, dict(max_concurrent_steps=8),
     "427008 bytes .* It fits with max_concurrent_steps=4."),
    # The defaults are sized for 16-bit inputs: float32's K-tiles are twice
    # the bytes (459776 bytes in all).
    (jnp.float32, {}, "459776 bytes of shared memory per CTA for float32"
     " inputs and float32 outputs, over Hopper's 232448. It fits with"
     " tile_k=32, epi_tile_n=32."),
    # 1024x256 CTA tiles overflow even at two 128-byte stages.
    (jnp.float32, dict(tile_m=512, tile_n=256, wg_dimension="m"),
     "Lower max_concurrent_steps, the tiles or the epilogue tile."),
    (jnp.bfloat16, dict(num_sms=10**9),
     "num_sms=1000000000: the kernel runs one persistent CTA per SM"),
    (jnp.bfloat16, dict(num_sms=7, cluster_dimension="m"),
     r"multiple of the cluster size \(2\)"),
    # Found by benchmarks/fuzz.py: 72-byte K-tiles failed inside JAX
    # ("No valid out swizzle") while the kernel was traced.
    (helpers.FLOAT8, dict(tile_k=72), "tile_k=72 is 72 bytes of"
     " float8_e4m3fn; wgmma needs swizzled K-tiles of a multiple of 32"),
    (helpers.FLOAT8, dict(tile_k=128, tile_n=8, epi_tile_n=0),
     "epi_tile_n=8 is 8 bytes of float8_e4m3fn; TMA stores rows of a"
     " multiple of 16 bytes"),
    # Found by fuzz.py on an H100, each failing inside JAX while traced.
    (jnp.bfloat16, dict(epi_tile_n=56, tile_n=112),
     "epi_tile_n=56 is 112 bytes of bfloat16; the warpgroup lowering"),
    (jnp.float32, dict(tile_n=200, tile_k=32, cluster_dimension="m",
                       epi_tile_n=8, lowering="lane"),
     "tile_n=200 with cluster_dimension='m'"),
    # Found by fuzz.py on an H100: an N-major 136-wide bfloat16 B tile
    # (272 bytes) allows only a 16-byte swizzle, refused while traced.
    (jnp.bfloat16, dict(tile_n=136, epi_tile_n=136, lowering="lane"),
     "tile_n=136 is 272 bytes of bfloat16; an M- or N-major operand tile"),
    # K ranges store float32 partial sums: the 4096^3 default's 64x64
    # bfloat16 epilogue pieces double to 256 bytes, over shared memory.
    (jnp.bfloat16, dict(tile_m=64, tile_n=256, wg_dimension="m", split_k=2),
     "263168 bytes .* for bfloat16 inputs and float32 outputs, over"
     " Hopper's 232448. It fits with epi_tile_n=32."),
    (jnp.float32, dict(tile_k=32, transposed=True),
     "transposed=True needs 16-bit inputs, got float32"),
    (jnp.bfloat16, dict(tile_n=136, epi_tile_n=4, transposed=True,
                        split_k=2, lowering="lane"),
     "epi_tile_n=4: a transposed store writes pieces of whole"),
], ids=["bf16-stages", "f32-defaults", "f32-no-fit", "num-sms",
        "num-sms-cluster", "f8-k-tile-bytes", "f8-epilogue-bytes",
        "warpgroup-epilogue-swizzle", "cluster-m-odd-rows",
        "n-major-tile-bytes", "split-k-float32-partials",
        "transposed-f32", "transposed-piece-rows"])
def test_config_is_checked_against_the_device_before_tracing(dtype, fields,
                                                             words):
  """Each message says what to change."""
  a = jnp.ones((256, 256), dtype)
  with pytest.raises(ValueError, match=words):
    pallas_tiled.matmul(a, a, config=pallas_tiled.MosaicConfig(**fields))


def test_config_label_names_the_knobs():
  config = dataclasses.replace(
      pallas_tiled.default_mosaic_config(4096, 4096, 4096, jnp.bfloat16),
      grid_tile_width=8, cluster_dimension="n")
  assert config.label == "64x256x64/s4/ws-m/snake-n8/epi64x64/cluster-n"
  assert config.cta_tile == (128, 256) and config.cluster_tile == (128, 512)
  assert config.backend == "mosaic" and pallas_tiled.TileConfig(
      16, 16, 16).backend == "triton"
  split = dataclasses.replace(config, cluster_dimension="none", split_k=3)
  assert split.label == "64x256x64/s4/ws-m/snake-n8/epi64x64/sk3"


def test_tile_order_of_one_strip_walks_whole_rows_or_columns():
  """grid_tile_width=0: one strip spanning the minor dimension."""
  rows = pallas_tiled.MosaicConfig(grid_tile_width=0)
  cols = dataclasses.replace(rows, grid_minor_dim="m")
  assert rows.label == "128x128x64/s4/ws-n/rows/epi64x64"
  assert cols.label == "128x128x64/s4/ws-n/cols/epi64x64"
  with pytest.raises(ValueError, match="grid_tile_width must be >= 0"):
    pallas_tiled.MosaicConfig(grid_tile_width=-1)


def test_ping_pong_consumers_each_take_whole_tiles():
  """Ping-pong: each consumer computes a whole CTA tile (its accumulator is
  tile_m x tile_n), so a CTA tile is one consumer's; the ring's stages hold
  one such tile's K-tiles."""
  config = pallas_tiled.MosaicConfig(tile_m=128, tile_n=128,
                                     max_concurrent_steps=5, ping_pong=True)
  assert config.label == "128x128x64/s5/pp/snake-n4/epi64x64"
  assert config.cta_tile == (128, 128) and config.num_compute_wgs == 2
  ring = 5 * (128 + 128) * 64 * 2
  epilogue = 2 * 2 * 64 * 64 * 2  # Two slots per consumer.
  assert config.shared_memory_bytes(jnp.bfloat16, jnp.bfloat16) == (
      ring + epilogue + 1024)


def test_ping_pong_refuses_three_pass_tf32():
  a = jnp.ones((256, 256), jnp.float32)
  config = pallas_tiled.MosaicConfig(tile_k=32, epi_tile_n=32,
                                     ping_pong=True)
  with pytest.raises(ValueError, match="three-pass TF32"):
    pallas_tiled.matmul(a, a, config=config,
                        precision=lax.Precision.HIGHEST)


def test_k_ranges_count_in_the_waves():
  """256x5120 is 40 CTA tiles of 128x256: with 3 K ranges, 120 work items
  still fill one wave of 132 SMs; with 4, 160 need two."""
  config = pallas_tiled.MosaicConfig(tile_m=64, tile_n=256, wg_dimension="m",
                                     num_sms=132)
  waves = lambda split: dataclasses.replace(config, split_k=split).waves(
      256, 5120)
  assert (waves(1), waves(3), waves(4)) == (1, 1, 2)
  assert config.stored_dtype(jnp.bfloat16) == jnp.bfloat16
  assert dataclasses.replace(config, split_k=2).stored_dtype(
      jnp.bfloat16) == jnp.float32


@pytest.mark.parametrize("shape,splits", [
    ((256, 5120, 17920), {2, 3, 4, 6, 8}),  # 40 tiles: one round 30% full.
    ((2048, 2560, 20480), {2, 3, 4, 6, 8}),  # 160 tiles: two rounds.
    ((2048, 2560, 1024), {2}),  # 16 K-tiles: ranges of 8 at least.
    ((1024, 4096, 8192), set()),  # 128 tiles: one round however split.
    ((1280, 5120, 8192), {3, 4, 6, 8}),  # 200 tiles: 2 rounds; 2 ranges 4.
    ((4096, 4096, 4096), set()),  # 512 tiles: 4 rounds; 31 / 8 at best.
], ids=str)
def test_k_ranges_only_where_they_cut_the_busiest_sms_work(shape, splits):
  config = pallas_tiled.MosaicConfig(tile_m=64, tile_n=256, wg_dimension="m",
                                     num_sms=132)
  variants = mosaic_config.k_range_variants(config, *shape, jnp.bfloat16,
                                            jnp.bfloat16)
  assert {c.split_k for c in variants} == splits


@pytest.mark.parametrize("shape, width, stages", [
    ((257, 4096), 72, 5),  # Ragged M: the kernel's own ring, one deeper.
    ((256, 4096), 72, 4),  # Aligned: jax's pipeline.
    ((2049, 1280), 160, 4),  # Ragged, but 160 wide: no gain measured.
], ids=["ragged-narrow", "aligned", "ragged-wide"])
def test_transposed_tiles_over_a_ragged_m_run_a_deeper_ring(shape, width,
                                                            stages):
  """A transposed tile narrower than its 128 columns of N over an M of no
  multiple of 8 (loaded untiled through the kernel's own ring) takes five
  stages: 1-8% faster on 7 of 8 such H200 shapes (BUILD_NOTES.md)."""
  (config,) = mosaic_config.transposed_variants(*shape, jnp.bfloat16,
                                                jnp.bfloat16, 132)
  assert (config.tile_n, config.max_concurrent_steps) == (width, stages)
  mosaic_config.check_mosaic_config(config, jnp.bfloat16, jnp.bfloat16)


@pytest.mark.parametrize("shape, dtype, splits", [
    ((2048, 64, 4096), "float32", {1, 2, 4, 8, 16}),  # 16 CTA tiles.
    ((12288, 33, 4096), "float32", {1, 4, 8, 16}),  # 96: 2 ranges no less.
    ((384, 64, 200), "float32", {1}),  # 7 K-tiles: no ranges of 8.
    ((2048, 32, 4096), "float32", set()),  # 32 columns: Triton's.
    ((2048, 65, 4096), "float32", set()),  # Past one 64-wide tile.
    ((127, 64, 4096), "float32", set()),  # Under 128 rows.
    ((2048, 64, 16), "float32", set()),  # Under one 128-byte K-tile.
    ((2048, 64, 4096), "bfloat16", set()),
], ids=lambda x: "x".join(map(str, x)) if isinstance(x, tuple) else None)
def test_tall_skinny_float32_tiles(shape, dtype, splits):
  """float32 products of 33-64 columns over 128 rows or more get 64x64
  consumers along M over 128- and 256-byte K-tiles, whole and over the K
  ranges that cut the busiest SM's work (`skinny_n_variants`)."""
  variants = mosaic_config.skinny_n_variants(*shape, dtype, dtype, 132)
  assert {c.split_k for c in variants} == splits
  for c in variants:
    assert (c.tile_m, c.tile_n, c.wg_dimension) == (64, 64, "m")
    mosaic_config.check_mosaic_config(c, dtype, dtype)
  unsplit = {(c.tile_k, c.max_concurrent_steps) for c in variants
             if c.split_k == 1}
  assert unsplit == ({(32, 4), (64, 3)} if splits else set())


def _shipped_mosaic_entries():
  """(dtype, config) of every Mosaic entry in the H200's shipped table."""
  table = tuning_cache.shipped_table("NVIDIA H200")
  return [(jnp.dtype(key.split("|")[2]), table.lookup(key))
          for key, entry in sorted(table.entries.items())
          if entry["backend"] == "mosaic"]


def test_shipped_entries_fit_wider_outputs():
  """Tuned entries are measured with outputs of their input dtype; selected
  for float32 outputs (preferred_element_type), they are narrowed until
  they fit in shared memory, and left alone where they fit already."""
  entries = _shipped_mosaic_entries()
  assert len(entries) > 20
  wider = 0
  for dtype, config in entries:
    assert mosaic_config.fit_mosaic_config(config, dtype, dtype) == config
    fitted = mosaic_config.fit_mosaic_config(config, dtype, jnp.float32)
    mosaic_config.check_mosaic_config(fitted, dtype, jnp.float32)
    wider += fitted != config
  assert wider  # bfloat16's 4096^3 entry, for one, needs narrowing.


def test_tuned_entry_lowers_with_float32_outputs(monkeypatch):
  """bfloat16 with preferred_element_type=float32, on the H200 table's
  4096^3 entry (64x64 epilogue pieces): 262208 bytes of shared memory
  unfitted, which Mosaic GPU refused, as it did on the H200."""
  dtype = jnp.dtype(jnp.bfloat16)
  entry = tuning_cache.shipped_table("NVIDIA H200").lookup(
      tuning_cache.cache_key("NVIDIA H200", "mosaic", dtype, None, 4096,
                             4096, 4096))
  monkeypatch.setattr(tuning_cache, "select_config",
                      lambda *args, **kwargs: entry)
  config = mosaic_heuristics.select_config(4096, 4096, 4096, dtype, None,
                                           out_dtype=jnp.float32)
  assert config.epi_tile_n == 32 and config.tile_n == entry.tile_n
  assert "pallas_tiled_mosaic_matmul" in helpers.cuda_module_text(
      mosaic_kernel.batched_product, (1, 512, 512), (1, 512, 512), dtype,
      config=config, out_dtype=jnp.float32)


@pytest.mark.parametrize("shape, dtype, lowering", [
    ((3000, 5000, 700), jnp.bfloat16, "lane"),  # 10000-byte rows.
    ((1000, 1000, 1000), jnp.float32, "lane"),  # 4000-byte rows.
    ((4096, 4096, 4096), jnp.bfloat16, "warpgroup"),  # Whole tiles.
    ((2047, 8191, 1023), jnp.bfloat16, "warpgroup"),  # Odd rows: padded.
], ids=["3000x5000", "1000-f32", "4096", "2047x8191"])
def test_default_config_stores_ragged_outputs_in_place(shape, dtype,
                                                       lowering):
  """Outputs whose rows TMA can store as they are (16-byte multiples) get
  the lane lowering, which needs no padded copy of the output."""
  assert pallas_tiled.default_mosaic_config(*shape, dtype).lowering == lowering


@pytest.mark.parametrize("shape, cta_tile", [
    ((1024, 1024, 1024), (128, 64)),    # 128 tiles: one wave.
    ((1536, 1536, 1536), (128, 64)),    # 288 tiles: 2.2 waves, but small.
    ((2048, 2048, 2048), (128, 256)),   # 128 tiles: one wave.
    ((3072, 3072, 3072), (128, 128)),   # 576: 4.4 waves, not 288: 2.2.
    ((4096, 4096, 4096), (128, 256)),   # 512: 3.9 waves.
    ((6144, 6144, 6144), (128, 256)),
], ids=str)
def test_heuristic_picks_cta_tiles_by_waves(shape, cta_tile):
  config = mosaic_heuristics.default_mosaic_config(*shape, jnp.bfloat16)
  assert config.cta_tile == cta_tile


def test_wave_cost_counts_whole_waves():
  wide = pallas_tiled.MosaicConfig(tile_m=64, tile_n=256, wg_dimension="m")
  # 4096^2 in 128x256 tiles: 512 tiles, 3.9 waves of 132 SMs, costs 4.
  assert mosaic_heuristics.mosaic_wave_cost(wide, 4096, 4096) == (
      4 * 128 * 256)
  assert mosaic_heuristics.mosaic_wave_cost(wide, 4096, 4096 - 255) == (
      4 * 128 * 256)
  # A cluster walks 256x256 cluster tiles, 66 at a time: 256 of them, the
  # same 4 waves of CTA tiles.
  clustered = dataclasses.replace(wide, cluster_dimension="m")
  assert mosaic_heuristics.mosaic_wave_cost(clustered, 4096, 4096) == (
      4 * 128 * 256)
  # 128x128 tiles run at 0.94 of 128x256's throughput.
  square = dataclasses.replace(wide, tile_n=128)
  assert mosaic_heuristics.mosaic_wave_cost(square, 128, 128) == (
      pytest.approx(128 * 128 / 0.94))


def test_tuned_entry_gives_way_where_its_tiles_fill_waves_badly(
    tmp_path, monkeypatch):
  """Where the cost model has no coefficients: an entry tuned on 4096^3
  (128x256 CTA tiles: 4 full waves) serves shapes of its bucket whose waves
  it fills as well, not 3072^3 (2.2 waves), where the heuristic's 128x128
  tiles are predicted faster."""
  monkeypatch.setattr(cost_model, "choose", lambda *args, **kwargs: None)
  monkeypatch.setenv(tuning_cache.CACHE_ENV, str(tmp_path / "cache.json"))
  monkeypatch.setattr(tuning_cache, "shipped_table", lambda device: None)
  dtype = jnp.dtype(jnp.bfloat16)
  tuned = dataclasses.replace(
      mosaic_heuristics.default_mosaic_config(4096, 4096, 4096, dtype),
      grid_tile_width=8)
  key = tuning_cache.cache_key(jax.devices()[0].device_kind, "mosaic", dtype,
                               None, 4096, 4096, 4096)
  tuning_cache.user_cache().store(key, tuned, time_us=170.0,
                                  shape=[4096, 4096, 4096])
  select = lambda m, n, k: mosaic_heuristics.select_config(
      m, n, k, dtype, None, out_dtype=dtype, auto=True)
  assert select(4096, 4096, 4096) == tuned
  assert select(4000, 4096, 3072) == tuned  # Same waves.
  assert select(3072, 3072, 3072) == mosaic_heuristics.default_mosaic_config(
      3072, 3072, 3072, dtype)
  assert select(3072, 3072, 3072).cta_tile == (128, 128)


def test_where_the_cost_model_picks_entries_serve_their_own_shape(
    tmp_path, monkeypatch):
  monkeypatch.setenv(tuning_cache.CACHE_ENV, str(tmp_path / "cache.json"))
  monkeypatch.setattr(tuning_cache, "shipped_table", lambda device: None)
  monkeypatch.setattr(device, "is_hopper", lambda: True)
  monkeypatch.setattr(device, "device_kind",
                      lambda: cost_model.HOPPER_REFERENCE_KIND)
  dtype = jnp.dtype(jnp.bfloat16)
  tuned = dataclasses.replace(
      mosaic_heuristics.default_mosaic_config(4096, 4096, 4096, dtype),
      grid_tile_width=8)
  key = tuning_cache.cache_key(cost_model.HOPPER_REFERENCE_KIND, "mosaic",
                               dtype, None, 4096, 4096, 4096)
  tuning_cache.user_cache().store(key, tuned, time_us=170.0,
                                  shape=[4096, 4096, 4096])
  select = lambda m, n, k: mosaic_heuristics.select_config(
      m, n, k, dtype, None, out_dtype=dtype, auto=True)
  assert select(4096, 4096, 4096) == tuned
  assert select(4000, 4096, 3072) == cost_model.choose(
      4000, 4096, 3072, dtype, out_dtype=dtype, backends=("mosaic",))


CANDIDATE_SHAPES = [(16, 8192, 8192), (1024, 1024, 1024), (4096, 4096, 4096),
                    (4097, 4097, 4097), (7, 129, 1000), (3000, 5000, 700)]


@pytest.mark.parametrize("shape", CANDIDATE_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float32, helpers.FLOAT8],
                         ids=["bf16", "f32", "f8"])
def test_candidates_are_valid_unique_and_start_with_the_heuristic(
    shape, dtype):
  candidates = pallas_tiled.candidate_configs(*shape, dtype,
                                              backend="mosaic")
  assert candidates[0] == mosaic_heuristics.default_mosaic_config(*shape,
                                                                  dtype)
  assert len(candidates) == len(set(candidates))
  # Up to 17 (two of them ping-pong), plus up to 10 over K ranges where the
  # output has few tiles.
  assert 6 <= len(candidates) <= 27
  assert sum(c.ping_pong for c in candidates) == 2
  # 16x8192 is 32 CTA tiles of 128x256 (K ranges fill the SMs), 4096^2 512.
  if shape in ((16, 8192, 8192), (4096, 4096, 4096)):
    assert any(c.split_k > 1 for c in candidates) == (shape[0] == 16)
  for c in candidates:
    mosaic_config.check_mosaic_config(c, dtype, dtype)
    # K-tiles of the 128-byte swizzle; two of them for two 64x64 consumers
    # and for the two-stage 64x256 ones (one warpgroup's tiles keep one).
    two = c.warp_specialized and ((c.tile_m, c.tile_n) == (64, 64) or (
        (c.tile_m, c.tile_n, c.max_concurrent_steps) == (64, 256, 2)))
    width = 256 if two else 128
    assert c.tile_k * jnp.dtype(dtype).itemsize == width


@pytest.mark.parametrize("shape", CANDIDATE_SHAPES, ids=str)
def test_highest_candidates_fit_the_promoted_sums(shape):
  """float32 at HIGHEST keeps a float32 sum beside each consumer's
  accumulator: only consumers of at most PROMOTED_MAX_TILE elements."""
  highest = lax.Precision.HIGHEST
  candidates = pallas_tiled.candidate_configs(*shape, jnp.float32, highest,
                                              backend="mosaic")
  assert candidates[0] == mosaic_heuristics.default_mosaic_config(
      *shape, jnp.float32, promoted=True)
  assert len(candidates) >= 3
  assert all(c.tile_m * c.tile_n <= mosaic_config.PROMOTED_MAX_TILE
             for c in candidates)


@pytest.mark.parametrize("shape, dtype, tiles", [
    ((197, 3072, 768), jnp.float32, [(64, 128)]),  # 64x64: 192 tiles.
    ((128, 2304, 768), jnp.float32, [(64, 128), (64, 64)]),
    ((197, 3072, 1152), jnp.float32, []),  # K past 1024: slower.
    ((1024, 4096, 768), jnp.float32, []),  # More than one round of tiles.
    ((197, 3072, 768), jnp.bfloat16, []),  # Not measured.
], ids=["f32-96-tiles", "f32-36-and-72-tiles", "f32-long-k", "f32-many-tiles",
        "bf16"])
def test_single_warpgroup_tiles_are_offered_for_short_k_few_tiles(
    shape, dtype, tiles):
  """One warpgroup's 64x128 and 64x64 CTA tiles over the whole K, for a
  float32 K <= 1024 where they fill at most one round: candidates of the
  autotuner and of the cost model, which prices none of them until they are
  calibrated, so no pick moves."""
  variants = mosaic_config.single_warpgroup_variants(*shape, dtype, dtype, 132)
  assert [(c.tile_m, c.tile_n) for c in variants] == tiles
  assert all(not c.warp_specialized and c.split_k == 1 for c in variants)
  mosaic = pallas_tiled.candidate_configs(*shape, dtype, backend="mosaic")
  assert all(c in mosaic for c in variants)
  kind = "NVIDIA H100 80GB HBM3"
  coefs = cost_model.coefficients(kind, dtype)
  for c in variants:
    assert c in cost_model.model_candidates(*shape, dtype)
    assert cost_model.predict_us(c, *shape, dtype, coefs, 132) is None
  assert cost_model.choose_on(kind, 132, *shape, dtype) not in variants
