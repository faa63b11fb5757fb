"""Merges benchmark JSON reports (e.g. one per dtype) into one.

  python benchmarks/merge_results.py OUT.json IN1.json IN2.json ...

Rows are concatenated in order; the meta is the first report's, with every
input's command kept. Speedups were computed within each run, against
jnp.matmul timed in that same run, so they stay valid.
"""

import json
import sys


def merge(reports):
  meta = dict(reports[0]["meta"])
  meta["command"] = [r["meta"]["command"] for r in reports]
  return {"meta": meta, "rows": [row for r in reports for row in r["rows"]]}


if __name__ == "__main__":
  out, *inputs = sys.argv[1:]
  reports = []
  for path in inputs:
    with open(path) as f:
      reports.append(json.load(f))
  with open(out, "w") as f:
    json.dump(merge(reports), f, indent=1)
