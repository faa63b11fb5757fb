"""The fuzzer's cases, checks and bound, for `fuzz.py` and its tests.

Each case draws shapes (log-uniform, mixed with edge sizes), a dtype, a
precision, a backend, a config (none, or a random TileConfig/MosaicConfig),
maybe a broadcast batch and maybe gradients (not for int8, whose products
are asked for int32 results and must be exact). float64 and complex are
not drawn: they need jax_enable_x64 or are compositions of real products
(tests/test_dtypes.py covers them). A call the library refuses by
design (or an invalid config) must be refused with ValueError/TypeError
before any kernel is traced ("rejected"); anything else that raises is a
crash. Results are computed into a NaN-poisoned output buffer and must hold
|out - ref| <= bound elementwise (see `error_bound`).
"""

from __future__ import annotations

import functools
import os
import traceback

import jax
from jax import lax
import jax.numpy as jnp
import numpy as np

import pallas_tiled
from pallas_tiled import accuracy
from pallas_tiled import device
from pallas_tiled import dtypes

DTYPES = ("float32", "bfloat16", "float16", "float8_e4m3fn", "int8")
BACKENDS = ("auto", "triton", "mosaic")
EDGE_SIZES = (1, 7, 127, 129, 4097)
# Config types drawn when --backends names one of these (a MosaicConfig
# always runs on Mosaic GPU, so --backends=auto,triton never draws one).
CONFIG_BACKENDS = {"TileConfig": {"auto", "triton"}, "MosaicConfig": {"mosaic"}}
# Three-pass TF32 (float32 at HIGHEST on Mosaic) drops lo(a) lo(b), at
# most 2^-22 of |a b|, and rounds each lo part to TF32, 2^-23 each.
THREE_PASS_TF32_EPS = 2.0**-21
# How often a case draws each option.
P_EDGE, P_CONFIG, P_BATCH, P_GRAD = 0.25, 0.5, 0.25, 0.25

def _dim(rng, max_dim):
  """Log-uniform in [1, max_dim], or an edge size that fits."""
  edges = [s for s in EDGE_SIZES if s <= max_dim]
  if edges and rng.random() < P_EDGE:
    return int(rng.choice(edges))
  return int(min(max_dim, round(np.exp(rng.uniform(0, np.log(max_dim))))))


def _triton_fields(rng, interpret):
  """Plausible TileConfig fields: powers of two 16..256 compiled; any
  positive in interpret mode (kept >= 8 so that grids stay small)."""
  if interpret:
    blocks = [int(rng.integers(8, 65)) for _ in range(3)]
  else:
    blocks = [int(2 ** rng.integers(4, 9)) for _ in range(3)]
  return dict(block_m=blocks[0], block_n=blocks[1], block_k=blocks[2],
              num_warps=int(2 ** rng.integers(0, 4)),
              num_stages=int(rng.integers(1, 5)),
              group_m=int(rng.integers(1, 9)),
              split_k=int(rng.choice([1, 1, 2, 3, 4])),
              k_major_b=bool(rng.random() < 0.3),
              align_operands=bool(rng.random() < 0.3))


def _mosaic_fields(rng, interpret):
  """Plausible MosaicConfig fields; some (e.g. float32 with tile_k 8, or
  too much shared memory) are invalid on purpose and must be rejected."""
  tile_m = 64 * int(rng.integers(1, 4))
  tile_n = 8 * int(rng.integers(1, 33))
  epi_n = [0] + [d for d in range(8, tile_n + 1, 8) if tile_n % d == 0]
  ws = bool(rng.random() < 0.7)
  cluster = str(rng.choice(["none", "m", "n"])) if ws else "none"
  sms = (int(rng.integers(1, 5)) if interpret
         else int(rng.choice([device.sm_count(), 2 * int(rng.integers(1, 9))])))
  return dict(tile_m=tile_m, tile_n=tile_n,
              tile_k=8 * int(rng.integers(1, 17)),
              max_concurrent_steps=int(rng.integers(2, 6)),
              warp_specialized=ws, wg_dimension=str(rng.choice(["m", "n"])),
              grid_minor_dim=str(rng.choice(["m", "n"])),
              grid_tile_width=int(rng.integers(0, 9)),
              cluster_dimension=cluster,
              epi_tile_m=int(rng.choice([0, 64])),
              epi_tile_n=int(rng.choice(epi_n)), num_sms=sms,
              lowering=str(rng.choice(["warpgroup", "lane"])),
              ping_pong=bool(rng.random() < 0.25),
              split_k=int(rng.choice([1, 1, 2, 3])))


def draw_case(rng, index, *, max_dim, dtypes, backends, interpret) -> dict:
  """One case as a JSON-able dict (its own data seed included)."""
  dtype = str(rng.choice(dtypes))
  case = dict(index=index, m=_dim(rng, max_dim), n=_dim(rng, max_dim),
              k=_dim(rng, max_dim), dtype=dtype,
              precision="default", backend=str(rng.choice(backends)),
              config=None, batch=None, b_batch="none",
              grad=bool(rng.random() < P_GRAD) and dtype != "int8",
              data_seed=int(rng.integers(2**32)))
  if dtype == "float32" and rng.random() < 0.5:
    case["precision"] = "highest"
  kinds = [kind for kind, runs_on in CONFIG_BACKENDS.items()
           if runs_on & set(backends)]
  if kinds and rng.random() < P_CONFIG:
    kind = str(rng.choice(kinds))
    fields = (_triton_fields if kind == "TileConfig" else _mosaic_fields)(
        rng, interpret)
    case["config"] = dict(type=kind, **fields)
  if rng.random() < P_BATCH:
    case["batch"] = int(rng.integers(1, 4))
    case["b_batch"] = str(rng.choice(["none", "one", "full"]))
  return case


def expected_refusal(case, interpret) -> str | None:
  """Why the library refuses `case` by design, or None if it must run it."""
  config = case["config"]
  kind = config and config["type"]
  if config and case["backend"] != "auto" and (
      (kind == "TileConfig") != (case["backend"] == "triton")):
    return f"a {kind} with backend={case['backend']!r}"
  on_mosaic = case["backend"] == "mosaic" or kind == "MosaicConfig"
  if on_mosaic and not interpret and not device.is_hopper():
    return "Mosaic GPU compiled off Hopper"
  if on_mosaic and case.get("dtype") == "int8":
    return "int8 on Mosaic GPU (Triton runs it)"
  return None


def build_config(case):
  """The case's config object (its constructor may reject it)."""
  if case["config"] is None:
    return None
  fields = dict(case["config"])
  cls = getattr(pallas_tiled, fields.pop("type"))
  return cls(**fields)


def operands(case):
  """a (batch..., M, K) and b (K, N), (1, K, N) or (batch, K, N), scaled so
  that products are about unit size whatever K (float8 stays in range)."""
  rng = np.random.default_rng(case["data_seed"])
  m, n, k, batch = case["m"], case["n"], case["k"], case["batch"]
  a_shape = (m, k) if batch is None else (batch, m, k)
  b_shape = {"none": (k, n), "one": (1, k, n),
             "full": (batch, k, n)}[case["b_batch"]]
  scale = k ** -0.25
  dtype = jnp.dtype(case["dtype"])
  if dtype == jnp.int8:  # Any int8: exact int32 sums for K < 2^17.
    a = jnp.asarray(rng.integers(-128, 128, a_shape), dtype)
    b = jnp.asarray(rng.integers(-128, 128, b_shape), dtype)
  else:
    a = jnp.asarray(scale * rng.standard_normal(a_shape), dtype)
    b = jnp.asarray(scale * rng.standard_normal(b_shape), dtype)
  return a, b, jnp.asarray(rng.standard_normal(np.broadcast_shapes(
      a_shape[:-1] + (n,), b_shape[:-2] + (m, n))), dtype)


def error_bound(abs_ref, abs_prod, k, dtype, out_dtype, highest):
  """Elementwise bound on |out - ref| for a float32-accumulating product.

  abs_prod = |A| @ |B| bounds every partial sum, so accumulation errors are
  charged to it: float32 eps * sqrt(K) (x2 margin; the random-walk size
  accuracy.tolerance uses, far under the worst case K * eps), TF32 input
  rounding 2 * 2^-10 for float32 at default precision (2^-21 at HIGHEST,
  which Mosaic runs as three-pass TF32), Hopper's float8 accumulator
  2^-13 * sqrt(K). Then one rounding to out_dtype, eps/2 of the
  unrounded value, plus one smallest subnormal for results that underflow.
  Integer results must be exact.
  """
  if jnp.issubdtype(out_dtype, jnp.integer):
    return np.zeros_like(abs_ref)
  f32_eps = float(jnp.finfo(jnp.float32).eps)
  acc = 2 * f32_eps * np.sqrt(k)
  if dtype == jnp.float32:
    acc += 2 * accuracy.TF32_EPS if not highest else THREE_PASS_TF32_EPS
  if dtype == jnp.float8_e4m3fn:
    acc += accuracy.FP8_ACCUMULATOR_EPS * np.sqrt(k)
  finfo = jnp.finfo(out_dtype)
  half_eps = float(finfo.eps) / 2
  return (half_eps * abs_ref + (1 + half_eps) * acc * abs_prod
          + float(finfo.smallest_subnormal))


def check_close(name, out, ref, abs_prod, *, k, dtype, highest):
  """None if `out` is within `error_bound` of `ref` everywhere and has no
  NaN; else why not. int8 products are int32."""
  out_dtype = dtypes.exact_result_dtype(dtype)
  if out.shape != ref.shape or out.dtype != out_dtype:
    return (f"{name}: {out.shape} {out.dtype}, expected {ref.shape}"
            f" {out_dtype}")
  out64 = accuracy.as_float64(out)
  if np.isnan(out64).any():
    return f"{name}: {int(np.isnan(out64).sum())} NaN elements (unwritten?)"
  bound = error_bound(np.abs(ref), abs_prod, k, jnp.dtype(dtype),
                      out_dtype, highest)
  err = np.abs(out64 - ref)
  bad = ~(err <= bound)
  if not bad.any():
    return None
  with np.errstate(divide="ignore", invalid="ignore"):  # Integers: bound 0.
    worst = np.unravel_index(np.argmax(np.where(bad, err / bound, 0)),
                             err.shape)
  return (f"{name}: {int(bad.sum())} of {err.size} elements over the bound;"
          f" at {tuple(map(int, worst))} |err| {err[worst]:.3e} > bound"
          f" {bound[worst]:.3e} (out {out64[worst]:.6g}, ref"
          f" {ref[worst]:.6g})")


def refusal_kind(exc) -> str | None:
  """"early" for a ValueError/TypeError from pallas_tiled's pre-launch
  checks (no JAX, autodiff or kernel frame inside the outermost pallas_tiled
  frame), "late" for one pallas_tiled raised while tracing its kernel (no
  kernel has run, but its checks missed it), else None: a crash, e.g. an
  error from inside JAX's lowering. Needs traceback filtering off.

  The poisoning harness (`accuracy.call_with_poisoned_output`) is no
  pallas_tiled frame here: it calls the library from outside, through
  jax.eval_shape and jit, like any user.
  """
  if not isinstance(exc, (ValueError, TypeError)):
    return None
  ours = os.path.dirname(pallas_tiled.__file__) + os.sep
  theirs = os.path.dirname(jax.__file__) + os.sep
  files = [f.filename for f in traceback.extract_tb(exc.__traceback__)]
  library = [f.startswith(ours) and f != accuracy.__file__ for f in files]
  inside = files[library.index(True):] if any(library) else []
  if not inside or not inside[-1].startswith(ours):
    return None
  late = any(f.startswith(theirs) or f.endswith(("kernel.py", "autodiff.py"))
             for f in inside)
  return "late" if late else "early"


def _references(a, b, ct):
  """Float64 C, |A||B|, dA, |dC||B|ᵀ, dB, |A|ᵀ|dC| (dB summed to b's
  shape)."""
  a64, b64, ct64 = map(accuracy.as_float64, (a, b, ct))
  swap = lambda x: np.swapaxes(x, -1, -2)
  db = np.matmul(swap(a64), ct64)
  abs_db = np.matmul(swap(np.abs(a64)), np.abs(ct64))
  if b64.ndim < db.ndim or b64.shape[0] != db.shape[0]:
    db, abs_db = db.sum(0).reshape(b64.shape), abs_db.sum(0).reshape(
        b64.shape)
  return (np.matmul(a64, b64), np.matmul(np.abs(a64), np.abs(b64)),
          np.matmul(ct64, swap(b64)), np.matmul(np.abs(ct64),
                                                swap(np.abs(b64))),
          db, abs_db)


def _run_product(case, interpret):
  """Runs the case; returns (outputs by name, operands) or raises."""
  config = build_config(case)
  a, b, ct = operands(case)
  precision = lax.Precision.HIGHEST if case["precision"] == "highest" else None
  fn = functools.partial(pallas_tiled.matmul, config=config,
                         backend=case["backend"], precision=precision,
                         preferred_element_type=dtypes.exact_result_dtype(
                             a.dtype),
                         interpret=interpret)
  outs = {"out": accuracy.call_with_poisoned_output(fn, a, b)}
  if case["grad"]:
    loss = lambda a, b: jnp.sum(
        (fn(a, b) * ct).astype(jnp.float32))
    outs["dA"], outs["dB"] = jax.grad(loss, argnums=(0, 1))(a, b)
  return outs, (a, b, ct)


def run_case(case, interpret) -> tuple[str, str]:
  """(status, reason): passed, rejected, wrong or crashed."""
  refusal = expected_refusal(case, interpret)
  try:
    outs, (a, b, ct) = _run_product(case, interpret)
  except Exception as e:  # pylint: disable=broad-except
    message = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    kind = refusal_kind(e)
    if kind is None:
      return "crashed", f"raised outside pallas_tiled's checks: {message}"
    if refusal is None and case["config"] is None:
      return "crashed", f"refused a plain call: {message}"
    return "rejected", ("after its checks, while tracing: " if kind == "late"
                        else "") + message
  if refusal is not None:
    return "wrong", f"ran a call refused by design ({refusal})"
  ref, abs_prod, da, abs_da, db, abs_db = _references(a, b, ct)
  m, n, k = case["m"], case["n"], case["k"]
  batch_m = m * (case["batch"] or 1) if case["b_batch"] != "full" else m
  checks = {"out": (ref, abs_prod, k), "dA": (da, abs_da, n),
            "dB": (db, abs_db, batch_m)}
  reasons = [check_close(name, out, *checks[name][:2], k=checks[name][2],
                         dtype=a.dtype,
                         highest=case["precision"] == "highest")
             for name, out in outs.items()]
  reasons = [r for r in reasons if r]
  return ("wrong", "; ".join(reasons)) if reasons else ("passed", "")


def wrong_by(dtype) -> float:
  """How far off (relative to |A||B|) an element the checker must catch
  is: 1%, or 2 eps for float8 (whose own rounding is 6% of |C|); integer
  results: any amount (0 here; the self-test moves one by 1)."""
  if jnp.issubdtype(dtype, jnp.integer):
    return 0.0
  eps = float(jnp.finfo(dtype).eps)
  return 0.01 if eps < 0.01 else 2 * eps


def self_test(seed=0):
  """Raises AssertionError unless the checker passes correctly rounded
  products and catches one element off by `wrong_by` of |A||B| (integers:
  by 1) or NaN."""
  rng = np.random.default_rng(seed)
  for dtype in map(jnp.dtype, DTYPES):
    out_dtype = dtypes.exact_result_dtype(dtype)
    integer = jnp.issubdtype(dtype, jnp.integer)
    for m, n, k in ((1, 1, 1), (5, 9, 64), (17, 3, 300)):
      scale = 50 if integer else 1
      a = jnp.asarray(scale * rng.standard_normal((m, k)), dtype)
      b = jnp.asarray(scale * rng.standard_normal((k, n)), dtype)
      a64, b64 = accuracy.as_float64(a), accuracy.as_float64(b)
      ref, abs_prod = a64 @ b64, np.abs(a64) @ np.abs(b64)
      out = jnp.asarray(ref.astype(np.float32), out_dtype)
      check = functools.partial(check_close, "out", ref=ref,
                                abs_prod=abs_prod, k=k, dtype=dtype,
                                highest=True)
      assert check(out=out) is None, (dtype, check(out=out))
      i, j = int(rng.integers(m)), int(rng.integers(n))
      delta = 1.0 if integer else wrong_by(dtype) * abs_prod[i, j]
      wrong = np.array(out.astype(jnp.float32))
      wrong[i, j] = ref[i, j] + delta * rng.choice([-1, 1])
      assert check(out=jnp.asarray(wrong, out_dtype)) is not None, (dtype,
                                                                    m, k)
      if not integer:
        poisoned = out.at[i, j].set(jnp.nan)
        assert "NaN" in check(out=poisoned), dtype
