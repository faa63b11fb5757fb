"""Probe (not kept): TF32 rounding in the kernel on and off, side by side.

For float32 shapes at default precision, times the library's pick with
`tf32_wgmma._rounded` as shipped (cvt.rna) and as a plain bitcast (wgmma
truncates), in interleaved rounds, with jnp.matmul beside them; prints
kernel and total medians and relative errors against float64.
"""
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax._src.lib.mlir import ir
from jax._src.lib.mlir.dialects import arith

import pallas_tiled
from pallas_tiled import accuracy
from pallas_tiled import timing
from pallas_tiled.mosaic import tf32_wgmma

SHIPPED = tf32_wgmma._rounded


def truncated(value):
  return arith.bitcast(ir.IntegerType.get_signless(32), value)


def main(shapes):
  rng = np.random.default_rng(0)
  print("shape            round_kern trunc_kern  round_tot trunc_tot  xla"
        "   err_round err_trunc err_xla")
  for text in shapes:
    m, n, k = map(int, text.split("x"))
    a = rng.standard_normal((m, k), np.float32)
    b = rng.standard_normal((k, n), np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    da, db = jnp.asarray(a), jnp.asarray(b)
    res = {}
    cases = [("round", SHIPPED), ("trunc", truncated), ("xla", None)]
    for rnd in range(4):  # Each case first in some rounds.
      for name, fn in cases[rnd % 3:] + cases[:rnd % 3]:
        jax.clear_caches()
        tf32_wgmma._rounded = fn or SHIPPED
        f = jax.jit(jnp.matmul if fn is None else pallas_tiled.matmul)
        t = timing.measure(f, da, db, iterations=30, warmup=3)
        kern = sum(us for nm, us in t.kernels if "mosaic" in nm)
        err = accuracy.relative_error(np.asarray(t.result, np.float64), ref)
        res.setdefault(name, []).append((kern, t.median_us, err))
    tf32_wgmma._rounded = SHIPPED
    med = lambda name, i: float(np.median([r[i] for r in res[name]]))
    print(f"{text:16s} {med('round', 0):9.1f} {med('trunc', 0):9.1f}"
          f"  {med('round', 1):9.1f} {med('trunc', 1):9.1f} {med('xla', 1):6.1f}"
          f"  {med('round', 2):.2e} {med('trunc', 2):.2e} {med('xla', 2):.2e}",
          flush=True)


if __name__ == "__main__":
  main(sys.argv[1].split(","))
