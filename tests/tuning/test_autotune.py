"""The autotuner (`tuning/autotune.py`), on the CPU: it times candidates of
either backend, caches each backend's best, skips failing candidates, and
config="auto" uses what it cached."""

import json

import jax
import jax.numpy as jnp
import pytest

import pallas_tiled
from pallas_tiled.triton import kernel as triton_kernel
from pallas_tiled.tuning import autotune
from pallas_tiled.tuning import cache as tuning_cache
from tests import helpers


def test_autotune_picks_a_candidate_caches_it_and_auto_uses_it(
    tmp_path, monkeypatch, rng):
  monkeypatch.setenv(tuning_cache.CACHE_ENV, str(tmp_path / "cache.json"))
  candidates = [pallas_tiled.TileConfig(16, 16, 16),
                pallas_tiled.TileConfig(8, 32, 16, split_k=2)]
  best = autotune.autotune((40, 70), (70, 24), jnp.float32,
                           candidates=candidates, iterations=2, warmup=1)
  assert best in candidates
  device = jax.devices()[0].device_kind
  key = tuning_cache.cache_key(device, "triton", jnp.float32, None, 40, 24,
                               70)
  entry = json.loads((tmp_path / "cache.json").read_text())["entries"][key]
  assert pallas_tiled.TileConfig(**entry["config"]) == best
  assert entry["time_us"] > 0
  # A cached key returns without timing anything.
  monkeypatch.setattr(autotune.timing, "measure", None)
  assert autotune.autotune((40, 70), (70, 24), jnp.float32) == best
  select = lambda *shape: triton_kernel.select_config(
      *shape, jnp.float32, None, out_dtype=jnp.float32, auto=True)
  # config="auto" finds it for its own shape; where the cost model has no
  # coefficients (here: the CPU, a GPU before Hopper), for any shape in the
  # bucket, which the model would otherwise choose for (an H100's float32).
  assert select(40, 24, 70) == best
  monkeypatch.setattr(triton_kernel.cost_model, "choose",
                      lambda *_, **__: None)
  assert select(33, 20, 65) == best
  a, b = helpers.random_operands(rng, 33, 20, 65, jnp.float32)
  helpers.assert_matmul_close(pallas_tiled.matmul(a, b, config="auto"), a, b)


def test_autotune_skips_failing_candidates(tmp_path, monkeypatch):
  """A candidate that raises (say, a compile error) is logged and skipped."""
  good = pallas_tiled.TileConfig(16, 16, 16)
  failing = pallas_tiled.TileConfig(32, 32, 32)
  matmul = autotune.api.matmul

  def fails_for_one_config(a, b, config, **kwargs):
    if config == failing:
      raise RuntimeError("out of resources")
    return matmul(a, b, config, **kwargs)

  monkeypatch.setattr(autotune.api, "matmul", fails_for_one_config)
  cache = tuning_cache.TuningCache(tmp_path / "cache.json")
  assert autotune.autotune((20, 30), (30, 10), jnp.float32, cache=cache,
                           candidates=[failing, good], iterations=1,
                           warmup=1) == good
  with pytest.raises(RuntimeError, match="no candidate ran correctly"):
    autotune.autotune((20, 30), (30, 10), jnp.float32, cache=cache,
                      candidates=[failing], force=True)


def test_autotune_rejects_bad_shapes():
  with pytest.raises(ValueError, match="inner dimensions"):
    autotune.autotune((4, 5), (6, 7), jnp.float32)


def test_autotune_times_each_backend_and_caches_each_best(tmp_path, rng):
  """Given candidates of both backends, each backend's best is cached under
  its own key and the faster one is returned."""
  cache = tuning_cache.TuningCache(tmp_path / "cache.json")
  candidates = [pallas_tiled.TileConfig(16, 16, 16),
                pallas_tiled.MosaicConfig(tile_m=64, tile_n=32,
                                          epi_tile_n=32)]
  best = autotune.autotune((40, 70), (70, 24), jnp.bfloat16, cache=cache,
                           candidates=candidates, iterations=1, warmup=1)
  device = jax.devices()[0].device_kind
  keys = {b: tuning_cache.cache_key(device, b, jnp.bfloat16, None, 40, 24,
                                    70) for b in ("triton", "mosaic")}
  assert [cache.lookup(keys[b]) for b in keys] == candidates
  assert best == min(candidates, key=lambda c: cache.time_us(keys[c.backend]))


@pytest.mark.parametrize("dtype", [jnp.int8, jnp.float64],
                         ids=lambda d: jnp.dtype(d).name)
def test_autotune_checks_int8_and_float64_in_their_accumulators(tmp_path,
                                                                dtype):
  """int8 is tuned with exact int32 results, float64 against a float64
  reference (a float32 one would fail every candidate)."""
  cache = tuning_cache.TuningCache(tmp_path / "cache.json")
  # 32-wide K-phases: the compiled kernel refuses narrower int8 ones.
  config = pallas_tiled.TileConfig(16, 16, 32, split_k=2)
  with jax.enable_x64(dtype == jnp.float64):
    assert autotune.autotune((20, 300), (300, 10), dtype, cache=cache,
                             candidates=[config], iterations=1,
                             warmup=1) == config


def test_autotune_refuses_complex_dtypes():
  with pytest.raises(ValueError, match="autotune float32"):
    autotune.autotune((4, 5), (5, 7), jnp.complex64)
