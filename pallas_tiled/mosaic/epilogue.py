"""The Mosaic kernel's epilogue: each consumer casts its float32 accumulator
once and stores it, piece by piece, through shared memory with TMA.

Pieces are (epi_tile_m x epi_tile_n) slices of the consumer's tile, staged
in up to two shared-memory slots per consumer, so that one piece's TMA store
runs while the next is written. TMA drops the parts of a store that fall
outside the output, so edge tiles need no masks. An output whose rows TMA
cannot store (not 16-byte multiples) is stored from registers instead
(`Plan.direct_out`, `direct_store.py`), its edge tiles clamped.
"""

from __future__ import annotations

from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
import jax.numpy as jnp

from pallas_tiled import dtypes
from pallas_tiled import layouts
from pallas_tiled.mosaic import config as mosaic_config
from pallas_tiled.mosaic import direct_store
from pallas_tiled.mosaic import plan as plan_lib
from pallas_tiled.mosaic import tf32_wgmma


def _piece_shape(plan: plan_lib.Plan) -> tuple[int, int]:
  """(rows, cols) of one stored piece of a consumer's tile; with
  `transposed_out`, pieces are stored as their transposes, (epi_m, WIDTH)
  ones where TF32 reads A through registers."""
  epi_m, epi_n = plan.config.epi_tile
  transposed_tf32 = plan.transposed_out and plan.a_in_registers
  return epi_m, tf32_wgmma.WIDTH if transposed_tf32 else epi_n


def _piece_count(plan: plan_lib.Plan) -> int:
  """Pieces per consumer tile."""
  rows, cols = _piece_shape(plan)
  return (plan.config.tile_m // rows) * (plan.config.tile_n // cols)


def _slots(plan: plan_lib.Plan) -> int:
  return mosaic_config.epilogue_slots(_piece_count(plan))


def _transforms(plan: plan_lib.Plan, out_dtype):
  if plan.transposed_out:  # Rows of epi_m elements: 128 bytes or more.
    if not plan.tiled_out:  # One swizzle a row, untiled: any row count.
      return (plgpu.SwizzleTransform(layouts.SWIZZLE_BYTES),)
    return plan_lib.smem_transforms(layouts.SWIZZLE_BYTES, out_dtype)
  piece_bytes = plan.config.epi_tile[1] * jnp.dtype(out_dtype).itemsize
  if plan.tiled_out:
    return plan_lib.smem_transforms(plan_lib.swizzle_bytes(piece_bytes),
                                    out_dtype)
  # Swizzled but untiled: the same bytes as one (8, epi_n)-tiled column of
  # pieces, which TMA stores as a 2-D box into rows of any 16-byte pitch.
  # Unswizzled, wgmma's register layout stores to shared memory with bank
  # conflicts (bfloat16 3000x5000x700: kernel 41.2 us, against 38.1).
  return ((plgpu.SwizzleTransform(piece_bytes),)
          if piece_bytes in (32, 64, 128) else ())


def smem_type(plan: plan_lib.Plan, out_dtype):
  """The shared memory the epilogue stores through: (consumers, slots,
  piece) of out_dtype (plain rows where the consumers store directly)."""
  rows, cols = _piece_shape(plan)
  if plan.direct_out:
    shape, transforms = direct_store.staging_shape(rows, cols, out_dtype), ()
  else:
    shape = (cols, rows) if plan.transposed_out else (rows, cols)
    transforms = _transforms(plan, out_dtype)
  return plgpu.SMEM((plan.config.num_compute_wgs, _slots(plan), *shape),
                    out_dtype, transforms=transforms)


def store(plan: plan_lib.Plan, acc, out_smem, o_tile, wg, out_dtype) -> None:
  """Casts consumer `wg`'s accumulated tile to `out_dtype` and stores it
  into `o_tile` (the CTA's output window; its transpose with
  `transposed_out`)."""
  c = plan.config
  acc = dtypes.cast_result(acc, out_dtype)
  epi_m, piece_n = _piece_shape(plan)
  slots = _slots(plan)
  row0 = wg * c.tile_m if plan.split_m else 0
  col0 = wg * c.tile_n if plan.split_n else 0
  # Where the pieces do not fill the slots evenly, the consumer's previous
  # tile stored one of its last pieces from slot 0 too, so a tile's first
  # piece waits for all of them (an H200 fuzz case lost those pieces:
  # BUILD_NOTES.md).
  first_wait = 0 if _piece_count(plan) % slots else slots - 1
  for i in range(c.tile_m // epi_m):
    for j in range(c.tile_n // piece_n):
      index = i * (c.tile_n // piece_n) + j
      slot = index % slots
      piece = acc[i * epi_m:(i + 1) * epi_m, j * piece_n:(j + 1) * piece_n]
      rows = pl.ds(row0 + i * epi_m, epi_m)
      cols = pl.ds(col0 + j * piece_n, piece_n)
      if plan.direct_out:  # Windows start at multiples of 8 columns or,
        # clamped, at N less one: multiples of the run either way.
        direct_store.store(piece, out_smem.at[wg, slot],
                           o_tile.at[rows, cols],
                           run=direct_store.run_elements(plan.n, out_dtype))
        continue
      # The store that last read this slot must be done before we refill.
      plgpu.wait_smem_to_gmem(slots - 1 if index else first_wait,
                              wait_read_only=True)
      if plan.transposed_out:  # o_tile is the transposed window.
        _store_transposed(plan, piece, out_smem.at[wg, slot])
        window = o_tile.at[cols, rows]
      else:
        out_smem[wg, slot] = piece
        window = o_tile.at[rows, cols]
      plgpu.commit_smem()
      plgpu.copy_smem_to_gmem(out_smem.at[wg, slot], window)


def _store_transposed(plan: plan_lib.Plan, piece, smem) -> None:
  """smem[...] = piece.T: through tf32_wgmma where TF32 read A through
  registers, else by wgmma's transposed register layout, which Mosaic GPU
  stores into a transposed view of the tile (the interpreter transposes
  the value)."""
  if plan.a_in_registers:
    tf32_wgmma.store_transposed(piece, smem)
  elif plan.interpret:
    smem[...] = piece.T
  else:
    smem.transpose((1, 0))[...] = plgpu.layout_cast(
        piece, plgpu.Layout.WGMMA_TRANSPOSED)
