"""Merges benchmark JSON reports (e.g. one per dtype) into one.

  python benchmarks/merge_results.py --out=OUT.json --inputs=IN1.json,IN2.json

Rows are concatenated in order; the meta is the first report's, with every
input's command kept. Speedups were computed within each run, against
jnp.matmul timed in that same run, so they stay valid.
"""

import json

from absl import app
from absl import flags

_OUT = flags.DEFINE_string("out", None, "Merged report to write.")
_INPUTS = flags.DEFINE_list("inputs", None, "Reports to merge, in order.")


def merge(reports):
  meta = dict(reports[0]["meta"])
  meta["command"] = [r["meta"]["command"] for r in reports]
  return {"meta": meta, "rows": [row for r in reports for row in r["rows"]]}


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}; use --inputs.")
  reports = []
  for path in _INPUTS.value:
    with open(path) as f:
      reports.append(json.load(f))
  with open(_OUT.value, "w") as f:
    json.dump(merge(reports), f, indent=1)


if __name__ == "__main__":
  flags.mark_flags_as_required(["out", "inputs"])
  app.run(main)
