"""Probe (removed next commit): TF32's K-major register path
(`plan.reads_k_major_a_in_registers`) for consumers 128 wide and 128 tall,
against the library (A through shared memory, truncated; a ragged A
copied). CUPTI medians of 3 interleaved rounds, errors against float64 over
jnp.matmul's. Usage: probe/k_major_width.py OUT BUDGET_S."""
import dataclasses, json, statistics, sys, time
import numpy as np
import jax, jax.numpy as jnp
import pallas_tiled
from pallas_tiled import timing
from pallas_tiled.mosaic import config as mosaic_config, plan as plan_lib

OUT, BUDGET = sys.argv[1], float(sys.argv[2])
START = time.time()
TALL = pallas_tiled.MosaicConfig(tile_m=128, tile_n=128, tile_k=32,
                                 wg_dimension="m", epi_tile_n=32,
                                 lowering="lane")
NARROW = dataclasses.replace(TALL, tile_m=64)
CASES = [(TALL, s) for s in ("2500x3072x2048", "1001x2304x2048",
                             "4100x1536x1280", "2048x2048x2048",
                             "8192x4096x4096")] + [
         (NARROW, s) for s in ("788x2304x768",
                               "3001x2048x1024", "2048x2048x2048", "1500x2304x1280")]
MODES = {"library": (192, 64), "registers": (128, 128)}
rows = []
for config, shape in CASES:
  if time.time() - START > BUDGET:
    break
  m, n, k = map(int, shape.split("x"))
  config = mosaic_config.fit_mosaic_config(config, jnp.float32, jnp.float32)
  ka, kb = jax.random.split(jax.random.key(m + n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32)
  b = jax.random.normal(kb, (k, n), jnp.float32)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  err = lambda out: float(np.linalg.norm(np.asarray(out, np.float64) - ref)
                          / np.linalg.norm(ref))
  row = dict(shape=shape, config=config.label)
  compiled = {"xla": jax.jit(jnp.matmul).lower(a, b).compile()}
  for mode, (min_n, max_m) in MODES.items():
    plan_lib._K_MAJOR_REGISTERS_MIN_TILE_N = min_n
    plan_lib._K_MAJOR_REGISTERS_MAX_TILE_M = max_m
    jax.clear_caches()
    plan, _, _ = plan_lib.traced_plan(m, n, k, config, jnp.float32,
                                      jnp.float32)
    row[f"{mode}_plan"] = (plan.a_k_in_registers, plan.a_rows_untiled,
                           plan.transposed_out)
    if mode != "library" and not plan.a_k_in_registers:
      continue
    try:
      compiled[mode] = jax.jit(
          lambda a, b: pallas_tiled.matmul(a, b, config)).lower(a, b).compile()
    except Exception as e:  # pylint: disable=broad-except
      row[f"{mode}_error"] = f"{e!s:.300}"
  plan_lib._K_MAJOR_REGISTERS_MIN_TILE_N, plan_lib._K_MAJOR_REGISTERS_MAX_TILE_M = 192, 64
  for name, f in compiled.items():
    row[f"{name}_err"] = err(f(a, b))
  t = {name: [] for name in compiled}
  for r in range(3):
    names = list(compiled)[r % len(compiled):] + list(compiled)[:r % len(compiled)]
    for name in names:
      _, totals, _ = timing._cupti_times(compiled[name], (a, b), 10)
      t[name].append(statistics.median(totals) * 1e3)
  for name, ts in t.items():
    row[f"{name}_us"] = round(statistics.median(ts), 2)
  xla_us, xla_err = row["xla_us"], row["xla_err"]
  print(shape, config.label, "|", "; ".join(
      f"{name} {row[name + '_us']}us {xla_us / row[name + '_us']:.3f}x"
      f" err {row[name + '_err'] / xla_err:.2f}x {row.get(name + '_plan', '')}"
      for name in compiled if name != "xla"), "| xla", xla_us,
        {kk: v for kk, v in row.items() if kk.endswith("_error")},
        f"({time.time() - START:.0f} s)", flush=True)
  rows.append(row)
  json.dump(rows, open(f"{OUT}/k_major_width.json", "w"), indent=1)
