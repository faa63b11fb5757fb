"""Times the tiled kernel's operand layouts, as the backward pass uses them.

For C = AB the backward runs dA = dC·Bᵀ (b read as stored: the "nt" layout)
and dB = Aᵀ·dC (a read as stored: "tn"); the forward is "nn". For each shape
and config this times the three layouts beside jnp.matmul doing the same
product (XLA folds the transposes into cuBLAS), checks each result, and
writes one JSON row per case.

  python benchmarks/explore_layouts.py --shapes=8192x8192x8192 \
      --configs=default,128x256x64/w8/s3/g16 --json_out=layouts.json
"""

from __future__ import annotations

import json

from absl import app
from absl import flags
from absl import logging
import jax
import jax.numpy as jnp

import suites
import pallas_tiled
from pallas_tiled import accuracy
from pallas_tiled import batching
from pallas_tiled import tiled
from pallas_tiled import timing

LAYOUTS = {"nn": (False, False), "nt": (False, True), "tn": (True, False)}

_SHAPES = flags.DEFINE_list("shapes", ["4096x4096x4096"], "MxNxK shapes.")
_DTYPE = flags.DEFINE_string("dtype", "bfloat16", "Input dtype.")
_CONFIGS = flags.DEFINE_list(
    "configs", ["default"], "TileConfig labels, or 'default' (the table).")
_ITERS = flags.DEFINE_integer("iters", 20, "Timed runs per case (median).")
_JSON_OUT = flags.DEFINE_string("json_out", None, "Write rows as JSON here.")


def _case(m, n, k, dtype, layout, config):
  """(kernel fn, xla fn, a, b as stored) for one layout of (M,K) @ (K,N)."""
  transpose_a, transpose_b = LAYOUTS[layout]
  key_a, key_b = jax.random.split(jax.random.key(0))
  a = jax.random.normal(key_a, (k, m) if transpose_a else (m, k)).astype(dtype)
  b = jax.random.normal(key_b, (n, k) if transpose_b else (k, n)).astype(dtype)
  problem = batching.BatchedProblem.from_shapes(
      a.shape, b.shape, transpose_a=transpose_a, transpose_b=transpose_b)
  kernel = lambda a, b: tiled.batched_product(
      a[None], b[None], problem=problem, config=config, precision=None,
      out_dtype=dtype, interpret=jax.default_backend() == "cpu")[0]
  op = lambda x, t: x.T if t else x
  xla = lambda a, b: jnp.matmul(op(a, transpose_a), op(b, transpose_b))
  return kernel, xla, a, b


def main(argv):
  del argv
  dtype = jnp.dtype(_DTYPE.value)
  rows = []
  for text in _SHAPES.value:
    m, n, k = suites.parse_shape(text)
    for label in _CONFIGS.value:
      config = (tiled.select_config(m, n, k, dtype, None, out_dtype=dtype)
                if label == "default"
                else pallas_tiled.TileConfig.from_label(label))
      for layout in LAYOUTS:
        kernel, xla, a, b = _case(m, n, k, dtype, layout, config)
        row = dict(shape=text, dtype=dtype.name, layout=layout,
                   config=config.label)
        try:
          ours = timing.measure(kernel, a, b, iterations=_ITERS.value)
          base = timing.measure(xla, a, b, iterations=_ITERS.value)
          row.update(time_us=ours.median_us, xla_us=base.median_us,
                     ratio=base.median_us / ours.median_us,
                     tflops=2 * m * n * k / ours.median_us / 1e6,
                     diff_vs_xla=accuracy.relative_error(ours.result,
                                                         base.result))
        except Exception as e:  # pylint: disable=broad-except
          row.update(error=f"{type(e).__name__}: {str(e)[:200]}")
        logging.info("%s", row)
        rows.append(row)
  print(f"{'shape':<16} {'config':<28} {'layout':<6} {'us':>9} {'xla_us':>9}"
        f" {'vs_xla':>7} {'TFLOP/s':>8}")
  for r in rows:
    if "error" in r:
      print(f"{r['shape']:<16} {r['config']:<28} {r['layout']:<6} "
            f"{r['error']}")
      continue
    print(f"{r['shape']:<16} {r['config']:<28} {r['layout']:<6}"
          f" {r['time_us']:9.1f} {r['xla_us']:9.1f} {r['ratio']:7.2f}"
          f" {r['tflops']:8.1f}")
  if _JSON_OUT.value:
    with open(_JSON_OUT.value, "w") as f:
      json.dump({"device": jax.devices()[0].device_kind,
                 "jax_version": jax.__version__, "rows": rows}, f, indent=1)


if __name__ == "__main__":
  app.run(main)
