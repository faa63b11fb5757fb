"""Times `moved_picks.py`'s pairs on the GPU: each shape's old pick, new
pick and jnp.matmul side by side (CUPTI medians of interleaved rounds over
cold operand sets, as the benchmark times decode and skinny shapes), each
checked against a HIGHEST-precision reference before its time counts;
prints a row per pair and, per shape set, the new picks over the old and
both over jnp.matmul (geomean, 10th percentile, min).

  python benchmarks/time_pairs.py --pairs=probe/pairs.json \\
      --json_out=$OUT/pairs.json --budget_s=400
"""

from __future__ import annotations

import collections
import json
import statistics
import time

from absl import app
from absl import flags
import jax
import jax.numpy as jnp

import report
from pallas_tiled import accuracy
from pallas_tiled import api
from pallas_tiled import dtypes
from pallas_tiled import timing
from pallas_tiled.mosaic.config import MosaicConfig
from pallas_tiled.triton.config import TileConfig

_PAIRS = flags.DEFINE_string("pairs", None, "moved_picks.py --base output.",
                             required=True)
_JSON_OUT = flags.DEFINE_string("json_out", None, "Write the rows here.")
_BUDGET_S = flags.DEFINE_float("budget_s", 400.0, "Start no pair after this"
                               " many seconds.")
_ROUNDS = flags.DEFINE_integer("rounds", 3, "Interleaved rounds per pair.",
                               lower_bound=1)
_ITERS = flags.DEFINE_integer("iters", 10, "Timed runs per round (median).")
_COLD_MB = flags.DEFINE_float("cold_mb", 100.0, "Operand copies of a skinny"
                              " shape add up to this many MiB.")

IMPLS = ("xla", "old", "new")


def pair_config(backend_fields):
  """The config `moved_picks.as_json` wrote (None: the heuristics' pick)."""
  if backend_fields is None:
    return None
  backend, fields = backend_fields
  cls = MosaicConfig if backend == "mosaic" else TileConfig
  return cls(**fields)


def time_pair(pair: dict, dtype, rounds: int, iters: int,
              cold_bytes: float) -> dict:
  """A row: each impl's median time over `rounds` (its order rotated each
  round) and error, or status "wrong"/"error" and no times."""
  m, n, k = pair["shape"]
  a, b = dtypes.shape_seeded_operands(m, n, k, dtype)
  old, new = pair_config(pair["old"]), pair_config(pair["new"])
  fns = {"xla": jnp.matmul,
         "old": lambda a, b: api.matmul(a, b, old),
         "new": lambda a, b: api.matmul(a, b, new)}
  row = dict(shape=pair["shape"], set=pair["set"],
             old=old and old.label, new=new and new.label)
  try:
    reference = accuracy.device_reference(a, b)
    tol = accuracy.tolerance(a, b, reference, dtype)
    for name, fn in fns.items():  # Compiled as timed: once (every_set).
      (out,) = jax.jit(timing.every_set(fn, 2))(a, b)
      row[f"{name}_err"] = accuracy.relative_error(out, reference)
      if name != "xla" and not row[f"{name}_err"] <= tol:
        return dict(row, status="wrong", tolerance=tol)
    sets = timing.cold_operand_sets(m, n, (a, b), cold_bytes)
    times = collections.defaultdict(list)
    for r in range(rounds):
      turn = r % len(IMPLS)  # Each impl leads a round in turn.
      for name in IMPLS[turn:] + IMPLS[:turn]:
        times[name].append(
            timing.measure_cold(fns[name], sets, iterations=iters).median_us)
  except Exception as e:  # pylint: disable=broad-except
    return dict(row, status="error",
                error=f"{type(e).__name__}: {str(e)[:200]}")
  return dict(row, status="ok", **{f"{name}_us": statistics.median(ts)
                                   for name, ts in times.items()})


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  with open(_PAIRS.value) as f:
    pairs = json.load(f)
  dtype = jnp.dtype(pairs["dtype"])
  start, rows = time.time(), []
  for pair in pairs["pairs"]:
    if time.time() - start > _BUDGET_S.value:
      print(f"budget spent: {len(pairs['pairs']) - len(rows)} pairs untimed")
      break
    row = time_pair(pair, dtype, _ROUNDS.value, _ITERS.value,
                    _COLD_MB.value * 2**20)
    rows.append(row)
    if _JSON_OUT.value:  # After each pair: a run cut short keeps its rows.
      with open(_JSON_OUT.value, "w") as f:
        json.dump({"dtype": dtype.name, "device": jax.devices()[0].device_kind,
                   "rows": rows}, f, indent=1)
    shape = "x".join(map(str, row["shape"]))
    if row["status"] != "ok":
      print(f"{shape:>18} {row['set']:>10} {row['status']}:"
            f" {row.get('error') or row}", flush=True)
      continue
    print(f"{shape:>18} {row['set']:>10} | old {row['old']}"
          f" {row['old_us']:.2f} us {row['xla_us'] / row['old_us']:.3f}x"
          f" | new {row['new']} {row['new_us']:.2f} us"
          f" {row['xla_us'] / row['new_us']:.3f}x", flush=True)
  ok = [r for r in rows if r["status"] == "ok"]
  stats = lambda part, num, den: report.format_ratio_stats(
      r[f"{num}_us"] / r[f"{den}_us"] for r in part)
  for name in sorted({r["set"] for r in ok}) + ["all"] * bool(ok):
    part = [r for r in ok if name in ("all", r["set"])]
    print(f"{name}: {len(part)} pairs; new over old"
          f" {stats(part, 'old', 'new')}; over jnp.matmul old"
          f" {stats(part, 'xla', 'old')}, new {stats(part, 'xla', 'new')}")


if __name__ == "__main__":
  app.run(main)
