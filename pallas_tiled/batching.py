"""jnp.matmul's batch semantics, mapped onto one batch axis of the grid.

Leading dimensions of the operands are batch dimensions that broadcast
against each other as in NumPy. The kernels see each operand flattened to
(batch, rows, cols) without copies (a reshape of a contiguous array is free)
and a grid with one axis over the flattened output batch; the BlockSpec index
maps turn that axis back into each operand's own batch index
(`BatchedProblem`), so a broadcast operand is read in place, never
materialized. `jax.vmap` adds one more batch dimension (`vmap_rule`).
"""

from __future__ import annotations

import dataclasses
import functools
import math

import jax
import jax.numpy as jnp

from pallas_tiled import kernel as kernel_lib
from pallas_tiled import sharding
from pallas_tiled import validation


def _flat_index(g, out_batch, operand_batch):
  """The operand's flattened batch index for the output's flattened index g.

  Unravels g over `out_batch` and re-ravels over `operand_batch` (same rank),
  where a size-1 (broadcast) dimension always contributes index 0.
  """
  if operand_batch == out_batch:
    return g
  index, stride = 0, 1
  for out_size, size in zip(reversed(out_batch), reversed(operand_batch)):
    if size != 1:
      index += (g % out_size) * stride
    g //= out_size
    stride *= size
  return index


@dataclasses.dataclass(frozen=True)
class BatchedProblem:
  """One batched product, as the kernels see it (all fields static).

  `out = op(a) @ op(b)` for each of `size` output batch elements, where
  op(a) is (m, k) and op(b) is (k, n). With `transpose_a` the operand a is
  stored (k, m), with `transpose_b` b is stored (n, k); the kernels read
  those layouts through their BlockSpecs instead of copying.
  """

  batch: tuple[int, ...]
  a_batch: tuple[int, ...]  # Same rank as `batch`; size 1 where broadcast.
  b_batch: tuple[int, ...]
  m: int
  n: int
  k: int
  transpose_a: bool = False
  transpose_b: bool = False

  @classmethod
  def from_shapes(cls, a_shape, b_shape, *, transpose_a=False,
                  transpose_b=False) -> BatchedProblem:
    """The problem for operands of these (checked, rank >= 2) shapes."""
    m, k = a_shape[-2:][::-1] if transpose_a else a_shape[-2:]
    n = b_shape[-2] if transpose_b else b_shape[-1]
    batch = jnp.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    pad = lambda s: (1,) * (len(batch) - len(s)) + tuple(s)
    return cls(batch, pad(a_shape[:-2]), pad(b_shape[:-2]), m, n, k,
               transpose_a, transpose_b)

  def transposed(self) -> BatchedProblem:
    """The problem of out^T = op(b)^T @ op(a)^T, whose operands are b and a
    as stored."""
    return dataclasses.replace(
        self, a_batch=self.b_batch, b_batch=self.a_batch, m=self.n, n=self.m,
        transpose_a=not self.transpose_b, transpose_b=not self.transpose_a)

  @property
  def size(self) -> int:
    """The number of output matrices: the length of the batch grid axis."""
    return math.prod(self.batch)

  def a_index(self, g):
    """Index into a's flattened batch for output batch element g."""
    return _flat_index(g, self.batch, self.a_batch)

  def b_index(self, g):
    """Index into b's flattened batch for output batch element g."""
    return _flat_index(g, self.batch, self.b_batch)


def selection_shape(problem: BatchedProblem) -> tuple[int, int, int]:
  """The (M, N, K) a batched problem's config is picked for.

  Tiles are chosen for the rows of all batch elements together, which decide
  how many programs there are, unless the matrices are skinny (M < 64).
  With a symbolic dimension, M itself (the kernels pick a fixed config).
  """
  if validation.is_symbolic(problem.m, *problem.batch):
    return problem.m, problem.n, problem.k
  rows = problem.m * (problem.size if problem.m >= 64 else 1)
  return rows, problem.n, problem.k


def _check_symbolic(problem: BatchedProblem, interpret: bool) -> None:
  """Raises ValueError for symbolic dimensions the kernels cannot take: K
  (a backward product's K is the forward's M or N), or any, compiled."""
  validation.check_static_k(problem.k)
  if not interpret:
    dims = validation.symbolic_dims_text(problem.m, problem.n, problem.k,
                                         problem.batch)
    raise ValueError(
        "pallas_tiled compiles GPU kernels for static shapes only, but this"
        f" product has symbolic dimensions ({dims}): Pallas' Triton"
        " lowering has no dynamic grid bounds. Export symbolic shapes for"
        " platforms=('cpu',) (interpret mode), or concrete shapes for"
        " 'cuda'.")


def launch(a, b, op: kernel_lib.Op) -> jax.Array:
  """One kernel launch for (..., M, K) @ (..., K, N) in op's layouts."""
  problem = BatchedProblem.from_shapes(
      a.shape, b.shape, transpose_a=op.transpose_a,
      transpose_b=op.transpose_b)
  out_shape = (*problem.batch, problem.m, problem.n)
  if 0 in (problem.size, problem.m, problem.n, problem.k):
    return jnp.zeros(out_shape, op.out_dtype)
  symbolic = validation.is_symbolic(*problem.batch, problem.m, problem.n,
                                    problem.k)
  if (not symbolic and problem.size > 1 and math.prod(problem.b_batch) == 1
      and problem.a_batch == problem.batch and not op.transpose_a
      and problem.size * problem.m <= validation.MAX_KERNEL_DIM):
    # Every batch element shares b: fold the batch into a's rows, one
    # (batch * M, K) @ (K, N) product with larger tiles (while the rows
    # stay within the kernels' 32-bit indices).
    a = a.reshape(-1, problem.k)
    problem = BatchedProblem.from_shapes(
        a.shape, b.shape[-2:], transpose_b=op.transpose_b)
  if symbolic:
    _check_symbolic(problem, op.interpret)
  config = op.config
  if config is None or config == "auto":
    config = op.kernel.select_config(*selection_shape(problem), a.dtype,
                                     op.precision, out_dtype=op.out_dtype,
                                     auto=config == "auto")
  out = op.kernel.product(
      a.reshape(-1, *a.shape[-2:]), b.reshape(-1, *b.shape[-2:]),
      problem=problem, config=config, precision=op.precision,
      out_dtype=op.out_dtype, interpret=op.interpret)
  return out.reshape(out_shape)


def vmap_rule(product, args, dims, *, op):
  """The product primitive's jax.vmap rule: the mapped axis becomes one
  more batch dimension, in front (batch dimensions align from the right, so
  it must sit left of every per-example one: the operand with fewer gets
  unit dimensions behind it)."""
  a, b = (x if d is None else jnp.moveaxis(x, d, 0)
          for x, d in zip(args, dims))
  in_batched = [d is not None for d in dims]
  rank = max(x.ndim - batched for x, batched in zip((a, b), in_batched))
  a, b = (x.reshape(x.shape[0], *(1,) * (rank + 1 - x.ndim), *x.shape[1:])
          if batched else x for x, batched in zip((a, b), in_batched))
  return product(a, b, op), 0


@functools.cache
def _local_launch(op: kernel_lib.Op):
  return functools.partial(launch, op=op)


def partitioned_launch(a, b, op: kernel_lib.Op) -> jax.Array:
  """`launch`, partitioned over the operands' shardings under jax.jit like
  jnp.matmul (`sharding.launch`): each device runs the kernel on its block."""
  return sharding.launch(_local_launch(op), a, b, transpose_a=op.transpose_a,
                         transpose_b=op.transpose_b)
