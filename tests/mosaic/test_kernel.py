"""The Mosaic GPU backend: compiled on a Hopper GPU, and on the CPU through
Mosaic GPU's interpreter (slow, so small shapes) and lowering for CUDA.

Lowering for CUDA needs no GPU and runs Mosaic GPU's own passes (layout
inference, TMA tiling rules, the shared-memory check), so CI catches most
kernel errors; TF32 rounding and speed show only on the GPU.
"""

import dataclasses

import jax
from jax import lax
import jax.numpy as jnp
import numpy as np
import pytest

import pallas_tiled
from pallas_tiled import accuracy
from pallas_tiled import backends
from pallas_tiled import batching
from pallas_tiled import config as config_lib
from pallas_tiled import mosaic
from pallas_tiled import tf32_wgmma
from pallas_tiled import tuning_cache
from pallas_tiled import validation
from tests import helpers

mosaic_matmul = lambda a, b, **kw: pallas_tiled.matmul(a, b, backend="mosaic",
                                                      **kw)

SHAPES = [(1, 1, 1), (7, 7, 7), (127, 129, 100), (130, 200, 77)]
if helpers.ON_GPU:
  SHAPES += [(128, 256, 64), (1000, 1000, 1000), (4097, 4097, 4097),
             (127, 4097, 1000), (2048, 2048, 2048), (16, 8192, 4096)]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", helpers.DTYPES,
                         ids=lambda d: d.__name__)
def test_matches_float64_reference(dtype, shape, rng):
  a, b = helpers.random_operands(rng, *shape, dtype)
  out = helpers.call_with_poisoned_output(mosaic_matmul, a, b)
  helpers.assert_matmul_close(out, a, b)


@pytest.mark.parametrize("shapes", [((3, 1, 65, 70), (2, 70, 33)),
                                    ((2, 70), (70, 3)), ((5, 40, 64), (64,))],
                         ids=["broadcast", "vector-batch", "matrix-vector"])
def test_batches_and_vectors(shapes, rng):
  a, b = (helpers.random_array(rng, s, jnp.bfloat16) for s in shapes)
  out = helpers.call_with_poisoned_output(mosaic_matmul, a, b)
  helpers.assert_matmul_close(out, a, b)


@pytest.mark.parametrize("dtype", helpers.DTYPES, ids=lambda d: d.__name__)
def test_gradients_use_the_transposed_layouts(dtype, rng):
  """dA = dC·Bᵀ and dB = Aᵀ·dC run the Mosaic kernel on stored operands."""
  a, b = helpers.random_operands(rng, 70, 65, 129, dtype)
  out, vjp = jax.vjp(mosaic_matmul, a, b)
  ct = helpers.random_array(rng, out.shape, dtype)
  da, db = vjp(ct)
  helpers.assert_matmul_close(da, ct, b.T)
  helpers.assert_matmul_close(db, a.T, ct)


def test_vmap(rng):
  a = helpers.random_array(rng, (3, 40, 70), jnp.float16)
  b = helpers.random_array(rng, (70, 33), jnp.float16)
  out = jax.vmap(mosaic_matmul, in_axes=(0, None))(a, b)
  helpers.assert_matmul_close(out, a, b)


CONFIGS = [
    pallas_tiled.MosaicConfig(tile_m=64, tile_n=64, max_concurrent_steps=2,
                              grid_tile_width=2, epi_tile_n=32),
    pallas_tiled.MosaicConfig(wg_dimension="m", grid_minor_dim="m"),
    pallas_tiled.MosaicConfig(warp_specialized=False, max_concurrent_steps=3),
    # Clusters of two CTAs multicasting B (along M) or A (along N); the
    # 130 x 100 output leaves the second CTA of a cluster partly or wholly
    # outside it. (jax 0.10's interpreter runs these without clusters.)
    pallas_tiled.MosaicConfig(tile_m=64, tile_n=64, epi_tile_n=32,
                              cluster_dimension="m", num_sms=4),
    pallas_tiled.MosaicConfig(tile_m=64, tile_n=32, epi_tile_n=32,
                              wg_dimension="m", cluster_dimension="n",
                              num_sms=4),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.label)
def test_explicit_configs(config, rng):
  a, b = helpers.random_operands(rng, 130, 100, 200, jnp.bfloat16)
  out = helpers.call_with_poisoned_output(pallas_tiled.matmul, a, b,
                                          config=config)
  helpers.assert_matmul_close(out, a, b)


# Consumer tiles of 64x256, the width at which compiled TF32 reads an M-major
# A through registers: split along M or N, one K-group or two. (Interpreted,
# every config takes the same K-major path, so the CPU runs one.)
TF32_CONFIGS = [
    pallas_tiled.MosaicConfig(tile_m=64, tile_n=256, tile_k=32,
                              wg_dimension="m", epi_tile_n=32, num_sms=4),
]
if helpers.ON_GPU:
  TF32_CONFIGS += [
      pallas_tiled.MosaicConfig(tile_m=64, tile_n=256, tile_k=32,
                                max_concurrent_steps=2, wg_dimension="n",
                                epi_tile_n=32, num_sms=4),
      pallas_tiled.MosaicConfig(tile_m=64, tile_n=256, tile_k=64,
                                max_concurrent_steps=2, wg_dimension="m",
                                epi_tile_n=32, num_sms=4),
  ]


@pytest.mark.parametrize("layout", ["nn", "tn", "nt", "tt"])
@pytest.mark.parametrize("config", TF32_CONFIGS, ids=lambda c: c.label)
def test_tf32_in_every_stored_layout(config, layout, rng):
  """TF32 with either operand stored transposed. Compiled, an M-major A is
  read through registers (tf32_wgmma; "nn" runs as C^T = B^T A^T and is
  stored transposed); interpreted, both operands are staged K-major."""
  a, b = helpers.random_operands(rng, 200, 136, 160, jnp.float32)
  out = helpers.stored_product(
      mosaic.batched_product, a, b, transpose_a=layout[0] == "t",
      transpose_b=layout[1] == "t", config=config)
  helpers.assert_matmul_close(out, a, b)


def test_tf32_wgmma_rejects_unsupported_tiles():
  """Shapes tf32_wgmma cannot take fail before any kernel is traced."""
  f32 = lambda *shape: jax.ShapeDtypeStruct(shape, jnp.float32)
  with pytest.raises(ValueError, match="wgmma_a_m_major"):
    tf32_wgmma.wgmma_a_m_major(f32(32, 128), f32(32, 32), f32(128, 32))
  with pytest.raises(ValueError, match="wgmma_a_m_major"):
    tf32_wgmma.wgmma_a_m_major(f32(64, 128), f32(16, 64), f32(128, 16))
  with pytest.raises(ValueError, match="store_transposed"):
    tf32_wgmma.store_transposed(f32(64, 32), f32(64, 32))


@pytest.mark.parametrize("lowering", ["warpgroup", "lane"])
@pytest.mark.parametrize("shape", [(130, 33, 200), (70, 8, 64), (9, 300, 40)],
                         ids=lambda s: "x".join(map(str, s)))
def test_narrow_outputs_are_written(shape, lowering, rng):
  """Outputs narrower or shorter than one CTA tile, in both lowerings (on an
  H200, N <= 33 once came out unwritten)."""
  a, b = helpers.random_operands(rng, *shape, jnp.bfloat16)
  config = dataclasses.replace(
      pallas_tiled.default_mosaic_config(*shape, jnp.bfloat16),
      lowering=lowering)
  out = helpers.call_with_poisoned_output(pallas_tiled.matmul, a, b,
                                          config=config)
  helpers.assert_matmul_close(out, a, b)


@pytest.mark.parametrize("stages, across", [(2, True), (3, False)],
                         ids=["one-pipeline-across-tiles", "pipeline-per-tile"])
def test_pipelines_within_and_across_tiles(stages, across, rng):
  """Both ways a CTA pipelines K over its tiles: one pipeline across all of
  them (2 stages divide the 4 K-steps) or one per tile (3 do not). Two
  CTAs share 4 x 2 CTA tiles of 64x128."""
  config = pallas_tiled.MosaicConfig(tile_m=64, tile_n=64, epi_tile_n=32,
                                     max_concurrent_steps=stages, num_sms=2)
  assert mosaic.pipelines_across_tiles(config, k_steps=4, tiles=8) == across
  a, b = helpers.random_operands(rng, 256, 200, 256, jnp.bfloat16)
  out = helpers.call_with_poisoned_output(pallas_tiled.matmul, a, b,
                                          config=config)
  helpers.assert_matmul_close(out, a, b)


@pytest.mark.parametrize("dtype, out_dtype, epi_tile_n", [
    (jnp.bfloat16, jnp.bfloat16, 64),  # 128-byte pieces: 128-byte swizzle.
    (jnp.bfloat16, jnp.bfloat16, 32),  # 64 bytes.
    (jnp.float16, jnp.float16, 16),  # 32 bytes.
    (jnp.bfloat16, jnp.float32, 32),  # 128 bytes of float32.
    (jnp.float32, jnp.float32, 64),  # 256 bytes: stored unswizzled.
], ids=["bf16-128B", "bf16-64B", "f16-32B", "bf16-to-f32-128B", "f32-256B"])
def test_lane_stores_ragged_rows_in_place(dtype, out_dtype, epi_tile_n, rng):
  """An output of 131 x 1000 elements is no whole number of (8, 128-byte)
  tiles, but its rows are 16-byte multiples: the lane lowering stores it in
  place, each epilogue piece through swizzled, untiled shared memory as one
  2-D TMA box that the array's edges clip."""
  m, n, k = 131, 1000, 96
  config = dataclasses.replace(
      pallas_tiled.default_mosaic_config(m, n, k, dtype, out_dtype),
      lowering="lane", epi_tile_n=epi_tile_n)
  assert mosaic._output_extent(m, n, config, out_dtype, False) == (
      m, n, False)
  a, b = helpers.random_operands(rng, m, n, k, dtype)
  out = helpers.call_with_poisoned_output(
      pallas_tiled.matmul, a, b, config=config,
      preferred_element_type=out_dtype)
  helpers.assert_matmul_close(out, a, b, out_dtype=out_dtype)


@pytest.mark.parametrize("shape, dtype, lowering", [
    ((3000, 5000, 700), jnp.bfloat16, "lane"),  # 10000-byte rows.
    ((1000, 1000, 1000), jnp.float32, "lane"),  # 4000-byte rows.
    ((4096, 4096, 4096), jnp.bfloat16, "warpgroup"),  # Whole tiles.
    ((2047, 8191, 1023), jnp.bfloat16, "warpgroup"),  # Odd rows: padded.
], ids=["3000x5000", "1000-f32", "4096", "2047x8191"])
def test_default_config_stores_ragged_outputs_in_place(shape, dtype,
                                                       lowering):
  """Outputs whose rows TMA can store as they are (16-byte multiples) get
  the lane lowering, which needs no padded copy of the output."""
  assert pallas_tiled.default_mosaic_config(*shape, dtype).lowering == lowering


@pytest.mark.parametrize("layout", ["nn", "tn", "nt", "tt"])
@pytest.mark.parametrize("dtype", helpers.DTYPES, ids=lambda d: d.__name__)
def test_lowers_for_cuda(dtype, layout):
  """Mosaic GPU's passes accept the compiled configs, on any machine: a
  ragged (1000, 4097) @ (4097, 256), with either operand stored transposed
  as the backward pass reads them. (Without a GPU, the copies around the
  kernel are XLA's: jax 0.11 lowers Triton kernels only with a GPU.)"""
  transpose_a, transpose_b = layout[0] == "t", layout[1] == "t"
  a = jax.ShapeDtypeStruct((1, 4097, 1000) if transpose_a else (1, 1000, 4097),
                           dtype)
  b = jax.ShapeDtypeStruct((1, 256, 4097) if transpose_b else (1, 4097, 256),
                           dtype)
  problem = batching.BatchedProblem.from_shapes(
      a.shape, b.shape, transpose_a=transpose_a, transpose_b=transpose_b)
  traced = mosaic.batched_product.trace(
      a, b, problem=problem, config=pallas_tiled.default_mosaic_config(4096, 4096, 4096, dtype),
      precision=None, out_dtype=dtype, interpret=False)
  text = traced.lower(lowering_platforms=("cuda",)).as_text()
  assert "pallas_tiled_mosaic_matmul" in text


@pytest.mark.parametrize("cluster", ["m", "n"])
@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float32],
                         ids=lambda d: d.__name__)
def test_clusters_lower_for_cuda(dtype, cluster):
  """Clusters with TMA multicast pass Mosaic GPU's passes (jax 0.10's
  interpreter cannot run them, so CI sees them here)."""
  a = jax.ShapeDtypeStruct((1, 1000, 4097), dtype)
  b = jax.ShapeDtypeStruct((1, 4097, 512), dtype)
  problem = batching.BatchedProblem.from_shapes(a.shape, b.shape)
  config = dataclasses.replace(
      pallas_tiled.default_mosaic_config(4096, 4096, 4096, dtype),
      cluster_dimension=cluster)
  traced = mosaic.batched_product.trace(
      a, b, problem=problem, config=config, precision=None, out_dtype=dtype,
      interpret=False)
  assert "cluster_block_id" in traced.lower(
      lowering_platforms=("cuda",)).as_text()


def _shipped_mosaic_entries():
  """(dtype, config) of every Mosaic entry in the H200's shipped table."""
  table = tuning_cache.shipped_table("NVIDIA H200")
  return [(jnp.dtype(key.split("|")[2]), table.lookup(key))
          for key, entry in sorted(table.entries.items())
          if entry["backend"] == "mosaic"]


def test_shipped_entries_fit_wider_outputs():
  """Tuned entries are measured with outputs of their input dtype; selected
  for float32 outputs (preferred_element_type), they are narrowed until
  they fit in shared memory, and left alone where they fit already."""
  entries = _shipped_mosaic_entries()
  assert len(entries) > 20
  wider = 0
  for dtype, config in entries:
    assert config_lib.fit_mosaic_config(config, dtype, dtype) == config
    fitted = config_lib.fit_mosaic_config(config, dtype, jnp.float32)
    config_lib.check_mosaic_config(fitted, dtype, jnp.float32)
    wider += fitted != config
  assert wider  # bfloat16's 4096^3 entry, for one, needs narrowing.


def test_tuned_entry_lowers_with_float32_outputs(monkeypatch):
  """bfloat16 with preferred_element_type=float32, on the H200 table's
  4096^3 entry (64x64 epilogue pieces): 262208 bytes of shared memory
  unfitted, which Mosaic GPU refused, as it did on the H200."""
  dtype = jnp.dtype(jnp.bfloat16)
  entry = tuning_cache.shipped_table("NVIDIA H200").lookup(
      tuning_cache.cache_key("NVIDIA H200", "mosaic", dtype, None, 4096,
                             4096, 4096))
  monkeypatch.setattr(tuning_cache, "select_config",
                      lambda *args, **kwargs: entry)
  config = mosaic.select_config(4096, 4096, 4096, dtype, None,
                                out_dtype=jnp.float32)
  assert config.epi_tile_n == 32 and config.tile_n == entry.tile_n
  a = jax.ShapeDtypeStruct((1, 512, 512), dtype)
  problem = batching.BatchedProblem.from_shapes(a.shape, a.shape)
  traced = mosaic.batched_product.trace(
      a, a, problem=problem, config=config, precision=None,
      out_dtype=jnp.float32, interpret=False)
  assert "pallas_tiled_mosaic_matmul" in traced.lower(
      lowering_platforms=("cuda",)).as_text()


@pytest.mark.skipif(not helpers.ON_GPU,
                    reason="the H200 table's entries are selected on a GPU")
@pytest.mark.parametrize("shape", [(2048, 2048, 2048), (4096, 4096, 4096),
                                   (2047, 8191, 1023)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float16, helpers.FLOAT8],
                         ids=lambda d: jnp.dtype(d).name)
def test_float32_outputs_on_tuned_shapes(dtype, shape, rng):
  """Shapes whose tuned entries overflowed shared memory with float32
  outputs, compiled. Before fit_mosaic_config, each shape failed on the
  H200 for one of these dtypes or more (f16 2048^3, all three at 4096^3 and
  2047x8191x1023)."""
  a, b = helpers.random_operands(rng, *shape, dtype)
  out = mosaic_matmul(a, b, preferred_element_type=jnp.float32)
  helpers.assert_matmul_close(out, a, b, out_dtype=jnp.float32)


HIGHEST_CONFIGS = [
    pallas_tiled.default_mosaic_config(256, 256, 256, jnp.float32,
                                       promoted=True),
    pallas_tiled.MosaicConfig(tile_m=64, tile_n=64, tile_k=32,
                              warp_specialized=False, max_concurrent_steps=2,
                              epi_tile_n=32),
]
HIGHEST_SHAPES = [(130, 200, 77), (64, 40, 300)]
if helpers.ON_GPU:
  HIGHEST_SHAPES += [(1000, 1000, 1000), (4097, 129, 4097)]


@pytest.mark.parametrize("shape", HIGHEST_SHAPES,
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("config", HIGHEST_CONFIGS, ids=lambda c: c.label)
def test_highest_is_three_pass_tf32(config, shape, rng):
  """float32 at HIGHEST: three TF32 products over a tripled K, the large
  terms promoted to float32 sums, with or without warp specialization."""
  a, b = helpers.random_operands(rng, *shape, jnp.float32)
  out = helpers.call_with_poisoned_output(
      pallas_tiled.matmul, a, b, config=config,
      precision=lax.Precision.HIGHEST)
  helpers.assert_matmul_close(out, a, b, precision=lax.Precision.HIGHEST)


@pytest.mark.skipif(not helpers.ON_GPU, reason="TF32 rounding and wgmma's"
                    " accumulation exist only on the GPU")
def test_highest_is_as_accurate_as_xla(rng):
  """No worse than XLA's HIGHEST (cuBLAS float32), against float64. Without
  promotion, wgmma's own accumulation came out 8x worse at 1024^3."""
  a, b = helpers.random_operands(rng, 1024, 1024, 4096, jnp.float32)
  ref = np.matmul(helpers.as_f64(a), helpers.as_f64(b))
  highest = lax.Precision.HIGHEST
  ours = mosaic_matmul(a, b, precision=highest)
  xla = jnp.matmul(a, b, precision=highest)
  assert (accuracy.relative_error(ours, ref)
          <= accuracy.relative_error(xla, ref))


@pytest.mark.parametrize("lowering", ["warpgroup", "lane"])
@pytest.mark.parametrize("warp_specialized", [True, False],
                         ids=["ws", "one-warpgroup"])
def test_three_pass_tf32_lowers_for_cuda(warp_specialized, lowering):
  """The promoted kernel (its carry, the step branch) passes Mosaic GPU's
  passes in both lowerings, with or without warp specialization."""
  a = jax.ShapeDtypeStruct((1, 1000, 4097), jnp.float32)
  b = jax.ShapeDtypeStruct((1, 4097, 256), jnp.float32)
  problem = batching.BatchedProblem.from_shapes(a.shape, b.shape)
  config = dataclasses.replace(
      pallas_tiled.default_mosaic_config(4096, 4096, 4096, jnp.float32,
                                         promoted=True),
      warp_specialized=warp_specialized, lowering=lowering)
  traced = mosaic.batched_product.trace(
      a, b, problem=problem, config=config, precision=lax.Precision.HIGHEST,
      out_dtype=jnp.float32, interpret=False)
  assert "pallas_tiled_mosaic_matmul" in traced.lower(
      lowering_platforms=("cuda",)).as_text()


BAD_CONFIGS = [
    (dict(tile_m=96), ValueError, "multiple of 64"),
    (dict(tile_n=264), ValueError, "at most 256"),
    (dict(tile_k=True), TypeError, "must be an int"),
    (dict(wg_dimension="k"), ValueError, "wg_dimension must be one of"),
    (dict(epi_tile_n=48), ValueError, "must divide"),
    (dict(cluster_dimension="k"), ValueError, "cluster_dimension must be one"),
    (dict(cluster_dimension="m", warp_specialized=False), ValueError,
     "needs warp_specialized=True"),
]


@pytest.mark.parametrize("fields, exc, words", BAD_CONFIGS,
                         ids=[str(c[0]) for c in BAD_CONFIGS])
def test_config_validates_itself(fields, exc, words):
  with pytest.raises(exc, match=words):
    pallas_tiled.MosaicConfig(**fields)


def test_shared_memory_is_checked_before_tracing():
  a = jnp.ones((256, 256), jnp.bfloat16)
  with pytest.raises(ValueError, match="shared memory"):
    pallas_tiled.matmul(a, a, config=pallas_tiled.MosaicConfig(
        max_concurrent_steps=8))


F32 = jnp.ones((64, 64), jnp.float32)


@pytest.mark.parametrize("kwargs, words", [
    (dict(backend="cuda"), "backend='cuda' is not one of"),
    (dict(backend="triton", config=pallas_tiled.MosaicConfig()),
     "runs on the 'mosaic' backend, but backend='triton'"),
    (dict(backend="mosaic", config=pallas_tiled.TileConfig(16, 16, 16)),
     "runs on the 'triton' backend, but backend='mosaic'"),
    (dict(backend="mosaic", precision=lax.Precision.HIGH),
     r"default precision \(TF32\) or HIGHEST"),
], ids=["unknown", "mosaic-config-on-triton", "tile-config-on-mosaic",
        "high"])
def test_backend_errors(kwargs, words):
  with pytest.raises(ValueError, match=words):
    pallas_tiled.matmul(F32, F32, **kwargs)


def _call(m, n, k, dtype=jnp.bfloat16, precision=None, interpret=False):
  return validation.MatmulCall(m, n, k, (), (m, n), jnp.dtype(dtype),
                               jnp.dtype(dtype), precision, interpret)


@pytest.mark.parametrize("call, capability, expected", [
    (_call(4096, 4096, 4096), (9, 0), "mosaic"),
    (_call(1024, 1024, 1024), (9, 0), "mosaic"),
    (_call(512, 512, 512), (9, 0), "mosaic"),          # 32 CTA tiles.
    (_call(256, 256, 256), (9, 0), "triton"),          # Too few CTA tiles.
    (_call(4097, 4097, 4097), (9, 0), "mosaic"),       # Padded.
    (_call(2047, 8191, 1023), (9, 0), "mosaic"),       # Padded, smaller.
    (_call(1000, 1000, 1000), (9, 0), "mosaic"),       # Padded.
    (_call(16, 8192, 8192), (9, 0), "triton"),         # Decode: skinny.
    (_call(2048, 2048, 2048, jnp.float32), (9, 0), "mosaic"),  # TF32.
    (_call(16, 4096, 4096, jnp.float32), (9, 0), "triton"),
    (_call(1024, 1024, 1024, jnp.float32, lax.Precision.HIGHEST), (9, 0),
     "mosaic"),                                         # Three-pass TF32.
    (_call(16, 4096, 4096, jnp.float32, lax.Precision.HIGHEST), (9, 0),
     "triton"),
    (_call(4096, 4096, 4096), (8, 0), "triton"),       # Not Hopper.
    (_call(4096, 4096, 4096, interpret=True), (9, 0), "triton"),
], ids=["bf16-4096", "bf16-1024", "bf16-512", "bf16-256", "bf16-4097",
        "bf16-2047x8191x1023",
        "bf16-1000", "decode", "f32",
        "f32-decode", "f32-highest", "f32-highest-decode",
        "ampere", "interpret"])
def test_auto_backend_rule(call, capability, expected, monkeypatch):
  monkeypatch.setattr(validation, "compute_capability", lambda: capability)
  assert backends.resolve_backend(call, None, "auto") == expected


@pytest.mark.parametrize("tuned, expected", [("triton", "triton"),
                                             ("mosaic", "mosaic"),
                                             (None, "mosaic")])
def test_auto_backend_follows_the_tuned_table(tuned, expected, monkeypatch):
  """Where both backends have tuned entries, the faster one runs; else the
  rule decides (4096^3 bfloat16: Mosaic)."""
  monkeypatch.setattr(validation, "compute_capability", lambda: (9, 0))
  monkeypatch.setattr(backends.tuning_cache, "fastest_backend",
                      lambda *args, **kwargs: tuned)
  call = _call(4096, 4096, 4096)
  assert backends.resolve_backend(call, None, "auto") == expected


def test_config_label_names_the_knobs():
  config = dataclasses.replace(
      pallas_tiled.default_mosaic_config(4096, 4096, 4096, jnp.bfloat16),
      grid_tile_width=8, cluster_dimension="n")
  assert config.label == "64x256x64/s4/ws-m/snake-n8/epi64x64/cluster-n"
  assert config.cta_tile == (128, 256) and config.cluster_tile == (128, 512)
  assert config.backend == "mosaic" and pallas_tiled.TileConfig(
      16, 16, 16).backend == "triton"
