import secrets

import numpy as np
import pytest


@pytest.fixture
def rng():
  """A freshly seeded generator; the seed is printed to reproduce a failure."""
  seed = secrets.randbits(32)
  print(f"numpy seed: {seed}")
  return np.random.default_rng(seed)
