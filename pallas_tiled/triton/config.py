"""`TileConfig`: how the Triton kernel cuts a product into tiles, and the
rules the compiled kernel puts on it.

A config says how an (M, N) output is cut into (block_m, block_n) tiles, one
grid program each, and how wide each K-phase is (block_k). A tile one row or
one column wide (block_m or block_n 1) is a vector tile, summed without a
dot (matrix-vector products: decode). Any positive tile
is valid in interpret mode (the seeds' 3x3 and 4x4 toy tiles run on the
CPU); the compiled kernel's stricter rules are `check_triton_tiles`, run
before anything is traced.
"""

from __future__ import annotations

import dataclasses

from jax.experimental import pallas as pl
import jax.numpy as jnp
import numpy as np

from pallas_tiled import config_checks
from pallas_tiled import device

# tl.dot needs every dimension of both operands to be at least 16.
MIN_DOT_DIM = 16
# int8 K-phases narrower than this came back with exactly twice the sums,
# compiled on an H100 (jax 0.11.2): every one of 27 wrong int8 results of
# fuzz seed 2611 and test_dtypes' 1x1x1 (K = 1, hence 16-wide phases),
# while wider phases were exact. The s8 MMA's K is 32; a 16-wide phase
# seems to be counted twice.
MIN_INT8_BLOCK_K = 32
# The boolean knobs of a label, by the field each sets.
_FLAG_KNOBS = {"kmajor": "k_major_b", "align": "align_operands",
               "up": "upcast", "fold": "fold_b"}


def min_block_k(dtype) -> int:
  """The narrowest K-phase the compiled kernel takes for `dtype`."""
  return MIN_INT8_BLOCK_K if np.dtype(dtype) == np.int8 else MIN_DOT_DIM


@dataclasses.dataclass(frozen=True)
class TileConfig:
  """Output tile (block_m x block_n), K-phase width block_k and kernel knobs.

  num_warps, num_stages: Triton's threads per program (in warps of 32) and
    the depth of its K-phase software pipeline.
  group_m: programs walk the output tiles in groups of `group_m` tile rows,
    column by column within a group, so that concurrently running programs
    share their strips of `a` and `b` in L2 (1 is plain row-major order).
  split_k: K is cut into `split_k` ranges computed by separate programs whose
    partial sums (in the accumulator's dtype) are added afterwards; for
    small M x N, large K.
  k_major_b: B is transposed to (N, K) before the kernel so that its K-tiles
    are K-major in shared memory, as Hopper's TF32 wgmma requires.
  align_operands: where a row of `a` or `b` is not a multiple of 16 bytes
    (e.g. K = 4097), copy the operands into zero-padded buffers whose rows
    are, so that tile loads can be wide and aligned. Costs one pass over the
    operands; the output is written in place, never copied.
  upcast: float8 only. Each K-phase's tiles are widened to float16 (exactly:
    every float8_e4m3fn value is a float16 one, one conversion per two
    elements) and multiplied at float16's rate, the products exact in the
    float32 accumulator. float8's wgmma wants both tiles K-major; float16's
    takes b as stored, so b needs no transpose pass. For skinny products
    and 64-row decode tiles, where the dot's rate does not bound (Triton's
    16-row float8 dots widen to float16 themselves).
  fold_b: where b's rows (N long) are not 16-byte multiples, the product
    runs over b viewed with several rows folded into one aligned row (a
    free reshape; a's columns regrouped by a small copy) and keeps each
    output column's own block of partial sums, added after the kernel
    (`folding.py`). For decode products with an unaligned vocabulary, which
    read b once; only where K is a whole number of folds and the folded a's
    rows fit one tile row, or each fold group's rows fit one (read through
    windows, a column tile spanning at most two groups); else b is read as
    stored.
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
  upcast: bool = False
  fold_b: bool = False

  backend = "triton"  # Not a field: which backend runs this config.

  def __post_init__(self):
    config_checks.check_fields(self)
    if not config_checks.is_power_of_two(self.num_warps):
      raise ValueError(
          f"TileConfig.num_warps must be a power of two, got {self.num_warps}."
      )

  @property
  def is_vector(self) -> bool:
    """A vector tile: one row or one column, summed without a dot."""
    return 1 in (self.block_m, self.block_n)

  @property
  def label(self) -> str:
    """A compact name, e.g. 128x256x64/w8/s3/g8/sk2/kmajor/align/up/fold."""
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
    if self.upcast:
      parts.append("up")
    if self.fold_b:
      parts.append("fold")
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
          if knob not in _FLAG_KNOBS:
            raise ValueError(f"unknown knob {knob!r}")
          kwargs[_FLAG_KNOBS[knob]] = True
    except ValueError as e:
      raise ValueError(
          f"config label {label!r} is not BMxBNxBK[/wW][/sS][/gG][/skS]"
          f"[/kmajor][/align][/up][/fold]: {e}") from None
    return cls(block_m, block_n, block_k, **kwargs)

  def num_programs(self, m: int, n: int) -> int:
    """Programs of the grid over one (m, n) output: its tiles, each once
    per K range."""
    return pl.cdiv(m, self.block_m) * pl.cdiv(n, self.block_n) * self.split_k

  def shared_memory_bytes(self, dtype, out_dtype=None) -> int:
    """Estimated shared memory per program: num_stages staged (A, B) K-tiles,
    or the output tile (split-K partial sums are float32 or int32) when
    that is larger: Triton reuses the pipeline's buffers to change the
    tile's layout before storing it (a float32 256x256 tile asked for
    262144 bytes on an H100)."""
    itemsize = np.dtype(dtype).itemsize
    pipeline = self.num_stages * (self.block_m + self.block_n) * (
        self.block_k * itemsize)
    out_itemsize = (4 if self.split_k > 1
                    else np.dtype(out_dtype or dtype).itemsize)
    return max(pipeline, self.block_m * self.block_n * out_itemsize)


def check_power_of_two_tiles(config: TileConfig, fields, *, why: str) -> None:
  """Raises ValueError unless each named field of `config` is a power of two."""
  for name in fields:
    value = getattr(config, name)
    if not config_checks.is_power_of_two(value):
      raise ValueError(
          f"config.{name}={value} is not a power of two, which {why}."
          f" Try {config_checks.next_power_of_two(value)}, or run with"
          " interpret=True."
      )


def check_upcast(config: TileConfig, dtype) -> None:
  """Raises ValueError where `config.upcast` asks to widen operands that
  are not float8 (compiled or interpreted: widening float32 would round)."""
  if config.upcast and np.dtype(dtype) != jnp.float8_e4m3fn:
    raise ValueError(
        f"config.upcast=True widens float8_e4m3fn operands to float16; these"
        f" are {np.dtype(dtype).name}. Leave upcast False.")


def check_triton_tiles(config: TileConfig, dtype, compute_capability,
                       out_dtype=None) -> None:
  """Raises ValueError if the compiled Triton tiled kernel cannot take `config`
  for `dtype` operands and an `out_dtype` result (default: `dtype`)."""
  check_upcast(config, dtype)
  why = "Triton needs for every block (tensor sizes must be powers of two)"
  check_power_of_two_tiles(config, ("block_m", "block_n", "block_k"), why=why)
  for name in ("block_m", "block_n", "block_k"):
    value = getattr(config, name)
    if value < MIN_DOT_DIM and not (value == 1 and name != "block_k"):
      raise ValueError(
          f"config.{name}={value} is below {MIN_DOT_DIM}: Triton's dot needs"
          f" every operand dimension >= {MIN_DOT_DIM}. Use {MIN_DOT_DIM} or"
          " more, 1 for a vector tile (block_m or block_n; no dot), or run"
          " with interpret=True."
      )
  if config.block_k < min_block_k(dtype):
    raise ValueError(
        f"config.block_k={config.block_k} is below {min_block_k(dtype)} for"
        f" {np.dtype(dtype).name}: narrower int8 K-phases gave twice the"
        f" exact sums on an H100. Use block_k={min_block_k(dtype)} or more,"
        " or run with interpret=True.")
  limit = device.SHARED_MEMORY_LIMIT_BYTES.get(compute_capability)
  needed = config.shared_memory_bytes(dtype, out_dtype)
  if limit is not None and needed > limit:
    raise ValueError(
        f"{config} needs about {needed} bytes of shared memory per program"
        f" (num_stages={config.num_stages} x (block_m + block_n) x block_k x"
        f" {np.dtype(dtype).itemsize} bytes, or the block_m x block_n output"
        f" tile when larger), over the {limit}-byte limit of"
        f" compute capability {compute_capability[0]}.{compute_capability[1]}."
        " Lower num_stages or the block sizes."
    )

