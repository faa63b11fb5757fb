"""Renders a benchmark JSON as the Markdown table the README shows.

One column per impl in the report (jnp.matmul is `xla`), one row per shape
and dtype.

  python benchmarks/summarize.py --report=benchmarks/results/h200.json
"""

import json

from absl import app
from absl import flags

_REPORT = flags.DEFINE_string("report", None,
                              "Benchmark JSON report to summarize.")


def _cell(row):
  if row is None:
    return "-"
  if row["status"] != "ok":
    return row["status"]
  speedup = row["speedup_vs_xla"]
  if row["impl"].startswith("xla") or speedup is None:
    return f"{row['tflops']:.1f}"
  return f"{row['tflops']:.1f} ({speedup:.2f}x)"


def _shape(row):
  batch = f"{row['batch']}x" if row.get("batch", 1) > 1 else ""
  return f"{batch}{row['m']}x{row['n']}x{row['k']}"


def _column(row):
  """Tiled impls get one column per backend, e.g. "tiled (mosaic)"."""
  if row["impl"].startswith("tiled"):
    return f"{row['impl']} ({row.get('backend', 'triton')})"
  return row["impl"]


def summarize(report) -> str:
  meta, rows = report["meta"], report["rows"]
  impls = list(dict.fromkeys(_column(r) for r in rows))
  ratio = "tiled (triton)" in impls and "naive" in impls
  names = [("jnp.matmul" + impl[3:]) if impl.startswith("xla") else impl
           for impl in impls]
  sustained = sorted({r.get("sustain_s", 0) for r in rows} - {0})
  regime = (f" after {', '.join(f'{s:g}' for s in sustained)} s of each case"
            " run back to back" if sustained else "")
  rounds = max(len(r.get("round_us") or [0]) for r in rows)
  if rounds > 1:
    regime += (f", each case's median of {rounds} rounds interleaved with"
               " the other cases of its shape")
  lines = [f"{meta['device']}, jax {meta['jax_version']}, {meta['date']},"
           f" {meta['timing']} timing{regime}. TFLOP/s; in brackets, over"
           " jnp.matmul doing the same work.",
           "",
           "| shape | dtype | " + " | ".join(names)
           + (" | tiled / naive |" if ratio else " |"),
           "|---|---|" + "---|" * (len(impls) + ratio)]
  cases = {}  # (dtype, shape) -> {impl: first row}, in run order.
  for r in rows:
    cases.setdefault((r["dtype"], _shape(r)), {}).setdefault(_column(r), r)
  for dtype in dict.fromkeys(d for d, _ in cases):
    for (d, shape), found in cases.items():
      if d != dtype:
        continue
      cells = [_cell(found.get(impl)) for impl in impls]
      if ratio:
        tiled, naive = found.get("tiled (triton)"), found.get("naive")
        cells.append(f"{naive['time_us'] / tiled['time_us']:.0f}x"
                     if tiled and naive and tiled["status"] == naive["status"]
                     == "ok" else "-")
      lines.append(f"| {shape} | {dtype} | " + " | ".join(cells) + " |")
  return "\n".join(lines)


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}; use --report.")
  with open(_REPORT.value) as f:
    print(summarize(json.load(f)))


if __name__ == "__main__":
  flags.mark_flag_as_required("report")
  app.run(main)
