"""Probe (not kept): the Mosaic epilogue's shared-memory slots per consumer,
2 (today) against 3 and 4, on the cost model's bfloat16 picks of wild-tune
shapes; CUPTI medians, interleaved rounds, jnp.matmul in the same run."""
import dataclasses, statistics, sys
import jax, jax.numpy as jnp, numpy as np
from pallas_tiled import api, cost_model
from pallas_tiled.mosaic import config as mcfg
from pallas_tiled import timing

SHAPES = sys.argv[1].split(",")
dtype = jnp.bfloat16
print(jax.devices()[0].device_kind)
for s in SHAPES:
  m, n, k = map(int, s.split("x"))
  ka, kb = jax.random.split(jax.random.key(m + n + k))
  a = jax.random.normal(ka, (m, k), dtype); b = jax.random.normal(kb, (k, n), dtype)
  pick = cost_model.choose(m, n, k, dtype)
  if pick.backend != "mosaic":
    print(s, "pick is", pick.label, "(skipped)"); continue
  fns = {"xla": jnp.matmul}
  ref = jnp.matmul(a.astype(jnp.float32), b.astype(jnp.float32), precision="highest")
  for slots in (2, 3, 4):
    c = dataclasses.replace(pick, epi_slots=slots)
    if not mcfg._fits(c, dtype, dtype):
      continue
    fns[f"e{slots}"] = lambda a, b, c=c: api.matmul(a, b, c)
  for name, f in fns.items():
    out = jax.jit(f)(a, b)
    err = float(jnp.linalg.norm(out.astype(jnp.float32) - ref) / jnp.linalg.norm(ref))
    assert err < 1e-2, (s, name, err)
  times = {name: [] for name in fns}
  for _ in range(3):
    for name, f in fns.items():
      times[name].append(timing.measure(f, a, b, iterations=20).median_us)
  med = {name: statistics.median(t) for name, t in times.items()}
  print(s, pick.label, "  ".join(f"{name} {us:.1f}us ({med['xla'] / us:.3f}x)" for name, us in med.items()), flush=True)
