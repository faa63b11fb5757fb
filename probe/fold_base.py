"""Probe: the unfolded picks against jnp.matmul (not kept)."""
import json
import numpy as np, jax, jax.numpy as jnp
import pallas_tiled as pt
from pallas_tiled import timing
from pallas_tiled.triton.config import TileConfig
CASES = [((1, 8191, 2048), "16x128x128/w4/s4/sk2"), ((1, 16385, 1024), "16x128x128/w4/s4"),
         ((1, 11009, 4096), "16x128x64/w4/s5/sk4"), ((1, 4097, 4096), "16x128x64/w4/s5/sk4"),
         ((2, 12289, 4096), "16x128x64/w4/s5/sk4"), ((4, 20001, 2048), "16x128x64/w4/s5/sk4")]
rng = np.random.default_rng(0)
for (m, n, k), label in CASES:
  a = jnp.asarray(rng.standard_normal((m, k)), jnp.bfloat16)
  b = jnp.asarray(rng.standard_normal((k, n)), jnp.bfloat16)
  sets = timing.cold_operand_sets(m, n, (a, b), 200e6)
  x = timing.measure_cold(lambda x, y: jnp.matmul(x, y), sets, iterations=30).median_us
  cfg = TileConfig.from_label(label)
  t = timing.measure_cold(lambda x, y: pt.matmul(x, y, cfg), sets, iterations=30).median_us
  print(json.dumps(dict(shape=f"{m}x{n}x{k}", label=label, us=round(t, 2), xla=round(x, 2), vs_xla=round(x / t, 3))), flush=True)
