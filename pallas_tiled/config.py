"""Tile configurations: the frozen `TileConfig`, its checks and default heuristics.

A config says how an (M, N) output is cut into (block_m, block_n) tiles, one
grid program each, and how wide each K-phase is (block_k). `num_warps` and
`num_stages` are the Triton knobs: threads per program and how many K-phases
the software pipeliner keeps in flight. `group_m` orders the programs for L2
reuse, `split_k` splits K across programs for outputs too small to fill the
GPU, `k_major_b` stages B as Bᵀ, which TF32 matrix units need, and
`align_operands` copies operands whose rows are not 16-byte aligned.

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

# tl.dot needs every dimension of both operands to be at least 16.
MIN_DOT_DIM = 16
# Streaming multiprocessors the heuristics fill (an H100 or H200).
SM_COUNT = 132


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


def rows_alignment(dtype) -> int:
  """Elements per 16 bytes: rows whose length is not a multiple of this
  cannot be loaded with wide, aligned accesses."""
  return 16 // np.dtype(dtype).itemsize


def has_unaligned_rows(n: int, k: int, dtype) -> bool:
  """Whether a row of `a` (K long) or of `b` (N long) is not 16-byte aligned."""
  step = rows_alignment(dtype)
  return bool(k % step or n % step)


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
  * float32 stages B K-major (TF32 and three-pass TF32 wgmma need it),
    except for skinny outputs: there the product only streams B once, and a
    transpose pass would cost more than the product (16x8192x8192 ran 3.3x
    slower than jnp.matmul with it).
  * Rows that are not 16-byte multiples get aligned copies.
  See BUILD_NOTES.md for the numbers; the H200 table overrides this.
  """
  wide = np.dtype(dtype).itemsize == 4
  block_k = 32 if wide else 64
  common = dict(k_major_b=wide and m > 64,
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
