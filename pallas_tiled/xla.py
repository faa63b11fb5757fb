"""jnp.matmul behind the shared signature, so tests and benchmarks loop over it."""

from __future__ import annotations

import jax.numpy as jnp

from pallas_tiled import validation


def xla_matmul(a, b, config=None, *, precision=None,
               preferred_element_type=None, interpret=None):
  """`jnp.matmul(a, b)` (XLA, cuBLAS on GPU) after the same input checks.

  `config` and `interpret` are accepted for signature compatibility and must
  be None: XLA picks its own tiles and always compiles.
  """
  call = validation.check_matmul_call(
      a, b, precision=precision,
      preferred_element_type=preferred_element_type)
  for name, value in (("config", config), ("interpret", interpret)):
    if value is not None:
      raise ValueError(f"xla_matmul takes no {name}, got {name}={value!r}.")
  return jnp.matmul(a, b, precision=call.precision,
                    preferred_element_type=preferred_element_type)
