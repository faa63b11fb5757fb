"""Probe: TF32's register path over 256-byte K-tiles (tile_k 64: eight
wgmmas between waits, so the fragment loads and the wait are paid half as
often) against the pick's 128-byte ones. Shapes in neither wild split.
CUPTI medians beside jnp.matmul."""
import dataclasses, json, statistics, sys
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import cost_model

OUT = sys.argv[1]


def time_us(f, *args):
  f = jax.jit(f)
  for _ in range(3):
    jax.block_until_ready(f(*args))
  _, runs = profiler.measure(f, iterations=20, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3


kind, sms = jax.devices()[0].device_kind, jax.devices()[0].core_count
rows = []
for (m, n, k) in [(1024, 6144, 3072), (896, 7168, 2048), (768, 4096, 4096),
                  (1536, 3072, 2048)]:
  a = jax.random.normal(jax.random.key(1), (m, k), jnp.float32)
  b = jax.random.normal(jax.random.key(2), (k, n), jnp.float32)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  pick = cost_model.choose_on(kind, sms, m, n, k, jnp.float32)
  plain = dataclasses.replace(pick, cluster_dimension="none", grid_tile_width=4)
  configs = [pick] + [dataclasses.replace(plain, tile_n=tn, tile_k=tk,
                                          max_concurrent_steps=st)
                      for tn, tk, st in ((128, 32, 4), (192, 32, 4),
                                         (128, 64, 3), (128, 64, 2),
                                         (192, 64, 2))]
  configs = list(dict.fromkeys(configs))
  xla = time_us(jnp.matmul, a, b)
  for c in configs:
    row = dict(shape=f"{m}x{n}x{k}", config=c.label, pick=c == pick,
               jnp=round(xla, 2))
    try:
      f = lambda a, b, c=c: pallas_tiled.matmul(a, b, c)
      out = np.asarray(jax.jit(f)(a, b), np.float64)
      row["err"] = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
      row["us"] = round(time_us(f, a, b), 2)
      row["x"] = round(xla / row["us"], 3)
    except Exception as e:
      row["error"] = str(e).splitlines()[0][:200]
    rows.append(row)
    print(json.dumps(row), flush=True)
json.dump(rows, open(f"{OUT}/tf32k64.json", "w"), indent=1)
