"""`pallas_tiled.matmul`: the tiled matmul on the backend that suits the call.

Two kernels express the same tiling: `triton/kernel.py` on Pallas' Triton
lowering (any CUDA GPU, any float32 precision) and `mosaic/kernel.py` on
Mosaic GPU (Hopper only: TMA, wgmma, warp specialization).
`backend="auto"` picks by the rule in `resolve_backend`, measured on an H200
(BUILD_NOTES.md).
"""

from __future__ import annotations

import functools
import math

from jax.experimental import pallas as pl
import jax.numpy as jnp

from pallas_tiled import complex_products
from pallas_tiled import cost_model
from pallas_tiled import device
from pallas_tiled import dtypes
from pallas_tiled import validation
from pallas_tiled import vma
from pallas_tiled.mosaic import config as mosaic_config
from pallas_tiled.mosaic import kernel as mosaic_kernel
from pallas_tiled.mosaic import tf32x3
from pallas_tiled.triton import config as triton_config
from pallas_tiled.triton import heuristics as triton_heuristics
from pallas_tiled.triton import kernel as triton_kernel
from pallas_tiled.tuning import cache as tuning_cache

BACKENDS = ("auto", "triton", "mosaic")
KERNELS = {"triton": triton_kernel.KERNEL, "mosaic": mosaic_kernel.KERNEL}
CONFIG_TYPES = tuple(tuning_cache.CONFIG_TYPES.values())
# Measured on an H200 (against jnp.matmul in the same run), Mosaic with the
# small-output heuristic (128x64 CTA tiles) against Triton: it needs some
# tiles to fill the SMs: bfloat16 256^3 (8 tiles) 0.48x against 1.03x,
# 512^3 (32) 1.47x against 1.39x, 1024^3 (128) 1.20x against 1.02x;
# float32 128^3 (2) 0.47x against 0.53x, 256^3 0.70x against 0.45x. Shapes
# that are not multiples of 64 (Mosaic pads operands and some outputs) ran
# faster on Mosaic once it cut padded outputs with its own copy or stored
# them in place: 4097^3 3.61x (Triton 2.50x), 2047x8191x1023 2.31x
# (2.19x), 3000x5000x700 1.64x (1.46x); 1000^3 0.67x (0.64x).
_MOSAIC_MIN_TILES = 16
_MOSAIC_RULE_CTA_TILE = (128, 64)
_MOSAIC_MIN_DIM = 128  # The rule's size floor: `below_mosaic_min_dim`.


def below_mosaic_min_dim(m: int, n: int, k: int) -> bool:
  """Whether the rule sends an M x N x K product to Triton for its size
  (where neither a tuned entry nor the cost model decides)."""
  return min(m, n, k) < _MOSAIC_MIN_DIM


# What Mosaic GPU's wgmma multiplies in our kernel: int8 (wgmma has s8) and
# float64 (no wgmma) run on Triton; complex64 splits into float32 products.
_MOSAIC_DTYPES = tuple(map(jnp.dtype, (jnp.float32, jnp.bfloat16, jnp.float16,
                                       jnp.float8_e4m3fn)))


def _mosaic_runs_float32(precision) -> bool:
  """Mosaic GPU's wgmma takes float32 as TF32: the kernel runs XLA's default
  precision (TF32) and HIGHEST (three-pass TF32, `tf32x3.py`)."""
  return (validation.is_default(precision)
          or validation.is_highest(precision))


def _auto_may_take_mosaic(call: validation.MatmulCall, hopper: bool) -> bool:
  """Whether Mosaic GPU can run a call that asked for "auto": compiled on
  Hopper, and float32 only at default or HIGHEST precision, and not as a
  matrix-vector product (Triton's vector tiles: IEEE float32)."""
  return hopper and not call.interpret and call.dtype in _MOSAIC_DTYPES and (
      call.dtype != jnp.float32 or _mosaic_runs_float32(call.precision)) and (
          not triton_heuristics.takes_vector_tiles(call.m, call.n,
                                                   call.dtype))


def resolve_backend(call: validation.MatmulCall, config, backend: str) -> str:
  """The backend that runs a checked call: "triton" or "mosaic".

  An explicit config names its backend. "auto" runs on Triton except on
  compute capability 9.x, compiled, where Mosaic GPU can run the call
  (float32 at default precision, TF32, or HIGHEST, three-pass TF32).
  There:
  * a single product whose shape bucket has tuned entries for both backends
    (the table shipped for this device, and the user's autotune cache when
    config="auto") runs on the one that measured faster (only entries tuned
    on this very shape where the cost model applies);
  * a single product the cost model has coefficients for (`cost_model.py`:
    this device kind or another Hopper part, 16-bit inputs) runs on the
    backend of its pick;
  * otherwise, by rule: Mosaic for products at least 128 wide in M and N
    and 128 deep with at least 16 CTA tiles of 128x64, or with any number
    of tiles for float32 at HIGHEST (its tripled K makes each tile 3x the
    work: 1.21x jnp.matmul at 1024^3 on an H200, Triton 0.95x).
  Symbolic dimensions (jax.export) run on Triton.
  """
  if backend not in BACKENDS:
    raise ValueError(f"backend={backend!r} is not one of {BACKENDS}.")
  if isinstance(config, CONFIG_TYPES):
    if backend not in ("auto", config.backend):
      raise ValueError(
          f"config={config} is a {type(config).__name__}, which runs on the"
          f" {config.backend!r} backend, but backend={backend!r}.")
    backend = config.backend
  if backend == "mosaic" and call.dtype not in _MOSAIC_DTYPES:
    raise ValueError(
        f"backend='mosaic' multiplies {dtypes.names(_MOSAIC_DTYPES)} (and"
        f" complex64 as float32 products), but the products here are"
        f" {call.dtype}; use backend='triton' (or 'auto') for them.")
  if backend == "mosaic" and call.dtype == jnp.float32 and not (
      _mosaic_runs_float32(call.precision)):
    raise ValueError(
        f"backend='mosaic' computes float32 at default precision (TF32) or"
        f" HIGHEST (three-pass TF32), but precision={call.precision!r}; use"
        " backend='triton' (or 'auto') for it.")
  if call.symbolic:  # Issue 28: symbolic (jax.export) dimensions.
    if backend == "mosaic":
      raise ValueError(
          "backend='mosaic' needs static shapes (its TMA descriptors and"
          f" tile plans are built from them), but M={call.m}, N={call.n},"
          f" K={call.k}, batch={call.batch} has a symbolic dimension; use"
          " backend='triton' or 'auto'.")
    return "triton"
  capability = device.compute_capability()
  hopper = capability in device.HOPPER_CAPABILITIES
  if backend == "mosaic" and not call.interpret and not hopper:
    raise ValueError(
        "backend='mosaic' compiles for Hopper (compute capability 9.x), but"
        f" this device has {capability}; use"
        " backend='triton' or 'auto'.")
  if backend != "auto":
    return backend
  if not _auto_may_take_mosaic(call, hopper):
    return "triton"
  if not call.batch:
    modeled = cost_model.choose(call.m, call.n, call.k, call.dtype,
                                call.precision, out_dtype=call.out_dtype)
    tuned = tuning_cache.fastest_backend(
        tuple(KERNELS), call.m, call.n, call.k, call.dtype, call.precision,
        auto=config == "auto", exact=modeled is not None)
    if tuned is not None:
      return tuned
    if modeled is not None:
      return modeled.backend
  if below_mosaic_min_dim(call.m, call.n, call.k):
    return "triton"
  if tf32x3.applies(call.dtype, call.precision):
    return "mosaic"  # Three-pass TF32 triples K: enough work per tile.
  cta_m, cta_n = _MOSAIC_RULE_CTA_TILE
  tiles = math.prod((pl.cdiv(call.m, cta_m), pl.cdiv(call.n, cta_n),
                     *call.batch))
  return "triton" if tiles < _MOSAIC_MIN_TILES else "mosaic"


def runnable_backends(call: validation.MatmulCall, backend: str) -> tuple:
  """The backends that can run a checked call: `backend`'s resolution, or
  for "auto" every one that can (what the autotuner times)."""
  if backend != "auto":
    return (resolve_backend(call, None, backend),)
  if _auto_may_take_mosaic(call, device.is_hopper()):
    return ("triton", "mosaic")
  return ("triton",)


def _on_operands_devices(fn):
  """Issue 30: `fn(a, b, ...)` built for the devices the operands live on
  and, inside jax.shard_map, on operands that vary alike over its axes."""

  @functools.wraps(fn)
  def wrapped(a, b, *args, **kwargs):
    with device.building_for(device.devices_of(a, b)):
      return fn(*vma.vary_alike(a, b), *args, **kwargs)

  return wrapped


@_on_operands_devices
def matmul(a, b, config=None, *, backend: str = "auto", precision=None,
           preferred_element_type=None, interpret=None):
  """`a @ b` with the tiled Pallas kernel, with jnp.matmul's semantics.

  Shapes as in jnp.matmul: matrices, vectors (1-D a or b) and batches with
  broadcast batch dimensions, which become a batch axis of the grid. The
  result dtype is the inputs' unless `preferred_element_type` sets it;
  float32 at default precision may use TF32 on GPU, as XLA does, and
  `precision=jax.lax.Precision.HIGHEST` gives full float32 accuracy.
  Accumulation is float32 (int32 for int8, float64 for float64; complex
  runs three real products: dtypes.py). Differentiable in both modes
  (jax.grad, jax.jvp, jax.hessian: derivatives run these kernels too) and
  batchable with jax.vmap. Mixed dtypes promote as in jnp.matmul.

  config: a TileConfig (Triton) or a MosaicConfig (Mosaic GPU), for the
    forward product (backward products pick their own); None for the table
    tuned for this GPU or the backend's heuristic; "auto" to prefer the
    user's autotune cache (filled by `pallas_tiled.autotune`).
  backend: "auto", "triton" or "mosaic" (see `resolve_backend`).
  interpret: None interprets exactly when JAX's default backend is the CPU;
    both backends have an interpreter (Mosaic GPU's is slow).
  Usable inside `jax.jit`: all checks run on static shapes and dtypes.
  """
  call = validation.check_matmul_call(
      a, b, precision=precision,
      preferred_element_type=preferred_element_type, interpret=interpret)
  validation.check_config_type(config, CONFIG_TYPES, ("auto",))
  validation.check_kernel_dims(call)
  # What the kernels multiply: complex calls run real products.
  real_call = complex_products.real_call(call)
  backend = resolve_backend(real_call, config, backend)
  if isinstance(config, triton_config.TileConfig):
    if call.interpret:  # The compiled check starts with this one.
      triton_config.check_upcast(config, real_call.dtype)
    else:
      triton_config.check_triton_tiles(config, real_call.dtype,
                                       device.compute_capability(),
                                       real_call.out_dtype)
  elif isinstance(config, mosaic_config.MosaicConfig):
    mosaic_config.check_mosaic_config(config, real_call.dtype,
                                      real_call.out_dtype,
                                      real_call.precision)
  return complex_products.matmul(KERNELS[backend], a, b, call, config)
