import collections
import importlib.metadata
import importlib.util
import inspect
import os
import secrets
import threading

import numpy as np
import pytest

# Without a CUDA plugin the suite runs in interpret mode, where XLA compiles
# large CPU programs to run tiny shapes once: skipping its LLVM optimizations
# makes the CPU suite about a quarter faster (4m24s -> 3m20s on 2 cores).
# Eight host devices give tests/test_sharding.py its meshes (on a GPU it
# uses a mesh of the one GPU). Read by XLA when jax first starts a backend,
# so it is set here, before any test module imports jax.
_HAS_CUDA_PLUGIN = any(importlib.util.find_spec(f"jax_cuda{v}_plugin")
                       for v in (12, 13))
# XLA's elemental CPU fusion emitters compile the interpreter's many small
# programs faster than its MLIR ones. XLA aborts on a flag it does not know,
# so this one is set only where it is known to exist (jaxlib 0.10, as CI).
_FUSION_EMITTERS_OFF = ("--xla_cpu_use_fusion_emitters=false"
                        if importlib.metadata.version("jaxlib").startswith(
                            "0.10.") else None)
if not _HAS_CUDA_PLUGIN:
  os.environ["XLA_FLAGS"] = " ".join(filter(None, (
      os.environ.get("XLA_FLAGS"), "--xla_backend_optimization_level=0",
      "--xla_llvm_disable_expensive_passes=true", _FUSION_EMITTERS_OFF,
      "--xla_force_host_platform_device_count=8")))


def _mosaic_interpreter_thread_map():
  """jax 0.10.2's `thread_map` module, which runs the Mosaic GPU
  interpreter's threads, or None where it is not the one known here."""
  try:
    from jax._src.pallas.mosaic.interpret import thread_map  # pylint: disable=g-import-not-at-top
  except ImportError:
    return None
  run = getattr(thread_map, "_run_jaxpr", None)
  if run is None or list(inspect.signature(run).parameters) != [
      "jaxpr", "consts", "args"]:
    return None
  return thread_map


def _run_jaxpr_compiled_once():
  """`thread_map._run_jaxpr`, compiling each jaxpr once for all its threads.

  The original traces, lowers and compiles the thread's jaxpr on every
  call, for each thread: each of a CTA's three warpgroups, each CTA, each
  run of the kernel (~0.5 s of CPU apiece). The program is the same for
  all of them: the thread index is a runtime argument.
  """
  import jax  # pylint: disable=g-import-not-at-top
  from jax import core as jax_core  # pylint: disable=g-import-not-at-top

  lock = threading.Lock()
  compiled = collections.OrderedDict()  # Key: [jaxpr, lock, executable].

  def run_jaxpr(jaxpr, consts, *args):
    # An entry holds its jaxpr, so that id(jaxpr) is not reused meanwhile.
    key = (id(jaxpr), tuple(jax.typeof(x) for x in (*consts, *args)))
    with lock:
      entry = compiled.setdefault(key, [jaxpr, threading.Lock(), None])
      compiled.move_to_end(key)
      while len(compiled) > 32:
        compiled.popitem(last=False)
    with entry[1]:  # The first thread compiles; the others wait for it.
      if entry[2] is None:
        def _run(jaxpr, consts, *args):
          jax_core.eval_jaxpr(jaxpr, consts, *args)
        entry[2] = jax.jit(_run, static_argnums=(0,)).trace(
            jaxpr, consts, *args).lower().compile()
    entry[2](consts, *args)

  return run_jaxpr


@pytest.fixture(scope="session", autouse=True)
def _interpreted_threads_share_programs():
  """Mosaic GPU's interpreter, in the CPU suite, compiles a kernel's thread
  program once, not for each simulated thread of each run: its kernel tests
  take about a fifth less time. Every thread still runs it, as before."""
  thread_map = None if _HAS_CUDA_PLUGIN else _mosaic_interpreter_thread_map()
  if thread_map is None:
    yield
    return
  with pytest.MonkeyPatch.context() as patch:
    patch.setattr(thread_map, "_run_jaxpr", _run_jaxpr_compiled_once())
    yield


@pytest.hookimpl(optionalhook=True)  # Known only with pytest-xdist.
def pytest_xdist_auto_num_workers(config):
  """`-n auto`: one worker per core on a CPU, where interpret mode compiles
  (2 cores: 189 s against 250 s in one process); none with a GPU, which one
  process owns (each would preallocate most of its memory)."""
  del config
  return 0 if _HAS_CUDA_PLUGIN else None  # None: xdist's own count.


@pytest.fixture
def rng():
  """A freshly seeded generator; the seed is printed to reproduce a failure."""
  seed = secrets.randbits(32)
  print(f"numpy seed: {seed}")
  return np.random.default_rng(seed)
