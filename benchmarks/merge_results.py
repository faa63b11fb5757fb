"""Merges benchmark JSON reports (e.g. one per dtype, or the shards of one
suite) into one, and optionally writes its CSV and plot.

  python benchmarks/merge_results.py --out=OUT.json --inputs=IN1.json,IN2.json

Rows are concatenated in order; a problem (shape, dtype, precision) in
several reports keeps only the last report's rows, so a re-run of some
shapes replaces them whole (`report.merge_reports`). The meta is the first
report's, with every input's command kept. Speedups were computed within
each run, against jnp.matmul timed in that same run, so they stay valid.
"""

import json
import types

from absl import app
from absl import flags

import report

_OUT = flags.DEFINE_string("out", None, "Merged report to write.")
_INPUTS = flags.DEFINE_list("inputs", None, "Reports to merge, in order.")
_CSV_OUT = flags.DEFINE_string("csv_out", None, "Also write its rows as CSV.")
_PLOT_OUT = flags.DEFINE_string(
    "plot_out", None, "Also draw its sorted speedup curves (wild suites) as"
    " a PNG.")


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}; use --inputs.")
  reports = []
  for path in _INPUTS.value:
    with open(path) as f:
      reports.append(json.load(f))
  merged = report.merge_reports(reports)
  with open(_OUT.value, "w") as f:
    json.dump(merged, f, indent=1)
  rows = [types.SimpleNamespace(**row) for row in merged["rows"]]
  print(report.format_speedup_stats(rows))
  if decode := report.format_decode_bandwidth_stats(rows):
    print(decode)
  if _CSV_OUT.value:
    report.write_csv(rows, _CSV_OUT.value)
  if _PLOT_OUT.value:
    meta = merged["meta"]
    report.write_speedup_plot(
        rows, _PLOT_OUT.value, f"{meta['device']}, jax {meta['jax_version']}")


if __name__ == "__main__":
  flags.mark_flags_as_required(["out", "inputs"])
  app.run(main)
