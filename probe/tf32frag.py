"""Probe: TF32's register path (A^T from registers, tf32_wgmma), its
fragment loads now free of bank conflicts, against the plain K-major path
(b stored (N, K)) on the same config. Shapes in neither wild split. CUPTI
medians beside jnp.matmul."""
import json, statistics, sys
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
from pallas_tiled import autodiff, cost_model, kernel as kernel_lib
from pallas_tiled.mosaic import kernel as mosaic_kernel

OUT = sys.argv[1]


def time_us(f, *args):
  f = jax.jit(f)
  for _ in range(3):
    jax.block_until_ready(f(*args))
  _, runs = profiler.measure(f, iterations=20, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in r) for r in runs) * 1e3


kind, sms = jax.devices()[0].device_kind, jax.devices()[0].core_count
rows = []
for (m, n, k) in [(5120, 4096, 4096), (2048, 12288, 4096), (8192, 8192, 4096),
                  (3000, 3000, 3000), (1024, 6144, 3072)]:
  a = jax.random.normal(jax.random.key(1), (m, k), jnp.float32)
  b = jax.random.normal(jax.random.key(2), (k, n), jnp.float32)
  bt = jnp.asarray(b.T)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  pick = cost_model.choose_on(kind, sms, m, n, k, jnp.float32)
  def ours(cfg, tb):
    op = kernel_lib.Op(kernel=mosaic_kernel.KERNEL, config=cfg, precision=None,
                       out_dtype=jnp.float32, interpret=False, transpose_b=tb)
    return lambda a, b: autodiff.product(a, b, op)
  cases = [("jnp", jnp.matmul, b), ("jnp_nt", lambda a, bt: a @ bt.T, bt),
           ("registers", ours(pick, False), b), ("kmajor", ours(pick, True), bt)]
  for name, f, bb in cases:
    row = dict(shape=f"{m}x{n}x{k}", case=name, config=pick.label)
    try:
      out = np.asarray(jax.jit(f)(a, bb), np.float64)
      row["err"] = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
      row["us"] = round(time_us(f, a, bb), 2)
      row["tflops"] = round(2 * m * n * k / row["us"] / 1e6, 1)
    except Exception as e:
      row["error"] = str(e).splitlines()[0][:200]
    rows.append(row)
    print(json.dumps(row), flush=True)
json.dump(rows, open(f"{OUT}/tf32frag.json", "w"), indent=1)
