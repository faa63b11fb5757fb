"""Probe: TF32's in-flight register path (plan.a_in_flight) against jax's
pipeline (the shipped path before it), on the H200 float32 wild-tune shapes
whose picks take it. CUPTI medians of 2 interleaved rounds, jnp.matmul in
the same run, each result against jnp.matmul at HIGHEST."""
import json, statistics, sys
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled.mosaic import plan as plan_lib

OUT = sys.argv[1]
SHAPES = ("384x6144x64 384x16384x4096 384x262208x2560 512x10240x8192"
          " 643x4054x1080 1280x3840x6000 3000x3072x768 3000x6144x24576"
          " 3152x768x3072 3821x1309x4077 4096x768x3072 8192x768x768"
          " 1024x3072x768 4096x3072x768 6912x1152x256 64x17920x1536"
          " 64x28672x4096 8192x256x32").split()


def compiled(f, a, b, in_flight):
  plan_lib._IN_FLIGHT_MIN_STAGES = 4 if in_flight else 99
  jax.clear_caches()
  return jax.jit(f).lower(a, b).compile()


def time_us(f, *args):
  for _ in range(3):
    jax.block_until_ready(f(*args))
  _, runs = profiler.measure(f, iterations=10, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3


rows = []
for shape in SHAPES:
  m, n, k = map(int, shape.split("x"))
  a = jax.random.normal(jax.random.key(1), (m, k), jnp.float32)
  b = jax.random.normal(jax.random.key(2), (k, n), jnp.float32)
  ref = np.asarray(jnp.matmul(a, b, precision=jax.lax.Precision.HIGHEST),
                   np.float64)
  row = dict(shape=shape)
  try:
    f = lambda a, b: pallas_tiled.matmul(a, b)
    fs = {"old": compiled(f, a, b, False), "new": compiled(f, a, b, True),
          "xla": jax.jit(jnp.matmul)}
    for v, g in fs.items():
      out = np.asarray(g(a, b), np.float64)
      row[f"{v}_err"] = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
    t = {v: [] for v in fs}
    for _ in range(2):
      for v, g in fs.items():
        t[v].append(time_us(g, a, b))
    for v, ts in t.items():
      row[f"{v}_us"] = round(statistics.median(ts), 2)
    row["new/old"] = round(row["old_us"] / row["new_us"], 3)
  except Exception as e:
    row["error"] = (type(e).__name__ + ": " + str(e))[:400]
  rows.append(row)
  print(json.dumps(row), flush=True)
json.dump(rows, open(f"{OUT}/tune_inflight.json", "w"), indent=1)
