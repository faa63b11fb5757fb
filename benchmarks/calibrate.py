"""Times every cost-model candidate (`pallas_tiled.cost_model`) on a suite's
shapes, beside jnp.matmul and the library's current pick: the data the cost
model is fitted on (wild-tune) and judged on (wild-check, never fitted).

Compiling dominates (about a second per candidate), so `--workers` processes
compile in parallel and take turns on the GPU: each holds a file lock only
while CUPTI times a kernel, so no two timings overlap. XLA autotunes its
GEMMs on the GPU while compiling them, which would disturb those timings,
so a first phase compiles every shape's jnp.matmul and reference (nothing
is timed yet) into XLA's autotuning cache, and the timing phase's compiles
only read it. The warm phase starts no shape past half of `--deadline_s`
and the timing phase takes only the shapes it finished (a whole wild suite's
warm phase once took 516 s of a 440 s deadline, leaving nothing timed).
Every case is checked against jnp.matmul at HIGHEST before its time counts;
rows are appended to `--out` (JSON lines) as they finish, so a run cut short
keeps what it timed.

  python benchmarks/calibrate.py --suite=wild-tune --dtype=bfloat16 \
      --workers=12 --out=/tmp/tune.jsonl
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

from absl import app
from absl import flags
import filelock
import jax
import jax.numpy as jnp

import suites
from pallas_tiled import accuracy
from pallas_tiled import api
from pallas_tiled import cost_model
from pallas_tiled import device
from pallas_tiled import dtypes
from pallas_tiled import timing
from pallas_tiled.mosaic import plan

WARM_WORKERS = 4

_SUITE = flags.DEFINE_enum("suite", "wild-tune", list(suites.SUITES),
                           "Shape suite to time.")
_DTYPE = flags.DEFINE_string("dtype", "bfloat16", "Input dtype.")
_OUT = flags.DEFINE_string("out", None, "JSON-lines output.", required=True)
_WORKERS = flags.DEFINE_integer("workers", 1, "Processes compiling at once.",
                                lower_bound=1)
_WORKER = flags.DEFINE_integer("worker", -1, "Internal: this worker's index.")
_PHASE = flags.DEFINE_enum("phase", "time", ["warm", "time"],
                           "Internal: the worker's phase.")
_START = flags.DEFINE_float("start", 0.0, "Internal: the run's start time.")
_SCRATCH = flags.DEFINE_string(
    "scratch", None, "Internal: the run's folder for the warm list and the"
    " locks, kept apart from --out's (the GPU machine returns only the first"
    " 8 files of its output folder, and these once crowded out the runs).")
_COLD_MB = flags.DEFINE_float(
    "cold_operands_mb", 100.0, "As matmul_benchmark.py's: decode and skinny"
    " shapes (M or N <= 64) cycle through copies of their operands adding up"
    " to at least this many MB; 0 turns this off.", lower_bound=0.0)
_MIN_MACS = flags.DEFINE_integer("min_macs", 2**24,
                                 "Skip shapes with fewer multiply-adds.")
_ITERS = flags.DEFINE_integer("iters", 10, "Timed runs per case (median).")
_DEADLINE_S = flags.DEFINE_float(
    "deadline_s", 540.0,
    "Workers start no new shape this many seconds after the run started.")
_SKIP = flags.DEFINE_string(
    "skip", None, "A JSON-lines output of an earlier run: skip its shapes.")
_SHAPES = flags.DEFINE_list(
    "shapes", None, "Only these MxNxK of the suite (e.g. to time candidates"
    " added since a shape was calibrated; fit_cost_model.py takes a later"
    " run's rows of a shape in place of an earlier run's).")
_MAX_SHAPES = flags.DEFINE_integer(
    "max_shapes", None, "Only the first this many shapes of a fixed shuffle"
    " (the warm phase compiles every shape's jnp.matmul before any is timed,"
    " so --deadline_s alone cannot bound a run over a large suite).",
    lower_bound=1)
_LABELS = flags.DEFINE_string(
    "labels", None, "Only candidates whose label matches this regular"
    " expression (e.g. 'T$' for transposed ones, added since the shapes were"
    " calibrated); their rows say partial=true, and fit_cost_model.py adds"
    " them to an earlier run's rows of the shape, rescaled by the reference"
    " (jnp.matmul or the pick) that moved less between the runs.")
_LOCK = flags.DEFINE_string("lock", "/tmp/pallas_tiled_calibrate.lock",
                            "The lock that serializes GPU timing.")


def _cupti_us(fn, args, iterations) -> float:
  """Median CUPTI time (summed over a call's kernels) in microseconds."""
  from jax.experimental.mosaic.gpu import profiler  # Needs the CUDA plugin.
  # CUPTI stays attached between cases: detaching it costs more than most
  # kernels take.
  cupti = getattr(profiler, "Cupti", None)
  measure = cupti(finalize=False).measure if cupti else profiler.measure
  _, runs = measure(fn, iterations=iterations, aggregate=False)(*args)
  totals = sorted(sum(ms for _, ms in run) for run in runs)
  return totals[len(totals) // 2] * 1e3


@jax.jit
def _device_relative_error(out, reference):
  return (jnp.linalg.norm(out.astype(jnp.float32) - reference)
          / jnp.linalg.norm(reference))


def _relative_error(out, reference) -> float:
  """‖out − ref‖ / ‖ref‖ on the GPU: copying every output to the host for
  a float64 norm held the GPU lock longer than the timings."""
  return float(_device_relative_error(out, reference))


def _time_case(fn, sets, reference, tol, lock) -> dict:
  """Compiles `fn` (no lock), runs and checks it, then times it (locked)
  over every operand set, one product per set in each timed call as in
  `timing.measure_cold`: the time per product."""
  try:
    start = time.perf_counter()
    flat = [x for s in sets for x in s]
    compiled = jax.jit(timing.every_set(fn, len(sets[0]))).lower(
        *flat).compile()
    compile_s = time.perf_counter() - start
    err = _relative_error(compiled(*flat)[0], reference)
    if not err <= tol:
      return dict(status="wrong", rel_error=err, tolerance=tol)
    waited = time.perf_counter()
    with lock:
      held = time.perf_counter()
      time_us = _cupti_us(compiled, flat, _ITERS.value) / len(sets)
      held, waited = time.perf_counter() - held, held - waited
  except Exception as e:  # pylint: disable=broad-except
    return dict(status="error",
                error=f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
                if str(e) else type(e).__name__)
  return dict(status="ok", time_us=time_us, rel_error=err,
              compile_s=round(compile_s, 2), lock_wait_s=round(waited, 2),
              lock_held_s=round(held, 2))


def _shape_rows(m, n, k, dtype, lock):
  """Rows for one shape: jnp.matmul, the current pick, every candidate."""
  a, b = dtypes.shape_seeded_operands(m, n, k, dtype)
  reference = accuracy.device_reference(a, b)  # Compiled by _warm.
  # Decode and skinny shapes read copies of their operands in turn, as the
  # benchmark times them, so that they stream from HBM and not from L2.
  sets = timing.cold_operand_sets(m, n, (a, b), _COLD_MB.value * 2**20)
  xla = _time_case(jnp.matmul, sets, reference, float("inf"), lock)
  tol = accuracy.tolerance(a, b, reference, dtype)
  # layout_version: what Mosaic's kernel copies around it
  # (fit_cost_model.py prices each row's candidates as they ran then).
  common = dict(m=m, n=n, k=k, dtype=jnp.dtype(dtype).name,
                device=device.device_kind(), jax_version=jax.__version__,
                layout_version=plan.LAYOUT_VERSION)
  if _LABELS.value:
    common["partial"] = True
  yield dict(common, impl="xla", backend="xla", config=None, label="", **xla)
  yield dict(common, impl="pick", backend="auto", config=None, label="",
             **_time_case(api.matmul, sets, reference, tol, lock))
  for config in cost_model.model_candidates(m, n, k, dtype):
    if _LABELS.value and not re.search(_LABELS.value, config.label):
      continue
    fn = lambda a, b, config=config: api.matmul(a, b, config)
    yield dict(common, impl="candidate", backend=config.backend,
               config=dataclasses.asdict(config), label=config.label,
               **_time_case(fn, sets, reference, tol, lock))


def _shapes():
  shapes = [suites.parse_shape(s) for s in suites.SUITES[_SUITE.value]]
  shapes = [s for s in shapes if len(s) == 3 and s[0] * s[1] * s[2]
            >= _MIN_MACS.value]
  if _SHAPES.value:
    wanted = {tuple(suites.parse_shape(s)) for s in _SHAPES.value}
    if unknown := wanted - {tuple(s) for s in shapes}:
      raise app.UsageError(f"--shapes: not in --suite={_SUITE.value} (or"
                           f" under --min_macs): {sorted(unknown)}")
    shapes = [s for s in shapes if tuple(s) in wanted]
  if _SKIP.value:
    with open(_SKIP.value) as f:
      done = {(r["m"], r["n"], r["k"]) for r in map(json.loads, f)}
    shapes = [s for s in shapes if tuple(s) not in done]
  # A fixed shuffle: a run cut short by --deadline_s keeps a spread of sizes.
  random.Random(0).shuffle(shapes)
  return shapes[:_MAX_SHAPES.value]


def _warmed_path(scratch: str) -> str:
  """The file where warm workers list the shapes they compiled."""
  return os.path.join(scratch, "warmed")


def _warm(index: int) -> None:
  """Compiles this worker's shapes' jnp.matmul and reference, filling
  XLA's autotuning cache before anything is timed, until half the deadline
  has passed; lists each shape done in `_warmed_path`."""
  dtype = jnp.dtype(_DTYPE.value)
  lock = filelock.FileLock(os.path.join(_SCRATCH.value, "warmed.lock"))
  for m, n, k in _shapes()[index::_WORKERS.value]:
    if time.time() - _START.value > _DEADLINE_S.value / 2:
      print(f"warm worker {index}: half the deadline, stopping before"
            f" {m}x{n}x{k}")
      break
    a, b = (jax.ShapeDtypeStruct(s, dtype) for s in ((m, k), (k, n)))
    for fn in (jax.jit(jnp.matmul), accuracy.device_reference):
      fn.lower(a, b).compile()
    with lock, open(_warmed_path(_SCRATCH.value), "a") as out:
      out.write(f"{m}x{n}x{k}\n")


def _warmed_shapes(scratch: str) -> list[tuple[int, int, int]]:
  """`_shapes()` that the warm phase compiled, in their order."""
  with open(_warmed_path(scratch)) as f:
    warmed = {tuple(suites.parse_shape(line)) for line in f.read().split()}
  return [s for s in _shapes() if tuple(s) in warmed]


def _time(index: int) -> None:
  lock = filelock.FileLock(_LOCK.value)
  out_lock = filelock.FileLock(os.path.join(_SCRATCH.value, "out.lock"))
  for m, n, k in _warmed_shapes(_SCRATCH.value)[index::_WORKERS.value]:
    if time.time() - _START.value > _DEADLINE_S.value:
      print(f"worker {index}: deadline, stopping before {m}x{n}x{k}")
      break
    for row in _shape_rows(m, n, k, jnp.dtype(_DTYPE.value), lock):
      with out_lock, open(_OUT.value, "a") as out:  # One file, whole rows.
        out.write(json.dumps(row) + "\n")


def _run_workers(phase: str, env, start: float, count: int,
                 scratch: str) -> list[int]:
  procs = [subprocess.Popen(
      [sys.executable, *sys.argv, f"--worker={i}", f"--phase={phase}",
       f"--start={start}", f"--workers={count}", f"--scratch={scratch}"],
      env=env)
           for i in range(count)]
  return [p.wait() for p in procs]


def main(argv):
  del argv
  if _WORKER.value >= 0:
    return {"warm": _warm, "time": _time}[_PHASE.value](_WORKER.value)
  print(f"{len(_shapes())} shapes")  # Bad --shapes fail here, not in workers.
  scratch = tempfile.mkdtemp(prefix="calibrate_")
  cache_dir = os.path.join(scratch, "xla_autotune")
  env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false", XLA_FLAGS=(
      os.environ.get("XLA_FLAGS", "")
      + f" --xla_gpu_per_fusion_autotune_cache_dir={cache_dir}").strip())
  start = time.time()
  for path in (_OUT.value, _warmed_path(scratch)):  # Workers append to them.
    open(path, "w").close()
  # Fewer warm workers: each autotunes GEMMs on the GPU with their operands
  # and workspaces allocated, and 12 at once ran an H100 out of memory.
  codes = _run_workers("warm", env, start, min(_WORKERS.value, WARM_WORKERS),
                       scratch)
  print(f"warm phase: {time.time() - start:.0f} s,"
        f" {len(_warmed_shapes(scratch))} of {len(_shapes())} shapes")
  codes += _run_workers("time", env, start, _WORKERS.value, scratch)
  if any(codes):
    sys.exit(f"workers exited with {codes}")


if __name__ == "__main__":
  app.run(main)
