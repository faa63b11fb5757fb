"""Probe: ping-pong tiles loading a ragged-M A through an untiled view (no
pad of A), correctness (poisoned outputs) and CUPTI times against the
cooperative tiles (which still pad A) and jnp.matmul; shapes in neither
wild split."""
import dataclasses, json, sys, statistics
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import accuracy, cost_model
from pallas_tiled.mosaic import kernel as mk


def time_us(f, *args):
  f = jax.jit(f)
  for _ in range(3):
    jax.block_until_ready(f(*args))
  out, runs = profiler.measure(f, iterations=30, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3, runs[0]


def check(m, n, k, dtype, config, ta=False, tb=False):
  rng = np.random.default_rng(m * 7 + n)
  a = jnp.asarray(rng.standard_normal((m, k)), dtype)
  b = jnp.asarray(rng.standard_normal((k, n)), dtype)
  out = accuracy.call_with_poisoned_output(pallas_tiled.matmul, a, b, config=config)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  o = np.asarray(out.astype(jnp.float32), np.float64)
  err = float(np.linalg.norm(o - ref) / np.linalg.norm(ref))
  tol = accuracy.tolerance(a, b, ref, jnp.dtype(dtype), None)
  return dict(nan=bool(np.isnan(o).any()), err=err, ok=bool(err <= tol and not np.isnan(o).any()))


def main():
  rows = []
  kind, sms = jax.devices()[0].device_kind, jax.devices()[0].core_count
  # Correctness: ragged M (and M < one tile), every dtype's pp configs.
  for dtype in (jnp.bfloat16, jnp.float16, jnp.float32, jnp.float8_e4m3fn):
    for m, n, k in ((257, 330, 300), (1001, 520, 640), (77, 300, 256), (3, 200, 512)):
      for c in cost_model.model_candidates(m, n, k, dtype):
        if c.backend == "mosaic" and c.ping_pong:
          try:
            r = check(m, n, k, dtype, c)
          except Exception as e:
            r = dict(error=str(e).splitlines()[0][:300])
          rows.append(dict(shape=f"{m}x{n}x{k}", dtype=jnp.dtype(dtype).name, name=c.label, **r))
          print(json.dumps(rows[-1]), flush=True)
  # Timing, bfloat16.
  for m, n, k in ((4100, 1280, 1280), (259, 3840, 1280), (790, 2304, 768),
                  (1001, 4096, 1024), (3001, 2048, 2048), (12001, 4096, 4096)):
    dt = jnp.bfloat16
    a = jax.random.normal(jax.random.key(1), (m, k), dt)
    b = jax.random.normal(jax.random.key(2), (k, n), dt)
    base, _ = time_us(jnp.matmul, a, b)
    rows.append(dict(shape=f"{m}x{n}x{k}", name="jnp.matmul", us=round(base, 2)))
    print(json.dumps(rows[-1]), flush=True)
    pick = cost_model.choose_on(kind, sms, m, n, k, dt)
    cands = [c for c in cost_model.model_candidates(m, n, k, dt)
             if c.backend == "mosaic" and (c.ping_pong or c.label.startswith(("64x128x64/s4/ws-m", "64x256x64/s4/ws-m")))]
    for c in [pick] + [c for c in cands if c != pick]:
      try:
        us, runs = time_us(lambda a, b: pallas_tiled.matmul(a, b, c), a, b)
        rows.append(dict(shape=f"{m}x{n}x{k}", name=("pick " if c == pick else "") + c.label,
                         us=round(us, 2), x=round(base / us, 3), kernels=[(n_[:30], round(t * 1e3, 2)) for n_, t in runs]))
      except Exception as e:
        rows.append(dict(shape=f"{m}x{n}x{k}", name=c.label, error=str(e).splitlines()[0][:300]))
      print(json.dumps(rows[-1]), flush=True)
  json.dump(rows, open(sys.argv[1], "w"), indent=1)


main()
