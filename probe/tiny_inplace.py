"""Probe: tiny products (< 2^24 multiply-adds) with unaligned rows, and the
operand copies of Triton configs in one launch.

1. On the H200's wild-check, tiny float16/float8 products ran 0.36-0.45x
   jnp.matmul behind two ~1 us pads of their operands around a ~1.2 us
   kernel, where bfloat16's picks for the same shapes (the H200 table's)
   read them in place at 0.78-0.86x. Time each pick against itself without
   aligned copies (and b as stored where it was K-major). Shapes of
   wild-tune's tiny ones and others in neither split; never check shapes.
2. Triton's K-major and aligned copies, XLA's (a pad, a transpose, a pad)
   against `relayout.relayout_all`'s one launch (float8, shapes in neither
   split).
3. One-row folded decode products (a now a view, no regrouping copy):
   kernels and time against jnp.matmul, shapes in neither split.
CUPTI medians (timing.measure_cold, as the benchmark), 3 interleaved rounds."""
import dataclasses, json, statistics, sys
import numpy as np
import jax, jax.numpy as jnp
import pallas_tiled
from pallas_tiled import relayout, timing
from pallas_tiled.triton import kernel as tk

OUT = sys.argv[1]
TINY = [(3, 11, 49), (5, 103, 568), (25, 3144, 6), (30, 91, 4), (45, 19, 54),
        (53, 962, 6), (132, 3, 6231), (1636, 6, 9), (8, 19, 1479),
        (2, 5182, 152), (3, 700, 13), (70, 6, 300), (100, 90, 50),
        (300, 300, 27), (20, 1000, 50), (250, 9, 250)]
DTYPES = [jnp.bfloat16, jnp.float16, jnp.float8_e4m3fn, jnp.float32]


def operands(m, n, k, dtype):
  ka, kb = jax.random.split(jax.random.key(m * 7 + n * 3 + k))
  a = jax.random.normal(ka, (m, k), jnp.float32).astype(dtype)
  b = jax.random.normal(kb, (k, n), jnp.float32).astype(dtype)
  return a, b


def timed(fs, a, b, m, n):
  sets = timing.cold_operand_sets(m, n, (a, b), 100e6)
  t = {v: [] for v in fs}
  kern = {}
  for _ in range(3):
    for v, f in fs.items():
      r = timing.measure_cold(f, sets, iterations=20)
      t[v].append(r.median_us)
      kern[v] = [(name[:24], round(us, 2)) for name, us in r.kernels]
  return {v: round(statistics.median(ts), 2) for v, ts in t.items()}, kern


rows = []
for m, n, k in TINY:
  for dtype in DTYPES:
    a, b = operands(m, n, k, dtype)
    ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
    pick = tk.select_config(m, n, k, dtype, None, out_dtype=dtype)
    variants = {"pick": pick}
    if pick.align_operands or pick.k_major_b:
      variants["inplace"] = dataclasses.replace(pick, align_operands=False)
      if pick.k_major_b:
        variants["inplace_asstored"] = dataclasses.replace(
            pick, align_operands=False, k_major_b=False)
    fs = {"xla": jnp.matmul}
    fs.update({v: (lambda a, b, c=c: pallas_tiled.matmul(a, b, c))
               for v, c in variants.items()})
    row = dict(part="tiny", shape=f"{m}x{n}x{k}", dtype=jnp.dtype(dtype).name,
               pick=pick.label)
    for v, f in fs.items():
      out = np.asarray(jax.jit(f)(a, b), np.float64)
      row[f"{v}_err"] = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
    times, kern = timed(fs, a, b, m, n)
    row.update({f"{v}_us": t for v, t in times.items()})
    row["kernels"] = kern
    print(json.dumps(row), flush=True)
    rows.append(row)
json.dump(rows, open(f"{OUT}/tiny.json", "w"), indent=1)

for m, n, k in [(12007, 6151, 26), (9001, 7001, 24), (3001, 5003, 40)]:
  a, b = operands(m, n, k, jnp.float8_e4m3fn)
  kp = -(-k // 16) * 16
  xla = lambda a, b: (jnp.pad(a, ((0, 0), (0, kp - k))),
                      jnp.pad(b.T, ((0, 0), (0, kp - k))))
  ours = lambda a, b: relayout.relayout_all(
      [a[None], b[None]], shapes=[(m, kp), (n, kp)], transposes=[False, True])
  for f in (xla, ours):
    x, y = jax.jit(f)(a, b)
    assert np.array_equal(np.asarray(x).reshape(m, kp).astype(np.float32),
                          np.pad(np.asarray(a, np.float32), ((0, 0), (0, kp - k))))
    assert np.array_equal(np.asarray(y).reshape(n, kp).astype(np.float32),
                          np.pad(np.asarray(b, np.float32).T, ((0, 0), (0, kp - k))))
  times, kern = timed({"xla_copies": xla, "one_launch": ours}, a, b, m, n)
  row = dict(part="copies", shape=f"{m}x{n}x{k}", **times, kernels=kern)
  pick = tk.select_config(m, n, k, jnp.float8_e4m3fn, None,
                          out_dtype=jnp.float8_e4m3fn)
  t2, k2 = timed({"xla": jnp.matmul,
                  "pick": lambda a, b: pallas_tiled.matmul(a, b, pick)},
                 a, b, m, n)
  row.update(pick_config=pick.label, **t2, pick_kernels=k2)
  print(json.dumps(row), flush=True)
  rows.append(row)

for m, n, k in [(1, 50001, 1536), (1, 32001, 2048), (1, 60001, 1280)]:
  for dtype in (jnp.bfloat16, jnp.float16):
    a, b = operands(m, n, k, dtype)
    ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
    pick = tk.select_config(m, n, k, dtype, None, out_dtype=dtype)
    f = lambda a, b, c=pick: pallas_tiled.matmul(a, b, c)
    err = float(np.linalg.norm(np.asarray(jax.jit(f)(a, b), np.float64) - ref)
                / np.linalg.norm(ref))
    times, kern = timed({"xla": jnp.matmul, "pick": f}, a, b, m, n)
    row = dict(part="fold", shape=f"{m}x{n}x{k}", dtype=jnp.dtype(dtype).name,
               pick_config=pick.label, err=err, **times, kernels=kern)
    print(json.dumps(row), flush=True)
    rows.append(row)
json.dump(rows, open(f"{OUT}/tiny.json", "w"), indent=1)
