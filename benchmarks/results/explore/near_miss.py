"""The 16-bit near misses: ours (table entry) vs jnp.matmul, 5 alternating rounds."""
import statistics
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled as pt

def med(f, a, b):
  _, runs = profiler.measure(f, iterations=20, aggregate=False)(a, b)
  return statistics.median(sum(ms for _, ms in run) for run in runs) * 1e3

for dt in ("bfloat16", "float16"):
  for m, n, k in [(4096, 4096, 4096), (4096, 14336, 4096), (8192, 8192, 8192)]:
    ka, kb = jax.random.split(jax.random.key(m + n + 1))
    a = jax.random.normal(ka, (m, k), jnp.float32).astype(dt)
    b = jax.random.normal(kb, (k, n), jnp.float32).astype(dt)
    ours = jax.jit(lambda x, y: pt.matmul(x, y, backend="auto"))
    ref = jax.jit(jnp.matmul)
    ours(a, b).block_until_ready(); ref(a, b).block_until_ready()
    ratios, to, tj = [], [], []
    for _ in range(5):
      j = med(ref, a, b); o = med(ours, a, b)
      tj.append(j); to.append(o); ratios.append(j / o)
    print(f"{dt} {m}x{n}x{k}: ours {statistics.median(to):.1f} us, jnp {statistics.median(tj):.1f} us, ratio per round {['%.3f' % r for r in ratios]}, median {statistics.median(ratios):.3f}", flush=True)
