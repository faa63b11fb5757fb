import importlib.util
import os
import secrets

import numpy as np
import pytest

# Without a CUDA plugin the suite runs in interpret mode, where XLA compiles
# large CPU programs to run tiny shapes once: skipping its LLVM optimizations
# makes the CPU suite about a quarter faster (4m24s -> 3m20s on 2 cores).
# Read by XLA when jax first starts a backend, so it is set here, before any
# test module imports jax.
if not any(importlib.util.find_spec(f"jax_cuda{v}_plugin") for v in (12, 13)):
  os.environ["XLA_FLAGS"] = " ".join(filter(None, (
      os.environ.get("XLA_FLAGS"), "--xla_backend_optimization_level=0",
      "--xla_llvm_disable_expensive_passes=true")))


@pytest.fixture
def rng():
  """A freshly seeded generator; the seed is printed to reproduce a failure."""
  seed = secrets.randbits(32)
  print(f"numpy seed: {seed}")
  return np.random.default_rng(seed)
