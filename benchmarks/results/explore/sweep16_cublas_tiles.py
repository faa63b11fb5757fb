"""16-bit near misses: CTA tile shapes / clusters / orders, interleaved rounds."""
import statistics, sys, time
import jax, jax.numpy as jnp, numpy as np
from jax.experimental.mosaic.gpu import profiler
from pallas_tiled import matmul, MosaicConfig

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
base = dict(tile_k=64, max_concurrent_steps=4, epi_tile_m=64, epi_tile_n=64)
def C(**kw):
  return MosaicConfig(**{**base, **kw})
configs = {
  "table": None,
  "64x256 ws-m m4": C(tile_m=64, tile_n=256, wg_dimension="m", grid_minor_dim="m"),
  "64x256 ws-m n8 cl-m": C(tile_m=64, tile_n=256, wg_dimension="m", grid_tile_width=8, cluster_dimension="m"),
  "64x256 ws-m n4 cl-n": C(tile_m=64, tile_n=256, wg_dimension="m", cluster_dimension="n"),
  "128x128 ws-n n4": C(),
  "128x128 ws-n n4 cl-m": C(cluster_dimension="m"),
  "256x128 n4": C(wg_dimension="m"),
  "256x128 m4": C(wg_dimension="m", grid_minor_dim="m"),
  "256x128 n8": C(wg_dimension="m", grid_tile_width=8),
  "256x128 n4 cl-n": C(wg_dimension="m", cluster_dimension="n"),
  "256x128 m4 cl-n": C(wg_dimension="m", grid_minor_dim="m", cluster_dimension="n"),
  "256x128 n4 cl-m": C(wg_dimension="m", cluster_dimension="m"),
  "256x128 s3 epi64x128": C(wg_dimension="m", max_concurrent_steps=3, epi_tile_n=128),
}
shapes = [(8192, 8192, 8192), (4096, 14336, 4096), (4096, 4096, 14336)]
dtypes = sys.argv[2].split(",") if len(sys.argv) > 2 else ["bfloat16", "float16"]

def time_us(f, a, b):
  _, runs = profiler.measure(f, iterations=20, aggregate=False)(a, b)
  return statistics.median(sum(ms for _, ms in run) for run in runs) * 1e3

for dt in dtypes:
  for (m, n, k) in shapes:
    ka, kb = jax.random.split(jax.random.key(m + n + k))
    a = jax.random.normal(ka, (m, k), dt); b = jax.random.normal(kb, (k, n), dt)
    fns = {"jnp": jax.jit(jnp.matmul)}
    for name, cfg in configs.items():
      fns[name] = jax.jit(lambda a, b, cfg=cfg: matmul(a, b, cfg, backend="mosaic"))
    ref = np.asarray(fns["jnp"](a, b), np.float32)
    ok = {}
    for name, f in fns.items():
      t0 = time.time()
      try:
        out = np.asarray(f(a, b), np.float32)
        err = np.linalg.norm(out - ref) / np.linalg.norm(ref)
        ok[name] = err < 1e-2
        if not ok[name]:
          print(f"  {name}: WRONG rel err {err:.2e}", flush=True)
      except Exception as e:  # noqa
        ok[name] = False
        print(f"  {name}: FAILED {type(e).__name__}: {str(e)[:200]}", flush=True)
    times = {name: [] for name in fns if ok[name]}
    for r in range(ROUNDS):
      for name in times:
        times[name].append(time_us(fns[name], a, b))
    ref_t = statistics.median(times["jnp"])
    print(f"== {dt} {m}x{n}x{k}: jnp {ref_t:.1f} us (rounds {[round(t,1) for t in times['jnp']]})", flush=True)
    for name, ts in sorted(times.items(), key=lambda kv: statistics.median(kv[1])):
      med = statistics.median(ts)
      print(f"  {name:24s} {med:8.1f} us  {ref_t/med:6.3f}x  rounds {[round(t,1) for t in ts]}", flush=True)
