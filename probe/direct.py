"""Probe: the Mosaic kernel storing unaligned outputs directly from
registers (plan.direct_out) against padded TMA stores cut by a copy:
correctness (poisoned outputs, bitwise repeatability), then CUPTI times
beside jnp.matmul; shapes in neither wild split or in wild-tune."""
import json, sys, statistics, time, traceback
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import accuracy, cost_model
from pallas_tiled.mosaic import plan

new = plan.stores_direct
off = lambda *a, **k: False
seen = []
def spy(*a, **k):
  r = new(*a, **k)
  seen.append(r)
  return r


def time_us(f, *args):
  f = jax.jit(f)
  for _ in range(3):
    jax.block_until_ready(f(*args))
  _, runs = profiler.measure(f, iterations=30, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3, runs[0]


def check(m, n, k, dt, c, ta=False, batch=None, out_dtype=None):
  rng = np.random.default_rng(m + n + k)
  ashape = (k, m) if ta else (m, k)
  if batch: ashape = (batch, *ashape)
  a = jnp.asarray(rng.standard_normal(ashape), dt)
  b = jnp.asarray(rng.standard_normal((k, n)), dt)
  aa = jnp.swapaxes(a, -1, -2) if ta else a
  kw = dict(config=c)
  if out_dtype: kw['preferred_element_type'] = out_dtype
  f = lambda a, b: pallas_tiled.matmul(jnp.swapaxes(a, -1, -2) if ta else a, b, **kw)
  out = accuracy.call_with_poisoned_output(lambda a, b: f(a, b), a, b)
  out2 = jax.jit(f)(a, b)
  ref = np.asarray(aa, np.float64) @ np.asarray(b, np.float64)
  o = np.asarray(out, np.float64)
  e = float(np.linalg.norm(o - ref) / np.linalg.norm(ref))
  tol = accuracy.tolerance(aa, b, ref, jnp.dtype(out.dtype), None)
  same = bool(np.array_equal(np.asarray(out), np.asarray(out2)))
  return dict(ok=bool(e <= tol and not np.isnan(o).any()), err=e, tol=tol, bitwise=same)


rows, start = [], time.time()
plan.stores_direct = spy
M = pallas_tiled.MosaicConfig
cases = [
  ((201, 337, 300), jnp.bfloat16, M(tile_m=128, tile_n=192, ping_pong=True, max_concurrent_steps=2), {}),
  ((1001, 523, 640), jnp.bfloat16, M(tile_m=64, tile_n=128, wg_dimension="m"), {}),
  ((130, 1999, 77), jnp.bfloat16, M(tile_m=64, tile_n=256, wg_dimension="m"), {}),
  ((129, 515, 200), jnp.bfloat16, M(tile_m=64, tile_n=128, wg_dimension="m"), dict(batch=3)),
  ((300, 1001, 256), jnp.float8_e4m3fn, M(tile_m=64, tile_n=128, tile_k=128, wg_dimension="m"), {}),
  ((300, 1001, 256), jnp.bfloat16, M(tile_m=64, tile_n=128, wg_dimension="m"), dict(out_dtype=jnp.float32)),
  ((200, 1003, 64), jnp.bfloat16, M(tile_m=64, tile_n=64, wg_dimension="n"), {}),
]
for shape, dt, c, kw in cases:
  seen.clear()
  try:
    r = check(*shape, dt, c, **kw)
  except Exception as e:
    r = dict(ok=str(e).splitlines()[0][:300])
    traceback.print_exc()
  rows.append(dict(shape="x".join(map(str, shape)), dtype=jnp.dtype(dt).name, config=c.label, direct=any(seen), **kw and {"kw": str(kw)}, **r))
  print(json.dumps(rows[-1], default=str), flush=True)

kind, sms = jax.devices()[0].device_kind, jax.devices()[0].core_count
for (m, n, k), dt in (((640, 50257, 128), jnp.bfloat16), ((640, 50258, 128), jnp.bfloat16), ((640, 50260, 128), jnp.bfloat16),
                      ((1000, 50257, 1280), jnp.bfloat16), ((640, 50257, 128), jnp.float8_e4m3fn), ((2000, 1999, 512), jnp.bfloat16)):
  if time.time() - start > 170:
    break
  a = jax.random.normal(jax.random.key(1), (m, k), jnp.float32).astype(dt)
  b = jax.random.normal(jax.random.key(2), (k, n), jnp.float32).astype(dt)
  picked = cost_model.choose_on(kind, sms, m, n, k, dt)
  if not isinstance(picked, M):
    picked = M(tile_m=128, tile_n=192, ping_pong=True, tile_k=128 if dt == jnp.float8_e4m3fn else 64)
  row = dict(shape=f"{m}x{n}x{k}", dtype=jnp.dtype(dt).name, config=picked.label)
  row["jnp"] = round(time_us(jnp.matmul, a, b)[0], 2)
  for name, fn in (("old", off), ("new", new)):
    plan.stores_direct = fn
    jax.clear_caches()
    t, kernels = time_us(lambda a, b: pallas_tiled.matmul(a, b, picked), a, b)
    row[name] = round(t, 2)
    row[name + "_k"] = [(n_, round(ms * 1e3, 1)) for n_, ms in kernels]
  row["x_old"], row["x_new"] = round(row["jnp"] / row["old"], 3), round(row["jnp"] / row["new"], 3)
  rows.append(row)
  print(json.dumps(row), flush=True)
plan.stores_direct = new
json.dump(rows, open(sys.argv[1], "w"), indent=1, default=str)
