"""Kernel outputs that vary over `jax.shard_map`'s manual axes like their
operands, so `shard_map(check_vma=True)` (the default) can type them.

Inside `shard_map` with `check_vma=True`, every value records the manual
mesh axes it varies over (`jax.typeof(x).manual_axis_type.varying`), and
`pl.pallas_call` requires its `out_shape` to say it
(`jax.ShapeDtypeStruct(manual_axis_type=...)`): a product varies over every
axis either operand varies over. Outside `shard_map` the field is ignored.

Compiled only: Pallas' interpreter (jax 0.10.2 to 0.11.1) starts each
output buffer invariant and carries it through a while loop whose body
makes it vary, which check_vma rejects; interpret inside
`shard_map(check_vma=False)`.
"""

from __future__ import annotations

import jax


def _varying_of(aval) -> frozenset:
  manual_axis_type = getattr(aval, "manual_axis_type", None)
  return manual_axis_type.varying if manual_axis_type else frozenset()


def varying(x) -> frozenset:
  """The manual mesh axes `x` varies over (empty outside shard_map)."""
  return _varying_of(jax.typeof(x))


def out_aval(shape, dtype, *operand_avals) -> jax.core.ShapedArray:
  """The product primitive's output type (abstract operands): varying over
  the axes any operand varies over."""
  axes = frozenset().union(*map(_varying_of, operand_avals))
  if not axes:
    return jax.core.ShapedArray(shape, dtype)
  # Inside shard_map: typed on its (manual) mesh, replicated within a device.
  sharding = jax.sharding.NamedSharding(
      jax.sharding.get_abstract_mesh(),
      jax.sharding.PartitionSpec(*(None,) * len(shape)))
  return jax.core.ShapedArray(
      shape, dtype, sharding=sharding,
      manual_axis_type=jax.sharding.ManualAxisType(varying=axes))


def out_struct(shape, dtype, *operands) -> jax.ShapeDtypeStruct:
  """A kernel output's type: varying over the axes any operand varies over."""
  return jax.ShapeDtypeStruct(
      shape, dtype, manual_axis_type=jax.sharding.ManualAxisType(
          varying=frozenset().union(*map(varying, operands))))


def vary_over(x, axes: frozenset):
  """`x` cast (`jax.lax.pcast`) to vary over `axes` too."""
  missing = tuple(sorted(axes - varying(x)))
  return jax.lax.pcast(x, missing, to="varying") if missing else x


def vary_alike(*operands) -> tuple:
  """The operands cast to vary over the same axes, as a kernel's operands
  must; the cast transposes to the psum that the gradient of an operand
  shared across devices needs. Only JAX arrays vary (others pass as is)."""
  arrays = [x for x in operands if isinstance(x, jax.Array)]
  axes = frozenset().union(*map(varying, arrays))
  return tuple(vary_over(x, axes) if isinstance(x, jax.Array) else x
               for x in operands)
