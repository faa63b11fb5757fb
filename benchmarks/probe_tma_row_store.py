"""Probe 2: per-row TMA stores at unaligned element offsets of a flat output.
swz_st: Pallas copy_smem_to_gmem from a 128B-swizzled smem row (tensor TMA).
tensor_st: inline_mgpu, launch_ctx.async_copy with oob ZEROS (tensor TMA,
no swizzle). Loads are at aligned columns; the last partial column tile is
skipped, so only columns < (n // T) * T are checked."""
import functools, sys, json
import numpy as np
import jax, jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.mosaic.gpu import profiler
import jax.experimental.mosaic.gpu as mgpu
from jax._src.lib.mlir import ir
from jax._src.lib.mlir.dialects import arith, gpu

T = 64


def copy_rows(x, m, n, variant, rows_per=1):
  gm, gn = pl.cdiv(m, T), n // T
  swz = variant == "swz_st"
  tr = (plgpu.SwizzleTransform(128),) if swz else ()

  def inline_store(smem, o_ref):
    @plgpu.inline_mgpu(arg_types=(plgpu.RefType(), plgpu.RefType()),
                       return_type=None)
    def store(ctx, smem, out):
      index = ir.IndexType.get()
      c = lambda v: arith.constant(index, v)
      i = gpu.block_id(gpu.Dimension.x)
      j = gpu.block_id(gpu.Dimension.y)
      one = mgpu.utils.single_thread_predicate(mgpu.utils.ThreadSubset.WARPGROUP)
      for r in range(T):
        row = arith.addi(arith.muli(i, c(T)), c(r))
        start = arith.addi(arith.muli(row, c(n)), arith.muli(j, c(T)))
        pred = arith.andi(one, arith.cmpi(arith.CmpIPredicate.ult, row, c(m)))
        ctx.async_copy(src_ref=mgpu.utils.memref_slice(smem, r), dst_ref=out,
                       gmem_slice=(mgpu.ds(start, T),), predicate=pred,
                       arrive=(r == T - 1))
    store(smem, o_ref)

  def body(x_ref, o_ref, smem, bar):
    i = lax.axis_index("i"); j = lax.axis_index("j")
    plgpu.copy_gmem_to_smem(x_ref.at[pl.ds(i * T, T), pl.ds(j * T, T)], smem, bar)
    plgpu.barrier_wait(bar)
    if swz:
      for r in range(T):
        row = i * T + r
        plgpu.copy_smem_to_gmem(smem.at[pl.ds(r, 1)],
                                o_ref.at[:, pl.ds(row * n + j * T, T)],
                                predicate=row < m, commit_group=(r == T - 1))
    else:
      inline_store(smem, o_ref)
    plgpu.wait_smem_to_gmem(0)

  shape = (1, m * n) if swz else (m * n,)
  f = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(shape, x.dtype),
                   scratch_types=[plgpu.SMEM((T, T), x.dtype, transforms=tr),
                                  plgpu.Barrier()],
                   grid=(gm, gn), grid_names=("i", "j"))
  return f(x).reshape(m, n)


def main():
  variant, m, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
  np_ = pl.cdiv(n, 8) * 8
  x = jax.random.normal(jax.random.key(0), (pl.cdiv(m, T) * T, np_), jnp.bfloat16)
  if variant == "cut":
    f = jax.jit(lambda x: x[:m, :n])
  else:
    f = jax.jit(functools.partial(copy_rows, m=m, n=n, variant=variant))
  out = f(x)
  w = (n // T) * T if variant != "cut" else n
  ok = bool(jnp.array_equal(out[:, :w], x[:m, :w]))
  _, t = profiler.measure(f, iterations=20)(x)
  med = float(np.median(t)) * 1e3
  nbytes = 2 * m * w * 2
  print(json.dumps(dict(variant=variant, m=m, n=n, ok=ok, us=round(med, 2),
                        tbps=round(nbytes / med / 1e6, 3))), flush=True)


if __name__ == "__main__":
  main()
