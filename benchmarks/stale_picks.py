"""Lists the rows of a benchmark report that no longer show what `matmul`
runs: rows of ours (each the library's default pick, as run_wild.sh records
them; not for reports of --configs runs) whose config label differs from
the cost model's pick today on the row's device (for float32 matrix-vector
products, from the rule's vector tile), or whose copies around the
kernel differ (a layout rule may move a config's operands, transposed or padded,
under an unchanged label: `plan.host_layout` against the row's kernels; or
its output, now stored directly where it was cut), or whose kernel
changed under the same label (`plan.kernel_traits` against the row's; a row
from before they were recorded counts as having none), or
that are float32 Mosaic rows timed before the kernel rounded to TF32 (their
error over twice jnp.matmul's in the same run). Prints, per dtype, the shapes of
the speedup statistics (>= 2^24 multiply-adds; --min_macs=1 for every row) to
re-run, as run_wild.sh's --shapes (after a wild suite) or its SUITE
shapes:... (rows of no suite, such as fresh shapes).

  python benchmarks/stale_picks.py \
      --results=benchmarks/results/h100_wild_check.json
"""

from __future__ import annotations

import collections
import json

from absl import app
from absl import flags

from pallas_tiled.mosaic import plan
import checkout
import report

_RESULTS = flags.DEFINE_string("results", None, "A benchmark JSON report.")
_DEVICE_SMS = flags.DEFINE_integer("device_sms", 132,
                                   "The SM count of the report's device.")
_MIN_MACS = flags.DEFINE_integer(
    "min_macs", report.MIN_STATS_MACS, "Check only rows of at least this"
    " many multiply-adds (default: the speedup statistics' shapes; 1 checks"
    " the tiny products' rows too).", lower_bound=1)

# Kernels that copy operands or results around ours (XLA's transposes and
# pads, Mosaic's relayout); a split-K sum is not one.
_COPY_KERNELS = ("relayout", "transpose", "pad", "copy")


def has_copies(kernels) -> bool:
  """Whether a row's (name, us) kernels include a copy around ours."""
  return any(word in name for name, _ in kernels for word in _COPY_KERNELS)


def cuts_output(kernels) -> bool:
  """Whether a row's kernels include a copy after the Mosaic kernel's (a
  padded result cut to shape)."""
  names = [name for name, _ in kernels]
  ours = [i for i, name in enumerate(names) if "mosaic_matmul" in name]
  return bool(ours) and has_copies(kernels[ours[0] + 1:])


# stale_reason's answer where no pick is known here (`checkout.expected_pick`:
# a shipped table or the device itself decides): not checked.
UNCHECKED = "unchecked"


# A float32 row of ours over this multiple of jnp.matmul's error was timed
# before the kernel rounded to TF32 (both operands truncated: 2.6-2.7x;
# one rounded 1.6x, both 1.0x; BUILD_NOTES.md).
_TRUNCATED_ERROR_RATIO = 2.0


def stale_reason(row, num_sms: int,
                 xla_error: float | None = None) -> str | None:
  """Why a row of ours is stale, None if it is not (or is no timed product
  of ours), or UNCHECKED where no pick is known here. `xla_error`:
  jnp.matmul's error on the row's problem, where the report has it."""
  if (row["impl"] != "tiled" or row["status"] != "ok"
      or row.get("batch", 1) != 1):
    return None
  m, n, k, dtype = row["m"], row["n"], row["k"], row["dtype"]
  pick = checkout.expected_pick(m, n, k, dtype, row["device"], num_sms)
  if pick is None:
    return UNCHECKED
  if pick.label != row["config_label"]:
    return f"pick {pick.label}, row {row['config_label']}"
  if pick.backend == "mosaic":
    layout = plan.host_layout(m, n, k, pick, dtype, dtype)
    kernels = row.get("kernels") or []
    if (layout.copied_bytes > 0) != has_copies(kernels):
      return (f"{pick.label} now"
              f" {'with' if layout.copied_bytes else 'without'} copies"
              " around the kernel")
    if layout.direct_bytes and cuts_output(kernels):
      return f"{pick.label} now stores its output directly, uncut"
    traits = set(plan.kernel_traits(m, n, k, pick, dtype, dtype))
    recorded = row.get("kernel_traits")
    # A row from before traits were recorded ran none that came since.
    if traits != set(recorded or ()):
      return (f"{pick.label}'s kernel now runs"
              f" {', '.join(sorted(traits)) or 'no traits'}, the row's"
              f" {', '.join(recorded) if recorded else 'none recorded'}")
    # Only Mosaic truncated: Triton's TF32 always rounded, and a tiny
    # product that XLA computes exactly (31x4x2) leaves it far over the ratio.
    if (dtype == "float32" and xla_error
        and row["rel_error"] > _TRUNCATED_ERROR_RATIO * xla_error):
      return (f"timed before TF32 rounding (error"
              f" {row['rel_error'] / xla_error:.1f}x jnp.matmul's)")
  return None


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  checkout.require_own_library()
  with open(_RESULTS.value) as f:
    rows = json.load(f)["rows"]
  xla_errors = {report.problem(r): r["rel_error"] for r in rows
                if r["impl"] == "xla" and r["status"] == "ok"}
  stale = collections.defaultdict(list)
  unchecked = collections.defaultdict(list)
  for row in rows:
    if row["m"] * row["n"] * row["k"] < _MIN_MACS.value:
      continue  # By default, not among the speedup statistics' shapes.
    shape = f"{row['m']}x{row['n']}x{row['k']}"
    reason = stale_reason(row, _DEVICE_SMS.value,
                          xla_errors.get(report.problem(row)))
    if reason == UNCHECKED:
      unchecked[row["dtype"]].append(shape)
    elif reason:
      print(f"{row['dtype']:>9} {shape:>18}  {reason}")
      stale[row["dtype"]].append(shape)
  for dtype, shapes in stale.items():
    print(f"{dtype}: {len(shapes)} stale: --shapes={','.join(shapes)}")
  if not stale:
    print("no stale rows")
  for dtype, shapes in unchecked.items():
    print(f"{dtype}: {len(shapes)} not checked (no pick known here: a"
          f" shipped table or the device decides): {','.join(shapes)}")


if __name__ == "__main__":
  flags.mark_flags_as_required(["results"])
  app.run(main)
