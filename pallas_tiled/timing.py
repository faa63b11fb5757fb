"""Kernel timing: CUPTI on a GPU, wall clock (clearly labelled) on a CPU."""

from __future__ import annotations

import functools
import statistics
import time
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from pallas_tiled import layouts

MAX_COLD_COPIES = 64


class Timing(NamedTuple):
  """Median time of one call, how it was measured, and over how many runs."""

  median_us: float
  method: str  # "cupti" (GPU kernel time) or "wall-clock-interpret" (CPU).
  iterations: int
  result: jax.Array
  # (kernel name, median time in us) per kernel of one call; CUPTI only.
  kernels: tuple[tuple[str, float], ...] = ()


def _cupti_times(f, args, iterations):
  """(result, per-call total ms, per-kernel median us) from CUPTI."""
  from jax.experimental.mosaic.gpu import profiler  # Needs the CUDA plugin.
  result, runs = profiler.measure(f, iterations=iterations,
                                  aggregate=False)(*args)
  if not runs:
    raise RuntimeError("CUPTI recorded no kernel for this call.")
  runs = runs if iterations > 1 else [runs]
  totals = [sum(ms for _, ms in run) for run in runs]
  kernels = tuple(
      (name, statistics.median(run[i][1] for run in runs) * 1e3)
      for i, (name, _) in enumerate(runs[0]))
  return result, totals, kernels


def measure(f: Callable, *args, iterations: int = 20, warmup: int = 3,
            budget_s: float = 5.0, sustain_s: float = 0.0) -> Timing:
  """Median time of `f(*args)` after `warmup` calls (which also compile).

  On a GPU this is the sum of the kernels' CUPTI times per call, so padding or
  transpose passes count too. On a CPU it is the wall clock of the jitted
  call with block_until_ready: interpret-mode numbers, not kernel speed.
  Slow calls get fewer iterations (at least 3) so a case stays near
  `budget_s`.

  With `sustain_s`, `f` then runs back to back for that many seconds before
  it is timed, so that the GPU's clocks settle where sustained load holds
  them: an H200 held at its 700 W power cap runs its SMs near 1.5 GHz, and
  kernels that tie from a cold start can differ there (BUILD_NOTES.md).
  """
  if not sustain_s >= 0:
    raise ValueError(f"sustain_s={sustain_s!r}: must be a number of seconds"
                     " >= 0.")
  f = jax.jit(f)
  elapsed = float("inf")
  for _ in range(max(1, warmup)):
    start = time.perf_counter()
    jax.block_until_ready(f(*args))
    elapsed = time.perf_counter() - start
  iterations = max(3, min(iterations, int(budget_s / max(elapsed, 1e-9))))
  deadline = time.perf_counter() + sustain_s
  while time.perf_counter() < deadline:
    for _ in range(8):  # Queued back to back; the stream runs them in order.
      result = f(*args)
    jax.block_until_ready(result)
  if jax.default_backend() == "gpu":
    result, times_ms, kernels = _cupti_times(f, args, iterations)
    return Timing(statistics.median(times_ms) * 1e3, "cupti", iterations,
                  result, kernels)
  times_s = []
  for _ in range(iterations):
    start = time.perf_counter()
    result = jax.block_until_ready(f(*args))
    times_s.append(time.perf_counter() - start)
  return Timing(statistics.median(times_s) * 1e6, "wall-clock-interpret",
                iterations, result)


def cold_operand_sets(m: int, n: int, operands: tuple,
                      cold_bytes: float) -> list[tuple]:
  """`operands`, and for decode and skinny shapes (`layouts.is_skinny`)
  copies of them in other buffers up to `cold_bytes` in all (at most
  MAX_COLD_COPIES sets), for `measure_cold`: those stream their operands
  once, so left in L2 between timed calls they would time L2, not HBM."""
  pair_bytes = sum(x.nbytes for x in operands)
  copies = 1
  if layouts.is_skinny(m, n) and pair_bytes < cold_bytes:
    copies = min(MAX_COLD_COPIES, -(-int(cold_bytes) // pair_bytes))
  return [tuple(operands)] + [tuple(jnp.copy(x) for x in operands)
                              for _ in range(copies - 1)]


# Wrappers `every_set` keeps: time_pairs.py's three impls of a pair. Few,
# as each holds its function, and a benchmark case's closure its operands.
_KEPT_WRAPPERS = 4


@functools.lru_cache(maxsize=_KEPT_WRAPPERS)
def every_set(f: Callable, width: int) -> Callable:
  """f over consecutive groups of `width` arguments, one call per group:
  what `measure_cold` times, one product per operand set. The same `f`
  gets the same wrapper, so that jax.jit's caches serve a function timed
  again (time_pairs.py's interleaved rounds) instead of tracing and
  compiling it anew each time."""
  def call(*flat):
    return [f(*flat[i:i + width]) for i in range(0, len(flat), width)]
  return call


def measure_cold(f: Callable, arg_sets, **kwargs) -> Timing:
  """`measure` of `f` over several argument sets of one shape, one product
  per set in each timed call, reported per product: with sets adding up to
  more than the L2 cache, each product reads its operands from memory, as
  a decode step's weights are, not from L2 where the last iteration left
  them. The result is f's for the first set."""
  copies = len(arg_sets)
  timing = measure(every_set(f, len(arg_sets[0])),
                   *(x for s in arg_sets for x in s), **kwargs)
  per_name = {}
  for name, us in timing.kernels:
    per_name[name] = per_name.get(name, 0.0) + us / copies
  return timing._replace(median_us=timing.median_us / copies,
                         result=timing.result[0],
                         kernels=tuple(per_name.items()))
