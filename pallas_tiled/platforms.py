"""Interpreted on the CPU, compiled on a GPU: decided per lowering platform.

With `interpret=None` (Op.interpret None) the product's primitive lowers
the Pallas kernel in interpret mode for "cpu" and compiled for "cuda" and
"rocm". The choice is made when JAX lowers for a platform, not when it
traces, so one `jax.export(..., platforms=("cpu", "cuda"))` from a CPU host
holds the interpreter loop for the CPU and the GPU kernel's custom call for
CUDA. (`lax.platform_dependent` cannot do this: its branches are lowered
for every platform of the export, and a compiled pallas_call refuses the
CPU.) An explicit interpret=True or False holds on every platform.

A primitive declares its effects when traced: Mosaic GPU's interpreter
orders its callbacks (an ordered IO effect), so a product that the host
interprets declares what its launch has (`host_effects`). A GPU host
declares none for interpret=None: its compiled kernels have none, and an
ordered effect would serialize every call; so exporting a Mosaic GPU
product for the CPU from a GPU host is not supported (Triton's interpreter
has no effects).
"""

from __future__ import annotations

import dataclasses
import functools

import jax
from jax.interpreters import mlir

# Whether Pallas interprets the kernel, by lowering platform, for
# Op.interpret None.
INTERPRET_ON = {"cpu": True, "cuda": False, "rocm": False}


def resolved(op, platform: str):
  """`op` with interpret fixed for `platform` where it was left to it."""
  if op.interpret is not None:
    return op
  return dataclasses.replace(op, interpret=INTERPRET_ON[platform])


def _launch_on(launch, platform, a, b, *, op):
  return launch(a, b, resolved(op, platform))


def register_lowerings(primitive, launch) -> None:
  """Lowers `primitive` by tracing `launch(a, b, op)` for each platform."""
  for platform in INTERPRET_ON:
    mlir.register_lowering(
        primitive,
        mlir.lower_fun(functools.partial(_launch_on, launch, platform),
                       multiple_results=False),
        platform=platform)


@functools.lru_cache(maxsize=256)
def host_effects(launch, a, b, op):
  """The effects of `launch(a, b, op)` (abstract operands) as the host's
  default backend runs it: those of the interpreter, or none compiled."""
  host_interprets = jax.default_backend() == "cpu"
  if op.interpret is False or (op.interpret is None and not host_interprets):
    return frozenset()
  fn = functools.partial(launch, op=resolved(op, "cpu"))
  return frozenset(jax.make_jaxpr(fn)(a, b).effects)


def eager_impl(launch):
  """The primitive's eager evaluation, on JAX's default backend ("cpu", or
  "gpu" for CUDA and ROCm)."""
  return lambda a, b, *, op: _launch_on(
      launch, "cpu" if jax.default_backend() == "cpu" else "cuda", a, b,
      op=op)
