"""Probe (not kept): clusters of two with TMA multicast on 128x128 CTA tiles
and on transposed tiles, for mid-M weight-streaming shapes. Runs calibrate.py
with its candidate list replaced by the probe's configs."""

import dataclasses

from absl import app

import calibrate
from pallas_tiled import config_checks
from pallas_tiled import cost_model
from pallas_tiled import device
from pallas_tiled.mosaic.config import MosaicConfig
from pallas_tiled.mosaic.config import check_mosaic_config
from pallas_tiled.mosaic.config import output_lowering
from pallas_tiled.mosaic.config import transposed_variants


def probe_candidates(m, n, k, dtype, precision=None, **_):
  base = dict(tile_k=64, max_concurrent_steps=4, num_sms=device.sm_count(),
              lowering=output_lowering(m, n, dtype), epi_tile_n=64)
  square = MosaicConfig(tile_m=64, tile_n=128, wg_dimension="m", **base)
  wide = MosaicConfig(tile_m=64, tile_n=256, wg_dimension="m", **base)
  s6 = dataclasses.replace(square, max_concurrent_steps=6)
  r = dataclasses.replace
  configs = [square, s6, wide,
             r(square, cluster_dimension="m"), r(square, cluster_dimension="n"),
             r(s6, cluster_dimension="m"), r(s6, cluster_dimension="n"),
             r(wide, cluster_dimension="n"),
             r(wide, cluster_dimension="m", grid_tile_width=8)]
  for t in transposed_variants(m, n, dtype, dtype, base["num_sms"]):
    configs += [t, r(t, cluster_dimension="n"), r(t, cluster_dimension="m")]
  return config_checks.passing(
      list(dict.fromkeys(configs)),
      lambda c: check_mosaic_config(c, dtype, dtype))


cost_model.model_candidates = probe_candidates

if __name__ == "__main__":
  app.run(calibrate.main)
