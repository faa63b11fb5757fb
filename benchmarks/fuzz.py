"""Fuzzer: random matmul calls checked elementwise against float64 NumPy.

What a case draws, what counts as refused, wrong or crashed, and the error
bound are in `fuzzing.py`. The seed is printed first, so that any run can
be repeated with --seed; every wrong or crashed case is one line (a reason,
never a time), and the exit code is non-zero if there is any.

  python benchmarks/fuzz.py                      # CPU: interpret mode
  python benchmarks/fuzz.py --cases=200 --seed=1 --json_out=fuzz.json
  python benchmarks/fuzz.py --backends=mosaic --dtypes=bfloat16,float8_e4m3fn
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile

from absl import app
from absl import flags
from absl import logging
import jax
import numpy as np

import fuzzing

_SEED = flags.DEFINE_integer("seed", None, "Seed; random (and printed) if"
                             " unset.")
_CASES = flags.DEFINE_integer("cases", 1000, "Random cases to run.",
                              lower_bound=1)
_MAX_DIM = flags.DEFINE_integer(
    "max_dim", None, "Largest M, N or K; default 8192 compiled, 96 in"
    " interpret mode.", lower_bound=1)
_INTERPRET = flags.DEFINE_enum(
    "interpret", "auto", ["auto", "true", "false"],
    "Pallas interpret mode; auto interprets exactly when there is no GPU.")
_BACKENDS = flags.DEFINE_list("backends", list(fuzzing.BACKENDS),
                              "Backends to draw from: auto, triton, mosaic.")
_DTYPES = flags.DEFINE_list(
    "dtypes", list(fuzzing.DTYPES),
    "Input dtypes to draw from: " + ", ".join(fuzzing.DTYPES))
_JSON_OUT = flags.DEFINE_string("json_out", None,
                                "Write the summary and failures as JSON here.")
_WORKERS = flags.DEFINE_integer(
    "workers", 1, "Processes sharing the cases (case i runs in process"
    " i % workers); compiling dominates, so a GPU run scales with cores.",
    lower_bound=1)
_SHARD = flags.DEFINE_integer("shard", -1, "Internal: this worker's index.")



def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments: {argv[1:]}")
  jax.config.update("jax_traceback_filtering", "off")  # See refusal_kind.
  seed = _SEED.value if _SEED.value is not None else secrets.randbits(32)
  print(f"seed: {seed}", flush=True)
  interpret = {"auto": jax.default_backend() == "cpu", "true": True,
               "false": False}[_INTERPRET.value]
  max_dim = _MAX_DIM.value or (96 if interpret else 8192)
  for name, values, allowed in (
      ("backends", _BACKENDS.value, fuzzing.BACKENDS),
      ("dtypes", _DTYPES.value, fuzzing.DTYPES)):
    if not values or set(values) - set(allowed):
      raise app.UsageError(f"--{name}={values}: use some of {allowed}.")
  fuzzing.self_test(seed)
  if _WORKERS.value > 1 and _SHARD.value < 0:
    return _run_workers(seed, interpret, max_dim)
  rng = np.random.default_rng(seed)
  counts = dict(passed=0, rejected=0, wrong=0, crashed=0)
  failures, late = [], []  # late: rejected while tracing a kernel.
  for index in range(_CASES.value):
    case = fuzzing.draw_case(rng, index, max_dim=max_dim,
                             dtypes=_DTYPES.value, backends=_BACKENDS.value,
                             interpret=interpret)
    if _SHARD.value >= 0 and index % _WORKERS.value != _SHARD.value:
      continue  # Drawn all the same: every case is the same in any split.
    status, reason = fuzzing.run_case(case, interpret)
    counts[status] += 1
    logging.info("case %d %s: %s %s", index, _label(case), status, reason)
    if status in ("wrong", "crashed"):
      failures.append(dict(case, status=status, reason=reason))
      print(f"case {index} ({_label(case)}): {status}: {reason}", flush=True)
    elif reason.startswith("after its checks"):
      late.append(dict(case, status=status, reason=reason))
  print(f"{sum(counts.values())} cases: {counts['passed']} passed,"
        f" {counts['rejected']} rejected as expected, {counts['wrong']} wrong,"
        f" {counts['crashed']} crashed")
  if late:
    print(f"{len(late)} of the rejections came from pallas_tiled while"
          " tracing a kernel, past its pre-launch checks (late_rejections in"
          " --json_out)")
  if _JSON_OUT.value:
    _write_json(seed, interpret, max_dim, counts, failures, late)
  return 1 if counts["wrong"] or counts["crashed"] else 0


def _run_workers(seed, interpret, max_dim) -> int:
  """Runs the cases in --workers processes and joins their summaries."""
  with tempfile.TemporaryDirectory() as tmp:
    paths = [os.path.join(tmp, f"{i}.json") for i in range(_WORKERS.value)]
    procs = [subprocess.Popen(
        [sys.executable, *sys.argv, f"--seed={seed}", f"--shard={i}",
         f"--json_out={path}"]) for i, path in enumerate(paths)]
    codes = [p.wait() for p in procs]
    parts = []
    for path in paths:
      if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
          parts.append(json.load(f))
  counts = {key: sum(p["counts"][key] for p in parts)
            for key in ("passed", "rejected", "wrong", "crashed")}
  failures = [f for p in parts for f in p["failures"]]
  late = [f for p in parts for f in p["late_rejections"]]
  missing = len(paths) - len(parts)
  print(f"{sum(counts.values())} cases over {_WORKERS.value} workers:"
        f" {counts['passed']} passed, {counts['rejected']} rejected as"
        f" expected, {counts['wrong']} wrong, {counts['crashed']} crashed"
        + (f"; {missing} workers wrote no summary" if missing else ""))
  if _JSON_OUT.value:
    _write_json(seed, interpret, max_dim, counts, failures, late)
  return 1 if counts["wrong"] or counts["crashed"] or missing or any(
      codes) else 0


def _label(case) -> str:
  """A one-line description, e.g. 2x7x129x64 bfloat16 triton/TileConfig."""
  batch = f"{case['batch']}x" if case["batch"] else ""
  config = case["config"]["type"] if case["config"] else "default"
  return (f"{batch}{case['m']}x{case['n']}x{case['k']} {case['dtype']}"
          f" {case['precision']} {case['backend']}/{config}"
          f"{' b:' + case['b_batch'] if case['batch'] else ''}"
          f"{' +grad' if case['grad'] else ''}")


def _write_json(seed, interpret, max_dim, counts, failures, late):
  meta = dict(seed=seed, device=jax.devices()[0].device_kind,
              platform=jax.default_backend(), jax_version=jax.__version__,
              interpret=interpret,
              flags=dict(cases=_CASES.value, max_dim=max_dim,
                         interpret=_INTERPRET.value,
                         backends=_BACKENDS.value, dtypes=_DTYPES.value))
  with open(_JSON_OUT.value, "w", encoding="utf-8") as f:
    json.dump(dict(meta=meta, counts=dict(cases=sum(counts.values()),
                                         **counts),
                   failures=failures, late_rejections=late), f, indent=1)


if __name__ == "__main__":
  app.run(main)
