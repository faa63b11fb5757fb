"""Probe: float32 vector tiles that sum each K-phase at once (a 1-D running
sum per column) instead of keeping a (block_k, block_n) tile of sums until
the end. The H200's float32 M = 1 products stream b at 0.87-0.90x
jnp.matmul's rate, and neither configs (667a5a1) nor cache hints (df9ca66)
close it; stages do not matter (s2 = s4 = s6), so if bytes in flight are the
limit, registers are: the tile of sums holds 64 of them per thread. Each
variant in its own process, in order then reversed; shapes in neither split
but 1x256000x3584; b larger than L2. CUPTI medians, errors against float64."""
import json, statistics, subprocess, sys, time
OUT = sys.argv[1]
SHAPES = [(1, 256000, 3584), (1, 100000, 4096), (1, 11008, 4096),
          (1, 32000, 5120), (1, 2560, 10240)]
FIELDS = [(64, 64, 2, 4, 8), (64, 64, 4, 3, 4), (64, 64, 4, 3, 16),
          (128, 64, 4, 4, 8), (128, 64, 4, 3, 16), (256, 64, 4, 3, 8),
          (256, 64, 8, 3, 8), (128, 128, 4, 3, 8), (512, 32, 8, 3, 8),
          (256, 32, 4, 4, 8)]
VARIANTS = ("2d", "1d")

if len(sys.argv) == 2:
  start, rows = time.time(), []
  for r, v in enumerate(VARIANTS + VARIANTS[::-1]):
    out = subprocess.run([sys.executable, __file__, OUT, v],
                         capture_output=True, text=True)
    if out.returncode:
      print(v, "failed:", out.stderr[-800:], flush=True)
    rows += [json.loads(l) for l in out.stdout.splitlines() if l.startswith("{")]
    print(v, "%.0f s" % (time.time() - start), flush=True)
    json.dump(rows, open(f"{OUT}/vector_sums.json", "w"), indent=1)
  for m, n, k in SHAPES:
    s = f"{m}x{n}x{k}"
    xla = statistics.median(x["xla_us"] for x in rows if x["shape"] == s)
    line = []
    for c in sorted({x["config"] for x in rows if x["shape"] == s}):
      line.append(c + " " + " ".join("%s %.3f" % (v, xla / statistics.median(
          [x["us"] for x in rows if x["shape"] == s and x["config"] == c
           and x["variant"] == v and "us" in x] or [float("nan")])) for v in VARIANTS))
    print(s, "xla %.1f\n  " % xla + "\n  ".join(line), flush=True)
  sys.exit()

V = sys.argv[2]
import numpy as np
import jax, jax.numpy as jnp
import pallas_tiled
from pallas_tiled import timing
from pallas_tiled.triton import heuristics, kernel

if V == "1d":
  def sums(block_m, block_n, block_k, *, transpose_a, transpose_b):
    if block_m == 1:
      return ((block_n, 1), 1) if transpose_b else ((1, block_n), 0)
    return ((1, block_m), 0) if transpose_a else ((block_m, 1), 1)
  def products(a, b, *, a_is_vector, k_axis, acc_dtype):
    vector, tile = (a, b) if a_is_vector else (b, a)
    shape = [1, 1]
    shape[k_axis] = vector.size
    return (vector.reshape(shape).astype(acc_dtype) * tile.astype(acc_dtype)
            ).sum(axis=k_axis, keepdims=True)
  kernel._vector_sums, kernel._vector_products = sums, products

for m, n, k in SHAPES:
  ka, kb = jax.random.split(jax.random.key(n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32)
  b = jax.random.normal(kb, (k, n), jnp.float32)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  xla_us = timing.measure(jnp.matmul, a, b, iterations=10).median_us
  for f in FIELDS:
    c = heuristics.vector_tile_config(m, n, k, *f)
    row = dict(shape=f"{m}x{n}x{k}", variant=V, xla_us=xla_us,
               config="%dx%d/w%d/s%d/sk%d" % f)
    try:
      g = jax.jit(lambda a, b, c=c: pallas_tiled.matmul(a, b, c))
      out = np.asarray(g(a, b), np.float64)
      row["err"] = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
      row["us"] = timing.measure(g, a, b, iterations=10).median_us
    except Exception as e:
      row["error"] = (type(e).__name__ + ": " + str(e))[:300]
    print(json.dumps(row), flush=True)
