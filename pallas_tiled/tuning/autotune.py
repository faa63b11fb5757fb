"""Autotuning: time candidate configs, keep the fastest correct one.

`autotune(a_shape, b_shape, dtype)` runs each of `candidate_configs(...)` on
random normal inputs (CUPTI kernel time on a GPU, wall clock in interpret
mode), rejects any whose result misses the accuracy tolerance, and stores the
fastest in the tuning cache (`cache.py`), keyed by device, backend,
dtype, precision and shape bucket, for each backend it tunes (both on a
Hopper GPU). `matmul(..., config="auto")` reads that cache, and
`backend="auto"` runs the backend whose entry is faster.
"""

from __future__ import annotations

import functools
import logging

import jax
from jax import lax
import jax.numpy as jnp

from pallas_tiled import accuracy
from pallas_tiled import api
from pallas_tiled import device
from pallas_tiled import dtypes
from pallas_tiled import timing
from pallas_tiled import validation
from pallas_tiled.mosaic import candidates as mosaic_candidates
from pallas_tiled.triton import candidates as triton_candidates
from pallas_tiled.tuning import cache as tuning_cache

log = logging.getLogger(__name__)


def candidate_configs(m: int, n: int, k: int, dtype, precision=None,
                      compute_capability=device.HOPPER, *,
                      backend: str = "triton") -> list:
  """Configs worth timing for one problem on `backend`, the heuristic's
  choice first: `triton.candidates` (3 to 32 compiles per shape, each
  passing `check_triton_tiles` for `compute_capability`) or
  `mosaic.candidates` (up to 27)."""
  if backend == "mosaic":
    return mosaic_candidates.candidate_configs(m, n, k, dtype, precision)
  if backend != "triton":
    raise ValueError(f"backend={backend!r} is not 'triton' or 'mosaic'.")
  return triton_candidates.candidate_configs(m, n, k, dtype, precision,
                                             compute_capability)


def _time_if_correct(key, config, a, b, call, reference, tol, iterations,
                     warmup):
  """(median time in us, timing method) of `config` on a @ b, or None (with
  a log line) if it fails to compile or run, or misses `tol`."""
  fn = functools.partial(api.matmul, config=config, precision=call.precision,
                         preferred_element_type=call.out_dtype,
                         interpret=call.interpret)
  try:
    result = timing.measure(fn, a, b, iterations=iterations, warmup=warmup)
  except Exception as e:  # pylint: disable=broad-except
    log.info("%s %s: error %s: %s", key, config.label, type(e).__name__,
             str(e).splitlines()[0][:200] if str(e) else "")
    return None
  err = accuracy.relative_error(result.result, reference)
  status = "ok" if err <= tol else f"WRONG (tolerance {tol:.2e})"
  log.info("%s %s: %.1f us, rel_err %.2e %s", key, config.label,
           result.median_us, err, status)
  return (result.median_us, result.method) if status == "ok" else None


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
  HIGHEST precision in the accumulator's dtype; a candidate that fails to
  compile, run or match is skipped, with a log line. int8 is tuned with
  int32 results (exact); complex dtypes are not tuned: their products are
  real ones (tune float32 for complex64, float64 for complex128).
  """
  if jnp.dtype(dtype) in dtypes.COMPLEX_DTYPES:
    raise ValueError(
        f"dtype={jnp.dtype(dtype)} runs as three real products of"
        f" {dtypes.real_dtype(dtype)}: autotune {dtypes.real_dtype(dtype)}.")
  key_a, key_b = jax.random.split(jax.random.key(0))
  a, b = dtypes.random_operand(key_a, a_shape, dtype), dtypes.random_operand(
      key_b, b_shape, dtype)
  acc_dtype = dtypes.accumulator_dtype(dtype)
  call = validation.check_matmul_call(
      a, b, precision=precision,
      preferred_element_type=acc_dtype if acc_dtype == jnp.int32 else None)
  if call.is_empty:
    raise ValueError(f"nothing to tune for a zero-size problem: a_shape="
                     f"{tuple(a_shape)}, b_shape={tuple(b_shape)}.")
  if candidates is not None:
    groups = {}
    for config in candidates:
      groups.setdefault(config.backend, []).append(config)
  else:
    capability = device.compute_capability() or device.HOPPER
    groups = {name: candidate_configs(call.m, call.n, call.k, call.dtype,
                                      call.precision, capability,
                                      backend=name)
              for name in api.runnable_backends(call, backend)}
  cache = cache if cache is not None else tuning_cache.user_cache()
  device_kind = device.device_kind()
  results, pending, failed = [], {}, []
  for name, configs in groups.items():
    key = tuning_cache.cache_key(device_kind, name, call.dtype, call.precision,
                                 call.m, call.n, call.k)
    if not force and (hit := cache.lookup(key)) is not None:
      results.append((cache.time_us(key), hit))
    else:
      pending[key] = configs
  if pending:  # Only timing needs the reference.
    reference = jnp.matmul(a.astype(acc_dtype), b.astype(acc_dtype),
                           precision=lax.Precision.HIGHEST)
    tol = accuracy.tolerance(a, b, reference, call.out_dtype, call.precision)
  for key, configs in pending.items():
    timed = []
    for config in configs:
      measured = _time_if_correct(key, config, a, b, call, reference, tol,
                                  iterations, warmup)
      if measured is not None:
        timed.append((*measured, config))
    if not timed:
      failed.append(key)
      continue
    best_us, method, best = min(timed, key=lambda t: t[0])
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
