"""Probe: cooperative consumers on the kernel's own ring with a ragged-M
operand loaded untiled, against jax's pipeline on a padded copy (the old
path: rows_untiled patched to ping-pong only); correctness with poisoned
outputs, CUPTI times beside jnp.matmul; shapes in neither wild split."""
import dataclasses, json, sys, statistics, time
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import accuracy, cost_model
from pallas_tiled.mosaic import plan

new = plan.rows_untiled
old = lambda c, *args: c.ping_pong and new(c, *args)


def time_us(f, *args):
  f = jax.jit(f)
  for _ in range(3):
    jax.block_until_ready(f(*args))
  _, runs = profiler.measure(f, iterations=30, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3


def check(m, n, k, dt, c):
  rng = np.random.default_rng(m + n)
  a = jnp.asarray(rng.standard_normal((m, k)), dt)
  b = jnp.asarray(rng.standard_normal((k, n)), dt)
  out = accuracy.call_with_poisoned_output(pallas_tiled.matmul, a, b, config=c)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  o = np.asarray(out.astype(jnp.float32), np.float64)
  err = float(np.linalg.norm(o - ref) / np.linalg.norm(ref))
  return bool(err <= accuracy.tolerance(a, b, ref, jnp.dtype(dt), None) and not np.isnan(o).any())


start, rows = time.time(), []
kind, sms = jax.devices()[0].device_kind, jax.devices()[0].core_count
base = pallas_tiled.MosaicConfig(tile_m=64, tile_n=128, lowering="lane")
for dt in (jnp.bfloat16, jnp.float16, jnp.float8_e4m3fn):
  tk = 128 // jnp.dtype(dt).itemsize
  for wg in ("m", "n"):
    for shape in ((201, 336, 300), (1001, 520, 640), (77, 130, 256)):
      c = dataclasses.replace(base, tile_k=tk, wg_dimension=wg)
      try:
        ok = check(*shape, dt, c)
      except Exception as e:
        ok = str(e).splitlines()[0][:200]
      rows.append(dict(shape="x".join(map(str, shape)), dtype=jnp.dtype(dt).name, config=c.label, ok=ok))
      print(json.dumps(rows[-1]), flush=True)
for (m, n, k), dt in (((259, 3840, 1280), jnp.bfloat16), ((393, 3072, 768), jnp.bfloat16),
                      ((790, 2304, 768), jnp.bfloat16), ((4100, 1280, 1280), jnp.bfloat16),
                      ((4100, 1280, 1280), jnp.float8_e4m3fn), ((3001, 2048, 2048), jnp.float16)):
  if time.time() - start > 75:
    break
  a = jax.random.normal(jax.random.key(1), (m, k), jnp.float32).astype(dt)
  b = jax.random.normal(jax.random.key(2), (k, n), jnp.float32).astype(dt)
  c = cost_model.choose_on(kind, sms, m, n, k, dt)
  if c.ping_pong or c.backend != "mosaic":
    c = dataclasses.replace(base, tile_k=128 // jnp.dtype(dt).itemsize)
  row = dict(shape=f"{m}x{n}x{k}", dtype=jnp.dtype(dt).name, config=c.label, jnp=round(time_us(jnp.matmul, a, b), 2))
  for name, fn in (("old", old), ("new", new), ("old2", old), ("new2", new)):
    plan.rows_untiled = fn
    jax.clear_caches()
    row[name] = round(time_us(lambda a, b: pallas_tiled.matmul(a, b, c), a, b), 2)
  plan.rows_untiled = new
  row["x_old"], row["x_new"] = round(row["jnp"] / row["old"], 3), round(row["jnp"] / row["new"], 3)
  rows.append(row)
  print(json.dumps(row), flush=True)
json.dump(rows, open(sys.argv[1], "w"), indent=1)
