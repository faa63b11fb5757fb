"""Probe: float32 cooperative consumers on the kernel's own ring (ragged-M
A loaded untiled, truncated by wgmma) against jax's pipeline on a padded
(rounded) copy; correctness with poisoned outputs, CUPTI times beside
jnp.matmul, errors against float64; shapes in neither wild split."""
import dataclasses, json, sys, statistics, time
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import accuracy, cost_model
from pallas_tiled.mosaic import plan

new = plan.rows_untiled
old = lambda c, dtype, *args: jnp.dtype(dtype).itemsize <= 2 and new(c, dtype, *args)
calls = []
def spy(c, dtype, rows, *args):
  r = new(c, dtype, rows, *args)
  calls.append(r)
  return r


def time_us(f, *args):
  f = jax.jit(f)
  for _ in range(3):
    jax.block_until_ready(f(*args))
  _, runs = profiler.measure(f, iterations=30, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3


def err(out, a, b):
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  o = np.asarray(out, np.float64)
  return float(np.linalg.norm(o - ref) / np.linalg.norm(ref)), ref, o


def check(m, n, k, dt, c):
  rng = np.random.default_rng(m + n)
  a = jnp.asarray(rng.standard_normal((m, k)), dt)
  b = jnp.asarray(rng.standard_normal((k, n)), dt)
  out = accuracy.call_with_poisoned_output(pallas_tiled.matmul, a, b, config=c)
  e, ref, o = err(out, a, b)
  return bool(e <= accuracy.tolerance(a, b, ref, jnp.dtype(dt), None) and not np.isnan(o).any()), e


start, rows = time.time(), []
kind, sms = jax.devices()[0].device_kind, jax.devices()[0].core_count
plan.rows_untiled = spy
for tm, tn in ((64, 128), (64, 64), (64, 256)):
  for wg in ("m", "n"):
    for shape in ((201, 336, 300), (1001, 520, 640), (77, 130, 256), (3, 700, 64)):
      c = pallas_tiled.MosaicConfig(tile_m=tm, tile_n=tn, tile_k=32, lowering="lane", wg_dimension=wg)
      calls.clear()
      try:
        ok = check(*shape, jnp.float32, c)
      except Exception as e:
        ok = str(e).splitlines()[0][:200]
      rows.append(dict(shape="x".join(map(str, shape)), config=c.label, ok=ok, untiled=any(calls)))
      print(json.dumps(rows[-1]), flush=True)
for (m, n, k) in ((199, 3072, 768), (259, 3840, 1280), (790, 4096, 1024), (1001, 2304, 768), (4100, 1280, 1280)):
  if time.time() - start > 150:
    break
  a = jax.random.normal(jax.random.key(1), (m, k), jnp.float32)
  b = jax.random.normal(jax.random.key(2), (k, n), jnp.float32)
  picked = cost_model.choose_on(kind, sms, m, n, k, jnp.float32)
  for c in (picked, pallas_tiled.MosaicConfig(tile_m=64, tile_n=128, tile_k=32, lowering="lane")):
    row = dict(shape=f"{m}x{n}x{k}", config=c.label, jnp=round(time_us(jnp.matmul, a, b), 2),
               jnp_err=err(jnp.matmul(a, b), a, b)[0])
    for name, fn in (("old", old), ("new", new), ("old2", old), ("new2", new)):
      plan.rows_untiled = fn
      jax.clear_caches()
      f = lambda a, b: pallas_tiled.matmul(a, b, c)
      row[name] = round(time_us(f, a, b), 2)
      row[name[:3] + "_err"] = err(jax.jit(f)(a, b), a, b)[0]
    row["x_old"], row["x_new"] = round(row["jnp"] / row["old"], 3), round(row["jnp"] / row["new"], 3)
    rows.append(row)
    print(json.dumps(row), flush=True)
plan.rows_untiled = new
json.dump(rows, open(sys.argv[1], "w"), indent=1)
