"""Tuned configs on disk: cache keys, the JSON cache file, the shipped tables.

An entry maps a key (device, backend, dtype, precision, shape bucket) to the
best config the autotuner found there for that backend (a TileConfig for
"triton", a MosaicConfig for "mosaic") and the time it measured. The user's
cache lives at $PALLAS_TILED_CACHE, or `autotune.json` in the platform's
user cache directory (platformdirs: $XDG_CACHE_HOME/pallas_tiled, by default
~/.cache/pallas_tiled, on Linux). Tables for known devices ship in `tables/`
in the same format: they are the autotuner's own output on that device.

Any number of processes can tune into one file: a store holds
`<name>.lock` while it re-reads the file, adds its entry and replaces the
file atomically, so no process's entries are lost and readers never see a
partial file.

A cache file that cannot be read as such is never used: it raises a
`CorruptCacheWarning` naming the file and the problem, lookups miss, and the
next store moves it aside to `<name>.corrupt` (or `.corrupt.1`, `.corrupt.2`,
... : no backup is overwritten) before writing a fresh file. A path that
cannot be read or written at all (a directory, no permission, a read-only
file system) raises a `CacheAccessWarning`, never an error: lookups miss,
and stored entries live in this process only, so an autotune still returns
its result. Version-1 files (from before the Mosaic backend, Triton entries
only) are read as such.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import secrets
import warnings

import filelock
from jax import lax
import jax.numpy as jnp

from pallas_tiled import config_checks
from pallas_tiled import device
from pallas_tiled import layouts
from pallas_tiled.mosaic.config import MosaicConfig
from pallas_tiled.triton.config import TileConfig

CACHE_ENV = "PALLAS_TILED_CACHE"
FORMAT_VERSION = 2
# Which config dataclass each backend's entries hold.
CONFIG_TYPES = {"triton": TileConfig, "mosaic": MosaicConfig}
SHIPPED_TABLES = {"NVIDIA H200": "h200.json"}
_TABLES_DIR = pathlib.Path(__file__).parent / "tables"
# Seconds a store waits for another process's store to finish: far longer
# than any write takes, short enough that a stale lock on a broken file
# system ends in a warning rather than a hung autotune.
LOCK_TIMEOUT_S = 60


class CorruptCacheWarning(UserWarning):
  """A tuning cache file exists but is not a valid cache; it is ignored."""


class CacheAccessWarning(UserWarning):
  """A tuning cache path cannot be read or written (a directory, no
  permission, a read-only file system); tuning works without it."""


def default_cache_path() -> pathlib.Path:
  """$PALLAS_TILED_CACHE, else the platform's user cache directory."""
  path = os.environ.get(CACHE_ENV)
  if path:
    return pathlib.Path(path)
  # Imported here: only the user cache needs it (the GPU test machine, with
  # no network, lacks it and sets $PALLAS_TILED_CACHE).
  import platformdirs  # pylint: disable=import-outside-toplevel
  return pathlib.Path(platformdirs.user_cache_dir(
      "pallas_tiled", appauthor=False)) / "autotune.json"


def precision_name(precision, dtype) -> str:
  """The precision part of a key; only float32 inputs heed precision."""
  if jnp.dtype(dtype) != jnp.float32 or precision is None:
    return "default"
  if isinstance(precision, (lax.Precision, lax.DotAlgorithmPreset)):
    return precision.name.lower()
  return "+".join(p.name.lower() for p in precision)


def shape_bucket(m: int, n: int, k: int, dtype) -> str:
  """Dimensions rounded up to powers of two, and how rows are aligned.

  The rows' byte lengths (K for `a`, N for `b`) make three problems, so
  three buckets: multiples of 128 bytes; of 16 bytes only ("-rows16":
  Mosaic pads them to its 128-byte swizzle, and Triton's loads of them are
  slower, e.g. 1024x1000x1024 bfloat16 on an H200 took 10.0 us, and 5.8
  with B's rows padded to 1024); neither ("-unaligned": no wide aligned
  loads at all).
  """
  dims = "x".join(str(config_checks.next_power_of_two(max(d, 16)))
                  for d in (m, n, k))
  if layouts.has_unaligned_rows(n, k, dtype):
    return dims + "-unaligned"
  # Rows (K of `a`, N of `b`) of whole swizzle widths load fastest in both
  # kernels.
  if layouts.has_unaligned_rows(n, k, dtype, layouts.SWIZZLE_BYTES):
    return dims + "-rows16"
  return dims


def cache_key(kind: str, backend: str, dtype, precision, m: int, n: int,
              k: int) -> str:
  """The key of device `kind`'s entry for one backend and problem."""
  return "|".join((kind, backend, jnp.dtype(dtype).name,
                   precision_name(precision, dtype),
                   shape_bucket(m, n, k, dtype)))


def _from_version_1(entries: dict) -> dict[str, dict]:
  """Version 1 had Triton entries only, keyed without the backend."""
  if not isinstance(entries, dict):
    return entries
  upgraded = {}
  for key, entry in entries.items():
    kind, _, rest = str(key).partition("|")
    if isinstance(entry, dict):
      entry = {"backend": "triton", **entry}
    upgraded[f"{kind}|triton|{rest}"] = entry
  return upgraded


def _parse(text: str) -> dict[str, dict]:
  """The entries of a cache file's text; ValueError if it is not one."""
  data = json.loads(text)
  version = data.get("version") if isinstance(data, dict) else None
  if version not in (1, FORMAT_VERSION):
    raise ValueError(f"expected a JSON object with \"version\":"
                     f" {FORMAT_VERSION}")
  entries = data.get("entries")
  if version == 1:
    entries = _from_version_1(entries)
  if not isinstance(entries, dict):
    raise ValueError("expected an \"entries\" object")
  for key, entry in entries.items():
    try:
      backend = entry["backend"]
      if key.split("|")[1:2] != [backend] or backend not in CONFIG_TYPES:
        raise ValueError(f"backend {backend!r} does not match the key or is"
                         f" not one of {tuple(CONFIG_TYPES)}")
      CONFIG_TYPES[backend](**entry["config"])
      float(entry["time_us"])
      shape = entry.get("shape")
      if shape is not None and not (
          isinstance(shape, list) and len(shape) == 3
          and all(isinstance(d, int) and d > 0 for d in shape)):
        raise ValueError(f"shape {shape!r} is not [M, N, K]")
    except (KeyError, TypeError, ValueError) as e:
      raise ValueError(f"entry {key!r} is not a valid tuned config: {e}")
  return entries


class TuningCache:
  """One cache file: read once; each store merges into the file on disk."""

  def __init__(self, path: str | os.PathLike | None = None):
    self.path = pathlib.Path(path) if path else default_cache_path()
    self._entries: dict[str, dict] | None = None

  def _read(self) -> dict[str, dict]:
    """The entries on disk ({} if none); ValueError (UnicodeDecodeError
    too) if the file is corrupt, OSError if it cannot be read."""
    try:
      text = self.path.read_text()
    except FileNotFoundError:
      return {}
    return _parse(text)

  @property
  def entries(self) -> dict[str, dict]:
    if self._entries is None:
      self._entries = {}
      try:
        self._entries = self._read()
      except ValueError as e:  # JSON and Unicode decode errors too.
        warnings.warn(
            f"pallas_tiled: ignoring corrupt tuning cache {self.path}: {e}."
            " Its configs are not used; the next autotune result moves it"
            f" to {self.path.name}.corrupt (or .corrupt.N). Delete it, or"
            f" point ${CACHE_ENV} at another file.", CorruptCacheWarning,
            stacklevel=3)
      except OSError as e:
        warnings.warn(
            f"pallas_tiled: cannot read tuning cache {self.path}: {e}. Its"
            f" configs are not used. Point ${CACHE_ENV} at a readable file"
            " (not a directory).", CacheAccessWarning, stacklevel=3)
    return self._entries

  def lookup(self, key: str):
    """The config stored under `key` (a TileConfig or MosaicConfig), or None."""
    entry = self.entries.get(key)
    if entry is None:
      return None
    return CONFIG_TYPES[entry["backend"]](**entry["config"])

  def tuned_shape(self, key: str) -> tuple[int, ...] | None:
    """The (M, N, K) the entry at `key` was tuned on, if recorded."""
    shape = self.entries.get(key, {}).get("shape")
    return tuple(shape) if shape is not None else None

  def time_us(self, key: str) -> float | None:
    entry = self.entries.get(key)
    return None if entry is None else float(entry["time_us"])

  def store(self, key: str, config, **record) -> None:
    """Adds `config` under `key` here and in the file.

    A file that cannot be written gets a CacheAccessWarning, not an error:
    the entry is kept in this process, and an autotune that stores it still
    returns its result.
    """
    entry = {"backend": config.backend, "config": dataclasses.asdict(config),
             **record}
    self.entries[key] = entry
    try:
      on_disk = self._store_on_disk(key, entry)
    except OSError as e:  # filelock.Timeout too.
      warnings.warn(
          f"pallas_tiled: cannot write tuning cache {self.path}: {e}. The"
          " tuned config is used in this process only. Point"
          f" ${CACHE_ENV} at a writable file (not a directory).",
          CacheAccessWarning, stacklevel=2)
      return
    # Other processes' entries, found on disk, join this one's.
    self._entries.update(on_disk)

  def _store_on_disk(self, key: str, entry: dict) -> dict[str, dict]:
    """Merges `entry` into the file under the lock; returns what it wrote."""
    if self.path.is_dir():  # Checked first: no lock file beside it.
      raise IsADirectoryError(f"{self.path} is a directory")
    self.path.parent.mkdir(parents=True, exist_ok=True)
    lock = filelock.FileLock(self.path.with_name(self.path.name + ".lock"))
    # Polled often: a store holds the lock for about a millisecond.
    with lock.acquire(timeout=LOCK_TIMEOUT_S, poll_interval=0.005):
      # Judged on the file as it is now: another process may have added
      # entries, or replaced a corrupt file, since this one read it.
      try:
        entries = self._read()
      except ValueError as e:
        backup = self._move_aside()
        warnings.warn(
            f"pallas_tiled: moved corrupt tuning cache {self.path} ({e}) to"
            f" {backup.name}; writing a fresh one.", CorruptCacheWarning,
            stacklevel=3)
        entries = {}
      entries[key] = entry
      text = json.dumps({"version": FORMAT_VERSION, "entries": entries},
                        indent=1, sort_keys=True)
      _write_atomically(self.path, text + "\n")
    return entries

  def _move_aside(self) -> pathlib.Path:
    """Renames the (corrupt) file to the first unused `<name>.corrupt[.N]`;
    the caller holds the lock, so no other store picks the same name."""
    backup = self.path.with_name(self.path.name + ".corrupt")
    n = 0
    while backup.exists():
      n += 1
      backup = self.path.with_name(f"{self.path.name}.corrupt.{n}")
    os.replace(self.path, backup)
    return backup


def _write_atomically(path: pathlib.Path, text: str) -> None:
  """Writes `text` to a fresh file beside `path`, then renames it over
  `path`, so readers see the old file or the new, never part of one.

  The file is created by os.open with mode 0o666, so the umask sets its
  mode as for any new file (0644 under umask 022), where tempfile's would
  be 0600. It is removed on any failure.
  """
  tmp = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}"
                       ".tmp")
  fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
  try:
    with os.fdopen(fd, "w") as f:
      f.write(text)
      f.flush()
      os.fsync(f.fileno())
    os.replace(tmp, path)
  except BaseException:
    try:
      os.unlink(tmp)
    except OSError:
      pass
    raise


_shipped: dict[str, TuningCache] = {}


def shipped_table(kind: str) -> TuningCache | None:
  """The tuned table that ships for device `kind`, if there is one."""
  name = SHIPPED_TABLES.get(kind)
  if name is None or not (_TABLES_DIR / name).exists():
    return None
  if kind not in _shipped:
    _shipped[kind] = TuningCache(_TABLES_DIR / name)
  return _shipped[kind]


_user_caches: dict[pathlib.Path, TuningCache] = {}


def user_cache() -> TuningCache:
  """The cache at default_cache_path(), read once per path per process."""
  path = default_cache_path()
  if path not in _user_caches:
    _user_caches[path] = TuningCache(path)
  return _user_caches[path]


def _caches(kind: str, auto: bool) -> list[TuningCache]:
  """Where tuned configs are looked up, first match wins: the user's cache
  (for config="auto" only), then the table shipped for device `kind`."""
  caches = [user_cache()] if auto else []
  shipped = shipped_table(kind)
  return caches + ([shipped] if shipped is not None else [])


def select_config(backend: str, m: int, n: int, k: int, dtype,
                  precision=None, *, auto: bool = False, default,
                  fits=None):
  """The config `backend` runs when `matmul` is given config=None ("auto").

  "auto" looks in the user's autotune cache first. Both then look in the
  table shipped for this device, and fall back to `default()`, the
  backend's heuristic. `fits(config, tuned_shape)`, if given, can turn down
  an entry tuned on another shape of the bucket (tuned_shape: its (M, N,
  K), or None if not recorded).
  """
  kind = device.device_kind()
  key = cache_key(kind, backend, dtype, precision, m, n, k)
  for cache in _caches(kind, auto):
    found = cache.lookup(key)
    if found is not None and (fits is None
                              or fits(found, cache.tuned_shape(key))):
      return found
  return default()


def fastest_backend(backends, m: int, n: int, k: int, dtype, precision=None,
                    *, auto: bool = False,
                    exact: bool = False) -> str | None:
  """The backend whose tuned entry for this problem measured fastest, if
  the first cache (as in `select_config`) holding any of them holds them
  all; None otherwise. `exact`: only entries tuned on this very shape."""
  kind = device.device_kind()
  for cache in _caches(kind, auto):
    keys = {b: cache_key(kind, b, dtype, precision, m, n, k)
            for b in backends}
    times = {b: cache.time_us(key) if not exact
             or cache.tuned_shape(key) == (m, n, k) else None
             for b, key in keys.items()}
    if all(t is None for t in times.values()):
      continue
    if any(t is None for t in times.values()):
      return None
    return min(times, key=times.get)
  return None
