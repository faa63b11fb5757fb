"""Copy bandwidth ceiling on the H200: aligned elementwise vs the pads/cuts around the ragged kernels."""
# Ran on 47d1d06 (issue 5 step 34). Log: copy_ceiling.log.
import statistics
import jax, jax.numpy as jnp
from jax.experimental.mosaic.gpu import profiler
from pallas_tiled import relayout

def med(f, *args):
  _, runs = profiler.measure(f, iterations=20, aggregate=False)(*args)
  return statistics.median(sum(ms for _, ms in run) for run in runs) * 1e3

k = jax.random.key(0)
cases = [
  ("x*2 4096x4096", lambda x: x * 2, (4096, 4096)),
  ("x*2 4096x8192", lambda x: x * 2, (4096, 8192)),
  ("x*2 8192x8192", lambda x: x * 2, (8192, 8192)),
  ("copy 4097x4097 (x*2)", lambda x: x * 2, (4097, 4097)),
  ("xla pad 4097^2->4104x4160", lambda x: jnp.pad(x, ((0, 7), (0, 63))), (4097, 4097)),
  ("xla pad 1023x8191->1024x8192", lambda x: jnp.pad(x, ((0, 1), (0, 1))), (1023, 8191)),
  ("ours cut 4104x4160->4097^2", lambda x: relayout.relayout(x[None], shape=(4097, 4097))[0], (4104, 4160)),
  ("ours cut 2048x8192->2047x8191", lambda x: relayout.relayout(x[None], shape=(2047, 8191))[0], (2048, 8192)),
  ("xla cut 2048x8192->2047x8191", lambda x: x[:2047, :8191] * 1, (2048, 8192)),
  ("ours pad 4097^2 (pallas)", lambda x: relayout.copy_all([x[None]], shapes=((4104, 4160),), transposes=(False,))[0][0], (4097, 4097)),
]
for name, f, shape in cases:
  x = jax.random.normal(k, shape, jnp.float32).astype(jnp.bfloat16)
  t = min(med(jax.jit(f), x) for _ in range(2))
  out = jax.eval_shape(f, x)
  nbytes = x.size * 2 + out.size * 2
  print(f"{name:34s} {t:8.2f} us  {nbytes / t / 1e6:5.2f} TB/s", flush=True)
