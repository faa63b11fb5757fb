#!/usr/bin/env bash
# Probe: ptxas's report on the register path over the own ring (wgmma
# serialization warnings, registers, spills).
PT_REGISTER_RING=1 MOSAIC_GPU_DUMP_PTXAS=1 python3 - <<'PY' 2>&1 | grep -i -E "config|wgmma|warn|spill|registers" | sort | uniq -c | head -40
import jax, jax.numpy as jnp, pallas_tiled
W = dict(wg_dimension="m", epi_tile_n=32, grid_tile_width=4)
for tn, tk, st in ((256, 32, 4), (128, 64, 3)):
  c = pallas_tiled.MosaicConfig(tile_m=64, tile_n=tn, tile_k=tk, max_concurrent_steps=st, **W)
  a = jnp.ones((2048, 2048), jnp.float32); b = jnp.ones((2048, 2048), jnp.float32)
  print("config", c.label, float(jax.jit(lambda a, b: pallas_tiled.matmul(a, b, c))(a, b)[0, 0]))
PY
