"""Probe (removed next commit): float32 (TF32) cooperative Mosaic picks on
the kernel's own ring (`plan.F32_RING`): "truncate" (a ragged M loaded
untiled, A truncated by wgmma as an aligned A is) and "round" (the producer
rounds each A stage to TF32 in shared memory, `tf32_wgmma.round_in_place`),
against the library's path (None) and jnp.matmul: time, and relative error
against float64 over jnp.matmul's. CUPTI medians of 3 interleaved rounds.
Usage: probe/f32_ring.py OUT BUDGET_S MxNxK..."""
import json, statistics, sys, time
import numpy as np
import jax, jax.numpy as jnp
import pallas_tiled
from pallas_tiled import cost_model, timing
from pallas_tiled.mosaic import plan as plan_lib
from pallas_tiled.mosaic.config import MosaicConfig

OUT, BUDGET = sys.argv[1], float(sys.argv[2])
START = time.time()
rows = []
for shape in sys.argv[3:]:
  if time.time() - START > BUDGET:
    break
  m, n, k = map(int, shape.split("x"))
  ka, kb = jax.random.split(jax.random.key(m + n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32)
  b = jax.random.normal(kb, (k, n), jnp.float32)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  err = lambda out: float(np.linalg.norm(np.asarray(out, np.float64) - ref)
                          / np.linalg.norm(ref))
  pick = cost_model.choose(m, n, k, jnp.float32)
  row = dict(shape=shape, pick=pick.label if pick else None)
  compiled = {"xla": jax.jit(jnp.matmul).lower(a, b).compile()}
  if isinstance(pick, MosaicConfig):
    for mode in (None, "truncate", "registers"):
      plan_lib.F32_RING = mode
      jax.clear_caches()
      plan, _, _ = plan_lib.traced_plan(m, n, k, pick, jnp.float32,
                                        jnp.float32)
      if mode and not plan.f32_ring or (mode == "registers" and not (plan.a_k_fragments and plan.a_in_flight)):
        row.setdefault("skipped", []).append(f"{mode}: not on the ring")
        continue
      try:
        compiled[str(mode)] = jax.jit(
            lambda a, b: pallas_tiled.matmul(a, b, pick)).lower(a, b).compile()
      except Exception as e:  # pylint: disable=broad-except
        row.setdefault("errors", []).append(f"{mode}: {e!s:.300}")
    plan_lib.F32_RING = None
  for name, f in compiled.items():
    row[f"{name}_err"] = err(f(a, b))
  t = {name: [] for name in compiled}
  for r in range(3):
    names = list(compiled)[r % len(compiled):] + list(compiled)[
        :r % len(compiled)]
    for name in names:
      _, totals, _ = timing._cupti_times(compiled[name], (a, b), 10)
      t[name].append(statistics.median(totals) * 1e3)
  for name, ts in t.items():
    row[f"{name}_us"] = round(statistics.median(ts), 2)
  xla_us, xla_err = row["xla_us"], row["xla_err"]
  print(shape, row["pick"], "|", "; ".join(
      f"{name} {row[name + '_us']}us {xla_us / row[name + '_us']:.3f}x"
      f" err {row[name + '_err'] / xla_err:.2f}x"
      for name in compiled if name != "xla"), "| xla", xla_us,
        row.get("skipped", ""), row.get("errors", ""),
        f"({time.time() - START:.0f} s)", flush=True)
  rows.append(row)
  json.dump(rows, open(f"{OUT}/f32_ring.json", "w"), indent=1)
