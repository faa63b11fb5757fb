"""The seed documents' worked examples, each number checked by arithmetic.

Seed 000 traces an 8x8 product with 4x4 tiles phase by phase; seed 001
counts the grid of a 2048x2048 product; seed 003 runs a 9x9 product with 3x3
tiles. Each product runs twice: with the seed's own toy tiles in interpret
mode (any positive tile is legal there), and with the default tiles on the
default path (compiled on a GPU).
"""

import jax.numpy as jnp
import numpy as np
import pytest

import pallas_tiled

IMPLS = {"tiled": pallas_tiled.matmul, "naive": pallas_tiled.naive_matmul}


def _toy_tile_then_default(tile):
  """Run kwargs: the seed's tile interpreted, then the default path."""
  toy = pallas_tiled.TileConfig(tile, tile, tile)
  return pytest.mark.parametrize(
      "run", [dict(config=toy, interpret=True), {}],
      ids=[f"{tile}x{tile}-tiles-interpret", "default"])


def _seed000_operands():
  """Seed 000's tiles: A tile (0,0) holds 1..16, A tile (0,1) 17..32, each
  row-major, and each B tile is the matching A tile transposed, so B = A^T.
  (The seed shows only the tiles that block (0,0) reads; the bottom half of A
  continues the numbering, 33..64.)"""
  tile = lambda first: np.arange(first, first + 16).reshape(4, 4)
  a = np.block([[tile(1), tile(17)], [tile(33), tile(49)]]).astype(np.float32)
  return jnp.asarray(a), jnp.asarray(a.T)


# Phase 1, A tile (0,0) x B tile (0,0). Thread (0,0): 1*1 + 2*2 + 3*3 + 4*4
# = 30; thread (0,1): 1*5 + 2*6 + 3*7 + 4*8 = 70. Matches the seed.
SEED000_PHASE1 = [[30, 70, 110, 150],
                  [70, 174, 278, 382],
                  [110, 278, 446, 614],
                  [150, 382, 614, 846]]
# Phase 2, A tile (0,1) x B tile (1,0). Thread (0,0): 17^2 + 18^2 + 19^2 +
# 20^2 = 289 + 324 + 361 + 400 = 1374; the seed says 1370. Thread (0,1):
# 17*21 + 18*22 + 19*23 + 20*24 = 357 + 396 + 437 + 480 = 1670; the seed says
# 1690.
SEED000_PHASE2 = [[1374, 1670, 1966, 2262],
                  [1670, 2030, 2390, 2750],
                  [1966, 2390, 2814, 3238],
                  [2262, 2750, 3238, 3726]]
# Final tile = phase 1 + phase 2: C[0,0] = 30 + 1374 = 1404. The seed's final
# table (1400, 1760, 2120, ... 4460) is off in every entry.
SEED000_FINAL = [[1404, 1740, 2076, 2412],
                 [1740, 2204, 2668, 3132],
                 [2076, 2668, 3260, 3852],
                 [2412, 3132, 3852, 4572]]


def test_seed000_tables_add_up():
  np.testing.assert_array_equal(
      np.add(SEED000_PHASE1, SEED000_PHASE2), SEED000_FINAL)
  assert 1 * 1 + 2 * 2 + 3 * 3 + 4 * 4 == 30
  assert 17 * 17 + 18 * 18 + 19 * 19 + 20 * 20 == 1374  # Seed: 1370.
  assert 17 * 21 + 18 * 22 + 19 * 23 + 20 * 24 == 1670  # Seed: 1690.


@_toy_tile_then_default(4)
@pytest.mark.parametrize("impl", IMPLS)
def test_seed000_phase_by_phase(impl, run):
  a, b = _seed000_operands()
  # After phase 1 only: the product over the first K-phase (k = 0..3).
  phase1 = IMPLS[impl](a[:, :4], b[:4, :], **run)
  np.testing.assert_array_equal(np.asarray(phase1)[:4, :4], SEED000_PHASE1)
  # Phase 2 alone: the second K-phase (k = 4..7).
  phase2 = IMPLS[impl](a[:, 4:], b[4:, :], **run)
  np.testing.assert_array_equal(np.asarray(phase2)[:4, :4], SEED000_PHASE2)
  # Both phases, accumulated by the kernel's K loop.
  final = IMPLS[impl](a, b, **run)
  np.testing.assert_array_equal(np.asarray(final)[:4, :4], SEED000_FINAL)
  np.testing.assert_array_equal(np.asarray(final),
                                np.asarray(a, np.float64) @ np.asarray(b))


def test_seed001_grid_counts():
  """Grid per side is cdiv(2048, TILE). Seed 001 prints 26x26 for 78 and
  21x21 for 96, which cover only 2028 and 2016 rows; the true counts are 27
  and 22 (its own formula, (2048 + TILE - 1) / TILE, gives these)."""
  assert [-(-2048 // t) for t in (8, 16, 32, 64, 78, 96, 128)] == [
      256, 128, 64, 32, 27, 22, 16]
  assert 26 * 78 < 2048 and 21 * 96 < 2048


# Seed 003: A[i, j] = 9i + j and B = 2A, 9x9. Its expected output is right:
# C[0, 0] = sum_k k * 2 * 9k = 18 * (0^2 + ... + 8^2) = 18 * 204 = 3672.
SEED003_EXPECTED_ROW0 = [3672, 3744, 3816, 3888, 3960, 4032, 4104, 4176, 4248]
SEED003_EXPECTED_LAST = 61272  # C[8, 8] = sum_k (72 + k) * 2 * (9k + 8).


@_toy_tile_then_default(3)
@pytest.mark.parametrize("impl", IMPLS)
def test_seed003_9x9_with_3x3_tiles(impl, run):
  a = jnp.arange(81, dtype=jnp.float32).reshape(9, 9)
  out = np.asarray(IMPLS[impl](a, 2 * a, **run))
  assert sum(k * 2 * 9 * k for k in range(9)) == 3672
  assert sum((72 + k) * 2 * (9 * k + 8) for k in range(9)) == 61272
  np.testing.assert_array_equal(out[0], SEED003_EXPECTED_ROW0)
  assert out[8, 8] == SEED003_EXPECTED_LAST
  a64 = np.arange(81, dtype=np.float64).reshape(9, 9)
  np.testing.assert_array_equal(out, a64 @ (2 * a64))
