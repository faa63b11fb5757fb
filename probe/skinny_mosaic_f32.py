"""Probe: Mosaic GPU (TF32, 64-row wgmmas over N) for tall skinny float32
products (N <= 64 < M), which only Triton runs today; beside the pick and
jnp.matmul, cold operands, each checked first. Also prints the tiles XLA
chose for jnp.matmul (its compiled HLO)."""
import dataclasses, re, statistics, sys, time
import jax
from jax import lax
import jax.numpy as jnp
from pallas_tiled import accuracy, api, dtypes, timing, cost_model
from pallas_tiled.mosaic.config import (MosaicConfig, fit_mosaic_config,
                                        k_range_variants, check_mosaic_config)

SHAPES = [  # wild-tune first, then fresh draws (understanding only)
    (2048, 8, 4096), (2048, 16, 4096), (2048, 64, 4096), (8192, 16, 2560),
    (8192, 64, 14336), (12288, 64, 4096), (384, 32, 3584), (6256, 15, 10717),
    (3000, 16, 13824), (384, 64, 14336), (2500, 64, 4544), (8192, 8, 1536)]
if len(sys.argv) > 1:
  SHAPES = [tuple(map(int, s.split("x"))) for s in sys.argv[1].split(",")]
F32 = jnp.float32


@jax.jit
def _reference(a, b):
  return jnp.matmul(a, b, precision=lax.Precision.HIGHEST)


def xla_tiles(a, b):
  text = jax.jit(jnp.matmul).lower(a, b).compile().as_text()
  out = []
  for pat in (r'"output_tiles":\[[^\]]*\]', r'"num_warps":"?\d+', r'"num_stages":"?\d+',
              r'custom_call_target="[^"]+"', r'"split_k":"?\d+', r'"block_[mnk]":"?\d+'):
    out += re.findall(pat, text)
  return " ".join(dict.fromkeys(out))[:400]


def configs(m, n, k):
  tn = max(8, -(-n // 8) * 8)
  out = []
  for tn_ in (tn,):
    for tk, stages in ((32, 4), (64, 3)):
      base = MosaicConfig(tile_m=64, tile_n=tn_, tile_k=tk, max_concurrent_steps=stages,
                          wg_dimension="m", num_sms=132, epi_tile_n=min(32, tn_))
      try:
        base = fit_mosaic_config(base, F32, F32)
      except Exception as e:
        print("  fit", base.label, e); continue
      out.append(base)
      for s in (2, 4, 8, 16):
        c = dataclasses.replace(base, split_k=s)
        if k // s >= 4 * tk:
          out.append(fit_mosaic_config(c, F32, F32))
  return list(dict.fromkeys(out))


def main():
  start = time.time()
  for m, n, k in SHAPES:
    if time.time() - start > 400:
      print('budget spent'); break
    ka, kb = jax.random.split(jax.random.key(m * 7 + n * 31 + k))
    a = dtypes.random_operand(ka, (m, k), F32)
    b = dtypes.random_operand(kb, (k, n), F32)
    ref = _reference(a, b)
    tol = accuracy.tolerance(a, b, ref, F32)
    print(f"== {m}x{n}x{k} xla: {xla_tiles(a, b)}", flush=True)
    sets = timing.cold_operand_sets(m, n, (a, b), 100 * 2**20)
    pick = cost_model.choose(m, n, k, F32)
    cands = [("xla", jnp.matmul), ("pick " + (pick.label if pick else "-"),
                                   lambda a, b: api.matmul(a, b))]
    for c in configs(m, n, k):
      cands.append((c.label, lambda a, b, c=c: api.matmul(a, b, c)))
    cands.append(("xla(again)", jnp.matmul))
    res = []
    for name, fn in cands:
      try:
        err = accuracy.relative_error(jax.jit(fn)(a, b), ref)
        if not err <= tol:
          print(f"  {name:55s} WRONG err {err:.2e} tol {tol:.2e}", flush=True); continue
        t = timing.measure_cold(fn, sets, iterations=10)
        res.append((name, t.median_us))
        print(f"  {name:55s} {t.median_us:8.2f} us  err {err:.1e}  "
              + " ".join(f"{kn[:22]}={ku:.1f}" for kn, ku in t.kernels), flush=True)
      except Exception as e:
        print(f"  {name:55s} ERROR {type(e).__name__}: {str(e)[:160]}", flush=True)
    xla = statistics.mean(t for nm, t in res if nm.startswith("xla")) if res else 0
    best = sorted((t, nm) for nm, t in res if not nm.startswith("xla"))[:3]
    print(f"  -> xla {xla:.2f}; best " + ", ".join(f"{nm} {xla / t:.3f}x" for t, nm in best)
          + f"  [{time.time() - start:.0f}s]", flush=True)


main()
