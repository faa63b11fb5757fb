"""Probe: transposed configs storing a ragged-M output in place (untiled
shared memory) against the old tiled store (pad and cut); correctness with
poisoned outputs, CUPTI times beside jnp.matmul; shapes in neither wild
split."""
import json, sys, statistics
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import accuracy, cost_model, layouts
from pallas_tiled.mosaic import plan

new_extent = plan.output_extent


def old_extent(m, n, config, out_dtype, transposed):
  if transposed:
    cm, cn = config.cluster_tile
    return (max(plan.round_up(m, layouts.swizzle_elements(out_dtype)), cm),
            max(plan.round_up(n, 8), cn), True)
  return new_extent(m, n, config, out_dtype, transposed)


def time_us(f, *args):
  f = jax.jit(f)
  for _ in range(3):
    jax.block_until_ready(f(*args))
  _, runs = profiler.measure(f, iterations=40, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3


def main():
  rows = []
  kind, sms = jax.devices()[0].device_kind, jax.devices()[0].core_count
  for m, n, k in ((259, 3840, 1280), (393, 3072, 768), (1703, 1962, 525),
                  (4003, 1254, 7943), (513, 2304, 768), (131, 777, 300)):
    for dt in (jnp.bfloat16, jnp.float16):
      a = jax.random.normal(jax.random.key(1), (m, k), dt)
      b = jax.random.normal(jax.random.key(2), (k, n), dt)
      c = cost_model.choose_on(kind, sms, m, n, k, dt)
      if not (c and c.backend == "mosaic" and c.transposed):
        c = pallas_tiled.MosaicConfig(tile_m=64, tile_n=72, epi_tile_n=72, wg_dimension="m", transposed=True)
      plan.output_extent = new_extent
      jax.clear_caches()
      out = accuracy.call_with_poisoned_output(pallas_tiled.matmul, a, b, config=c)
      ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
      o = np.asarray(out.astype(jnp.float32), np.float64)
      err = float(np.linalg.norm(o - ref) / np.linalg.norm(ref))
      tol = accuracy.tolerance(a, b, ref, jnp.dtype(dt), None)
      row = dict(shape=f"{m}x{n}x{k}", dtype=jnp.dtype(dt).name, config=c.label,
                 ok=bool(err <= tol and not np.isnan(o).any()), err=err)
      base = time_us(jnp.matmul, a, b)
      for name, fn in (("old", old_extent), ("new", new_extent), ("old2", old_extent), ("new2", new_extent)):
        plan.output_extent = fn
        jax.clear_caches()
        us = time_us(lambda a, b: pallas_tiled.matmul(a, b, c), a, b)
        row[name] = round(base / us, 3)
        row[name + "_us"] = round(us, 2)
      row["jnp_us"] = round(base, 2)
      rows.append(row)
      print(json.dumps(row), flush=True)
  json.dump(rows, open(sys.argv[1], "w"), indent=1)


main()
