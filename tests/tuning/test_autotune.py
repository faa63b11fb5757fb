"""The autotuner and its cache, on the CPU: candidates, round trips, errors."""

import dataclasses
import json

import jax
from jax import lax
import jax.numpy as jnp
import pytest

import pallas_tiled
from pallas_tiled import config as config_lib
from pallas_tiled import mosaic
from pallas_tiled import tiled
from pallas_tiled import tuning
from pallas_tiled import tuning_cache
from tests import helpers

SHAPES = [(16, 8192, 8192), (1024, 1024, 1024), (4096, 4096, 4096),
          (4097, 4097, 4097), (7, 129, 1000), (3000, 5000, 700)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype, precision",
                         [(jnp.bfloat16, None), (jnp.float16, None),
                          (jnp.float32, None),
                          (jnp.float32, lax.Precision.HIGHEST),
                          (helpers.FLOAT8, None)],
                         ids=["bf16", "f16", "f32", "f32-highest", "f8"])
def test_candidates_are_valid_unique_and_start_with_the_heuristic(
    shape, dtype, precision):
  candidates = tuning.candidate_configs(*shape, dtype, precision)
  assert candidates[0] == config_lib.default_tiled_config(*shape, dtype,
                                                          precision)
  assert len(candidates) == len(set(candidates))
  assert 4 <= len(candidates) <= 20
  for c in candidates:
    config_lib.check_triton_tiles(c, dtype, (9, 0))
    step = 16 // jnp.dtype(dtype).itemsize
    assert c.align_operands == bool(shape[2] % step or shape[1] % step)
  if jnp.dtype(dtype).itemsize != 2 and shape[0] > 64:
    # TF32 and float8 wgmma need it.
    assert all(c.k_major_b for c in candidates)
  if shape[0] <= 64:  # Skinny: the transpose pass may cost more than it buys.
    assert not candidates[0].k_major_b


def test_skinny_candidates_split_k():
  candidates = tuning.candidate_configs(16, 8192, 8192, jnp.bfloat16)
  assert {c.split_k for c in candidates} >= {1, 2, 4}
  assert all(c.block_m == 16 for c in candidates)


def test_shape_buckets_separate_row_alignments():
  bucket = tuning_cache.shape_bucket
  assert bucket(4096, 4096, 4096, jnp.bfloat16) == "4096x4096x4096"
  assert bucket(3000, 5120, 1024, jnp.bfloat16) == "4096x8192x1024"
  # M does not count: it is no operand's row length.
  assert bucket(1000, 1024, 1024, jnp.float32) == "1024x1024x1024"
  assert bucket(4097, 4097, 4097, jnp.bfloat16) == "8192x8192x8192-unaligned"
  # 1000 bfloat16 is 2000 bytes: a multiple of 16, not of 128.
  assert bucket(1000, 1000, 1000, jnp.bfloat16) == "1024x1024x1024-rows16"
  assert bucket(1024, 1000, 1024, jnp.bfloat16) == "1024x1024x1024-rows16"
  assert bucket(1, 4, 4, jnp.float32) == "16x16x16-rows16"
  assert bucket(1, 32, 32, jnp.float32) == "16x32x32"
  # 700 float32 is 2800 bytes, a multiple of 16; 700 bfloat16 is not.
  assert bucket(3000, 5000, 700, jnp.float32) == "4096x8192x1024-rows16"
  assert bucket(3000, 5000, 700, jnp.bfloat16).endswith("-unaligned")


def test_cache_keys_name_device_backend_dtype_precision_and_bucket():
  key = tuning_cache.cache_key("NVIDIA H200", "triton", jnp.float32,
                               lax.Precision.HIGHEST, 4096, 4096, 4096)
  assert key == "NVIDIA H200|triton|float32|highest|4096x4096x4096"
  # 16-bit inputs ignore precision.
  assert tuning_cache.cache_key("cpu", "mosaic", jnp.bfloat16,
                                lax.Precision.HIGHEST, 1, 2,
                                3).split("|")[3] == "default"


def test_cache_round_trip(tmp_path):
  path = tmp_path / "sub" / "cache.json"
  config = pallas_tiled.TileConfig(64, 128, 32, 4, 4, group_m=16, split_k=2,
                                   k_major_b=True, align_operands=True)
  tuning_cache.TuningCache(path).store("dev|triton|k1", config,
                                       time_us=12.5)
  reread = tuning_cache.TuningCache(path)
  assert reread.lookup("dev|triton|k1") == config
  assert reread.lookup("missing") is None
  assert reread.entries["dev|triton|k1"]["time_us"] == 12.5
  assert json.loads(path.read_text())["version"] == 2


def test_cache_holds_both_backends_configs(tmp_path):
  path = tmp_path / "cache.json"
  triton = pallas_tiled.TileConfig(64, 128, 32)
  mosaic = pallas_tiled.MosaicConfig(tile_m=64, tile_n=256, wg_dimension="m",
                                     cluster_dimension="m")
  cache = tuning_cache.TuningCache(path)
  cache.store("dev|triton|x", triton, time_us=3.0)
  cache.store("dev|mosaic|x", mosaic, time_us=2.0)
  reread = tuning_cache.TuningCache(path)
  assert reread.lookup("dev|triton|x") == triton
  assert reread.lookup("dev|mosaic|x") == mosaic
  assert reread.time_us("dev|mosaic|x") == 2.0


def test_version_1_caches_are_read_as_triton_entries(tmp_path):
  """Caches written before the Mosaic backend keep working."""
  path = tmp_path / "cache.json"
  config = pallas_tiled.TileConfig(64, 128, 32, group_m=16)
  path.write_text(json.dumps({"version": 1, "entries": {
      "NVIDIA H200|bfloat16|default|4096x4096x4096": {
          "config": dataclasses.asdict(config), "time_us": 170.0}}}))
  cache = tuning_cache.TuningCache(path)
  assert cache.lookup(
      "NVIDIA H200|triton|bfloat16|default|4096x4096x4096") == config


def test_fastest_backend_compares_tuned_entries(tmp_path, monkeypatch):
  monkeypatch.setenv(tuning_cache.CACHE_ENV, str(tmp_path / "cache.json"))
  # Only the user cache: the H200's shipped table would answer otherwise.
  monkeypatch.setattr(tuning_cache, "shipped_table", lambda device: None)
  device = jax.devices()[0].device_kind
  key = lambda backend: tuning_cache.cache_key(
      device, backend, jnp.bfloat16, None, 4096, 4096, 4096)
  fastest = lambda: tuning_cache.fastest_backend(
      ("triton", "mosaic"), 4000, 4096, 4096, jnp.bfloat16, auto=True)
  cache = tuning_cache.user_cache()
  assert fastest() is None
  cache.store(key("triton"), pallas_tiled.TileConfig(64, 128, 32),
              time_us=180.0)
  assert fastest() is None  # Only one backend tuned: no comparison.
  cache.store(key("mosaic"), pallas_tiled.MosaicConfig(), time_us=170.0)
  assert fastest() == "mosaic"


@pytest.mark.parametrize(
    "text, problem",
    [("{not json", "Expecting property name"),
     ('{"version": 1, "entries": []}', "entries"),
     ('{"version": 1, "entries": {"k": {"config": {"block_m": 0, "block_n":'
      ' 16, "block_k": 16}, "time_us": 1}}}', "must be positive"),
     ('{"version": 2, "entries": {"d|mosaic|x": {"backend": "triton",'
      ' "config": {"block_m": 16, "block_n": 16, "block_k": 16},'
      ' "time_us": 1}}}', "does not match the key"),
     ('{"version": 2, "entries": {"d|mosaic|x": {"backend": "mosaic",'
      ' "config": {"tile_m": 96}, "time_us": 1}}}', "multiple of 64"),
     ('{"version": 2, "entries": {"d|triton|x": {"backend": "triton",'
      ' "config": {"block_m": 16, "block_n": 16, "block_k": 16},'
      ' "time_us": 1, "shape": [16, "16"]}}}', "is not [M, N, K]"),
     ('[1, 2]', "version")],
    ids=["bad-json", "entries-not-object", "invalid-config",
         "backend-mismatch", "invalid-mosaic-config", "bad-shape",
         "not-an-object"])
def test_corrupt_cache_warns_is_not_used_and_is_moved_aside(
    tmp_path, text, problem):
  path = tmp_path / "cache.json"
  path.write_text(text)
  cache = tuning_cache.TuningCache(path)
  with pytest.warns(tuning_cache.CorruptCacheWarning) as warned:
    assert cache.lookup("k") is None
  message = str(warned[0].message)
  assert str(path) in message and problem in message
  config = pallas_tiled.TileConfig(16, 16, 16)
  cache.store("d|triton|k", config, time_us=1.0)
  assert (tmp_path / "cache.json.corrupt").read_text() == text
  assert tuning_cache.TuningCache(path).lookup("d|triton|k") == config


def test_matmul_auto_survives_a_corrupt_cache(tmp_path, monkeypatch, rng):
  path = tmp_path / "cache.json"
  path.write_text("garbage")
  monkeypatch.setenv(tuning_cache.CACHE_ENV, str(path))
  a, b = helpers.random_operands(rng, 33, 17, 65, jnp.float32)
  with pytest.warns(tuning_cache.CorruptCacheWarning):
    out = pallas_tiled.matmul(a, b, config="auto")
  helpers.assert_matmul_close(out, a, b)


def test_autotune_picks_a_candidate_caches_it_and_auto_uses_it(
    tmp_path, monkeypatch, rng):
  monkeypatch.setenv(tuning_cache.CACHE_ENV, str(tmp_path / "cache.json"))
  candidates = [pallas_tiled.TileConfig(16, 16, 16),
                pallas_tiled.TileConfig(8, 32, 16, split_k=2)]
  best = tuning.autotune((40, 70), (70, 24), jnp.float32,
                           candidates=candidates, iterations=2, warmup=1)
  assert best in candidates
  device = jax.devices()[0].device_kind
  key = tuning_cache.cache_key(device, "triton", jnp.float32, None, 40, 24,
                               70)
  entry = json.loads((tmp_path / "cache.json").read_text())["entries"][key]
  assert pallas_tiled.TileConfig(**entry["config"]) == best
  assert entry["time_us"] > 0
  # A cached key returns without timing anything.
  monkeypatch.setattr(tuning.timing, "measure", None)
  assert tuning.autotune((40, 70), (70, 24), jnp.float32) == best
  # config="auto" finds it for any shape in the bucket.
  assert tiled.select_config(33, 20, 65, jnp.float32, None,
                             out_dtype=jnp.float32, auto=True) == best
  a, b = helpers.random_operands(rng, 33, 20, 65, jnp.float32)
  helpers.assert_matmul_close(pallas_tiled.matmul(a, b, config="auto"), a, b)


def test_autotune_skips_failing_candidates(tmp_path, monkeypatch):
  """A candidate that raises (say, a compile error) is logged and skipped."""
  good = pallas_tiled.TileConfig(16, 16, 16)
  failing = pallas_tiled.TileConfig(32, 32, 32)
  matmul = tuning.backends.matmul

  def fails_for_one_config(a, b, config, **kwargs):
    if config == failing:
      raise RuntimeError("out of resources")
    return matmul(a, b, config, **kwargs)

  monkeypatch.setattr(tuning.backends, "matmul", fails_for_one_config)
  cache = tuning_cache.TuningCache(tmp_path / "cache.json")
  assert tuning.autotune((20, 30), (30, 10), jnp.float32, cache=cache,
                           candidates=[failing, good], iterations=1,
                           warmup=1) == good
  with pytest.raises(RuntimeError, match="no candidate ran correctly"):
    tuning.autotune((20, 30), (30, 10), jnp.float32, cache=cache,
                      candidates=[failing], force=True)


def test_autotune_rejects_bad_shapes():
  with pytest.raises(ValueError, match="inner dimensions"):
    tuning.autotune((4, 5), (6, 7), jnp.float32)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float32, helpers.FLOAT8],
                         ids=["bf16", "f32", "f8"])
def test_mosaic_candidates_are_valid_unique_and_start_with_the_heuristic(
    shape, dtype):
  candidates = tuning.candidate_configs(*shape, dtype, backend="mosaic")
  assert candidates[0] == config_lib.default_mosaic_config(*shape, dtype)
  assert len(candidates) == len(set(candidates))
  assert 6 <= len(candidates) <= 15
  for c in candidates:
    config_lib.check_mosaic_config(c, dtype, dtype)
    # K-tiles of the 128-byte swizzle; two of them for 64x64 consumers and
    # for the two-stage 64x256 ones.
    two = (c.tile_m, c.tile_n) == (64, 64) or (
        (c.tile_m, c.tile_n, c.max_concurrent_steps) == (64, 256, 2))
    width = 256 if two else 128
    assert c.tile_k * jnp.dtype(dtype).itemsize == width


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_mosaic_highest_candidates_fit_the_promoted_sums(shape):
  """float32 at HIGHEST keeps a float32 sum beside each consumer's
  accumulator: only consumers of at most PROMOTED_MAX_TILE elements."""
  highest = lax.Precision.HIGHEST
  candidates = tuning.candidate_configs(*shape, jnp.float32, highest,
                                        backend="mosaic")
  assert candidates[0] == config_lib.default_mosaic_config(
      *shape, jnp.float32, promoted=True)
  assert len(candidates) >= 3
  assert all(c.tile_m * c.tile_n <= config_lib.PROMOTED_MAX_TILE
             for c in candidates)


def test_autotune_times_each_backend_and_caches_each_best(tmp_path, rng):
  """Given candidates of both backends, each backend's best is cached under
  its own key and the faster one is returned."""
  cache = tuning_cache.TuningCache(tmp_path / "cache.json")
  candidates = [pallas_tiled.TileConfig(16, 16, 16),
                pallas_tiled.MosaicConfig(tile_m=64, tile_n=32,
                                          epi_tile_n=32)]
  best = tuning.autotune((40, 70), (70, 24), jnp.bfloat16, cache=cache,
                         candidates=candidates, iterations=1, warmup=1)
  device = jax.devices()[0].device_kind
  keys = {b: tuning_cache.cache_key(device, b, jnp.bfloat16, None, 40, 24,
                                    70) for b in ("triton", "mosaic")}
  assert [cache.lookup(keys[b]) for b in keys] == candidates
  assert best == min(candidates, key=lambda c: cache.time_us(keys[c.backend]))


def test_mosaic_tuned_entry_gives_way_where_its_tiles_fill_waves_badly(
    tmp_path, monkeypatch):
  """An entry tuned on 4096^3 (128x256 CTA tiles: 4 full waves) serves
  shapes of its bucket whose waves it fills as well, not 3072^3 (2.2
  waves), where the heuristic's 128x128 tiles are predicted faster."""
  monkeypatch.setenv(tuning_cache.CACHE_ENV, str(tmp_path / "cache.json"))
  monkeypatch.setattr(tuning_cache, "shipped_table", lambda device: None)
  dtype = jnp.dtype(jnp.bfloat16)
  tuned = dataclasses.replace(
      config_lib.default_mosaic_config(4096, 4096, 4096, dtype),
      grid_tile_width=8)
  key = tuning_cache.cache_key(jax.devices()[0].device_kind, "mosaic", dtype,
                               None, 4096, 4096, 4096)
  tuning_cache.user_cache().store(key, tuned, time_us=170.0,
                                  shape=[4096, 4096, 4096])
  select = lambda m, n, k: mosaic.select_config(m, n, k, dtype, None,
                                                out_dtype=dtype, auto=True)
  assert select(4096, 4096, 4096) == tuned
  assert select(4000, 4096, 3072) == tuned  # Same waves.
  assert select(3072, 3072, 3072) == config_lib.default_mosaic_config(
      3072, 3072, 3072, dtype)
  assert select(3072, 3072, 3072).cta_tile == (128, 128)


@pytest.mark.parametrize("shape, cta_tile", [
    ((1024, 1024, 1024), (128, 64)),    # 128 tiles: one wave.
    ((1536, 1536, 1536), (128, 64)),    # 288 tiles: 2.2 waves, but small.
    ((2048, 2048, 2048), (128, 256)),   # 128 tiles: one wave.
    ((3072, 3072, 3072), (128, 128)),   # 576: 4.4 waves, not 288: 2.2.
    ((4096, 4096, 4096), (128, 256)),   # 512: 3.9 waves.
    ((6144, 6144, 6144), (128, 256)),
], ids=str)
def test_mosaic_heuristic_picks_cta_tiles_by_waves(shape, cta_tile):
  config = config_lib.default_mosaic_config(*shape, jnp.bfloat16)
  assert config.cta_tile == cta_tile


def test_mosaic_wave_cost_counts_whole_waves():
  wide = pallas_tiled.MosaicConfig(tile_m=64, tile_n=256, wg_dimension="m")
  # 4096^2 in 128x256 tiles: 512 tiles, 3.9 waves of 132 SMs, costs 4.
  assert config_lib.mosaic_wave_cost(wide, 4096, 4096) == 4 * 128 * 256
  assert config_lib.mosaic_wave_cost(wide, 4096, 4096 - 255) == (
      4 * 128 * 256)
  # A cluster walks 256x256 cluster tiles, 66 at a time: 256 of them, the
  # same 4 waves of CTA tiles.
  clustered = dataclasses.replace(wide, cluster_dimension="m")
  assert config_lib.mosaic_wave_cost(clustered, 4096, 4096) == 4 * 128 * 256
  # 128x128 tiles run at 0.94 of 128x256's throughput.
  square = dataclasses.replace(wide, tile_n=128)
  assert config_lib.mosaic_wave_cost(square, 128, 128) == pytest.approx(
      128 * 128 / 0.94)
