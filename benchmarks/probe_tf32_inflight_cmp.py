import sys, numpy as np, jax, jax.numpy as jnp
import pallas_tiled
mode = sys.argv[1]
for (m, n, k) in ((1024, 4608, 3584), (777, 1234, 2000), (4096, 4096, 4096)):
  ka, kb = jax.random.split(jax.random.key(m + n + k))
  a = jax.random.normal(ka, (m, k), jnp.float32)
  b = jax.random.normal(kb, (k, n), jnp.float32)
  out = np.asarray(jax.jit(pallas_tiled.matmul)(a, b))
  np.save(f"/tmp/tf32_{mode}_{m}.npy", out)
  if mode == "1":
    ref = np.load(f"/tmp/tf32_0_{m}.npy")
    print(m, n, k, "bitwise equal" if np.array_equal(out, ref) else
          f"DIFFER max {np.abs(out-ref).max():.3e} n={np.sum(out!=ref)}", flush=True)
