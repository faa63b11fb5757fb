import jax, jax.numpy as jnp, numpy as np
from jax.experimental.mosaic.gpu import profiler
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton
print(jax.devices()[0].device_kind)

def kern(x_ref, c_ref, o_ref, c_out):
  o_ref[...] = x_ref[...] * 2
  c_out[0] = c_ref[0] + 1

def with_counters(x):
  c = jnp.zeros((1024,), jnp.int32)
  return pl.pallas_call(kern, out_shape=(jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(c.shape, c.dtype)),
      grid=(1,), in_specs=[pl.BlockSpec(x.shape, lambda i: (0,)), pl.BlockSpec((8,), lambda i: (0,))],
      out_specs=(pl.BlockSpec(x.shape, lambda i: (0,)), pl.BlockSpec((8,), lambda i: (0,))),
      input_output_aliases={1: 1}, compiler_params=pltriton.CompilerParams(num_warps=4))(x, c)[0]

def without(x):
  return pl.pallas_call(lambda x_ref, o_ref: o_ref.__setitem__(Ellipsis, x_ref[...] * 2), out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
      grid=(1,), in_specs=[pl.BlockSpec(x.shape, lambda i: (0,))], out_specs=pl.BlockSpec(x.shape, lambda i: (0,)),
      compiler_params=pltriton.CompilerParams(num_warps=4))(x)

def reduce_only(p):
  return p.sum(axis=0).astype(jnp.bfloat16)

x = jnp.ones((1024,), jnp.float32)
p = jax.random.normal(jax.random.key(0), (4, 2048, 8), jnp.float32)
for name, f, arg in [("without", without, x), ("with zeros counters", with_counters, x), ("split-K sum 4x2048x8", reduce_only, p)]:
  f = jax.jit(f)
  f(arg).block_until_ready()
  _, t = profiler.measure(f, iterations=20)(arg)
  print(name, 'CUPTI raw (ms per iteration)', t[:3], 'median', np.median(np.asarray(t, dtype=float)))
  print(jax.jit(f).lower(arg).compile().as_text().count('memset'), 'memset mentions')
  import time
  for _ in range(3): f(arg).block_until_ready()
  t0 = time.perf_counter(); n = 2000
  for _ in range(n): r = f(arg)
  r.block_until_ready(); print(name, 'wall us/call (pipelined)', round((time.perf_counter()-t0)/n*1e6, 2))
