"""Probe: tile order (planar snake strip and width) of store-bound Mosaic
picks, against the pick's own order and jnp.matmul, same run, CUPTI."""
import dataclasses, json, sys, statistics
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import cost_model
from pallas_tiled.mosaic.config import MosaicConfig


def time_us(f, *args):
  f = jax.jit(f)
  for _ in range(3):
    jax.block_until_ready(f(*args))
  out, runs = profiler.measure(f, iterations=30, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3, out


ORDERS = [("n", 4), ("n", 1 << 20), ("m", 1 << 20), ("n", 16), ("m", 4)]


def main():
  rows = []
  for spec in sys.argv[2:]:
    dt, shape = spec.split(":")
    dt = jnp.dtype(dt)
    m, n, k = map(int, shape.split("x"))
    pick = cost_model.choose(m, n, k, dt)
    if not isinstance(pick, MosaicConfig):
      print("skip", spec, pick)
      continue
    a = jax.random.normal(jax.random.key(1), (m, k), jnp.float32).astype(dt)
    b = jax.random.normal(jax.random.key(2), (k, n), jnp.float32).astype(dt)
    base, ref = time_us(jnp.matmul, a, b)
    for minor, width in ORDERS:
      c = dataclasses.replace(pick, grid_minor_dim=minor, grid_tile_width=width)
      try:
        us, out = time_us(lambda a, b: pallas_tiled.matmul(a, b, c), a, b)
        err = float(jnp.linalg.norm((out - ref).astype(jnp.float32)) /
                    jnp.linalg.norm(ref.astype(jnp.float32)))
        rows.append(dict(dtype=dt.name, shape=shape, pick=pick.label,
                         order=f"{minor}{min(width, 9999)}", us=round(us, 2),
                         xla_us=round(base, 2), x=round(base / us, 3),
                         err=round(err, 6)))
      except Exception as e:
        rows.append(dict(dtype=dt.name, shape=shape, order=f"{minor}{width}",
                         error=str(e).splitlines()[0][:160]))
      print(json.dumps(rows[-1]), flush=True)
  json.dump(rows, open(sys.argv[1], "w"), indent=1)


main()
