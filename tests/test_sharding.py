"""matmul past one device: partitioned like jnp.matmul under jax.jit,
inside jax.shard_map, and the collective matmuls (issue 30).

On a CPU the meshes span 8 forced host devices (tests/conftest.py); on a
GPU they span that one GPU, compiled. Each sharded case checks the result
against float64, the output sharding against jnp.matmul's, and the compiled
program's collectives against jnp.matmul's: none extra.
"""

from __future__ import annotations

import functools
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import AxisType
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

import pallas_tiled
from pallas_tiled import device
from tests import helpers

COLLECTIVES = ("all-gather", "all-reduce", "reduce-scatter",
               "collective-permute", "all-to-all")
# 8 host devices on a CPU; on GPUs, 2 or 1 of them (one GPU: 1-device meshes).
_DEVICES = max(d for d in (8, 2, 1) if d <= jax.device_count())
MESH_SHAPES = {1: (_DEVICES,), 2: (max(_DEVICES // 2, 1), min(_DEVICES, 2))}
COMPILED_ONLY = pytest.mark.skipif(
    not helpers.ON_GPU,
    reason="Pallas' interpreter fails check_vma=True on varying operands"
    " (its output buffers start invariant: jax 0.10.2 to 0.11.1)")


def _mesh(rank, axis_type):
  shape = MESH_SHAPES[rank]
  return jax.make_mesh(shape, ("x", "y")[:rank], axis_types=(axis_type,) * rank,
                       devices=jax.devices()[:np.prod(shape)])


def _collectives(compiled) -> dict:
  text = compiled.as_text()
  return {name: len(re.findall(rf"= \S+ {name}(-start)?\(", text))
          for name in COLLECTIVES}


def _compiled(fn, *args):
  return jax.jit(fn).lower(*args).compile()


# (id, mesh rank, a shape, a spec, b shape, b spec); 64-wide, tiny. A spec of
# None: an array on no mesh (uncommitted).
CASES = [
    ("rows", 1, (64, 32), P("x"), (32, 48), P()),
    ("columns", 1, (64, 32), P(), (32, 48), P(None, "x")),
    ("columns_uncommitted_a", 1, (64, 32), None, (32, 48), P(None, "x")),
    ("batch", 1, (8, 16, 32), P("x"), (8, 32, 16), P("x")),
    ("k_both", 1, (64, 32), P(None, "x"), (32, 48), P("x")),
    ("k_a_only", 1, (64, 32), P(None, "x"), (32, 48), P()),
    ("rows_and_k_conflict", 1, (64, 32), P("x"), (32, 48), P("x")),
    ("rows_columns", 2, (64, 32), P("x"), (32, 48), P(None, "y")),
    ("rows_k_both", 2, (64, 32), P("x", "y"), (32, 48), P("y")),
    ("batch_broadcast_b", 2, (2, 16, 32), P("y", "x"), (32, 48), P()),
    ("k_mismatch", 2, (64, 32), P(None, "x"), (32, 48), P("y")),
]
# Explicit mesh axes: jnp.matmul refuses a sharded K (it asks for
# out_sharding), so those cases check ours only.
JNP_REFUSES_EXPLICIT = {"k_both", "rows_k_both", "k_mismatch"}


def _assert_close(out, a, b):
  """helpers.assert_matmul_close on one device (its tolerance runs
  jnp.matmul, which refuses some Explicit shardings)."""
  unsharded = lambda x: jnp.asarray(np.asarray(x))
  helpers.assert_matmul_close(out, unsharded(a), unsharded(b))


def _operands(rng, mesh, a_shape, a_spec, b_shape, b_spec):
  return tuple(
      helpers.random_array(rng, shape, jnp.float32) if spec is None else
      jax.device_put(helpers.random_array(rng, shape, jnp.float32),
                     NamedSharding(mesh, spec))
      for shape, spec in ((a_shape, a_spec), (b_shape, b_spec)))


def _assert_like_jnp(ours, ref, out, ref_out):
  """Same output sharding, no collective that jnp.matmul does not need."""
  assert out.sharding.is_equivalent_to(ref_out.sharding, out.ndim), (
      out.sharding, ref_out.sharding)
  assert _collectives(ours) == _collectives(ref), (
      _collectives(ours), _collectives(ref))


@pytest.mark.parametrize("axis_type", [AxisType.Auto, AxisType.Explicit],
                         ids=["auto", "explicit"])
@pytest.mark.parametrize("name,rank,a_shape,a_spec,b_shape,b_spec", CASES,
                         ids=[c[0] for c in CASES])
def test_jit_partitions_like_jnp(rng, axis_type, name, rank, a_shape, a_spec,
                                 b_shape, b_spec):
  mesh = _mesh(rank, axis_type)
  a, b = _operands(rng, mesh, a_shape, a_spec, b_shape, b_spec)
  ours = _compiled(pallas_tiled.matmul, a, b)
  out = ours(a, b)
  _assert_close(out, a, b)
  if axis_type == AxisType.Explicit and name in JNP_REFUSES_EXPLICIT:
    with pytest.raises(Exception, match="(?i)contracting"):
      jnp.matmul(a, b)
    return
  ref = _compiled(jnp.matmul, a, b)
  _assert_like_jnp(ours, ref, out, ref(a, b))


def _loss(matmul, a, b):
  return (matmul(a, b).astype(jnp.float32) ** 2).sum()


@pytest.fixture
def gspmd():
  """GSPMD's propagation instead of Shardy's (deprecated, still offered)."""
  shardy = jax.config.jax_use_shardy_partitioner
  jax.config.update("jax_use_shardy_partitioner", False)
  yield
  jax.config.update("jax_use_shardy_partitioner", shardy)


@pytest.mark.parametrize("name", ["rows", "k_both", "k_a_only"])
def test_gspmd_partitions_like_jnp(rng, gspmd, name):
  _, rank, a_shape, a_spec, b_shape, b_spec = next(
      c for c in CASES if c[0] == name)
  mesh = _mesh(rank, AxisType.Auto)
  a, b = _operands(rng, mesh, a_shape, a_spec, b_shape, b_spec)
  ours, ref = (_compiled(fn, a, b) for fn in (pallas_tiled.matmul, jnp.matmul))
  out = ours(a, b)
  _assert_close(out, a, b)
  _assert_like_jnp(ours, ref, out, ref(a, b))


@pytest.mark.parametrize("axis_type,name", [
    (AxisType.Auto, "rows"), (AxisType.Auto, "k_both"),
    (AxisType.Auto, "rows_columns"), (AxisType.Explicit, "rows_columns")],
                         ids=["auto-rows", "auto-k_both", "auto-rows_columns",
                              "explicit-rows_columns"])
def test_grad_partitions_like_jnp(rng, axis_type, name):
  _, rank, a_shape, a_spec, b_shape, b_spec = next(
      c for c in CASES if c[0] == name)
  mesh = _mesh(rank, axis_type)
  a, b = _operands(rng, mesh, a_shape, a_spec, b_shape, b_spec)
  grad = lambda matmul: jax.grad(functools.partial(_loss, matmul), (0, 1))
  ours = _compiled(grad(pallas_tiled.matmul), a, b)
  ref = _compiled(grad(jnp.matmul), a, b)
  (da, db), (ref_da, ref_db) = ours(a, b), ref(a, b)
  c = np.matmul(helpers.as_f64(a), helpers.as_f64(b))
  _assert_close(da / 2, jnp.asarray(c, jnp.float32), b.T)
  _assert_close(db / 2, a.T, jnp.asarray(c, jnp.float32))
  for out, ref_out in ((da, ref_da), (db, ref_db)):
    assert out.sharding.is_equivalent_to(ref_out.sharding, out.ndim)
  assert _collectives(ours) == _collectives(ref)


def test_vmap_partitions_like_jnp(rng):
  mesh = _mesh(1, AxisType.Auto)
  a, b = _operands(rng, mesh, (8, 16, 32), P("x"), (32, 48), P())
  vmapped = lambda matmul: jax.vmap(matmul, in_axes=(0, None))
  ours = _compiled(vmapped(pallas_tiled.matmul), a, b)
  ref = _compiled(vmapped(jnp.matmul), a, b)
  out = ours(a, b)
  _assert_close(out, a, b)
  _assert_like_jnp(ours, ref, out, ref(a, b))


@pytest.mark.parametrize("check_vma", [
    False, pytest.param(True, marks=COMPILED_ONLY)],
                         ids=["unchecked", "check_vma"])
def test_shard_map_runs_local_products(rng, check_vma):
  """Rows of a over x, b replicated: each device's local product, and the
  gradient (b's sums over the devices)."""
  mesh = _mesh(1, AxisType.Explicit)
  a, b = _operands(rng, mesh, (64, 32), P("x"), (32, 48), P())
  mapped = jax.shard_map(pallas_tiled.matmul, mesh=mesh,
                         in_specs=(P("x"), P()), out_specs=P("x"),
                         check_vma=check_vma)
  _assert_close(jax.jit(mapped)(a, b), a, b)
  da, db = jax.jit(jax.grad(functools.partial(_loss, mapped), (0, 1)))(a, b)
  c = jnp.asarray(np.matmul(helpers.as_f64(a), helpers.as_f64(b)),
                  jnp.float32)
  _assert_close(da / 2, c, b.T)
  _assert_close(db / 2, a.T, c)


def test_shard_map_check_vma_types_products(rng):
  """Under check_vma=True each product varies over the axes its operands
  vary over, and b (invariant) gets a gradient summed over the devices:
  traced, since Pallas' interpreter cannot run it (compiled above)."""
  mesh = _mesh(1, AxisType.Explicit)
  a, b = _operands(rng, mesh, (64, 32), P("x"), (32, 48), P())

  def local(a, b):
    out = pallas_tiled.matmul(a, b)
    assert jax.typeof(out).manual_axis_type.varying == {"x"}
    return out

  mapped = jax.shard_map(local, mesh=mesh, in_specs=(P("x"), P()),
                         out_specs=P("x"))
  grads = jax.eval_shape(jax.grad(functools.partial(_loss, mapped), (0, 1)),
                         a, b)
  assert [g.shape for g in grads] == [a.shape, b.shape]
  jaxpr = str(jax.make_jaxpr(jax.grad(functools.partial(_loss, mapped),
                                      1))(a, b))
  assert "psum" in jaxpr, "b's gradient is not summed over the devices"


def _ring(fn, rank, in_specs, out_spec, check_vma):
  mesh = _mesh(rank, AxisType.Explicit)
  return mesh, jax.shard_map(
      functools.partial(fn, axis_name="x"), mesh=mesh, in_specs=in_specs,
      out_specs=out_spec, check_vma=check_vma)


# (function, mesh rank, operand specs, output spec): rings over x; on the
# 2-D mesh b's columns (all-gather) or a's rows (reduce-scatter) over y too.
RINGS = [
    ("all_gather_matmul", 1, (P("x"), P(None, "x")), P(None, "x")),
    ("all_gather_matmul", 2, (P("x"), P(None, ("x", "y"))), P(None, ("x", "y"))),
    ("matmul_reduce_scatter", 1, (P(None, "x"), P("x")), P("x")),
    ("matmul_reduce_scatter", 2, (P("y", "x"), P("x")), P(("y", "x"))),
]


@pytest.mark.parametrize("check_vma", [
    False, pytest.param(True, marks=COMPILED_ONLY)],
                         ids=["unchecked", "check_vma"])
@pytest.mark.parametrize("name,rank,specs,out_spec", RINGS,
                         ids=[f"{r[0]}-{r[1]}d" for r in RINGS])
def test_collective_matmul(rng, name, rank, specs, out_spec, check_vma):
  """Correct values and gradients; the transfers are the ring's permutes,
  not an all-gather, reduce-scatter or all-reduce."""
  mesh, mapped = _ring(getattr(pallas_tiled, name), rank, specs, out_spec,
                       check_vma)
  a, b = _operands(rng, mesh, (64, 32), specs[0], (32, 48), specs[1])
  compiled = _compiled(mapped, a, b)
  _assert_close(compiled(a, b), a, b)
  counts = _collectives(compiled)
  assert (counts["collective-permute"] > 0) == (mesh.shape["x"] > 1), counts
  assert counts["all-gather"] == counts["reduce-scatter"] == 0, counts
  assert counts["all-reduce"] == 0, counts
  da, db = jax.jit(jax.grad(functools.partial(_loss, mapped), (0, 1)))(a, b)
  c = jnp.asarray(np.matmul(helpers.as_f64(a), helpers.as_f64(b)),
                  jnp.float32)
  _assert_close(da / 2, c, b.T)
  _assert_close(db / 2, a.T, c)


@pytest.mark.parametrize("name,rank,specs,out_spec", RINGS,
                         ids=[f"{r[0]}-{r[1]}d" for r in RINGS])
def test_collective_matmul_check_vma_types(rng, name, rank, specs, out_spec):
  """Under check_vma=True the rings type-check, forward and backward:
  traced, since Pallas' interpreter cannot run them (compiled above)."""
  mesh, mapped = _ring(getattr(pallas_tiled, name), rank, specs, out_spec,
                       True)
  a, b = _operands(rng, mesh, (64, 32), specs[0], (32, 48), specs[1])
  assert jax.eval_shape(mapped, a, b).shape == (64, 48)
  grads = jax.eval_shape(jax.grad(functools.partial(_loss, mapped), (0, 1)),
                         a, b)
  assert [g.shape for g in grads] == [a.shape, b.shape]


@pytest.mark.skipif(_DEVICES == 1, reason="one device: any M splits")
def test_reduce_scatter_rejects_rows_the_ring_cannot_split(rng):
  mesh, mapped = _ring(pallas_tiled.matmul_reduce_scatter, 1,
                       (P(None, "x"), P("x")), P("x"), False)
  a, b = _operands(rng, mesh, (63, 32), P(None, "x"), (32, 48), P("x"))
  with pytest.raises(ValueError, match=r"M=63 must divide"):
    mapped(a, b)


def test_kernels_are_built_for_the_operands_device(rng):
  """The operands' device, not jax.devices()[0], is the target."""
  last = jax.devices()[-1]
  a = jax.device_put(helpers.random_array(rng, (8, 8), jnp.float32), last)
  assert device.devices_of(a, np.ones(3)) == (last,)
  with device.building_for(device.devices_of(a)):
    assert device.target() == last
  assert device.target() == jax.devices()[0]
  _assert_close(pallas_tiled.matmul(a, a), a, a)
