"""jax.export of matmul: one module for the CPU and CUDA exported from any
host, and symbolic dimensions (shape polymorphism) in interpret mode."""

import jax
from jax import export
import jax.numpy as jnp
import numpy as np
import pytest

import pallas_tiled
from tests import helpers

# Pallas' Triton kernels are custom calls without JAX's compatibility
# guarantee: exporting them is an explicit choice.
TRITON_CALL = "__gpu$xla.gpu.triton"
DISABLED_CHECKS = [export.DisabledSafetyCheck.custom_call(TRITON_CALL)]


def _highest(a, b):
  """On Triton whatever the host (a GPU host's tuned table may pick Mosaic
  GPU, whose custom call is another)."""
  return pallas_tiled.matmul(a, b, backend="triton", precision="highest")


def _export(fn, *args, platforms):
  return export.export(jax.jit(fn), platforms=platforms,
                       disabled_checks=DISABLED_CHECKS)(*args)


def _on_cpu(fn, *args):
  """Runs `fn` on the CPU device, which a GPU host has too."""
  cpu = jax.devices("cpu")[0]
  with jax.default_device(cpu):
    return fn(*(jax.device_put(x, cpu) for x in args))


def test_cpu_and_cuda_export_holds_the_gpu_kernel_for_cuda(rng):
  """Lowered per platform: CUDA gets the compiled kernel (its custom call,
  no interpreter loop), the CPU the interpreter, in one module; called
  here, it gives the product."""
  a, b = helpers.random_operands(rng, 33, 17, 65, jnp.float32)
  both = _export(_highest, a, b, platforms=("cpu", "cuda"))
  cuda = _export(_highest, a, b, platforms=("cuda",)).mlir_module()
  cpu = _export(_highest, a, b, platforms=("cpu",)).mlir_module()
  assert TRITON_CALL in both.mlir_module()
  assert cuda.count(TRITON_CALL) == 1 and "stablehlo.while" not in cuda
  assert TRITON_CALL not in cpu and "stablehlo.while" in cpu
  helpers.assert_matmul_close(both.call(a, b), a, b, precision="highest")
  helpers.assert_matmul_close(_on_cpu(both.call, a, b), a, b,
                              precision="highest")


def test_cuda_export_of_a_gradient_runs_three_kernels(rng):
  """Forward and backward (dA = dC·Bᵀ, dB = Aᵀ·dC): three kernel calls and
  no XLA dot in the CUDA module."""
  a, b = helpers.random_operands(rng, 33, 17, 65, jnp.bfloat16)
  loss = lambda a, b: (pallas_tiled.matmul(a, b, backend="triton").astype(
      jnp.float32) ** 2).sum()
  module = _export(jax.grad(loss, (0, 1)), a, b,
                   platforms=("cuda",)).mlir_module()
  assert module.count(f"custom_call @{TRITON_CALL}") == 3
  assert "stablehlo.dot_general" not in module


M, N, BATCH = export.symbolic_shape("m, n, batch")
# (symbolic shapes of a and b, concrete shapes to call the export with)
SYMBOLIC_CASES = {
    "m_n": (((M, 40), (40, N)), ((70, 40), (40, 9))),
    "batch_m": (((BATCH, M, 40), (40, 24)), ((3, 5, 40), (40, 24))),
    "batch_vector": (((BATCH, 8, 40), (40,)), ((2, 8, 40), (40,))),
}


@pytest.mark.parametrize("case", list(SYMBOLIC_CASES))
def test_symbolic_dims_export_for_the_cpu(case, rng):
  """Symbolic M, N and batch sizes: a fixed config, the grid in symbolic
  sizes; one export serves every size."""
  specs, concrete = SYMBOLIC_CASES[case]
  exported = _export(
      _highest, *(jax.ShapeDtypeStruct(s, jnp.float32) for s in specs),
      platforms=("cpu",))
  a, b = (helpers.random_array(rng, s, jnp.float32) for s in concrete)
  out = _on_cpu(exported.call, a, b)
  assert out.shape == np.matmul(a, b).shape
  helpers.assert_matmul_close(out, a, b, precision="highest")


def test_symbolic_batch_exports_its_gradient(rng):
  """A gradient contracts over the batch and M (dB = Aᵀ·dC): with a
  symbolic batch and a static M, per-batch products summed."""
  loss = lambda a, b: jnp.tanh(_highest(a, b)).sum()
  ref_loss = lambda a, b: jnp.tanh(jnp.matmul(a, b, precision="highest")).sum()
  exported = _export(
      jax.grad(loss, (0, 1)), jax.ShapeDtypeStruct((BATCH, 8, 40), jnp.float32),
      jax.ShapeDtypeStruct((40, 24), jnp.float32), platforms=("cpu",))
  a = helpers.random_array(rng, (3, 8, 40), jnp.float32)
  b = helpers.random_array(rng, (40, 24), jnp.float32)
  for grad, ref in zip(_on_cpu(exported.call, a, b),
                       jax.grad(ref_loss, (0, 1))(a, b)):
    np.testing.assert_allclose(grad, ref, rtol=1e-5,
                               atol=1e-5 * float(jnp.abs(ref).max()))


@pytest.mark.parametrize("specs, platforms, words", [
    (((M, 40), (40, N)), ("cuda",), ["static shapes only", "M=m, N=n"]),
    (((8, M), (M, 4)), ("cpu",), ["K=m is symbolic"]),
], ids=["compiled", "symbolic-k"])
def test_unsupported_symbolic_dims_raise_clearly(specs, platforms, words):
  args = (jax.ShapeDtypeStruct(s, jnp.float32) for s in specs)
  with pytest.raises(ValueError) as info:
    _export(pallas_tiled.matmul, *args, platforms=platforms)
  for word in words:
    assert word in str(info.value)


def test_mosaic_refuses_symbolic_dims():
  spec = jax.ShapeDtypeStruct((M, 64), jnp.bfloat16)
  with pytest.raises(ValueError, match="backend='mosaic' needs static"):
    export.export(jax.jit(helpers.mosaic_matmul), platforms=("cpu",))(
        spec, jax.ShapeDtypeStruct((64, 64), jnp.bfloat16))
