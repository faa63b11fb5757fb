"""Autotunes the tiled kernel over shape suites and writes a tuning cache.

The H200 table shipped in `pallas_tiled/tuning/tables/h200.json` is this binary's
output on an H200 (merged from several runs with --merge):

  python benchmarks/tune.py --suite=square --dtypes=bfloat16 \
      --backend=auto --cache_out=/tmp/h200_bf16.json
  python benchmarks/tune.py --merge=/tmp/h200_bf16.json,/tmp/h200_f32.json \
      --cache_out=pallas_tiled/tuning/tables/h200.json

Every candidate's time and error is logged (see pallas_tiled/tuning/autotune.py), and
each tuned entry beside jnp.matmul's time on the same inputs.
"""

from __future__ import annotations

import functools
import logging as py_logging

from absl import app
from absl import flags
from absl import logging
import jax
from jax import lax
import jax.numpy as jnp

import suites
from pallas_tiled import timing
from pallas_tiled.tuning import autotune as tuning
from pallas_tiled.tuning import cache as tuning_cache

_SUITE = flags.DEFINE_multi_enum(
    "suite", [], [name for name in suites.SUITES if name != "wild-check"],
    "Shape suites to tune (repeatable); wild-check is held out for"
    " reporting, never tuned on.")
_SHAPES = flags.DEFINE_list("shapes", [], "Extra shapes MxNxK to tune.")
_DTYPES = flags.DEFINE_list("dtypes", ["bfloat16"], "Input dtypes.")
_PRECISION = flags.DEFINE_enum("precision", "default", ["default", "highest"],
                               "Matmul precision (float32 only).")
_BACKEND = flags.DEFINE_enum(
    "backend", "auto", ["auto", "triton", "mosaic"],
    "Backend to tune; auto tunes every backend that can run the shape.")
_CACHE_OUT = flags.DEFINE_string(
    "cache_out", None, "Cache file to write (default: the user cache, "
    f"${tuning_cache.CACHE_ENV} or the platform's user cache directory).")
_MERGE = flags.DEFINE_list(
    "merge", [], "Instead of tuning, merge these cache files into "
    "--cache_out (later files win on equal keys).")
_ITERS = flags.DEFINE_integer("iters", 10, "Timed runs per candidate.")
_WARMUP = flags.DEFINE_integer("warmup", 2, "Untimed runs per candidate.")
_FORCE = flags.DEFINE_bool("force", True, "Retune keys already cached.")


def _xla_time(m, n, k, dtype, precision) -> float:
  """jnp.matmul's time on the inputs the autotuner draws, for the log
  (int8 with int32 results, as the autotuner times it)."""
  key_a, key_b = jax.random.split(jax.random.key(0))
  a = jax.random.normal(key_a, (m, k), jnp.float32).astype(dtype)
  b = jax.random.normal(key_b, (k, n), jnp.float32).astype(dtype)
  integer = jnp.issubdtype(dtype, jnp.integer)
  xla = functools.partial(jnp.matmul, precision=precision,
                          preferred_element_type=jnp.int32 if integer else None)
  return timing.measure(xla, a, b, iterations=_ITERS.value,
                        warmup=_WARMUP.value).median_us


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments: {argv[1:]}")
  cache = tuning_cache.TuningCache(_CACHE_OUT.value)
  if _MERGE.value:
    for path in _MERGE.value:
      source = tuning_cache.TuningCache(path)
      for key, entry in source.entries.items():
        record = {k: v for k, v in entry.items()
                  if k not in ("backend", "config")}
        cache.store(key, source.lookup(key), **record)
    logging.info("merged %d files into %s: %d entries", len(_MERGE.value),
                 cache.path, len(cache.entries))
    return 0
  # tuning.autotune logs every candidate through Python logging.
  py_logging.getLogger(tuning.__name__).setLevel(py_logging.INFO)
  # A batched shape (BxMxNxK) tunes its per-matrix product.
  shapes = [suites.parse_shape(s)[-3:] for name in _SUITE.value
            for s in suites.SUITES[name]]
  shapes += [suites.parse_shape(s)[-3:] for s in _SHAPES.value]
  precision = lax.Precision.HIGHEST if _PRECISION.value == "highest" else None
  device = jax.devices()[0].device_kind
  done = set()
  for m, n, k in shapes:
    for name in _DTYPES.value:
      dtype = jnp.dtype(name)
      bucket = (dtype.name, tuning_cache.shape_bucket(m, n, k, dtype))
      if bucket in done:  # Shapes in one bucket share entries: tune once.
        continue
      done.add(bucket)
      tuning.autotune((m, k), (k, n), dtype, backend=_BACKEND.value,
                      precision=precision, iterations=_ITERS.value,
                      warmup=_WARMUP.value, cache=cache, force=_FORCE.value)
      xla_us = _xla_time(m, n, k, dtype, precision)
      for backend in tuning_cache.CONFIG_TYPES:
        key = tuning_cache.cache_key(device, backend, dtype, precision, m, n,
                                     k)
        if (config := cache.lookup(key)) is not None:
          time_us = cache.time_us(key)
          logging.info("TUNED %s -> %s (%.1f us; jnp.matmul %.1f us: %.3fx)",
                       key, config.label, time_us, xla_us, xla_us / time_us)
  logging.info("wrote %s: %d entries", cache.path, len(cache.entries))
  return 0


if __name__ == "__main__":
  app.run(main)
