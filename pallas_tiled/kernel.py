"""What a backend provides (`Kernel`), and the static description of one
product it runs (`Op`), which the batching and autodiff layers pass along."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable, NamedTuple

import jax


class Kernel(NamedTuple):
  """A backend's kernel.

  name: the backend ("triton" or "mosaic"), for logs and benchmark rows.
  product(a, b, *, problem, config, precision, out_dtype, interpret) returns
    (problem.size, M, N) for operands flattened to (batch, rows, cols).
  select_config(m, n, k, dtype, precision, *, out_dtype, auto) picks the
    kernel's config.
  """

  name: str
  product: Callable[..., jax.Array]
  select_config: Callable[..., Any]


# Jits a Kernel's product: everything but the two operands is static.
jit_product = functools.partial(
    jax.jit, static_argnames=("problem", "config", "precision", "out_dtype",
                              "interpret"))


@dataclasses.dataclass(frozen=True)
class Op:
  """Everything static about one product: hashable, a primitive's param."""

  kernel: Kernel
  config: Any  # The kernel's config class; None and "auto" select one.
  precision: Any
  out_dtype: Any
  interpret: bool | None  # None: per lowering platform (platforms.py).
  transpose_a: bool = False  # a is stored (..., K, M).
  transpose_b: bool = False  # b is stored (..., N, K).

  def __repr__(self) -> str:
    """Short, for jaxprs: the kernel by name, the layouts as "nn".."tt"."""
    layouts = "".join("t" if t else "n"
                      for t in (self.transpose_a, self.transpose_b))
    return (f"Op({self.kernel.name}, {layouts}, config={self.config},"
            f" precision={self.precision}, out_dtype={self.out_dtype},"
            f" interpret={self.interpret})")

  def transposed(self, transpose_a: bool, transpose_b: bool) -> Op:
    """This op for a backward product in the given layouts, on the same
    kernel, with a config selected for its own shape (an explicit config
    was chosen for the forward)."""
    return dataclasses.replace(
        self, config="auto" if self.config == "auto" else None,
        transpose_a=transpose_a, transpose_b=transpose_b)
