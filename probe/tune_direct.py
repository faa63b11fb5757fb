"""Probe: direct stores (plan.direct_out) against padded TMA stores + cut
on wild-tune shapes whose output rows are no 16-byte multiples: the Mosaic
pick's kernel and copies, CUPTI medians beside jnp.matmul."""
import json, sys, statistics, time
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import cost_model
from pallas_tiled.mosaic import plan

new = plan.stores_direct
off = lambda *a, **k: False


def time_us(f, *args):
  f = jax.jit(f)
  for _ in range(3):
    jax.block_until_ready(f(*args))
  _, runs = profiler.measure(f, iterations=20, aggregate=False)(*args)
  kernels = [(n_, round(statistics.median(r[i][1] for r in runs) * 1e3, 2)) for i, (n_, _) in enumerate(runs[0])]
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3, kernels


kind, sms = jax.devices()[0].device_kind, jax.devices()[0].core_count
shapes = [(128, 50257, 768), (256, 50257, 1600), (512, 30522, 768), (1000, 50257, 1280), (168, 2451, 719),
          (643, 4054, 1080), (3821, 1309, 4077), (8300, 11183, 3516), (11924, 347, 178), (16384, 30522, 1024)]
rows, start = [], time.time()
for dt in (jnp.bfloat16, jnp.float8_e4m3fn):
  for (m, n, k) in shapes:
    if time.time() - start > float(sys.argv[2]):
      break
    a = jax.random.normal(jax.random.key(1), (m, k), jnp.float32).astype(dt)
    b = jax.random.normal(jax.random.key(2), (k, n), jnp.float32).astype(dt)
    c = cost_model.choose_on(kind, sms, m, n, k, dt, backends=("mosaic",))
    row = dict(shape=f"{m}x{n}x{k}", dtype=jnp.dtype(dt).name, config=c.label)
    row["jnp"] = round(time_us(jnp.matmul, a, b)[0], 2)
    for name, fn in (("old", off), ("new", new)):
      plan.stores_direct = fn
      jax.clear_caches()
      try:
        t, ks = time_us(lambda a, b: pallas_tiled.matmul(a, b, c), a, b)
        row[name], row[name + "_k"] = round(t, 2), ks
      except Exception as e:
        row[name] = str(e).splitlines()[0][:200]
    plan.stores_direct = new
    rows.append(row)
    print(json.dumps(row), flush=True)
json.dump(rows, open(sys.argv[1], "w"), indent=1)
