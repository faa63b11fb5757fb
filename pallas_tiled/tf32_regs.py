"""TF32 wgmma with its A operand in registers, loaded from an M-major tile.

Hopper's TF32 wgmma reads both shared-memory operands K-major only; its A
operand may instead come from registers, in any order it was loaded.
Mosaic GPU's `wgmma` takes A from registers for 16- and 8-bit types only,
so this module issues the instruction itself (`plgpu.inline_mgpu`), with A
loaded element by element from a swizzled M-major tile. This is what lets the
TF32 kernel read B as it is stored, computing C^T = B^T A^T.
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

SWIZZLE = 128  # Bytes: 32 float32 elements per swizzled row.
WIDTH = SWIZZLE // 4  # Elements.
_K_INSTR = 8  # K of one TF32 wgmma instruction.
_M = 64  # M of one wgmma instruction.


def smem_transforms():
  return (plgpu.TilingTransform((8, WIDTH)), plgpu.SwizzleTransform(SWIZZLE))


def _c(value, ty):
  return arith.constant(ty, ir.IntegerAttr.get(ty, value))


def _barrier(values):
  """An LLVM optimization barrier: the values are computed before what
  follows (the wgmma fence must come after every register write)."""
  i32 = ir.IntegerType.get_signless(32)
  n = len(values)
  constraints = ",".join(["=r"] * n + [str(i) for i in range(n)])
  out = llvm.inline_asm(
      llvm.StructType.get_literal([i32] * n), values, "", constraints,
      asm_dialect=0, has_side_effects=True)
  return [llvm.extractvalue(i32, out, [i]) for i in range(n)]


def _load_a_fragment(a_smem, k_steps):
  """This thread's TF32 A fragments, from a (k, 64) M-major tiled, swizzled
  tile: per K-instruction, a0..a3 = (g, t), (g + 8, t), (g, t + 4),
  (g + 8, t + 4) of the warp's 16-row strip (g = lane / 4, t = lane % 4),
  as PTX lays out wgmma's A registers."""
  i32 = ir.IntegerType.get_signless(32)
  index = ir.IndexType.get()
  tid = mgpu_utils.thread_idx()
  lane = arith.remui(tid, _c(32, i32))
  warp = arith.remui(arith.divui(tid, _c(32, i32)), _c(4, i32))
  g = arith.divui(lane, _c(4, i32))
  t = arith.remui(lane, _c(4, i32))
  row0 = arith.addi(arith.muli(warp, _c(16, i32)), g)  # M index, 0..63.
  fragments = []
  for q in range(k_steps):
    regs = []
    for kh in (0, 4):
      k_in_tile = arith.addi(t, _c(kh, i32))  # (8q + t + kh) % 8.
      for mh in (0, 8):
        m = arith.addi(row0, _c(mh, i32))
        m_tile = arith.divui(m, _c(WIDTH, i32))
        m_in = arith.remui(m, _c(WIDTH, i32))
        # 128-byte swizzle: the 16-byte chunk index XOR the row in the tile.
        chunk = arith.xori(arith.divui(m_in, _c(4, i32)), k_in_tile)
        col = arith.addi(arith.muli(chunk, _c(4, i32)),
                         arith.remui(m_in, _c(4, i32)))
        idx = [arith.index_cast(index, v) for v in
               (_c(q, i32), m_tile, k_in_tile, col)]
        value = memref.load(a_smem, idx)
        regs.append(arith.bitcast(i32, value))
    # Loaded as (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4).
    fragments.append(regs)
  return fragments


def _wgmma(acc_regs, a_regs, b_desc, n):
  """One m64nNk8 TF32 wgmma: acc_regs (N / 2 float32 values) += A @ B."""
  f32 = ir.F32Type.get()
  i32 = ir.IntegerType.get_signless(32)
  num_acc = len(acc_regs)
  constraints = ",".join(
      ["=f"] * num_acc + [str(i) for i in range(num_acc)]
      + ["r"] * 4 + ["l", "n", "n", "n"])
  acc_vec = "{" + ",".join(f"${i}" for i in range(num_acc)) + "}"
  base = 2 * num_acc
  a_vec = "{" + ",".join(f"${base + i}" for i in range(4)) + "}"
  desc, use_acc, scale_a, scale_b = (f"${base + 4 + i}" for i in range(4))
  ptx = (f"{{ .reg .pred p; setp.ne.b32 p, {use_acc}, 0; "
         f"wgmma.mma_async.sync.aligned.m64n{n}k{_K_INSTR}.f32.tf32.tf32 "
         f"{acc_vec}, {a_vec}, {desc}, p, {scale_a}, {scale_b}; }}\n")
  one = llvm.ConstantOp(i32, ir.IntegerAttr.get(i32, 1)).result
  out = llvm.inline_asm(
      llvm.StructType.get_literal([f32] * num_acc),
      [*acc_regs, *a_regs, b_desc, one, one, one], ptx, constraints,
      asm_dialect=0, has_side_effects=True)
  return [llvm.extractvalue(f32, out, [i]) for i in range(num_acc)]


def wgmma_a_m_major(acc, a_ref, b_ref):
  """acc + a @ b in TF32, waited for.

  acc: (64, n) float32 in the WGMMA layout; a_ref: (k, 64) shared-memory
  tile, M contiguous; b_ref: (n, k) shared-memory tile, K contiguous; both
  with `smem_transforms()`. k must be a multiple of 32 (the swizzle width).
  """
  m, n = acc.shape
  k = a_ref.shape[0]
  if m != _M or k % WIDTH or b_ref.shape != (n, k):
    raise ValueError(f"unsupported shapes {acc.shape}, {a_ref.shape},"
                     f" {b_ref.shape}")
  ref_type = plgpu.RefType(smem_transforms())

  @plgpu.inline_mgpu(
      arg_types=(plgpu.Layout.WGMMA, ref_type, ref_type),
      return_type=plgpu.ShapeDtypeStruct((m, n), jnp.float32,
                                         layout=plgpu.Layout.WGMMA))
  def step(ctx, acc, a_smem, b_smem):
    del ctx
    i32 = ir.IntegerType.get_signless(32)
    i64 = ir.IntegerType.get_signless(64)
    f32 = ir.F32Type.get()
    acc = acc.to_layout(fa.WGMMA_LAYOUT_ACC_32BIT)
    shape = acc.registers.shape
    acc_regs = [llvm.extractelement(r, _c(0, i32))
                for r in acc.registers.flat]
    fragments = _load_a_fragment(a_smem, k // _K_INSTR)
    flat = _barrier([arith.bitcast(i32, r) for r in acc_regs]
                    + [r for f in fragments for r in f])
    acc_regs = [arith.bitcast(f32, r) for r in flat[:len(acc_regs)]]
    a_flat = flat[len(acc_regs):]
    llvm.inline_asm(ir.Type.parse("!llvm.void"), [],
                    "wgmma.fence.sync.aligned;", "", has_side_effects=True)
    b_t = mgpu_utils.memref_transpose(b_smem, (1, 0, 3, 2))
    (b_desc, (_, (k_stride,))), (_, group_stride), _ = (
        mma_utils.create_descriptor(
            b_t, swizzle=SWIZZLE, large_tile=(WIDTH, WIDTH),
            group_size=(WIDTH, n), logical_k_major=True))
    per_group = WIDTH // _K_INSTR
    for q in range(k // _K_INSTR):
      offset = (q // per_group) * group_stride + (q % per_group) * k_stride
      desc = b_desc
      if offset:
        desc = llvm.add(
            b_desc, llvm.ConstantOp(i64, ir.IntegerAttr.get(
                i64, mma_utils.encode_addr(offset))).result,
            overflow_flags=llvm.IntegerOverflowFlags.none)
      acc_regs = _wgmma(acc_regs, a_flat[4 * q:4 * q + 4], desc, n)
    void = ir.Type.parse("!llvm.void")
    llvm.inline_asm(void, [], "wgmma.commit_group.sync.aligned;", "",
                    has_side_effects=True)
    llvm.inline_asm(void, [], "wgmma.wait_group.sync.aligned 0;", "",
                    has_side_effects=True)
    vec = ir.VectorType.get((1,), f32)
    regs = np.array([llvm.insertelement(llvm.mlir_undef(vec), r,
                                        _c(0, i32))
                     for r in acc_regs]).reshape(shape)
    out = fa.FragmentedArray(_registers=regs,
                             _layout=fa.WGMMA_LAYOUT_ACC_32BIT,
                             _is_signed=None)
    return out.to_layout(fa.WGMMA_LAYOUT)

  return step(acc, a_ref, b_ref)


def store_transposed(value, ref):
  """ref[...] = value.T, for a (64, w) float32 value in the WGMMA layout and
  a (w, 64) shared-memory tile with `smem_transforms()`. Element by element:
  a warp's 32 stores land in 32 different banks (the swizzle sees to it)."""
  rows, cols = value.shape
  if ref.shape != (cols, rows) or rows % WIDTH or cols % 8:
    raise ValueError(f"unsupported shapes {value.shape}, {ref.shape}")

  @plgpu.inline_mgpu(
      arg_types=(plgpu.Layout.WGMMA, plgpu.RefType(smem_transforms())),
      return_type=None)
  def store(ctx, value, smem):
    del ctx
    index = ir.IndexType.get()
    i32 = ir.IntegerType.get_signless(32)
    cst = lambda v: arith.constant(index, ir.IntegerAttr.get(index, v))
    value = value.to_layout(fa.WGMMA_LAYOUT_ACC_32BIT)
    for reg, (r, c) in zip(value.registers.flat,
                           value.layout.thread_idxs(value.shape)):
      # value[r, c] -> ref[c, r]: tile row c % 8, swizzled column r % 32.
      r_in = arith.remui(r, cst(WIDTH))
      c_in = arith.remui(c, cst(8))
      chunk = arith.xori(arith.divui(r_in, cst(4)), c_in)
      col = arith.addi(arith.muli(chunk, cst(4)), arith.remui(r_in, cst(4)))
      idx = [arith.divui(c, cst(8)), arith.divui(r, cst(WIDTH)), c_in, col]
      memref.store(llvm.extractelement(reg, _c(0, i32)), smem, idx)
    return None

  store(value, ref)
