"""Probe: what A's pad costs a transposed config at ragged M (per-kernel
CUPTI times), M against the next multiple of 8, same config; shapes in
neither wild split."""
import json, sys, statistics
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import cost_model


def kernels(f, *args):
  f = jax.jit(f)
  for _ in range(3):
    jax.block_until_ready(f(*args))
  _, runs = profiler.measure(f, iterations=40, aggregate=False)(*args)
  total = statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3
  parts = {}
  for r in runs:
    for name, ms in r:
      parts.setdefault(name[:40], []).append(ms * 1e3)
  return round(total, 2), {k: round(statistics.median(v), 2) for k, v in parts.items()}


rows = []
kind, sms = jax.devices()[0].device_kind, jax.devices()[0].core_count
for (m, n, k) in ((259, 3840, 1280), (393, 3072, 768), (1001, 2048, 4096)):
  c = cost_model.choose_on(kind, sms, m, n, k, jnp.bfloat16)
  for mm in (m, m + (-m) % 8):
    a = jax.random.normal(jax.random.key(1), (mm, k), jnp.bfloat16)
    b = jax.random.normal(jax.random.key(2), (k, n), jnp.bfloat16)
    base, _ = kernels(jnp.matmul, a, b)
    us, parts = kernels(lambda a, b: pallas_tiled.matmul(a, b, c), a, b)
    rows.append(dict(shape=f"{mm}x{n}x{k}", config=c.label, us=us, jnp=base, x=round(base / us, 3), parts=parts))
    print(json.dumps(rows[-1]), flush=True)
json.dump(rows, open(sys.argv[1], "w"), indent=1)
