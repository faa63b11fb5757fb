"""Probe: float32 skinny-N products (N <= 16) as exact FMA tiles, no dot."""
import functools, itertools
import jax, jax.numpy as jnp, numpy as np
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton
from jax.experimental.mosaic.gpu import profiler
import pallas_tiled

def _kernel(a_ref, b_ref, o_ref, *, k, bk):
  bm, bn = o_ref.shape
  def phase(p, acc):
    ks = pl.ds(p * bk, bk)
    a = a_ref[:, ks]
    b = b_ref[ks, :]
    return acc + jnp.sum(a[:, :, None] * b[None, :, :], axis=1)
  acc = lax.fori_loop(0, k // bk, phase, jnp.zeros((bm, bn), jnp.float32))
  o_ref[...] = acc

@functools.partial(jax.jit, static_argnames=("bm", "bk", "warps", "stages"))
def fma_matmul(a, b, *, bm, bk, warps, stages):
  m, k = a.shape; n = b.shape[1]
  bn = max(8, pl.next_power_of_2(n)) if hasattr(pl, "next_power_of_2") else 16
  return pl.pallas_call(functools.partial(_kernel, k=k, bk=bk),
      out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32), grid=(pl.cdiv(m, bm),),
      in_specs=[pl.BlockSpec((bm, k), lambda i: (i, 0)), pl.BlockSpec((k, bn), lambda i: (0, 0))],
      out_specs=pl.BlockSpec((bm, bn), lambda i: (i, 0)),
      compiler_params=pltriton.CompilerParams(num_warps=warps, num_stages=stages),
      name="fma_probe")(a, b)

def t(f, *args):
  f(*args).block_until_ready()
  _, ts = profiler.measure(f, iterations=10)(*args)
  return float(np.median(np.asarray(ts, dtype=float))) * 1e3

for (m, n, k) in [(2048, 8, 2048), (1024, 8, 4096), (8192, 8, 4096), (4096, 16, 4096)]:
  ka, kb = jax.random.split(jax.random.key(m + n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32); b = jax.random.normal(kb, (k, n), jnp.float32)
  ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
  err = lambda o: float(np.linalg.norm(np.asarray(o, np.float64) - ref) / np.linalg.norm(ref))
  xla = jax.jit(jnp.matmul); lib = jax.jit(pallas_tiled.matmul)
  tx, tl = t(xla, a, b), t(lib, a, b)
  print(f"{m}x{n}x{k}: jnp {tx:.2f} us err {err(xla(a, b)):.1e} | lib {tl:.2f} us err {err(lib(a, b)):.1e}", flush=True)
  res = []
  for bm, bk, warps, stages in itertools.product((16, 32, 64), (16, 32), (2, 4), (3, 4)):
    if bm * bk * 16 > 32768: continue
    f = functools.partial(fma_matmul, bm=bm, bk=bk, warps=warps, stages=stages)
    try:
      ti = t(f, a, b); e = err(f(a, b))
      res.append((ti, f"{bm}x{bk}/w{warps}/s{stages}", e))
    except Exception as ex:
      res.append((1e9, f"{bm}x{bk}/w{warps}/s{stages} FAIL {type(ex).__name__}", 0))
  res.sort()
  for r in res[:4]: print(f"    fma {r[1]} {r[0]:.2f} us ({tx / r[0]:.2f}x jnp) err {r[2]:.1e}", flush=True)
