"""Probe (to be removed): register stores for outputs with unaligned rows.

Correctness on odd shapes and configs, then CUPTI times of the same config
with the register store and with the padded TMA store + cut, and jnp.matmul,
interleaved over rounds.
"""
import dataclasses
import statistics
import sys
import traceback

import jax
import jax.numpy as jnp
import numpy as np

import pallas_tiled
from pallas_tiled import cost_model
from jax.experimental.mosaic.gpu import profiler
from pallas_tiled.mosaic import plan as plan_lib
from tests import helpers

rng = np.random.default_rng(0)
F8 = jnp.float8_e4m3fn


def check(m, n, k, dtype, config, out_dtype=None):
  a, b = helpers.random_operands(rng, m, n, k, dtype)
  kw = dict(preferred_element_type=out_dtype) if out_dtype else {}
  try:
    out = helpers.call_with_poisoned_output(pallas_tiled.matmul, a, b,
                                            config=config, **kw)
    helpers.assert_matmul_close(out, a, b, out_dtype=out_dtype)
    layout = plan_lib.host_layout(m, n, k, config, dtype, out_dtype or dtype)
    print(f"OK   {m}x{n}x{k} {jnp.dtype(dtype).name} {config.label} copied={layout.copied_bytes}", flush=True)
  except Exception as e:  # noqa
    print(f"FAIL {m}x{n}x{k} {jnp.dtype(dtype).name} {config.label}: {type(e).__name__}: {str(e)[:800]}", flush=True)


def correctness():
  base = lambda m, n, k, d, **kw: dataclasses.replace(
      pallas_tiled.default_mosaic_config(m, n, k, d), **kw)
  cases = [
      (768, 50257, 128, jnp.bfloat16, dict()),
      (1000, 1001, 700, jnp.bfloat16, dict()),
      (1000, 1001, 700, jnp.float16, dict()),
      (1000, 1001, 700, jnp.float32, dict()),
      (1000, 1002, 700, jnp.float32, dict()),
      (1000, 1001, 700, jnp.bfloat16, dict(tile_m=128, tile_n=128, max_concurrent_steps=4, ping_pong=True)),
      (1000, 1001, 700, jnp.bfloat16, dict(warp_specialized=False)),
      (1000, 1001, 700, jnp.bfloat16, dict(cluster_dimension="m")),
      (1000, 1001, 700, jnp.bfloat16, dict(cluster_dimension="n")),
      (257, 3841, 1280, jnp.bfloat16, dict()),
      (130, 100, 200, jnp.bfloat16, dict(tile_m=64, tile_n=64, epi_tile_n=32)),
      (4097, 1003, 129, jnp.bfloat16, dict()),
      (129, 1006, 127, jnp.bfloat16, dict()),
  ]
  for m, n, k, d, kw in cases:
    cfg = base(m, n, k, d, **kw)
    from pallas_tiled.mosaic import config as mc
    cfg = mc.fit_mosaic_config(cfg, d, d)
    check(m, n, k, d, cfg)
  check(1000, 1001, 700, F8, pallas_tiled.default_mosaic_config(1000, 1001, 700, F8, jnp.bfloat16), out_dtype=jnp.bfloat16)


def compiled(f, a, b):
  return jax.jit(f).lower(a, b).compile()


def timings(shapes, dtype, rounds=3):
  print(f"\n{'shape':>18} {'config':>40} {'reg us':>8} {'old us':>8} {'xla us':>8} {'reg/xla':>8} {'old/xla':>8}  kernels(reg)")
  for m, n, k in shapes:
    try:
      a, b = helpers.random_operands(rng, m, n, k, dtype)
      pick = cost_model.choose(m, n, k, dtype)
      cfg = pick if isinstance(pick, pallas_tiled.MosaicConfig) else None
      if cfg is None:
        cfg = pallas_tiled.default_mosaic_config(m, n, k, dtype)
      f = lambda a, b: pallas_tiled.matmul(a, b, config=cfg)
      new = compiled(f, a, b)
      saved = plan_lib._stores_from_registers
      plan_lib._stores_from_registers = lambda *x, **y: False
      jax.clear_caches()
      old = compiled(f, a, b)
      plan_lib._stores_from_registers = saved
      jax.clear_caches()
      xla = compiled(jnp.matmul, a, b)
      ref = np.asarray(xla(a, b), np.float32)
      times = {"reg": [], "old": [], "xla": []}
      kern = None
      for _ in range(rounds):
        for name, fn in (("reg", new), ("old", old), ("xla", xla)):
          result, runs = profiler.measure(fn, iterations=20, aggregate=False)(a, b)
          tot = [sum(ms for _, ms in run) for run in runs]
          times[name].append(statistics.median(tot) * 1e3)
          if name != "xla":
            err = np.linalg.norm(np.asarray(result, np.float32) - ref) / np.linalg.norm(ref)
            assert err < 2e-2, (name, err)
          if name == "reg":
            kern = [(nm, statistics.median(run[i][1] for run in runs) * 1e3) for i, (nm, _) in enumerate(runs[0])]
      med = {kk: statistics.median(v) for kk, v in times.items()}
      print(f"{m}x{n}x{k:>6} {cfg.label:>40} {med['reg']:8.2f} {med['old']:8.2f} {med['xla']:8.2f} {med['xla']/med['reg']:8.3f} {med['xla']/med['old']:8.3f}  {[(x[:18], round(y,1)) for x, y in kern]}", flush=True)
    except Exception as e:  # noqa
      print(f"{m}x{n}x{k} FAIL {type(e).__name__}: {str(e)[:600]}", flush=True)


if __name__ == "__main__":
  print(jax.devices()[0].device_kind, jax.__version__)
  if "--check" in sys.argv:
    correctness()
  timings([(768, 50257, 128), (128, 50257, 768), (512, 30522, 768),
           (1000, 50257, 1280), (1701, 1962, 525), (2000, 1001, 2000),
           (8192, 50257, 1024), (4096, 3999, 4096)], jnp.bfloat16)
  timings([(768, 50257, 128), (512, 30522, 768), (2000, 1001, 2000)], jnp.float32)
