"""`MosaicConfig`: the Hopper kernel's tiles and knobs, and the rules the
compiled kernel puts on them (wgmma's shapes, shared memory)."""

from __future__ import annotations

import dataclasses

from jax.experimental import pallas as pl
import numpy as np

from pallas_tiled import config_checks
from pallas_tiled import device
from pallas_tiled import layouts
from pallas_tiled.mosaic import tf32x3

# MosaicConfig's dimension names, and Mosaic GPU's two lowerings
# (CompilerParams.lowering_semantics; see kernel.py).
MOSAIC_DIMS = ("m", "n")
MOSAIC_LOWERINGS = ("warpgroup", "lane")
# Elements of one consumer's tile where the Mosaic kernel keeps a float32
# sum beside wgmma's accumulator (three-pass TF32): two 64x128 float32
# tiles are 128 of a consumer thread's registers.
PROMOTED_MAX_TILE = 64 * 128
# What Mosaic GPU allocates in shared memory besides a kernel's buffers: the
# pipeline's barriers (64 bytes with 4 stages on an H200), with room to spare.
_BARRIER_BYTES = 1024
_SMEM_LIMIT = device.SHARED_MEMORY_LIMIT_BYTES[device.HOPPER]


@dataclasses.dataclass(frozen=True)
class MosaicConfig:
  """Tiles and knobs of the Mosaic GPU kernel (`kernel.py`).

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
    alternately forwards and backwards; 0 makes one strip of the whole
    dimension, so that "n" walks the tiles row by row ("rows" in the label)
    and "m" column by column ("cols").
  cluster_dimension: "none", or "m" / "n": CTAs run in clusters of two that
    compute neighbouring CTA tiles along that dimension and share the
    operand strip both need through TMA multicast (B's for "m", A's for
    "n"), halving its loads from L2. Needs warp specialization.
  epi_tile_m, epi_tile_n: the epilogue stores the accumulator in pieces of
    this shape through shared memory (must divide tile_m and tile_n; 0
    means the whole consumer tile).
  num_sms: persistent CTAs launched, one per SM (132 on an H100 SXM or
    H200; the heuristics use the device's own count).
  lowering: "warpgroup" or "lane", Mosaic GPU's lowering semantics. They
    differ only for outputs that are not a whole number of (8, 128-byte)
    tiles: warpgroup pads such outputs and slices them afterwards, lane
    stores them in place (rows of 16-byte multiples).
  split_k: K is cut into `split_k` ranges of whole K-tiles, each a work
    item of its own for the persistent CTAs, so that an output of few tiles
    still fills the SMs; each range's float32 partial sums are stored, and
    one pass adds them in a fixed order (deterministic) and casts them.
    Not with three-pass TF32 (float32 at HIGHEST).
  ping_pong: the two consumer warpgroups take alternate CTA tiles, each a
    whole tile_m x tile_n tile, instead of halves of one (wg_dimension is
    then unused): one stores its tile while the other multiplies, where the
    cooperative split idles the tensor cores while both store (CUTLASS's
    ping-pong kernel). max_concurrent_steps K-tiles of either consumer's
    tiles share one ring (in a cluster, both CTAs' consumers take their
    tiles in step, and each stage holds the shared operand's K-tile
    multicast to both: on an H200, bfloat16 ping-pong tiles ran 0-11%
    slower in clusters along M than alone, even along N, so the cost
    model does not offer them; BUILD_NOTES.md). Needs warp
    specialization; not with split_k, transposed or three-pass TF32.
  transposed: the kernel computes C^T = B^T A^T and stores each tile back
    transposed, so tile_m and tile_n tile N and M: M, often ragged (197 or
    257 rows per image), is then wgmma's N, whose tiles may be any multiple
    of 8 wide (136 rows cover 257 in two tiles), as cuBLAS's own kernels
    do. 16-bit inputs only (their wgmma reads B^T's M-major tiles as
    stored).
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
  num_sms: int = device.FALLBACK_SM_COUNT  # One persistent CTA per SM.
  lowering: str = "warpgroup"
  split_k: int = 1
  ping_pong: bool = False
  transposed: bool = False

  def __post_init__(self):
    config_checks.check_fields(
        self, minimum={"epi_tile_m": 0, "epi_tile_n": 0,
                       "grid_tile_width": 0},
        choices={"wg_dimension": MOSAIC_DIMS, "grid_minor_dim": MOSAIC_DIMS,
                 "cluster_dimension": ("none", *MOSAIC_DIMS),
                 "lowering": MOSAIC_LOWERINGS})
    if self.cluster_dimension != "none" and not self.warp_specialized:
      raise ValueError(
          f"MosaicConfig.cluster_dimension={self.cluster_dimension!r} needs"
          " warp_specialized=True (the multicast pipeline is the warp-"
          "specialized one).")
    if self.ping_pong and not self.warp_specialized:
      raise ValueError(
          "MosaicConfig.ping_pong=True needs warp_specialized=True (its"
          " consumers are the two warpgroups fed by the producer).")
    for name, plain in (("split_k", 1), ("transposed", False)):
      if self.ping_pong and getattr(self, name) != plain:
        raise ValueError(
            f"MosaicConfig.ping_pong=True runs without {name}; got"
            f" {name}={getattr(self, name)!r} (use {plain!r}).")
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
    if self.ping_pong:  # Each consumer computes whole tiles.
      return self.tile_m, self.tile_n
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

  def waves(self, m: int, n: int) -> int:
    """Rounds of the persistent grid over an (m, n) output: it walks
    cluster tiles (CTA tiles without clusters), each once per K range, one
    per cluster of CTAs at a time; a partly full last round counts as
    one."""
    cluster_m, cluster_n = self.cluster_tile
    tiles = pl.cdiv(m, cluster_m) * pl.cdiv(n, cluster_n) * self.split_k
    return pl.cdiv(tiles, self.num_sms // self.cluster_size)

  def busiest_sm_work(self, m: int, n: int) -> float:
    """The busiest SM's (or cluster's) share of an (m, n) output's work, to
    compare configs that differ only in tile_n or split_k: its rounds, each
    a tile tile_n wide over K / split_k."""
    return self.waves(m, n) * self.tile_n / self.split_k

  def stored_dtype(self, out_dtype):
    """The dtype the kernel stores: float32 partial sums with split_k."""
    return np.dtype(np.float32 if self.split_k > 1 else out_dtype)

  @property
  def epi_tile(self) -> tuple[int, int]:
    return self.epi_tile_m or self.tile_m, self.epi_tile_n or self.tile_n

  @property
  def label(self) -> str:
    """A compact name, e.g. 128x128x64/s4/ws-n/snake-n4/epi64x64."""
    parts = [f"{self.tile_m}x{self.tile_n}x{self.tile_k}",
             f"s{self.max_concurrent_steps}",
             ("pp" if self.ping_pong else f"ws-{self.wg_dimension}")
             if self.warp_specialized else "nows",
             (f"snake-{self.grid_minor_dim}{self.grid_tile_width}"
              if self.grid_tile_width else
              {"n": "rows", "m": "cols"}[self.grid_minor_dim]),
             "epi{}x{}".format(*self.epi_tile)]
    if self.cluster_size > 1:
      parts.append(f"cluster-{self.cluster_dimension}")
    if self.num_sms != device.FALLBACK_SM_COUNT:
      parts.append(f"sm{self.num_sms}")
    if self.lowering != "warpgroup":
      parts.append(self.lowering)
    if self.split_k > 1:
      parts.append(f"sk{self.split_k}")
    if self.transposed:
      parts.append("T")
    return "/".join(parts)

  backend = "mosaic"  # Not a field: which backend runs this config.

  def shared_memory_bytes(self, dtype, out_dtype, *,
                          row_pad_bytes: int = 0) -> int:
    """Pipeline buffers plus the double-buffered epilogue (of the stored
    dtype, each row `row_pad_bytes` longer), per CTA, plus an allowance for
    the pipeline's barriers."""
    cta_m, cta_n = self.cta_tile
    operands = (self.max_concurrent_steps * (cta_m + cta_n) * self.tile_k
                * np.dtype(dtype).itemsize)
    epi_m, epi_n = self.epi_tile
    slots = epilogue_slots((self.tile_m * self.tile_n) // (epi_m * epi_n))
    epilogue = self.num_compute_wgs * slots * epi_m * (
        epi_n * self.stored_dtype(out_dtype).itemsize + row_pad_bytes)
    return operands + epilogue + _BARRIER_BYTES


def epilogue_slots(pieces: int) -> int:
  """Shared-memory slots per consumer for the epilogue's `pieces` of its
  tile: two, so that one piece's TMA store runs while the next is written,
  or one for a tile of a single piece."""
  return min(2, pieces)


def output_lowering(m: int, n: int, out_dtype) -> str:
  """The lowering for an (m, n) output: "lane" where it is not whole (8 x
  128-byte) tiles but its rows are 16-byte multiples, so that it is stored
  in place instead of padded and cut to shape afterwards (3000x5000x700
  bfloat16: 51.7 us against 64.6 on an H200); "warpgroup" otherwise."""
  ragged = m % 8 or n % layouts.swizzle_elements(out_dtype)
  aligned_rows = n % layouts.rows_alignment(out_dtype) == 0
  return "lane" if ragged and aligned_rows else "warpgroup"


def fit_mosaic_config(config: MosaicConfig, dtype, out_dtype) -> MosaicConfig:
  """`config`, made to fit in Hopper's shared memory with `out_dtype`
  outputs: its epilogue pieces narrowed to 128 bytes of out_dtype, then its
  stages lowered (to 2 at least) until it fits.

  Tuned entries are measured with outputs of the input dtype; a wider
  output doubles or quadruples their epilogue buffers. bfloat16 4096^3's
  H200 entry with preferred_element_type=float32 took 262208 bytes, over
  232448, and failed to compile; with 32-wide pieces it takes about 230400.
  """
  width = layouts.swizzle_elements(config.stored_dtype(out_dtype))
  if (not fits_shared_memory(config, dtype, out_dtype)
      and config.epi_tile[1] > width):
    config = dataclasses.replace(config, epi_tile_n=width)
  return _fewer_stages(config, dtype, out_dtype, least=2)


def fits_shared_memory(config: MosaicConfig, dtype, out_dtype, *,
                       row_pad_bytes: int = 0) -> bool:
  """Whether `config` fits in Hopper's shared memory (with its epilogue's
  rows `row_pad_bytes` longer)."""
  return config.shared_memory_bytes(
      dtype, out_dtype, row_pad_bytes=row_pad_bytes) <= _SMEM_LIMIT


def _fewer_stages(config: MosaicConfig, dtype, out_dtype, *, least: int):
  """`config` with its stages lowered, to `least` at the fewest, until it
  fits in shared memory."""
  while (not fits_shared_memory(config, dtype, out_dtype)
         and config.max_concurrent_steps > least):
    config = dataclasses.replace(
        config, max_concurrent_steps=config.max_concurrent_steps - 1)
  return config


# K ranges tried, each at least this many K-tiles (a range of a few pipeline
# depths is mostly fill and epilogue), where they cut the busiest SM's
# K-steps by this share at least (the partial sums and their addition cost
# the rest).
_K_RANGE_SPLITS = (2, 3, 4, 6, 8)
_MIN_RANGE_K_STEPS = 8
_MIN_K_RANGE_GAIN = 0.1


# Ping-pong tiles' rows; their widths and their rings' stages where K is long.
PING_PONG_TILE_M = 128
PING_PONG_STAGES = {128: 5, 192: 4}
# Ping-pong tiles walk the output row by row up to this K, where it is
# stored in 2 or 4 bytes: the output's store bounds such products, and runs
# faster where the tiles stored at once share few output rows than in strips
# of 4 tile columns, 33 tile rows tall; but only while one row of tiles'
# output and all of b fill at most half of the 50 MB L2 (b must outlast a
# row to be read once per row), as strips read b's columns once (H200,
# shapes in neither wild split: 1-15% faster up to 24 MiB, 2-9% slower from
# 31 MB; BUILD_NOTES.md).
ROW_ORDER_MAX_K = 64
ROW_ORDER_MAX_BYTES = 24 << 20


def walks_rows(n: int, k: int, dtype, out_dtype) -> bool:
  """Whether an (m, n, k) product's ping-pong tiles walk it row by row
  (`ROW_ORDER_MAX_K`)."""
  out_bytes = np.dtype(out_dtype).itemsize
  row_bytes = n * (PING_PONG_TILE_M * out_bytes
                   + k * np.dtype(dtype).itemsize)
  return (k <= ROW_ORDER_MAX_K and out_bytes >= 2
          and row_bytes <= ROW_ORDER_MAX_BYTES)


def ping_pong_variants(n: int, k: int, dtype, out_dtype,
                       **fields) -> list[MosaicConfig]:
  """Ping-pong consumers of 128x128 and 128x192 tiles (a consumer keeps up
  to 192 accumulator registers of its 232), with the other `fields`; 64x256
  ones, reading a 256-wide strip of b for 64 rows, ran the slowest of the
  three on each of 9 shapes on an H100 (0.55-0.88x jnp.matmul). Their
  rings hold 5 and 4 stages, or 2 where K is at most two K-tiles (`fields`'
  tile_k): the output's store bounds such products, and on the H100's 13
  wild-tune shapes of such K two stages ran faster in 22 of 26 pairs, up
  to 10% (BUILD_NOTES.md). Store-bound ones walk the output row by row
  (`walks_rows`; bfloat16 2048x12288x64 10-16% faster)."""
  short_k = k <= 2 * fields["tile_k"]
  if walks_rows(n, k, dtype, out_dtype):
    fields = dict(fields, grid_minor_dim="n", grid_tile_width=0)
  return [MosaicConfig(**dict(
      fields, tile_m=PING_PONG_TILE_M, tile_n=tile_n, ping_pong=True,
      max_concurrent_steps=2 if short_k else stages))
          for tile_n, stages in PING_PONG_STAGES.items()]


def k_range_variants(config: MosaicConfig, m: int, n: int, k: int, dtype,
                     out_dtype, *,
                     splits=_K_RANGE_SPLITS) -> list[MosaicConfig]:
  """`config` with K cut into ranges (split_k, one of `splits`), fitted to
  shared memory, wherever the ranges fill the SMs' rounds enough better
  than whole tiles do: an output of fewer CTA tiles than SMs leaves a
  wave's other SMs idle (256x5376x21504 has 42 tiles of 128x256 for 132
  SMs), and one of a few waves leaves a partly empty last one
  (2048x2560x20480: 160 tiles in two rounds; in 4 ranges, 640 items in five
  rounds of a quarter the K-steps, so the busiest SM runs 5/8 of them)."""
  k_steps = pl.cdiv(k, config.tile_k)
  work = lambda split: dataclasses.replace(
      config, split_k=split).busiest_sm_work(m, n)
  return [fit_mosaic_config(dataclasses.replace(config, split_k=split),
                            dtype, out_dtype)
          for split in splits
          if work(split) <= (1 - _MIN_K_RANGE_GAIN) * work(1)
          and k_steps // split >= _MIN_RANGE_K_STEPS]


# Tall skinny float32 outputs (`skinny_n_variants`): their columns, the one
# consumer tile width that covers them, and its K ranges (up to 16: a few
# hundred rows are 3 CTA tiles).
_SKINNY_N_MIN_COLUMNS = 33
_SKINNY_N_TILE = 64
_SKINNY_N_SPLITS = (2, 4, 8, 16)


def skinny_n_variants(m: int, n: int, k: int, dtype, out_dtype,
                      num_sms: int) -> list[MosaicConfig]:
  """Tiles for a float32 product of 33 to 64 columns (`_SKINNY_N_TILE`) over
  at least 128 rows, which Triton's TF32 runs well behind cuBLAS: CTA tiles
  of two 64x64 consumers along M, 128-byte K-tiles over four stages and
  256-byte ones over three, each whole and over 2 to 16 K ranges where
  those fill the SMs' rounds (`k_range_variants`). On an H200 they ran
  1.38-1.45x jnp.matmul on wild-tune's 12288x64x4096 and 8192x64x14336
  (Triton's best 1.17x, 1.39x) and 0.98x on 2048x64x4096 (0.90x); from 32
  columns down, Triton's tiles ran ahead (384x32x3584 1.18x against 0.93x;
  BUILD_NOTES.md). None for other dtypes or widths."""
  if (np.dtype(dtype) != np.float32 or m < 128
      or k < layouts.swizzle_elements(dtype)
      or not _SKINNY_N_MIN_COLUMNS <= n <= _SKINNY_N_TILE):
    return []
  base = MosaicConfig(tile_m=64, tile_n=_SKINNY_N_TILE, wg_dimension="m",
                      tile_k=layouts.k_tile_elements(k, dtype),
                      max_concurrent_steps=4, num_sms=num_sms,
                      epi_tile_n=layouts.swizzle_elements(out_dtype),
                      lowering=output_lowering(m, n, out_dtype))
  configs = [base]
  long_k = layouts.long_k_tile_elements(k, dtype)
  if long_k != base.tile_k:
    configs.append(dataclasses.replace(base, tile_k=long_k,
                                       max_concurrent_steps=3))
  configs = [fit_mosaic_config(c, dtype, out_dtype) for c in configs]
  return configs + [
      variant for c in configs for variant in k_range_variants(
          c, m, n, k, dtype, out_dtype, splits=_SKINNY_N_SPLITS)]


# A float32 K up to which one warpgroup's CTA tile is offered
# (`single_warpgroup_variants`). On an H100 it ran faster than the pick up
# to K = 800, 0.67-1.05x at K = 1000-1024 and slower from 1152
# (BUILD_NOTES.md): offered to 1024, so that calibration times both sides.
_SINGLE_WG_MAX_K = 1024


def single_warpgroup_variants(m: int, n: int, k: int, dtype, out_dtype,
                              num_sms: int) -> list[MosaicConfig]:
  """One warpgroup loading and multiplying a 64x128 or 64x64 CTA tile over
  the whole K, for a float32 (TF32) product of a short K whose such tiles
  fill at most one round of the SMs: twice the CTAs of two consumers' tiles
  and no K ranges to add, as cuBLAS runs 197x3072x768. On an H100 (23
  wild-tune and fresh shapes, side by side with the pick): 1.05x the pick
  in geomean where K <= 800 (0.97-1.17x), 0.53-0.84x from K = 1152; the
  cost model prices them once `calibrate.py` has timed them on wild-tune.
  None for other dtypes (not measured)."""
  if (np.dtype(dtype) != np.float32 or k > _SINGLE_WG_MAX_K
      or k < layouts.swizzle_elements(dtype)):
    return []
  configs = []
  for tile_n in (128, 64):
    if pl.cdiv(m, 64) * pl.cdiv(n, tile_n) <= num_sms:
      configs.append(fit_mosaic_config(MosaicConfig(
          tile_m=64, tile_n=tile_n, tile_k=layouts.k_tile_elements(k, dtype),
          max_concurrent_steps=4, warp_specialized=False, num_sms=num_sms,
          epi_tile_n=min(64, layouts.swizzle_elements(out_dtype)),
          lowering=output_lowering(m, n, out_dtype)), dtype, out_dtype))
  return configs


# A transposed config's M tiles: any multiple of 8 from 64 to 256 wide.
_TRANSPOSED_WIDTHS = range(64, 257, 8)
# What a 128-row CTA tile's K-loop costs per wave against its width W: about
# W + 53 (the H100's bfloat16 coefficients of the plain 64-, 128-, 192- and
# 256-wide tiles lie on a line, BUILD_NOTES.md); the cost model scales the
# transposed tiles' own coefficients by it.
TRANSPOSED_WIDTH_OFFSET = 53
# The stages of a transposed tile narrower than its 128 columns of N over a
# ragged M, whose rows the kernel's own ring loads untiled
# (`plan.rows_untiled`): one more than jax's pipeline takes. On an H200,
# bfloat16, wild-tune's 257x5120x1280 and shapes in neither wild split
# (BUILD_NOTES.md): 1-8% faster on 7 of 8 such shapes (257x4096x2048
# 10.91 -> 10.01 us, 201x6144x3072 16.57 -> 15.25), the same on one; wider
# tiles and aligned rows (jax's pipeline) gained nothing.
_RAGGED_RING_STAGES = 5


def transposed_variants(m: int, n: int, dtype, out_dtype,
                        num_sms: int) -> list[MosaicConfig]:
  """The transposed config (C^T = B^T A^T) for an (m, n) output: CTA tiles
  of 128 columns of N (two 64-row consumers) by the M tile width, a
  multiple of 8 but not of 64 (plain configs have those tiles), that
  leaves the busiest SM the least work (rounds of tiles x (width +
  TRANSPOSED_WIDTH_OFFSET)): 257 rows as four tiles of 72 (one round of 120
  CTAs with 3840 columns), 4112 as 26 of 160 (exactly 2 rounds with 1280);
  a tile narrower than 128 over a ragged M (no multiple of 8) five stages
  deep (`_RAGGED_RING_STAGES`); fitted to shared memory; none for inputs
  other than 16-bit ones, which alone it takes. (256-column tiles by widths
  up to 128 lost to plain tiles on most of the H100's wild-tune shapes,
  BUILD_NOTES.md.)"""
  if np.dtype(dtype).itemsize != 2:
    return []
  config = MosaicConfig(tile_m=64, wg_dimension="m", num_sms=num_sms,
                        tile_k=layouts.swizzle_elements(dtype),
                        epi_tile_n=0, transposed=True)
  widths = [w for w in _TRANSPOSED_WIDTHS if w < m + 8 and w % 64]
  if not widths:
    return []
  work = lambda w: (dataclasses.replace(config, tile_n=w).waves(n, m)
                    * (w + TRANSPOSED_WIDTH_OFFSET))
  width = min(widths, key=work)
  stages = (_RAGGED_RING_STAGES if m % 8 and width < 128
            else config.max_concurrent_steps)
  config = _fit_transposed(
      dataclasses.replace(config, tile_n=width, epi_tile_n=width,
                          max_concurrent_steps=stages), dtype, out_dtype)
  return [config] if config else []


def _fit_transposed(config: MosaicConfig, dtype, out_dtype):
  """`config` in shared memory: fewer stages (3 at least), then epilogue
  pieces of the widest multiple of 8 dividing half the tile; None if it
  still does not fit."""
  config = _fewer_stages(config, dtype, out_dtype, least=3)
  if not fits_shared_memory(config, dtype, out_dtype):
    half = config.tile_n // 2
    piece = max(p for p in range(8, half + 1, 8) if half % p == 0)
    config = dataclasses.replace(config, epi_tile_n=piece)
  return config if fits_shared_memory(config, dtype, out_dtype) else None


def _fitting_variant(config: MosaicConfig, dtype, out_dtype):
  """`config` with 128-byte K-tiles (if wider), then narrower epilogue
  pieces and fewer stages (`fit_mosaic_config`), if that fits; else None."""
  width = layouts.swizzle_elements(dtype)
  if config.tile_k > width:
    config = dataclasses.replace(config, tile_k=width)
  config = fit_mosaic_config(config, dtype, out_dtype)
  return config if fits_shared_memory(config, dtype, out_dtype) else None


def _suggestion(config: MosaicConfig, dtype, out_dtype) -> str:
  """What to change in `config` to fit in shared memory, as field=value."""
  variant = _fitting_variant(config, dtype, out_dtype)
  if variant is None:
    return "Lower max_concurrent_steps, the tiles or the epilogue tile."
  changes = ", ".join(
      f"{f.name}={getattr(variant, f.name)!r}"
      for f in dataclasses.fields(config)
      if getattr(variant, f.name) != getattr(config, f.name))
  return f"It fits with {changes}."


def _check_epilogue_pieces(config: MosaicConfig, out_dtype) -> None:
  """Raises ValueError if TMA cannot store config's epilogue pieces of
  `out_dtype` (the stored dtype)."""
  piece_bytes = config.epi_tile[1] * out_dtype.itemsize
  if piece_bytes % 16:
    raise ValueError(
        f"config.epi_tile_n={config.epi_tile[1]} is {piece_bytes} bytes of"
        f" {out_dtype}; TMA stores rows of a multiple of 16 bytes"
        f" (use epi_tile_n={layouts.swizzle_elements(out_dtype)}).")
  if config.transposed and config.epi_tile[1] % 8:
    raise ValueError(
        f"config.epi_tile_n={config.epi_tile[1]}: a transposed store writes"
        " pieces of whole (8, 128-byte) tiles; use a multiple of 8.")
  # Found by fuzz.py on an H100: the warpgroup lowering stores through
  # swizzled (8, piece) tiles, and Mosaic GPU swizzles 32, 64 or 128 bytes
  # ("Swizzle 16 is not supported" while tracing: bfloat16 epi_tile_n=56,
  # float8 epi_tile_n=48).
  if (config.lowering == "warpgroup" and not config.transposed
      and piece_bytes % 32):
    raise ValueError(
        f"config.epi_tile_n={config.epi_tile[1]} is {piece_bytes} bytes of"
        f" {out_dtype}; the warpgroup lowering stores through"
        " swizzled tiles of a multiple of 32 bytes (use epi_tile_n="
        f"{layouts.swizzle_elements(out_dtype)}).")


def check_mosaic_config(config: MosaicConfig, dtype, out_dtype,
                        precision=None) -> None:
  """Raises ValueError if the compiled Mosaic kernel cannot take `config`
  on this device (for a product at `precision`), saying what to change."""
  dtype = np.dtype(dtype)
  if config.split_k > 1 and tf32x3.applies(dtype, precision):
    raise ValueError(
        f"config.split_k={config.split_k}: float32 at HIGHEST precision runs"
        " three-pass TF32, which sums its large terms in registers over one"
        " K range; use split_k=1.")
  if config.tile_k * dtype.itemsize % 32:
    raise ValueError(
        f"config.tile_k={config.tile_k} is {config.tile_k * dtype.itemsize}"
        f" bytes of {dtype}; wgmma needs swizzled K-tiles of a multiple of 32"
        f" bytes (use tile_k={layouts.swizzle_elements(dtype)} for the"
        " 128-byte swizzle).")
  if config.ping_pong and tf32x3.applies(dtype, precision):
    raise ValueError(
        "config.ping_pong=True: float32 at HIGHEST precision runs three-pass"
        " TF32, whose promoted sums only the cooperative consumers keep; use"
        " ping_pong=False.")
  if config.transposed and dtype.itemsize != 2:
    raise ValueError(
        f"config.transposed=True needs 16-bit inputs, got {dtype}: wgmma"
        " reads B^T's M-major tiles only for float16 and bfloat16.")
  # Found by fuzz.py on an H100: a 16-bit operand may be staged M- or
  # N-major (a transposed operand, or a gradient's product), and then its
  # tile_m or tile_n bytes set the swizzle wgmma needs of both operands.
  # Transposed, A^T is always staged K-major (plan.py): tile_n is free.
  if not layouts.wgmma_needs_k_major(dtype):
    for name in ("tile_m",) if config.transposed else ("tile_m", "tile_n"):
      value = getattr(config, name)
      if value * dtype.itemsize % 32:
        raise ValueError(
            f"config.{name}={value} is {value * dtype.itemsize} bytes of"
            f" {dtype}; an M- or N-major operand tile is swizzled by its"
            " contiguous extent and wgmma needs a multiple of 32 bytes (use"
            f" a multiple of {32 // dtype.itemsize}).")
  out_dtype = config.stored_dtype(out_dtype)
  _check_epilogue_pieces(config, out_dtype)
  # TMA multicast splits the operand tile both CTAs of a cluster share
  # (B's for clusters along M) between them along its rows of 8: a 200-wide
  # float32 tile (25 rows of 8) failed while tracing on an H100.
  if config.cluster_dimension == "m" and config.tile_n % 16:
    raise ValueError(
        f"config.tile_n={config.tile_n} with cluster_dimension='m': TMA"
        " multicast splits B's tile between the cluster's two CTAs in rows"
        " of 8, so tile_n must be a multiple of 16.")
  sms = device.sm_count()
  if config.num_sms > sms or config.num_sms % config.cluster_size:
    raise ValueError(
        f"config.num_sms={config.num_sms}: the kernel runs one persistent"
        f" CTA per SM, so it must be at most this device's {sms} SMs and a"
        f" multiple of the cluster size ({config.cluster_size}).")
  needed = config.shared_memory_bytes(dtype, out_dtype)
  if needed > _SMEM_LIMIT:
    raise ValueError(
        f"{config.label} needs about {needed} bytes of shared memory per CTA"
        f" for {dtype} inputs and {out_dtype} outputs, over"
        f" Hopper's {_SMEM_LIMIT}. "
        + _suggestion(config, dtype, out_dtype))
