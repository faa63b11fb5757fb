"""What the kernels are built for: the GPU's compute capability, SM count
and shared memory, read from the device where JAX reports them.

The device is the one the operands live on (`building_for`, set by
`matmul` for concrete arrays and by the partitioner for each mesh's
devices), else JAX's default device: under `jax.jit` the operands are
tracers, which carry no device.
"""

from __future__ import annotations

import contextlib
import contextvars

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


_TARGET = contextvars.ContextVar("pallas_tiled_target_device", default=None)


def devices_of(*arrays) -> tuple[jax.Device, ...]:
  """The devices concrete arrays among `arrays` live on; none for tracers."""
  return tuple(dict.fromkeys(
      d for x in arrays
      if isinstance(x, jax.Array) and not isinstance(x, jax.core.Tracer)
      for d in x.sharding.device_set))


@contextlib.contextmanager
def building_for(devices):
  """Builds kernels for `devices` inside the block (no change if empty).

  One kernel runs on all of them, so they must be of one kind."""
  devices = tuple(devices)
  kinds = sorted({d.device_kind for d in devices})
  if len(kinds) > 1:
    raise ValueError(
        f"The operands live on devices of kinds {kinds}; one kernel is built"
        " for one kind of device.")
  token = _TARGET.set(devices[0]) if devices else None
  try:
    yield
  finally:
    if token is not None:
      _TARGET.reset(token)


def target() -> jax.Device:
  """The device kernels are built for now: the operands' (`building_for`),
  else JAX's default device (`jax.default_device`, else the first)."""
  target_device = _TARGET.get() or jax.config.jax_default_device
  if isinstance(target_device, jax.Device):
    return target_device
  return jax.devices(target_device)[0]  # None or a platform name.


def compute_capability() -> tuple[int, int] | None:
  """The target device's CUDA compute capability, or None if unknown."""
  value = getattr(target(), "compute_capability", None)
  if value is None:
    return None
  major, minor = str(value).split(".")[:2]
  return int(major), int(minor)


def is_hopper() -> bool:
  return compute_capability() in HOPPER_CAPABILITIES


def sm_count() -> int:
  """Streaming multiprocessors of the target device (`core_count`), or
  FALLBACK_SM_COUNT where it reports none."""
  return getattr(target(), "core_count", None) or FALLBACK_SM_COUNT


def device_kind() -> str:
  """The target device's name (e.g. "NVIDIA H200"), which keys tuned
  tables."""
  return target().device_kind
