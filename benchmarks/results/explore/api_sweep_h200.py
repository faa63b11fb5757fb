"""Public-API sweep on the GPU at tuned shapes: forward with every output
dtype, and gradients (the transposed layouts); relative error vs jnp."""
import jax, jax.numpy as jnp, numpy as np
import pallas_tiled as pt

def rel(x, y):
  x = np.asarray(x.astype(jnp.float32), np.float64); y = np.asarray(y.astype(jnp.float32), np.float64)
  return np.linalg.norm(x - y) / max(np.linalg.norm(y), 1e-30)

shapes = [(4096, 4096, 4096), (2047, 8191, 1023), (1000, 1000, 1000), (4097, 4097, 4097), (3000, 5000, 700), (16, 8192, 8192), (4096, 14336, 4096)]
for dt in (jnp.bfloat16, jnp.float16, jnp.float32, jnp.float8_e4m3fn):
  for (m, n, k) in shapes:
    ka, kb, kg = jax.random.split(jax.random.key(m + n + k), 3)
    a = jax.random.normal(ka, (m, k), jnp.float32).astype(dt); b = jax.random.normal(kb, (k, n), jnp.float32).astype(dt)
    outs = [None, jnp.float32] + ([jnp.bfloat16] if dt in (jnp.float32, jnp.float8_e4m3fn) else [])
    for out in outs:
      try:
        got = jax.jit(lambda x, y: pt.matmul(x, y, preferred_element_type=out))(a, b)
        ref = jnp.matmul(a.astype(jnp.float32), b.astype(jnp.float32))
        print(f"{jnp.dtype(dt).name} {m}x{n}x{k} out={out and jnp.dtype(out).name}: fwd {rel(got, ref):.1e}", flush=True)
      except Exception as e:
        print(f"{jnp.dtype(dt).name} {m}x{n}x{k} out={out and jnp.dtype(out).name}: FWD FAILED {type(e).__name__}: {str(e)[:300]}", flush=True)
    if dt == jnp.float8_e4m3fn or m * n * k > 2e11: continue
    g = jax.random.normal(kg, (m, n), jnp.float32).astype(dt)
    try:
      f = lambda x, y: (pt.matmul(x, y).astype(jnp.float32) * g.astype(jnp.float32)).sum()
      da, db = jax.jit(jax.grad(f, argnums=(0, 1)))(a, b)
      ra = jnp.matmul(g.astype(jnp.float32), b.astype(jnp.float32).T); rb = jnp.matmul(a.astype(jnp.float32).T, g.astype(jnp.float32))
      print(f"{jnp.dtype(dt).name} {m}x{n}x{k} grads: {rel(da, ra):.1e} {rel(db, rb):.1e}", flush=True)
    except Exception as e:
      print(f"{jnp.dtype(dt).name} {m}x{n}x{k} GRAD FAILED {type(e).__name__}: {str(e)[:300]}", flush=True)
