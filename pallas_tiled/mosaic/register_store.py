"""The Mosaic kernel's store for outputs whose rows TMA cannot address.

TMA needs every row of a global array to start on a 16-byte boundary. An
output whose rows are not 16-byte multiples (GPT-2's vocabulary of 50257
columns, in bfloat16) was stored padded and cut to shape by a copy after the
kernel: 768x50257x128 bfloat16 on an H100 spent 60.8 us in that copy against
34.3 us in the kernel. Here each consumer stores its tile straight from
registers into the output, element pairs where the rows keep them aligned,
and drops the elements past the output's edges (BUILD_NOTES.md).
"""

from __future__ import annotations

from jax.experimental.mosaic.gpu import utils as mgpu_utils
from jax.experimental.pallas import mosaic_gpu as plgpu
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


def store(value, window, *, rows: int, cols: int) -> None:
  """window[...] = value, except for elements outside the output.

  value: a (tile_m, tile_n) array in the WGMMA layout, of the output's
  dtype; window: its (tile_m, tile_n) window of a (batch, rows, cols) output
  in global memory, which may reach past the output's last row or column.
  """

  @plgpu.inline_mgpu(arg_types=(plgpu.Layout.WGMMA, plgpu.RefType()),
                     return_type=None)
  def _store(ctx, value, gmem):
    del ctx
    index = ir.IndexType.get()
    const = lambda x: mgpu_utils.c(x, index)
    below = lambda x, bound: arith.cmpi(arith.CmpIPredicate.ult, x, bound)
    # The window's first element, counted from the output's start.
    offset = memref.extract_strided_metadata(gmem)[1]
    row0 = arith.remui(arith.divui(offset, const(cols)), const(rows))
    col0 = arith.remui(offset, const(cols))
    for reg, (r, c) in zip(value.registers.flat,
                           value.layout.thread_idxs(value.shape)):
      width = ir.VectorType(reg.type).shape[0]
      row_ok = below(arith.addi(row0, r), const(rows))
      # A register holds `width` neighbours of a row from an even column:
      # one vector store keeps its alignment where every row starts on an
      # even element.
      if cols % width == 0:
        ok = arith.andi(row_ok, below(arith.addi(col0, c), const(cols)))
        _when(ok, lambda reg=reg, r=r, c=c: vector.store(reg, gmem, [r, c]))
        continue
      for i in range(width):
        col = arith.addi(c, const(i))
        ok = arith.andi(row_ok, below(arith.addi(col0, col), const(cols)))
        element = vector.extract(reg, [], [i])
        _when(ok, lambda e=element, r=r, col=col: memref.store(
            e, gmem, [r, col]))

  _store(value, window)
