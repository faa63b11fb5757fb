"""The Hopper backend: Pallas on Mosaic GPU, with TMA, wgmma and warpgroups.

The same concept as `tiled.py` (output tiles to programs, K-phases into a
float32 accumulator, zero-filled edges), in Hopper's own units. Where the
Triton kernel leaves staging and pipelining to Triton, this one spells them
out with Mosaic GPU primitives (`plgpu`):

* Persistent grid: one CTA per SM (`config.num_sms`) walks the output tiles
  with `plgpu.nd_loop`, in "planar snake" order (`plgpu.planar_snake`: strips
  `grid_tile_width` tiles wide, alternately walked forwards and backwards) for
  L2 reuse. With `cluster_dimension`, CTAs pair up in clusters of two
  that walk cluster tiles and share one operand's K-tiles by TMA multicast
  (measured: no gain on an H200; BUILD_NOTES.md). Batch elements are an
  outer loop dimension; each operand's batch
  index comes from `BatchedProblem`, so broadcast operands are read in place.
* K-phases: `plgpu.emit_pipeline_warp_specialized` (or `plgpu.emit_pipeline`
  without warp specialization) keeps `max_concurrent_steps` (A, B) K-tiles in
  flight in swizzled shared memory, loaded by TMA. With warp specialization a
  producer warpgroup issues the copies and two consumer warpgroups each own a
  (tile_m x tile_n) float32 accumulator (`plgpu.ACC`, in registers) that
  `plgpu.wgmma` adds each K-tile's product into. Where it can, one pipeline
  runs across all of a CTA's tiles (`pipelines_across_tiles`).
* Epilogue: each consumer casts its accumulator once, writes it in
  (epi_tile_m x epi_tile_n) pieces to double-buffered shared memory and
  stores them with TMA (`plgpu.copy_smem_to_gmem`).
* Boundaries: any M, N and K. TMA zero-fills the parts of a load that fall
  outside the array (so the ragged last K-tile adds zeros) and drops the
  parts of a store that do, so edge tiles need no masks.
* Padding, where unavoidable: Mosaic GPU copies a swizzled tile by viewing
  the whole array as (8, swizzle width) tiles, so an operand whose rows are
  not a multiple of 8 or whose contiguous axis is not a multiple of the
  swizzle width (64 bfloat16/float16 or 32 float32 elements) is first copied
  into a zero-padded buffer (this also gives TMA the 16-byte row strides it
  needs, e.g. for K = 4097), and so is one smaller than a tile. Likewise the
  output, which TMA stores from (8, swizzle width)-tiled shared memory: a
  ragged output is allocated padded and cut to shape afterwards, unless its
  rows are 16-byte multiples and the "lane" lowering stores it in place,
  each piece as one swizzled but untiled 2-D TMA box. Each
  such copy is one masked Pallas pass (`relayout.py`; A's and B's share
  one launch).
  Shapes that are multiples of 64 and at least a tile are never copied.
* dtypes: bfloat16 and float16 (wgmma reads either operand in either major
  order, so operands stored transposed are staged as they are); float32 as
  TF32 (XLA's default precision), whose wgmma reads shared memory only
  K-major. Compiled, with 256-wide consumer tiles, an M-major A goes
  through registers instead (`tf32_wgmma.py`), and a product of two
  row-major operands runs as C^T = B^T A^T (B^T is an M-major A, A^T a
  K-major B) with each tile stored transposed: no copies. Otherwise B is
  transposed to (N, K), in the same pass as its padding, unless it is
  stored that way, and an A stored transposed is transposed back; float8
  (e4m3), whose wgmma also needs both operands K-major, likewise.
  Accumulation is always float32 (float8 wgmma adds with fewer bits, as
  cuBLAS's does: accuracy.py).
* float32 at HIGHEST precision: three-pass TF32 (`tf32x3.py`), one TF32
  product over a tripled K. Its small terms (the first two thirds of K)
  accumulate in wgmma's accumulator; each K-step of the large ones is
  summed into float32 registers instead ("promoted"), because wgmma's own
  accumulation is not accurate enough for float32 (BUILD_NOTES.md).

Mosaic GPU compiles for compute capability 9.0 (sm_90a). In interpret mode
the kernel runs on the CPU in the Mosaic GPU interpreter (out-of-bounds
copies are modelled from jax 0.11; on 0.10 the interpreter rejects them, so
interpret mode pads operands to whole tiles there).
"""

from __future__ import annotations

import dataclasses
import functools

import jax
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
import jax.numpy as jnp

from pallas_tiled import config as config_lib
from pallas_tiled import frontend
from pallas_tiled import relayout
from pallas_tiled import tf32_wgmma
from pallas_tiled import tf32x3
from pallas_tiled import tuning_cache

# Registers per thread kept by the producer warpgroup (the rest go to the two
# consumers); 40 is what jax's Hopper example uses.
_MEMORY_REGISTERS = 40
# TMA addresses rows in 16-byte units: every row (stride) must be a multiple.
_TMA_ALIGN_BYTES = 16
# Mosaic GPU's two lowerings (CompilerParams.lowering_semantics): warpgroup
# (the default from jax 0.11, which infers layouts; jax's Hopper example uses
# it) and lane (the default in 0.10, explicit layouts only).
_SEMANTICS = {
    "warpgroup": lambda: plgpu.LoweringSemantics.Warpgroup,
    "lane": lambda: plgpu.LoweringSemantics.Lane,
}
# How much faster (predicted) the heuristic's CTA tile must be before it
# replaces a tuned entry's on a shape the entry was not tuned on: the cost
# model ranks tiles, but is not exact (bfloat16 5120^3: 1.2% apart,
# measured equal).
_REFIT_MARGIN = 1.05
# The narrowest consumer tile (tile_n) whose TF32 reads A through registers:
# the element-wise loads of A cost about as much per K-step at any width, so
# they pay only against wide wgmmas (H200: 64x256 tiles 2% slower than
# K-major ones in shared memory, 64x64 tiles 27%; BUILD_NOTES.md).
_REGISTERS_MIN_TILE_N = 256


def _interpret_params():
  """The Mosaic GPU interpreter's parameters.

  Public as plgpu.InterpretGPUParams from jax 0.11; jax 0.10 has them only
  in a private module, the one private import of this package.
  """
  params = getattr(plgpu, "InterpretGPUParams", None)
  if params is None:  # jax 0.10
    from jax._src.pallas.mosaic_gpu.interpret import params as params_lib  # pylint: disable=g-import-not-at-top
    params = params_lib.InterpretGPUParams
  return params()


def _interpreter_fills_out_of_bounds() -> bool:
  """Whether the interpreter zero-fills OOB loads and clips OOB stores
  (jax >= 0.11; 0.10 raises on any out-of-bounds copy)."""
  return hasattr(plgpu, "InterpretGPUParams")


def runs_tf32x3(dtype, precision) -> bool:
  """Whether the kernel computes this call as three-pass TF32."""
  return (jnp.dtype(dtype) == jnp.float32
          and config_lib.is_highest(precision))


def select_config(m, n, k, dtype, precision, *, out_dtype, auto=False):
  """The config `matmul(..., backend="mosaic")` runs when given none: see
  tuning_cache.select_config.

  A tuned entry holds the best config for the shape it was tuned on; on
  another shape of its bucket, its CTA tile can fill the SMs' waves badly
  (bfloat16 3072^3 with 4096^3's 128x256 tiles: 2.2 waves, 0.76x
  jnp.matmul). Such an entry gives way to the heuristic where
  `mosaic_wave_cost` predicts the heuristic's tile faster by more than
  `_REFIT_MARGIN` (3072^3: 0.90x). Whichever config is chosen is fitted to
  the output dtype's shared memory (`config.fit_mosaic_config`): entries
  are tuned with outputs of the input dtype.
  """
  promoted = runs_tf32x3(dtype, precision)
  default = functools.partial(config_lib.default_mosaic_config, m, n, k,
                              dtype, out_dtype, promoted=promoted)

  def fits(config, tuned_shape):
    if promoted or tuned_shape is None or tuned_shape[:2] == (m, n):
      return True
    cost = lambda c: config_lib.mosaic_wave_cost(c, m, n)
    return cost(config) <= _REFIT_MARGIN * cost(default())

  config = tuning_cache.select_config(
      "mosaic", m, n, k, dtype, precision, auto=auto, default=default,
      fits=fits)
  return config_lib.fit_mosaic_config(config, dtype, out_dtype)


def _swizzle_bytes(*minor_bytes: int) -> int:
  """The widest swizzle (128/64/32 bytes) dividing every minor extent."""
  return min(plgpu.find_swizzle(b * 8) for b in minor_bytes)


def _operand_swizzle(config, dtype, a_k_major, b_k_major) -> int:
  """The swizzle of both operand tiles in shared memory (wgmma needs one).

  It is set by the tiles' contiguous extents: tile_k for a K-major operand,
  the consumer's tile_m or tile_n for an M- or N-major one (16-bit dtypes
  only; TF32 operands are always K-major).
  """
  itemsize = jnp.dtype(dtype).itemsize
  c = config
  # tile_k always counts: wgmma steps through K in swizzle-wide groups.
  swizzle = _swizzle_bytes(
      c.tile_k * itemsize,
      (c.tile_k if a_k_major else c.tile_m) * itemsize,
      (c.tile_k if b_k_major else c.tile_n) * itemsize)
  if swizzle < 32:
    raise ValueError(
        f"{c.label}: the operand tiles' contiguous extents allow only a"
        f" {swizzle}-byte swizzle for {jnp.dtype(dtype)}; wgmma needs 32 or"
        " more (make tile_k, and tile_m / tile_n for M- / N-major operands,"
        " multiples of 32 bytes).")
  return swizzle


def _tma_shape(x, swizzle, box, transpose):
  """The shape `x` (transposed if `transpose`) is zero-padded to for what
  Mosaic GPU's TMA copies can address.

  Mosaic GPU copies a swizzled tile by viewing the whole GMEM array as
  (8, swizzle / itemsize) tiles (launch_context.TileTransform), so its rows
  must be a multiple of 8 and its contiguous axis a multiple of the swizzle
  width (64 bfloat16 / 32 float32 elements for 128 bytes); this also makes
  every row stride a multiple of 16 bytes, as TMA requires. A dimension
  smaller than `box` is padded to it. Arrays that comply keep their shape
  (and `relayout` does not copy them).
  """
  rows, cols = (x.shape[-1], x.shape[-2]) if transpose else x.shape[-2:]
  width = swizzle // jnp.dtype(x.dtype).itemsize
  return (max(_round_up(rows, 8), box[0]), max(_round_up(cols, width), box[1]))


def _smem_transforms(swizzle: int, dtype):
  """Tiling + swizzle of a shared-memory tile, as wgmma and TMA expect."""
  return (plgpu.TilingTransform((8, swizzle // jnp.dtype(dtype).itemsize)),
          plgpu.SwizzleTransform(swizzle))


def pipelines_across_tiles(config, k_steps: int, tiles: int) -> bool:
  """Whether each CTA runs one K-pipeline across all its tiles.

  With a pipeline per tile, the producer drains it at the end of every tile
  and refills it for the next; one pipeline across tiles
  (`plgpu.PipelinePipeline`) lets the producer load the next tile's K-tiles
  while the consumers store this one (+0.3-1.2% on an H200, BUILD_NOTES.md).
  jax allows it when the stages divide the K-steps, and it needs two tiles
  or more per CTA (the first tile STARTs the pipeline, the last STOPs it).
  """
  return (config.warp_specialized
          and k_steps % config.max_concurrent_steps == 0
          and tiles >= 2 * (config.num_sms // config.cluster_size))


def _step_product(a, b, shape):
  """One K-step's wgmma product, in a fresh accumulator, as a value."""
  def product(acc_ref):
    plgpu.wgmma(acc_ref, a, b)
    return acc_ref[...]
  return pl.run_scoped(product, plgpu.ACC(shape))


def _kernel(a_ref, b_ref, o_ref, *, config, m, n, k, problem, a_k_major,
            b_k_major, swizzle, tiled_out, promote_from, a_in_registers,
            transposed_out):
  """One persistent CTA: loops over its output tiles, pipelines K-tiles.

  a_ref: (batches, M, K) if `a_k_major` else (batches, K, M); b_ref:
  (batches, N, K) if `b_k_major` else (batches, K, N); o_ref: (problem.size,
  M, N), or (problem.size, N, M) with `transposed_out`, which stores each
  tile transposed. Batch element g reads a[problem.a_index(g)],
  b[problem.b_index(g)]. With `promote_from` (a K-step), the products of
  that K-step and later ones are each added into a float32 register sum
  (carried by the pipeline) instead of into wgmma's accumulator. With
  `a_in_registers` (TF32, A M-major), `tf32_wgmma` adds each K-step into an
  accumulator value that the pipeline carries.
  """
  c = config
  dtype, out_dtype = a_ref.dtype, o_ref.dtype
  cta_m, cta_n = c.cta_tile
  wgs = c.num_compute_wgs
  split_m = c.wg_dimension == "m" and wgs > 1
  split_n = c.wg_dimension == "n" and wgs > 1
  cluster_m, cluster_n = c.cluster_tile
  # The persistent loop walks cluster tiles (CTA tiles without clusters).
  m_iters, n_iters = pl.cdiv(m, cluster_m), pl.cdiv(n, cluster_n)
  k_iters = pl.cdiv(k, c.tile_k)

  a_block = (cta_m, c.tile_k) if a_k_major else (c.tile_k, cta_m)
  b_block = (cta_n, c.tile_k) if b_k_major else (c.tile_k, cta_n)
  transforms = _smem_transforms(swizzle, dtype)
  a_index = (lambda ki: (0, ki)) if a_k_major else (lambda ki: (ki, 0))
  b_index = (lambda ki: (0, ki)) if b_k_major else (lambda ki: (ki, 0))

  epi_m, epi_n = c.epi_tile
  # The epilogue stores (epi_m, piece_n) pieces of the accumulator; with
  # `transposed_out`, as (piece_n, epi_m) tiles of its transpose.
  piece_n = tf32_wgmma.WIDTH if transposed_out else epi_n
  epi_slots = min(2, (c.tile_m * c.tile_n) // (epi_m * piece_n))
  if transposed_out:
    out_transforms = tf32_wgmma.smem_transforms()
  elif tiled_out:
    out_swizzle = _swizzle_bytes(epi_n * jnp.dtype(out_dtype).itemsize)
    out_transforms = _smem_transforms(out_swizzle, out_dtype)
  else:
    # Swizzled but untiled: the same bytes as one (8, epi_n)-tiled column of
    # pieces, which TMA stores as a 2-D box into rows of any 16-byte pitch.
    # Unswizzled, wgmma's register layout stores to shared memory with bank
    # conflicts (bfloat16 3000x5000x700: kernel 41.2 us, against 38.1).
    piece_bytes = epi_n * jnp.dtype(out_dtype).itemsize
    out_transforms = ((plgpu.SwizzleTransform(piece_bytes),)
                      if piece_bytes in (32, 64, 128) else ())

  def wg_operands(wg, a_smem, b_smem):
    """This consumer's (tile_m, tile_k) and (tile_k, tile_n) wgmma views."""
    rows = pl.ds(wg * c.tile_m, c.tile_m) if split_m else slice(None)
    cols = pl.ds(wg * c.tile_n, c.tile_n) if split_n else slice(None)
    if a_in_registers:  # tf32_wgmma's (k, m) and (n, k) tiles.
      return a_smem.at[:, rows], b_smem.at[cols]
    a = a_smem.at[rows] if a_k_major else a_smem.at[:, rows].transpose((1, 0))
    b = b_smem.at[cols].transpose((1, 0)) if b_k_major else b_smem.at[:, cols]
    return a, b

  acc_shape = (c.tile_m, c.tile_n)
  promoted = promote_from is not None

  def promoted_step(k_step, acc_ref, total, a, b, wait):
    """One K-step's product, into acc_ref before `promote_from`, else
    into `total` (its new value)."""
    def into_accumulator():
      plgpu.wgmma(acc_ref, a, b)
      plgpu.wgmma_wait(wait)
      return total

    return lax.cond(k_step < promote_from, into_accumulator,
                    lambda: total + _step_product(a, b, acc_shape))

  def zero_sum():
    """Zeros in wgmma's register layout, which both lowerings carry (a
    fresh accumulator, read; layout_cast is not in jax 0.10's interpreter)."""
    return pl.run_scoped(lambda acc_ref: acc_ref[...], plgpu.ACC(acc_shape))

  def epilogue(acc, out_smem, o_tile, wg):
    """Casts the accumulated tile and stores it through SMEM with TMA."""
    acc = acc.astype(out_dtype)
    row0 = wg * c.tile_m if split_m else 0
    col0 = wg * c.tile_n if split_n else 0
    for i in range(c.tile_m // epi_m):
      for j in range(c.tile_n // piece_n):
        slot = (i * (c.tile_n // piece_n) + j) % epi_slots
        # The store that last read this slot must be done before we refill.
        plgpu.wait_smem_to_gmem(epi_slots - 1, wait_read_only=True)
        piece = acc[i * epi_m:(i + 1) * epi_m, j * piece_n:(j + 1) * piece_n]
        rows = pl.ds(row0 + i * epi_m, epi_m)
        cols = pl.ds(col0 + j * piece_n, piece_n)
        if transposed_out:  # o_tile is the transposed window.
          tf32_wgmma.store_transposed(piece, out_smem.at[wg, slot])
          window = o_tile.at[cols, rows]
        else:
          out_smem[wg, slot] = piece
          window = o_tile.at[rows, cols]
        plgpu.commit_smem()
        plgpu.copy_smem_to_gmem(out_smem.at[wg, slot], window)

  def tile_views(loop_info):
    """GMEM windows of this step's output tile and its operand strips."""
    g, lin_idx = loop_info.index
    mi, ni = plgpu.planar_snake(lin_idx, (m_iters, n_iters),
                                config_lib.MOSAIC_DIMS.index(c.grid_minor_dim),
                                c.grid_tile_width)
    if c.cluster_size > 1:  # This CTA's half of the cluster tile.
      cta = lax.axis_index("cluster")
      if c.cluster_dimension == "m":
        mi = mi * 2 + cta
      else:
        ni = ni * 2 + cta
    rows, cols = pl.ds(mi * cta_m, cta_m), pl.ds(ni * cta_n, cta_n)
    a = a_ref.at[problem.a_index(g)]
    b = b_ref.at[problem.b_index(g)]
    a = a.at[rows, :] if a_k_major else a.at[:, rows]
    b = b.at[cols, :] if b_k_major else b.at[:, cols]
    if transposed_out:
      return a, b, o_ref.at[g].at[cols, rows]
    return a, b, o_ref.at[g].at[rows, cols]

  loop_grid = (problem.size, m_iters * n_iters)
  piece_shape = (piece_n, epi_m) if transposed_out else (epi_m, epi_n)
  out_smem_type = plgpu.SMEM((wgs, epi_slots, *piece_shape), out_dtype,
                             transforms=out_transforms)

  if c.warp_specialized:
    # A cluster along M shares B's strip, one along N shares A's: each CTA
    # loads part of the shared block and TMA multicasts it to both.
    multicast = lambda dim: ("cluster",) if c.cluster_dimension == dim else ()

    def make_pipeline(body, compute_context, pipeline_state=None):
      return plgpu.emit_pipeline_warp_specialized(
          body,
          grid=(k_iters,),
          memory_registers=_MEMORY_REGISTERS,
          in_specs=[
              plgpu.BlockSpec(a_block, a_index, transforms=transforms,
                              collective_axes=multicast("n")),
              plgpu.BlockSpec(b_block, b_index, transforms=transforms,
                              collective_axes=multicast("m")),
          ],
          wg_axis="wg",
          num_compute_wgs=wgs,
          max_concurrent_steps=c.max_concurrent_steps,
          compute_context=compute_context,
          pipeline_state=pipeline_state,
      )

    # The bodies do not change the allocations, so allocate once, outside
    # the tile loop, and share them across tiles.
    unused = lambda *_, **__: None
    allocs = make_pipeline(unused, unused).get_allocations(a_ref, b_ref)
    cross_tile = pipelines_across_tiles(c, k_iters,
                                        problem.size * m_iters * n_iters)

    def pipeline_state(loop_info):
      if not cross_tile:
        return None
      step, last = loop_info.local_index, loop_info.num_local_steps - 1
      return jnp.where(step == 0, int(plgpu.PipelinePipeline.START),
                       jnp.where(step == last,
                                 int(plgpu.PipelinePipeline.STOP),
                                 int(plgpu.PipelinePipeline.STEADY)))

    @functools.partial(pl.run_scoped, allocs=allocs, out_smem=out_smem_type,
                       collective_axes="wg")
    def _warp_specialized(allocs, out_smem):
      wg = lax.axis_index("wg")

      @plgpu.nd_loop(loop_grid, collective_axes="sm")
      def _tile_loop(loop_info):
        a_strip, b_strip, o_tile = tile_views(loop_info)

        def compute_context(run_pipeline):
          @functools.partial(pl.run_scoped, acc_ref=plgpu.ACC(acc_shape))
          def _acc_scope(acc_ref):
            if a_in_registers:  # acc is a value, carried by the pipeline.
              epilogue(run_pipeline(zero_sum()), out_smem, o_tile, wg)
            elif promoted:
              _, total = run_pipeline((acc_ref, zero_sum()))
              epilogue(total + acc_ref[...], out_smem, o_tile, wg)
            else:
              run_pipeline(acc_ref)
              epilogue(acc_ref[...], out_smem, o_tile, wg)

        def mma(indices, a_smem, b_smem, carry):
          a, b = wg_operands(wg, a_smem, b_smem)
          if a_in_registers:
            return tf32_wgmma.wgmma_a_m_major(carry, a, b)
          if promoted:
            acc_ref, total = carry
            return acc_ref, promoted_step(indices[0], acc_ref, total, a, b, 0)
          plgpu.wgmma(carry, a, b)
          plgpu.wgmma_wait(0)
          return carry

        make_pipeline(mma, compute_context, pipeline_state(loop_info))(
            a_strip, b_strip, allocations=allocs)

    # Every TMA store must land before the kernel exits.
    plgpu.wait_smem_to_gmem(0, wait_read_only=True)
    return

  # One warpgroup: it issues the copies (emit_pipeline) and the wgmmas; a
  # K-tile's buffer is released one step late, after its wgmma has finished.
  def single_pipeline(body, **carry):
    return plgpu.emit_pipeline(
        body,
        grid=(k_iters,),
        in_specs=[
            plgpu.BlockSpec(a_block, a_index, transforms=transforms,
                            delay_release=1),
            plgpu.BlockSpec(b_block, b_index, transforms=transforms,
                            delay_release=1),
        ],
        max_concurrent_steps=c.max_concurrent_steps,
        **carry,
    )

  @functools.partial(pl.run_scoped, out_smem=out_smem_type)
  def _single_warpgroup(out_smem):
    @plgpu.nd_loop(loop_grid, collective_axes="sm")
    def _tile_loop(loop_info):
      a_strip, b_strip, o_tile = tile_views(loop_info)

      @functools.partial(pl.run_scoped, acc_ref=plgpu.ACC(acc_shape))
      def _acc_scope(acc_ref):
        if promoted:
          def promoted_mma(indices, a_smem, b_smem, total):
            return promoted_step(indices[0], acc_ref, total,
                                 *wg_operands(0, a_smem, b_smem), 1)

          total = single_pipeline(promoted_mma, init_carry=zero_sum())(
              a_strip, b_strip)
          epilogue(total + acc_ref[...], out_smem, o_tile, 0)
          return

        def mma(_, a_smem, b_smem):
          plgpu.wgmma(acc_ref, *wg_operands(0, a_smem, b_smem))
          plgpu.wgmma_wait(1)

        single_pipeline(mma)(a_strip, b_strip)
        epilogue(acc_ref[...], out_smem, o_tile, 0)

  plgpu.wait_smem_to_gmem(0, wait_read_only=True)


def _output_extent(m, n, config, out_dtype, transposed):
  """(m_out, n_out, tiled): the extents over which the kernel stores an
  (m, n) product, into an (m_out, n_out) array or, with `transposed`, an
  (n_out, m_out) one, and whether it stores through tiled shared memory.

  A tiled store makes TMA view the output as (8, width) tiles, so a ragged
  output is padded to whole ones (and cut afterwards); the lane lowering
  stores rows of 16-byte multiples in place, through untiled shared memory;
  the transposed store (float32, tf32_wgmma) is always tiled. Every output
  spans at least one cluster (or CTA) tile: on an H200, outputs narrower
  than a consumer's tile (N <= 33 here) came out unwritten (warpgroup
  lowering; lane is padded alike, untested).
  """
  cluster_m, cluster_n = config.cluster_tile
  itemsize = jnp.dtype(out_dtype).itemsize
  width = _swizzle_bytes(config.epi_tile[1] * itemsize) // itemsize
  if transposed:
    return (max(_round_up(m, tf32_wgmma.WIDTH), cluster_m),
            max(_round_up(n, 8), cluster_n), True)
  if config.lowering == "lane":
    m_out = max(m, cluster_m)
    n_out = max(_round_up(n, _TMA_ALIGN_BYTES // itemsize), cluster_n)
    return m_out, n_out, m_out % 8 == 0 and n_out % width == 0
  return (max(_round_up(m, 8), cluster_m), max(_round_up(n, width), cluster_n),
          True)


def _transposed_store_adds_copy(m, n, config) -> bool:
  """Whether storing a float32 (m, n) output transposed needs a padded copy
  where the plain store does not. Such a copy costs more than it saves:
  3000x5000x700 took 111.7 us against 83.9 on an H200. (Transposed, the
  kernel's product is (n, m).)"""
  plain = _output_extent(m, n, config, jnp.float32, False)[:2] != (m, n)
  transposed = _output_extent(n, m, config, jnp.float32, True)[:2] != (n, m)
  return transposed and not plain


def _round_up(x, multiple):
  return -(-x // multiple) * multiple


@frontend.jit_product
def batched_product(a, b, *, problem, config, precision, out_dtype,
                    interpret):
  """The kernel on flattened operands: (problem.size, M, N); see tiled.py.

  float32 runs as TF32, or as three-pass TF32 at HIGHEST precision (`matmul`
  sends other precisions to the Triton backend).
  """
  c, p = config, problem
  if interpret:  # The interpreter runs each CTA as threads: use few.
    c = dataclasses.replace(c, num_sms=min(c.num_sms, 2))
  dtype, out_dtype = jnp.dtype(a.dtype), jnp.dtype(out_dtype)
  # wgmma reads 16-bit operands in either major order; TF32 and float8 from
  # shared memory only K-major: A as (M, K), B as (N, K). What is not is
  # transposed on its way into the kernel (`_tma_shape`), except that
  # compiled TF32 reads an M-major A through registers (tf32_wgmma). A
  # row-major B is N-major, but B^T is an M-major A, so a product of two
  # row-major operands runs as C^T = B^T A^T, stored transposed: no copies.
  registers_ok = (
      dtype == jnp.float32 and out_dtype == jnp.float32 and not interpret
      and c.warp_specialized and c.tile_n >= _REGISTERS_MIN_TILE_N
      and tf32_wgmma.supports(c.tile_m, c.tile_k)
      and not runs_tf32x3(dtype, precision))
  transposed_out = (registers_ok and not p.transpose_a and not p.transpose_b
                    and not _transposed_store_adds_copy(p.m, p.n, c))
  if transposed_out:
    p, a, b = p.transposed(), b, a
  a_k_major, b_k_major = not p.transpose_a, p.transpose_b
  a_in_registers = registers_ok and not a_k_major
  if a_in_registers:  # The lowering that hands inline_mgpu Mosaic GPU arrays.
    c = dataclasses.replace(c, lowering="lane")
  promote_from = None
  k_len = p.k
  if runs_tf32x3(dtype, precision):
    # Three-pass TF32 over a tripled K, built from K-major operands. The
    # barrier keeps a transpose a pass of its own, which XLA runs fast
    # (1000^3 on an H200: 12 us of operand passes with it, 27 without).
    if not a_k_major:
      a, a_k_major = lax.optimization_barrier(jnp.swapaxes(a, -1, -2)), True
    if not b_k_major:
      b, b_k_major = lax.optimization_barrier(jnp.swapaxes(b, -1, -2)), True
    a, b = tf32x3.tripled_k_operands(a, b, k_tile=c.tile_k)
    k_len = a.shape[-1]
    promote_from = 2 * k_len // 3 // c.tile_k  # Where a_hi @ b_hi starts.
  old_interpreter = interpret and not _interpreter_fills_out_of_bounds()
  if old_interpreter:  # jax 0.10's interpreter cannot model clusters.
    c = dataclasses.replace(c, cluster_dimension="none")
  if old_interpreter:
    # jax 0.10's interpreter cannot read transposed SMEM views (and has no
    # TF32 layout rules): stage A as (M, K) and B as (K, N).
    want_a_k_major, want_b_k_major = True, False
  elif a_in_registers:
    want_a_k_major, want_b_k_major = False, True
  elif config_lib.wgmma_needs_k_major(dtype):
    want_a_k_major, want_b_k_major = True, True
  else:
    want_a_k_major, want_b_k_major = a_k_major, b_k_major
  transpose_a, transpose_b = (a_k_major != want_a_k_major,
                              b_k_major != want_b_k_major)
  a_k_major, b_k_major = want_a_k_major, want_b_k_major
  swizzle = _operand_swizzle(c, dtype, a_k_major, b_k_major)
  cta_m, cta_n = c.cta_tile
  cluster_m, cluster_n = c.cluster_tile
  # Boxes are never larger than the arrays, and K spans at least as many
  # K-tiles as the pipeline keeps in flight.
  min_k = c.tile_k * c.max_concurrent_steps
  a_box = (cta_m, min_k) if a_k_major else (min_k, cta_m)
  b_box = (cta_n, min_k) if b_k_major else (min_k, cta_n)
  if old_interpreter:
    # jax 0.10's interpreter rejects out-of-bounds copies: whole tiles only.
    m_out, n_out = _round_up(p.m, cluster_m), _round_up(p.n, cluster_n)
    kp = _round_up(k_len, c.tile_k)
    shapes = (m_out, kp), (kp, n_out)
  else:
    # What TMA through Mosaic GPU can address (see the module docstring).
    # Zero padding along K adds nothing; A's rows past M and B's columns
    # past N only reach output elements that are never stored.
    shapes = (_tma_shape(a, swizzle, a_box, transpose_a),
              _tma_shape(b, swizzle, b_box, transpose_b))
    m_out, n_out = p.m, p.n
  # Both operands' copies, where they need any, in one launch.
  a, b = relayout.relayout_all([a, b], shapes=shapes,
                               transposes=(transpose_a, transpose_b),
                               interpret=interpret)
  m_out, n_out, tiled_out = _output_extent(m_out, n_out, c, out_dtype,
                                           transposed_out)
  # TMA zero-fills past the end of the shorter K extent, if they differ.
  k = max(a.shape[-1] if a_k_major else a.shape[-2],
          b.shape[-1] if b_k_major else b.shape[-2])
  kernel = functools.partial(
      _kernel, config=c, m=m_out, n=n_out, k=k, problem=p,
      a_k_major=a_k_major, b_k_major=b_k_major, swizzle=swizzle,
      tiled_out=tiled_out, promote_from=promote_from,
      a_in_registers=a_in_registers, transposed_out=transposed_out)
  clusters = (dict(cluster=(c.cluster_size,), cluster_names=("cluster",))
              if c.cluster_size > 1 else {})
  stored = (n_out, m_out) if transposed_out else (m_out, n_out)
  out = plgpu.kernel(
      kernel,
      out_type=jax.ShapeDtypeStruct((p.size, *stored), out_dtype),
      grid=(c.num_sms // c.cluster_size,),  # Persistent: one CTA per SM.
      grid_names=("sm",),
      **clusters,
      num_threads=c.num_compute_wgs + 1 if c.warp_specialized else None,
      thread_name="wg" if c.warp_specialized else None,
      compiler_params=plgpu.CompilerParams(
          lowering_semantics=_SEMANTICS[c.lowering]()),
      interpret=_interpret_params() if interpret else None,
      kernel_name="pallas_tiled_mosaic_matmul",
  )(a, b)
  shape = (p.n, p.m) if transposed_out else (p.m, p.n)
  return relayout.relayout(out, shape=shape, interpret=interpret)


KERNEL = frontend.Kernel("mosaic", batched_product, select_config)
