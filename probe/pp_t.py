"""Probe: ping-pong consumers on transposed (C^T = B^T A^T) tiles against
the cooperative transposed pick, shapes in neither wild split; CUPTI."""
import dataclasses, json, sys, statistics
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import cost_model
from pallas_tiled.mosaic import config as mc

SMS = jax.devices()[0].core_count


def time_us(f, *args):
  f = jax.jit(f)
  for _ in range(3):
    jax.block_until_ready(f(*args))
  out, runs = profiler.measure(f, iterations=30, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3, out


def main():
  dt = jnp.dtype(sys.argv[2]) if len(sys.argv) > 2 else jnp.bfloat16
  shapes = [(3000, 768, 4096), (1000, 4608, 3584), (2000, 2560, 2560),
            (5000, 1536, 1536), (4000, 1280, 2560), (7000, 1024, 1536),
            (4100, 1280, 1280)]
  rows = []
  for m, n, k in shapes:
    a = jax.random.normal(jax.random.key(1), (m, k), dt)
    b = jax.random.normal(jax.random.key(2), (k, n), dt)
    base, ref = time_us(jnp.matmul, a, b)
    rows.append(dict(shape=f"{m}x{n}x{k}", name="jnp.matmul", us=round(base, 2)))
    print(json.dumps(rows[-1]), flush=True)
    t = mc.transposed_variants(m, n, dt, dt, SMS)[0]
    cfgs = [("pick", None), ("T " + t.label, t)]
    for s in (4, 3, 2):
      for epi_n in (t.tile_n, t.tile_n // 2):
        pp = dataclasses.replace(t, tile_m=128, ping_pong=True, epi_tile_m=64,
                                 epi_tile_n=epi_n, max_concurrent_steps=s)
        if mc._fits(pp, dt, dt):
          cfgs.append(("ppT " + pp.label, pp))
          break
    for name, c in cfgs:
      try:
        us, out = time_us(lambda a, b: pallas_tiled.matmul(a, b, c), a, b)
        err = float(jnp.linalg.norm((out - ref).astype(jnp.float32)) /
                    jnp.linalg.norm(ref.astype(jnp.float32)))
        rows.append(dict(shape=f"{m}x{n}x{k}", name=name, us=round(us, 2),
                         x=round(base / us, 3), err=err))
      except Exception as e:
        rows.append(dict(shape=f"{m}x{n}x{k}", name=name, error=str(e).splitlines()[0][:200]))
      print(json.dumps(rows[-1]), flush=True)
  json.dump(rows, open(sys.argv[1], "w"), indent=1)


main()
