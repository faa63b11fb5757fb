"""The wild corpus: the committed CSV is build()'s output, and its split holds.

wild-check is the held-out half that heuristics are judged on, so these tests
guard what makes it a fair test: disjoint from wild-tune, big enough, and
covering every kind of shape and token regime.
"""

from __future__ import annotations

import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))  # The benchmark modules.


@pytest.fixture(scope="module")
def wild():
  import wild  # pylint: disable=import-outside-toplevel
  return wild


@pytest.fixture(scope="module")
def entries(wild):
  return wild.load()


def test_csv_is_builds_output(wild):
  built = wild.build()
  assert wild.CSV_PATH.read_text() == wild.to_csv(built), (
      "stale: run python3 benchmarks/wild.py --write")
  assert wild.build() == built  # Fixed seeds: the same corpus every time.
  assert wild.load() == built


def test_sizes_and_disjoint_splits(wild, entries):
  shapes = [(e.m, e.n, e.k) for e in entries]
  assert len(shapes) == len(set(shapes)) >= 200
  tune = {(e.m, e.n, e.k) for e in wild.load("tune")}
  check = {(e.m, e.n, e.k) for e in wild.load("check")}
  assert len(check) >= 100 and len(tune) >= 100
  assert not tune & check
  assert tune | check == set(shapes)
  assert entries == sorted(entries)  # Sorted by (split, m, n, k).


@pytest.mark.parametrize("split", ["tune", "check"])
def test_every_kind_and_regime_in_each_split(wild, split):
  part = wild.load(split)
  assert {e.kind for e in part} == set(wild.KINDS)
  assert {wild.regime(e.m) for e in part} == set(wild.REGIMES)


def test_fresh_shapes_are_new_and_seeded(wild, entries):
  """fresh(seed) draws shapes of neither split, the same ones per seed and
  others for another seed, within the corpus's bounds and of every regime."""
  corpus = {(e.m, e.n, e.k) for e in entries}
  one = wild.fresh(1)
  assert one == wild.fresh(1) == sorted(set(one))
  assert len(one) >= 100 and not set(one) & corpus
  assert {wild.regime(m) for m, _, _ in one} == set(wild.REGIMES)
  assert all(1 <= min(s) and s[0] * s[1] * s[2] <= wild.MAX_MNK for s in one)
  assert len(set(one) & set(wild.fresh(2))) < len(one) // 2


def test_entries_are_valid(wild, entries):
  for e in entries:
    assert min(e.m, e.n, e.k) >= 1, e
    assert e.m * e.n * e.k <= wild.MAX_MNK, e
    assert e.split in wild.SPLITS and e.kind in wild.KINDS, e
    assert e.source.strip() and all(s.strip() for s in e.source.split("; "))
    if e.kind == "grad":
      assert e.source.startswith(("grad-dA of ", "grad-dB of ")), e


def test_every_model_is_in_the_corpus(wild, entries):
  sources = "; ".join(e.source for e in entries)
  for model in wild.MODELS:
    assert f"{model.name}: " in sources, model.name


def test_suites_agree_with_csv(wild, entries):
  for split in wild.SPLITS:
    want = [f"{e.m}x{e.n}x{e.k}" for e in entries if e.split == split]
    assert wild.suite(f"wild-{split}") == want
    assert wild.suites()[f"wild-{split}"] == want
  with pytest.raises(ValueError):
    wild.load("train")
  with pytest.raises(ValueError):
    wild.suite("wild")


def test_no_shipped_table_entry_is_keyed_to_a_check_shape(wild):
  """Tables may be fitted on wild-tune only: an entry tuned on a wild-check
  shape would make the held-out report a report on tuned shapes."""
  check = {(e.m, e.n, e.k) for e in wild.load("check")}
  tables = ROOT / "pallas_tiled" / "tuning" / "tables"
  for table in sorted(tables.glob("*.json")):
    if table.name == "cost_model.json":
      continue  # Coefficients: test_cost_model checks what they were fit on.
    entries = json.loads(table.read_text())["entries"].values()
    # Every entry records the shape it was tuned on, so this can be checked.
    assert all("shape" in entry for entry in entries), table.name
    tuned = {tuple(entry["shape"]) for entry in entries}
    assert not tuned & check, (table.name, sorted(tuned & check))
