"""Probe: TF32's register path on the kernel's own ring, one wgmma group in
flight (stage released one K-step late), against the shipped register path
(jax's warp-specialized pipeline, each K-step waited for) and jnp.matmul.
CUPTI medians, interleaved rounds; results checked against float64 and
against each other bitwise."""
import dataclasses, json, os, statistics, sys
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import cost_model
from pallas_tiled.mosaic import plan as plan_lib

OUT = sys.argv[1]
kind, sms = jax.devices()[0].device_kind, jax.devices()[0].core_count


def compiled(f, a, b, ring, wait=1):
  plan_lib.REGISTER_RING = ring
  os.environ["PT_WAIT"], os.environ["PT_POST"] = str(wait), "0"
  jax.clear_caches()
  return jax.jit(f).lower(a, b).compile()


def time_us(f, *args):
  for _ in range(3):
    jax.block_until_ready(f(*args))
  _, runs = profiler.measure(f, iterations=20, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3


W = dict(wg_dimension="m", epi_tile_n=32, grid_tile_width=4)
C256 = pallas_tiled.MosaicConfig(tile_m=64, tile_n=256, tile_k=32, **W)
C192 = pallas_tiled.MosaicConfig(tile_m=64, tile_n=192, tile_k=32, **W)
C128 = pallas_tiled.MosaicConfig(tile_m=64, tile_n=128, tile_k=32, **W)
C128K = pallas_tiled.MosaicConfig(tile_m=64, tile_n=128, tile_k=64,
                                  max_concurrent_steps=3, **W)
CASES = [  # (m, n, k, configs); None: the model's pick.
    (1000, 3000, 700, [C256]), (4097, 1025, 515, [C128K]),
    (4096, 4096, 4096, [C256]), (2048, 12288, 4096, [None]),
    (1024, 6144, 3072, [C128, C128K]), (896, 7168, 2048, [C128K]),
    (8192, 8192, 4096, [C256]), (1024, 4608, 3584, [None]),
    (6144, 3584, 14336, [None]),
]
rows = []
for m, n, k, configs in CASES:
  a = jax.random.normal(jax.random.key(1), (m, k), jnp.float32)
  b = jax.random.normal(jax.random.key(2), (k, n), jnp.float32)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  xla_f = jax.jit(jnp.matmul)
  xla_err = float(np.linalg.norm(np.asarray(xla_f(a, b), np.float64) - ref)
                  / np.linalg.norm(ref))
  for c in configs:
    if c is None:
      c = cost_model.choose_on(kind, sms, m, n, k, jnp.float32)
    row = dict(shape=f"{m}x{n}x{k}", config=getattr(c, "label", str(c)),
               xla_err=xla_err)
    try:
      f = lambda a, b, c=c: pallas_tiled.matmul(a, b, c)
      fs = {"old": compiled(f, a, b, False),
            "ring0": compiled(f, a, b, True, wait=0),
            "ring": compiled(f, a, b, True)}
      outs = {v: np.asarray(g(a, b)) for v, g in fs.items()}
      for v, out in outs.items():
        row[f"{v}_err"] = float(np.linalg.norm(out.astype(np.float64) - ref)
                                / np.linalg.norm(ref))
      row["bitwise"] = [bool(np.array_equal(outs["old"], outs[v]))
                        for v in ("ring0", "ring")]
      t = {v: [] for v in (*fs, "xla")}
      for _ in range(3):
        for v, g in (*fs.items(), ("xla", xla_f)):
          t[v].append(time_us(g, a, b))
      for v, ts in t.items():
        row[f"{v}_us"] = round(statistics.median(ts), 2)
      row["old_x"] = round(row["xla_us"] / row["old_us"], 3)
      row["ring_x"] = round(row["xla_us"] / row["ring_us"], 3)
      row["ring0_x"] = round(row["xla_us"] / row["ring0_us"], 3)
    except Exception as e:
      row["error"] = (type(e).__name__ + ": " + str(e))[:600]
    rows.append(row)
    print(json.dumps(row), flush=True)
json.dump(rows, open(f"{OUT}/tf32ring.json", "w"), indent=1)
