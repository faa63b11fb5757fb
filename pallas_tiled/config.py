"""Tile configurations: the frozen `TileConfig` (Triton) and `MosaicConfig`
(Mosaic GPU), their checks and default heuristics.

A config says how an (M, N) output is cut into (block_m, block_n) tiles, one
grid program each, and how wide each K-phase is (block_k). `num_warps` and
`num_stages` are the Triton knobs: threads per program and how many K-phases
the software pipeliner keeps in flight. `group_m` orders the programs for L2
reuse, `split_k` splits K across programs for outputs too small to fill the
GPU, `k_major_b` stages B as Bᵀ, which TF32 matrix units need, and
`align_operands` copies operands whose rows are not 16-byte aligned.

`MosaicConfig` holds the Hopper kernel's knobs (wgmma tiles, pipeline
depth, warp specialization, tile order, clusters, epilogue pieces).

Any positive tile is valid in interpret mode (the seeds' 3x3 and 4x4 toy
tiles run on the CPU). The compiled Triton path has stricter rules, checked by
`check_triton_tiles` before anything is traced.
"""

from __future__ import annotations

import dataclasses

from jax import lax
import numpy as np

# Largest dynamic shared memory one thread block may opt into, in bytes, by
# CUDA compute capability (CUDA C++ Programming Guide, "Compute Capabilities").
SHARED_MEMORY_LIMIT_BYTES = {
    (7, 0): 96 * 1024,
    (7, 5): 64 * 1024,
    (8, 0): 163 * 1024,
    (8, 6): 99 * 1024,
    (8, 7): 163 * 1024,
    (8, 9): 99 * 1024,
    (9, 0): 227 * 1024,
    (10, 0): 227 * 1024,
    (12, 0): 99 * 1024,
}
# What Mosaic GPU allocates in shared memory besides a kernel's buffers: the
# pipeline's barriers (64 bytes with 4 stages on an H200), with room to spare.
_BARRIER_BYTES = 1024

# tl.dot needs every dimension of both operands to be at least 16.
MIN_DOT_DIM = 16
# Streaming multiprocessors the heuristics fill (an H100 or H200).
SM_COUNT = 132
# MosaicConfig's dimension names, and Mosaic GPU's two lowerings
# (CompilerParams.lowering_semantics; see mosaic.py).
MOSAIC_DIMS = ("m", "n")
MOSAIC_LOWERINGS = ("warpgroup", "lane")
# Elements of one consumer's tile where the Mosaic kernel keeps a float32
# sum beside wgmma's accumulator (three-pass TF32): two 64x128 float32
# tiles are 128 of a consumer thread's registers.
PROMOTED_MAX_TILE = 64 * 128


def _is_power_of_two(x: int) -> bool:
  return x > 0 and x & (x - 1) == 0


def next_power_of_two(x: int) -> int:
  return 1 << max(0, int(x) - 1).bit_length()


def check_fields(config, *, minimum=None, choices=None) -> None:
  """Type- and range-checks a frozen config dataclass's fields in place.

  bool fields must be bools; str fields must be in `choices[name]`; int
  fields must be ints of at least `minimum.get(name, 1)`. numpy scalars are
  normalized to Python bools and ints, so equal configs hash equal.
  """
  cls = type(config).__name__
  for field in dataclasses.fields(config):
    name, value = field.name, getattr(config, field.name)
    if field.type in ("bool", bool):
      if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{cls}.{name} must be a bool, got {value!r}.")
      object.__setattr__(config, name, bool(value))
    elif field.type in ("str", str):
      if value not in choices[name]:
        raise ValueError(f"{cls}.{name} must be one of"
                         f" {tuple(choices[name])}, got {value!r}.")
    else:
      if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"{cls}.{name} must be an int, got {value!r} of type"
            f" {type(value).__name__}.")
      low = (minimum or {}).get(name, 1)
      if value < low:
        raise ValueError(
            f"{cls}.{name} must be "
            + ("positive" if low == 1 else f">= {low}") + f", got {value}.")
      object.__setattr__(config, name, int(value))


@dataclasses.dataclass(frozen=True)
class TileConfig:
  """Output tile (block_m x block_n), K-phase width block_k and kernel knobs.

  num_warps, num_stages: Triton's threads per program (in warps of 32) and
    the depth of its K-phase software pipeline.
  group_m: programs walk the output tiles in groups of `group_m` tile rows,
    column by column within a group, so that concurrently running programs
    share their strips of `a` and `b` in L2 (1 is plain row-major order).
  split_k: K is cut into `split_k` ranges computed by separate programs whose
    float32 partial sums are added afterwards; for small M x N, large K.
  k_major_b: B is transposed to (N, K) before the kernel so that its K-tiles
    are K-major in shared memory, as Hopper's TF32 wgmma requires.
  align_operands: where a row of `a` or `b` is not a multiple of 16 bytes
    (e.g. K = 4097), copy the operands into zero-padded buffers whose rows
    are, so that tile loads can be wide and aligned. Costs one pass over the
    operands; the output is written in place, never copied.
  """

  block_m: int
  block_n: int
  block_k: int
  num_warps: int = 4
  num_stages: int = 3
  group_m: int = 1
  split_k: int = 1
  k_major_b: bool = False
  align_operands: bool = False

  backend = "triton"  # Not a field: which backend runs this config.

  def __post_init__(self):
    check_fields(self)
    if not _is_power_of_two(self.num_warps):
      raise ValueError(
          f"TileConfig.num_warps must be a power of two, got {self.num_warps}."
      )

  @property
  def label(self) -> str:
    """A compact name, e.g. 128x256x64/w8/s3/g8/sk2/kmajor/align."""
    parts = [f"{self.block_m}x{self.block_n}x{self.block_k}",
             f"w{self.num_warps}", f"s{self.num_stages}"]
    if self.group_m != 1:
      parts.append(f"g{self.group_m}")
    if self.split_k != 1:
      parts.append(f"sk{self.split_k}")
    if self.k_major_b:
      parts.append("kmajor")
    if self.align_operands:
      parts.append("align")
    return "/".join(parts)

  @classmethod
  def from_label(cls, label: str) -> "TileConfig":
    """Parses `label` back into a TileConfig (missing knobs take defaults)."""
    blocks, *knobs = label.strip().split("/")
    try:
      block_m, block_n, block_k = (int(x) for x in blocks.split("x"))
      kwargs = {}
      for knob in knobs:
        for prefix, name in (("sk", "split_k"), ("w", "num_warps"),
                             ("s", "num_stages"), ("g", "group_m")):
          if knob.startswith(prefix) and knob[len(prefix):].isdigit():
            kwargs[name] = int(knob[len(prefix):])
            break
        else:
          if knob not in ("kmajor", "align"):
            raise ValueError(f"unknown knob {knob!r}")
          kwargs["k_major_b" if knob == "kmajor" else "align_operands"] = True
    except ValueError as e:
      raise ValueError(
          f"config label {label!r} is not BMxBNxBK[/wW][/sS][/gG][/skS]"
          f"[/kmajor][/align]: {e}") from None
    return cls(block_m, block_n, block_k, **kwargs)

  def shared_memory_bytes(self, dtype) -> int:
    """Estimated shared memory per program: num_stages staged (A, B) K-tiles."""
    itemsize = np.dtype(dtype).itemsize
    tile_elems = (self.block_m + self.block_n) * self.block_k
    return self.num_stages * tile_elems * itemsize


def check_power_of_two_tiles(config: TileConfig, fields, *, why: str) -> None:
  """Raises ValueError unless each named field of `config` is a power of two."""
  for name in fields:
    value = getattr(config, name)
    if not _is_power_of_two(value):
      raise ValueError(
          f"config.{name}={value} is not a power of two, which {why}."
          f" Try {next_power_of_two(value)}, or run with interpret=True."
      )


def check_triton_tiles(config: TileConfig, dtype, compute_capability) -> None:
  """Raises ValueError if the compiled Triton tiled kernel cannot take `config`."""
  why = "Triton needs for every block (tensor sizes must be powers of two)"
  check_power_of_two_tiles(config, ("block_m", "block_n", "block_k"), why=why)
  for name in ("block_m", "block_n", "block_k"):
    value = getattr(config, name)
    if value < MIN_DOT_DIM:
      raise ValueError(
          f"config.{name}={value} is below {MIN_DOT_DIM}: Triton's dot needs"
          f" every operand dimension >= {MIN_DOT_DIM}. Use {MIN_DOT_DIM} or"
          " more, or run with interpret=True."
      )
  limit = SHARED_MEMORY_LIMIT_BYTES.get(compute_capability)
  needed = config.shared_memory_bytes(dtype)
  if limit is not None and needed > limit:
    raise ValueError(
        f"{config} needs about {needed} bytes of shared memory per program"
        f" (num_stages={config.num_stages} x (block_m + block_n) x block_k x"
        f" {np.dtype(dtype).itemsize} bytes), over the {limit}-byte limit of"
        f" compute capability {compute_capability[0]}.{compute_capability[1]}."
        " Lower num_stages or the block sizes."
    )


def fit_block(dim: int, lo: int, hi: int) -> int:
  """The power of two nearest above `dim`, clamped to [lo, hi]."""
  return min(hi, max(lo, next_power_of_two(dim)))


# The widest shared-memory swizzle: both kernels' default K-phases and
# Mosaic's epilogue pieces are rows of this many bytes.
SWIZZLE_BYTES = 128


def rows_alignment(dtype, alignment_bytes: int = 16) -> int:
  """Elements per `alignment_bytes`: rows whose length is not a multiple of
  16 bytes' worth cannot be loaded with wide, aligned accesses."""
  return alignment_bytes // np.dtype(dtype).itemsize


def swizzle_elements(dtype) -> int:
  """Elements in one SWIZZLE_BYTES row: 32 float32, 64 16-bit, 128 float8."""
  return rows_alignment(dtype, SWIZZLE_BYTES)


def has_unaligned_rows(n: int, k: int, dtype,
                       alignment_bytes: int = 16) -> bool:
  """Whether a row of `a` (K long) or of `b` (N long) is not a multiple of
  `alignment_bytes`."""
  step = rows_alignment(dtype, alignment_bytes)
  return bool(k % step or n % step)


def wgmma_needs_k_major(dtype) -> bool:
  """Whether Hopper's wgmma needs both operands K-major for `dtype`: TF32
  and float8 do; only 16-bit operands may be stored either way."""
  return np.dtype(dtype).itemsize != 2


def is_highest(precision) -> bool:
  """Whether `precision` asks for full float32 products."""
  if isinstance(precision, tuple):
    return lax.Precision.HIGHEST in precision
  return precision == lax.Precision.HIGHEST


def default_tiled_config(m: int, n: int, k: int, dtype,
                         precision=None) -> TileConfig:
  """A plain heuristic for the tiled kernel, from measurements on an H200.

  * Large outputs: 128x256 tiles (16-bit) or 128x128 (float32) in groups of
    16 tile rows for L2 reuse.
  * Outputs with fewer of those tiles than half the SMs: 128x64 tiles, so
    that every SM gets work (1024^3 bfloat16 runs 2.1x faster than with
    128x256).
  * Skinny outputs (M <= 64, decode): narrow 64-column tiles with deep
    K-phases; split K when there are too few tiles for the SMs.
  * float32 and float8 stage B K-major (their wgmma needs it; float8
    4096^3 ran 1.27x faster with it), except for skinny outputs: there the
    product only streams B once, and a transpose pass would cost more than
    the product (float32 16x8192x8192 ran 3.3x slower than jnp.matmul with
    it, float8 1.6x slower than without).
  * Rows that are not 16-byte multiples get aligned copies.
  * K-phases of 128 bytes (32 float32, 64 16-bit, 128 float8 elements).
  See BUILD_NOTES.md for the numbers; the H200 table overrides this.
  """
  wide = np.dtype(dtype).itemsize == 4
  block_k = swizzle_elements(dtype)  # 128-byte K-phases.
  common = dict(k_major_b=wgmma_needs_k_major(dtype) and m > 64,
                align_operands=has_unaligned_rows(n, k, dtype))
  if m <= 64:
    block_m, block_n = fit_block(m, MIN_DOT_DIM, 64), fit_block(n, MIN_DOT_DIM, 64)
    tiles = -(-m // block_m) * -(-n // block_n)
    split_k = 1
    while tiles * split_k * 2 <= SM_COUNT and k // (split_k * 2) >= 1024:
      split_k *= 2
    return TileConfig(block_m, block_n, fit_block(k, MIN_DOT_DIM, 2 * block_k),
                      num_warps=4, num_stages=4, split_k=split_k, **common)
  block_n = 128 if wide else 256
  if -(-m // 128) * -(-n // block_n) < SM_COUNT // 2:
    return TileConfig(fit_block(m, MIN_DOT_DIM, 128), fit_block(n, MIN_DOT_DIM, 64),
                      fit_block(k, MIN_DOT_DIM, block_k), num_warps=4,
                      num_stages=4, **common)
  if wide and is_highest(precision):
    return TileConfig(64, 128, 32, num_warps=4, num_stages=4, group_m=16,
                      **common)
  return TileConfig(128, block_n, fit_block(k, MIN_DOT_DIM, block_k),
                    num_warps=4 if wide else 8, num_stages=4 if wide else 3,
                    group_m=16, **common)


def default_naive_config(m: int, n: int, k: int, dtype,
                         precision=None) -> TileConfig:
  """The naive kernel's tiles: 32x32 outputs per program, like a 2-D block."""
  del k, dtype, precision  # The naive kernel stages nothing along K.
  return TileConfig(fit_block(m, 1, 32), fit_block(n, 1, 32), 1, num_warps=4,
                    num_stages=1)


@dataclasses.dataclass(frozen=True)
class MosaicConfig:
  """Tiles and knobs of the Mosaic GPU kernel (`mosaic.py`).

  tile_m, tile_n: the output tile of one consumer warpgroup (its float32
    accumulator lives in registers: tile_m * tile_n / 128 per thread, so keep
    tile_m * tile_n <= 128 * 256, and <= PROMOTED_MAX_TILE for float32 at
    HIGHEST, which keeps a second such tile). tile_m is a multiple of 64
    (wgmma's M), tile_n a multiple of 8 and at most 256 (wgmma's N).
  tile_k: K-phase width. tile_k * itemsize should be 128 bytes (128 float8,
    64 bf16/f16 elements, 32 float32) for the widest swizzle; at least 32
    bytes.
  max_concurrent_steps: K-tiles in flight in shared memory (pipeline depth).
  warp_specialized: one producer warpgroup issues the TMA loads and two
    consumer warpgroups compute a (2 * tile_m) x tile_n or tile_m x (2 *
    tile_n) CTA tile (see `wg_dimension`). False: one warpgroup does both,
    CTA tile = consumer tile.
  wg_dimension: "m" or "n", the dimension along which the two consumer
    warpgroups split the CTA tile (ignored without warp specialization).
  grid_minor_dim, grid_tile_width: tile order, `plgpu.planar_snake`: strips
    of `grid_tile_width` tiles along `grid_minor_dim` ("m" or "n"), walked
    alternately forwards and backwards.
  cluster_dimension: "none", or "m" / "n": CTAs run in clusters of two that
    compute neighbouring CTA tiles along that dimension and share the
    operand strip both need through TMA multicast (B's for "m", A's for
    "n"), halving its loads from L2. Needs warp specialization.
  epi_tile_m, epi_tile_n: the epilogue stores the accumulator in pieces of
    this shape through shared memory (must divide tile_m and tile_n; 0
    means the whole consumer tile).
  num_sms: persistent CTAs launched (132 on an H100 / H200).
  lowering: "warpgroup" or "lane", Mosaic GPU's lowering semantics. They
    differ only for outputs that are not a whole number of (8, 128-byte)
    tiles: warpgroup pads such outputs and slices them afterwards, lane
    stores them in place (rows of 16-byte multiples).
  """

  tile_m: int = 128
  tile_n: int = 128
  tile_k: int = 64
  max_concurrent_steps: int = 4
  warp_specialized: bool = True
  wg_dimension: str = "n"
  grid_minor_dim: str = "n"
  grid_tile_width: int = 4
  cluster_dimension: str = "none"
  epi_tile_m: int = 64
  epi_tile_n: int = 64
  num_sms: int = SM_COUNT  # One persistent CTA per SM.
  lowering: str = "warpgroup"

  def __post_init__(self):
    check_fields(
        self, minimum={"epi_tile_m": 0, "epi_tile_n": 0},
        choices={"wg_dimension": MOSAIC_DIMS, "grid_minor_dim": MOSAIC_DIMS,
                 "cluster_dimension": ("none", *MOSAIC_DIMS),
                 "lowering": MOSAIC_LOWERINGS})
    if self.cluster_dimension != "none" and not self.warp_specialized:
      raise ValueError(
          f"MosaicConfig.cluster_dimension={self.cluster_dimension!r} needs"
          " warp_specialized=True (the multicast pipeline is the warp-"
          "specialized one).")
    if self.tile_m % 64:
      raise ValueError(
          f"MosaicConfig.tile_m={self.tile_m} must be a multiple of 64"
          " (wgmma's M).")
    if self.tile_n % 8 or self.tile_n > 256:
      raise ValueError(
          f"MosaicConfig.tile_n={self.tile_n} must be a multiple of 8 and at"
          " most 256 (wgmma's N).")
    if self.tile_k % 8:
      raise ValueError(
          f"MosaicConfig.tile_k={self.tile_k} must be a multiple of 8.")
    for tile, epi in (("tile_m", "epi_tile_m"), ("tile_n", "epi_tile_n")):
      if getattr(self, epi) and getattr(self, tile) % getattr(self, epi):
        raise ValueError(
            f"MosaicConfig.{epi}={getattr(self, epi)} must divide"
            f" {tile}={getattr(self, tile)}.")
    if self.epi_tile_m and self.epi_tile_m % 64:
      raise ValueError(
          f"MosaicConfig.epi_tile_m={self.epi_tile_m} must be a multiple of"
          " 64 (a warpgroup's accumulator rows).")

  @property
  def num_compute_wgs(self) -> int:
    return 2 if self.warp_specialized else 1

  @property
  def cta_tile(self) -> tuple[int, int]:
    """The (rows, cols) of output one CTA computes per tile step."""
    split = self.num_compute_wgs
    if self.wg_dimension == "m":
      return self.tile_m * split, self.tile_n
    return self.tile_m, self.tile_n * split

  @property
  def cluster_size(self) -> int:
    return 1 if self.cluster_dimension == "none" else 2

  @property
  def cluster_tile(self) -> tuple[int, int]:
    """The (rows, cols) of output one cluster computes per tile step."""
    cta_m, cta_n = self.cta_tile
    return (cta_m * (2 if self.cluster_dimension == "m" else 1),
            cta_n * (2 if self.cluster_dimension == "n" else 1))

  @property
  def epi_tile(self) -> tuple[int, int]:
    return self.epi_tile_m or self.tile_m, self.epi_tile_n or self.tile_n

  @property
  def label(self) -> str:
    """A compact name, e.g. 128x128x64/s4/ws-n/snake-n4/epi64x64."""
    parts = [f"{self.tile_m}x{self.tile_n}x{self.tile_k}",
             f"s{self.max_concurrent_steps}",
             f"ws-{self.wg_dimension}" if self.warp_specialized else "nows",
             f"snake-{self.grid_minor_dim}{self.grid_tile_width}",
             "epi{}x{}".format(*self.epi_tile)]
    if self.cluster_size > 1:
      parts.append(f"cluster-{self.cluster_dimension}")
    if self.num_sms != SM_COUNT:
      parts.append(f"sm{self.num_sms}")
    if self.lowering != "warpgroup":
      parts.append(self.lowering)
    return "/".join(parts)

  backend = "mosaic"  # Not a field: which backend runs this config.

  def shared_memory_bytes(self, dtype, out_dtype) -> int:
    """Pipeline buffers plus the double-buffered epilogue, per CTA, plus an
    allowance for the pipeline's barriers."""
    cta_m, cta_n = self.cta_tile
    operands = (self.max_concurrent_steps * (cta_m + cta_n) * self.tile_k
                * np.dtype(dtype).itemsize)
    epi_m, epi_n = self.epi_tile
    slots = min(2, (self.tile_m * self.tile_n) // (epi_m * epi_n))
    epilogue = (self.num_compute_wgs * slots * epi_m * epi_n
                * np.dtype(out_dtype).itemsize)
    return operands + epilogue + _BARRIER_BYTES


# Relative throughput of one CTA tile by its area (elements), measured on an
# H200 as whole-kernel speed with the SMs equally busy (bfloat16 6144^3 and
# 3072x8192x3072: 128x128 CTA tiles at 0.92-0.96x of 128x256; 1024^3 and
# 6144^3: 128x64 at ~0.8x).
_CTA_TILE_EFFICIENCY = ((128 * 256, 1.0), (128 * 128, 0.94), (128 * 64, 0.8))


def mosaic_wave_cost(config: MosaicConfig, m: int, n: int) -> float:
  """Predicted relative time of `config` on an (m, n) output: the waves of
  CTA tiles its persistent grid runs (a partly full last wave costs a whole
  one), times each tile's work over its throughput (_CTA_TILE_EFFICIENCY).

  On an H200 this picked the faster CTA tile on each of 11 shapes measured
  (e.g. bfloat16 3072^3: 128x256 tiles make 288, 2.2 waves, 0.76x
  jnp.matmul; 128x128 make 576, 4.4 waves, 0.90x).
  """
  # The persistent grid walks cluster tiles (CTA tiles without clusters),
  # one per cluster of CTAs at a time.
  cluster_m, cluster_n = config.cluster_tile
  tiles = -(-m // cluster_m) * -(-n // cluster_n)
  waves = -(-tiles // (config.num_sms // config.cluster_size))
  cta_m, cta_n = config.cta_tile
  area = cta_m * cta_n
  efficiency = next((e for a, e in _CTA_TILE_EFFICIENCY if area >= a), 0.6)
  return waves * area / efficiency


def default_mosaic_config(m: int, n: int, k: int, dtype, out_dtype=None, *,
                          promoted: bool = False) -> MosaicConfig:
  """A heuristic for the Mosaic GPU kernel, from measurements on an H200.

  * 128-byte K-tiles (the widest swizzle), 4 stages (3 ran as fast, but 4
    divides more K-step counts, which lets one pipeline run across a CTA's
    tiles), epilogue pieces of 64 x 128 bytes.
  * The CTA tile with the lowest `mosaic_wave_cost` for this output, of:
    128x256 split by rows into two 64x256 consumers (wgmma's widest N;
    0.3-1% faster than two 128x128 ones); 128x128 as two 64x128 consumers;
    128x64 as two 64x64 consumers with 256-byte K-tiles (fewer, longer
    K-steps: float32 1024^3 1.12x jnp.matmul, bfloat16 1.15x, against
    0.78x and 0.81x with two 128x64 consumers and 0.46x with two 64x256).
  * `promoted` (float32 at HIGHEST, three-pass TF32): 128x128 CTA tiles of
    two 64x128 consumers, whose K-step products and float32 sums both fit
    in registers (64x256 consumers spill: 2.3x slower at 4096^3). As
    fast as two 128x64 consumers to 2048^3, 11-19% faster from 4096^3.
  * Outputs that are not whole (8 x 128-byte) tiles but whose rows are
    16-byte multiples: the "lane" lowering, which stores them in place,
    instead of padding them and cutting them to shape afterwards
    (3000x5000x700 bfloat16: 51.7 us against 64.6, before its stores were
    swizzled).
  See BUILD_NOTES.md for the numbers; the H200 table overrides this.
  """
  del k  # Every K is pipelined the same way.
  epi_n = swizzle_elements(out_dtype or dtype)
  ragged_out = m % 8 or n % epi_n
  common = dict(
      tile_k=swizzle_elements(dtype), wg_dimension="m",
      max_concurrent_steps=4, epi_tile_n=epi_n,
      lowering=("lane" if ragged_out
                and n % rows_alignment(out_dtype or dtype) == 0
                else "warpgroup"))
  if promoted:
    return MosaicConfig(tile_m=64, tile_n=PROMOTED_MAX_TILE // 64, **common)
  candidates = (
      MosaicConfig(tile_m=64, tile_n=256, **common),
      MosaicConfig(tile_m=64, tile_n=128, **common),
      # float8 outputs' 128-byte epilogue pieces are 128 wide: narrow them.
      MosaicConfig(tile_m=64, tile_n=64,
                   **dict(common, tile_k=2 * swizzle_elements(dtype),
                          epi_tile_n=min(epi_n, 64))))
  # The first of the cheapest: ties go to the larger tile.
  return min(candidates, key=lambda c: mosaic_wave_cost(c, m, n))


def fit_mosaic_config(config: MosaicConfig, dtype, out_dtype) -> MosaicConfig:
  """`config`, made to fit in Hopper's shared memory with `out_dtype`
  outputs: its epilogue pieces narrowed to 128 bytes of out_dtype, then its
  stages lowered (to 2 at least) until it fits.

  Tuned entries are measured with outputs of the input dtype; a wider
  output doubles or quadruples their epilogue buffers. bfloat16 4096^3's
  H200 entry with preferred_element_type=float32 took 262208 bytes, over
  232448, and failed to compile; with 32-wide pieces it takes about 230400.
  """
  limit = SHARED_MEMORY_LIMIT_BYTES[(9, 0)]
  fits = lambda c: c.shared_memory_bytes(dtype, out_dtype) <= limit
  width = swizzle_elements(out_dtype)
  if not fits(config) and config.epi_tile[1] > width:
    config = dataclasses.replace(config, epi_tile_n=width)
  while not fits(config) and config.max_concurrent_steps > 2:
    config = dataclasses.replace(
        config, max_concurrent_steps=config.max_concurrent_steps - 1)
  return config


def check_mosaic_config(config: MosaicConfig, dtype, out_dtype) -> None:
  """Raises ValueError if the compiled Mosaic kernel cannot take `config`."""
  dtype = np.dtype(dtype)
  if config.tile_k * dtype.itemsize < 32:
    raise ValueError(
        f"config.tile_k={config.tile_k} is {config.tile_k * dtype.itemsize}"
        f" bytes of {dtype}; wgmma needs a swizzled K-tile of at least 32"
        f" bytes (use tile_k={swizzle_elements(dtype)} for the 128-byte"
        " swizzle).")
  needed = config.shared_memory_bytes(dtype, out_dtype)
  limit = SHARED_MEMORY_LIMIT_BYTES[(9, 0)]
  if needed > limit:
    raise ValueError(
        f"{config.label} needs about {needed} bytes of shared memory per CTA"
        f" for {dtype} inputs and {np.dtype(out_dtype)} outputs, over"
        f" Hopper's {limit}. Lower max_concurrent_steps, the tiles or the"
        " epilogue tile.")
