"""Clocks and power while ours and jnp.matmul run back to back (bf16 8192^3,
4096x14336x4096): nvidia-smi sampled every 100 ms in the background; each
phase runs ~4 s of calls, then its samples are summarized."""
import subprocess, time, statistics
import jax, jax.numpy as jnp
import pallas_tiled as pt
log = open("/tmp/smi.csv", "w")
smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,power.limit,temperature.gpu,clocks_throttle_reasons.active",
                        "--format=csv,noheader,nounits", "-lms", "100"], stdout=log)
time.sleep(1)
phases = []
for (m, n, k) in [(8192, 8192, 8192), (4096, 14336, 4096)]:
  ka, kb = jax.random.split(jax.random.key(1))
  a = jax.random.normal(ka, (m, k), jnp.float32).astype(jnp.bfloat16)
  b = jax.random.normal(kb, (k, n), jnp.float32).astype(jnp.bfloat16)
  fns = {"ours": jax.jit(lambda x, y: pt.matmul(x, y, backend="auto")), "jnp": jax.jit(jnp.matmul)}
  for f in fns.values(): f(a, b).block_until_ready()
  for rep in range(2):
    for name, f in fns.items():
      t0 = time.time(); calls = 0
      while time.time() - t0 < 4:
        for _ in range(20): out = f(a, b)
        out.block_until_ready(); calls += 20
      t1 = time.time()
      phases.append((f"{m}x{n}x{k} {name} round {rep}", t0 + 1.0, t1, (t1 - t0) / calls * 1e6))
time.sleep(0.5); smi.terminate(); log.close()
import datetime
rows = []
for line in open("/tmp/smi.csv"):
  p = [x.strip() for x in line.split(",")]
  try:
    ts = datetime.datetime.strptime(p[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
    rows.append((ts, float(p[1]), float(p[2]), float(p[3]), float(p[4]), p[5]))
  except Exception:
    pass
# nvidia-smi prints local time; align by offset between its first sample and our clock is not needed if TZ=UTC.
for name, t0, t1, us in phases:
  s = [r for r in rows if t0 <= r[0] <= t1]
  if not s:
    print(name, "no samples"); continue
  print(f"{name}: {us:.1f} us/call (wall, back to back), SM clock median {statistics.median(r[1] for r in s):.0f} MHz, power median {statistics.median(r[2] for r in s):.0f} W of limit {s[0][3]:.0f} W, temp {statistics.median(r[4] for r in s):.0f} C, throttle reasons {sorted(set(r[5] for r in s))}, {len(s)} samples", flush=True)
