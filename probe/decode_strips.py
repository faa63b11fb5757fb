"""Probe: 16-bit decode products (M <= 16) streaming a large b on an H200.

The H200's wild-check rows of large-N decode ran 0.93-0.975x jnp.matmul with
the 256- and 512-wide strips the H100 calibrated (1x152064x8192 16x256x64/s5
0.937x, 8x151936x1536 16x512x64/w8/s3 0.929x), while the H200's old wild-tune
timings (before those strips existed) had 16x128x128/w4/s4 at 0.998-1.007x
on its three largest decode shapes. Which strips stream b fastest here, and
what does XLA's own Triton GEMM run? Shapes in neither wild split; b larger
than L2 on every one (no cold copies needed). CUPTI medians of 3
interleaved rounds; errors against float64."""
import json, re, statistics, sys
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import cost_model
from pallas_tiled.triton.config import TileConfig

OUT = sys.argv[1]
kind, sms = jax.devices()[0].device_kind, jax.devices()[0].core_count
SHAPES = [(1, 100000, 4096), (8, 120000, 2048), (16, 65536, 5120),
          (4, 200000, 3072), (1, 40000, 8192), (16, 24000, 4096)]
T = lambda bn, bk, w, s: TileConfig(16, bn, bk, num_warps=w, num_stages=s)
CONFIGS = {f"16x{bn}x{bk}/w{w}/s{s}": T(bn, bk, w, s) for bn, bk, w, s in (
    (128, 128, 4, 4), (128, 128, 4, 5), (128, 64, 4, 6), (128, 256, 4, 3),
    (64, 256, 4, 4), (256, 64, 4, 5), (256, 128, 4, 3), (512, 64, 8, 3),
    (128, 128, 8, 4), (64, 128, 4, 6))}


def time_us(f, *args):
  _, runs = profiler.measure(f, iterations=10, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3


rows = []
for m, n, k in SHAPES:
  dtype = jnp.bfloat16
  ka, kb = jax.random.split(jax.random.key(m + n + k))
  a = jax.random.normal(ka, (m, k), dtype)
  b = jax.random.normal(kb, (k, n), dtype)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  pick = cost_model.choose_on(kind, sms, m, n, k, dtype)
  row = dict(shape=f"{m}x{n}x{k}", pick=pick.label if pick else None)
  xla = jax.jit(jnp.matmul)
  hlo = xla.lower(a, b).compile().as_text()
  row["xla_config"] = re.findall(r'"triton_gemm_config":\{[^}]*\}', hlo)[:1]
  fs = {"xla": xla, "pick": jax.jit(lambda a, b, c=pick: pallas_tiled.matmul(a, b, c))}
  for name, c in CONFIGS.items():
    fs[name] = jax.jit(lambda a, b, c=c: pallas_tiled.matmul(a, b, c))
  good = {}
  for name, f in fs.items():
    try:
      out = np.asarray(f(a, b), np.float64)
      row[f"{name}_err"] = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
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
  json.dump(rows, open(f"{OUT}/decode_strips.json", "w"), indent=1)
