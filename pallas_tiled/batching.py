"""jnp.matmul's batch semantics, mapped onto one batch axis of the grid.

Leading dimensions of the operands are batch dimensions that broadcast
against each other as in NumPy. The kernels see each operand flattened to
(batch, rows, cols) without copies (a reshape of a contiguous array is free)
and a grid with one axis over the flattened output batch; the BlockSpec index
maps below turn that axis back into each operand's own batch index, so a
broadcast operand is read in place, never materialized.
"""

from __future__ import annotations

import dataclasses
import math


def broadcast_batch(a_batch: tuple[int, ...],
                    b_batch: tuple[int, ...]) -> tuple[int, ...] | None:
  """NumPy broadcasting of two batch shapes; None when they do not broadcast."""
  rank = max(len(a_batch), len(b_batch))
  a_batch = (1,) * (rank - len(a_batch)) + tuple(a_batch)
  b_batch = (1,) * (rank - len(b_batch)) + tuple(b_batch)
  out = []
  for x, y in zip(a_batch, b_batch):
    if x != y and 1 not in (x, y):
      return None
    out.append(y if x == 1 else x)
  return tuple(out)


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
    batch = broadcast_batch(a_shape[:-2], b_shape[:-2])
    if batch is None:
      raise ValueError(f"batch dimensions of {a_shape} and {b_shape} do not"
                       " broadcast.")
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
