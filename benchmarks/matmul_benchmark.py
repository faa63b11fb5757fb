"""Benchmark: the tiled Pallas matmul against the naive kernel and jnp.matmul.

Runs shape suites (or --shapes) for each impl and dtype, or, with
--sweep_tiles, one shape over square tiles from 8 to 256 (the experiment of
seed 001). Each impl also has a `_fwd_bwd` variant (e.g. tiled_fwd_bwd) that
times a training step's worth of one matmul: the product and both operand
gradients, `jax.vjp` with a fixed cotangent. Every case is checked against a reference before its time counts;
a case that fails to compile, launch or match gets an error row and no time.
The exit code is non-zero if any result is wrong, or if any case errors
outside a tile sweep (where tiles that cannot run are the experiment's data).

On a GPU, times are CUPTI kernel times (median after warm-up); decode and
skinny cases (M or N <= 64) cycle through copies of their operands larger
than L2 together, so they time reads from HBM. On a CPU the
kernels run in Pallas interpret mode and times are wall clock, labelled so.
With --rounds=N each shape's cases are timed N times, taking turns, and each
row is its case's median round.

  python benchmarks/matmul_benchmark.py                      # tiny suite on CPU
  python benchmarks/matmul_benchmark.py --suite=square --dtypes=bfloat16
  python benchmarks/matmul_benchmark.py --sweep_tiles --shapes=2048x2048x2048
  python benchmarks/matmul_benchmark.py --dtypes=int8   # int32 results
  JAX_ENABLE_X64=1 python benchmarks/matmul_benchmark.py --dtypes=float64

int8 cases ask every impl for int32 results (preferred_element_type) and
must match exactly; complex ones count 8 real flops per multiply-add.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import itertools
import sys
from typing import Any

from absl import app
from absl import flags
from absl import logging
import jax
from jax import lax
import jax.numpy as jnp
import numpy as np

import report
import suites
import pallas_tiled
from pallas_tiled import accuracy
from pallas_tiled import api as backends
from pallas_tiled import batching
from pallas_tiled import complex_products
from pallas_tiled import dtypes as dtype_rules
from pallas_tiled import layouts
from pallas_tiled.mosaic import plan as mosaic_plan
from pallas_tiled import naive
from pallas_tiled import timing
from pallas_tiled.triton import kernel as tiled
from pallas_tiled import validation

SWEEP_TILES = (8, 16, 32, 64, 128, 256)
# Dense peak TFLOP/s (TOP/s for int8) by device and math: 8-bit (float8,
# int8) and 16-bit tensor cores, TF32 tensor cores (float32 at default
# precision), plain float32 FMA (HIGHEST), FP64 tensor cores. From the
# vendors' datasheets; the H200 SXM has the H100 SXM's arithmetic.
PEAK_TFLOPS = {
    "H200": {"8bit": 1978.9, "16bit": 989.4, "tf32": 494.7, "fp32": 66.9,
             "fp64": 66.9},
    "H100 PCIe": {"8bit": 1513.0, "16bit": 756.0, "tf32": 378.0,
                  "fp32": 51.2, "fp64": 51.2},
    "H100": {"8bit": 1978.9, "16bit": 989.4, "tf32": 494.7, "fp32": 66.9,
             "fp64": 66.9},
    "A100": {"16bit": 312.0, "tf32": 156.0, "fp32": 19.5, "fp64": 19.5},
    "RTX 4090": {"16bit": 165.2, "tf32": 82.6, "fp32": 82.6},
}
# Above this many multiply-adds the reference is jnp.matmul at HIGHEST
# precision in float32 on the device instead of a float64 NumPy product.
MAX_FLOAT64_REFERENCE_MACS = 4096**3
# The kernel each (impl, backend) runs; its select_config is what the
# library runs with config=None (for tiled on Triton, the shipped table for
# this device or the heuristic).
KERNELS = {
    ("tiled", "triton"): backends.KERNELS["triton"],
    ("tiled", "mosaic"): backends.KERNELS["mosaic"],
    ("naive", "triton"): naive.KERNEL,
}
FWD_BWD = "_fwd_bwd"
# jax's own Hopper kernel (jax/experimental/pallas/ops/gpu/
# hopper_matmul_mgpu.py), a baseline for the Mosaic backend: 2-D 16-bit
# operands whose dimensions its tiles divide.
JAX_EXAMPLE = "jax_example"
IMPLS = [*pallas_tiled.IMPLEMENTATIONS,
         *(impl + FWD_BWD for impl in pallas_tiled.IMPLEMENTATIONS),
         JAX_EXAMPLE]

_IMPLS = flags.DEFINE_list(
    "impls", ["tiled", "naive", "xla"],
    "Implementations: " + ", ".join(IMPLS) + " (xla is jnp.matmul; *"
    + FWD_BWD + " times the product plus both gradients).")
_DTYPES = flags.DEFINE_list("dtypes", ["bfloat16", "float32"],
                            "Input dtypes: bfloat16, float16, float32,"
                            " float8_e4m3fn, int8 (int32 results),"
                            " complex64; float64 and complex128 need"
                            " JAX_ENABLE_X64=1.")
_BACKENDS = flags.DEFINE_list(
    "backends", ["auto"],
    "Backends for the tiled impls: auto, triton, mosaic; each runs as its own"
    " case, and rows record the backend that ran.")
_SHAPES = flags.DEFINE_list(
    "shapes", [], "Shapes MxNxK or BxMxNxK (a batch of B products); with"
    " --suite, only these shapes of it (each must be in it), their rows"
    " labelled with it, so that a re-run replaces its rows in a suite's"
    " results.")
_SUITE = flags.DEFINE_multi_enum(
    "suite", [], list(suites.SUITES),
    "Shape suite (repeat the flag for several); the default is 'square' on a"
    " GPU, 'tiny' on a CPU.")
_SWEEP_TILES = flags.DEFINE_bool(
    "sweep_tiles", False,
    "Time the tiled kernel on one shape with square tiles "
    f"{', '.join(map(str, SWEEP_TILES))} (block_k = tile) beside jnp.matmul.")
PRECISIONS = {
    "default": None,
    "highest": lax.Precision.HIGHEST,
    "tf32x3": lax.DotAlgorithmPreset.TF32_TF32_F32_X3,
}
_PRECISION = flags.DEFINE_enum(
    "precision", "default", list(PRECISIONS),
    "Matmul precision (matters for float32: default may use TF32; tf32x3 is"
    " the three-pass TF32 algorithm).")
_CONFIGS = flags.DEFINE_list(
    "configs", [],
    "Configs for the Pallas impls, each its own case: 'default', Triton"
    " labels BMxBNxBK[/wW][/sS][/gG][/skS][/kmajor][/align], and for Mosaic"
    " 'lane' or 'warpgroup' (the default pick in that lowering).")
_MOSAIC_LOWERINGS = ("lane", "warpgroup")
_INTERPRET = flags.DEFINE_enum(
    "interpret", "auto", ["auto", "true", "false"],
    "Pallas interpret mode; auto interprets exactly when there is no GPU.")
_ITERS = flags.DEFINE_integer("iters", 20, "Timed runs per case (median).")
_WARMUP = flags.DEFINE_integer("warmup", 3, "Untimed runs per case first.")
_COLD_MB = flags.DEFINE_float(
    "cold_operands_mb", 100.0,
    "Decode and skinny forward cases (M or N <= 64) cycle through copies of"
    " their operands adding up to at least this many MB (twice Hopper's"
    " 50 MB L2; at most 64 copies), so each product reads its operands from"
    " HBM as a decode step does, not from L2; 0 turns this off.",
    lower_bound=0.0)
_SUSTAIN = flags.DEFINE_float(
    "sustain_s", 0.0,
    "Seconds each case then runs back to back before it is timed, so that"
    " GPU clocks settle where sustained load holds them (an H200 at its"
    " power cap); 0 times each case right after its warmup runs.",
    lower_bound=0.0)
_ROUNDS = flags.DEFINE_integer(
    "rounds", 1,
    "Times each shape's cases this many times, interleaved, each round"
    " starting at the next case, and reports each case's median round, so"
    " that clocks drifting during a run do not favour the case timed first.",
    lower_bound=1)
_SHARD = flags.DEFINE_string(
    "shard", "0/1",
    "I/N: run only every N-th shape of the suites (or --shapes), from the"
    " I-th (0-based), so that one long suite can run as N commands;"
    " merge_results.py joins their reports.")
_CHECK = flags.DEFINE_bool("check", True,
                           "Check each result against a reference.")
_JSON_OUT = flags.DEFINE_string("json_out", None, "Write rows as JSON here.")
_CSV_OUT = flags.DEFINE_string("csv_out", None, "Write rows as CSV here.")
_PLOT_OUT = flags.DEFINE_string(
    "plot_out", None, "Draw TFLOP/s per case as a PNG here (needs the "
    "'plot' extra: matplotlib).")


@dataclasses.dataclass
class Row:
  """One benchmark case. A failed case has an error and no time."""

  impl: str
  backend: str
  suite: str
  dtype: str
  batch: int
  m: int
  n: int
  k: int
  config: dict[str, int] | None
  config_label: str
  precision: str
  status: str = "ok"
  error: str = ""
  time_us: float | None = None
  tflops: float | None = None
  # Operand and result bytes over the time: what bounds skinny and decode
  # products (HBM roofline); forward products only.
  gb_per_s: float | None = None
  # Decode and skinny rows: gb_per_s over the device's copy bandwidth.
  pct_copy_bandwidth: float | None = None
  pct_peak: float | None = None
  speedup_vs_xla: float | None = None
  rel_error: float | None = None
  tolerance: float | None = None
  reference: str = ""
  samples: list[dict[str, Any]] = dataclasses.field(default_factory=list)
  iterations: int = 0
  shared_memory_bytes: int | None = None
  num_programs: int | None = None
  platform: str = ""
  interpret: bool = False
  device: str = ""
  jax_version: str = jax.__version__
  timing: str = ""
  sustain_s: float = 0.0  # Back-to-back seconds before timing (--sustain_s).
  # Operand copies cycled through per timed call (--cold_operands_mb).
  operand_copies: int = 1
  # Each round's median time (--rounds); the row is the median round's.
  round_us: list[float] = dataclasses.field(default_factory=list)
  # (kernel name, median us) for each kernel of one call (CUPTI only).
  kernels: list[tuple[str, float]] = dataclasses.field(default_factory=list)
  # A Mosaic product's `plan.kernel_traits` at default precision: kernel
  # changes under an unchanged label (None where not recorded).
  kernel_traits: list[str] | None = None

  @property
  def shape(self) -> str:
    batch = f"{self.batch}x" if self.batch > 1 else ""
    return f"{batch}{self.m}x{self.n}x{self.k}"


def parse_shape(text: str) -> tuple[int, ...]:
  try:
    return suites.parse_shape(text)
  except ValueError as e:
    raise app.UsageError(str(e))


def peak_tflops(device: str, dtype, precision) -> float | None:
  """The device's dense peak for this math, or None for an unknown device."""
  dtype = dtype_rules.real_dtype(dtype)
  itemsize = dtype.itemsize
  if itemsize < 4:
    math = "8bit" if itemsize == 1 else "16bit"
  elif itemsize == 8:
    math = "fp64"
  else:
    math = "fp32" if precision == lax.Precision.HIGHEST else "tf32"
  for name, peaks in PEAK_TFLOPS.items():  # Most specific names first.
    if name in device:
      return peaks.get(math)
  return None


class Problem:
  """One (shape, dtype): operands, a cotangent for the backward, and lazily
  computed references shared by every impl."""

  def __init__(self, shape, dtype, seed=0):
    *batch, self.m, self.n, self.k = shape
    self.batch, self.dtype = (batch[0] if batch else 1), jnp.dtype(dtype)
    key_a, key_b, key_c = jax.random.split(jax.random.key(seed), 3)
    random = lambda key, dims: dtype_rules.random_operand(
        key, (*batch, *dims), dtype)
    self.a = random(key_a, (self.m, self.k))
    self.b = random(key_b, (self.k, self.n))
    self.cotangent = random(key_c, (self.m, self.n))
    self.out_dtype = dtype_rules.exact_result_dtype(dtype)
    self._references = {}
    sample_rng = np.random.default_rng(seed)
    self.sample_at = [(int(sample_rng.integers(self.m)),
                       int(sample_rng.integers(self.n))) for _ in range(3)]

  def operand_sets(self, cold_bytes: float) -> list[tuple]:
    """(a, b), and for decode and skinny shapes (M or N <= 64) copies of
    them in other buffers up to `cold_bytes` in all (`--cold_operands_mb`)."""
    return timing.cold_operand_sets(self.m, self.n, (self.a, self.b),
                                    cold_bytes)

  @property
  def macs(self) -> int:
    return self.batch * self.m * self.n * self.k

  @property
  def bytes_moved(self) -> int:
    """Bytes of both operands and the result, each read or written once."""
    return (self.a.nbytes + self.b.nbytes + self.batch * self.m * self.n
            * jnp.dtype(self.out_dtype).itemsize)

  @property
  def flops(self) -> int:
    """2 per multiply-add, 8 per complex one (four real products' worth)."""
    complex_ = self.dtype in dtype_rules.COMPLEX_DTYPES
    return (8 if complex_ else 2) * self.macs

  def factors(self, fwd_bwd: bool):
    """The (x, y) pairs whose products the impl returns: C = AB, and for
    fwd_bwd also dA = dC·Bᵀ and dB = Aᵀ·dC."""
    pairs = [(self.a, self.b)]
    if fwd_bwd:
      t = lambda x: jnp.swapaxes(x, -1, -2)
      pairs += [(self.cotangent, t(self.b)), (t(self.a), self.cotangent)]
    return pairs

  def reference(self, index: int, fwd_bwd: bool):
    """(reference array, what it is): float64 NumPy when affordable."""
    if index not in self._references:
      x, y = self.factors(fwd_bwd)[index]
      if self.macs <= MAX_FLOAT64_REFERENCE_MACS:
        ref = np.matmul(accuracy.as_float64(x), accuracy.as_float64(y))
        self._references[index] = (ref, "float64-numpy")
      else:
        ref, what = _device_reference(x, y)
        self._references[index] = (ref, what)
    return self._references[index]


def _device_reference(x, y):
  """(x @ y, what it is): `accuracy.device_reference`, named by its dtype."""
  ref = accuracy.device_reference(x, y)
  return ref, ("xla-int32" if ref.dtype == jnp.int32
               else f"xla-highest-{ref.dtype.name}")


def _check(row: Row, problem: Problem, outs, precision, fwd_bwd) -> None:
  """Checks each output (the product, then any gradients); the row keeps
  the worst one's error and tolerance, and samples of the product."""
  worst = -1.0
  for index, (out, (x, y)) in enumerate(zip(outs,
                                            problem.factors(fwd_bwd))):
    ref, row.reference = problem.reference(index, fwd_bwd)
    err = accuracy.relative_error(out, ref)
    tol = accuracy.tolerance(x, y, ref, out.dtype, precision)
    ratio = err / tol if tol else np.inf if err else 0.0  # Exact: tol 0.
    if not ratio <= worst:  # NaN errors win too.
      worst, row.rel_error, row.tolerance = ratio, err, tol
  out64 = accuracy.as_float64(outs[0]).reshape(-1, problem.m, problem.n)[0]
  ref64 = accuracy.as_float64(problem.reference(0, fwd_bwd)[0]).reshape(
      -1, problem.m, problem.n)[0]
  row.samples = [dict(row=i, col=j, expected=float(ref64[i, j].real),
                      actual=float(out64[i, j].real))
                 for i, j in problem.sample_at]
  if not row.rel_error <= row.tolerance:  # Also catches NaN.
    row.status = "wrong"
    row.error = (f"relative error {row.rel_error:.3e} exceeds tolerance"
                 f" {row.tolerance:.3e}")


def _timed_function(impl: str, problem: Problem, **kwargs):
  """What one case times: the product, or with fwd_bwd the product and its
  vjp (both gradients) for the problem's cotangent."""
  fn = functools.partial(pallas_tiled.IMPLEMENTATIONS[impl.removesuffix(
      FWD_BWD)], **kwargs)
  if not impl.endswith(FWD_BWD):
    return lambda a, b: (fn(a, b),)

  def fwd_bwd(a, b):
    out, vjp = jax.vjp(fn, a, b)
    return (out, *vjp(problem.cotangent.astype(out.dtype)))
  return fwd_bwd


def _jax_example_config():
  from jax.experimental.pallas.ops.gpu import hopper_matmul_mgpu as example  # pylint: disable=import-outside-toplevel
  dims = example.MatmulDimension
  return example, example.TuningConfig(
      tile_m=128, tile_n=128, tile_k=64, max_concurrent_steps=4,
      epi_tile_m=64, epi_tile_n=64, grid_minor_dim=dims.N,
      grid_tile_width=4, wg_dimension=dims.N)


def _jax_example_runs(shape, dtype) -> bool:
  """Whether jax's example takes this case: 2-D, 16-bit, divisible tiles."""
  return (len(shape) == 3 and jnp.dtype(dtype).itemsize == 2
          and shape[0] % 128 == 0 and shape[1] % 256 == 0
          and shape[2] % 64 == 0)


def run_case(impl: str, backend: str, suite: str, problem: Problem, config,
             *, precision, interpret, device: str) -> Row:
  """Times and checks one case; any failure becomes an error row."""
  base, fwd_bwd = impl.removesuffix(FWD_BWD), impl.endswith(FWD_BWD)
  m, n, k = problem.m, problem.n, problem.k
  row = Row(impl=impl, backend=backend, suite=suite,
            dtype=problem.dtype.name, batch=problem.batch,
            m=m, n=n, k=k,
            config=dataclasses.asdict(config) if config else None,
            config_label=config.label if config else "-",
            precision=_PRECISION.value,
            platform=jax.default_backend(), device=device,
            interpret=bool(interpret) and base not in ("xla", JAX_EXAMPLE),
            sustain_s=_SUSTAIN.value)
  if isinstance(config, pallas_tiled.TileConfig):
    row.num_programs = problem.batch * config.num_programs(m, n)
  elif config is not None:  # Mosaic: one persistent program per SM.
    row.num_programs = config.num_sms
  if base == "tiled":  # The naive kernel stages nothing in shared memory.
    real = dtype_rules.real_dtype(problem.dtype)
    row.shared_memory_bytes = config.shared_memory_bytes(real, real)
  kwargs = dict(precision=precision)
  if problem.out_dtype != problem.dtype:
    kwargs.update(preferred_element_type=problem.out_dtype)
  if base == "tiled":
    kwargs.update(backend=backend)
  if base in ("tiled", "naive"):
    kwargs.update(config=config, interpret=interpret)
  if base == JAX_EXAMPLE:
    example, example_config = _jax_example_config()
    fn = lambda a, b: (example.matmul(a, b, None, config=example_config),)
  else:
    fn = _timed_function(impl, problem, **kwargs)
  try:
    if (isinstance(config, pallas_tiled.MosaicConfig) and problem.batch == 1
        and _PRECISION.value == "default"):
      row.kernel_traits = list(mosaic_plan.kernel_traits(
          m, n, k, config, problem.dtype, problem.out_dtype))
    cold = not (fwd_bwd or interpret) and _COLD_MB.value > 0
    sets = problem.operand_sets(_COLD_MB.value * 2**20 if cold else 0)
    row.operand_copies = len(sets)
    result = timing.measure_cold(fn, sets, iterations=_ITERS.value,
                                 warmup=_WARMUP.value,
                                 sustain_s=_SUSTAIN.value)
    row.timing, row.iterations = result.method, result.iterations
    if _CHECK.value:
      _check(row, problem, result.result, precision, fwd_bwd)
  except Exception as e:  # pylint: disable=broad-except
    row.status = "error"
    row.error = f"{type(e).__name__}: {str(e).strip().splitlines()[0][:300]}"
  if row.status == "ok":
    row.time_us = result.median_us
    row.kernels = [(name, round(us, 2)) for name, us in result.kernels]
    flops = problem.flops * (3 if fwd_bwd else 1)
    row.tflops = flops / (result.median_us * 1e-6) / 1e12
    if not fwd_bwd:
      row.gb_per_s = problem.bytes_moved / (result.median_us * 1e-6) / 1e9
    peak = peak_tflops(device, problem.dtype, precision)
    if peak and not row.interpret:
      row.pct_peak = 100 * row.tflops / peak
  return row


def median_round(runs: list[Row]) -> Row:
  """The run of one case with the median time (the lower of the middle two
  for an even count), listing every run's time; a run that failed is the
  result instead, so that no failure is outvoted by the others."""
  failed = [r for r in runs if r.status != "ok"]
  if failed:
    return failed[0]
  median = sorted(runs, key=lambda r: r.time_us)[(len(runs) - 1) // 2]
  return dataclasses.replace(median, round_us=[r.time_us for r in runs])


def _run_rounds(group, *, precision, interpret, device) -> list[Row]:
  """One (suite, shape, dtype)'s cases, taking turns for --rounds rounds,
  each round starting at the next case: a row per case, its median round.
  The problem's operands live only while its cases run."""
  _, _, _, shape, dtype, _ = group[0]
  problem = Problem(shape, dtype)
  runs = [[] for _ in group]
  for start in range(_ROUNDS.value):
    for j in range(len(group)):
      i = (start + j) % len(group)
      impl, backend, suite, _, _, config = group[i]
      row = run_case(impl, backend, suite, problem, config,
                     precision=precision, interpret=interpret, device=device)
      _log_row(row)
      runs[i].append(row)
  return [median_round(r) for r in runs]


def _log_row(row: Row) -> None:
  if row.status != "ok":
    logging.info("%-6s %-8s %-16s %s: %s", row.impl, row.dtype, row.shape,
                 row.status.upper(), row.error)
    return
  logging.info("%-6s %-8s %-16s %10.1f us %8.2f TFLOP/s  rel_err %.2e (%s)",
               row.impl, row.dtype, row.shape, row.time_us, row.tflops,
               row.rel_error if row.rel_error is not None else float("nan"),
               row.reference or "unchecked")
  for s in row.samples:  # As seed 000 prints them, at --verbosity=1.
    err = abs(s["actual"] - s["expected"]) / max(abs(s["expected"]), 1e-30)
    logging.vlog(1, "    C[%d,%d]: Expected = %f, Actual = %f, Relative"
                 " Error = %e", s["row"], s["col"], s["expected"],
                 s["actual"], err)


def _fill_speedups(rows: list[Row]) -> None:
  """Each row against jnp.matmul doing the same work: xla, or xla_fwd_bwd."""
  mode = lambda impl: FWD_BWD if impl.endswith(FWD_BWD) else ""
  xla_us = {(r.dtype, r.shape, r.precision, mode(r.impl)): r.time_us
            for r in rows if r.impl in ("xla", "xla" + FWD_BWD)
            and r.status == "ok"}
  for r in rows:
    base = xla_us.get((r.dtype, r.shape, r.precision, mode(r.impl)))
    if r.status == "ok" and base:
      r.speedup_vs_xla = base / r.time_us


def copy_bandwidth() -> float:
  """GB/s of an elementwise pass over 1 GiB, reading and writing it: the
  HBM roofline that decode and skinny rows are compared with."""
  x = jax.random.normal(jax.random.key(0), (2**28,), jnp.float32)
  result = timing.measure(lambda x: x * 2, x, iterations=10)
  return 2 * x.nbytes / (result.median_us * 1e-6) / 1e9


def fill_copy_fractions(rows: list[Row], copy_gb_per_s: float) -> None:
  for r in rows:
    if r.gb_per_s and layouts.is_skinny(r.m, r.n):
      r.pct_copy_bandwidth = 100 * r.gb_per_s / copy_gb_per_s


def _parse_shard(text: str) -> tuple[int, int]:
  try:
    index, count = (int(x) for x in text.split("/"))
  except ValueError:
    index, count = -1, 0
  if not 0 <= index < count:
    raise app.UsageError(f"--shard={text!r} is not I/N with 0 <= I < N")
  return index, count


def _suite_of(shape) -> str:
  """The --suite holding a --shapes entry ("shapes" without --suite)."""
  if not _SUITE.value:
    return "shapes"
  for name in _SUITE.value:
    if shape in map(parse_shape, suites.SUITES[name]):
      return name
  raise app.UsageError(f"--shapes: {'x'.join(map(str, shape))} is not in"
                       f" --suite={','.join(_SUITE.value)}")


def build_cases(interpret, precision):
  """[(impl, backend, suite, shape, dtype, config)] in run order."""
  if _SHAPES.value:
    shapes = [(_suite_of(shape), shape)
              for shape in map(parse_shape, _SHAPES.value)]
  else:
    names = _SUITE.value or ["tiny" if interpret else "square"]
    shapes = [(suite, parse_shape(s)) for suite in names
              for s in suites.SUITES[suite]]
  index, count = _parse_shard(_SHARD.value)
  shapes = shapes[index::count]
  for impl in _IMPLS.value:
    if impl not in IMPLS:
      raise app.UsageError(f"--impls: unknown impl {impl!r}; choose from"
                           f" {', '.join(IMPLS)}")
  dtypes = []
  for name in _DTYPES.value:
    try:
      reason = dtype_rules.unsupported_reason(name)
    except TypeError:
      reason = "not a dtype"
    if reason:
      raise app.UsageError(f"--dtypes: {name!r}: {reason}")
    dtypes.append(jnp.dtype(name))
  cases = []
  if _SWEEP_TILES.value:
    if len(shapes) != 1 and _SHAPES.value:
      raise app.UsageError("--sweep_tiles takes exactly one --shapes entry")
    shape = shapes[0][1] if _SHAPES.value else (
        (256, 256, 256) if interpret else (2048, 2048, 2048))
    if len(shape) != 3:
      raise app.UsageError("--sweep_tiles takes an MxNxK shape")
    for dtype in dtypes:
      cases.append(("xla", "xla", "sweep", shape, dtype, None))
      cases.append(("tiled", "triton", "sweep", shape, dtype,
                    tiled.select_config(*shape, dtype, precision,
                                        out_dtype=dtype)))
      for tile in SWEEP_TILES:
        config = pallas_tiled.TileConfig(
            tile, tile, tile, num_warps=4 if tile <= 64 else 8, num_stages=2)
        cases.append(("tiled", "triton", "sweep", shape, dtype, config))
    return cases
  for name in _BACKENDS.value:
    if name not in backends.BACKENDS:
      raise app.UsageError(f"--backends: unknown backend {name!r}")
  for suite, shape in shapes:
    for dtype in dtypes:
      for impl in _IMPLS.value:
        if impl.endswith(FWD_BWD) and jnp.issubdtype(dtype, jnp.integer):
          continue  # Integer products have no gradients.
        if impl == JAX_EXAMPLE:
          if _jax_example_runs(shape, dtype) and not interpret:
            cases.append((impl, "mosaic", suite, shape, dtype, None))
          continue
        for backend in _backends_for(impl, shape, dtype, precision,
                                     interpret):
          for config in _configs_for(impl, backend, shape, dtype, precision):
            cases.append((impl, backend, suite, shape, dtype, config))
  return cases


def _backends_for(impl, shape, dtype, precision, interpret):
  """The backends (resolved, distinct) one impl runs on one case."""
  base = impl.removesuffix(FWD_BWD)
  if base != "tiled":
    return ["xla" if base == "xla" else "triton"]
  *batch, m, n, k = shape
  call = complex_products.real_call(validation.MatmulCall(
      m, n, k, tuple(batch), (*batch, m, n), dtype, dtype, precision,
      interpret))
  try:
    resolved = [backends.resolve_backend(call, None, name)
                for name in _BACKENDS.value]
  except ValueError as e:
    raise app.UsageError(f"--backends: {e}")
  return list(dict.fromkeys(resolved))


def _configs_for(impl, backend, shape, dtype, precision):
  """The configs one impl runs on one case: --configs (Triton labels), or
  its default (for the forward product; a fwd_bwd impl's backward products
  pick their own)."""
  key = (impl.removesuffix(FWD_BWD), backend)
  if key not in KERNELS:
    return [None]
  *batch, m, n, k = shape
  problem = batching.BatchedProblem.from_shapes((*batch, m, k), (*batch, k, n))
  dtype = dtype_rules.real_dtype(dtype)  # Complex: the real products'.
  default = KERNELS[key].select_config(
      *batching.selection_shape(problem), dtype, precision, out_dtype=dtype)
  if not _CONFIGS.value:
    return [default]
  if backend == "mosaic":  # Its labels: 'default' and the lowerings.
    labels = [label for label in _CONFIGS.value
              if label in ("default", *_MOSAIC_LOWERINGS)] or ["default"]
    return [default if label == "default"
            else dataclasses.replace(default, lowering=label)
            for label in labels]
  if backend != "triton":
    return [default]
  try:
    return [default if label == "default"
            else pallas_tiled.TileConfig.from_label(label)
            for label in _CONFIGS.value if label not in _MOSAIC_LOWERINGS]
  except (ValueError, TypeError) as e:
    raise app.UsageError(f"--configs: {e}")


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments: {argv[1:]}")
  interpret = {"auto": jax.default_backend() == "cpu", "true": True,
               "false": False}[_INTERPRET.value]
  precision = PRECISIONS[_PRECISION.value]
  device = jax.devices()[0].device_kind
  cases = build_cases(interpret, precision)
  mode = ("INTERPRET MODE (CPU wall clock; not kernel speed)" if interpret
          else "compiled, CUPTI kernel times")
  logging.info("pallas_tiled benchmark: %d cases on %s (%s), jax %s: %s",
               len(cases), device, jax.default_backend(), jax.__version__,
               mode)
  meta = dict(device=device, platform=jax.default_backend(),
              jax_version=jax.__version__, interpret=interpret,
              date=datetime.date.today().isoformat(),
              command=" ".join(sys.argv))
  on_gpu = jax.default_backend() == "gpu"  # A CPU's copy is no roofline.
  if on_gpu:
    meta.update(copy_gb_per_s=copy_bandwidth())
  rows = []
  for _, group in itertools.groupby(cases, key=lambda case: case[2:5]):
    rows.extend(_run_rounds(list(group), precision=precision,
                            interpret=interpret, device=device))
    _fill_speedups(rows)
    if on_gpu:
      fill_copy_fractions(rows, meta["copy_gb_per_s"])
    if _JSON_OUT.value:  # After every shape: a killed run keeps its rows.
      report.write_json(rows, _JSON_OUT.value,
                        dict(meta, timing=rows[0].timing))
  print(f"\npallas_tiled benchmark on {device}, jax {jax.__version__}, "
        f"{mode}")
  if _JSON_OUT.value and not rows:
    report.write_json(rows, _JSON_OUT.value, dict(meta, timing=""))
  print(report.format_table(rows))
  if any(r.suite.startswith("wild") for r in rows):
    print(report.format_speedup_stats(rows))
    if decode := report.format_decode_bandwidth_stats(rows):
      print(decode)
  if on_gpu:
    print(f"copy bandwidth (1 GiB read and written): "
          f"{meta['copy_gb_per_s']:.0f} GB/s")
  if _CSV_OUT.value:
    report.write_csv(rows, _CSV_OUT.value)
  if _PLOT_OUT.value:
    title = f"{device}, jax {jax.__version__}"
    if any(r.suite.startswith("wild") for r in rows):
      report.write_speedup_plot(rows, _PLOT_OUT.value, title)
    else:
      report.write_plot(rows, _PLOT_OUT.value, title,
                        sweep=_SWEEP_TILES.value)
  wrong = [r for r in rows if r.status == "wrong"]
  errors = [r for r in rows if r.status == "error"]
  if wrong or errors:
    print(f"\n{len(wrong)} wrong results and {len(errors)} errors in"
          f" {len(rows)} cases.")
  # A sweep maps where tiles stop working: there, errors are data.
  return 1 if wrong or (errors and not _SWEEP_TILES.value) else 0


if __name__ == "__main__":
  app.run(main)
