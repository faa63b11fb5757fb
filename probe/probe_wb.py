"""Probe (untracked): write-bound short-K products, every candidate plus extras."""
import dataclasses, json, os, sys, statistics
import jax, jax.numpy as jnp
from jax import lax
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled
from pallas_tiled import api, cost_model, dtypes
from pallas_tiled.triton.config import TileConfig
from pallas_tiled.mosaic.config import MosaicConfig

SHAPES = [tuple(map(int, s.split("x"))) for s in sys.argv[1].split(",")]
DT = jnp.dtype(sys.argv[2] if len(sys.argv) > 2 else "bfloat16")
OUT = os.environ.get("OUT", "/tmp")
EXTRA_T = ["64x128x32/w4/s2/g16", "64x128x16/w4/s2/g16", "128x128x32/w4/s2/g16",
           "64x256x64/w4/s2/g16", "64x128x64/w8/s2/g16", "128x128x64/w8/s2/g16",
           "128x256x64/w8/s2/g16", "256x128x64/w8/s2/g16", "64x64x64/w4/s2/g16"]

def cupti(f, *args, it=20):
  for _ in range(3): jax.block_until_ready(f(*args))
  _, runs = profiler.measure(f, iterations=it, aggregate=False)(*args)
  t = sorted(sum(ms for _, ms in r) for r in runs)
  return t[len(t)//2] * 1e3

def extras_mosaic(m, n, k):
  base = dict(tile_k=64, num_sms=132)
  out = []
  pp = MosaicConfig(tile_m=128, tile_n=192, max_concurrent_steps=4, ping_pong=True, **base)
  out += [pp, dataclasses.replace(pp, epi_tile_m=128),
          dataclasses.replace(pp, max_concurrent_steps=2),
          dataclasses.replace(pp, grid_tile_width=16),
          dataclasses.replace(pp, grid_minor_dim="m")]
  for nsm in (264, 396):
    for tm, tn, st in ((128, 128, 2), (64, 256, 2), (64, 128, 2), (128, 64, 2)):
      out.append(MosaicConfig(tile_m=tm, tile_n=tn, max_concurrent_steps=st,
                              warp_specialized=False, **dict(base, num_sms=nsm)))
  return out

rows = []
for (m, n, k) in SHAPES:
  ka, kb = jax.random.split(jax.random.key(m + n + k))
  a = dtypes.random_operand(ka, (m, k), DT); b = dtypes.random_operand(kb, (k, n), DT)
  ref = jnp.matmul(a.astype(jnp.float32), b.astype(jnp.float32), precision=lax.Precision.HIGHEST)
  rn = float(jnp.linalg.norm(ref))
  xla_f = jax.jit(jnp.matmul)
  xt = cupti(xla_f, a, b)
  # write-only reference: an outer sum, M x N of the output dtype.
  od = jnp.bfloat16 if DT.itemsize <= 2 else DT
  wr = jax.jit(lambda a, b: (a[:, :1].astype(jnp.float32) + b[:1, :].astype(jnp.float32)).astype(od))
  wt = cupti(wr, a, b)
  ob = m * n * jnp.dtype(od).itemsize
  print(f"{m}x{n}x{k} {DT.name}: xla {xt:.1f}us ({ob/xt/1e3:.0f} GB/s out) write-only {wt:.1f}us ({ob/wt/1e3:.0f} GB/s)", flush=True)
  cands = [("pick", None)] + [(c.label, c) for c in cost_model.model_candidates(m, n, k, DT)]
  cands += [(l, TileConfig.from_label(l)) for l in EXTRA_T]
  cands += [("X:" + c.label + f"/nsm{c.num_sms}", c) for c in extras_mosaic(m, n, k)]
  seen = set()
  for label, c in cands:
    if label in seen: continue
    seen.add(label)
    try:
      f = jax.jit(lambda a, b, c=c: api.matmul(a, b, c))
      o = f(a, b)
      err = float(jnp.linalg.norm(o.astype(jnp.float32) - ref)) / rn
      if not err < 1e-2:
        print(f"   {label}: WRONG err {err:.2e}", flush=True); rows.append(dict(m=m,n=n,k=k,label=label,status="wrong",err=err)); continue
      t = cupti(f, a, b)
      print(f"   {label:55s} {t:8.1f}us {xt/t:6.3f}x  {ob/t/1e3:5.0f} GB/s err {err:.1e}", flush=True)
      rows.append(dict(m=m, n=n, k=k, label=label, status="ok", us=t, xla_us=xt, write_us=wt, err=err))
    except Exception as e:
      msg = str(e).splitlines()[0][:150] if str(e) else type(e).__name__
      print(f"   {label}: ERROR {type(e).__name__}: {msg}", flush=True)
      rows.append(dict(m=m, n=n, k=k, label=label, status="error", error=msg))
json.dump(dict(device=jax.devices()[0].device_kind, rows=rows), open(f"{OUT}/probe_wb_{DT.name}.json", "w"), indent=1)
