"""Probe: small products of a short unaligned K (2-4 K-phases) in place.

On the H200's wild-check the worst row of every dtype is 184x2486x111
(bfloat16 0.81x: Triton 128x64 in place, 3.49 us against XLA's Triton
fusion's 2.83; float32 0.63x and float8 0.69x: Mosaic behind relayout
copies). Does a Triton tile that reads the unaligned rows in place, b as
stored, win in this regime, and which? Shapes in neither wild split (the
check shape only reported); CUPTI medians of 3 interleaved rounds of 20
runs; errors against float64; XLA's own Triton tile printed."""
import json, re, statistics, sys
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import cost_model
from pallas_tiled.triton.config import TileConfig

OUT = sys.argv[1]
kind, sms = jax.devices()[0].device_kind, jax.devices()[0].core_count
SHAPES = [(200, 3001, 100), (150, 2501, 120), (300, 4001, 90),
          (500, 2003, 150), (250, 1999, 200), (1000, 3001, 110),
          (120, 5001, 75), (184, 2486, 111)]
TILES = {  # (block_m, block_n, block_k in 128-byte phases, warps, stages)
    "128x64": (128, 64, 1, 4, 4), "64x64": (64, 64, 1, 4, 4),
    "64x128": (64, 128, 1, 4, 3), "32x64": (32, 64, 1, 4, 4),
    "32x128": (32, 128, 1, 4, 4), "64x32": (64, 32, 1, 4, 4),
    "64x64k2": (64, 64, 2, 4, 2), "64x128k2": (64, 128, 2, 4, 2),
    "32x64k2": (32, 64, 2, 4, 2),
}


def time_us(f, *args):
  _, runs = profiler.measure(f, iterations=20, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3


def xla_tile(a, b):
  text = jax.jit(jnp.matmul).lower(a, b).compile().as_text()
  found = re.findall(r'"triton_gemm_config":\{[^}]*\}', text)
  kernels = re.findall(r'custom_call_target="([^"]+)"', text)
  return (found[0] if found else "") + " " + ",".join(sorted(set(kernels)))


rows = []
for dtype in (jnp.bfloat16, jnp.float32, jnp.float8_e4m3fn):
  for m, n, k in SHAPES:
    ka, kb = jax.random.split(jax.random.key(m + n + k))
    a = jax.random.normal(ka, (m, k), jnp.float32).astype(dtype)
    b = jax.random.normal(kb, (k, n), jnp.float32).astype(dtype)
    ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
    pick = cost_model.choose_on(kind, sms, m, n, k, dtype)
    phase = 128 // jnp.dtype(dtype).itemsize
    configs = {"pick": pick}
    for name, (bm, bn, kp, w, s) in TILES.items():
      configs[name] = TileConfig(bm, bn, kp * phase, num_warps=w,
                                 num_stages=s, group_m=16)
    row = dict(shape=f"{m}x{n}x{k}", dtype=jnp.dtype(dtype).name,
               pick=pick.label if pick else None)
    try:
      row["xla_tile"] = xla_tile(a, b)
    except Exception as e:
      row["xla_tile"] = repr(e)[:100]
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
    json.dump(rows, open(f"{OUT}/smallk.json", "w"), indent=1)
