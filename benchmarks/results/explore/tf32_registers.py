"""TF32 with A in registers (C^T = B^T A^T, B read as stored): correctness and CUPTI times against jnp.matmul. Usage: tf32_registers.py MODE [N_SHAPES]. During the prototype MODE "base" and "regs" ran in separate processes with PT_TF32_REGS=0/1 read at trace time; the final code has no switch."""
import os, statistics, sys
import jax, jax.numpy as jnp, numpy as np
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled as pt

ROUNDS = int(os.environ.get("ROUNDS", "3"))
check_shapes = [(128, 256, 32), (1000, 1000, 1000), (127, 129, 100), (256, 512, 4097), (3, 300, 70)]
time_shapes = [(2048, 2048, 2048), (4096, 4096, 4096), (4096, 4096, 14336), (4096, 14336, 4096), (8192, 8192, 8192)]
MODES = sys.argv[1].split(",")
if len(sys.argv) > 2:
  time_shapes = time_shapes[:int(sys.argv[2])]

def build(mode):
  return jax.jit(lambda a, b: pt.matmul(a, b, backend="mosaic"))

def inputs(m, n, k, seed):
  ka, kb = jax.random.split(jax.random.key(seed))
  return (jax.random.normal(ka, (m, k), jnp.float32), jax.random.normal(kb, (k, n), jnp.float32))

def rel_err(out, a, b):
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  out = np.asarray(out, np.float64)
  return np.linalg.norm(out - ref) / np.linalg.norm(ref), np.isfinite(out).all()

print("== correctness (relative error vs float64; TF32 tolerance 2e-3)", flush=True)
for (m, n, k) in check_shapes:
  a, b = inputs(m, n, k, m + 7 * n + 13 * k)
  for mode in MODES:
    f = build(mode)
    try:
      err, finite = rel_err(f(a, b), a, b)
      print(f"  {mode} {m}x{n}x{k}: {err:.2e} {'ok' if finite and err < 2e-3 else 'WRONG'}", flush=True)
    except Exception as e:
      print(f"  {mode} {m}x{n}x{k}: FAILED {type(e).__name__}: {str(e)[:1500]}", flush=True)

def measure(f, a, b):
  _, runs = profiler.measure(f, iterations=10, aggregate=False)(a, b)
  total = statistics.median(sum(ms for _, ms in run) for run in runs) * 1e3
  kern = [(name[:40], round(statistics.median(r[i][1] for r in runs) * 1e3, 1)) for i, (name, _) in enumerate(runs[0])]
  return total, kern

for (m, n, k) in time_shapes:
  a, b = inputs(m, n, k, m * 3 + n + k)
  fns = {"jnp": jax.jit(jnp.matmul)}
  for mode in MODES:
    fns[mode] = build(mode)
    try:
      err, finite = rel_err(fns[mode](a, b), a, b) if m * n * k <= 4096**3 else (float("nan"), True)
      print(f"  {mode} {m}x{n}x{k}: rel err {err:.2e}", flush=True)
    except Exception as e:
      print(f"  {mode} {m}x{n}x{k}: FAILED {type(e).__name__}: {str(e)[:800]}", flush=True)
      del fns[mode]
  times = {name: [] for name in fns}; kerns = {}
  for _ in range(ROUNDS):
    for name, f in fns.items():
      t, kern = measure(f, a, b); times[name].append(t); kerns[name] = kern
  ref_t = statistics.median(times["jnp"])
  print(f"== float32 {m}x{n}x{k}: jnp {ref_t:.1f} us", flush=True)
  for name, ts in times.items():
    med = statistics.median(ts)
    print(f"  {name:6s} {med:8.1f} us {ref_t/med:6.3f}x rounds {[round(t,1) for t in ts]} kernels {kerns[name]}", flush=True)
