"""The products `sanitize.sh` runs under compute-sanitizer: each once,
compiled, checked against a float64 reference (no CUPTI: the sanitizer
holds the profiling interface).

  compute-sanitizer --tool memcheck python3 benchmarks/sanitize_cases.py
  compute-sanitizer --tool racecheck python3 benchmarks/sanitize_cases.py \
      --set=small
"""

from __future__ import annotations

import itertools

from absl import app
from absl import flags
import jax
import jax.numpy as jnp
import numpy as np

import pallas_tiled
from pallas_tiled import accuracy

_SET = flags.DEFINE_enum(
    "set", "representative", ["representative", "small"],
    "representative: both backends, aligned, ragged, skinny and batched "
    "shapes, every dtype; small: three products (racecheck and synccheck "
    "are much slower).")
# (batch, M, N, K): aligned, ragged (none a multiple of 8), decode, batched.
SHAPES = ((1, 256, 512, 384), (1, 127, 129, 65), (1, 1, 300, 257),
          (3, 64, 96, 80))
DTYPES = ("bfloat16", "float16", "float32", "float8_e4m3fn", "int8")
SMALL = (("triton", "bfloat16", (1, 256, 256, 256)),
         ("mosaic", "bfloat16", (1, 256, 256, 256)),
         ("mosaic", "float32", (1, 200, 136, 72)))


def _cases():
  if _SET.value == "small":
    return SMALL
  return [(backend, dtype, shape) for backend, dtype, shape
          in itertools.product(("triton", "mosaic"), DTYPES, SHAPES)
          if not (backend == "mosaic" and dtype == "int8")]


def _operands(dtype, shape, rng):
  batch, m, n, k = shape
  lead = (batch,) if batch > 1 else ()
  if dtype == "int8":
    draw = lambda s: rng.integers(-128, 128, s)
  else:
    draw = rng.standard_normal
  return (jnp.asarray(draw((*lead, m, k))).astype(dtype),
          jnp.asarray(draw((*lead, k, n))).astype(dtype))


def main(argv):
  del argv
  rng = np.random.default_rng(0)
  failures = 0
  for backend, dtype, shape in _cases():
    a, b = _operands(dtype, shape, rng)
    kwargs = dict(preferred_element_type=jnp.int32) if dtype == "int8" else {}
    try:
      out = jax.block_until_ready(
          pallas_tiled.matmul(a, b, backend=backend, **kwargs))
    except ValueError as e:  # A backend that refuses the call says why.
      print(f"{backend} {dtype} {shape}: refused: {str(e)[:120]}")
      continue
    ref = np.matmul(accuracy.as_float64(a), accuracy.as_float64(b))
    err = accuracy.relative_error(out, ref)
    tol = accuracy.tolerance(a, b, ref, out.dtype)
    status = "ok" if err <= tol else "WRONG"
    failures += status != "ok"
    print(f"{backend} {dtype} {shape}: {status} (rel_err {err:.2e},"
          f" tolerance {tol:.2e})", flush=True)
  if failures:
    raise SystemExit(f"{failures} wrong results")


if __name__ == "__main__":
  app.run(main)
