"""Probe: the kernel's own ring in clusters of two (TMA multicast of the
shared operand, cluster-wide consumed barriers).

Part A, bfloat16: ping-pong 128x128/s5 and 128x192/s4 against the same
tiles clustered along M (cuBLAS's nvjet ..._2x1 kernels), wild-tune shapes.
Part B, float32: TF32's register path in clusters (64x256x32/s4 cluster-m,
the model's pick on 95 wild shapes) with one wgmma group in flight over
the ring, against jax's pipeline (each K-step waited for), wild-tune shapes.
Part C: ragged shapes in neither split, every variant, errors only.
CUPTI medians of 3 interleaved rounds of 20 runs; jnp.matmul in the same
rounds; results against float64 and old against new bitwise (part B)."""
import dataclasses, json, statistics, sys
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled.mosaic import plan as plan_lib

OUT = sys.argv[1]
PARTS = sys.argv[2] if len(sys.argv) > 2 else "ABC"
NEW_IN_FLIGHT = plan_lib.Plan.a_in_flight


def old_in_flight(self):  # The shipped rule: never in clusters.
  return NEW_IN_FLIGHT.fget(self) and self.config.cluster_size == 1


def compiled(f, a, b, old=False):
  plan_lib.Plan.a_in_flight = (property(old_in_flight) if old
                               else NEW_IN_FLIGHT)
  jax.clear_caches()
  try:
    return jax.jit(f).lower(a, b).compile()
  finally:
    plan_lib.Plan.a_in_flight = NEW_IN_FLIGHT


def time_us(f, *args):
  _, runs = profiler.measure(f, iterations=20, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3


def err(out, ref):
  return float(np.linalg.norm(np.asarray(out, np.float64) - ref)
               / np.linalg.norm(ref))


PP = dict(tile_m=128, ping_pong=True, epi_tile_n=64, grid_tile_width=4)
PP128 = pallas_tiled.MosaicConfig(tile_n=128, max_concurrent_steps=5, **PP)
PP192 = pallas_tiled.MosaicConfig(tile_n=192, max_concurrent_steps=4, **PP)
CM = lambda c, **f: dataclasses.replace(c, cluster_dimension="m", **f)
F32 = pallas_tiled.MosaicConfig(tile_m=64, tile_n=256, tile_k=32,
                                wg_dimension="m", epi_tile_n=32,
                                grid_tile_width=8, cluster_dimension="m")
BF16 = [(4096, 4096, 4096), (3152, 4096, 1024), (6000, 1280, 3840),
        (8192, 4096, 4096), (16384, 3072, 1024), (5120, 13824, 2048),
        (1024, 2048, 2048)]
F32_SHAPES = [(4096, 4096, 4096), (1024, 3072, 1024), (6000, 1280, 3840),
              (8192, 3584, 3584), (16384, 3072, 1024), (2048, 10240, 8192),
              (256, 15360, 3840), (1000, 4096, 4096)]
RAGGED = [(1000, 1000, 1000), (130, 700, 300), (100, 2048, 512),
          (385, 1031, 2050)]


def variants_bf16():
  return {"pp128": PP128, "pp128-cm": CM(PP128), "pp128-cn": dataclasses.replace(
      PP128, cluster_dimension="n"), "pp192": PP192, "pp192-cm": CM(PP192)}


def run(m, n, k, dtype, variants, part, timed=True):
  ka, kb = jax.random.split(jax.random.key(m * 7 + n * 3 + k))
  a = jax.random.normal(ka, (m, k), jnp.float32).astype(dtype)
  b = jax.random.normal(kb, (k, n), jnp.float32).astype(dtype)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  fs = {"xla": jax.jit(jnp.matmul).lower(a, b).compile()}
  row = dict(part=part, shape=f"{m}x{n}x{k}", dtype=jnp.dtype(dtype).name)
  for name, (config, old) in variants.items():
    try:
      fs[name] = compiled(lambda a, b, c=config: pallas_tiled.matmul(a, b, c),
                          a, b, old)
    except Exception as e:
      row[f"{name}_error"] = (type(e).__name__ + ": " + str(e))[:300]
  outs = {}
  for name, f in fs.items():
    try:
      outs[name] = np.asarray(f(a, b))
      row[f"{name}_err"] = round(err(outs[name], ref), 7)
    except Exception as e:
      row[f"{name}_error"] = (type(e).__name__ + ": " + str(e))[:300]
  fs = {v: f for v, f in fs.items() if v in outs}
  if "old" in outs and "new" in outs:
    row["bitwise"] = bool(np.array_equal(outs["old"], outs["new"]))
  if timed:
    for f in fs.values():
      jax.block_until_ready(f(a, b))
    t = {v: [] for v in fs}
    for _ in range(3):
      for v, f in fs.items():
        t[v].append(time_us(f, a, b))
    for v, ts in t.items():
      row[f"{v}_us"] = round(statistics.median(ts), 2)
      if v != "xla":
        row[f"{v}_x"] = round(row["xla_us"] / row[f"{v}_us"], 3)
  print(json.dumps(row), flush=True)
  return row


rows = []
if "A" in PARTS:
  for shape in BF16:
    rows.append(run(*shape, jnp.bfloat16, {
        v: (c, False) for v, c in variants_bf16().items()}, "A"))
if "B" in PARTS:
  for shape in F32_SHAPES:
    rows.append(run(*shape, jnp.float32,
                    {"old": (F32, True), "new": (F32, False)}, "B"))
if "C" in PARTS:
  for shape in RAGGED:
    for dtype in (jnp.bfloat16, jnp.float8_e4m3fn)[:1 + (shape == RAGGED[0])]:
      rows.append(run(*shape, dtype, {v: (c, False) for v, c in
                                      variants_bf16().items()}, "C", False))
    rows.append(run(*shape, jnp.float32,
                    {"old": (F32, True), "new": (F32, False)}, "C", False))
json.dump(rows, open(f"{OUT}/ringcluster.json", "w"), indent=1)
