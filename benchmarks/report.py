"""The benchmark's outputs: the printed table, JSON, CSV and plots.

Rows are `matmul_benchmark.Row`s. Wild-shape suites are drawn as sorted
speedup curves against jnp.matmul, one per dtype, with the geometric mean,
10th percentile and minimum over the shapes of at least `MIN_STATS_MACS`
multiply-adds (smaller ones are launch-bound for every implementation).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
from typing import Any

import numpy as np

MIN_STATS_MACS = 2**24
# Decode products of at most this many rows stream their weights: issue 27's
# target for them is this share of the measured copy bandwidth.
DECODE_ROWS = 16
DECODE_TARGET_PCT = 80.0


# What makes rows one problem: a re-run's rows of it replace the earlier's.
_PROBLEM_FIELDS = ("batch", "m", "n", "k", "dtype", "precision")


def _commands(command) -> list[str]:
  """A report's commands, one list however often it was merged (merged
  reports of old nested their inputs' lists)."""
  if isinstance(command, str):
    return [command]
  return [c for part in command for c in _commands(part)]


def problem(row) -> tuple:
  """What a report row computes (shape, batch, dtype, precision): the rows
  of one problem are the impls timed on it."""
  return tuple(row.get(f) for f in _PROBLEM_FIELDS)


def merge_reports(reports) -> dict:
  """One report of several (JSON dicts): rows in order, each problem's from
  the last report that has it; the first meta, with every command."""
  meta = dict(reports[0]["meta"])
  meta["command"] = [command for r in reports
                     for command in _commands(r["meta"]["command"])]
  last = {problem(row): index
          for index, r in enumerate(reports) for row in r["rows"]}
  return {"meta": meta, "rows": [
      row for index, r in enumerate(reports) for row in r["rows"]
      if last[problem(row)] == index]}


def _fmt(value, spec):
  """format(value, spec), or a dash as wide as the spec for a missing value."""
  if value is None:
    return "-".rjust(int(spec.split(".")[0].rstrip("dfe") or 0))
  return format(value, spec)


def format_table(rows) -> str:
  header = (f"{'impl':<14} {'backend':<7} {'dtype':<13} {'MxNxK':<18}"
            f" {'config':<34} {'time_us':>10} {'TFLOP/s':>8} {'%peak':>6}"
            f" {'GB/s':>7}"
            f" {'vs_xla':>7} {'rel_err':>8} {'smem_B':>7} {'progs':>7}"
            "  status")
  lines = [header, "-" * len(header)]
  for r in rows:
    lines.append(
        f"{r.impl:<14} {r.backend:<7} {r.dtype:<13} {r.shape:<18}"
        f" {r.config_label:<34} {_fmt(r.time_us, '10.1f')}"
        f" {_fmt(r.tflops, '8.2f')} {_fmt(r.pct_peak, '6.1f')}"
        f" {_fmt(r.gb_per_s, '7.0f')}"
        f" {_fmt(r.speedup_vs_xla, '7.2f')} {_fmt(r.rel_error, '8.1e')}"
        f" {_fmt(r.shared_memory_bytes, '7d')} {_fmt(r.num_programs, '7d')}"
        f"  {r.status}{': ' + r.error if r.error else ''}")
  return "\n".join(lines)


def _record(row) -> dict[str, Any]:
  """A row as a dict: a Row, or a row read back from JSON (a namespace)."""
  return dataclasses.asdict(row) if dataclasses.is_dataclass(row) else dict(
      vars(row))


def write_json(rows, path: str, meta: dict[str, Any]) -> None:
  with open(path, "w") as f:
    json.dump({"meta": meta, "rows": [_record(r) for r in rows]}, f,
              indent=1)


def write_csv(rows, path: str) -> None:
  # Every row's fields: merged reports may mix rows from older binaries.
  fields = list(dict.fromkeys(f for r in rows for f in _record(r)))
  with open(path, "w", newline="") as f:
    writer = csv.DictWriter(f, fieldnames=fields)
    writer.writeheader()
    for r in rows:
      record = _record(r)
      record["samples"] = json.dumps(record["samples"])
      record["kernels"] = json.dumps(record["kernels"])
      record["round_us"] = json.dumps(record["round_us"])
      record["config"] = record["config_label"]
      writer.writerow(record)


def write_plot(rows, path: str, title: str, *, sweep: bool) -> None:
  """Bars of TFLOP/s, one panel per dtype: grouped by shape (one bar per
  impl), or in a sweep one bar per config. Failed cases are marked."""
  import matplotlib  # The optional 'plot' extra.
  matplotlib.use("Agg")
  from matplotlib import pyplot as plt

  dtypes = list(dict.fromkeys(r.dtype for r in rows))
  fig, axes = plt.subplots(len(dtypes), 1, squeeze=False,
                           figsize=(12, 4 * len(dtypes)))
  colors = {impl: f"C{i}" for i, impl in
            enumerate(dict.fromkeys(r.impl for r in rows))}
  for ax, dtype in zip(axes[:, 0], dtypes):
    cases = [r for r in rows if r.dtype == dtype]
    if sweep:  # One bar per case, labelled by its config.
      groups = [[r] for r in cases]
      labels = [f"{r.impl}\n{r.config_label}" for r in cases]
    else:  # One group per shape, one bar per impl.
      shapes = list(dict.fromkeys(r.shape for r in cases))
      groups = [[r for r in cases if r.shape == s] for s in shapes]
      labels = shapes
    width = 0.8 / max(len(g) for g in groups)
    for x, group in enumerate(groups):
      for i, r in enumerate(group):
        pos = x + (i - (len(group) - 1) / 2) * width
        ax.bar(pos, r.tflops or 0.0, width, color=colors[r.impl])
        if r.status != "ok":
          ax.text(pos, 0, f" {r.status}", rotation=90, ha="center",
                  va="bottom", fontsize=8, color="red")
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=20, fontsize=8)
    ax.set_ylabel("TFLOP/s")
    ax.set_title(f"{title} - {dtype}")
    ax.legend(handles=[matplotlib.patches.Patch(color=c, label=impl)
                       for impl, c in colors.items()])
  fig.tight_layout()
  fig.savefig(path, dpi=110)


def _counted_rows(rows, impl: str, dtype: str) -> list:
  """`impl`'s checked `dtype` rows of at least MIN_STATS_MACS: the ones the
  statistics count (smaller products time the launch)."""
  return [r for r in rows
          if r.impl == impl and r.dtype == dtype and r.status == "ok"
          and r.batch * r.m * r.n * r.k >= MIN_STATS_MACS]


def _sorted_speedups(rows, impl: str, dtype: str) -> list[float]:
  """`impl`'s speedups over jnp.matmul on its `_counted_rows`, ascending."""
  return sorted(r.speedup_vs_xla for r in _counted_rows(rows, impl, dtype)
                if r.speedup_vs_xla)


def ratio_stats(ratios) -> dict[str, float]:
  """Geomean, 10th percentile (interpolated, `np.percentile`) and min of
  speedup ratios: the one definition every report and tool quotes."""
  ratios = np.asarray(list(ratios), dtype=float)
  return dict(geomean=math.exp(np.mean(np.log(ratios))),
              p10=float(np.percentile(ratios, 10)), min=float(ratios.min()))


def format_ratio_stats(ratios) -> str:
  """`ratio_stats` as 'geomean / p10 / min'."""
  stats = ratio_stats(ratios)
  return " / ".join(f"{stats[key]:.3f}x" for key in ("geomean", "p10", "min"))


def speedup_stats(rows, impl: str = "tiled") -> dict[str, dict[str, float]]:
  """Per dtype: `ratio_stats` of `_sorted_speedups`, and their count."""
  stats = {}
  for dtype in dict.fromkeys(r.dtype for r in rows):
    speedups = _sorted_speedups(rows, impl, dtype)
    if speedups:
      stats[dtype] = dict(ratio_stats(speedups), count=len(speedups))
  return stats


def format_speedup_stats(rows, impl: str = "tiled") -> str:
  """One line per dtype: `speedup_stats` as text."""
  return "\n".join(
      f"{impl} / jnp.matmul, {dtype}, {s['count']} shapes of M*N*K >="
      f" 2^{int(math.log2(MIN_STATS_MACS))}: geomean {s['geomean']:.3f}x,"
      f" p10 {s['p10']:.3f}x, min {s['min']:.3f}x"
      for dtype, s in speedup_stats(rows, impl).items())


def decode_bandwidth_stats(rows, impl: str = "tiled") -> dict:
  """Per dtype: how the decode rows (M <= DECODE_ROWS) of `impl`'s
  `_counted_rows` stream their operands: how many, how many reach
  DECODE_TARGET_PCT of the copy bandwidth, and the median share."""
  stats = {}
  for dtype in dict.fromkeys(r.dtype for r in rows):
    shares = [r.pct_copy_bandwidth for r in _counted_rows(rows, impl, dtype)
              if r.m <= DECODE_ROWS and getattr(r, "pct_copy_bandwidth", None)]
    if shares:
      stats[dtype] = dict(
          count=len(shares), median=float(np.median(shares)),
          at_target=sum(s >= DECODE_TARGET_PCT for s in shares))
  return stats


def format_decode_bandwidth_stats(rows) -> str:
  """One line per impl and dtype: `decode_bandwidth_stats` as text."""
  return "\n".join(
      f"{impl}, {dtype}, decode (M <= {DECODE_ROWS}): {s['at_target']} of"
      f" {s['count']} shapes at >= {DECODE_TARGET_PCT:.0f}% of the copy"
      f" bandwidth, median {s['median']:.0f}%"
      for impl in ("tiled", "xla")
      for dtype, s in decode_bandwidth_stats(rows, impl).items())


def write_speedup_plot(rows, path: str, title: str,
                       impl: str = "tiled") -> None:
  """`impl`'s speedups over jnp.matmul, sorted, one curve per dtype, over
  the shapes `speedup_stats` counts; the legend gives its statistics."""
  import matplotlib  # The optional 'plot' extra.
  matplotlib.use("Agg")
  from matplotlib import pyplot as plt

  fig, ax = plt.subplots(figsize=(10, 5))
  for dtype, s in speedup_stats(rows, impl).items():
    speedups = _sorted_speedups(rows, impl, dtype)
    ax.plot(np.linspace(0, 100, len(speedups)), speedups, marker=".",
            label=(f"{dtype}: geomean {s['geomean']:.3f}x, p10"
                   f" {s['p10']:.3f}x, min {s['min']:.3f}x ({s['count']})"))
  ax.axhline(1.0, color="gray", linewidth=0.8)
  ax.set_yscale("log")
  labels = matplotlib.ticker.FormatStrFormatter("%.2gx")
  ax.yaxis.set_major_formatter(labels)
  ax.yaxis.set_minor_formatter(labels)
  ax.set_xlabel("shapes, sorted by speedup (%)")
  ax.set_ylabel(f"{impl} / jnp.matmul speed")
  ax.set_title(f"{title}: M*N*K >= 2^{int(math.log2(MIN_STATS_MACS))}")
  ax.legend(fontsize=8)
  fig.tight_layout()
  fig.savefig(path, dpi=110)
