"""Kernel launches that XLA partitions like `jnp.matmul` under `jax.jit`.

Each launch is a `custom_partitioning` call with a Shardy sharding rule
that reads like dot_general's: batch, M and N pass through to the output,
K is a reduction factor. Shardy propagates shardings through it as through
jnp.matmul; at partitioning, `_partition` keeps the output sharding
propagation chose, asks for operands sharded to match it (XLA reshards
them), and each device runs the kernel on its LOCAL block, followed by one
psum where both operands share a sharded K. Inside `jax.shard_map` the
operands are already local and the kernel runs directly. On one device,
custom_partitioning inlines the launch.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import jax
from jax.experimental import custom_partitioning as jcp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from pallas_tiled import device


def _axes(entry) -> tuple:
  """A PartitionSpec entry as a tuple of mesh axis names."""
  if entry is None:
    return ()
  return tuple(entry) if isinstance(entry, (tuple, list)) else (entry,)


def _entry(axes: tuple):
  return None if not axes else axes[0] if len(axes) == 1 else axes


@dataclasses.dataclass(frozen=True)
class Layout:
  """A launch's operand shapes and storage orders (static)."""

  a_shape: tuple[int, ...]
  b_shape: tuple[int, ...]
  transpose_a: bool  # a is stored (..., K, M).
  transpose_b: bool  # b is stored (..., N, K).

  @property
  def rank(self) -> int:
    """The output's batch rank: the operands' batch dims align right."""
    return max(len(self.a_shape), len(self.b_shape)) - 2

  def _batch_dims(self, shape) -> list:
    """(output dim, size) of each of an operand's batch dims."""
    lead = self.rank - (len(shape) - 2)
    return [(lead + j, size) for j, size in enumerate(shape[:-2])]

  def _out_batch(self) -> tuple[int, ...]:
    return tuple(max(sizes) for sizes in zip(*(
        (1,) * (self.rank - len(s) + 2) + tuple(s[:-2])
        for s in (self.a_shape, self.b_shape))))

  def _operand_factors(self, shape, name, broadcast):
    """Factor names of an operand's batch dims: the output's, or its own
    (size 1, broadcast) factor, collected in `broadcast`."""
    out_batch = self._out_batch()
    factors = []
    for i, size in self._batch_dims(shape):
      if size == out_batch[i]:
        factors.append(f"b{i}")
      else:
        factors.append(f"{name}{i}")
        broadcast.append(f"{name}{i}")
    return factors

  def rule(self):
    """The Shardy rule, dot_general's: `b.. m k, b.. k n -> b.. m n`."""
    broadcast = []
    a = self._operand_factors(self.a_shape, "ua", broadcast)
    b = self._operand_factors(self.b_shape, "ub", broadcast)
    a += ["k", "m"] if self.transpose_a else ["m", "k"]
    b += ["n", "k"] if self.transpose_b else ["k", "n"]
    out = [f"b{i}" for i in range(self.rank)] + ["m", "n"]
    rule = f"{' '.join(a)}, {' '.join(b)} -> {' '.join(out)}"
    return rule, dict(reduction_factors=("k",),
                      need_replication_factors=tuple(broadcast))

  def out_spec(self, a_spec, b_spec) -> tuple:
    """jnp.matmul's output spec for operands' specs: each batch dim as the
    operand not broadcast there shards it, M as a's, N as b's (an axis may
    come out twice: callers resolve that)."""
    out = [()] * self.rank
    for shape, spec in ((self.b_shape, b_spec), (self.a_shape, a_spec)):
      for (i, size), entry in zip(self._batch_dims(shape), spec):
        if size != 1 or not out[i]:
          out[i] = _axes(entry)
    m = a_spec[-1 if self.transpose_a else -2]
    n = b_spec[-2 if self.transpose_b else -1]
    return (*map(_entry, out), m, n)

  def operand_specs(self, a_spec, b_spec, out_spec, mesh):
    """Operand specs matching the output's sharding, and the K axes to sum
    over, as XLA picks them for jnp.matmul: K stays sharded only where both
    operands shard it alike, on axes the output does not use, dividing K
    (padding would add garbage); otherwise it is gathered."""
    out = [_axes(e) for e in out_spec]
    a_k = _axes(a_spec[-2 if self.transpose_a else -1])
    b_k = _axes(b_spec[-1 if self.transpose_b else -2])
    k = self.a_shape[-2 if self.transpose_a else -1]
    used = {axis for axes in out for axis in axes}
    k_axes = a_k if (a_k == b_k and used.isdisjoint(a_k) and k % math.prod(
        mesh.shape[axis] for axis in a_k) == 0) else ()
    out_batch = self._out_batch()

    def spec(shape, matrix):
      batch = [out[i] if size == out_batch[i] else ()
               for i, size in self._batch_dims(shape)]
      return P(*map(_entry, batch + matrix))

    m, n = out[-2], out[-1]
    a = spec(self.a_shape, [k_axes, m] if self.transpose_a else [m, k_axes])
    b = spec(self.b_shape, [n, k_axes] if self.transpose_b else [k_axes, n])
    return a, b, k_axes


def _spec(sharding, ndim) -> tuple:
  spec = tuple(sharding.spec)
  return spec + (None,) * (ndim - len(spec))


def _infer_sharding(layout, mesh, arg_shapes, result_shape):
  """GSPMD's callback (Shardy reads the rule): the output sharding, each
  mesh axis kept where it first shards batch, M or N."""
  del result_shape
  out, seen = [], set()
  for entry in layout.out_spec(*(_spec(s.sharding, len(s.shape))
                                 for s in arg_shapes)):
    axes = tuple(axis for axis in _axes(entry) if axis not in seen)
    seen.update(axes)
    out.append(_entry(axes))
  return NamedSharding(mesh, P(*out))


def _partition(local_launch, layout, mesh, arg_shapes, result_shape):
  """custom_partitioning's callback: shardings and the per-device launch."""
  a_shape, b_shape = arg_shapes
  out_spec = _spec(result_shape.sharding, len(result_shape.shape))
  a_spec, b_spec, k_axes = layout.operand_specs(
      _spec(a_shape.sharding, len(a_shape.shape)),
      _spec(b_shape.sharding, len(b_shape.shape)), out_spec, mesh)

  def lower_fn(a, b):
    with device.building_for(mesh.devices.flat):
      out = local_launch(a, b)
    # One reduction of the partial products, in the output dtype, as XLA's.
    return jax.lax.psum(out, k_axes) if k_axes else out

  return (mesh, lower_fn, NamedSharding(mesh, P(*out_spec)),
          (NamedSharding(mesh, a_spec), NamedSharding(mesh, b_spec)))


@functools.cache
def _partitioned(local_launch, layout: Layout):
  """The partitioned launch, jitted: called eagerly, custom_partitioning
  would run its body op by op, the kernel on gathered operands."""
  # custom_partitioning binds positional parameters only: hide the partial's.
  launch = jcp.custom_partitioning(lambda a, b: local_launch(a, b))
  rule, factors = layout.rule()
  launch.def_partition(
      functools.partial(_partition, local_launch, layout),
      infer_sharding_from_operands=functools.partial(_infer_sharding, layout),
      sharding_rule=rule, **factors)
  return jax.jit(launch)


def _explicit_launch(local_launch, layout, a, b):
  """The launch over Explicit mesh axes, whose shardings tracing sees: a
  shard_map over operands resharded (jax.sharding.reshard) as `_partition`
  would ask XLA to."""
  mesh = next(jax.typeof(x).sharding.mesh for x in (a, b)
              if _sharded_explicitly(x))
  specs = [_spec(jax.typeof(x).sharding, x.ndim) for x in (a, b)]
  out_spec = layout.out_spec(*specs)
  named = [axis for entry in out_spec for axis in _axes(entry)]
  if len(named) != len(set(named)):
    raise ValueError(
        f"Operands sharded {P(*specs[0])} and {P(*specs[1])} over Explicit"
        f" mesh axes would shard the product's dimensions over one axis twice"
        f" ({P(*out_spec)}); reshard an operand (jax.sharding.reshard) first.")
  a_spec, b_spec, k_axes = layout.operand_specs(*specs, out_spec, mesh)

  def local(a, b):
    out = local_launch(a, b)
    return jax.lax.psum(out, k_axes) if k_axes else out

  # No vma checks: Pallas' interpreter fails them (`vma`), and the specs
  # here are exact.
  return jax.shard_map(local, mesh=mesh, in_specs=(a_spec, b_spec),
                       out_specs=P(*out_spec), check_vma=False)(
                           jax.sharding.reshard(a, NamedSharding(mesh, a_spec)),
                           jax.sharding.reshard(b, NamedSharding(mesh, b_spec)))


@functools.cache
def _has_effects(local_launch, *types) -> bool:
  """Whether the launch has side effects (Mosaic GPU's interpreter calls
  back into Python), which custom_partitioning drops, failing to lower."""
  structs = [jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in types]
  return bool(jax.make_jaxpr(local_launch)(*structs).effects)


def _sharded_explicitly(x) -> bool:
  return any(entry is not None for entry in jax.typeof(x).sharding.spec)


def launch(local_launch, a, b, *, transpose_a: bool,
           transpose_b: bool) -> jax.Array:
  """`local_launch(a, b)`, a kernel launch on local operands, partitioned
  over the operands' shardings like jnp.matmul by XLA under jax.jit over
  Auto mesh axes; inside shard_map (and `over_explicit_axes`' shard_map),
  run as is on the local operands (the kernels type their outputs for
  check_vma: `vma.out_struct`). Called while lowering the product
  primitive, so every product (forward, derivatives, vmapped) is
  partitioned."""
  if jax.sharding.get_abstract_mesh().manual_axes:
    return local_launch(a, b)
  layout = Layout(tuple(a.shape), tuple(b.shape), transpose_a, transpose_b)
  if _has_effects(local_launch, (layout.a_shape, a.dtype),
                  (layout.b_shape, b.dtype)):
    return local_launch(a, b)  # Not partitioned: XLA gathers the operands.
  return _partitioned(local_launch, layout)(a, b)


def over_explicit_axes(product, a, b, *, transpose_a: bool,
                       transpose_b: bool) -> jax.Array:
  """`product(a, b)`, in a shard_map where an operand is sharded over
  Explicit mesh axes, whose shardings tracing sees (and a primitive's
  abstract evaluation would have to reproduce); as is otherwise. Applied
  when the product is traced, so its derivatives (traced too) get theirs."""
  if jax.sharding.get_abstract_mesh().manual_axes or not (
      _sharded_explicitly(a) or _sharded_explicitly(b)):
    return product(a, b)
  layout = Layout(tuple(a.shape), tuple(b.shape), transpose_a, transpose_b)
  return _explicit_launch(product, layout, a, b)
