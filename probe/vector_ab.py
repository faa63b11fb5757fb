"""Probe: the 1-D running sums of e9967ff's vector tiles against the 2-D tile
of sums before it (04c1060^), on small decode products where wild-check's
re-timed rows moved (float32 1x1280x5120 0.74x, float8 1x1280x5120 0.95x ->
0.78x, one run each) and the wide strip on 1x30720x3840's neighbours (0.89x
-> 0.83x); shapes in neither split, operands cycled past L2, each variant
in its own process, in order then reversed. CUPTI medians."""
import inspect, json, statistics, subprocess, sys, time
OUT = sys.argv[1]
CASES = [("float32", 1, 1536, 5120, (64, 64, 2, 4, 8)),
         ("float32", 1, 2304, 5376, (64, 64, 2, 4, 8)),
         ("float32", 1, 28672, 3840, (64, 64, 2, 4, 8)),
         ("float32", 1, 28672, 3840, (256, 64, 8, 3, 8)),
         ("float32", 1, 32768, 3072, (64, 64, 2, 4, 8)),
         ("float32", 1, 32768, 3072, (256, 64, 8, 3, 8)),
         ("float8_e4m3fn", 1, 1536, 5120, (64, 64, 2, 3, 16)),
         ("float8_e4m3fn", 1, 3584, 8192, (128, 128, 4, 4, 16))]
VARIANTS = ("1d", "2d")
if len(sys.argv) == 2:
  rows = []
  for v in VARIANTS + VARIANTS[::-1]:
    out = subprocess.run([sys.executable, __file__, OUT, v], capture_output=True, text=True)
    if out.returncode:
      print(v, "failed:", out.stderr[-600:], flush=True)
    rows += [json.loads(l) for l in out.stdout.splitlines() if l.startswith("{")]
  json.dump(rows, open(f"{OUT}/vector_ab.json", "w"), indent=1)
  for c in sorted({r["case"] for r in rows}):
    xla = statistics.median(r["xla_us"] for r in rows if r["case"] == c)
    print("%-40s xla %6.1f " % (c, xla) + " ".join("%s %.3f" % (v, xla / statistics.median(
        [r["us"] for r in rows if r["case"] == c and r["variant"] == v and "us" in r] or [float("nan")]))
        for v in VARIANTS), flush=True)
  sys.exit()

V = sys.argv[2]
import numpy as np
import jax, jax.numpy as jnp
import pallas_tiled
from pallas_tiled import timing
from pallas_tiled.triton import heuristics, kernel
if V == "2d":  # 04c1060^'s tile of sums, summed once after the last phase.
  def sums(block_m, block_n, *, transpose_a, transpose_b, block_k=64):
    raise AssertionError
  src = inspect.getsource(kernel._kernel).replace(
      "acc = acc.reshape(block_m, block_n)",
      "acc = acc.sum(axis=k_axis).reshape(block_m, block_n)").replace(
      "_vector_sums(block_m, block_n,", "_vector_sums2(block_m, block_n, block_k,")
  def _vector_sums2(block_m, block_n, block_k, *, transpose_a, transpose_b):
    if block_m == 1:
      return ((block_n, block_k), 1) if transpose_b else ((block_k, block_n), 0)
    return ((block_k, block_m), 0) if transpose_a else ((block_m, block_k), 1)
  def _vector_products2(a, b, *, a_is_vector, k_axis, acc_dtype):
    vector, tile = (a, b) if a_is_vector else (b, a)
    shape = [1, 1]
    shape[k_axis] = vector.size
    return vector.reshape(shape).astype(acc_dtype) * tile.astype(acc_dtype)
  src = src.replace("_vector_products(", "_vector_products2(")
  kernel._vector_sums2, kernel._vector_products2 = _vector_sums2, _vector_products2
  exec(compile(src, kernel.__file__, "exec"), kernel.__dict__)
for dt, m, n, k, f in CASES:
  ka, kb = jax.random.split(jax.random.key(n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32).astype(dt)
  b = jax.random.normal(kb, (k, n), jnp.float32).astype(dt)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  c = heuristics.vector_tile_config(m, n, k, *f)
  row = dict(case=f"{dt} {m}x{n}x{k} {c.label}", variant=V)
  sets = timing.cold_operand_sets(m, n, (a, b), 100e6)
  try:
    g = lambda a, b, c=c: pallas_tiled.matmul(a, b, c)
    out = np.asarray(jax.jit(g)(a, b), np.float64)
    row["err"] = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
    row["us"] = timing.measure_cold(g, sets, iterations=10).median_us
    row["xla_us"] = timing.measure_cold(jnp.matmul, sets, iterations=10).median_us
  except Exception as e:
    row["error"] = (type(e).__name__ + ": " + str(e))[:300]
  print(json.dumps(row), flush=True)
