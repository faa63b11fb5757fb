import importlib.util
import os
import secrets

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
if not _HAS_CUDA_PLUGIN:
  os.environ["XLA_FLAGS"] = " ".join(filter(None, (
      os.environ.get("XLA_FLAGS"), "--xla_backend_optimization_level=0",
      "--xla_llvm_disable_expensive_passes=true",
      "--xla_force_host_platform_device_count=8")))


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
