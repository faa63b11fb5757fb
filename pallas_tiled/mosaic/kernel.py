"""The Hopper kernel: Pallas on Mosaic GPU, with TMA, wgmma and warpgroups.

The concept of `triton/kernel.py` (output tiles to programs, K-phases into
a float32 accumulator, zero-filled edges) in Hopper's own units, with the
staging and pipelining spelled out in Mosaic GPU primitives (`plgpu`):

* Schedule: one persistent CTA per SM walks the output tiles in planar
  snake order (`_tile_views`); with split_k, each tile once per K range.
* Pipeline: a producer warpgroup keeps `max_concurrent_steps` (A, B)
  K-tiles in flight in swizzled shared memory, loaded by TMA, which
  zero-fills past the arrays' edges (`_pipeline`).
* Consumer K-loop: two consumer warpgroups each add every K-tile's wgmma
  product into a float32 accumulator in registers (`_consumer_step`), on
  halves of one CTA tile, or with `ping_pong` on alternate whole tiles fed
  through one ring of stages, so that one stores while the other multiplies
  (`_ring_kernel`; cooperative consumers take that ring too where an
  operand of ragged rows is loaded untiled, `plan.rows_untiled`, and where
  TF32 reads A through registers, one wgmma group in flight,
  `plan.a_in_flight`, rounding a K-major A where wgmma would truncate it).
* Epilogue: each consumer casts its accumulator once and stores it through
  shared memory with TMA (`epilogue.py`), or from registers into rows TMA
  cannot store (`plan.stores_direct`: edge tiles then clamped to end at the
  edges, `_tile_views`); K ranges store float32 partial sums, added in a
  fixed order after the kernel (`_sum_k_ranges`).

What the arrays must look like for TMA and wgmma (padding, K-major
operands, the TF32 and three-pass TF32 paths) is decided on the host in
`plan.py`; docs/design.md explains it. Mosaic GPU compiles for compute
capability 9.0 (sm_90a); in interpret mode the kernel runs on the CPU in
Mosaic GPU's interpreter.
"""

from __future__ import annotations

import dataclasses
import functools

from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
import jax.numpy as jnp

from pallas_tiled import dtypes
from pallas_tiled import kernel as kernel_lib
from pallas_tiled import vma
from pallas_tiled.mosaic import epilogue
from pallas_tiled.mosaic import heuristics
from pallas_tiled.mosaic import plan as plan_lib
from pallas_tiled import relayout
from pallas_tiled.mosaic import tf32_wgmma
from pallas_tiled.mosaic.config import MOSAIC_DIMS

# Registers per thread kept by the producer warpgroup (the rest go to the two
# consumers); 40 is what jax's Hopper example uses.
_MEMORY_REGISTERS = 40
# What each of two consumers may then take (Hopper's 64K registers for 384
# threads: (512 - 40) / 2, rounded down to a multiple of 8, as
# plgpu.emit_pipeline_warp_specialized gives them).
_COMPUTE_REGISTERS = 232
# The producer's warpgroup index (after the two consumers').
_PRODUCER = 2
# Mosaic GPU's two lowerings (CompilerParams.lowering_semantics): warpgroup
# (the default from jax 0.11, which infers layouts; jax's Hopper example uses
# it) and lane (the default in 0.10, explicit layouts only).
_SEMANTICS = {
    "warpgroup": lambda: plgpu.LoweringSemantics.Warpgroup,
    "lane": lambda: plgpu.LoweringSemantics.Lane,
}


def _interpret_params():
  """The Mosaic GPU interpreter's parameters.

  Public as plgpu.InterpretGPUParams from jax 0.11; jax 0.10 has them only
  in a private module (one of the package's two private imports; the
  other registers the product primitive in autodiff.py).
  """
  params = getattr(plgpu, "InterpretGPUParams", None)
  if params is None:  # jax 0.10
    from jax._src.pallas.mosaic_gpu.interpret import params as params_lib  # pylint: disable=g-import-not-at-top
    params = params_lib.InterpretGPUParams
  return params()


def _interpreted_ctas(config) -> int:
  """The CTAs the interpreter runs: it compiles each CTA's warpgroup threads
  on every call (~0.8 s a CTA at 130x200x77), so one; two where a config
  names a handful (tests of the persistent loop over several CTAs)."""
  return min(config.num_sms, 2) if config.num_sms <= 4 else 1


def _interpreter_fills_out_of_bounds() -> bool:
  """Whether the interpreter zero-fills OOB loads and clips OOB stores
  (jax >= 0.11; 0.10 raises on any out-of-bounds copy, so interpret mode
  pads operands to whole tiles there)."""
  return hasattr(plgpu, "InterpretGPUParams")


def pipelines_across_tiles(config, k_steps: int, work_items: int) -> bool:
  """Whether each CTA runs one K-pipeline across all its tiles.

  With a pipeline per tile, the producer drains it at the end of every tile
  and refills it for the next; one pipeline across tiles
  (`plgpu.PipelinePipeline`) lets the producer load the next tile's K-tiles
  while the consumers store this one (+0.3-1.2% on an H200, BUILD_NOTES.md).
  jax allows it when the stages divide the K-steps, and it needs two work
  items (tiles, or tiles' K ranges) or more per CTA (the first STARTs the
  pipeline, the last STOPs it).
  """
  return (config.warp_specialized
          and k_steps % config.max_concurrent_steps == 0
          and work_items >= 2 * (config.num_sms // config.cluster_size))


# Schedule: which output tile a CTA computes at each step of its loop.


def _whole_strips_snake(lin_idx, grid, minor_dim: int, width: int):
  """`plgpu.planar_snake`'s order where strips of `width` tiles cover the
  minor dimension exactly. jax's helper also computes where a last, partial
  strip would go, there none: remainders by zero, which XLA's CPU compiler
  traps on (SIGFPE) where it folds them, as for a one-tile grid in the
  interpreter; a GPU discards them."""
  width, major_size = jnp.int32(width), jnp.int32(grid[1 - minor_dim])
  strip = lax.div(lin_idx, width * major_size)
  minor = strip * width + lax.rem(lin_idx, width)
  along = lax.rem(lax.div(lin_idx, width), major_size)
  major = lax.select(lax.rem(strip, jnp.int32(2)) == 0, along,
                     major_size - 1 - along)
  return (minor, major) if minor_dim == 0 else (major, minor)


def _tile_views(plan: plan_lib.Plan, a_ref, b_ref, o_ref, loop_info):
  """GMEM windows of this step's output tile and its operand strips (over
  this step's K range with split_k; o_ref then holds one slab of partial
  sums per batch element and K range)."""
  c = plan.config
  item, lin_idx = loop_info.index
  g, k_range = item // c.split_k, item % c.split_k
  minor = MOSAIC_DIMS.index(c.grid_minor_dim)
  width = c.grid_tile_width or plan.tile_grid[minor]
  snake = (_whole_strips_snake if plan.tile_grid[minor] % width == 0
           else plgpu.planar_snake)
  mi, ni = snake(lin_idx, plan.tile_grid, minor, width)
  if c.cluster_size > 1:  # This CTA's half of the cluster tile.
    cta = lax.axis_index("cluster")
    if c.cluster_dimension == "m":
      mi = mi * 2 + cta
    else:
      ni = ni * 2 + cta
  cta_m, cta_n = c.cta_tile
  row0, col0 = mi * cta_m, ni * cta_n
  if plan.direct_out:  # Edge tiles end at the edges (`Plan.direct_out`).
    row0, col0 = lax.min(row0, plan.m - cta_m), lax.min(col0, plan.n - cta_n)
  rows, cols = pl.ds(row0, cta_m), pl.ds(col0, cta_n)
  a = a_ref.at[plan.problem.a_index(g)]
  b = b_ref.at[plan.problem.b_index(g)]
  k_span = plan.k_steps * c.tile_k
  ks = slice(None) if c.split_k == 1 else pl.ds(k_range * k_span, k_span)
  a = a.at[rows, ks] if plan.a_k_major else a.at[ks, rows]
  b = b.at[cols, ks] if plan.b_k_major else b.at[ks, cols]
  o = o_ref.at[item]
  return a, b, o.at[cols, rows] if plan.transposed_out else o.at[rows, cols]


def _loop_grid(plan: plan_lib.Plan) -> tuple[int, int]:
  """The persistent loop's iteration space: (batch element, K range) pairs
  x cluster tiles."""
  m_iters, n_iters = plan.tile_grid
  return plan.problem.size * plan.config.split_k, m_iters * n_iters


# Pipeline: K-tiles of A and B staged in shared memory by TMA.


def _operand_specs(plan: plan_lib.Plan, dtype, **spec_args):
  """BlockSpecs of one K-step's (A, B) tiles in shared memory; `spec_args`
  maps "a" and "b" to extra BlockSpec arguments."""
  c = plan.config
  cta_m, cta_n = c.cta_tile
  transforms = (plan_lib.smem_transforms(plan.swizzle, dtype)
                if plan.swizzle else ())
  specs = []
  for name, k_major, width in (("a", plan.a_k_major, cta_m),
                               ("b", plan.b_k_major, cta_n)):
    block = (width, c.tile_k) if k_major else (c.tile_k, width)
    index = (lambda ki: (0, ki)) if k_major else (lambda ki: (ki, 0))
    specs.append(plgpu.BlockSpec(block, index, transforms=transforms,
                                 **spec_args.get(name, {})))
  return specs


def _multicast(config, dim: str) -> dict:
  """Copy arguments of the operand a cluster along `dim` shares (B's strip
  along M, A's along N): each CTA loads its part of the K-tile and TMA
  multicasts it to both. None for the other operand, or without
  clusters."""
  shared = config.cluster_dimension == dim
  return dict(collective_axes=("cluster",)) if shared else {}


def _warp_specialized_pipeline(plan, dtype, body, compute_context,
                               pipeline_state=None):
  """The producer warpgroup's TMA pipeline feeding the consumers' `body`.

  A cluster along M shares B's strip, one along N shares A's: each CTA
  loads part of the shared block and TMA multicasts it to both.
  """
  c = plan.config
  multicast = functools.partial(_multicast, c)
  return plgpu.emit_pipeline_warp_specialized(
      body,
      grid=(plan.k_steps,),
      memory_registers=_MEMORY_REGISTERS,
      in_specs=_operand_specs(plan, dtype, a=multicast("n"),
                              b=multicast("m")),
      wg_axis="wg",
      num_compute_wgs=c.num_compute_wgs,
      max_concurrent_steps=c.max_concurrent_steps,
      compute_context=compute_context,
      pipeline_state=pipeline_state,
  )


def _pipeline_state(plan: plan_lib.Plan, loop_info):
  """START, STEADY or STOP where one pipeline runs across a CTA's tiles
  (`pipelines_across_tiles`), else None (a pipeline per tile)."""
  if not pipelines_across_tiles(plan.config, plan.k_steps, plan.work_items):
    return None
  step, last = loop_info.local_index, loop_info.num_local_steps - 1
  return jnp.where(step == 0, int(plgpu.PipelinePipeline.START),
                   jnp.where(step == last, int(plgpu.PipelinePipeline.STOP),
                             int(plgpu.PipelinePipeline.STEADY)))


# Consumer K-loop: each K-step's wgmma product into the accumulator.


def _wg_operands(plan: plan_lib.Plan, wg, a_smem, b_smem):
  """Consumer wg's (tile_m, tile_k) and (tile_k, tile_n) wgmma views."""
  c = plan.config
  rows = pl.ds(wg * c.tile_m, c.tile_m) if plan.split_m else slice(None)
  cols = pl.ds(wg * c.tile_n, c.tile_n) if plan.split_n else slice(None)
  if plan.a_in_registers:  # tf32_wgmma's (k, m) and (n, k) tiles.
    return a_smem.at[:, rows], b_smem.at[cols]
  if plan.a_k_in_registers:  # tf32_wgmma's (m, k) and (n, k) tiles.
    return a_smem.at[rows], b_smem.at[cols]
  a = (a_smem.at[rows] if plan.a_k_major
       else a_smem.at[:, rows].transpose((1, 0)))
  b = (b_smem.at[cols].transpose((1, 0)) if plan.b_k_major
       else b_smem.at[:, cols])
  return a, b


def _step_product(a, b, shape):
  """One K-step's wgmma product, in a fresh accumulator, as a value."""
  def product(acc_ref):
    plgpu.wgmma(acc_ref, a, b)
    return acc_ref[...]
  return pl.run_scoped(product, plgpu.ACC(shape))


def _zero_sum(plan: plan_lib.Plan):
  """Zeros in wgmma's register layout, which both lowerings carry (a
  fresh accumulator, read; layout_cast is not in jax 0.10's interpreter)."""
  return pl.run_scoped(lambda acc_ref: acc_ref[...],
                       plgpu.ACC(plan.acc_shape))


def _promoted_step(plan, k_step, acc_ref, total, a, b, wait):
  """Three-pass TF32's K-step: its product into acc_ref before
  `promote_from` (the small terms), else into the float32 `total` (its new
  value), as wgmma's own accumulation is not accurate enough for them."""
  def into_accumulator():
    plgpu.wgmma(acc_ref, a, b)
    plgpu.wgmma_wait(wait)
    return total

  return lax.cond(k_step < plan.promote_from, into_accumulator,
                  lambda: total + _step_product(a, b, plan.acc_shape))


def _consumer_step(plan, wg, indices, a_smem, b_smem, carry, *, wait):
  """One K-step of consumer wg; `carry` is its accumulator ref, the value
  that tf32_wgmma adds into, or (ref, promoted float32 sum)."""
  a, b = _wg_operands(plan, wg, a_smem, b_smem)
  if plan.a_in_registers:
    return tf32_wgmma.wgmma_a_in_registers(carry, a, b, a_k_major=False)
  if plan.promote_from is not None:
    acc_ref, total = carry
    return acc_ref, _promoted_step(plan, indices[0], acc_ref, total, a, b,
                                   wait)
  plgpu.wgmma(carry, a, b)
  plgpu.wgmma_wait(wait)
  return carry


def _accumulate(plan, run_pipeline, acc_ref):
  """Runs a tile's K-loop from a zero accumulator; returns the sum."""
  if plan.a_in_registers:  # acc is a value, carried by the pipeline.
    return run_pipeline(_zero_sum(plan))
  if plan.promote_from is not None:
    _, total = run_pipeline((acc_ref, _zero_sum(plan)))
    return total + acc_ref[...]
  run_pipeline(acc_ref)
  return acc_ref[...]


# The kernel: one persistent CTA, warp-specialized or one warpgroup.


def _warp_specialized(plan, a_ref, b_ref, o_ref):
  """A producer warpgroup loads K-tiles; two consumers multiply and store."""
  dtype = a_ref.dtype
  # The bodies do not change the allocations, so allocate once, outside
  # the tile loop, and share them across tiles.
  unused = lambda *_, **__: None
  allocs = _warp_specialized_pipeline(
      plan, dtype, unused, unused).get_allocations(a_ref, b_ref)

  @functools.partial(pl.run_scoped, allocs=allocs,
                     out_smem=epilogue.smem_type(plan, o_ref.dtype),
                     collective_axes="wg")
  def _scope(allocs, out_smem):
    wg = lax.axis_index("wg")

    @plgpu.nd_loop(_loop_grid(plan), collective_axes="sm")
    def _tile_loop(loop_info):
      a_strip, b_strip, o_tile = _tile_views(plan, a_ref, b_ref, o_ref,
                                             loop_info)

      def compute_context(run_pipeline):
        @functools.partial(pl.run_scoped, acc_ref=plgpu.ACC(plan.acc_shape))
        def _acc_scope(acc_ref):
          acc = _accumulate(plan, run_pipeline, acc_ref)
          epilogue.store(plan, acc, out_smem, o_tile, wg, o_ref.dtype)

      step = functools.partial(_consumer_step, plan, wg, wait=0)
      _warp_specialized_pipeline(
          plan, dtype, step, compute_context,
          _pipeline_state(plan, loop_info))(
              a_strip, b_strip, allocations=allocs)


# A ring the kernel owns (`plan.owns_ring`): with ping_pong the two
# consumers take alternate tiles, else both take every tile, each its half.


def _ring_types(plan: plan_lib.Plan, dtype):
  """Shared memory of the ring the consumers' K-tiles pass through:
  max_concurrent_steps stages of (A, B) tiles. An operand loaded untiled
  (`plan.a_rows_untiled`, `b_rows_untiled`) has stages that are a union of
  two views of the same bytes: untiled, which TMA loads, and tiled, which
  wgmma reads."""
  ring = lambda spec, transforms: plgpu.SMEM(
      (plan.config.max_concurrent_steps, *spec.block_shape), dtype,
      transforms=transforms)
  rings = []
  for spec, untiled in zip(_operand_specs(plan, dtype),
                           (plan.a_rows_untiled, plan.b_rows_untiled)):
    tiled = ring(spec, spec.transforms)
    rings.append(plgpu.RefUnion(
        ring(spec, (plgpu.SwizzleTransform(plan.swizzle),)), tiled)
                 if untiled else tiled)
  return rings


def _ring_barriers(plan: plan_lib.Plan):
  """(loaded, consumed): per stage, loaded when the TMA copies of both of
  a K-step's tiles have landed, consumed when the consumers' wgmmas are
  done with them. Mosaic GPU tracks each barrier's phase per thread, by
  counting its waits, so ping-pong consumers have a set of barriers each:
  waiting only on its own K-steps, each stays in step. Cooperative
  consumers share one set, each waiting on every K-step and both arriving
  when done with it. In a cluster each CTA's producer multicasts its part
  of the shared operand's K-tile into both CTAs' stages, so a stage is
  consumed once the consumers of both CTAs are done with it: the consumed
  barriers are the cluster's (an arrival reaches both CTAs)."""
  c = plan.config
  sets = 2 if c.ping_pong else 1
  users = 1 if c.ping_pong else c.num_compute_wgs
  barriers = sets * c.max_concurrent_steps
  consumed = (functools.partial(plgpu.ClusterBarrier,
                                collective_axes=("cluster",))
              if c.cluster_size > 1 else plgpu.Barrier)
  return (plgpu.Barrier(num_arrivals=2, num_barriers=barriers),
          consumed(num_arrivals=users, num_barriers=barriers))


def _barrier_set(plan: plan_lib.Plan, tile):
  """The set of ring barriers the CTA's `tile`-th tile uses: its
  ping-pong consumer's (tile % 2), or the one set of cooperative ones."""
  return tile % 2 if plan.config.ping_pong else 0


def _k_tile(plan: plan_lib.Plan, strip, k_major: bool, k):
  """K-tile k of an operand strip."""
  ks = pl.ds(k * plan.config.tile_k, plan.config.tile_k)
  return strip.at[:, ks] if k_major else strip.at[ks]


def _produce(plan, tile, last, a_strip, b_strip, rings, barriers) -> None:
  """The producer's loads of the CTA's `tile`-th tile into the ring, each
  into a stage whose last use is consumed.
  Use u (the u-th K-step the CTA loads) goes to stage u % stages. After
  the `last` tile, it waits for the last uses' consumption too, so that it
  has seen every phase of its barriers (the interpreter checks it)."""
  stages, k_steps = plan.config.max_concurrent_steps, plan.k_steps
  (a_ring, b_ring), (loaded, consumed) = rings, barriers
  multicast = functools.partial(_multicast, plan.config)

  def wait_consumed(use):
    owner = _barrier_set(plan, use // k_steps)
    plgpu.barrier_wait(consumed.at[owner * stages + use % stages])

  @pl.loop(0, k_steps)
  def _step(k):
    use = tile * k_steps + k
    stage = use % stages
    pl.when(use >= stages)(lambda: wait_consumed(use - stages))
    barrier = loaded.at[_barrier_set(plan, tile) * stages + stage]
    plgpu.copy_gmem_to_smem(_k_tile(plan, a_strip, plan.a_k_major, k),
                            a_ring.at[stage], barrier, **multicast("n"))
    plgpu.copy_gmem_to_smem(_k_tile(plan, b_strip, plan.b_k_major, k),
                            b_ring.at[stage], barrier, **multicast("m"))

  @pl.when(tile == last)
  def _drain():
    uses = (tile + 1) * k_steps
    pl.loop(lax.max(uses - stages, 0), uses)(wait_consumed)


def _consume(plan, wg, tile, rings, barriers, acc):
  """Consumer wg's K-loop over the CTA's `tile`-th tile: one wgmma group in
  flight, each stage released once the next K-step's group is issued and
  its own has finished. acc: the accumulator ref, or on TF32's register
  path (`plan.a_in_flight`) its value, in `tf32_wgmma.IN_FLIGHT_LAYOUT`;
  returns the sum."""
  stages, k_steps = plan.config.max_concurrent_steps, plan.k_steps
  (a_ring, b_ring), (loaded, consumed) = rings, barriers
  first, owner = tile * k_steps, _barrier_set(plan, tile) * stages
  release = lambda k: plgpu.barrier_arrive(
      consumed.at[owner + (first + k) % stages])

  def step(k, acc):
    stage = (first + k) % stages
    plgpu.barrier_wait(loaded.at[owner + stage])
    operands = _wg_operands(plan, wg, a_ring.at[stage], b_ring.at[stage])
    if plan.a_in_flight:
      acc = tf32_wgmma.wgmma_a_in_registers(
          acc, *operands, a_k_major=plan.a_k_in_registers, in_flight=True)
    else:
      plgpu.wgmma(acc, *operands)
      plgpu.wgmma_wait(1)
    pl.when(k > 0)(lambda: release(k - 1))
    return acc

  if plan.a_in_flight:  # A value, carried; see `_in_flight_steps`.
    acc = tf32_wgmma.settle(_in_flight_steps(k_steps, step, acc))
  else:
    @pl.loop(0, k_steps)
    def _step(k):
      step(k, acc)

    plgpu.wgmma_wait(0)
  release(k_steps - 1)
  return acc if plan.a_in_flight else acc[...]


def _in_flight_steps(k_steps, step, acc):
  """acc after `step(k, acc)` for each K-step k, unrolled in pairs: the A
  fragments a group in flight reads from registers must not be written
  until it is waited for (PTX leaves that to the program; ptxas does not
  see to it), and a loop body run once per K-step would load the next
  step's fragments into the registers of the group in flight (wrong
  results on an H200). In pairs, the loads alternate between two sets."""
  pairs = k_steps // 2
  if pairs:
    acc = lax.fori_loop(0, 2 * pairs, step, acc, unroll=2)
  return step(k_steps - 1, acc) if k_steps % 2 else acc


def _ring_kernel(plan, a_ref, b_ref, o_ref):
  """A producer warpgroup loads K-tiles into the kernel's own ring; with
  ping_pong two consumers take alternate tiles, so that one's epilogue
  overlaps the other's wgmmas, else both take every tile, each its half."""
  dtype = a_ref.dtype

  @functools.partial(pl.run_scoped, rings=_ring_types(plan, dtype),
                     barriers=_ring_barriers(plan),
                     out_smem=epilogue.smem_type(plan, o_ref.dtype),
                     collective_axes="wg")
  def _scope(rings, barriers, out_smem):
    wg = lax.axis_index("wg")
    # (loaded, read) views of each operand's stages: one ring, or an
    # untiled and a tiled view of it.
    (a_loads, a_reads), (b_loads, b_reads) = (
        ring if untiled else (ring, ring) for ring, untiled in zip(
            rings, (plan.a_rows_untiled, plan.b_rows_untiled)))

    def each_tile(body):
      @plgpu.nd_loop(_loop_grid(plan), collective_axes="sm")
      def _tile_loop(loop_info):
        body(loop_info.local_index, loop_info.num_local_steps - 1,
             *_tile_views(plan, a_ref, b_ref, o_ref, loop_info))

    @pl.when(wg == _PRODUCER)
    def _producer():
      plgpu.set_max_registers(_MEMORY_REGISTERS, action="decrease")
      each_tile(lambda tile, last, a_strip, b_strip, _: _produce(
          plan, tile, last, a_strip, b_strip, (a_loads, b_loads), barriers))

    @pl.when(wg != _PRODUCER)
    def _consumers():
      plgpu.set_max_registers(_COMPUTE_REGISTERS, action="increase")

      def consume(tile, last, a_strip, b_strip, o_tile):
        del last, a_strip, b_strip  # The producer's.

        @functools.partial(pl.run_scoped, acc_ref=plgpu.ACC(plan.acc_shape))
        def _acc_scope(acc_ref):
          acc = (tf32_wgmma.start(acc_ref[...]) if plan.a_in_flight
                 else acc_ref)  # Zeros, or the ref wgmma adds into.
          acc = _consume(plan, wg, tile, (a_reads, b_reads), barriers, acc)
          epilogue.store(plan, acc, out_smem, o_tile, wg, o_ref.dtype)

      if plan.config.ping_pong:  # Alternate tiles.
        each_tile(lambda tile, *views: pl.when(tile % 2 == wg)(
            lambda: consume(tile, *views)))
      else:
        each_tile(consume)


def _single_warpgroup(plan, a_ref, b_ref, o_ref):
  """One warpgroup issues the copies and the wgmmas; a K-tile's buffer is
  released one step late, after its wgmma has finished."""
  release_late = dict(delay_release=1)
  specs = _operand_specs(plan, a_ref.dtype, a=release_late, b=release_late)

  @functools.partial(pl.run_scoped,
                     out_smem=epilogue.smem_type(plan, o_ref.dtype))
  def _scope(out_smem):
    @plgpu.nd_loop(_loop_grid(plan), collective_axes="sm")
    def _tile_loop(loop_info):
      a_strip, b_strip, o_tile = _tile_views(plan, a_ref, b_ref, o_ref,
                                             loop_info)

      @functools.partial(pl.run_scoped, acc_ref=plgpu.ACC(plan.acc_shape))
      def _acc_scope(acc_ref):
        step = functools.partial(_consumer_step, plan, 0, wait=1)

        def run_pipeline(carry):
          if plan.promote_from is None:  # wgmma adds into acc_ref.
            body = lambda indices, a_smem, b_smem: step(
                indices, a_smem, b_smem, carry)
            return plgpu.emit_pipeline(
                body, grid=(plan.k_steps,), in_specs=specs,
                max_concurrent_steps=plan.config.max_concurrent_steps)(
                    a_strip, b_strip)
          _, total = carry  # Only the float32 sum is carried.
          body = lambda indices, a_smem, b_smem, total: step(
              indices, a_smem, b_smem, (acc_ref, total))[1]
          total = plgpu.emit_pipeline(
              body, grid=(plan.k_steps,), in_specs=specs,
              max_concurrent_steps=plan.config.max_concurrent_steps,
              init_carry=total)(a_strip, b_strip)
          return acc_ref, total

        acc = _accumulate(plan, run_pipeline, acc_ref)
        epilogue.store(plan, acc, out_smem, o_tile, 0, o_ref.dtype)


def _kernel(a_ref, b_ref, o_ref, *, plan: plan_lib.Plan):
  """One persistent CTA: loops over its output tiles, pipelines K-tiles.

  a_ref, b_ref and o_ref are laid out as `plan` says; batch element g reads
  a[problem.a_index(g)] and b[problem.b_index(g)].
  """
  if plan.owns_ring:
    _ring_kernel(plan, a_ref, b_ref, o_ref)
  elif plan.config.warp_specialized:
    _warp_specialized(plan, a_ref, b_ref, o_ref)
  else:
    _single_warpgroup(plan, a_ref, b_ref, o_ref)
  # Every TMA store must land before the kernel exits.
  plgpu.wait_smem_to_gmem(0, wait_read_only=True)


@kernel_lib.jit_product
def batched_product(a, b, *, problem, config, precision, out_dtype,
                    interpret):
  """The kernel on flattened operands: (problem.size, M, N); see
  triton/kernel.py.

  float32 runs as TF32, or as three-pass TF32 at HIGHEST precision (`matmul`
  sends other precisions to the Triton backend).
  """
  old_interpreter = interpret and not _interpreter_fills_out_of_bounds()
  if interpret:
    config = dataclasses.replace(config, num_sms=_interpreted_ctas(config))
  if old_interpreter:  # jax 0.10's interpreter cannot model clusters.
    config = dataclasses.replace(config, cluster_dimension="none")
  plan, a, b = plan_lib.prepare(
      a, b, problem=problem, config=config, precision=precision,
      out_dtype=out_dtype, interpret=interpret,
      old_interpreter=old_interpreter)
  c, p = plan.config, plan.problem
  clusters = (dict(cluster=(c.cluster_size,), cluster_names=("cluster",))
              if c.cluster_size > 1 else {})
  stored = (plan.n, plan.m) if plan.transposed_out else (plan.m, plan.n)
  out = plgpu.kernel(
      functools.partial(_kernel, plan=plan),
      out_type=vma.out_struct((p.size * c.split_k, *stored),
                              c.stored_dtype(out_dtype), a, b),
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
  shape = (p.n, p.m) if plan.transposed_out else (p.m, p.n)
  if c.split_k > 1:
    return _sum_k_ranges(out, c.split_k, shape, out_dtype)
  return relayout.relayout(out, shape=shape, interpret=interpret)


def _sum_k_ranges(partials, split_k, shape, out_dtype):
  """(size * split_k, rows, cols) float32 partial sums, padded, to the
  (size, *shape) result: one XLA pass that cuts the padding, adds each
  element's split_k partials in a fixed order and casts the sum."""
  rows, cols = shape
  partials = partials.reshape(-1, split_k, *partials.shape[1:])
  return dtypes.cast_result(partials[..., :rows, :cols].sum(axis=1),
                            out_dtype)


KERNEL = kernel_lib.Kernel("mosaic", batched_product,
                           heuristics.select_config)
