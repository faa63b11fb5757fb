"""What the kernels are built for: the GPU's compute capability, SM count
and shared memory, read from the device where JAX reports them."""

from __future__ import annotations

import jax

# Largest dynamic shared memory one thread block may opt into, in bytes, by
# CUDA compute capability (CUDA C++ Programming Guide, "Compute
# Capabilities"); JAX does not report it.
SHARED_MEMORY_LIMIT_BYTES = {
    (7, 0): 96 * 1024,
    (7, 5): 64 * 1024,
    (8, 0): 163 * 1024,
    (8, 6): 99 * 1024,
    (8, 7): 163 * 1024,
    (8, 9): 99 * 1024,
    (9, 0): 227 * 1024,
    (10, 0): 227 * 1024,
    (12, 0): 99 * 1024,
}
HOPPER = (9, 0)
# Compute capabilities Mosaic GPU compiles the Hopper kernel for.
HOPPER_CAPABILITIES = ((9, 0), (9, 1))
# SMs of an H100 SXM or H200, where the device does not say (the CPU, in
# interpret mode): the heuristics are fitted to them.
FALLBACK_SM_COUNT = 132


def compute_capability() -> tuple[int, int] | None:
  """The default device's CUDA compute capability, or None if unknown."""
  value = getattr(jax.devices()[0], "compute_capability", None)
  if value is None:
    return None
  major, minor = str(value).split(".")[:2]
  return int(major), int(minor)


def is_hopper() -> bool:
  return compute_capability() in HOPPER_CAPABILITIES


def sm_count() -> int:
  """Streaming multiprocessors of the default device (`core_count`), or
  FALLBACK_SM_COUNT where it reports none."""
  return getattr(jax.devices()[0], "core_count", None) or FALLBACK_SM_COUNT


def device_kind() -> str:
  """The default device's name (e.g. "NVIDIA H200"), which keys tuned
  tables."""
  return jax.devices()[0].device_kind
