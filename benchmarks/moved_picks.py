"""The default picks a selection change moves, old beside new, to be timed
side by side (`time_pairs.py`) before the change lands.

A fit on wild-tune can predict a gain that the moved picks then do not
show: twice the tune data promised one and side-by-side timings of the
moved picks refuted it (BUILD_NOTES, forty-seventh and forty-eighth
sessions). Without --base this writes this tree's picks for one device
kind and dtype over wild-tune, wild-check and fresh shapes; with --base
(the picks written before the change) only the ones that moved, as pairs.

  git stash && python benchmarks/moved_picks.py --out=/tmp/old.json
  git stash pop && python benchmarks/moved_picks.py --base=/tmp/old.json \\
      --out=probe/pairs.json
"""

from __future__ import annotations

import dataclasses
import json

from absl import app
from absl import flags
import jax.numpy as jnp

import checkout
import wild
from pallas_tiled import cost_model

_DTYPE = flags.DEFINE_string("dtype", "float32", "Input dtype.")
_DEVICE_KIND = flags.DEFINE_string("device_kind", "NVIDIA H200",
                                   "The device kind the picks are for.")
_NUM_SMS = flags.DEFINE_integer("num_sms", 132, "That device's SM count.")
_SETS = flags.DEFINE_list(
    "sets", ["wild-tune", "wild-check", "fresh:1", "fresh:2", "fresh:3"],
    "Shape sets: wild-tune, wild-check, or fresh:SEED (`wild.fresh`).")
_REGIME = flags.DEFINE_enum("regime", "all", ["all", *cost_model.REGIMES],
                            "Only shapes of this `cost_model.regime`.")
_MIN_MACS = flags.DEFINE_integer("min_macs", 2**24, "Only shapes of at least"
                                 " this many multiply-adds.", lower_bound=1)
_BASE = flags.DEFINE_string("base", None, "Picks written before the change:"
                            " write only the pairs that moved.")
_OUT = flags.DEFINE_string("out", None, "JSON output.", required=True)


def shape_sets(names) -> dict[tuple[int, int, int], str]:
  """{(m, n, k): the first set naming it} over `names`."""
  shapes = {}
  for name in names:
    if name.startswith("fresh:"):
      found = wild.fresh(int(name.removeprefix("fresh:")))
    elif name in wild.SUITE_NAMES:
      found = [(e.m, e.n, e.k) for e in wild.load(name.removeprefix("wild-"))]
    else:
      raise ValueError(f"shape set {name!r} is not wild-tune, wild-check or"
                       " fresh:SEED")
    for shape in found:
      shapes.setdefault(tuple(shape), name)
  return shapes


def as_json(config) -> list | None:
  """[backend, fields] of a config (`time_pairs.pair_config` reads it
  back)."""
  return config and [config.backend, dataclasses.asdict(config)]


def picks(shapes: dict, dtype: str, device_kind: str, num_sms: int,
          regime: str, min_macs: int) -> list[dict]:
  """The default pick (`checkout.expected_pick`) of each shape kept."""
  rows = []
  for (m, n, k), name in sorted(shapes.items()):
    if m * n * k < min_macs or regime not in ("all", cost_model.regime(m, n)):
      continue
    pick = checkout.expected_pick(m, n, k, dtype, device_kind, num_sms)
    rows.append({"shape": [m, n, k], "set": name, "pick": as_json(pick),
                 "label": pick and pick.label})
  return rows


def moved(base: list[dict], new: list[dict]) -> list[dict]:
  """Pairs {shape, set, old, new} of the shapes whose pick changed."""
  old = {tuple(row["shape"]): row for row in base}
  pairs = []
  for row in new:
    before = old.get(tuple(row["shape"]))
    if before and before["label"] != row["label"]:
      pairs.append({"shape": row["shape"], "set": row["set"],
                    "old": before["pick"], "new": row["pick"]})
  return pairs


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  checkout.require_own_library()
  dtype = jnp.dtype(_DTYPE.value).name
  base = None
  if _BASE.value:
    with open(_BASE.value) as f:
      base = json.load(f)
    if (base["dtype"], base["device_kind"]) != (dtype, _DEVICE_KIND.value):
      raise app.UsageError(
          f"--base is for {base['dtype']} on {base['device_kind']}, not"
          f" {dtype} on {_DEVICE_KIND.value}")
  rows = picks(shape_sets(_SETS.value), dtype, _DEVICE_KIND.value,
               _NUM_SMS.value, _REGIME.value, _MIN_MACS.value)
  out = {"dtype": dtype, "device_kind": _DEVICE_KIND.value}
  if base:
    out["pairs"] = moved(base["rows"], rows)
    print(f"{len(out['pairs'])} of {len(rows)} picks moved")
  else:
    out["rows"] = rows
  with open(_OUT.value, "w") as f:
    json.dump(out, f, indent=1)


if __name__ == "__main__":
  app.run(main)
