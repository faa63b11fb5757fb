"""Probe: read-bound (M = 128) matmuls, shapes in neither wild split: which
Mosaic variants stream b at Triton's / jnp.matmul's rate? CUPTI medians."""
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
  out, runs = profiler.measure(f, iterations=20, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3, out


def M(**kw):
  base = dict(tile_m=64, tile_n=256, tile_k=64, wg_dimension="m",
              max_concurrent_steps=4, num_sms=SMS)
  return MosaicConfig(**{**base, **kw})


def main():
  dt = jnp.bfloat16
  shapes = [(128, 32768, 8192), (128, 8192, 32768)]
  cfgs = [
      ("ws-m 64x256 s4", M()),
      ("ws-m 64x256 s3", M(max_concurrent_steps=3)),
      ("ws-m 64x256 s2", M(max_concurrent_steps=2)),
      ("ws-m 64x256x128 s2", M(tile_k=128, max_concurrent_steps=2)),
      ("ws-m 64x128 s4", M(tile_n=128)),
      ("ws-m 64x128 s6", M(tile_n=128, max_concurrent_steps=6)),
      ("ws-m 64x128 s6 sm2x", M(tile_n=128, max_concurrent_steps=6, num_sms=2 * SMS)),
      ("ws-n 64x128 s4", M(tile_n=128, wg_dimension="n")),
      ("nows 128x256 s4", M(tile_m=128, warp_specialized=False)),
      ("nows 64x256 s4", M(warp_specialized=False)),
      ("nows 64x256 s6", M(warp_specialized=False, max_concurrent_steps=6)),
      ("nows 64x128 s8", M(tile_n=128, warp_specialized=False, max_concurrent_steps=8)),
      ("pp 128x128 s5", M(tile_m=128, tile_n=128, ping_pong=True, max_concurrent_steps=5)),
      ("ws-m 64x256 s4 sk4", M(split_k=4)),
      ("ws-m 64x128 s4 sk2", M(tile_n=128, split_k=2)),
      ("triton 128x256x64/w8/s3/g16", TileConfig(128, 256, 64, num_warps=8, num_stages=3, group_m=16)),
      ("triton 128x256x64/w8/s4/g16", TileConfig(128, 256, 64, num_warps=8, num_stages=4, group_m=16)),
      ("triton 128x128x64/w4/s4", TileConfig(128, 128, 64, num_warps=4, num_stages=4)),
      ("triton 128x128x64/w4/s4/sk4", TileConfig(128, 128, 64, num_warps=4, num_stages=4, split_k=4)),
  ]
  rows = []
  for m, n, k in shapes:
    a = jax.random.normal(jax.random.key(1), (m, k), dt)
    b = jax.random.normal(jax.random.key(2), (k, n), dt)
    gb = (m * k + k * n + m * n) * 2 / 1e9
    base, ref = time_us(jnp.matmul, a, b)
    rows.append(dict(shape=f"{m}x{n}x{k}", name="jnp.matmul", us=round(base, 2), tbs=round(gb / base * 1e3, 3)))
    print(json.dumps(rows[-1]), flush=True)
    for name, c in [("pick", None)] + cfgs:
      try:
        us, out = time_us(lambda a, b: pallas_tiled.matmul(a, b, c), a, b)
        err = float(jnp.linalg.norm((out - ref).astype(jnp.float32)) /
                    jnp.linalg.norm(ref.astype(jnp.float32)))
        rows.append(dict(shape=f"{m}x{n}x{k}", name=name, us=round(us, 2),
                         x=round(base / us, 3), tbs=round(gb / us * 1e3, 3), err=err))
      except Exception as e:
        rows.append(dict(shape=f"{m}x{n}x{k}", name=name, error=str(e).splitlines()[0][:160]))
      print(json.dumps(rows[-1]), flush=True)
  json.dump(rows, open(sys.argv[1], "w"), indent=1)


main()
