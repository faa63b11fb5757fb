"""Complex matmuls as three real products of our kernels (Gauss's trick).

With a = ar + i·ai and b = br + i·bi:

    t1 = ar·br,  t2 = ai·bi,  t3 = (ar + ai)·(br + bi)
    a·b = (t1 − t2) + i·(t3 − t1 − t2)

three real matmuls where the schoolbook form takes four (cuBLAS's cgemm3m
does the same), at the price of `t3`'s larger terms: the imaginary part's
rounding errors grow with |ar + ai|·|br + bi| <= 2·|a|·|b| (accuracy.py
allows for it). Each real product goes through `autodiff.matmul`, so
reverse mode is the composition's, on our kernels.
"""

from __future__ import annotations

from jax import lax
import jax.numpy as jnp

from pallas_tiled import autodiff
from pallas_tiled import dtypes
from pallas_tiled import kernel as kernel_lib


def real_call(call):
  """The call each real product of `call` makes: itself unless complex,
  else in the parts' dtypes (complex64: float32)."""
  return call._replace(dtype=dtypes.real_dtype(call.dtype),
                       out_dtype=dtypes.real_dtype(call.out_dtype))


def matmul(kernel: kernel_lib.Kernel, a, b, call, config):
  """`a @ b` with `kernel` for a checked call; complex calls run as three
  real products."""
  if call.dtype not in dtypes.COMPLEX_DTYPES:
    return autodiff.matmul(kernel, a, b, call, config)
  product = lambda x, y: autodiff.matmul(kernel, x, y, real_call(call),
                                         config)
  a, b = jnp.asarray(a), jnp.asarray(b)
  t1 = product(a.real, b.real)
  t2 = product(a.imag, b.imag)
  t3 = product(a.real + a.imag, b.real + b.imag)
  return lax.complex(t1 - t2, t3 - t1 - t2)
