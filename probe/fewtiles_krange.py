"""Probe: 16-bit outputs of few CTA tiles over a K of 40-95 K-tiles.

bfloat16 224x1280x5120 (wild-check, 0.82x on the H200) takes Triton
128x128 in 4 K ranges (10.9 us + 1.8 reduce; cuBLAS 128x80 split, 8.1 +
2.3): Mosaic's K ranges are offered to 16-bit only from 96 K-tiles. Do
they win where the output has far fewer tiles than SMs? Shapes in neither
split (the check shape only reported); Mosaic 64x128, 128x128 and 64x256
over 2-8 K ranges and Triton's split-K tiles; CUPTI medians of 3
interleaved rounds of 20 runs; errors against float64."""
import dataclasses, json, statistics, sys
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import cost_model
from pallas_tiled.mosaic.config import MosaicConfig, fit_mosaic_config
from pallas_tiled.triton.config import TileConfig

OUT = sys.argv[1]
kind, sms = jax.devices()[0].device_kind, jax.devices()[0].core_count
SHAPES = [(192, 1536, 4096), (256, 1024, 5120), (300, 1280, 3072),
          (160, 2048, 4608), (448, 768, 5632), (224, 1280, 5120)]


def time_us(f, *args):
  _, runs = profiler.measure(f, iterations=20, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3


rows = []
dtype = jnp.bfloat16
for m, n, k in SHAPES:
  ka, kb = jax.random.split(jax.random.key(m + n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32).astype(dtype)
  b = jax.random.normal(kb, (k, n), jnp.float32).astype(dtype)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  pick = cost_model.choose_on(kind, sms, m, n, k, dtype)
  configs = {"pick": pick}
  base = dict(tile_k=64, max_concurrent_steps=4, num_sms=sms,
              wg_dimension="m")
  for tm, tn in ((64, 128), (128, 128), (64, 256)):
    for split in (2, 3, 4, 6, 8):
      c = MosaicConfig(tile_m=tm, tile_n=tn, split_k=split, **base)
      configs[f"mosaic{tm}x{tn}/sk{split}"] = fit_mosaic_config(c, dtype,
                                                                 dtype)
  for bm, bn, bk, split in ((128, 128, 64, 2), (128, 128, 64, 3),
                            (128, 128, 64, 6), (64, 128, 64, 4),
                            (128, 64, 64, 4), (64, 64, 128, 4)):
    configs[f"triton{bm}x{bn}x{bk}/sk{split}"] = TileConfig(
        bm, bn, bk, num_warps=4, num_stages=4, split_k=split)
  row = dict(shape=f"{m}x{n}x{k}", dtype="bfloat16", pick=pick.label)
  fs = {"xla": jax.jit(jnp.matmul)}
  for name, c in configs.items():
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
  json.dump(rows, open(f"{OUT}/fewtiles.json", "w"), indent=1)
