"""Argument checks shared by every matmul entry point.

Everything here runs in plain Python on shapes and dtypes, before any kernel
is traced, so that bad input fails with a message naming the argument, its
value and the rule, and never inside a lowering.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
from jax import lax
import jax.numpy as jnp
import numpy as np

from pallas_tiled import dtypes


# float8_e4m3fn as Hopper's tensor cores take it: the result is float8
# unless preferred_element_type widens it (what their accumulation keeps:
# accuracy.py). int8, float64 and complex: dtypes.py.
SUPPORTED_DTYPES = dtypes.OPERAND_DTYPES
# The Pallas kernels index rows, columns, K and the batch with int32 (grid
# program ids and in-tile offsets): a dimension must stay below 2^31.
MAX_KERNEL_DIM = 2**31 - 1


class MatmulCall(NamedTuple):
  """A checked call: the problem size and the resolved keyword arguments.

  m is 1 for a 1-D `a` and n is 1 for a 1-D `b` (jnp.matmul's promotion);
  `out_shape` is the result's shape, without those unit dimensions.
  """

  m: int
  n: int
  k: int
  batch: tuple[int, ...]
  out_shape: tuple[int, ...]
  dtype: np.dtype
  out_dtype: np.dtype
  precision: (lax.Precision | tuple[lax.Precision, lax.Precision]
              | lax.DotAlgorithmPreset | None)
  interpret: bool
  # interpret=None: the lowering interprets for the CPU and compiles for a
  # GPU (platforms.py); `interpret` is what JAX's default backend gets.
  interpret_per_platform: bool = False

  @property
  def symbolic(self) -> bool:
    """True when a dimension is symbolic (jax.export shape polymorphism)."""
    return is_symbolic(self.m, self.n, self.k, *self.batch)

  @property
  def is_empty(self) -> bool:
    """True when jnp.matmul's answer needs no kernel (a zero dimension)."""
    return 0 in (self.m, self.n, self.k, *self.batch)

  def empty_result(self) -> jax.Array:
    """jnp.matmul's result for a zero dimension: zeros, or an empty array."""
    return jnp.zeros(self.out_shape, self.out_dtype)


def _check_operand(name: str, x) -> None:
  if not isinstance(x, (jax.Array, np.ndarray, np.generic)):
    raise TypeError(
        f"{name} must be an array (jax.Array or numpy.ndarray), got"
        f" {type(x).__name__}: {x!r:.60}."
    )
  if x.ndim == 0:
    raise ValueError(
        f"{name} must have at least 1 dimension, as in jnp.matmul (a vector,"
        f" a matrix or a batch of matrices), got shape {tuple(x.shape)} with"
        " ndim=0."
    )
  reason = dtypes.unsupported_reason(x.dtype)
  if reason:
    raise TypeError(f"{name}.dtype={x.dtype} is not supported: {reason}.")


# --- Mixed dtypes (issue 28): jnp.matmul's promotion, JAX's own rules. ---
def promoted_dtype(a, b) -> np.dtype:
  """The dtype jnp.matmul computes `a @ b` in: `jnp.result_type` of the two
  (weak types included), e.g. bfloat16 x float32 -> float32, float16 x
  bfloat16 -> float32; float8 promotes to nothing (JAX refuses it)."""
  try:
    dtype = jnp.result_type(a, b)
  except jax.dtypes.TypePromotionError as e:
    raise TypeError(
        f"a.dtype={a.dtype} and b.dtype={b.dtype} do not promote, as in"
        f" jnp.matmul: {e}") from None
  if dtype not in SUPPORTED_DTYPES:
    raise TypeError(
        f"a.dtype={a.dtype} and b.dtype={b.dtype} promote to {dtype}, which"
        f" is not supported; supported dtypes are"
        f" {dtypes.names(SUPPORTED_DTYPES)}.")
  return jnp.dtype(dtype)
# --- end mixed dtypes ---


# --- Symbolic dimensions (issue 28): jax.export's shape polymorphism. ---
def is_symbolic(*dims) -> bool:
  """Whether any of `dims` is symbolic: then no comparison on it is safe
  (it raises InconclusiveDimensionOperation), so configs are chosen
  without looking at sizes."""
  return any(jax.export.is_symbolic_dim(d) for d in dims)


def symbolic_dims_text(m, n, k, batch) -> str:
  """The symbolic ones of a product's dimensions, for error messages."""
  named = (("M", m), ("N", n), ("K", k), *((f"batch[{i}]", d)
                                            for i, d in enumerate(batch)))
  return ", ".join(f"{name}={d}" for name, d in named if is_symbolic(d))


def check_static_k(k) -> None:
  """Raises ValueError for a symbolic K: each grid program's BlockSpecs
  hold its whole K strip, and Pallas refuses blocks of symbolic shape
  ("shape polymorphism for Pallas does not support dynamically-shaped
  blocks"). M, N and the batch may be symbolic (the grid's sizes)."""
  if is_symbolic(k):
    raise ValueError(
        f"K={k} is symbolic, but the kernels need a static K (each"
        " program's blocks span all of K, and Pallas takes no block of"
        " symbolic shape); M, N and batch dimensions may be symbolic, but"
        " a gradient contracts over them (dB = Aᵀ·dC contracts over M),"
        " so differentiate only with static ones.")
# --- end symbolic dimensions ---


_DEFAULT_PRECISIONS = (None, lax.Precision.DEFAULT,
                       (lax.Precision.DEFAULT, lax.Precision.DEFAULT),
                       lax.DotAlgorithmPreset.DEFAULT)


def is_default(precision) -> bool:
  """Whether `precision` is XLA's default (float32 on Hopper: TF32)."""
  return precision in _DEFAULT_PRECISIONS


def is_highest(precision) -> bool:
  """Whether `precision` asks for full float32 products."""
  if isinstance(precision, tuple):
    return lax.Precision.HIGHEST in precision
  return precision == lax.Precision.HIGHEST


def _canonical_precision(precision):
  """jnp-style precision: None, a lax.Precision or its name, a pair of them,
  or a lax.DotAlgorithmPreset."""
  if precision is None or isinstance(precision,
                                     (lax.Precision, lax.DotAlgorithmPreset)):
    return precision
  if isinstance(precision, str):
    try:
      return lax.Precision(precision)
    except (KeyError, ValueError):
      pass
  elif isinstance(precision, (tuple, list)) and len(precision) == 2:
    pair = tuple(_canonical_precision(p) for p in precision)
    if None not in pair:
      return pair
  raise ValueError(
      f"precision={precision!r} is not supported; use None, a"
      " jax.lax.Precision (or its name, e.g. 'highest'), a pair of them, or a"
      " jax.lax.DotAlgorithmPreset."
  )


def resolve_interpret(interpret) -> bool:
  """None means interpret mode exactly when JAX's default backend is the CPU."""
  if interpret is None:
    return jax.default_backend() == "cpu"
  if not isinstance(interpret, bool):
    raise TypeError(f"interpret must be None or a bool, got {interpret!r}.")
  if not interpret and jax.default_backend() != "gpu":
    raise ValueError(
        "interpret=False compiles a Triton GPU kernel, but JAX's default"
        f" backend is {jax.default_backend()!r}. Use interpret=True (or None)."
    )
  return interpret


def _check_result_dtype(preferred_element_type, dtype) -> np.dtype:
  """preferred_element_type as a dtype of the operands' kind (dtypes.py)."""
  allowed = dtypes.allowed_result_dtypes(dtype)
  try:
    out_dtype = jnp.dtype(preferred_element_type)
  except TypeError:
    out_dtype = None
  if out_dtype not in allowed:
    raise TypeError(
        f"preferred_element_type={preferred_element_type!r} is not"
        f" supported for {jnp.dtype(dtype)} operands; use None or one of"
        f" {dtypes.names(allowed)}."
    )
  reason = dtypes.missing_x64_reason(out_dtype)
  if reason:
    raise TypeError(
        f"preferred_element_type={preferred_element_type!r} is not"
        f" supported: {reason}.")
  return out_dtype


def check_matmul_call(a, b, *, precision=None, preferred_element_type=None,
                      interpret=None) -> MatmulCall:
  """Checks one call's operands and keywords; returns them resolved."""
  _check_operand("a", a)
  _check_operand("b", b)
  dtype = promoted_dtype(a, b)
  k, k_b = a.shape[-1], b.shape[0] if b.ndim == 1 else b.shape[-2]
  if k != k_b:
    b_axis = "b.shape[0]" if b.ndim == 1 else "b.shape[-2]"
    raise ValueError(
        f"inner dimensions differ: a.shape={tuple(a.shape)} has K={k} but"
        f" b.shape={tuple(b.shape)} has K={k_b}; a.shape[-1] must equal"
        f" {b_axis}."
    )
  try:
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
  except ValueError:
    raise ValueError(
        f"batch dimensions do not broadcast: a.shape={tuple(a.shape)} has"
        f" batch {tuple(a.shape[:-2])} and b.shape={tuple(b.shape)} has batch"
        f" {tuple(b.shape[:-2])}; aligned from the right, each pair of sizes"
        " must be equal or contain a 1, as in jnp.matmul."
    ) from None
  m = a.shape[-2] if a.ndim > 1 else 1
  n = b.shape[-1] if b.ndim > 1 else 1
  out_shape = (*batch, *((m,) if a.ndim > 1 else ()),
               *((n,) if b.ndim > 1 else ()))
  if preferred_element_type is None:
    out_dtype = dtype
  else:
    out_dtype = _check_result_dtype(preferred_element_type, a.dtype)
  return MatmulCall(
      m=m, n=n, k=k, batch=batch, out_shape=out_shape,
      dtype=dtype, out_dtype=out_dtype,
      precision=_canonical_precision(precision),
      interpret=resolve_interpret(interpret),
      interpret_per_platform=interpret is None,
  )


def check_kernel_dims(call: MatmulCall) -> None:
  """Raises ValueError if a dimension of `call` is past what the Pallas
  kernels index (MAX_KERNEL_DIM); jnp.matmul (`xla_matmul`) has no such
  limit. A symbolic dimension is unknown until the call: not checked;
  a symbolic K is refused (`check_static_k`)."""
  check_static_k(call.k)
  batch = math.prod(call.batch)
  for name, size in (("M", call.m), ("N", call.n), ("K", call.k),
                     ("the batch (all batch dimensions together)", batch)):
    if not is_symbolic(size) and size > MAX_KERNEL_DIM:
      raise ValueError(
          f"{name} = {size} is over {MAX_KERNEL_DIM} (2^31 - 1), the largest"
          " dimension the Pallas kernels index with 32-bit integers; split"
          " the product, or use xla_matmul (jnp.matmul).")


def check_config_type(config, config_cls, names=()) -> None:
  """Raises TypeError unless `config` is None, a `config_cls` (a class or a
  tuple of them) or in `names`."""
  if config is None or isinstance(config, config_cls) or (
      isinstance(config, str) and config in names):
    return
  classes = config_cls if isinstance(config_cls, tuple) else (config_cls,)
  allowed = ", ".join(["None", *map(repr, names),
                       *(f"a {cls.__name__}" for cls in classes)])
  raise TypeError(f"config must be one of {allowed}; got {config!r}.")
