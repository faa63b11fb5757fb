"""Probe (not kept): memory-bound outputs of 128-256 rows whose 256-wide
CTA tiles leave SMs idle in their only wave: the pick against the same
config with tile_n widths that fill the SMs better; CUPTI medians,
interleaved rounds, jnp.matmul in the same run."""
import dataclasses, math, statistics, sys
import jax, jax.numpy as jnp
from pallas_tiled import api, cost_model, timing
from pallas_tiled.mosaic import config as mcfg

dtype = jnp.bfloat16
print(jax.devices()[0].device_kind)
for s in sys.argv[1].split(","):
  m, n, k = map(int, s.split("x"))
  ka, kb = jax.random.split(jax.random.key(m + n + k))
  a = jax.random.normal(ka, (m, k), dtype); b = jax.random.normal(kb, (k, n), dtype)
  pick = cost_model.choose(m, n, k, dtype)
  fns = {"xla": jnp.matmul, "pick": lambda a, b: api.matmul(a, b, pick)}
  if pick.backend == "mosaic":
    for w in (160, 176, 192, 208, 216, 224, 232, 240):
      c = dataclasses.replace(pick, tile_n=w, epi_tile_n=math.gcd(w, 64))
      try:
        mcfg.check_mosaic_config(c, dtype, dtype)
      except Exception as e:
        print(" skip", w, str(e)[:80]); continue
      fns[f"n{w}"] = lambda a, b, c=c: api.matmul(a, b, c)
  ref = jnp.matmul(a.astype(jnp.float32), b.astype(jnp.float32), precision="highest")
  ok = {}
  for name, f in fns.items():
    try:
      out = jax.jit(f)(a, b)
      err = float(jnp.linalg.norm(out.astype(jnp.float32) - ref) / jnp.linalg.norm(ref))
      ok[name] = f if err < 1e-2 else print(" wrong", name, err)
    except Exception as e:
      print(" error", name, type(e).__name__, str(e).splitlines()[0][:120])
  ok = {k_: v for k_, v in ok.items() if v is not None}
  times = {name: [] for name in ok}
  for _ in range(3):
    for name, f in ok.items():
      times[name].append(timing.measure(f, a, b, iterations=20).median_us)
  med = {name: statistics.median(t) for name, t in times.items()}
  print(s, pick.label, "  ".join(f"{name} {us:.1f} ({med['xla'] / us:.3f}x)" for name, us in med.items()), flush=True)
