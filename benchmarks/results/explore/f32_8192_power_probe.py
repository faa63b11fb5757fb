"""float32 (TF32) 8192^3: why our kernel's time spreads 9% between rounds
while cuBLAS's stays within 0.3% (step 43). Table entry (cluster along M),
the same without the cluster, and jnp.matmul, 6 rounds in rotated order;
each round's 20 CUPTI times (min / median / max), and nvidia-smi's SM clock,
power and throttle reasons sampled every 50 ms during each measurement."""
import dataclasses, datetime, statistics, subprocess, time
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled as pt
from pallas_tiled import config as cfg

smi_log = open("/tmp/smi.csv", "w")
smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active",
                        "--format=csv,noheader,nounits", "-lms", "50"], stdout=smi_log)
m = n = k = 8192
ka, kb = jax.random.split(jax.random.key(7))
a = jax.random.normal(ka, (m, k), jnp.float32)
b = jax.random.normal(kb, (k, n), jnp.float32)
table = cfg.MosaicConfig(tile_m=64, tile_n=256, tile_k=32, max_concurrent_steps=4, wg_dimension="m",
                         grid_minor_dim="n", grid_tile_width=8, cluster_dimension="m", epi_tile_m=64, epi_tile_n=32)
fns = {
    "table (cluster-m)": jax.jit(lambda x, y: pt.matmul(x, y, backend="mosaic", config=table)),
    "no cluster": jax.jit(lambda x, y: pt.matmul(x, y, backend="mosaic", config=dataclasses.replace(table, cluster_dimension="none"))),
    "no cluster snake-m4": jax.jit(lambda x, y: pt.matmul(x, y, backend="mosaic", config=dataclasses.replace(table, cluster_dimension="none", grid_minor_dim="m", grid_tile_width=4))),
    "jnp.matmul": jax.jit(jnp.matmul),
}
ref = jnp.matmul(a, b, precision="highest")
for name, f in fns.items():
  out = f(a, b)
  err = float(jnp.linalg.norm(out - ref) / jnp.linalg.norm(ref))
  print(f"{name}: rel err {err:.2e}", flush=True)
windows = []
names = list(fns)
for r in range(6):
  order = names[r % len(names):] + names[:r % len(names)]
  for name in order:
    f = fns[name]
    for _ in range(3): f(a, b).block_until_ready()
    t0 = time.time()
    _, runs = profiler.measure(f, iterations=20, aggregate=False)(a, b)
    t1 = time.time()
    us = sorted(sum(ms for _, ms in run) * 1e3 for run in runs)
    windows.append((r, name, t0, t1, us))
time.sleep(0.3); smi.terminate(); smi_log.close()
samples = []
for line in open("/tmp/smi.csv"):
  p = [x.strip() for x in line.split(",")]
  try:
    ts = datetime.datetime.strptime(p[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
    samples.append((ts, float(p[1]), float(p[2]), p[3]))
  except Exception:
    pass
print("round | case | CUPTI us min / median / max | SM MHz | W | throttle")
per = {}
for r, name, t0, t1, us in windows:
  s = [x for x in samples if t0 - 0.05 <= x[0] <= t1 + 0.05]
  clk = f"{min(x[1] for x in s):.0f}-{max(x[1] for x in s):.0f}" if s else "-"
  pw = f"{max(x[2] for x in s):.0f}" if s else "-"
  thr = ",".join(sorted({x[3][-2:] for x in s})) if s else "-"
  med = statistics.median(us)
  per.setdefault(name, []).append(med)
  print(f"{r} | {name:20s} | {us[0]:7.1f} / {med:7.1f} / {us[-1]:7.1f} | {clk} | {pw} | {thr}", flush=True)
for name, v in per.items():
  print(f"{name:20s}: round medians {min(v):.1f}-{max(v):.1f}, median {statistics.median(v):.1f} us")
