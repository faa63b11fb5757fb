"""Bad input fails with a clear error before any kernel is traced."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import pallas_tiled
from pallas_tiled import config as config_lib
from tests import helpers

IMPLS = pallas_tiled.IMPLEMENTATIONS
F32 = jnp.ones((4, 8), jnp.float32)
F32_T = jnp.ones((8, 3), jnp.float32)

# (case id, a, b, kwargs, exception, words the message must contain)
BAD_CALLS = [
    ("a-0d", np.float32(1.0), F32_T, {}, ValueError,
     ["a must have at least 1 dimension", "ndim=0"]),
    ("b-0d", F32, jnp.float32(2.0), {}, ValueError,
     ["b must have at least 1 dimension", "shape ()"]),
    ("batch-mismatch", jnp.ones((2, 4, 8)), jnp.ones((3, 8, 3)), {},
     ValueError, ["batch dimensions do not broadcast", "(2,)", "(3,)"]),
    ("batch-mismatch-broadcast", jnp.ones((3, 2, 4, 8)), jnp.ones((4, 8, 3)),
     {}, ValueError, ["do not broadcast", "(3, 2)", "(4,)"]),
    ("vector-inner-mismatch", jnp.ones((7,)), F32_T, {}, ValueError,
     ["inner dimensions", "K=7", "K=8"]),
    ("batched-inner-mismatch", jnp.ones((2, 4, 8)), jnp.ones((2, 7, 3)), {},
     ValueError, ["inner dimensions", "b.shape[-2]"]),
    ("inner-mismatch", F32, jnp.ones((7, 3)), {}, ValueError,
     ["inner dimensions", "K=8", "K=7"]),
    ("mixed-dtypes", F32, F32_T.astype(jnp.bfloat16), {}, TypeError,
     ["same dtype", "float32", "bfloat16"]),
    ("int-dtype", F32.astype(jnp.int32), F32_T.astype(jnp.int32), {},
     TypeError, ["a.dtype=int32", "not supported"]),
    ("complex-dtype", F32.astype(jnp.complex64), F32_T.astype(jnp.complex64),
     {}, TypeError, ["a.dtype=complex64"]),
    ("list-input", [[1.0] * 8] * 4, F32_T, {}, TypeError,
     ["a must be an array", "list"]),
    ("str-input", F32, "b", {}, TypeError, ["b must be an array", "str"]),
    ("none-input", None, F32_T, {}, TypeError, ["a must be an array"]),
    ("bad-out-dtype", F32, F32_T, dict(preferred_element_type=jnp.int8),
     TypeError, ["preferred_element_type", "int8"]),
    ("bad-precision", F32, F32_T, dict(precision="medium"), ValueError,
     ["precision='medium'"]),
]


@pytest.mark.parametrize("case", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
@pytest.mark.parametrize("impl", IMPLS)
def test_bad_calls_raise_clear_errors(impl, case):
  _, a, b, kwargs, exc, words = case
  with pytest.raises(exc) as info:
    IMPLS[impl](a, b, **kwargs)
  for word in words:
    assert word in str(info.value), (word, str(info.value))


@pytest.mark.parametrize("impl", IMPLS)
def test_errors_raise_inside_jit_too(impl):
  """Under jit the checks run at trace time, on static shapes."""
  with pytest.raises(ValueError, match="inner dimensions"):
    jax.jit(IMPLS[impl])(F32, jnp.ones((7, 3)))


@pytest.mark.parametrize("impl", ["tiled", "naive"])
def test_config_must_be_a_tile_config(impl):
  with pytest.raises(TypeError, match="config must be one of None, .*"
                     "a TileConfig.*; got \\(32, 32, 32\\)"):
    IMPLS[impl](F32, F32_T, config=(32, 32, 32))


def test_xla_takes_no_config():
  with pytest.raises(ValueError, match="xla_matmul takes no config"):
    pallas_tiled.xla_matmul(F32, F32_T,
                            config=pallas_tiled.TileConfig(16, 16, 16))


@pytest.mark.skipif(helpers.ON_GPU, reason="compiling is valid on a GPU")
def test_compiling_without_a_gpu_is_refused():
  with pytest.raises(ValueError, match="interpret=False compiles a Triton"):
    pallas_tiled.matmul(F32, F32_T, interpret=False)


BAD_FIELDS = [
    (dict(block_m=0), ValueError, "TileConfig.block_m must be positive, got 0"),
    (dict(block_k=-16), ValueError, "TileConfig.block_k must be positive"),
    (dict(block_n=16.0), TypeError, "TileConfig.block_n must be an int"),
    (dict(num_stages=True), TypeError, "TileConfig.num_stages must be an int"),
    (dict(num_warps=3), ValueError, "num_warps must be a power of two, got 3"),
    (dict(group_m=0), ValueError, "TileConfig.group_m must be positive, got 0"),
    (dict(split_k=2.5), TypeError, "TileConfig.split_k must be an int"),
    (dict(k_major_b=1), TypeError, "TileConfig.k_major_b must be a bool"),
]


@pytest.mark.parametrize("fields, exc, message", BAD_FIELDS,
                         ids=[str(f) for f, _, _ in BAD_FIELDS])
def test_tile_config_validates_itself(fields, exc, message):
  kwargs = dict(block_m=16, block_n=16, block_k=16) | fields
  with pytest.raises(exc, match=message.replace("(", r"\(")):
    pallas_tiled.TileConfig(**kwargs)


HOPPER = (9, 0)
BAD_TRITON_TILES = [
    (pallas_tiled.TileConfig(48, 64, 32), "config.block_m=48 is not a power"),
    (pallas_tiled.TileConfig(64, 64, 8), "config.block_k=8 is below 16"),
    (pallas_tiled.TileConfig(3, 3, 3), "config.block_m=3 is not a power"),
    # 5 stages x (256 + 256) x 64 x 2 bytes = 327680 > 232448 (227 KiB).
    (pallas_tiled.TileConfig(256, 256, 64, num_warps=8, num_stages=5),
     "needs about 327680 bytes of shared memory.*232448-byte limit"),
]


@pytest.mark.parametrize("config, message", BAD_TRITON_TILES,
                         ids=[str(c) for c, _ in BAD_TRITON_TILES])
def test_compiled_path_rejects_tiles_triton_cannot_take(config, message):
  with pytest.raises(ValueError, match=message):
    config_lib.check_triton_tiles(config, jnp.bfloat16, HOPPER)


@pytest.mark.skipif(not helpers.ON_GPU, reason="checks the compiled path")
def test_compiled_matmul_rejects_toy_tiles_before_tracing():
  with pytest.raises(ValueError, match="is not a power of two"):
    pallas_tiled.matmul(F32, F32_T, config=pallas_tiled.TileConfig(3, 3, 3))
