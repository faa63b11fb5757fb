"""The fuzzer: a small CPU run end to end, and that its checker can fail.

The binary runs in a subprocess with JAX_PLATFORMS=cpu (interpret mode on
every machine), on the Triton backend only: Mosaic GPU's interpreter takes
seconds a call.
"""

import functools
import json
import os
import pathlib
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import pallas_tiled
from pallas_tiled import accuracy

ROOT = pathlib.Path(__file__).resolve().parent.parent
BINARY = ROOT / "benchmarks" / "fuzz.py"
sys.path.insert(0, str(BINARY.parent))  # The binary's modules, for fixtures.


@pytest.fixture(scope="module")
def fuzz():
  import fuzzing as module  # pylint: disable=import-outside-toplevel
  return module


def test_small_run_passes_and_writes_json(tmp_path):
  env = dict(os.environ, JAX_PLATFORMS="cpu",
             PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
  out = tmp_path / "fuzz.json"
  result = subprocess.run(
      [sys.executable, str(BINARY), "--cases=8", "--max_dim=48",
       "--seed=7", "--backends=auto,triton", f"--json_out={out}"],
      cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
  assert result.returncode == 0, result.stdout + result.stderr[-3000:]
  assert result.stdout.startswith("seed: 7\n")
  assert "8 cases: " in result.stdout
  report = json.loads(out.read_text())
  counts = report["counts"]
  assert counts["cases"] == 8
  assert sum(counts[s] for s in ("passed", "rejected", "wrong",
                                 "crashed")) == 8
  assert counts["passed"] > 0 and report["failures"] == []
  assert report["meta"]["seed"] == 7
  assert report["meta"]["flags"]["backends"] == ["auto", "triton"]


def test_self_test_passes(fuzz):
  fuzz.self_test(seed=3)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float8_e4m3fn"])
def test_check_catches_one_wrong_element(fuzz, dtype):
  """An element off by 1% of |A||B| (2 eps for float8) fails the check."""
  rng = np.random.default_rng(0)
  dtype = jnp.dtype(dtype)
  a = jnp.asarray(rng.standard_normal((8, 256)), dtype)
  b = jnp.asarray(rng.standard_normal((256, 8)), dtype)
  a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
  ref, abs_prod = a64 @ b64, np.abs(a64) @ np.abs(b64)
  out = np.asarray(ref, np.float32)
  kwargs = dict(ref=ref, abs_prod=abs_prod, k=256, dtype=dtype,
                highest=False)
  assert fuzz.check_close("out", jnp.asarray(out, dtype), **kwargs) is None
  out[3, 5] += fuzz.wrong_by(dtype) * abs_prod[3, 5]
  reason = fuzz.check_close("out", jnp.asarray(out, dtype), **kwargs)
  assert reason and "(3, 5)" in reason


def test_refusals_by_design(fuzz):
  """A config for the other backend is refused by design."""
  case = dict(backend="mosaic", config=dict(type="TileConfig"))
  assert "TileConfig" in fuzz.expected_refusal(case, interpret=True)
  case = dict(backend="auto", config=None)
  assert fuzz.expected_refusal(case, interpret=True) is None


@pytest.fixture
def unfiltered_tracebacks():
  """What fuzz.py runs with: JAX's frames kept in tracebacks."""
  before = jax.config.jax_traceback_filtering
  jax.config.update("jax_traceback_filtering", "off")
  yield
  jax.config.update("jax_traceback_filtering", before)


@pytest.mark.usefixtures("unfiltered_tracebacks")
def test_refusal_kind(fuzz):
  """A pallas_tiled check's error is a refusal, called directly or through
  the poisoning harness (its jax.eval_shape and jit frames are the
  caller's, not the library's); an error from JAX is not."""
  a, b = jnp.ones((2, 3)), jnp.ones((4, 5))
  for call in (pallas_tiled.matmul, functools.partial(
      accuracy.call_with_poisoned_output, pallas_tiled.matmul)):
    with pytest.raises(ValueError) as refused:
      call(a, b)
    assert fuzz.refusal_kind(refused.value) == "early"
  with pytest.raises(TypeError) as crashed:
    jnp.ones((2, 3)).reshape(7)
  assert fuzz.refusal_kind(crashed.value) is None
