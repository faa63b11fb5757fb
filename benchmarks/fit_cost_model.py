"""Fits the cost model (`pallas_tiled/cost_model.py`) to calibration runs
(`calibrate.py` on wild-tune) and writes its coefficients for one device
kind and dtype into `pallas_tiled/tuning/tables/cost_model.json`.

Refuses any wild-check shape: those judge the model, never fit it. Reports
how the model's pick compares, leaving each tune shape out of its own fit,
with the best candidate measured and with the library's pick at the time
of calibration, all against jnp.matmul in the same run, and how well it
ranks each shape's candidates (Spearman's rank correlation of predicted
against measured times); then how the coefficients shipped for the runs'
device kind (another Hopper part's where it has none) pick on them.

  python benchmarks/fit_cost_model.py --runs=h100_tune.jsonl --write

With --extend=REGEX it fits only the matching tile classes, holding the
H100's shipped terms, and ships them as the runs' device kind's own
(`cost_model.coefficients`): for candidates only that kind has timed.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import math
import re

from absl import app
from absl import flags
import numpy as np

import checkout
import report
import wild
from pallas_tiled import cost_model
from pallas_tiled import layouts
from pallas_tiled.mosaic import plan
from pallas_tiled.tuning import cache as tuning_cache

_RUNS = flags.DEFINE_list("runs", [], "calibrate.py outputs (JSON lines).")
_CHECK_RUNS = flags.DEFINE_list(
    "check_runs", [], "calibrate.py outputs on wild-check: never fitted on,"
    " only reported (the fitted model's pick and rank correlation there).")
_NUM_SMS = flags.DEFINE_integer("num_sms", 132, "The device's SM count.")
_MIN_SHAPES = flags.DEFINE_integer(
    "min_shapes", 3, "Tile classes timed on fewer shapes are not fitted.")
_WRITE = flags.DEFINE_bool("write", False,
                           "Write the coefficients into the shipped table.")
_EXTEND = flags.DEFINE_string(
    "extend", None, "Fit only the tile classes matching this regular"
    " expression, over the shipped coefficients of the reference kind"
    " (`cost_model.HOPPER_REFERENCE_KIND`), as the runs' device kind's own"
    " classes: for candidates only that kind has timed.")


# A shape's key in `load`'s rows: the `plan.LAYOUT_VERSION` its run timed
# Mosaic kernels with (`cost_model.features`' layout_version), absent for
# version 0. Rows record it as `layout_version`; older ones as
# `direct_stores` (version 1) or not at all (0).
LAYOUT = "layout_version"


def load(paths):
  """{(m, n, k): {"xla": us, "pick": us, config: us[, LAYOUT: version]}},
  the device kind and the dtype of the runs' correct rows. A shape in
  several runs takes the
  last run's rows alone (times compared with each other come from one run),
  except a partial run's (`calibrate.py --labels`): its candidates join the
  earlier rows, their times rescaled by jnp.matmul's or the library pick's
  in the two runs (whichever moved less), and
  are left out where no earlier run timed the shape."""
  times, kinds = {}, set()
  for path in paths:
    run, partial = collections.defaultdict(dict), set()
    with open(path) as f:
      for row in map(json.loads, f):
        kinds.add((row["device"], row["dtype"]))
        if row.get("partial"):
          partial.add((row["m"], row["n"], row["k"]))
        if row["status"] != "ok":
          continue
        version = row.get(LAYOUT, plan.LAYOUT_DIRECT_STORES
                          if row.get("direct_stores") else 0)
        if version:
          run[row["m"], row["n"], row["k"]][LAYOUT] = version
        key = row["impl"] if row["impl"] != "candidate" else (
            tuning_cache.CONFIG_TYPES[row["backend"]](**row["config"]))
        run[row["m"], row["n"], row["k"]][key] = row["time_us"]
    for shape, rows in run.items():
      if shape in partial:  # Without earlier rows, no calibration.
        earlier = times.get(shape, {})
        ratios = [earlier[r] / rows[r] for r in ("xla", "pick")
                  if r in earlier and r in rows]
        if not ratios:
          continue
        # The steadier of the two references: a run's first timing can be
        # an outlier (jnp.matmul at 3.4x its usual time, on an H100).
        scale = min(ratios, key=lambda r: abs(math.log(r)))
        rows = {**earlier, **{c: t * scale for c, t in rows.items()
                              if not isinstance(c, str)}}
      times[shape] = rows
  if len(kinds) != 1:
    raise app.UsageError(f"runs mix device kinds or dtypes: {kinds}")
  return times, *kinds.pop()


def _as_timed(config):
  """`config` as the runs timed it (`cost_model.calibrated_twin`), a
  transposed Mosaic config at one depth for all: its tile class has none,
  and runs before a ragged M's five stages (`mosaic.config.
  transposed_variants`) timed four."""
  config = cost_model.calibrated_twin(config)
  if isinstance(config, cost_model.MosaicConfig) and config.transposed:
    config = dataclasses.replace(config, max_concurrent_steps=1)
  return config


def offered(times, dtype):
  """`times` with only the configs the cost model now chooses among for
  each shape (`cost_model.model_candidates`, as the runs timed them:
  `_as_timed`): rows of candidates dropped since a run are neither fitted
  on nor picked."""
  kept = {}
  for shape, row in times.items():
    candidates = {_as_timed(c)
                  for c in cost_model.model_candidates(*shape, dtype)}
    kept[shape] = {c: t for c, t in row.items()
                   if isinstance(c, str) or _as_timed(c) in candidates}
  return kept


def fit(times, shapes, dtype, *, num_sms=132, min_shapes=3) -> dict:
  """{regime: coefficients} (`cost_model.regime`), each regime fitted on
  its own shapes alone."""
  fits = {}
  for name in cost_model.REGIMES:
    if own := [s for s in shapes if cost_model.regime(*s[:2]) == name]:
      fits[name] = _fit_regime(times, own, dtype, num_sms=num_sms,
                               min_shapes=min_shapes)
  return fits


def _fit_regime(times, shapes, dtype, *, num_sms, min_shapes) -> dict:
  """Non-negative least squares on relative error: every measured time of
  every tile class timed on at least `min_shapes` shapes that run a K-loop
  (K past one 128-byte K-phase), or, for a class of one-phase K alone
  (`cost_model.is_one_phase_class`), on any `min_shapes` shapes. A class
  priced at every K is not fitted on one-phase K alone: there its per-K
  term is not seen (float32's six-stage tile, fitted on five shapes of K
  <= 64, became the pick of most long-K float32 wild-check shapes)."""
  timed = [(shape, config, time_us,
            cost_model.priced_class(config, *shape, dtype))
           for shape in shapes for config, time_us in times[shape].items()
           if not isinstance(config, str)]
  seen = collections.Counter(
      name for (_, _, k), config, _, name in timed
      if cost_model.is_one_phase_class(config, k, dtype)
      or not layouts.fits_one_k_phase(k, dtype))
  classes = sorted(c for c, n in seen.items() if n >= min_shapes)
  column = {c: len(cost_model.SHARED_TERMS) + 2 * i
            for i, c in enumerate(classes)}
  rows = []
  for shape, config, time_us, name in timed:
    if (j := column.get(name)) is None:  # A class timed on too few shapes.
      continue
    shared, per_tile = cost_model.features(
        config, *shape, dtype, num_sms,
        layout_version=times[shape].get(LAYOUT, 0))
    x = np.zeros(len(cost_model.SHARED_TERMS) + 2 * len(classes))
    x[:len(shared)] = shared
    x[j:j + 2] = per_tile
    rows.append(x / time_us)
  design = np.array(rows)
  # A shared term no timed candidate exercises stays out of the table, so
  # the model never picks what would need it (predict_us).
  exercised = design.any(axis=0)
  coefs = _non_negative_fit(design, np.ones(len(rows)), exercised)
  coefs = [float(f"{c:.6g}") for c in coefs]
  fitted = {t: c for t, c, used in zip(cost_model.SHARED_TERMS, coefs,
                                       exercised) if used}
  fitted["classes"] = {c: coefs[j:j + 2] for c, j in column.items()}
  return fitted


def _non_negative_fit(design, target, active):
  """Least squares of design @ coefs against target over the `active`
  columns, dropping those whose coefficient comes out negative until none
  does; the others' coefficients are zero."""
  active = active.copy()
  while True:
    solution, *_ = np.linalg.lstsq(design[:, active], target, rcond=None)
    if (solution >= 0).all():
      break
    active[np.flatnonzero(active)[solution < 0]] = False
  coefs = np.zeros(design.shape[1])
  coefs[active] = solution
  return coefs


def fit_classes(times, shapes, dtype, base, pattern, *, num_sms=132,
                min_shapes=3) -> dict:
  """{regime: {"classes": ...}}: the per-class terms of the tile classes
  matching `pattern`, timed on at least `min_shapes` of `shapes`, fitted
  by least squares on relative error with `base`'s (the reference kind's)
  shared terms held (`_non_negative_fit`)."""
  fits = {}
  for name, coefs in base.items():
    rows = collections.defaultdict(list)
    for shape in (s for s in shapes if cost_model.regime(*s[:2]) == name):
      for config, time_us in times[shape].items():
        if isinstance(config, str):
          continue
        label = cost_model.priced_class(config, *shape, dtype)
        if not re.search(pattern, label):
          continue
        shared, per_tile = cost_model.features(
            config, *shape, dtype, num_sms,
            layout_version=times[shape].get(LAYOUT, 0))
        if any(x and t not in coefs
               for t, x in zip(cost_model.SHARED_TERMS, shared)):
          continue  # A term `base` lacks: never predicted (predict_us).
        held = math.fsum(coefs.get(t, 0.0) * x
                         for t, x in zip(cost_model.SHARED_TERMS, shared))
        rows[label].append((shape, np.array(per_tile) / time_us,
                            1 - held / time_us))
    classes = {}
    for label, timed in sorted(rows.items()):
      if len({shape for shape, _, _ in timed}) < min_shapes:
        continue
      design = np.array([x for _, x, _ in timed])
      target = np.array([y for _, _, y in timed])
      classes[label] = [float(f"{c:.6g}") for c in _non_negative_fit(
          design, target, np.ones(design.shape[1], bool))]
    if classes:
      fits[name] = {"classes": classes}
  return fits


def rank_correlation(x, y) -> float:
  """Spearman's: the correlation of the two lists' ranks (no ties)."""
  rank = lambda v: np.argsort(np.argsort(v))
  return float(np.corrcoef(rank(x), rank(y))[0, 1])


def picks(times, shape, coefs, dtype, num_sms):
  """(jnp.matmul's time over the model's pick's, over the best measured
  candidate's, over the library's pick's; the rank correlation of the
  candidates' predicted and measured times) on one shape; None where the
  model predicts none of its candidates."""
  measured = {c: t for c, t in times[shape].items() if not isinstance(c, str)}
  predicted = {c: cost_model.predict_us(c, *shape, dtype, coefs, num_sms)
               for c in measured}
  predicted = {c: t for c, t in predicted.items() if t is not None}
  if not predicted:  # No class of this shape's fitted (without it).
    return None
  chosen = min(predicted, key=predicted.get)
  xla = times[shape]["xla"]
  ranked = list(predicted)
  correlation = (rank_correlation([predicted[c] for c in ranked],
                                  [measured[c] for c in ranked])
                 if len(ranked) >= 3 else math.nan)
  return (xla / measured[chosen], xla / min(measured.values()),
          xla / times[shape]["pick"], correlation)


def _report(title, results) -> None:
  """Prints `picks` results over shapes: speedups and rank correlation."""
  if unpredicted := results.count(None):
    title += f" ({unpredicted} with no candidate predicted, left out)"
    results = [r for r in results if r is not None]
  print(f"{title}; speedup over jnp.matmul:")
  for i, name in enumerate(("model pick", "best candidate", "library pick")):
    stats = report.ratio_stats(r[i] for r in results)
    print(f"  {name:15s} geomean {stats['geomean']:.3f}x, p10"
          f" {stats['p10']:.3f}x, min {stats['min']:.3f}x")
  correlations = [r[3] for r in results if not math.isnan(r[3])]
  if correlations:  # Shapes with at least 3 predicted candidates.
    print("  rank correlation of predicted and measured candidate times, per"
          f" shape: median {np.median(correlations):.2f}, p10"
          f" {np.percentile(correlations, 10):.2f} ({len(correlations)}"
          " shapes)")


def main(argv):
  del argv
  checkout.require_own_library()
  times, kind, dtype = load(_RUNS.value)
  times = offered(times, dtype)
  check = {(e.m, e.n, e.k) for e in wild.load("check")}
  if leaked := sorted(set(times) & check):
    raise app.UsageError(f"wild-check shapes are never fitted on: {leaked}")
  shapes = sorted(s for s in times if {"xla", "pick"} <= set(times[s]))
  options = dict(num_sms=_NUM_SMS.value, min_shapes=_MIN_SHAPES.value)
  reference = kind == cost_model.HOPPER_REFERENCE_KIND
  if _WRITE.value and not _EXTEND.value and not reference:
    raise app.UsageError(
        f"{kind}: only {cost_model.HOPPER_REFERENCE_KIND} ships a whole fit;"
        " another kind ships classes of its own (--extend)")
  if _EXTEND.value and reference:
    raise app.UsageError(
        f"--extend: {kind}'s classes are fitted with its terms, by a whole"
        " fit of its runs (without --extend)")
  if _EXTEND.value:  # The reference kind's fit, with classes of our own.
    base = cost_model.coefficients(cost_model.HOPPER_REFERENCE_KIND, dtype)
    own = lambda shapes: fit_classes(times, shapes, dtype, base,
                                     _EXTEND.value, **options)
    fitted = lambda shapes: cost_model.extended(base, own(shapes))
  else:
    fitted = lambda shapes: fit(times, shapes, dtype, **options)
  left_out = [
      picks(times, s, fitted([t for t in shapes if t != s]), dtype,
            _NUM_SMS.value)
      for s in shapes]
  _report(f"{kind}, {dtype}: {len(shapes)} wild-tune shapes, each left out"
          " of its own fit", left_out)
  # What ships for this device today (its own fit, on these very shapes if
  # it came from these runs, or another Hopper part's): the bar a --write
  # must clear.
  if (shipped := cost_model.coefficients(kind, dtype)) is not None:
    _report("The shipped coefficients for this device kind, on the same"
            " shapes", [picks(times, s, shipped, dtype, _NUM_SMS.value)
                        for s in shapes])
  coefs = fitted(shapes)
  if _CHECK_RUNS.value:
    check_times, check_kind, check_dtype = load(_CHECK_RUNS.value)
    check_times = offered(check_times, check_dtype)
    if (check_kind, check_dtype) != (kind, dtype):
      raise app.UsageError(f"--check_runs are {check_kind}, {check_dtype};"
                           f" --runs {kind}, {dtype}")
    if tuned := sorted(set(check_times) - check):
      raise app.UsageError(f"--check_runs hold non-check shapes: {tuned}")
    checked = sorted(s for s in check_times
                     if {"xla", "pick"} <= set(check_times[s]))
    _report(f"{len(checked)} wild-check shapes, the model fitted on all of"
            " wild-tune", [picks(check_times, s, coefs, dtype,
                                 _NUM_SMS.value) for s in checked])
  for name, regime_coefs in coefs.items():
    print(f"{name}: {len(regime_coefs['classes'])} tile classes;", {
        t: round(regime_coefs[t], 4) for t in cost_model.SHARED_TERMS
        if t in regime_coefs})
  if _EXTEND.value:
    print("fitted classes of this device kind:", own(shapes))
  if _WRITE.value:
    with open(cost_model.TABLE_PATH) as f:
      table = json.load(f)
    table.setdefault(kind, {})[dtype] = (
        own(shapes) if _EXTEND.value else coefs)
    with open(cost_model.TABLE_PATH, "w") as f:
      json.dump(table, f, indent=1, sort_keys=True)
      f.write("\n")


if __name__ == "__main__":
  app.run(main)
