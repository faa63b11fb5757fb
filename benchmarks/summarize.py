"""Renders a benchmark JSON as the Markdown table the README shows.

  python benchmarks/summarize.py benchmarks/results/h200.json
"""

import json
import sys


def _cell(row):
  if row is None:
    return "-"
  if row["status"] != "ok":
    return row["status"]
  speedup = row["speedup_vs_xla"]
  if row["impl"] == "xla" or speedup is None:
    return f"{row['tflops']:.1f}"
  return f"{row['tflops']:.1f} ({speedup:.2f}x)"


def summarize(report) -> str:
  meta, rows = report["meta"], report["rows"]
  lines = [f"{meta['device']}, jax {meta['jax_version']}, {meta['date']},"
           f" {meta['timing']} timing. TFLOP/s; in brackets, over jnp.matmul.",
           "",
           "| shape (MxNxK) | dtype | tiled | naive | jnp.matmul |"
           " tiled / naive |",
           "|---|---|---|---|---|---|"]
  cases = {}  # (dtype, shape) -> {impl: first row}, in run order.
  for r in rows:
    impls = cases.setdefault((r["dtype"], f"{r['m']}x{r['n']}x{r['k']}"), {})
    impls.setdefault(r["impl"], r)
  for dtype in dict.fromkeys(d for d, _ in cases):
    for (d, shape), impls in cases.items():
      if d != dtype:
        continue
      tiled, naive = impls.get("tiled"), impls.get("naive")
      ratio = "-"
      if tiled and naive and tiled["status"] == naive["status"] == "ok":
        ratio = f"{naive['time_us'] / tiled['time_us']:.0f}x"
      lines.append(f"| {shape} | {dtype} | {_cell(tiled)} | {_cell(naive)}"
                   f" | {_cell(impls.get('xla'))} | {ratio} |")
  return "\n".join(lines)


if __name__ == "__main__":
  with open(sys.argv[1]) as f:
    print(summarize(json.load(f)))
