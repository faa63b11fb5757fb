"""Probe: (1) float32 products of few CTA tiles (199x3072x768 and the like):
every cost-model candidate plus Mosaic K ranges the model does not offer
below K = 3072; (2) bfloat16 M = 128 products streaming b: the wide tile
over 2/3/4 stages, 64x128 over K ranges, Triton's 128x256 tile. CUPTI
medians beside jnp.matmul, each config checked against float64. Shapes in
neither wild split."""
import dataclasses, json, sys, statistics, time
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import accuracy, cost_model
from pallas_tiled.mosaic.config import fit_mosaic_config


def time_us(f, *args):
  f = jax.jit(f)
  for _ in range(3):
    jax.block_until_ready(f(*args))
  _, runs = profiler.measure(f, iterations=20, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3


start, rows = time.time(), []
kind, sms = jax.devices()[0].device_kind, jax.devices()[0].core_count
M = pallas_tiled.MosaicConfig
T = pallas_tiled.TileConfig
def f32_extra(m, n, k):
  sq = M(tile_m=64, tile_n=128, tile_k=32, lowering="lane", wg_dimension="m")
  sm = M(tile_m=64, tile_n=64, tile_k=64, lowering="lane", wg_dimension="m")
  return [dataclasses.replace(c, split_k=s) for c in (sq, sm) for s in (2, 3)]
def bf16_extra(m, n, k):
  wide = M(tile_m=64, tile_n=256, tile_k=64, wg_dimension="m")
  sq = M(tile_m=64, tile_n=128, tile_k=64, wg_dimension="m")
  return ([dataclasses.replace(wide, max_concurrent_steps=s) for s in (2, 3, 4)]
          + [dataclasses.replace(sq, split_k=s) for s in (1, 2)]
          + [T(128, 256, 64, num_warps=8, num_stages=3), T(128, 256, 64, num_warps=8, num_stages=4)])
cases = [((199, 3072, 768), jnp.float32, f32_extra, True), ((203, 2048, 1024), jnp.float32, f32_extra, True),
         ((131, 4096, 896), jnp.float32, f32_extra, True),
         ((128, 32768, 4096), jnp.bfloat16, bf16_extra, False), ((128, 6144, 20480), jnp.bfloat16, bf16_extra, False),
         ((128, 20480, 8192), jnp.bfloat16, bf16_extra, False)]
for (m, n, k), dt, extra, all_cands in cases:
  a = jax.random.normal(jax.random.key(1), (m, k), jnp.float32).astype(dt)
  b = jax.random.normal(jax.random.key(2), (k, n), jnp.float32).astype(dt)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  pick = cost_model.choose_on(kind, sms, m, n, k, dt)
  coefs = cost_model.coefficients(kind, dt)
  cands = [pick] + (cost_model.model_candidates(m, n, k, dt) if all_cands else []) + extra(m, n, k)
  cands = list(dict.fromkeys(cands))
  xla = time_us(jnp.matmul, a, b)
  for c in cands:
    if time.time() - start > 420:
      break
    row = dict(shape=f"{m}x{n}x{k}", dtype=jnp.dtype(dt).name, config=c.label, pick=c == pick,
               pred=cost_model.predict_us(c, m, n, k, dt, coefs, sms), jnp=round(xla, 2))
    try:
      f = lambda a, b: pallas_tiled.matmul(a, b, c)
      out = np.asarray(jax.jit(f)(a, b).astype(jnp.float32), np.float64)
      row["err"] = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
      row["us"] = round(time_us(f, a, b), 2)
      row["x"] = round(xla / row["us"], 3)
    except Exception as e:
      row["error"] = str(e).splitlines()[0][:160]
    rows.append(row)
    print(json.dumps(row), flush=True)
json.dump(rows, open(sys.argv[1], "w"), indent=1)
