"""Fused in-kernel transpose of B for TF32 vs the separate transpose pass."""
import statistics, sys
import jax, jax.numpy as jnp, numpy as np
from jax.experimental.mosaic.gpu import profiler
from pallas_tiled import matmul, MosaicConfig, mosaic

ROUNDS = 3
shapes = [(2048, 2048, 2048), (4096, 4096, 14336), (4096, 14336, 4096), (4096, 4096, 4096), (8192, 8192, 8192)]
if len(sys.argv) > 1:
  shapes = shapes[:int(sys.argv[1])]
fused_cfgs = {
  "fused 128x128/s3/ws-n": MosaicConfig(tile_m=128, tile_n=128, tile_k=32, max_concurrent_steps=3, wg_dimension="n", epi_tile_n=32),
  "fused 128x128/s2/ws-n": MosaicConfig(tile_m=128, tile_n=128, tile_k=32, max_concurrent_steps=2, wg_dimension="n", epi_tile_n=32),
  "fused 128x128/s3/ws-n n8": MosaicConfig(tile_m=128, tile_n=128, tile_k=32, max_concurrent_steps=3, wg_dimension="n", epi_tile_n=32, grid_tile_width=8),
}
unfused_cfgs = {
  "table (transpose pass)": None,
  "unfused 128x128/s3/ws-n": MosaicConfig(tile_m=128, tile_n=128, tile_k=32, max_concurrent_steps=3, wg_dimension="n", epi_tile_n=32),
}

def measure(f, a, b):
  _, runs = profiler.measure(f, iterations=10, aggregate=False)(a, b)
  total = statistics.median(sum(ms for _, ms in run) for run in runs) * 1e3
  kern = [(name, round(statistics.median(r[i][1] for r in runs) * 1e3, 1)) for i, (name, _) in enumerate(runs[0])]
  return total, kern

for (m, n, k) in shapes:
  ka, kb = jax.random.split(jax.random.key(m * 3 + n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32); b = jax.random.normal(kb, (k, n), jnp.float32)
  fns = {"jnp": jax.jit(jnp.matmul)}
  mosaic.FUSED_T = ""
  for name, cfg in unfused_cfgs.items():
    fns[name] = jax.jit(lambda a, b, cfg=cfg: matmul(a, b, cfg, backend="mosaic"))
    fns[name](a, b).block_until_ready()
  mosaic.FUSED_T = "1"
  for name, cfg in fused_cfgs.items():
    fns[name] = jax.jit(lambda a, b, cfg=cfg: matmul(a, b, cfg, backend="mosaic"))
    try:
      fns[name](a, b).block_until_ready()
    except Exception as e:
      print(f"  {name}: FAILED {type(e).__name__}: {str(e)[:300]}", flush=True)
      del fns[name]
  mosaic.FUSED_T = ""
  ref = np.asarray(jnp.matmul(a, b, precision="highest"))
  good = {}
  for name, f in fns.items():
    out = np.asarray(f(a, b))
    err = np.linalg.norm(out - ref) / np.linalg.norm(ref)
    good[name] = err < 5e-3
    print(f"  {name}: rel err vs HIGHEST {err:.2e}{'' if good[name] else '  WRONG'}", flush=True)
  times = {name: [] for name in fns if good[name]}
  kerns = {}
  for r in range(ROUNDS):
    for name in times:
      t, kern = measure(fns[name], a, b)
      times[name].append(t); kerns[name] = kern
  ref_t = statistics.median(times["jnp"])
  print(f"== float32 {m}x{n}x{k}: jnp {ref_t:.1f} us", flush=True)
  for name, ts in sorted(times.items(), key=lambda kv: statistics.median(kv[1])):
    med = statistics.median(ts)
    print(f"  {name:28s} {med:8.1f} us {ref_t/med:6.3f}x rounds {[round(t,1) for t in ts]} kernels {kerns[name]}", flush=True)
