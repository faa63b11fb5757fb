"""The Mosaic kernel's store for outputs whose rows TMA cannot address.

TMA needs every row of a global array to start on a 16-byte boundary. An
output whose rows are not 16-byte multiples (GPT-2's vocabulary of 50257
columns, in bfloat16) was stored padded and cut to shape by a copy after the
kernel: 768x50257x128 bfloat16 on an H100 spent 60.8 us in that copy against
34.3 us in the kernel. Here each consumer stages a piece of its tile in
shared memory, as for TMA, then its threads store it into the output
themselves: every aligned 16 bytes of a row as one vector, and the few
elements before a row's first such chunk and after its last one by one,
dropping those past the output's edges. The number of store instructions is
what costs: on an H200 one element per store took 7x the copy it spares, 8
bytes 1.9x (BUILD_NOTES.md).
"""

from __future__ import annotations

from jax.experimental.mosaic.gpu import utils as mgpu_utils
from jax.experimental.pallas import mosaic_gpu as plgpu
import jax.numpy as jnp
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import arith
from jaxlib.mlir.dialects import llvm
from jaxlib.mlir.dialects import memref
from jaxlib.mlir.dialects import scf
from jaxlib.mlir.dialects import vector

_CHUNK_BYTES = 16  # The widest store, and the alignment it needs.
_THREADS = 128  # A warpgroup's.


def _when(condition, body) -> None:
  if_op = scf.IfOp(condition)
  with ir.InsertionPoint(if_op.then_block):
    body()
    scf.YieldOp([])


class _Rows:
  """Index arithmetic over the piece's rows in the output, whose elements
  are counted linearly from the window's memref base (16-byte aligned)."""

  def __init__(self, gmem, *, piece_shape, rows, cols, chunk):
    self.index = ir.IndexType.get()
    self.chunk = chunk
    piece_m, piece_n = piece_shape
    offset = memref.extract_strided_metadata(gmem)[1]
    row0 = arith.remui(arith.divui(offset, self.const(cols)),
                       self.const(rows))
    col0 = arith.remui(offset, self.const(cols))
    self.offset, self.cols = offset, cols
    self.valid_rows = arith.minui(self.const(piece_m),
                                  arith.subi(self.const(rows), row0))
    self.width = arith.minui(self.const(piece_n),
                             arith.subi(self.const(cols), col0))

  def const(self, x):
    return mgpu_utils.c(x, self.index)

  def start(self, r):
    """Linear index of row r's first element."""
    return arith.addi(self.offset, arith.muli(r, self.const(self.cols)))

  def first_chunk(self, r):
    """Linear index of row r's first aligned chunk."""
    c = self.const(self.chunk)
    return arith.muli(
        arith.divui(arith.addi(self.start(r), self.const(self.chunk - 1)), c), c)

  def end(self, r):
    """Linear index past row r's last element inside the output."""
    return arith.addi(self.start(r), self.width)

  def row_ok(self, r):
    return arith.cmpi(arith.CmpIPredicate.ult, r, self.valid_rows)


def _thread():
  index = ir.IndexType.get()
  tid = arith.index_cast(index, mgpu_utils.thread_idx())
  return arith.remui(tid, mgpu_utils.c(_THREADS, index))


def _store_chunks(rows: _Rows, smem, gmem, piece_shape, dtype) -> None:
  """Every whole aligned chunk inside a row, one vector store each;
  consecutive threads take consecutive chunks of a row."""
  piece_m, piece_n = piece_shape
  per_row = piece_n // rows.chunk
  vec = ir.VectorType.get((rows.chunk,), dtype)
  base = mgpu_utils.memref_ptr(gmem)
  i64 = ir.IntegerType.get_signless(64)
  tid = _thread()
  for it in range(piece_m * per_row // _THREADS):
    slot = arith.addi(tid, rows.const(it * _THREADS))
    r = arith.divui(slot, rows.const(per_row))
    j = arith.remui(slot, rows.const(per_row))
    chunk = arith.addi(rows.first_chunk(r),
                       arith.muli(j, rows.const(rows.chunk)))
    inside = arith.cmpi(arith.CmpIPredicate.ule,
                        arith.addi(chunk, rows.const(rows.chunk)),
                        rows.end(r))
    ok = arith.andi(rows.row_ok(r), inside)

    def store(r=r, chunk=chunk):
      col = arith.subi(chunk, rows.start(r))
      elements = [memref.load(smem, [r, arith.addi(col, rows.const(t))])
                  for t in range(rows.chunk)]
      value = vector.from_elements(vec, elements)
      rel = arith.index_cast(i64, arith.subi(chunk, rows.offset))
      ptr = mgpu_utils.getelementptr(base, [rel], dtype)
      llvm.store(value, ptr, alignment=_CHUNK_BYTES)

    _when(ok, store)


def _store_ends(rows: _Rows, smem, gmem, piece_m: int) -> None:
  """The elements of each row before its first whole chunk and after its
  last one, element by element: one thread per row end."""
  tid = _thread()
  c = rows.const(rows.chunk)
  for it in range(-(-2 * piece_m // _THREADS)):
    slot = arith.addi(tid, rows.const(it * _THREADS))
    r = arith.remui(slot, rows.const(piece_m))
    tail = arith.cmpi(arith.CmpIPredicate.uge, slot, rows.const(piece_m))
    head_end = arith.minui(rows.first_chunk(r), rows.end(r))
    tail_start = arith.maxui(arith.muli(arith.divui(rows.end(r), c), c),
                             head_end)
    lo = arith.select(tail, tail_start, rows.start(r))
    hi = arith.select(tail, rows.end(r), head_end)
    in_piece = arith.cmpi(arith.CmpIPredicate.ult, slot,
                          rows.const(2 * piece_m))
    for t in range(rows.chunk - 1):
      e = arith.addi(lo, rows.const(t))
      ok = arith.andi(arith.andi(in_piece, rows.row_ok(r)),
                      arith.cmpi(arith.CmpIPredicate.ult, e, hi))

      def store(r=r, e=e):
        col = arith.subi(e, rows.start(r))
        memref.store(memref.load(smem, [r, col]), gmem, [r, col])

      _when(ok, store)


def store(piece_ref, window, *, rows: int, cols: int) -> None:
  """window[...] = piece_ref[...], except for elements outside the output.

  piece_ref: an unswizzled (epi_m, epi_n) tile in shared memory, written by
  the whole warpgroup; window: its window of a (batch, rows, cols) output
  in global memory, which starts inside the output (its element offset
  tells where) and may reach past its last row or column.
  """
  itemsize = jnp.dtype(piece_ref.dtype).itemsize
  chunk = _CHUNK_BYTES // itemsize
  piece_shape = tuple(piece_ref.shape)
  if (piece_shape[1] % chunk or piece_shape[0] * piece_shape[1]
      % (chunk * _THREADS)):
    raise ValueError(f"register_store: unsupported piece {piece_shape} of"
                     f" {jnp.dtype(piece_ref.dtype)}")

  @plgpu.inline_mgpu(arg_types=(plgpu.RefType(), plgpu.RefType()),
                     return_type=None)
  def _store(ctx, smem, gmem):
    del ctx
    dtype = ir.MemRefType(smem.type).element_type
    index_rows = _Rows(gmem, piece_shape=piece_shape, rows=rows, cols=cols,
                       chunk=chunk)
    _store_chunks(index_rows, smem, gmem, piece_shape, dtype)
    _store_ends(index_rows, smem, gmem, piece_shape[0])

  _store(piece_ref, window)
