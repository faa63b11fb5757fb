"""Probe: float32 (TF32) products of 32 rows streaming a large b.

32x17920x5120 (wild-check) ran 0.75x on the H200: Triton 32x128x64 over 4
stages (164 KB of shared memory, one program an SM) makes 140 programs for
132 SMs, two rounds for 1.06 rounds of work. Do tiles that fill the SMs'
rounds evenly (more programs resident, narrower strips, K ranges) or
Mosaic's 64-row tile (M padded) stream b faster? Shapes in neither split
but 32x28672x4096 (wild-tune); the check shape only reported. CUPTI
medians of 3 interleaved rounds of 20 runs; errors against float64."""
import json, statistics, sys
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import cost_model
from pallas_tiled.mosaic.config import MosaicConfig, fit_mosaic_config
from pallas_tiled.triton.config import TileConfig

OUT = sys.argv[1]
kind, sms = jax.devices()[0].device_kind, jax.devices()[0].core_count
SHAPES = [(32, 17000, 5000), (32, 18000, 4096), (32, 9000, 6000),
          (32, 28672, 4096), (24, 17920, 5120), (32, 17920, 5120)]
T = lambda bm, bn, bk, s, sk=1: TileConfig(bm, bn, bk, num_warps=4,
                                           num_stages=s, split_k=sk)
CONFIGS = {
    "t32x128x64/s4": T(32, 128, 64, 4), "t32x128x64/s3": T(32, 128, 64, 3),
    "t32x128x64/s2": T(32, 128, 64, 2), "t32x128x32/s4": T(32, 128, 32, 4),
    "t32x64x64/s3": T(32, 64, 64, 3), "t32x64x64/s4": T(32, 64, 64, 4),
    "t32x64x128/s2": T(32, 64, 128, 2), "t32x256x32/s3": T(32, 256, 32, 3),
    "t32x256x64/s2": T(32, 256, 64, 2), "t32x128x64/s2/sk2": T(32, 128, 64, 2, 2),
    "t32x64x64/s3/sk2": T(32, 64, 64, 3, 2),
    "m64x64x64": MosaicConfig(tile_m=64, tile_n=64, tile_k=64,
                              max_concurrent_steps=4, wg_dimension="m",
                              num_sms=sms, epi_tile_m=64, epi_tile_n=32),
    "m64x128x32": MosaicConfig(tile_m=64, tile_n=128, tile_k=32,
                               max_concurrent_steps=4, wg_dimension="m",
                               num_sms=sms, epi_tile_m=64, epi_tile_n=32),
}


def time_us(f, *args):
  _, runs = profiler.measure(f, iterations=20, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3


rows = []
dtype = jnp.float32
for m, n, k in SHAPES:
  ka, kb = jax.random.split(jax.random.key(m + n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32)
  b = jax.random.normal(kb, (k, n), jnp.float32)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  pick = cost_model.choose_on(kind, sms, m, n, k, dtype)
  configs = {"pick": pick, **CONFIGS}
  row = dict(shape=f"{m}x{n}x{k}", pick=pick.label if pick else None)
  fs = {"xla": jax.jit(jnp.matmul)}
  for name, c in configs.items():
    if isinstance(c, MosaicConfig):
      c = fit_mosaic_config(c, dtype, dtype)
    fs[name] = jax.jit(lambda a, b, c=c: pallas_tiled.matmul(a, b, c))
  good = {}
  for name, f in fs.items():
    try:
      out = np.asarray(f(a, b), np.float64)
      row[f"{name}_err"] = float(np.linalg.norm(out - ref)
                                 / np.linalg.norm(ref))
      good[name] = f
    except Exception as e:
      row[f"{name}_error"] = (type(e).__name__ + ": " + str(e))[:200]
  t = {v: [] for v in good}
  for _ in range(3):
    for v, f in good.items():
      t[v].append(time_us(f, a, b))
  for v, ts in t.items():
    row[f"{v}_us"] = round(statistics.median(ts), 2)
  print(json.dumps(row), flush=True)
  rows.append(row)
  json.dump(rows, open(f"{OUT}/m32.json", "w"), indent=1)
