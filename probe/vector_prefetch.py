"""Probe: float32 one-row vector tiles whose K loop loads the next DEPTH
K-phases' tiles before summing the current one (a register prefetch carried
through the fori_loop), against today's loop (DEPTH 0), which loads and sums
each phase in turn: Triton pipelines only loads that feed a dot, so a vector
tile's loads are in flight one phase at a time (stages changed nothing,
forty-first session). Patches the kernel's source in this process only
(DEPTH from argv). Shapes of wild-tune and of neither split; operands cycled
past L2; CUPTI medians of two interleaved rounds, errors against float64."""
import inspect, json, statistics, sys, time
import numpy as np
import jax, jax.numpy as jnp
import pallas_tiled
from pallas_tiled import timing
from pallas_tiled.triton import heuristics
from pallas_tiled.triton import kernel as tk
from pallas_tiled.triton.config import TileConfig

OUT, BUDGET, DEPTH = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
START = time.time()
OLD = """  acc = lax.fori_loop(
      0, full_phases, lambda p, acc: phase(p * block_k, acc), acc)
"""
NEW = """  if vector and block_m == 1 and not transpose_b and fold == 1:
    acc = _prefetched_loop(a_ref, b_ref, acc, full_phases, block_k,
                           row_mask, col_mask, k_axis)
  else:
    acc = lax.fori_loop(
        0, full_phases, lambda p, acc: phase(p * block_k, acc), acc)
"""
HELPER = f"""
def _prefetched_loop(a_ref, b_ref, acc, full_phases, block_k, row_mask,
                     col_mask, k_axis, depth={DEPTH}):
  def load(p):
    p = jnp.maximum(jnp.minimum(p, full_phases - 1), 0)
    ks = pl.ds(p * block_k, block_k)
    return (masking.load(a_ref.at[:, ks], masking.tile_mask(row_mask, None)),
            masking.load(b_ref.at[ks, :], masking.tile_mask(None, col_mask)))
  tiles = tuple(load(d) for d in range(depth))
  def body(p, carry):
    acc, tiles = carry
    nxt = load(p + depth)
    acc = _vector_products(*tiles[0], acc, a_is_vector=True, k_axis=k_axis)
    return acc, tiles[1:] + (nxt,)
  acc, _ = lax.fori_loop(0, full_phases, body, (acc, tiles))
  return acc
"""
if DEPTH:
  src = inspect.getsource(tk)
  assert src.count(OLD) == 1
  exec(compile(src.replace(OLD, NEW) + HELPER, tk.__file__, "exec"),
       tk.__dict__)

SHAPES = [(1, 11008, 4096), (1, 14336, 4096), (1, 28672, 4096),
          (1, 8192, 8192), (1, 4608, 36864), (1, 32000, 4096),
          (1, 256000, 3584), (1, 5120, 5120), (1, 16384, 4096),
          (1, 12288, 4096), (1, 2560, 10240)]
rows = []
for m, n, k in SHAPES:
  if time.time() - START > BUDGET:
    break
  ka, kb = jax.random.split(jax.random.key(n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32)
  b = jax.random.normal(kb, (k, n), jnp.float32)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  cfgs = {"pick": heuristics.vector_config(m, n, k),
          "256": heuristics.wide_vector_config(m, n, k),
          "128": heuristics.vector_tile_config(m, n, k, 128, 64, num_warps=4,
                                               num_stages=4, most_splits=8),
          "64": heuristics.narrow_vector_config(m, n, k),
          "256k32": heuristics.vector_tile_config(m, n, k, 256, 32,
                                                  num_warps=8, num_stages=3,
                                                  most_splits=8)}
  fs = {"xla": jnp.matmul}
  for name, c in cfgs.items():
    fs[name] = lambda a, b, c=c: pallas_tiled.matmul(a, b, c)
  row = dict(shape=f"{m}x{n}x{k}", depth=DEPTH,
             labels={v: c.label for v, c in cfgs.items()})
  good = {}
  for name, f in fs.items():
    try:
      out = np.asarray(jax.jit(f)(a, b), np.float64)
      err = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
      row[f"{name}_err"] = err
      if err < 1e-3:
        good[name] = f
      else:
        row.setdefault("errors", []).append(f"{name} err {err}")
    except Exception as e:
      row.setdefault("errors", []).append(
          name + ": " + (type(e).__name__ + ": " + str(e))[:300])
  sets = timing.cold_operand_sets(m, n, (a, b), 100e6)
  t = {v: [] for v in good}
  for r in range(2):
    names = list(good)[r:] + list(good)[:r]
    for v in names:
      t[v].append(timing.measure_cold(good[v], sets, iterations=10).median_us)
  for v, ts in t.items():
    row[f"{v}_us"] = round(statistics.median(ts), 2)
  print(f"d{DEPTH}", row["shape"], row["labels"]["pick"], " ".join(
      "%s %.3f" % (v, row["xla_us"] / row[f"{v}_us"]) for v in t
      if v != "xla"), row.get("errors", ""),
        "(%.0f s)" % (time.time() - START), flush=True)
  rows.append(row)
  json.dump(rows, open(f"{OUT}/vector_prefetch_d{DEPTH}.json", "w"), indent=1)
