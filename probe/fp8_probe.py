"""Probe (not kept): unaligned transposes' blocks; float8 decode and tiny-K candidates."""
import functools, json, sys, time
import numpy as np, jax, jax.numpy as jnp
import pallas_tiled as pt
from pallas_tiled import timing, cost_model as cm, device
from pallas_tiled.mosaic import relayout
from pallas_tiled.triton.config import TileConfig
F8 = jnp.float8_e4m3fn
rng = np.random.default_rng(0)
part = sys.argv[1]

def rand(shape, dt):
  return jnp.asarray(rng.standard_normal(shape), jnp.float32).astype(dt)

if part == "relayout":
  raw = relayout.copy_all.__wrapped__
  cases = [(F8, 128, 50001, True), (F8, 1024, 12289, True), (F8, 1024, 12288, True),
           (F8, 5355, 335, True), (jnp.float32, 1024, 6145, True), (jnp.bfloat16, 128, 50001, False),
           (F8, 128, 50001, False)]
  blocks = [((64, 64), 8), ((128, 128), 8), ((128, 64), 4), ((64, 128), 4), ((32, 128), 4),
            ((128, 32), 4), ((256, 64), 8), ((64, 256), 8), ((128, 128), 4), ((32, 256), 4), ((16, 512), 4)]
  for dt, r, c, tr in cases:
    x = rand((1, r, c), dt)
    al = 16 // jnp.dtype(dt).itemsize
    shape = (-(-c // al) * al, r) if tr else (r, -(-c // al) * al)
    mb = 2 * x.nbytes / 1e6
    res = []
    xla = timing.measure(lambda x: relayout._xla_relayout(x, shape, tr, False), x, iterations=30).median_us
    res.append(("xla", xla))
    for blk, w in blocks:
      if tr:
        relayout._TRANSPOSE_BLOCK, relayout._TRANSPOSE_WARPS = blk, w
      else:
        relayout._PAD_BLOCK, relayout._PAD_WARPS = (blk[0], blk[1] * jnp.dtype(dt).itemsize), w
      f = lambda x: raw([x], shapes=(shape,), transposes=(tr,), tf32s=(False,), interpret=False)[0]
      try:
        t = timing.measure(f, x, iterations=30)
        ok = bool(jnp.array_equal(t.result.astype(jnp.float32), relayout._xla_relayout(x, shape, tr, False).astype(jnp.float32)))
        res.append((f"{blk[0]}x{blk[1]}/w{w}" + ("" if ok else "/WRONG"), t.median_us))
      except Exception as e:
        res.append((f"{blk[0]}x{blk[1]}/w{w}/ERR {type(e).__name__} {str(e)[:150]}", float("nan")))
    print(json.dumps(dict(case=f"{jnp.dtype(dt).name} {r}x{c} {'T' if tr else 'pad'}", MB=round(mb, 1),
                          us={k: round(v, 2) for k, v in res})), flush=True)

if part == "decode":
  shapes = [tuple(map(int, s.split("x"))) for s in sys.argv[2].split(",")]
  extra = sys.argv[3].split(",") if len(sys.argv) > 3 else []
  coefs = cm.coefficients(device.device_kind(), F8)
  for m, n, k in shapes:
    a, b = rand((m, k), F8), rand((k, n), F8)
    ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
    sets = timing.cold_operand_sets(m, n, (a, b), 200e6)
    xla = timing.measure_cold(lambda x, y: jnp.matmul(x, y), sets, iterations=20).median_us
    cands = [c for c in cm.model_candidates(m, n, k, F8)]
    cands += [TileConfig.from_label(l) for l in extra]
    out = []
    for c in dict.fromkeys(cands):
      p = cm.predict_us(c, m, n, k, F8, coefs, device.sm_count())
      try:
        t = timing.measure_cold(lambda x, y: pt.matmul(x, y, c), sets, iterations=20)
        err = float(np.linalg.norm(np.asarray(t.result, np.float64) - ref) / np.linalg.norm(ref))
        out.append((t.median_us, c.label, p, err))
      except Exception as e:
        out.append((float("nan"), c.label + f" ERR {type(e).__name__} {str(e)[:150]}", p, None))
    out.sort(key=lambda r: (r[0] != r[0], r[0]))
    pick = cm.choose(m, n, k, F8)
    print(json.dumps(dict(shape=f"{m}x{n}x{k}", xla=round(xla, 2), pick=getattr(pick, "label", None),
                          rows=[(l, round(t, 2), round(xla / t, 3) if t == t else None, p and round(p, 1), e and float(f"{e:.1e}")) for t, l, p, e in out[:14]])), flush=True)
