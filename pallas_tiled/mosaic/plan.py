"""How a product is laid out for the Mosaic GPU kernel, decided on the host.

TMA and wgmma put rules on the arrays the kernel reads and writes: which
operands must be K-major, which must be padded to whole swizzled tiles, how
wide the swizzle is and over what extent the output is stored.
`prepare` makes those decisions for one call, runs the copies they need
(`relayout.py`) and returns the static `Plan` the kernel is built from.
docs/design.md explains the rules and BUILD_NOTES.md the measurements.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import NamedTuple

import jax
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
import jax.numpy as jnp

from pallas_tiled import batching
from pallas_tiled import layouts
from pallas_tiled.mosaic import direct_store
from pallas_tiled import relayout
from pallas_tiled.mosaic import tf32_wgmma
from pallas_tiled.mosaic import tf32x3
from pallas_tiled.mosaic.config import fits_shared_memory
from pallas_tiled.mosaic.config import MosaicConfig

# TMA addresses rows in 16-byte units: every row (stride) must be a multiple.
_TMA_ALIGN_BYTES = 16
# The most elements a TMA box spans along a dimension: the kernel's own ring
# loads each operand's CTA block as one box (a 384-row block of two 192-row
# consumers failed to compile on an H200, where jax's pipeline loads it).
_TMA_BOX_SPAN = 256
# The narrowest consumer tile (tile_n) whose TF32 reads A through registers,
# unless it spans all of N: the element-wise loads of A cost about as much
# per K-step at any width, so they pay only against wide wgmmas (H200: 64x256
# tiles 2% slower than K-major ones in shared memory, 64x64 tiles 27%), or
# where the product streams its M-major operand once (an H100's float32
# 64xNxK, run transposed on 64x64 tiles: 0.91-0.99x jnp.matmul, 0.57-0.84x
# on 64x256 tiles; BUILD_NOTES.md).
_REGISTERS_MIN_TILE_N = 256
# Narrower consumers read A through registers where they cut the busiest
# SM's work by this share against 256-wide ones, which leave SMs idle (an
# H100's float32 384x5376x4096, transposed: 64x128 consumers 1.05x
# jnp.matmul, 64x256 0.75x in 84 CTA tiles for 132 SMs, 64x128 with b
# transposed 0.51x).
_NARROW_REGISTERS_MIN_TILE_N = 128
_NARROW_REGISTERS_MIN_GAIN = 0.1


# What `prepare` decides changes as the kernel learns layouts; calibration
# runs record the version they were timed with (`calibrate.py`), and the
# cost model's fit prices each run's candidates as they ran then. Version 0:
# padded outputs cut after the kernel; LAYOUT_DIRECT_STORES: unaligned
# outputs stored directly (`stores_direct`); LAYOUT_K_MAJOR_A_IN_REGISTERS:
# TF32 reads a K-major A through registers, a ragged one not copied
# (`reads_k_major_a_in_registers`).
LAYOUT_DIRECT_STORES = 1
LAYOUT_K_MAJOR_A_IN_REGISTERS = 2
LAYOUT_VERSION = LAYOUT_K_MAJOR_A_IN_REGISTERS

# The narrowest consumers that read a K-major A through registers
# (`reads_k_major_a_in_registers`): their loads cost the same at any width,
# so they pay only against wide wgmmas (H200: 64x192 consumers 21.5 ->
# 21.7 us at 616x4304x1152, 64x64 ones 6.90 -> 8.38 at 508x1333x708 and
# 7.04 -> 8.48 at 1000x768x768; 128 untimed).
_K_MAJOR_REGISTERS_MIN_TILE_N = 192

# Stages and K-steps from which TF32's register path keeps a group in
# flight (`Plan.a_in_flight`).
_IN_FLIGHT_MIN_STAGES = 4
_IN_FLIGHT_MIN_K_STEPS = 4


@dataclasses.dataclass(frozen=True)
class Plan:
  """Everything static the kernel is built from.

  a is stored (batches, M, K) if `a_k_major` else (batches, K, M); b is
  (batches, N, K) if `b_k_major` else (batches, K, N). The kernel stores an
  (m, n) output, or its (n, m) transpose with `transposed_out`, per batch
  element and K range (`config.split_k`); k is the K extent it pipelines,
  `k_steps` K-tiles of it per range. `tiled_out`: the output is stored
  through (8, swizzle)-tiled shared memory (the operands unswizzled where
  `swizzle` is 0). `promote_from`: the K-step from
  which products are summed in float32 registers (three-pass TF32), else
  None.
  `a_in_registers`: TF32 with an M-major A, read through `tf32_wgmma`.
  `a_k_in_registers`: TF32 with a K-major A, read through `tf32_wgmma` on
  the kernel's own ring (`reads_k_major_a_in_registers` says where).
  `a_rows_untiled`, `b_rows_untiled`: TMA loads that operand's K-tiles
  through an untiled view of a ring the kernel owns, so its rows need not be
  a multiple of 8 (`rows_untiled` says where).
  `interpret`: the kernel runs in Mosaic GPU's interpreter.
  `direct_out`: the consumers store the output from registers, element by
  element, into rows of any pitch (`stores_direct` says where): edge tiles
  are clamped to end at the output's edges, overlapping their neighbours
  (which store the same values), and so are the operand strips, both
  K-major and loaded untiled.
  """

  config: MosaicConfig
  problem: batching.BatchedProblem
  m: int
  n: int
  k: int
  a_k_major: bool
  b_k_major: bool
  swizzle: int
  tiled_out: bool
  promote_from: int | None
  a_in_registers: bool
  transposed_out: bool
  interpret: bool
  a_rows_untiled: bool
  b_rows_untiled: bool
  direct_out: bool
  a_k_in_registers: bool = False

  @property
  def owns_ring(self) -> bool:
    """The kernel allocates its own ring of K-tile stages
    (`kernel._ring_kernel`): ping-pong always, cooperative consumers where
    an operand loads untiled (jax's pipeline allocates its stages from the
    BlockSpecs' transforms, which cannot hold both views) or TF32 reads A
    through registers with a group in flight (`a_in_flight`), as it always
    does with a K-major A (`a_k_in_registers`)."""
    c = self.config
    return (c.ping_pong or self.a_rows_untiled or self.b_rows_untiled
            or self.a_in_flight)

  @property
  def a_in_flight(self) -> bool:
    """TF32's register path keeps one wgmma group in flight, over the
    kernel's own ring: its consumers load the next K-step's A fragments
    and wait for its stage while the tensor cores run this one's. jax's
    pipeline releases a stage once its step returns, so there each step
    waits for its own group. The ring holds a stage per group in flight,
    one fewer to load ahead: from four stages, over K-loops of four steps
    or more, in clusters too (the ring multicasts the shared operand), not
    over K ranges (the ring runs whole K). On an H200's float32 wild-tune
    shapes whose picks take it (BUILD_NOTES.md), jax's pipeline took
    1.01-1.10x its time over 8 K-steps or more (3000x6144x24576: 2619
    against 2384 us), 0.96-0.98x over 1 or 2; over three stages it lost
    (64x128x64/s3, 896x7168x2048: 85.1 -> 92.2 us); in clusters along M
    (64x256x32/s4) 1.005-1.020x over 32-256 K-steps (4096^3: 358.3
    against 351.9 us)."""
    return ((self.a_in_registers or self.a_k_in_registers)
            and _keeps_a_group_in_flight(self.config, self.k_steps))

  @property
  def split_m(self) -> bool:
    """The two consumers split the CTA tile by rows."""
    return self._split("m")

  @property
  def split_n(self) -> bool:
    return self._split("n")

  def _split(self, dim: str) -> bool:
    c = self.config
    return c.warp_specialized and not c.ping_pong and c.wg_dimension == dim

  @property
  def acc_shape(self) -> tuple[int, int]:
    return self.config.tile_m, self.config.tile_n

  @property
  def tile_grid(self) -> tuple[int, int]:
    """Cluster tiles (CTA tiles without clusters) along M and N."""
    cluster_m, cluster_n = self.config.cluster_tile
    return pl.cdiv(self.m, cluster_m), pl.cdiv(self.n, cluster_n)

  @property
  def k_steps(self) -> int:
    """K-tiles per K range: all of them, or a split_k-th share, so that
    every range starts on a K-tile (the last range may read past K, which
    TMA zero-fills)."""
    return pl.cdiv(pl.cdiv(self.k, self.config.tile_k), self.config.split_k)

  @property
  def work_items(self) -> int:
    """(batch element, K range, cluster tile) triples the CTAs walk."""
    return (self.problem.size * self.config.split_k * self.tile_grid[0]
            * self.tile_grid[1])


def round_up(x: int, multiple: int) -> int:
  return pl.cdiv(x, multiple) * multiple


def swizzle_bytes(*minor_bytes: int) -> int:
  """The widest swizzle (128/64/32 bytes) dividing every minor extent."""
  return min(plgpu.find_swizzle(b * 8) for b in minor_bytes)


def smem_transforms(swizzle: int, dtype):
  """Tiling + swizzle of a shared-memory tile, as wgmma and TMA expect."""
  return (plgpu.TilingTransform((8, swizzle // jnp.dtype(dtype).itemsize)),
          plgpu.SwizzleTransform(swizzle))


def _operand_swizzle(config, dtype, a_k_major, b_k_major) -> int:
  """The swizzle of both operand tiles in shared memory (wgmma needs one).

  It is set by the tiles' contiguous extents: tile_k for a K-major operand,
  the consumer's tile_m or tile_n for an M- or N-major one (16-bit dtypes
  only; TF32 operands are always K-major).
  """
  itemsize = jnp.dtype(dtype).itemsize
  c = config
  # tile_k always counts: wgmma steps through K in swizzle-wide groups.
  swizzle = swizzle_bytes(
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


def _tma_shape(x, swizzle, box, transpose, *, untiled=False):
  """The shape `x` (transposed if `transpose`) is zero-padded to for what
  Mosaic GPU's TMA copies can address.

  Mosaic GPU copies a swizzled tile by viewing the whole GMEM array as
  (8, swizzle / itemsize) tiles, so its rows must be a multiple of 8 and
  its contiguous axis a multiple of the swizzle width; this also makes
  every row stride a multiple of 16 bytes, as TMA requires. An `untiled`
  copy (`rows_untiled`) takes rows of any count. A dimension smaller
  than `box` is padded to it. Arrays that comply keep their shape (and
  `relayout` does not copy them).
  """
  rows, cols = (x.shape[-1], x.shape[-2]) if transpose else x.shape[-2:]
  width = swizzle // jnp.dtype(x.dtype).itemsize
  rows = rows if untiled else round_up(rows, 8)
  return (max(rows, box[0]), max(round_up(cols, width), box[1]))


def rows_untiled(config, dtype, rows, k_major, swizzle, interpret, *,
                 rounded_in_registers: bool = False) -> bool:
  """Whether compiled consumers load the K-tiles of an operand of `rows`
  rows (M for A, N for B), no multiple of 8, untiled (no padded copy).

  Where a K-tile row of a K-major operand is exactly one swizzle wide, the
  tiled and the untiled swizzled layouts of a stage are the same bytes, and
  a `plgpu.RefUnion` places both views of the ring at its start
  (`flatten_ref_union`): TMA loads a plain 2-D box into the untiled view,
  from rows of any count (zeros past the edge), and wgmma reads the tiled
  one. Only where the kernel can own its ring (`Plan.owns_ring`: ping-pong,
  or cooperative consumers, without clusters or K ranges, whose plain wgmma
  K-steps it runs, on CTA tiles one TMA box can load; float32's only where
  the operand is `rounded_in_registers`: the padded copy rounds a ragged
  operand to TF32 as cuBLAS does, where wgmma would truncate it loaded as
  stored, 1.6x jnp.matmul's error, BUILD_NOTES.md), and in
  the lane lowering, the one whose layout inference takes untiled swizzled
  refs in jax 0.10 (its warpgroup lowering refuses them). `prepare` leaves
  out TF32's M-major register path and three-pass TF32, whose K-steps are
  not plain wgmmas.
  """
  c = config
  return (_can_own_ring(c, dtype, tf32_in_registers=rounded_in_registers)
          and c.lowering == "lane" and not interpret
          and rows % 8 != 0 and k_major
          and c.tile_k * jnp.dtype(dtype).itemsize == swizzle)


def _can_own_ring(config, dtype, *, tf32_in_registers: bool = False) -> bool:
  """Whether the kernel can own its ring for config with edge tiles loaded
  untiled or stored directly (`rows_untiled`, `stores_direct`): ping-pong
  (never split into K ranges), or cooperative consumers without K ranges
  (float32's only where they read A through registers,
  `tf32_in_registers`); neither in clusters (not built there:
  clamped edge tiles would have to clamp the cluster tile, and a multicast
  K-tile be split untiled)."""
  c = config
  return c.cluster_size == 1 and (
      c.ping_pong or (c.warp_specialized and c.split_k == 1
                      and max(c.cta_tile) <= _TMA_BOX_SPAN
                      and (jnp.dtype(dtype).itemsize <= 2
                           or tf32_in_registers)))


def reads_k_major_a_in_registers(config, dtype, out_dtype, precision,
                                 interpret, k: int) -> bool:
  """Whether compiled TF32 reads a K-major A through registers
  (`tf32_wgmma`), rounded to TF32 as cuBLAS rounds, where wgmma would
  truncate it from shared memory: cooperative consumers of 64 rows, at
  least `_K_MAJOR_REGISTERS_MIN_TILE_N` wide, on the kernel's own ring, one
  wgmma group in flight (`Plan.a_in_flight`), where they could own it
  (`_can_own_ring`). A ragged A is then loaded untiled, not copied to be
  rounded. On an H200 (BUILD_NOTES.md): 1001x2304x768
  20.0 -> 19.4 us, 4100x1280x1280 59.5 -> 50.8, each without A's copy;
  616x4304x1152 (A read in place) 34.2 us either way, its error 1.59x ->
  1.00x jnp.matmul's."""
  c = config
  return (_tf32_consumers_take_registers(c, dtype, out_dtype, precision,
                                         interpret)
          and _can_own_ring(c, dtype, tf32_in_registers=True)
          and c.tile_n >= _K_MAJOR_REGISTERS_MIN_TILE_N
          and _keeps_a_group_in_flight(c, pl.cdiv(k, c.tile_k)))


def _keeps_a_group_in_flight(config, k_steps: int) -> bool:
  """Whether TF32's register path keeps a wgmma group in flight for config
  over `k_steps` K-steps (`Plan.a_in_flight`; `reads_k_major_a_in_registers`
  takes A through registers only so): no K ranges, from
  `_IN_FLIGHT_MIN_STAGES` stages and `_IN_FLIGHT_MIN_K_STEPS` K-steps."""
  return (config.split_k == 1
          and config.max_concurrent_steps >= _IN_FLIGHT_MIN_STAGES
          and k_steps >= _IN_FLIGHT_MIN_K_STEPS)


def stores_direct(config, dtype, out_dtype, m: int, n: int, *,
                  transposed_out: bool, plain_steps: bool,
                  interpret: bool) -> bool:
  """Whether compiled consumers store an (m, n) output directly
  (`Plan.direct_out`): where its rows are no 16-byte multiples, so that
  TMA could store it only padded, and a copy would cut it to shape (an
  H200's bfloat16 640x50257x128: the kernel 26 us, the cut 39; stored
  directly, the kernel 41 us; BUILD_NOTES.md).
  Where the kernel owns its ring (so no clusters and no K ranges) of 16-bit
  or float8 K-tiles, loaded untiled at the clamped edges (`rows_untiled`:
  K-tile rows of one swizzle), over plain wgmma K-steps, with the output at
  least a CTA tile each way and stored untransposed, and the staging tiles'
  longer rows (`direct_store.staging_shape`) fit in shared memory.
  """
  c = config
  cta_m, cta_n = c.cta_tile
  row_bytes = c.tile_k * jnp.dtype(dtype).itemsize  # One swizzle: untiled.
  return (not interpret and not transposed_out and plain_steps
          and n * jnp.dtype(out_dtype).itemsize % _TMA_ALIGN_BYTES != 0
          and _can_own_ring(c, dtype) and jnp.dtype(dtype).itemsize <= 2
          and row_bytes == swizzle_bytes(row_bytes)
          and m >= cta_m and n >= cta_n
          and fits_shared_memory(c, dtype, out_dtype,
                                 row_pad_bytes=direct_store.ROW_PAD_BYTES))


def output_extent(m, n, config, out_dtype, transposed):
  """(m_out, n_out, tiled): the extents over which the kernel stores an
  (m, n) product, into an (m_out, n_out) array or, with `transposed`, an
  (n_out, m_out) one, and whether it stores through tiled shared memory.

  A tiled store makes TMA view the output as (8, width) tiles, so a ragged
  output is padded to whole ones (and cut afterwards); the lane lowering
  stores rows of 16-byte multiples in place, through untiled shared memory,
  and so does a transposed config where tiles would pad the output and each
  stored row is one 128-byte swizzle (16-bit outputs; float32 partial sums
  stay tiled). Where a copy is left either way, the tiled store stays (its
  4003x1254x7943 ran 0.8% faster on an H200). Every output
  spans at least one cluster (or CTA) tile: on an H200, outputs narrower
  than a consumer's tile (N <= 33 here) came out unwritten (warpgroup
  lowering; lane is padded alike, untested).
  """
  cluster_m, cluster_n = config.cluster_tile
  itemsize = jnp.dtype(out_dtype).itemsize
  swizzle = swizzle_bytes(config.epi_tile[1] * itemsize)
  width = swizzle // itemsize
  if transposed:
    tiled = (max(round_up(m, layouts.swizzle_elements(out_dtype)), cluster_m),
             max(round_up(n, 8), cluster_n), True)
    in_place = (m % (_TMA_ALIGN_BYTES // itemsize) == 0 and m >= cluster_m
                and n >= cluster_n)
    if (config.transposed and config.lowering == "lane" and in_place
        and config.epi_tile[0] * itemsize == layouts.SWIZZLE_BYTES
        and tiled[:2] != (m, n)):
      return m, n, False
    return tiled
  if config.lowering == "lane":
    m_out = max(m, cluster_m)
    n_out = max(round_up(n, _TMA_ALIGN_BYTES // itemsize), cluster_n)
    # Tiled only where the pieces swizzle (32 bytes or more; the warpgroup
    # lowering's configs are checked for it): 16-byte float8 pieces of a
    # whole-tile output failed while tracing on an H100.
    tiled = m_out % 8 == 0 and n_out % width == 0 and swizzle >= 32
    return m_out, n_out, tiled
  return (max(round_up(m, 8), cluster_m), max(round_up(n, width), cluster_n),
          True)


def _transposed_store_pays(m, n, k, config) -> bool:
  """Whether storing a float32 (m, n) output transposed, which spares the
  (k, n) transpose of B, copies less than it spares. It may pad an output
  the plain store writes as it is (cut afterwards; a split_k output is cut
  by the partial sums' addition anyway): 3000x5000x700, a 60 MB output
  copied to spare a 14 MB transpose, took 111.7 us against 83.9 on an
  H200. (Transposed, the kernel's product is (n, m).)"""
  if config.split_k > 1:
    return True
  plain = output_extent(m, n, config, jnp.float32, False)[:2]
  n_out, m_out = output_extent(n, m, config, jnp.float32, True)[:2]
  if plain != (m, n) or (m_out, n_out) == (m, n):
    return True  # No output copy added.
  return m_out * n_out + m * n < 2 * k * n


def _wide_enough(config, m: int, n: int) -> bool:
  """Whether config's consumers are wide enough to read A through
  registers on an (m, n) product: 256 wide, or spanning all of N, or 128
  wide where 256-wide ones would leave SMs idle (the busiest SM's work at
  least 10% more, `MosaicConfig.busiest_sm_work`)."""
  width = config.tile_n
  if width >= min(_REGISTERS_MIN_TILE_N, n):
    return True
  if width < _NARROW_REGISTERS_MIN_TILE_N:
    return False
  work = lambda tile_n: dataclasses.replace(
      config, tile_n=tile_n, epi_tile_n=0).busiest_sm_work(m, n)
  return work(width) <= (1 - _NARROW_REGISTERS_MIN_GAIN) * work(
      _REGISTERS_MIN_TILE_N)


def _tf32_consumers_take_registers(config, dtype, out_dtype, precision,
                                   interpret) -> bool:
  """Whether config's compiled consumers can read TF32's A through
  registers at all (`tf32_wgmma`): one-pass TF32 to float32, cooperative
  warp-specialized consumers whose tiles `tf32_wgmma` takes. Where they do
  is `_tf32_registers_ok` (M-major A) and `reads_k_major_a_in_registers`."""
  c = config
  return (dtype == jnp.float32 and out_dtype == jnp.float32 and not interpret
          and c.warp_specialized and not c.ping_pong
          and tf32_wgmma.supports(c.tile_m, c.tile_k)
          and not tf32x3.applies(dtype, precision))


def _tf32_registers_ok(config, dtype, out_dtype, precision, interpret, *,
                       m: int, n: int):
  """Whether compiled TF32 may read an M-major A through registers
  (`tf32_wgmma`) for an (m, n) product: cooperative warp-specialized
  consumers wide enough (`_wide_enough`), float32 out."""
  return (_tf32_consumers_take_registers(config, dtype, out_dtype, precision,
                                         interpret)
          and _wide_enough(config, m, n))


def _tripled_k(a, b, a_k_major, b_k_major, tile_k):
  """Three-pass TF32 operands over a tripled K, both K-major; and the
  K-step where the large terms (a_hi @ b_hi) start."""
  # The barrier keeps a transpose a pass of its own, which XLA runs fast
  # (1000^3 on an H200: 12 us of operand passes with it, 27 without).
  if not a_k_major:
    a = lax.optimization_barrier(jnp.swapaxes(a, -1, -2))
  if not b_k_major:
    b = lax.optimization_barrier(jnp.swapaxes(b, -1, -2))
  a, b = tf32x3.tripled_k_operands(a, b, k_tile=tile_k)
  return a, b, 2 * a.shape[-1] // 3 // tile_k


def _staged_majors(dtype, a_k_major, b_k_major, *, old_interpreter,
                   a_in_registers, b_k_major_only):
  """Whether A and B are K-major in shared memory: wgmma reads 16-bit
  operands either way, TF32 and float8 from shared memory only K-major;
  TF32 with A in registers wants it M-major; `b_k_major_only` (a
  transposed config, whose tile_n may be too narrow to swizzle) B
  K-major."""
  if old_interpreter:
    # jax 0.10's interpreter cannot read transposed SMEM views (and has no
    # TF32 layout rules): stage A as (M, K) and B as (K, N).
    return True, False
  if a_in_registers:
    return False, True
  if layouts.wgmma_needs_k_major(dtype):
    return True, True
  return a_k_major, b_k_major or b_k_major_only


def _copied_shapes(a, b, config, problem, k_len, swizzle, k_majors,
                   transposes, untiled, *, old_interpreter):
  """((A's, B's shape) as `relayout` copies them, m_out, n_out)."""
  c, p = config, problem
  if old_interpreter:
    # jax 0.10's interpreter rejects out-of-bounds copies: whole tiles only.
    cluster_m, cluster_n = c.cluster_tile
    m_out, n_out = round_up(p.m, cluster_m), round_up(p.n, cluster_n)
    k_padded = round_up(k_len, c.tile_k * c.split_k)
    return ((m_out, k_padded), (k_padded, n_out)), m_out, n_out
  # Zero padding along K adds nothing; A's rows past M and B's columns past
  # N only reach output elements that are never stored. Boxes are never
  # larger than the arrays. K is not padded to the pipeline's depth: jax's
  # pipelines run fewer stages where there are fewer K-steps, and the
  # ping-pong ring cycles through its stages across tiles. (Padding it
  # doubled a K = 128 product's K-loop, and quadrupled float8's.)
  cta_m, cta_n = c.cta_tile
  a_box = (cta_m, c.tile_k) if k_majors[0] else (c.tile_k, cta_m)
  b_box = (cta_n, c.tile_k) if k_majors[1] else (c.tile_k, cta_n)
  shapes = (
      _tma_shape(a, swizzle, a_box, transposes[0], untiled=untiled[0]),
      _tma_shape(b, swizzle, b_box, transposes[1], untiled=untiled[1]))
  return shapes, p.m, p.n


def prepare(a, b, *, problem, config, precision, out_dtype, interpret,
            old_interpreter, layout_version: int = LAYOUT_VERSION):
  """(plan, a, b): the layout decisions for one call, and the operands
  copied (padded, transposed) where TMA needs it, in one launch.

  An older `layout_version` plans as the kernel did then, as calibration
  runs of that time were timed (`host_layout`).

  A row-major B is N-major, but B^T is an M-major A, so where TF32 reads
  A through registers a product of two row-major operands runs as
  C^T = B^T A^T, stored transposed: no copies. A `transposed` config runs
  that product for 16-bit operands, A^T staged K-major (its tile_n rows
  need no swizzle), in the lane lowering (whose stores take wgmma's
  transposed register layout).
  """
  c, p = config, problem
  dtype, out_dtype = jnp.dtype(a.dtype), jnp.dtype(out_dtype)
  registers_ok = functools.partial(_tf32_registers_ok, c, dtype, out_dtype,
                                   precision, interpret)
  # Its TF32 pieces are stored transposed, tf32_wgmma.WIDTH columns of the
  # consumer tile each (`epilogue`): a tile_n of no whole number of them
  # would leave columns unstored (tile_n = 16 made none, fuzz seed 2911).
  transposed_out = c.transposed or (
      registers_ok(m=p.n, n=p.m) and c.tile_n % tf32_wgmma.WIDTH == 0
      and not p.transpose_a and not p.transpose_b
      and _transposed_store_pays(p.m, p.n, p.k, c))
  if transposed_out:
    p, a, b = p.transposed(), b, a
  if c.transposed and not interpret:
    c = dataclasses.replace(c, lowering="lane")
  a_k_major, b_k_major = not p.transpose_a, p.transpose_b
  a_in_registers = registers_ok(m=p.m, n=p.n) and not a_k_major
  a_k_in_registers = (
      layout_version >= LAYOUT_K_MAJOR_A_IN_REGISTERS and a_k_major
      and reads_k_major_a_in_registers(c, dtype, out_dtype, precision,
                                       interpret, p.k))
  if a_in_registers or a_k_in_registers:
    # The lowering that hands inline_mgpu Mosaic GPU arrays.
    c = dataclasses.replace(c, lowering="lane")
  promote_from, k_len = None, p.k
  if tf32x3.applies(dtype, precision):
    a, b, promote_from = _tripled_k(a, b, a_k_major, b_k_major, c.tile_k)
    a_k_major = b_k_major = True
    k_len = a.shape[-1]
  plain_steps = promote_from is None and not a_in_registers
  direct = layout_version >= LAYOUT_DIRECT_STORES and stores_direct(
      c, dtype, c.stored_dtype(out_dtype), p.m, p.n,
      transposed_out=transposed_out, plain_steps=plain_steps,
      interpret=interpret)
  if direct:  # The lowering whose stores take strided register layouts.
    c = dataclasses.replace(c, lowering="lane")
  want = (True, True) if direct else _staged_majors(
      dtype, a_k_major, b_k_major, old_interpreter=old_interpreter,
      a_in_registers=a_in_registers, b_k_major_only=c.transposed)
  transposes = (a_k_major != want[0], b_k_major != want[1])
  a_k_major, b_k_major = want
  # jax 0.10's interpreter stages a transposed config's A^T N-major, its
  # tile_n perhaps too narrow to tile: unswizzled (0), which it allows.
  swizzle = (0 if old_interpreter and c.transposed
             else _operand_swizzle(c, dtype, a_k_major, b_k_major))
  untiled = [direct or (plain_steps and rows_untiled(
      c, dtype, rows, k_major, swizzle, interpret, rounded_in_registers=r))
             for rows, k_major, r in ((p.m, a_k_major, a_k_in_registers),
                                      (p.n, b_k_major, False))]
  shapes, m_out, n_out = _copied_shapes(
      a, b, c, p, k_len, swizzle, (a_k_major, b_k_major), transposes,
      untiled, old_interpreter=old_interpreter)
  # TF32 operands copied anyway are rounded there (as cuBLAS rounds), not
  # truncated by wgmma; A read through registers is rounded in the kernel
  # (`tf32_wgmma`), and needs no copy for it.
  tf32 = dtype == jnp.float32 and not tf32x3.applies(dtype, precision)
  a, b = relayout.relayout_all([a, b], shapes=shapes, transposes=transposes,
                               tf32s=(tf32, tf32), interpret=interpret)
  m_out, n_out, tiled_out = (m_out, n_out, False) if direct else (
      output_extent(m_out, n_out, c, c.stored_dtype(out_dtype),
                    transposed_out))
  # TMA zero-fills past the end of the shorter K extent, if they differ.
  k = max(a.shape[-1] if a_k_major else a.shape[-2],
          b.shape[-1] if b_k_major else b.shape[-2])
  plan = Plan(c, p, m_out, n_out, k, a_k_major, b_k_major, swizzle,
              tiled_out, promote_from, a_in_registers, transposed_out,
              interpret, *untiled, direct, a_k_in_registers)
  return plan, a, b


class HostLayout(NamedTuple):
  """What `prepare` decides around the kernel for one product, as the cost
  model prices it: the bytes its copies read and write, whether the
  kernel computes the transposed product (its tiles then cover (n, m)),
  and the output bytes its consumers store directly (`Plan.direct_out`)."""
  copied_bytes: int
  transposed_out: bool
  direct_bytes: int


def traced_plan(m: int, n: int, k: int, config, dtype, out_dtype, *,
                layout_version: int = LAYOUT_VERSION):
  """(plan, operands, staged): `prepare` for one compiled (m, k) @ (k, n)
  product at default precision, traced on abstract operands (of
  `layout_version` as there), the operands as stored (batch first) and as
  it copied them."""
  problem = batching.BatchedProblem.from_shapes((m, k), (k, n))
  plans = []

  def decide(a, b):
    plan, a, b = prepare(a, b, problem=problem, config=config,
                         precision=None, out_dtype=out_dtype, interpret=False,
                         old_interpreter=False,
                         layout_version=layout_version)
    plans.append(plan)
    return a, b

  operands = (jax.ShapeDtypeStruct((1, m, k), dtype),
              jax.ShapeDtypeStruct((1, k, n), dtype))
  staged = jax.eval_shape(decide, *operands)
  return plans[0], operands, staged


def host_layout(m: int, n: int, k: int, config, dtype, out_dtype, *,
                layout_version: int = LAYOUT_VERSION) -> HostLayout:
  """`prepare`'s decisions for one compiled (m, k) @ (k, n) product at
  default precision, traced on abstract operands (of `layout_version` as
  there).
  Copies: operands padded or transposed, and a padded result cut to shape
  (a K-range config's float32 partial sums are summed, not copied)."""
  dtype, out_dtype = jnp.dtype(dtype), jnp.dtype(out_dtype)
  plan, operands, staged = traced_plan(m, n, k, config, dtype, out_dtype,
                                       layout_version=layout_version)
  if plan.transposed_out:  # prepare swapped the operands.
    operands = operands[::-1]
  p = plan.problem
  copied = 0
  for source, copy, stored_k_major, k_major in (
      (operands[0], staged[0], not p.transpose_a, plan.a_k_major),
      (operands[1], staged[1], p.transpose_b, plan.b_k_major)):
    if stored_k_major != k_major or copy.shape != source.shape:
      copied += (source.size + copy.size) * dtype.itemsize
  stored = plan.m * plan.n
  if config.split_k == 1 and stored != m * n:
    copied += (stored + m * n) * out_dtype.itemsize
  return HostLayout(copied, plan.transposed_out,
                    plan.direct_out * m * n * out_dtype.itemsize)


# Plan facts that changed the kernel a config label runs without changing
# the label (`kernel_traits`): a benchmark row records those it ran with,
# so that a row timed before such a change shows as stale
# (`benchmarks/stale_picks.py`).
KERNEL_TRAITS = ("a_in_flight", "a_k_in_registers")


def kernel_traits(m: int, n: int, k: int, config, dtype,
                  out_dtype) -> tuple[str, ...]:
  """The `KERNEL_TRAITS` of `config`'s kernel for one compiled (m, k) @
  (k, n) product at default precision."""
  plan, _, _ = traced_plan(m, n, k, config, jnp.dtype(dtype),
                           jnp.dtype(out_dtype))
  return tuple(name for name in KERNEL_TRAITS if getattr(plan, name))
