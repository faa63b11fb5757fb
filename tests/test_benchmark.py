"""The benchmark binary: flags, a tiny run's JSON, and failure handling.

The binary runs in a subprocess with JAX_PLATFORMS=cpu, so these tests take
interpret mode on every machine.
"""

import dataclasses
import json
import os
import pathlib
import re
import subprocess
import sys

from absl.testing import flagsaver
import jax.numpy as jnp
import pytest

import pallas_tiled
from pallas_tiled import timing
from tests import helpers

ROOT = pathlib.Path(__file__).resolve().parent.parent
BINARY = ROOT / "benchmarks" / "matmul_benchmark.py"
sys.path.insert(0, str(BINARY.parent))  # The binary's modules, for fixtures.
ROW_FIELDS = ("impl backend dtype m n k config time_us tflops pct_peak"
              " gb_per_s speedup_vs_xla rel_error status error device"
              " jax_version timing").split()


def _run(*flags, tmp_path, binary=BINARY):
  env = dict(os.environ, JAX_PLATFORMS="cpu",
             PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
  return subprocess.run([sys.executable, str(binary), *flags], cwd=tmp_path,
                        env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def benchmark_module():
  import matmul_benchmark  # pylint: disable=import-outside-toplevel
  return matmul_benchmark


@pytest.fixture(scope="module")
def summarize_module():
  import summarize  # pylint: disable=import-outside-toplevel
  return summarize


def test_flags_parse(benchmark_module):
  flags = benchmark_module.flags.FLAGS
  with flagsaver.flagsaver():
    flags(["matmul_benchmark", "--impls=tiled,xla", "--dtypes=float16",
           "--shapes=16x8192x8192,7x7x7", "--sweep_tiles", "--iters=5",
           "--nocheck", "--precision=highest", "--json_out=r.json",
           "--sustain_s=2.5", "--rounds=3"])
    assert flags.impls == ["tiled", "xla"]
    assert flags.sustain_s == 2.5 and flags.rounds == 3
    assert flags.dtypes == ["float16"]
    assert [benchmark_module.parse_shape(s) for s in flags.shapes] == [
        (16, 8192, 8192), (7, 7, 7)]
    assert benchmark_module.parse_shape("8x2048x2048x2048") == (8, 2048,
                                                                 2048, 2048)
    assert flags.sweep_tiles and not flags.check and flags.iters == 5
    flags(["matmul_benchmark", "--suite=square", "--suite=ragged"])
    assert flags.suite == ["square", "ragged"]
    with pytest.raises(benchmark_module.flags.IllegalFlagValueError,
                       match="sustain_s"):
      flags(["matmul_benchmark", "--sustain_s=-1"])
    with pytest.raises(benchmark_module.flags.IllegalFlagValueError,
                       match="rounds"):
      flags(["matmul_benchmark", "--rounds=0"])
  assert set(benchmark_module.suites.SUITES) == {
      "square", "llm", "ragged", "batched", "tiny", "wild-tune", "wild-check"}


def test_shards_split_given_shapes_too(benchmark_module):
  """run_wild.sh shards --shapes as it shards a suite: each warm-up worker
  compiles its share, not every shape."""
  flags = benchmark_module.flags.FLAGS
  with flagsaver.flagsaver():
    flags(["matmul_benchmark", "--impls=xla", "--dtypes=float32",
           "--shapes=1x1x1,2x2x2,3x3x3", "--shard=1/2"])
    cases = benchmark_module.build_cases(True, None)
  assert [case[3] for case in cases] == [(2, 2, 2)]


def test_configs_name_mosaic_lowerings(benchmark_module):
  """--configs: Triton labels for Triton, 'lane' / 'warpgroup' for Mosaic's
  default pick in that lowering, 'default' for both."""
  flags = benchmark_module.flags.FLAGS
  with flagsaver.flagsaver():
    flags(["matmul_benchmark", "--impls=tiled", "--dtypes=bfloat16",
           "--backends=mosaic,triton", "--shapes=130x259x96",
           "--configs=default,lane,16x64x32"])
    configs = [(case[1], case[-1])
               for case in benchmark_module.build_cases(True, None)]
  mosaic = [config for backend, config in configs if backend == "mosaic"]
  assert len(mosaic) == 2 and mosaic[1].lowering == "lane"
  assert mosaic[1] == dataclasses.replace(mosaic[0], lowering="lane")
  assert [config.label for backend, config in configs
          if backend == "triton"][1] == "16x64x32/w4/s3"


def test_given_shapes_of_a_suite_keep_its_name(benchmark_module):
  """Shapes re-run from a suite (run_wild.sh --shapes) are labelled with it,
  as its results file holds them; a shape outside it is refused."""
  flags = benchmark_module.flags.FLAGS
  with flagsaver.flagsaver():
    flags(["matmul_benchmark", "--impls=xla", "--dtypes=float32",
           "--suite=tiny", "--suite=ragged", "--shapes=4097x4097x4097"])
    assert {case[2] for case in benchmark_module.build_cases(True, None)} == {
        "ragged"}
  with flagsaver.flagsaver():  # (A second parse would add to --suite.)
    flags(["matmul_benchmark", "--impls=xla", "--dtypes=float32",
           "--suite=tiny", "--shapes=4097x4097x4097"])
    with pytest.raises(benchmark_module.app.UsageError,
                       match="4097x4097x4097 is not in --suite=tiny"):
      benchmark_module.build_cases(True, None)


def test_wild_check_is_never_tuned_on(tmp_path):
  result = _run("--suite=wild-check", tmp_path=tmp_path,
                binary=BINARY.parent / "tune.py")
  assert result.returncode != 0
  assert re.search(r"--suite=wild-check: value should be one of <[^>]*"
                   r"\|wild-tune>", result.stderr), result.stderr


def test_help_lists_the_flags(tmp_path):
  result = _run("--help", tmp_path=tmp_path)  # absl's --help exits with 1.
  for flag in ("impls", "dtypes", "shapes", "suite", "sweep_tiles", "iters",
               "warmup", "sustain_s", "rounds", "json_out", "csv_out",
               "plot_out", "check"):
    assert re.search(rf"--(\[no\])?{flag}:", result.stdout), flag


def test_tiny_run_writes_json_with_every_field(tmp_path):
  out = tmp_path / "tiny.json"
  result = _run("--suite=tiny", f"--json_out={out}", "--iters=2",
                "--warmup=1", "--sustain_s=0.01", tmp_path=tmp_path)
  assert result.returncode == 0, result.stdout + result.stderr
  assert "INTERPRET MODE" in result.stdout
  assert "Expected =" not in result.stderr  # Samples: --verbosity=1 only.
  report = json.loads(out.read_text())
  rows = report["rows"]
  assert {(r["impl"], r["dtype"]) for r in rows} == {
      (impl, dtype) for impl in ("tiled", "naive", "xla")
      for dtype in ("bfloat16", "float32")}
  for row in rows:
    assert set(ROW_FIELDS) <= set(row), set(ROW_FIELDS) - set(row)
    assert row["status"] == "ok" and row["error"] == ""
    assert row["time_us"] > 0 and row["tflops"] > 0
    m, n, k = row["m"], row["n"], row["k"]  # Both operands and the result.
    moved = (m * k + k * n + m * n) * (2 if row["dtype"] == "bfloat16" else 4)
    assert row["gb_per_s"] == pytest.approx(moved / row["time_us"] / 1e3)
    assert row["timing"] == "wall-clock-interpret"
    assert row["sustain_s"] == 0.01
    assert row["rel_error"] <= row["tolerance"]
    assert row["reference"] == "float64-numpy"
    assert len(row["samples"]) == 3
  assert all(r["speedup_vs_xla"] > 0 for r in rows)
  assert report["meta"]["interpret"] is True


def test_mosaic_rows_record_their_kernel_traits(tmp_path):
  """A Mosaic row records the kernel changes its label does not name
  (`plan.kernel_traits`), so that `stale_picks.py` sees a kernel that
  changed under it: here TF32 through registers, a group in flight."""
  out = tmp_path / "mosaic.json"
  result = _run("--impls=tiled", "--backends=mosaic", "--dtypes=float32",
                "--shapes=64x64x256", "--iters=1", "--warmup=0",
                f"--json_out={out}", tmp_path=tmp_path)
  assert result.returncode == 0, result.stdout + result.stderr
  [row] = json.loads(out.read_text())["rows"]
  assert row["status"] == "ok" and row["kernel_traits"] == ["a_in_flight"]


def test_forced_failure_gives_error_row_and_nonzero_exit(tmp_path):
  """interpret=false on a CPU cannot compile: an error row, never a time."""
  out = tmp_path / "fail.json"
  csv_out = tmp_path / "fail.csv"
  result = _run("--interpret=false", "--impls=tiled,xla", "--dtypes=float32",
                "--shapes=32x32x32", f"--json_out={out}",
                f"--csv_out={csv_out}", tmp_path=tmp_path)
  assert result.returncode != 0
  rows = {r["impl"]: r for r in json.loads(out.read_text())["rows"]}
  assert rows["tiled"]["status"] == "error"
  assert "interpret=False" in rows["tiled"]["error"]
  assert rows["tiled"]["time_us"] is None and rows["tiled"]["tflops"] is None
  assert rows["tiled"]["gb_per_s"] is None
  assert rows["xla"]["status"] == "ok"
  assert "error: ValueError" in result.stdout
  assert csv_out.read_text().count("\n") == 3  # Header and two rows.


def test_fwd_bwd_and_batched_rows(tmp_path):
  """fwd_bwd rows check the product and both gradients; a batch shape runs
  one batched call; each row is compared with jnp.matmul doing the same."""
  out = tmp_path / "fwd_bwd.json"
  result = _run("--impls=tiled,tiled_fwd_bwd,xla,xla_fwd_bwd",
                "--dtypes=bfloat16", "--shapes=3x40x24x56,17x9x33",
                f"--json_out={out}", "--iters=2", "--warmup=1",
                "--verbosity=1", tmp_path=tmp_path)
  assert result.returncode == 0, result.stdout + result.stderr
  assert result.stderr.count("Expected =") == 8 * 3  # 3 samples a row.
  rows = {(r["impl"], r["batch"]): r
          for r in json.loads(out.read_text())["rows"]}
  assert len(rows) == 8
  for (impl, _), row in rows.items():
    assert row["status"] == "ok" and row["rel_error"] <= row["tolerance"]
    assert row["speedup_vs_xla"] == 1.0 or not impl.startswith("xla")
  slow = rows[("tiled_fwd_bwd", 3)]
  fast = rows[("tiled", 3)]
  # Three products' flops in fwd_bwd: flops / time stays consistent.
  assert slow["tflops"] * slow["time_us"] == pytest.approx(
      3 * fast["tflops"] * fast["time_us"])


def test_int8_and_complex_rows(tmp_path):
  """int8 rows ask for int32 results and must be exact (tolerance 0);
  complex rows count 8 flops per multiply-add; float64 without x64 is a
  usage error naming the flag."""
  out = tmp_path / "dtypes.json"
  result = _run("--impls=tiled,xla", "--dtypes=int8,complex64",
                "--shapes=17x9x300", f"--json_out={out}", "--iters=1",
                "--warmup=0", tmp_path=tmp_path)
  assert result.returncode == 0, result.stdout + result.stderr
  rows = {(r["impl"], r["dtype"]): r
          for r in json.loads(out.read_text())["rows"]}
  assert len(rows) == 4
  for (_, dtype), row in rows.items():
    assert row["status"] == "ok"
    if dtype == "int8":
      assert row["rel_error"] == row["tolerance"] == 0
  tiled = rows[("tiled", "complex64")]
  assert tiled["tflops"] * tiled["time_us"] * 1e6 == pytest.approx(
      8 * 17 * 9 * 300)
  result = _run("--dtypes=float64", "--shapes=8x8x8", tmp_path=tmp_path)
  assert result.returncode != 0
  assert "JAX_ENABLE_X64=1" in result.stdout + result.stderr


def test_rounds_report_each_cases_median_round(summarize_module, tmp_path):
  """Every round of every case is timed and listed; the row is the median
  round's, and the README table says how it was measured."""
  out = tmp_path / "rounds.json"
  result = _run("--impls=tiled,xla", "--dtypes=float32",
                "--shapes=17x9x33,8x8x8", "--rounds=3", "--iters=2",
                "--warmup=1", f"--json_out={out}", tmp_path=tmp_path)
  assert result.returncode == 0, result.stdout + result.stderr
  report = json.loads(out.read_text())
  assert [(r["impl"], r["m"]) for r in report["rows"]] == [
      ("tiled", 17), ("xla", 17), ("tiled", 8), ("xla", 8)]
  for row in report["rows"]:
    assert len(row["round_us"]) == 3 and min(row["round_us"]) > 0
    assert row["time_us"] == sorted(row["round_us"])[1]
    assert row["tflops"] == pytest.approx(
        2 * row["m"] * row["n"] * row["k"] / row["time_us"] / 1e6)
  assert "median of 3 rounds" in summarize_module.summarize(report)


def test_merge_keeps_the_last_reports_rows_of_a_shape():
  """A re-run of some shapes replaces their rows whole (ours and
  jnp.matmul's, timed together); other shapes keep theirs, in order."""
  import report  # pylint: disable=import-outside-toplevel
  row = lambda impl, m, us, dtype="bfloat16": dict(
      impl=impl, batch=1, m=m, n=8, k=8, dtype=dtype, precision="default",
      time_us=us)
  first = {"meta": {"command": "first"}, "rows": [
      row("tiled", 8, 1.0), row("xla", 8, 2.0), row("tiled", 9, 3.0),
      row("xla", 9, 4.0), row("tiled", 8, 7.0, "float32")]}
  rerun = {"meta": {"command": "rerun"}, "rows": [
      row("tiled", 8, 5.0), row("xla", 8, 6.0)]}
  merged = report.merge_reports([first, rerun])
  assert [(r["m"], r["dtype"], r["time_us"]) for r in merged["rows"]] == [
      (9, "bfloat16", 3.0), (9, "bfloat16", 4.0), (8, "float32", 7.0),
      (8, "bfloat16", 5.0), (8, "bfloat16", 6.0)]
  assert merged["meta"]["command"] == ["first", "rerun"]
  # Merged again, the commands stay one flat list.
  again = report.merge_reports([merged, {"meta": {"command": [["old"]]},
                                         "rows": []}])
  assert again["meta"]["command"] == ["first", "rerun", "old"]


def test_stale_picks_compare_label_and_copies():
  """A row is stale where the model picks another config today, or the
  same config with copies around the kernel added or gone (a layout rule
  moved it under an unchanged label) or another kernel under its label
  (`plan.kernel_traits`), or a float32 row timed before TF32 rounding; a
  float32 matrix-vector product against the rule's vector tile, and a
  tiny product against the Triton heuristic's tile, neither of which the
  model picks."""
  import stale_picks  # pylint: disable=import-outside-toplevel
  from pallas_tiled import cost_model  # pylint: disable=import-outside-toplevel
  from pallas_tiled.mosaic import plan  # pylint: disable=import-outside-toplevel
  from pallas_tiled.triton import heuristics  # pylint: disable=import-outside-toplevel
  kind, shape = "NVIDIA H100 80GB HBM3", (4096, 4096, 4096)
  pick = cost_model.choose_on(kind, 132, *shape, "bfloat16")
  assert pick.backend == "mosaic"
  row = dict(impl="tiled", status="ok", batch=1, m=4096, n=4096, k=4096,
             dtype="bfloat16", device=kind, config_label=pick.label,
             kernels=[["pallas_tiled_mosaic_matmul_mosaic_gpu_kernel", 1.0]])
  assert stale_picks.stale_reason(row, 132) is None
  copied = dict(row, kernels=[["wrapped_transpose", 1.0], *row["kernels"]])
  assert "without copies" in stale_picks.stale_reason(copied, 132)
  other = dict(row, config_label="128x128x64/w4/s4/g16")
  assert "pick " + pick.label in stale_picks.stale_reason(other, 132)
  assert stale_picks.stale_reason(dict(other, impl="xla"), 132) is None
  # A float32 matrix-vector product: a rule gives it vector tiles, the
  # model picks none; a row timed on another config is stale.
  vector = dict(row, m=1, n=4096, k=14336, dtype="float32",
                config_label=heuristics.vector_config(1, 4096, 14336).label)
  assert stale_picks.stale_reason(vector, 132) is None
  dot = dict(vector, config_label="16x64x64/w4/s4/sk16")
  assert "pick " + vector["config_label"] in stale_picks.stale_reason(dot,
                                                                      132)
  # A tiny product, which the model does not price: on the H100 (no shipped
  # table) the Triton heuristic's tile; on the H200 its table may decide.
  tiny_tile = heuristics.default_tiled_config(5, 8, 28, "bfloat16").label
  tiny = dict(row, m=5, n=8, k=28, config_label=tiny_tile, kernels=[])
  assert stale_picks.stale_reason(tiny, 132) is None
  assert "pick " + tiny_tile in stale_picks.stale_reason(
      dict(tiny, config_label="16x64x128/w4/s4"), 132)
  assert stale_picks.stale_reason(dict(tiny, device="NVIDIA H200"),
                                  132) == stale_picks.UNCHECKED
  # float32 timed before TF32 rounding: 2.6x jnp.matmul's error, not 1.6x.
  f32 = cost_model.choose_on(kind, 132, *shape, "float32")
  copies = plan.host_layout(*shape, f32, "float32", "float32").copied_bytes
  traits = plan.kernel_traits(*shape, f32, "float32", "float32")
  assert traits == ("a_in_flight",)  # TF32 through registers, in flight.
  f32_row = dict(row, dtype="float32", config_label=f32.label, kernels=[
      *([["pallas_tiled_relayout", 1.0]] if copies else []), *row["kernels"]],
                 kernel_traits=list(traits))
  for error, stale in ((7.7e-4, True), (4.7e-4, False)):
    reason = stale_picks.stale_reason(dict(f32_row, rel_error=error), 132,
                                      xla_error=2.94e-4)
    assert (reason is not None and "before TF32 rounding" in reason) == stale
  # Triton always rounded: a tiny product XLA computes exactly is not stale.
  tiny_f32 = dict(tiny, dtype="float32", config_label=(
      heuristics.default_tiled_config(5, 8, 28, "float32").label))
  assert stale_picks.stale_reason(dict(tiny_f32, rel_error=3e-4), 132,
                                  xla_error=1e-7) is None
  # The same label timed before its kernel kept a group in flight (a row
  # from before traits were recorded has none).
  for recorded in ([], None):
    reason = stale_picks.stale_reason(
        dict(f32_row, rel_error=4.7e-4, kernel_traits=recorded), 132,
        xla_error=2.94e-4)
    assert "now runs a_in_flight" in reason


def test_moved_picks_pair_only_the_picks_that_changed(tmp_path):
  """Without --base the binary writes this tree's picks; with it, only the
  shapes whose pick differs, old beside new (here the base as if a change
  had moved one pick); picks of another dtype are refused as a base."""
  from pallas_tiled import cost_model  # pylint: disable=import-outside-toplevel
  binary = ROOT / "benchmarks" / "moved_picks.py"
  old, pairs = tmp_path / "old.json", tmp_path / "pairs.json"
  flags = ("--sets=wild-check", "--regime=skinny", "--dtype=float32")
  result = _run(*flags, f"--out={old}", tmp_path=tmp_path, binary=binary)
  assert result.returncode == 0, result.stderr
  picks = json.loads(old.read_text())
  assert picks["rows"] and all(cost_model.regime(*row["shape"][:2])
                               == "skinny" for row in picks["rows"])
  moved = next(row for row in picks["rows"] if row["pick"])
  now = moved["pick"]
  before = ["triton", dataclasses.asdict(pallas_tiled.TileConfig(16, 64, 64))]
  moved.update(pick=before, label="16x64x64/w4/s4-before")
  old.write_text(json.dumps(picks))
  result = _run(*flags, f"--base={old}", f"--out={pairs}", tmp_path=tmp_path,
                binary=binary)
  assert result.returncode == 0, result.stderr
  assert json.loads(pairs.read_text())["pairs"] == [
      {"shape": moved["shape"], "set": "wild-check", "old": before,
       "new": now}]
  result = _run("--dtype=bfloat16", f"--base={old}", f"--out={pairs}",
                tmp_path=tmp_path, binary=binary)
  assert result.returncode != 0 and "--base is for float32" in result.stderr


def test_tools_refuse_another_checkouts_library(monkeypatch):
  """Picks priced, or a table fitted, with another clone's pallas_tiled
  (an editable install found first) would not be this tree's."""
  import checkout  # pylint: disable=import-outside-toplevel
  checkout.require_own_library()  # The tests import this tree's.
  monkeypatch.setattr(pallas_tiled, "__file__",
                      "/elsewhere/pallas_tiled/__init__.py")
  with pytest.raises(RuntimeError, match="not from this checkout"):
    checkout.require_own_library()


def test_time_pairs_checks_then_times_both_picks(tmp_path):
  """Each pair's picks and jnp.matmul are timed (interpreted here, by wall
  clock) once checked; a pick over the tolerance gets no time. In a
  process of its own: the binary's flags would clash with another's."""
  binary = ROOT / "benchmarks" / "time_pairs.py"
  config = lambda *args, **kw: ["triton", dataclasses.asdict(
      pallas_tiled.TileConfig(*args, **kw))]
  pair = {"shape": [8, 64, 128], "set": "tiny", "old": config(16, 32, 32),
          "new": config(16, 64, 32, split_k=2)}
  (tmp_path / "pairs.json").write_text(json.dumps(
      {"dtype": "float32", "device_kind": "NVIDIA H200", "pairs": [pair]}))
  script = tmp_path / "run.py"
  script.write_text(
      "import json, sys\n"
      f"sys.path.insert(0, {str(binary.parent)!r})\n"
      "from absl import flags\n"
      "import jax.numpy as jnp\n"
      "import time_pairs\n"
      "flags.FLAGS(['time_pairs', '--pairs=pairs.json',"
      " '--json_out=rows.json', '--rounds=1', '--iters=1'])\n"
      "time_pairs.main(['time_pairs'])\n"
      "time_pairs.accuracy.tolerance = lambda *args: 0.0  # Every pick fails.\n"
      f"pair = json.loads({json.dumps(pair)!r})\n"
      "print(json.dumps(time_pairs.time_pair(pair, jnp.float32, 1, 1, 0)))\n")
  result = _run(tmp_path=tmp_path, binary=script)
  assert result.returncode == 0, result.stderr
  [row] = json.loads((tmp_path / "rows.json").read_text())["rows"]
  assert row["status"] == "ok" and (row["old"], row["new"]) == (
      "16x32x32/w4/s3", "16x64x32/w4/s3/sk2")
  assert all(row[f"{name}_us"] > 0 for name in ("xla", "old", "new"))
  assert max(row["old_err"], row["new_err"]) < 1e-2
  assert "tiny: 1 pairs; new over old" in result.stdout
  wrong = json.loads(result.stdout.splitlines()[-1])
  assert wrong["status"] == "wrong" and "old_us" not in wrong


def test_speedup_stats_count_checked_rows_of_enough_work(benchmark_module):
  import report  # pylint: disable=import-outside-toplevel
  def row(m, speedup, status="ok", impl="tiled", dtype="bfloat16"):
    return benchmark_module.Row(
        impl=impl, backend="mosaic", suite="wild-check", dtype=dtype,
        batch=1, m=m, n=256, k=256, config=None, config_label="-",
        precision="default", status=status, speedup_vs_xla=speedup)
  rows = [row(256, s) for s in (0.5, 1.0, 2.0, 4.0, 8.0)]
  rows += [row(255, 0.01),  # 255 * 256 * 256 < 2^24: launch-bound.
           row(256, 0.02, status="wrong"), row(256, 0.03, impl="naive"),
           row(256, 1.5, dtype="float32")]
  stats = report.speedup_stats(rows)
  assert stats["bfloat16"]["count"] == 5
  assert stats["bfloat16"]["geomean"] == pytest.approx(2.0)
  assert stats["bfloat16"]["min"] == 0.5
  assert stats["bfloat16"]["p10"] == pytest.approx(0.7)  # Linear, 0.5..1.0.
  assert stats["float32"] == dict(geomean=1.5, p10=1.5, min=1.5, count=1)
  text = report.format_speedup_stats(rows)
  assert "bfloat16, 5 shapes of M*N*K >= 2^24: geomean 2.000x" in text
  # time_pairs.py and fit_cost_model.py quote the same statistics (any
  # order in; p10 interpolated between 0.5 and 1.0).
  assert report.format_ratio_stats([4.0, 0.5, 1.0]) == (
      "1.260x / 0.600x / 0.500x")


def test_decode_bandwidth_stats_count_decode_rows_at_the_target(
    benchmark_module):
  """Issue 27's decode target: rows of M <= 16 at >= 80% of the copy
  bandwidth, counted per impl and dtype over checked rows of enough work."""
  import report  # pylint: disable=import-outside-toplevel
  def row(m, pct, status="ok", impl="tiled", k=4096):
    return benchmark_module.Row(
        impl=impl, backend="triton", suite="wild-check", dtype="bfloat16",
        batch=1, m=m, n=4096, k=k, config=None, config_label="-",
        precision="default", status=status, pct_copy_bandwidth=pct)
  rows = [row(1, 95.0), row(16, 80.0), row(8, 60.0),
          row(17, 10.0),  # Not decode by the target's rule.
          row(1, 10.0, k=16),  # 1 * 4096 * 16 < 2^24: launch-bound.
          row(1, 10.0, status="wrong"), row(1, 50.0, impl="xla")]
  stats = report.decode_bandwidth_stats(rows)
  assert stats == {"bfloat16": dict(count=3, median=80.0, at_target=2)}
  text = report.format_decode_bandwidth_stats(rows)
  assert ("tiled, bfloat16, decode (M <= 16): 2 of 3 shapes at >= 80% of"
          " the copy bandwidth, median 80%") in text
  assert "xla, bfloat16, decode (M <= 16): 0 of 1 shapes" in text


def test_a_failed_round_is_the_result(benchmark_module):
  def run(status, time_us):
    return benchmark_module.Row(
        impl="tiled", backend="triton", suite="shapes", dtype="float32",
        batch=1, m=8, n=8, k=8, config=None, config_label="-",
        precision="default", status=status, time_us=time_us)
  rows = [run("ok", 3.0), run("wrong", 1.0), run("ok", 2.0)]
  assert benchmark_module.median_round(rows).status == "wrong"
  median = benchmark_module.median_round([rows[0], rows[2]])
  assert median.time_us == 2.0 and median.round_us == [3.0, 2.0]


def test_unknown_impl_is_a_usage_error(tmp_path):
  result = _run("--impls=tiled_fwd", "--shapes=8x8x8", tmp_path=tmp_path)
  assert result.returncode != 0
  assert "unknown impl 'tiled_fwd'" in result.stdout + result.stderr


def test_sustained_timing_needs_non_negative_seconds():
  x = jnp.ones((8, 8))
  result = timing.measure(jnp.matmul, x, x, iterations=3, warmup=1,
                          sustain_s=0.01)
  assert result.median_us > 0 and result.iterations == 3
  with pytest.raises(ValueError, match=r"sustain_s=-0\.5: must be"):
    timing.measure(jnp.matmul, x, x, sustain_s=-0.5)


@pytest.mark.parametrize("shape, copies", [
    ((8, 512, 1024), 50),   # Decode: 1 MiB of operands, 50 copies to 50 MiB.
    ((1024, 16, 512), 50),  # Skinny N: 1.02 MiB, 50 copies.
    ((2, 8, 32, 16), 64),   # Tiny: capped at 64 copies.
    ((128, 128, 1024), 1),  # Neither: timed as is.
])
def test_decode_operands_cycle_through_copies(benchmark_module, shape,
                                              copies):
  problem = benchmark_module.Problem(shape, jnp.bfloat16)
  sets = problem.operand_sets(50 * 2**20)
  assert len(sets) == copies
  pointers = {x.unsafe_buffer_pointer() for pair in sets for x in pair}
  assert len(pointers) == 2 * copies  # Each copy in its own buffers.
  for a, b in sets:
    assert (a == problem.a).all() and (b == problem.b).all()


def test_cold_timing_reports_one_products_time(monkeypatch):
  sets = [(jnp.full((4, 8), i + 1.0), jnp.ones((8, 3))) for i in range(3)]
  result = timing.measure_cold(lambda a, b: a @ b, sets, iterations=3,
                               warmup=1)
  assert (result.result == 8.0).all()  # The first set's product.
  # Per product: a call of three products, 300 us, kernels summed by name.
  fake = timing.Timing(300.0, "cupti", 3, [1, 2, 3],
                       (("gemm", 90.0), ("gemm", 90.0), ("gemm", 90.0),
                        ("pad", 30.0)))
  monkeypatch.setattr(timing, "measure", lambda *args, **kwargs: fake)
  result = timing.measure_cold(None, sets)
  assert result.median_us == 100.0 and result.result == 1
  assert result.kernels == (("gemm", 90.0), ("pad", 10.0))


def test_timing_a_function_again_does_not_trace_it_again():
  """`measure_cold` of the same function reuses its jitted wrapper
  (`every_set`), so that time_pairs.py's later rounds time without
  compiling."""
  traces = []
  def f(a, b):
    traces.append(1)
    return a @ b
  sets = [(jnp.ones((4, 8)), jnp.ones((8, 3)))] * 2
  for _ in range(3):
    timing.measure_cold(f, sets, iterations=3, warmup=1)
  assert len(traces) == 2  # Traced once, one product per operand set.


def test_decode_rows_are_held_to_the_copy_bandwidth(benchmark_module):
  row = lambda m, n, gb: benchmark_module.Row(
      "tiled", "triton", "s", "bfloat16", 1, m, n, 64, None, "-", "default",
      gb_per_s=gb)
  rows = [row(8, 4096, 2400.0), row(4096, 16, 1200.0), row(128, 128, 900.0),
          row(1, 64, None)]
  benchmark_module.fill_copy_fractions(rows, 3000.0)
  assert [r.pct_copy_bandwidth for r in rows] == [80.0, 40.0, None, None]


def test_large_float8_products_have_a_device_reference(benchmark_module):
  """Past the float64 NumPy reference's size the benchmark checks against
  jnp.matmul at HIGHEST in float32; float8 promotes with no dtype, and
  reaching float32 through jnp.promote_types failed every such float8 row
  (an H100's wild-check: 6 errors)."""
  a = jnp.ones((8, 16), helpers.FLOAT8)
  ref, what = benchmark_module._device_reference(a, a.T)  # pylint: disable=protected-access
  assert what == "xla-highest-float32" and ref.dtype == jnp.float32
  assert float(ref[0, 0]) == 16.0
