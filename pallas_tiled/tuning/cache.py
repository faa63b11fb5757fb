"""Tuned configs on disk: cache keys, the JSON cache file, the shipped tables.

An entry maps a key (device, backend, dtype, precision, shape bucket) to the
best config the autotuner found there for that backend (a TileConfig for
"triton", a MosaicConfig for "mosaic") and the time it measured. The user's
cache lives at $PALLAS_TILED_CACHE, or ~/.cache/pallas_tiled/autotune.json.
Tables for known devices ship in `tables/` in the same format:
they are the autotuner's own output on that device.

A cache file that cannot be read as such is never used: it raises a
`CorruptCacheWarning` naming the file and the problem, lookups miss, and the
next store moves it aside to `<name>.corrupt` before writing a fresh file.
Version-1 files (from before the Mosaic backend, Triton entries only) are
read as such.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import tempfile
import warnings

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


class CorruptCacheWarning(UserWarning):
  """A tuning cache file exists but is not a valid cache; it is ignored."""


def default_cache_path() -> pathlib.Path:
  path = os.environ.get(CACHE_ENV)
  if path:
    return pathlib.Path(path)
  return pathlib.Path.home() / ".cache" / "pallas_tiled" / "autotune.json"


def precision_name(precision, dtype) -> str:
  """The precision part of a key; 16- and 8-bit inputs ignore precision."""
  if jnp.dtype(dtype).itemsize < 4 or precision is None:
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
  """One cache file: read once, written atomically on every store."""

  def __init__(self, path: str | os.PathLike | None = None):
    self.path = pathlib.Path(path) if path else default_cache_path()
    self._entries: dict[str, dict] | None = None
    self._corrupt = False

  @property
  def entries(self) -> dict[str, dict]:
    if self._entries is None:
      self._entries = {}
      if self.path.exists():
        try:
          self._entries = _parse(self.path.read_text())
        except (ValueError, UnicodeDecodeError) as e:  # JSONDecodeError too.
          self._corrupt = True
          warnings.warn(
              f"pallas_tiled: ignoring corrupt tuning cache {self.path}: {e}."
              " Its configs are not used; the next autotune result moves it"
              f" to {self.path.name}.corrupt. Delete it, or point"
              f" ${CACHE_ENV} at another file.", CorruptCacheWarning,
              stacklevel=3)
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
    entries = self.entries
    entries[key] = {"backend": config.backend,
                    "config": dataclasses.asdict(config), **record}
    self.path.parent.mkdir(parents=True, exist_ok=True)
    if self._corrupt:
      os.replace(self.path, self.path.with_name(self.path.name + ".corrupt"))
      self._corrupt = False
    text = json.dumps({"version": FORMAT_VERSION, "entries": entries},
                      indent=1, sort_keys=True)
    with tempfile.NamedTemporaryFile("w", dir=self.path.parent, delete=False,
                                     suffix=".tmp") as f:
      f.write(text + "\n")
    os.replace(f.name, self.path)


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
                    *, auto: bool = False) -> str | None:
  """The backend whose tuned entry for this problem measured fastest, if
  the first cache (as in `select_config`) holding any of them holds them
  all; None otherwise."""
  kind = device.device_kind()
  for cache in _caches(kind, auto):
    times = {b: cache.time_us(cache_key(kind, b, dtype, precision, m, n, k))
             for b in backends}
    if all(t is None for t in times.values()):
      continue
    if any(t is None for t in times.values()):
      return None
    return min(times, key=times.get)
  return None
