"""Probe: direct stores in the few-tiles regime (one CTA tile per SM or
fewer) on the wild-tune shape 168x2451x719: every Mosaic candidate the
model offers that stores directly, timed cut (old) and direct (new), with
the model's predictions, beside the model's pick and jnp.matmul."""
import json, sys, statistics
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
  _, runs = profiler.measure(f, iterations=30, aggregate=False)(*args)
  return round(statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3, 2)


kind, sms = jax.devices()[0].device_kind, jax.devices()[0].core_count
rows = []
for dt in (jnp.float8_e4m3fn, jnp.bfloat16):
  m, n, k = 168, 2451, 719
  a = jax.random.normal(jax.random.key(1), (m, k), jnp.float32).astype(dt)
  b = jax.random.normal(jax.random.key(2), (k, n), jnp.float32).astype(dt)
  coefs = cost_model.coefficients(kind, dt)
  pick = cost_model.choose_on(kind, sms, m, n, k, dt)
  row = dict(dtype=jnp.dtype(dt).name, jnp=time_us(jnp.matmul, a, b), pick=pick.label,
             pick_us=time_us(lambda a, b: pallas_tiled.matmul(a, b, pick), a, b),
             pick_pred=cost_model.predict_us(pick, m, n, k, dt, coefs, sms))
  print(json.dumps(row), flush=True)
  for c in cost_model.model_candidates(m, n, k, dt):
    if c.backend != "mosaic" or not plan.host_layout(m, n, k, c, dt, dt).direct_bytes:
      continue
    r = dict(dtype=jnp.dtype(dt).name, config=c.label, tiles=c.busiest_sm_work(m, n) if hasattr(c, "busiest_sm_work") else None,
             pred_new=cost_model.predict_us(c, m, n, k, dt, coefs, sms))
    for name, fn in (("cut", off), ("direct", new)):
      plan.stores_direct = fn
      jax.clear_caches()
      try:
        r[name] = time_us(lambda a, b: pallas_tiled.matmul(a, b, c), a, b)
      except Exception as e:
        r[name] = str(e).splitlines()[0][:100]
    plan.stores_direct = new
    rows.append(r)
    print(json.dumps(r), flush=True)
json.dump(rows, open(sys.argv[1], "w"), indent=1)
