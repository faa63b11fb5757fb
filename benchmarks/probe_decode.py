"""Probe (to be removed): decode Triton configs against jnp.matmul, cold.

Prints XLA's own Triton GEMM config for each shape, then times a sweep of
our Triton configs (CUPTI, operands cold) beside jnp.matmul.
"""
import json
import os
import re
import sys

import jax
import jax.numpy as jnp
import numpy as np

import pallas_tiled
from pallas_tiled import timing
from pallas_tiled.triton.config import TileConfig

SHAPES = [tuple(map(int, s.split("x"))) for s in sys.argv[1].split(",")]
SWEEP = sys.argv[2].split(",")
out = open(os.path.join(os.environ.get("OUT", "/tmp"), "probe.jsonl"), "a")
key = jax.random.key(0)
for m, n, k in SHAPES:
  ka, kb = jax.random.split(jax.random.fold_in(key, m * n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32).astype(jnp.bfloat16)
  b = jax.random.normal(kb, (k, n), jnp.float32).astype(jnp.bfloat16)
  sets = timing.cold_operand_sets(m, n, (a, b), 100e6)
  xla = jax.jit(jnp.matmul)
  text = xla.lower(a, b).compile().as_text()
  cfgs = re.findall(r'"(?:triton_gemm_config|block_level_fusion_config)":'
                    r'\{[^}]*\}', text)
  kinds = re.findall(r'"kind":"([^"]+)"', text)
  print(f"== {m}x{n}x{k}: XLA {kinds} {cfgs}", flush=True)
  ref = np.asarray(xla(a, b).astype(jnp.float32))
  gb = (a.nbytes + b.nbytes) / 1e3
  t_x = timing.measure_cold(xla, sets, iterations=20).median_us
  bm = min(64, max(16, 1 << (m - 1).bit_length()))
  rows = []
  for label in SWEEP:
    label = re.sub(r"^BM", str(bm), label)
    try:
      cfg = TileConfig.from_label(label)
      f = jax.jit(lambda x, y, c=cfg: pallas_tiled.matmul(x, y, config=c))
      got = np.asarray(f(a, b).astype(jnp.float32))
      err = np.linalg.norm(got - ref) / np.linalg.norm(ref)
      t = timing.measure_cold(f, sets, iterations=20).median_us
    except Exception as e:  # noqa: BLE001  (a probe: report and go on)
      print(f"   {label:24s} FAILED {type(e).__name__}: {str(e)[:120]}")
      continue
    rows.append((t, label))
    print(f"   {label:24s} {t:8.1f} us {gb / t:6.0f} GB/s  {t_x / t:.3f}x"
          f"  err {err:.1e}", flush=True)
    out.write(json.dumps(dict(m=m, n=n, k=k, label=label, us=t, xla_us=t_x,
                              device=jax.devices()[0].device_kind)) + "\n")
  t_x2 = timing.measure_cold(xla, sets, iterations=20).median_us
  print(f"   xla {t_x:.1f} / {t_x2:.1f} us ({gb / t_x:.0f} GB/s); best "
        f"{min(rows)[1] if rows else '-'}", flush=True)
