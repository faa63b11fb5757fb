"""Probe (to be removed): where the register store's time goes."""
import os, statistics, sys
import jax, jax.numpy as jnp, numpy as np
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from tests import helpers

m, n, k = map(int, sys.argv[1].split("x"))
label = sys.argv[2]
rng = np.random.default_rng(0)
a, b = helpers.random_operands(rng, m, n, k, jnp.bfloat16)
cfg = pallas_tiled.MosaicConfig(tile_m=128, tile_n=192, max_concurrent_steps=4, ping_pong=True, epi_tile_n=64)
f = jax.jit(lambda a, b: pallas_tiled.matmul(a, b, config=cfg))
f(a, b).block_until_ready()
_, runs = profiler.measure(f, iterations=20, aggregate=False)(a, b)
ks = [(nm[:24], round(statistics.median(run[i][1] for run in runs) * 1e3, 1)) for i, (nm, _) in enumerate(runs[0])]
print(f"{label:>12} {m}x{n}x{k}: {ks}")
