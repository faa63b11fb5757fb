"""TF32 wgmma with its A operand in registers, and a transposed tile store.

Hopper's TF32 wgmma reads shared-memory operands K-major only, and
truncates them to TF32, but its A operand may come from registers instead,
loaded in any order and rounded on the way as cuBLAS rounds. Mosaic GPU's
`wgmma` takes A from registers for 16- and 8-bit types only, so this module
emits the instruction itself (`plgpu.inline_mgpu`, PTX inline assembly) with
A loaded element by element. From an M-major tile, the Mosaic kernel reads
a row-major B as stored, computing C^T = B^T A^T (B^T is M-major, A^T
K-major), and `store_transposed` writes each C^T tile back as C: no
transpose pass before or after the kernel (BUILD_NOTES.md, issue 5, step
28). From a K-major tile, A is rounded where wgmma would truncate it, and a
ragged A needs no padded copy to be rounded in (`plan.a_k_in_registers`).
On the kernel's own ring a K-step's group stays in flight while the next
one loads (`in_flight`, `start`, `settle`: `plan.a_in_flight`). One of two
modules that build Mosaic GPU IR by hand (`direct_store` the other).
"""

from __future__ import annotations

import jax.numpy as jnp
from jax.experimental.mosaic.gpu import fragmented_array as fa
from jax.experimental.mosaic.gpu import mma_utils
from jax.experimental.mosaic.gpu import utils as mgpu_utils
from jax.experimental.pallas import mosaic_gpu as plgpu
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import arith
from jaxlib.mlir.dialects import llvm
from jaxlib.mlir.dialects import memref
import numpy as np

from pallas_tiled import layouts

SWIZZLE = layouts.SWIZZLE_BYTES
WIDTH = layouts.swizzle_elements(jnp.float32)  # Per swizzled row.
_K_INSTR = 8  # K of one TF32 wgmma instruction.
_M_INSTR = 64  # M of one wgmma instruction (a warpgroup's 4 x 16 rows).
# The accumulator's layout while a wgmma group is in flight: one float32 per
# register, as wgmma's operands. Its WGMMA layout holds pairs, which LLVM
# packs into 64-bit registers: instructions that would read an accumulator
# wgmma is still writing. Mosaic GPU exposes the layout under this name for
# that reason ("temporarily ... to work around LLVM bugs").
IN_FLIGHT_LAYOUT = plgpu.Layout._WGMMA_ACC_32BIT  # pylint: disable=protected-access


def smem_transforms():
  """Tiling and swizzle of the tiles these functions read and write."""
  return (plgpu.TilingTransform((8, WIDTH)), plgpu.SwizzleTransform(SWIZZLE))


def supports(tile_m: int, tile_k: int) -> bool:
  """Whether `wgmma_a_in_registers` takes a consumer's (tile_m, tile_k) A
  tile."""
  return tile_m == _M_INSTR and tile_k % WIDTH == 0


def _i32(value):
  i32 = ir.IntegerType.get_signless(32)
  return arith.constant(i32, ir.IntegerAttr.get(i32, value))


def _index(value):
  index = ir.IndexType.get()
  return arith.constant(index, ir.IntegerAttr.get(index, value))


def _swizzled(row, col):
  """(tile row, column) of element (row, col) of a (8, WIDTH)-tiled array in
  its 128-byte-swizzled tile: the 16-byte chunk index XOR the tile row."""
  row_in, col_in = arith.remui(row, _index(8)), arith.remui(col, _index(WIDTH))
  chunk = arith.xori(arith.divui(col_in, _index(4)), row_in)
  return row_in, arith.addi(arith.muli(chunk, _index(4)),
                            arith.remui(col_in, _index(4)))


def _load(smem, row, col):
  """Element (row, col) of a (8, WIDTH)-tiled, swizzled float32 memref."""
  tile_row, tile_col = _swizzled(row, col)
  return memref.load(smem, [arith.divui(row, _index(8)),
                            arith.divui(col, _index(WIDTH)),
                            tile_row, tile_col])


def _a_fragments(a_smem, k, k_major):
  """This thread's A registers for each 8-wide K step, read from the
  (64, k) K-major or (k, 64) M-major tile: PTX's TF32 A fragment holds (g,
  t), (g + 8, t), (g, t + 4), (g + 8, t + 4) of its warp's 16 rows, where
  g = lane / 4 and t = lane % 4. Each is rounded to TF32 on the way. A
  warp's 32 loads fall in 32 banks either way (the swizzle sees to it)."""
  index = ir.IndexType.get()
  tid = mgpu_utils.thread_idx()
  lane = arith.remui(tid, _i32(32))
  warp = arith.remui(arith.divui(tid, _i32(32)), _i32(4))
  g = arith.index_cast(index, arith.divui(lane, _i32(4)))
  t = arith.index_cast(index, arith.remui(lane, _i32(4)))
  row = arith.addi(arith.muli(arith.index_cast(index, warp), _index(16)), g)

  def element(kk, mm):
    return _load(a_smem, mm, kk) if k_major else _load(a_smem, kk, mm)

  return [[_rounded(element(arith.addi(t, _index(q * _K_INSTR + dk)),
                            arith.addi(row, _index(dm))))
           for dk in (0, 4) for dm in (0, 8)]
          for q in range(k // _K_INSTR)]


def _rounded(value):
  """A float32 register rounded to TF32 (nearest, ties away from zero), as
  an i32: wgmma would truncate it (2.7x cuBLAS's error; rounding one
  operand 1.6x, both 1.0x: BUILD_NOTES.md)."""
  i32 = ir.IntegerType.get_signless(32)
  return llvm.inline_asm(i32, [value], "cvt.rna.tf32.f32 $0, $1;", "=r,f",
                         asm_dialect=0)


def _barrier(values, constraint="r", text=""):
  """An LLVM optimization barrier around the PTX `text`: `values` are
  computed before what follows (PTX wants every register write before the
  wgmma fence), and later code reads the values it returns (CUTLASS's
  `warpgroup_fence_operand`), after `text` has run."""
  kind = values[0].type
  n = len(values)
  out = llvm.inline_asm(
      llvm.StructType.get_literal([kind] * n), values, text,
      ",".join([f"={constraint}"] * n + [str(i) for i in range(n)]),
      asm_dialect=0, has_side_effects=True)
  return [llvm.extractvalue(kind, out, [i]) for i in range(n)]


def _asm(text):
  llvm.inline_asm(ir.Type.parse("!llvm.void"), [], text, "",
                  has_side_effects=True)


def _wgmma(acc, a, b_desc, n):
  """One m64nNk8 TF32 wgmma, acc (N / 2 float32 registers) += a @ b."""
  f32 = ir.F32Type.get()
  count = len(acc)
  operands = [f"${i}" for i in range(2 * count + 8)]
  a_regs, (desc, use_acc, scale_a, scale_b) = (
      operands[2 * count:2 * count + 4], operands[2 * count + 4:])
  ptx = (f"{{ .reg .pred p; setp.ne.b32 p, {use_acc}, 0; "
         f"wgmma.mma_async.sync.aligned.m64n{n}k{_K_INSTR}.f32.tf32.tf32 "
         f"{{{','.join(operands[:count])}}}, {{{','.join(a_regs)}}}, {desc},"
         f" p, {scale_a}, {scale_b}; }}\n")
  constraints = ",".join(["=f"] * count + [str(i) for i in range(count)]
                         + ["r"] * 4 + ["l", "n", "n", "n"])
  i32 = ir.IntegerType.get_signless(32)
  one = llvm.ConstantOp(i32, ir.IntegerAttr.get(i32, 1)).result
  out = llvm.inline_asm(
      llvm.StructType.get_literal([f32] * count),
      [*acc, *a, b_desc, one, one, one], ptx, constraints, asm_dialect=0,
      has_side_effects=True)
  return [llvm.extractvalue(f32, out, [i]) for i in range(count)]


def _scalars(array):
  """The float32 registers of an array in the 32-bit accumulator layout."""
  return [llvm.extractelement(r, _i32(0)) for r in array.registers.flat]


def _array(scalars, shape):
  """`_scalars`' inverse: a (64, n) array in the 32-bit accumulator layout."""
  vec = ir.VectorType.get((1,), ir.F32Type.get())
  registers = np.array(
      [llvm.insertelement(llvm.mlir_undef(vec), r, _i32(0))
       for r in scalars]).reshape(shape)
  return fa.FragmentedArray(_registers=registers,
                            _layout=fa.WGMMA_LAYOUT_ACC_32BIT,
                            _is_signed=None)


def _issue(acc_regs, a_regs, b_smem, n, k):
  """Issues one K-step's wgmma group, acc_regs += the A fragments a_regs @
  b_smem; returns its outputs, which wgmma writes until the group is
  waited for."""
  i64 = ir.IntegerType.get_signless(64)
  _asm("wgmma.fence.sync.aligned;")
  (b_desc, (_, (k_stride,))), (_, group_stride), _ = (
      mma_utils.create_descriptor(
          mgpu_utils.memref_transpose(b_smem, (1, 0, 3, 2)),
          swizzle=SWIZZLE, large_tile=(WIDTH, WIDTH),
          group_size=(WIDTH, n), logical_k_major=True))
  per_group = WIDTH // _K_INSTR
  for q in range(k // _K_INSTR):
    offset = (q // per_group) * group_stride + (q % per_group) * k_stride
    desc = b_desc
    if offset:
      desc = llvm.add(b_desc, llvm.ConstantOp(i64, ir.IntegerAttr.get(
          i64, mma_utils.encode_addr(offset))).result,
                      overflow_flags=llvm.IntegerOverflowFlags.none)
    acc_regs = _wgmma(acc_regs, a_regs[4 * q:4 * q + 4], desc, n)
  _asm("wgmma.commit_group.sync.aligned;")
  return acc_regs


def _check_shapes(acc_shape, a_ref, b_ref, a_k_major):
  m, n = acc_shape
  k = a_ref.shape[-1 if a_k_major else 0]
  a_shape = (m, k) if a_k_major else (k, m)
  if not supports(m, k) or a_ref.shape != a_shape or b_ref.shape != (n, k):
    raise ValueError(f"wgmma_a_in_registers: unsupported shapes acc"
                     f" {acc_shape}, a {a_ref.shape} (a_k_major={a_k_major}),"
                     f" b {b_ref.shape}")
  return k


def wgmma_a_in_registers(acc, a_ref, b_ref, *, a_k_major: bool,
                         in_flight: bool = False):
  """acc + A @ B in TF32, A rounded to TF32 and B truncated by wgmma.

  acc: (64, n) float32; a_ref: A's (64, k) shared-memory tile with
  `a_k_major` (K contiguous), else the (k, 64) tile of A^T (M contiguous);
  b_ref: the (n, k) tile of B^T (K contiguous); both with
  `smem_transforms()`, k a multiple of 32. Waited for, acc in the WGMMA
  layout; or, `in_flight`, acc in `IN_FLIGHT_LAYOUT` (`start`), only the
  previous call's group waited for: until the next call or `settle`, this
  one's group still writes the sum, reads b_ref and reads the A fragments
  it loaded into registers, which the next call's loads must not reuse
  (each call's own instructions, not one loop body's: PTX leaves that to
  the program, and ptxas does not see to it; `kernel._in_flight_steps`).
  """
  m, n = acc.shape
  k = _check_shapes(acc.shape, a_ref, b_ref, a_k_major)
  layout = IN_FLIGHT_LAYOUT if in_flight else plgpu.Layout.WGMMA
  ref_type = plgpu.RefType(smem_transforms())

  @plgpu.inline_mgpu(
      arg_types=(layout, ref_type, ref_type),
      return_type=plgpu.ShapeDtypeStruct((m, n), jnp.float32, layout=layout))
  def product(ctx, acc, a_smem, b_smem):
    del ctx
    i32, f32 = ir.IntegerType.get_signless(32), ir.F32Type.get()
    fragments = [r for q in _a_fragments(a_smem, k, a_k_major) for r in q]
    if in_flight:  # The sum passes the fence as it is, in f32 registers.
      a_regs, acc_regs = _barrier(fragments), _barrier(_scalars(acc), "f")
      acc_regs = _issue(acc_regs, a_regs, b_smem, n, k)
      _asm("wgmma.wait_group.sync.aligned 1;")
      return _array(acc_regs, acc.registers.shape)
    # One float32 per register, as wgmma's operands (fa's own workaround).
    acc = acc.to_layout(fa.WGMMA_LAYOUT_ACC_32BIT)
    count = acc.registers.size
    flat = _barrier([arith.bitcast(i32, r) for r in _scalars(acc)]
                    + fragments)
    acc_regs = _issue([arith.bitcast(f32, r) for r in flat[:count]],
                      flat[count:], b_smem, n, k)
    _asm("wgmma.wait_group.sync.aligned 0;")
    return _array(acc_regs, acc.registers.shape).to_layout(fa.WGMMA_LAYOUT)

  return product(acc, a_ref, b_ref)


def start(acc):
  """acc (WGMMA layout, no wgmma in flight) in `IN_FLIGHT_LAYOUT`."""
  @plgpu.inline_mgpu(
      arg_types=(plgpu.Layout.WGMMA,),
      return_type=plgpu.ShapeDtypeStruct(acc.shape, jnp.float32,
                                         layout=IN_FLIGHT_LAYOUT))
  def relayout(ctx, acc):
    del ctx
    return acc.to_layout(fa.WGMMA_LAYOUT_ACC_32BIT)

  return relayout(acc)


def settle(acc):
  """Waits for every wgmma group in flight; acc, the sum they write (in
  `IN_FLIGHT_LAYOUT`), in the WGMMA layout."""
  @plgpu.inline_mgpu(
      arg_types=(IN_FLIGHT_LAYOUT,),
      return_type=plgpu.ShapeDtypeStruct(acc.shape, jnp.float32,
                                         layout=plgpu.Layout.WGMMA))
  def wait(ctx, acc):
    del ctx
    regs = _barrier(_scalars(acc), "f", "wgmma.wait_group.sync.aligned 0;")
    return _array(regs, acc.registers.shape).to_layout(fa.WGMMA_LAYOUT)

  return wait(acc)


def store_transposed(value, ref):
  """ref[...] = value.T: value (rows, cols) float32 in the WGMMA layout, ref
  a (cols, rows) shared-memory tile with `smem_transforms()`. Element by
  element; a warp's 32 stores fall in 32 different banks (the swizzle sees
  to it)."""
  rows, cols = value.shape
  if ref.shape != (cols, rows) or rows % WIDTH or cols % 8:
    raise ValueError(f"store_transposed: unsupported shapes value"
                     f" {value.shape}, ref {ref.shape}")

  @plgpu.inline_mgpu(
      arg_types=(plgpu.Layout.WGMMA, plgpu.RefType(smem_transforms())),
      return_type=None)
  def store(ctx, value, smem):
    del ctx
    value = value.to_layout(fa.WGMMA_LAYOUT_ACC_32BIT)
    for reg, (r, c) in zip(value.registers.flat,
                           value.layout.thread_idxs(value.shape)):
      tile_row, tile_col = _swizzled(c, r)
      memref.store(llvm.extractelement(reg, _i32(0)), smem,
                   [arith.divui(c, _index(8)), arith.divui(r, _index(WIDTH)),
                    tile_row, tile_col])

  store(value, ref)
