"""Probe: store-bound short-K matmuls (shapes in neither wild split), our
configs incl. non-persistent-like grids (num_sms above the SM count) and
single-warpgroup CTAs, against jnp.matmul, same run, CUPTI."""
import dataclasses, json, sys, statistics, types
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled.mosaic.config import MosaicConfig
from pallas_tiled.triton.config import TileConfig
import pallas_tiled.mosaic.config as mc

real = mc.device
mc.device = types.SimpleNamespace(sm_count=lambda: 8192,
                                  FALLBACK_SM_COUNT=real.FALLBACK_SM_COUNT)
SMS = jax.devices()[0].core_count


def time_us(f, *args):
  f = jax.jit(f)
  for _ in range(3):
    jax.block_until_ready(f(*args))
  out, runs = profiler.measure(f, iterations=30, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3, out


def main():
  dt = jnp.dtype(sys.argv[2]) if len(sys.argv) > 2 else jnp.bfloat16
  shapes = [(8192, 8192, 64), (4096, 16384, 128)]
  rows = []
  pp = MosaicConfig(tile_m=128, tile_n=192, tile_k=64, max_concurrent_steps=2,
                    ping_pong=True, num_sms=SMS)
  cfgs = [("pp128x192 s2", pp),
          ("pp128x192 s2 snake-m4", dataclasses.replace(pp, grid_minor_dim="m")),
          ("pp128x192 s2 snake-n64", dataclasses.replace(pp, grid_tile_width=64)),
          ("pp128x128 s2", dataclasses.replace(pp, tile_n=128)),
          ("pp128x128 s2 snake-m4", dataclasses.replace(pp, tile_n=128, grid_minor_dim="m")),
          ("ws-n 128x128 s2", MosaicConfig(tile_m=128, tile_n=128, max_concurrent_steps=2, num_sms=SMS)),
          ("ws-m 64x256 s2", MosaicConfig(tile_m=64, tile_n=256, wg_dimension="m", max_concurrent_steps=2, num_sms=SMS)),
          ]
  for tm, tn in ((64, 128), (64, 256), (128, 128), (64, 64)):
    for mult in (1, 2, 3, 4, 8):
      cfgs.append((f"nows {tm}x{tn} s2 sm{mult}x",
                   MosaicConfig(tile_m=tm, tile_n=tn, max_concurrent_steps=2,
                                warp_specialized=False, num_sms=SMS * mult)))
  for bm, bn, w, s in ((64, 128, 4, 2), (128, 128, 4, 2), (64, 256, 4, 2), (128, 128, 8, 2), (64, 64, 4, 2)):
    cfgs.append((f"triton {bm}x{bn}/w{w}/s{s}/g16",
                 TileConfig(block_m=bm, block_n=bn, block_k=64, num_warps=w,
                            num_stages=s, group_m=16)))
  for m, n, k in shapes:
    a = jax.random.normal(jax.random.key(1), (m, k), dt)
    b = jax.random.normal(jax.random.key(2), (k, n), dt)
    ref, _ = None, None
    base, ref = time_us(jnp.matmul, a, b)
    rows.append(dict(shape=f"{m}x{n}x{k}", name="jnp.matmul", us=round(base, 2)))
    print(json.dumps(rows[-1]), flush=True)
    for name, c in [("pick", None)] + cfgs:
      if isinstance(c, MosaicConfig) and dt == jnp.float32:
        c = dataclasses.replace(c, tile_k=32)
      try:
        us, out = time_us(lambda a, b: pallas_tiled.matmul(a, b, c), a, b)
        err = float(jnp.linalg.norm((out - ref).astype(jnp.float32)) /
                    jnp.linalg.norm(ref.astype(jnp.float32)))
        rows.append(dict(shape=f"{m}x{n}x{k}", name=name, us=round(us, 2),
                         x=round(base / us, 3), err=err))
      except Exception as e:
        rows.append(dict(shape=f"{m}x{n}x{k}", name=name, error=str(e).splitlines()[0][:160]))
      print(json.dumps(rows[-1]), flush=True)
  json.dump(rows, open(sys.argv[1], "w"), indent=1)


main()
