"""The tuning cache (`tuning/cache.py`): shape buckets and keys, round trips
of either backend's configs, old and corrupt files, concurrent writers,
unusable paths, the default location and file mode, and which backend's
tuned entry is faster."""

import dataclasses
import json
import os
import pathlib
import re
import stat
import subprocess
import sys
import textwrap
import time

import jax
from jax import lax
import jax.numpy as jnp
import pytest

import pallas_tiled
from pallas_tiled.tuning import cache as tuning_cache
from tests import helpers


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
  # Where the cost model picks, entries count only on the shape tuned.
  for backend in ("triton", "mosaic"):
    cache.store(key(backend), pallas_tiled.TileConfig(64, 128, 32)
                if backend == "triton" else pallas_tiled.MosaicConfig(),
                time_us=170.0, shape=[4096, 4096, 4096])
  exact = lambda m: tuning_cache.fastest_backend(
      ("triton", "mosaic"), m, 4096, 4096, jnp.bfloat16, auto=True,
      exact=True)
  assert exact(4000) is None
  assert exact(4096) is not None


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
  with pytest.warns(tuning_cache.CorruptCacheWarning,
                    match=r"to cache\.json\.corrupt;"):
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


def test_stores_keep_every_earlier_corrupt_file(tmp_path):
  path = tmp_path / "cache.json"
  config = pallas_tiled.TileConfig(16, 16, 16)
  for i, text in enumerate(["garbage 0", "garbage 1", "garbage 2"]):
    path.write_text(text)
    cache = tuning_cache.TuningCache(path)
    with pytest.warns(tuning_cache.CorruptCacheWarning,
                      match=re.escape(str(path))):
      assert cache.lookup("d|triton|k") is None
    with pytest.warns(tuning_cache.CorruptCacheWarning, match="corrupt"):
      cache.store(f"d|triton|k{i}", config, time_us=1.0)
  backups = ["cache.json.corrupt", "cache.json.corrupt.1",
             "cache.json.corrupt.2"]
  assert [(tmp_path / b).read_text() for b in backups] == [
      "garbage 0", "garbage 1", "garbage 2"]
  assert list(tuning_cache.TuningCache(path).entries) == ["d|triton|k2"]


def test_a_store_keeps_a_file_fixed_since_it_was_read(tmp_path):
  """Whether the file is corrupt is judged when storing, under the lock."""
  path = tmp_path / "cache.json"
  path.write_text("garbage")
  stale = tuning_cache.TuningCache(path)
  with pytest.warns(tuning_cache.CorruptCacheWarning):
    stale.lookup("k")
  config = pallas_tiled.TileConfig(16, 16, 16)
  with pytest.warns(tuning_cache.CorruptCacheWarning):
    tuning_cache.TuningCache(path).store("d|triton|a", config, time_us=1.0)
  stale.store("d|triton|b", config, time_us=2.0)
  assert sorted(tuning_cache.TuningCache(path).entries) == [
      "d|triton|a", "d|triton|b"]
  assert sorted(stale.entries) == ["d|triton|a", "d|triton|b"]
  assert (tmp_path / "cache.json.corrupt").read_text() == "garbage"
  assert not (tmp_path / "cache.json.corrupt.1").exists()


_WRITER = textwrap.dedent("""
    import pathlib, sys, time
    from pallas_tiled.tuning import cache
    path, index = pathlib.Path(sys.argv[1]), int(sys.argv[2])
    (path.parent / f"ready{index}").touch()
    while not (path.parent / "go").exists():
      time.sleep(0.001)
    for j in range(3):
      cache.TuningCache(path).store(f"d|triton|p{index}-{j}",
                                    cache.TileConfig(16, 16, 16),
                                    time_us=float(index))
""")

# Each imports pallas_tiled (about 1 s of CPU), so not many more than cores.
_WRITERS = 4


def test_concurrent_processes_lose_no_entries(tmp_path):
  """Writers started together, each storing its own keys: all survive."""
  path = tmp_path / "cache.json"
  root = pathlib.Path(pallas_tiled.__file__).parent.parent
  env = dict(os.environ, PYTHONPATH=str(root))
  writers = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path),
                               str(i)], env=env) for i in range(_WRITERS)]
  try:
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"ready{i}").exists()
                  for i in range(_WRITERS)):
      assert time.monotonic() < deadline and all(
          w.poll() is None for w in writers), "a writer did not start"
      time.sleep(0.01)
    (tmp_path / "go").touch()
    assert [w.wait(timeout=60) for w in writers] == [0] * _WRITERS
  finally:
    for w in writers:
      w.kill()
  entries = tuning_cache.TuningCache(path).entries
  assert sorted(entries) == sorted(f"d|triton|p{i}-{j}"
                                   for i in range(_WRITERS)
                                   for j in range(3))
  assert not list(tmp_path.glob("*.tmp"))


def test_default_path_follows_xdg_cache_home(tmp_path, monkeypatch):
  # A declared dependency, but the offline GPU machine's Python lacks it.
  pytest.importorskip("platformdirs")
  monkeypatch.delenv(tuning_cache.CACHE_ENV, raising=False)
  monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
  path = tmp_path / "xdg" / "pallas_tiled" / "autotune.json"
  assert tuning_cache.default_cache_path() == path
  monkeypatch.setenv(tuning_cache.CACHE_ENV, str(tmp_path / "mine.json"))
  assert tuning_cache.default_cache_path() == tmp_path / "mine.json"


def test_a_directory_as_cache_warns_and_leaves_nothing(tmp_path, monkeypatch):
  """Unusable paths warn, never raise: an autotune keeps its result."""
  directory = tmp_path / "dir"
  directory.mkdir()
  monkeypatch.setenv(tuning_cache.CACHE_ENV, str(directory))
  cache = tuning_cache.TuningCache()
  with pytest.warns(tuning_cache.CacheAccessWarning,
                    match="cannot read tuning cache "
                    + re.escape(str(directory))):
    assert cache.lookup("d|triton|k") is None
  config = pallas_tiled.TileConfig(16, 16, 16)
  with pytest.warns(tuning_cache.CacheAccessWarning,
                    match="cannot write tuning cache "
                    + re.escape(str(directory))):
    cache.store("d|triton|k", config, time_us=1.0)
  assert cache.lookup("d|triton|k") == config  # Kept in this process.
  assert list(directory.iterdir()) == []
  assert sorted(p.name for p in tmp_path.iterdir()) == ["dir"]


def test_a_cache_below_a_file_warns_on_store(tmp_path):
  (tmp_path / "file").write_text("")
  cache = tuning_cache.TuningCache(tmp_path / "file" / "cache.json")
  with pytest.warns(tuning_cache.CacheAccessWarning, match="cannot read"):
    assert cache.lookup("d|triton|k") is None
  with pytest.warns(tuning_cache.CacheAccessWarning, match="cannot write"):
    cache.store("d|triton|k", pallas_tiled.TileConfig(16, 16, 16),
                time_us=1.0)
  assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_a_failed_write_leaves_no_temp_file(tmp_path, monkeypatch):
  path = tmp_path / "cache.json"
  def fail(*args):
    raise OSError("disk full")
  monkeypatch.setattr(tuning_cache.os, "replace", fail)
  with pytest.warns(tuning_cache.CacheAccessWarning, match="disk full"):
    tuning_cache.TuningCache(path).store(
        "d|triton|k", pallas_tiled.TileConfig(16, 16, 16), time_us=1.0)
  # The lock file may stay (filelock's choice); nothing else may.
  assert {p.name for p in tmp_path.iterdir()} <= {"cache.json.lock"}


def test_cache_file_mode_follows_the_umask(tmp_path):
  old = os.umask(0o022)
  try:
    tuning_cache.TuningCache(tmp_path / "cache.json").store(
        "d|triton|k", pallas_tiled.TileConfig(16, 16, 16), time_us=1.0)
  finally:
    os.umask(old)
  assert stat.S_IMODE((tmp_path / "cache.json").stat().st_mode) == 0o644
