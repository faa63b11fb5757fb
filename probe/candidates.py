"""Probe (removed next commit; a407295's, with Triton neighbours): the model's pick against its next-best
candidates (by predicted time) and a few named variants, on shapes in
neither wild split and on wild-tune shapes, to tell selection errors from
kernel gaps. CUPTI medians of two interleaved rounds (skinny shapes over
cold operand sets, as the benchmark times them), errors against float64.
Usage: probe/candidates.py OUT BUDGET_S SPEC...; SPEC is DTYPE:MxNxK[:top]
(top: how many next-best candidates, default 4)."""
import concurrent.futures, dataclasses, json, statistics, sys, time
import numpy as np
import jax, jax.numpy as jnp
import pallas_tiled
from pallas_tiled import cost_model, device, timing
from pallas_tiled.mosaic.config import MosaicConfig
from pallas_tiled.triton.heuristics import default_tiled_config

OUT, BUDGET = sys.argv[1], float(sys.argv[2])
START = time.time()
TOL = {"float32": 2e-3, "bfloat16": 8e-3, "float16": 2e-3,
       "float8_e4m3fn": 0.1}


def variants(pick, m, n, k):
  """A Triton pick's neighbours: b the other way, half and double the
  K ranges, half and double the rows, aligned operands the other way."""
  if isinstance(pick, MosaicConfig):
    return {}
  r = lambda **kw: dataclasses.replace(pick, **kw)
  out = {"kb": r(k_major_b=not pick.k_major_b),
         "al": r(align_operands=not pick.align_operands)}
  for s in (pick.split_k // 2, pick.split_k * 2):
    if 1 <= s <= 16 and k // s >= pick.block_k:
      out[f"sk{s}"] = r(split_k=s)
  for bm in (pick.block_m // 2, pick.block_m * 2):
    if 16 <= bm <= 128 and bm <= max(16, 2 * m):
      out[f"bm{bm}"] = r(block_m=bm)
  return out


rows = []
for spec in sys.argv[3:]:
  if time.time() - START > BUDGET:
    break
  dt, shape, *top = spec.split(":")
  top = int(top[0]) if top else 4
  m, n, k = map(int, shape.split("x"))
  dtype = jnp.dtype(dt)
  ka, kb = jax.random.split(jax.random.key(m + n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32).astype(dtype)
  b = jax.random.normal(kb, (k, n), jnp.float32).astype(dtype)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  coefs = cost_model.coefficients(device.device_kind(), dtype)
  pick = (cost_model.choose(m, n, k, dtype)
          or default_tiled_config(m, n, k, dtype))
  ranked = sorted(
      ((cost_model.predict_us(c, m, n, k, dtype, coefs, device.sm_count()), c)
       for c in cost_model.model_candidates(m, n, k, dtype, None,
                                            out_dtype=dtype, mosaic=True)),
      key=lambda t: (t[0] is None, t[0] or 0))
  predicted = {c.label: p for p, c in ranked}
  cfgs = {"pick": pick}
  for p, c in ranked:
    if len(cfgs) > top:
      break
    if c != pick:
      cfgs[c.label] = c
  for v, c in variants(pick, m, n, k).items():
    if c not in cfgs.values():
      try:
        cost_model.check_triton_tiles(c, dtype, device.HOPPER, dtype)
        cfgs[v] = c
      except Exception:
        pass
  fs = {"xla": jnp.matmul}
  for name, c in cfgs.items():
    fs[name] = lambda a, b, c=c: pallas_tiled.matmul(a, b, c)
  row = dict(shape=shape, dtype=dt, pick=pick.label,
             predicted={v: predicted.get(c.label) for v, c in cfgs.items()},
             labels={v: c.label for v, c in cfgs.items()})

  def check(item):
    name, f = item
    out = np.asarray(jax.jit(f)(a, b), np.float64)
    return name, float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
  good = {}
  with concurrent.futures.ThreadPoolExecutor(8) as pool:
    futs = {pool.submit(check, it): it[0] for it in fs.items()}
    for fut in concurrent.futures.as_completed(futs):
      try:
        name, err = fut.result()
        row[f"{name}_err"] = err
        if err < TOL[dt]:
          good[name] = fs[name]
        else:
          row.setdefault("errors", []).append(f"{name} err {err}")
      except Exception as e:
        row.setdefault("errors", []).append(
            futs[fut] + ": " + (type(e).__name__ + ": " + str(e))[:200])
  good = {v: good[v] for v in fs if v in good}
  sets = timing.cold_operand_sets(m, n, (a, b), 100e6)
  t = {v: [] for v in good}
  for r in range(2):
    names = list(good)[r:] + list(good)[:r]
    for v in names:
      t[v].append(timing.measure_cold(good[v], sets,
                                      iterations=10).median_us)
  for v, ts in t.items():
    row[f"{v}_us"] = round(statistics.median(ts), 2)
  xla = row.get("xla_us")
  print(dt, shape, "pick", pick.label, "|", "; ".join(
      "%s %.2fus %.3fx (pred %s)" % (
          v, row[f"{v}_us"], xla / row[f"{v}_us"] if xla else 0,
          None if row["predicted"].get(v) is None
          else round(row["predicted"][v], 1))
      for v in t if v != "xla"), "| xla %.2f" % (xla or 0),
        row.get("errors", ""), "(%.0f s)" % (time.time() - START),
        flush=True)
  rows.append(row)
  json.dump(rows, open(f"{OUT}/candidates.json", "w"), indent=1)
