"""Autotuning: time candidate configs, keep the fastest correct one.

`autotune(a_shape, b_shape, dtype)` runs each of `candidate_configs(...)` on
random normal inputs (CUPTI kernel time on a GPU, wall clock in interpret
mode), rejects any whose result misses the accuracy tolerance, and stores the
fastest in the tuning cache (`tuning_cache.py`), keyed by device, backend,
dtype, precision and shape bucket, for each backend it tunes (both on a
Hopper GPU). `matmul(..., config="auto")` reads that cache, and
`backend="auto"` runs the backend whose entry is faster.
"""

from __future__ import annotations

import dataclasses
import functools
import logging

import jax
from jax import lax
import jax.numpy as jnp
import numpy as np

from pallas_tiled import accuracy
from pallas_tiled import backends
from pallas_tiled import config as config_lib
from pallas_tiled import mosaic
from pallas_tiled import timing
from pallas_tiled import tuning_cache
from pallas_tiled import validation

log = logging.getLogger(__name__)

TileConfig = config_lib.TileConfig
MosaicConfig = config_lib.MosaicConfig


def candidate_configs(m: int, n: int, k: int, dtype, precision=None,
                      compute_capability=(9, 0), *,
                      backend: str = "triton") -> list:
  """Configs worth timing for one problem on `backend`, the heuristic's
  choice first.

  Hand-picked per shape class from the H200 experiments in BUILD_NOTES.md
  rather than a full product, so that tuning one shape costs 8 to 19
  compiles (Triton) or 6 to 13 (Mosaic). Every candidate passes
  `check_triton_tiles` for `compute_capability` (Triton) or
  `check_mosaic_config` (Mosaic).
  """
  if backend == "mosaic":
    return _mosaic_candidates(m, n, k, dtype, precision)
  if backend != "triton":
    raise ValueError(f"backend={backend!r} is not 'triton' or 'mosaic'.")
  wide = np.dtype(dtype).itemsize == 4
  bk = config_lib.swizzle_elements(dtype)  # 128-byte K-phases.
  unaligned = config_lib.has_unaligned_rows(n, k, dtype)
  # K-major B: float32 and float8 (their wgmma needs it) unless skinny,
  # where the transpose pass can cost more than the product; 16-bit tries
  # both where rows are unaligned (aligned copies of Bᵀ come with the
  # transpose).
  needs_k_major = config_lib.wgmma_needs_k_major(dtype)
  kmajors = ([True] if needs_k_major
             else [False, True] if unaligned else [False])
  if needs_k_major and m <= 64:
    kmajors = [False, True]
  candidates = [config_lib.default_tiled_config(m, n, k, dtype, precision)]
  if m <= 64:
    bm = config_lib.fit_block(m, config_lib.MIN_DOT_DIM, 64)
    for (bn, bkk), stages, split in (
        ((64, 2 * bk), 4, 1), ((64, 2 * bk), 4, 2), ((128, 2 * bk), 4, 1),
        ((128, 2 * bk), 4, 2), ((32, 4 * bk), 4, 1), ((64, 4 * bk), 3, 2),
        ((128, bk), 5, 4), ((64, 2 * bk), 3, 4)):
      for kmajor in kmajors:
        candidates.append(TileConfig(bm, bn, bkk, 4, stages, split_k=split,
                                     k_major_b=kmajor,
                                     align_operands=unaligned))
  else:
    shapes = [(128, 256, 8), (256, 128, 8), (128, 128, 8), (128, 128, 4),
              (128, 64, 4), (64, 128, 4)]
    if wide:
      shapes = [(128, 128, 4), (128, 128, 8), (256, 128, 8), (64, 128, 4),
                (128, 64, 4), (64, 64, 4)]
    for bm, bn, warps in shapes:
      for stages in (3, 4):
        for kmajor in kmajors:
          if kmajor and not needs_k_major and stages == 4:
            continue  # Keeps unaligned 16-bit tuning to 18 compiles.
          candidates.append(TileConfig(bm, bn, bk, warps, stages, group_m=16,
                                       k_major_b=kmajor,
                                       align_operands=unaligned))
  valid = _passing(candidates, lambda c: config_lib.check_triton_tiles(
      c, dtype, compute_capability))
  tiles = lambda c: -(-m // c.block_m) * -(-n // c.block_n)
  return [c for c in valid if c is candidates[0] or m <= 64
          or tiles(c) >= config_lib.SM_COUNT // 4]


def _passing(candidates, check) -> list:
  """The distinct candidates, in order, that `check` does not reject with a
  ValueError."""
  valid = []
  for c in dict.fromkeys(candidates):
    try:
      check(c)
    except ValueError:
      continue
    valid.append(c)
  return valid


def _mosaic_candidates(m, n, k, dtype, precision) -> list[MosaicConfig]:
  """The heuristic's choice, then CTA tiles of 128x256 (two 64x256 or two
  128x128 consumers) and of 128x128 (two 128x64 or two 64x128) at two
  pipeline depths, of 128x64 (two 64x64, 256-byte K-tiles), of 128x192
  (fewer waves where a dimension just passes a multiple of 128, e.g.
  4097^3), of 128x256 with 256-byte K-tiles in two stages (half the
  barrier round trips per FLOP: bfloat16 8192^3 1.9% faster on an H200,
  TF32 1-8% slower), and the tile orders and the cluster that came close
  on an H200 (BUILD_NOTES.md).
  float32 at HIGHEST keeps the consumers of at most 64x128 (its promoted
  sums double the accumulator registers)."""
  promoted = mosaic.runs_tf32x3(dtype, precision)
  first = config_lib.default_mosaic_config(m, n, k, dtype, promoted=promoted)
  tile_k = config_lib.swizzle_elements(dtype)  # 128-byte K-tiles.
  # Epilogue pieces at most 64 wide, as the narrowest candidate tile is
  # (it narrows only float8's 128-byte pieces).
  base = dict(tile_k=tile_k, epi_tile_n=min(first.epi_tile_n, 64),
              lowering=first.lowering)
  wide = MosaicConfig(tile_m=64, tile_n=256, wg_dimension="m", **base)
  candidates = [first]
  for stages in (3, 4):
    candidates += [
        dataclasses.replace(wide, max_concurrent_steps=stages),
        MosaicConfig(max_concurrent_steps=stages, **base)]
  candidates += [
      dataclasses.replace(wide, grid_minor_dim="m"),
      dataclasses.replace(wide, grid_tile_width=8, cluster_dimension="m"),
      dataclasses.replace(wide, tile_n=192, max_concurrent_steps=4),
      dataclasses.replace(wide, tile_k=2 * tile_k, max_concurrent_steps=2)]
  for stages in (4, 5):
    candidates += [
        MosaicConfig(tile_n=64, max_concurrent_steps=stages, **base),
        MosaicConfig(tile_m=64, wg_dimension="m",
                     max_concurrent_steps=stages, **base)]
  for wg_dimension in ("m", "n"):
    candidates.append(MosaicConfig(
        tile_m=64, tile_n=64, wg_dimension=wg_dimension,
        max_concurrent_steps=4, **dict(base, tile_k=2 * tile_k)))
  if promoted:  # Plus what came close on an H200 (BUILD_NOTES.md).
    candidates = [c for c in candidates
                  if c.tile_m * c.tile_n <= config_lib.PROMOTED_MAX_TILE]
    candidates += [
        dataclasses.replace(first, grid_tile_width=8, cluster_dimension="m"),
        dataclasses.replace(first, tile_k=2 * first.tile_k,
                            max_concurrent_steps=3)]
  return _passing(candidates, lambda c: config_lib.check_mosaic_config(
      c, dtype, dtype))


def autotune(a_shape, b_shape, dtype, *, backend: str = "auto",
             precision=None, candidates=None, iterations: int = 10,
             warmup: int = 2, cache=None, force: bool = False):
  """Times candidates for `a_shape @ b_shape` and returns the fastest correct.

  backend: "triton", "mosaic", or "auto" for every backend that can run the
    call here (Mosaic only compiled on Hopper, float32 only at default or
    HIGHEST precision). Given `candidates`, their backends are tuned
    instead.
  Each backend's best is cached on disk per (device, backend, dtype,
  precision, shape bucket), and the fastest of them is returned (a
  TileConfig or a MosaicConfig); a cached entry is used without timing
  unless `force`. `cache` is a `tuning_cache.TuningCache` (default: the
  user cache). Each candidate's result is checked against jnp.matmul at
  HIGHEST precision; a candidate that fails to compile, run or match is
  skipped, with a log line.
  """
  key_a, key_b = jax.random.split(jax.random.key(0))
  a = jax.random.normal(key_a, tuple(a_shape), jnp.float32).astype(dtype)
  b = jax.random.normal(key_b, tuple(b_shape), jnp.float32).astype(dtype)
  call = validation.check_matmul_call(a, b, precision=precision)
  if call.is_empty:
    raise ValueError(f"nothing to tune for a zero-size problem: a_shape="
                     f"{tuple(a_shape)}, b_shape={tuple(b_shape)}.")
  if candidates is not None:
    groups = {}
    for config in candidates:
      groups.setdefault(config.backend, []).append(config)
  else:
    capability = validation.compute_capability() or (9, 0)
    groups = {name: candidate_configs(call.m, call.n, call.k, call.dtype,
                                      call.precision, capability,
                                      backend=name)
              for name in backends.runnable_backends(call, backend)}
  cache = cache if cache is not None else tuning_cache.user_cache()
  device = jax.devices()[0].device_kind
  results, pending, failed = [], {}, []
  for name, configs in groups.items():
    key = tuning_cache.cache_key(device, name, call.dtype, call.precision,
                                 call.m, call.n, call.k)
    if not force and (hit := cache.lookup(key)) is not None:
      results.append((cache.time_us(key), hit))
    else:
      pending[key] = configs
  if pending:  # Only timing needs the reference.
    reference = jnp.matmul(a.astype(jnp.float32), b.astype(jnp.float32),
                           precision=lax.Precision.HIGHEST)
    tol = accuracy.tolerance(a, b, reference, call.dtype, call.precision)
  for key, configs in pending.items():
    best, best_us, method = None, float("inf"), ""
    for config in configs:
      fn = functools.partial(backends.matmul, config=config,
                             precision=call.precision,
                             interpret=call.interpret)
      try:
        result = timing.measure(fn, a, b, iterations=iterations,
                                warmup=warmup)
      except Exception as e:  # pylint: disable=broad-except
        log.info("%s %s: error %s: %s", key, config.label, type(e).__name__,
                 str(e).splitlines()[0][:200] if str(e) else "")
        continue
      err = accuracy.relative_error(result.result, reference)
      status = "ok" if err <= tol else f"WRONG (tolerance {tol:.2e})"
      log.info("%s %s: %.1f us, rel_err %.2e %s", key, config.label,
               result.median_us, err, status)
      if status == "ok" and result.median_us < best_us:
        best, best_us, method = config, result.median_us, result.method
    if best is None:
      failed.append(key)
      continue
    cache.store(key, best, time_us=best_us, shape=[call.m, call.n, call.k],
                candidates=len(configs), timing=method,
                jax_version=jax.__version__)
    log.info("%s best %s: %.1f us", key, best.label, best_us)
    results.append((best_us, best))
  if failed:
    message = (f"autotune: no candidate ran correctly for {', '.join(failed)};"
               " see the log for each candidate's error.")
    if not results:
      raise RuntimeError(message)
    log.warning(message)
  return min(results, key=lambda r: r[0])[1]
