"""Probe: float8 ping-pong tiles loading a ragged-M A untiled (lane
lowering), with a_rows_untiled patched to admit 1-byte dtypes; correctness
(poisoned outputs) and CUPTI times against the padded path; shapes in neither
wild split."""
import dataclasses, json, sys, statistics
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import accuracy, cost_model
from pallas_tiled.mosaic import plan

orig = plan.a_rows_untiled


def patched(config, dtype, m, a_k_major, swizzle, interpret):
  return (config.ping_pong and config.lowering == "lane" and not interpret
          and m % 8 != 0 and a_k_major
          and config.tile_k * jnp.dtype(dtype).itemsize == swizzle)


def time_us(f, *args):
  f = jax.jit(f)
  for _ in range(3):
    jax.block_until_ready(f(*args))
  out, runs = profiler.measure(f, iterations=30, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3


def check(m, n, k, dtype, config):
  rng = np.random.default_rng(m * 7 + n)
  a = jnp.asarray(rng.standard_normal((m, k)), dtype)
  b = jnp.asarray(rng.standard_normal((k, n)), dtype)
  out = accuracy.call_with_poisoned_output(pallas_tiled.matmul, a, b, config=config)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  o = np.asarray(out.astype(jnp.float32), np.float64)
  err = float(np.linalg.norm(o - ref) / np.linalg.norm(ref))
  tol = accuracy.tolerance(a, b, ref, jnp.dtype(dtype), None)
  return dict(err=err, ok=bool(err <= tol and not np.isnan(o).any()))


def main():
  rows = []
  dt = jnp.float8_e4m3fn
  plan.a_rows_untiled = patched
  for m, n, k in ((257, 330, 300), (1001, 520, 640), (77, 300, 256), (3, 200, 512), (201, 336, 300)):
    for c in cost_model.model_candidates(m, n, k, dt):
      if not (c.backend == "mosaic" and c.ping_pong):
        continue
      for c in {c, dataclasses.replace(c, lowering="lane")}:
        used = patched(c, dt, m, True, 128, False)
        try:
          r = check(m, n, k, dt, c)
        except Exception as e:
          r = dict(error=str(e).splitlines()[0][:300])
        rows.append(dict(shape=f"{m}x{n}x{k}", name=c.label, lowering=c.lowering, untiled=used, **r))
        print(json.dumps(rows[-1]), flush=True)
  for m, n, k in ((4100, 1280, 1280), (259, 3840, 1280), (1001, 4096, 1024), (3001, 2048, 2048)):
    a = jax.random.normal(jax.random.key(1), (m, k), jnp.float32).astype(dt)
    b = jax.random.normal(jax.random.key(2), (k, n), jnp.float32).astype(dt)
    base = time_us(jnp.matmul, a, b)
    pick = cost_model.choose_on(jax.devices()[0].device_kind, jax.devices()[0].core_count, m, n, k, dt)
    for c in [pick] + [c for c in cost_model.model_candidates(m, n, k, dt)
                       if c.backend == "mosaic" and c.ping_pong and c.lowering == "lane"][:3]:
      for name, fn in (("pad", orig), ("untiled", patched)):
        plan.a_rows_untiled = fn
        jax.clear_caches()
        try:
          us = time_us(lambda a, b: pallas_tiled.matmul(a, b, c), a, b)
          rows.append(dict(shape=f"{m}x{n}x{k}", name=c.label, path=name, us=round(us, 2), x=round(base / us, 3)))
        except Exception as e:
          rows.append(dict(shape=f"{m}x{n}x{k}", name=c.label, path=name, error=str(e).splitlines()[0][:300]))
        print(json.dumps(rows[-1]), flush=True)
  json.dump(rows, open(sys.argv[1], "w"), indent=1)


main()
