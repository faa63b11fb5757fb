"""The cost model that picks configs for untuned shapes: its shipped
coefficients come from the committed wild-tune runs alone, and its picks
behave as measured (on a Hopper device, mocked here: the model is pure
arithmetic over the shape)."""

from __future__ import annotations

import dataclasses
import functools
import json
import pathlib
import re
import sys

from jax import lax
import jax.numpy as jnp
import pytest

from pallas_tiled import cost_model
from pallas_tiled import device
from pallas_tiled import layouts
from pallas_tiled.mosaic import plan as plan_lib
from pallas_tiled.mosaic.config import MosaicConfig
from pallas_tiled.triton.config import TileConfig

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))  # The benchmark modules.
H100 = cost_model.HOPPER_REFERENCE_KIND
RESULTS = ROOT / "benchmarks" / "results"
# Each dtype's calibration runs (a later, partial one adds candidates).
# Later runs of a shape replace its rows: the *_shortk runs re-timed the
# shapes whose K had been padded to a pipeline's depth.
RUNS = {"bfloat16": [RESULTS / "h100_wild_tune_bf16.jsonl",
                     RESULTS / "h100_wild_tune_bf16_transposed.jsonl",
                     RESULTS / "h100_wild_tune_bf16_pingpong.jsonl",
                     RESULTS / "h100_wild_tune_bf16_shortk.jsonl",
                     RESULTS / "h100_wild_tune_bf16_decode.jsonl",
                     RESULTS / "h100_wild_tune_bf16_lora.jsonl",
                     RESULTS / "h100_wild_tune_bf16_s6.jsonl",
                     RESULTS / "h100_wild_tune_bf16_mosaic_k64.jsonl",
                     RESULTS / "h100_wild_tune_bf16_s6b.jsonl",
                     RESULTS / "h100_wild_tune_bf16_pp2.jsonl",
                     RESULTS / "h100_wild_tune_bf16_sk16.jsonl"],
        "float32": [RESULTS / "h100_wild_tune_f32.jsonl",
                    RESULTS / "h100_wild_tune_f32_shortk.jsonl",
                    RESULTS / "h100_wild_tune_f32_lora.jsonl",
                    RESULTS / "h100_wild_tune_f32_shortk_stored.jsonl",
                    RESULTS / "h100_wild_tune_f32_mosaic_k64.jsonl",
                    RESULTS / "h100_wild_tune_f32_skinny_stored.jsonl",
                    RESULTS / "h100_wild_tune_f32_pp2.jsonl",
                    RESULTS / "h100_wild_tune_f32_sk16.jsonl",
                    # 64x128 and 64x192 TF32 tiles re-timed since their
                    # register path keeps a wgmma group in flight.
                    RESULTS / "h100_wild_tune_f32_inflight.jsonl"],
        # Then the b-as-stored Triton tiles; split-K candidates re-timed
        # with data whose sums stay under 448.
        "float8_e4m3fn": [RESULTS / "h100_wild_tune_f8.jsonl",
                          RESULTS / "h100_wild_tune_f8_bstored.jsonl",
                          RESULTS / "h100_wild_tune_f8_split.jsonl",
                          RESULTS / "h100_wild_tune_f8_shortk.jsonl",
                          RESULTS / "h100_wild_tune_f8_lora.jsonl",
                          RESULTS / "h100_wild_tune_f8_decode.jsonl",
                          RESULTS / "h100_wild_tune_f8_shortk_stored.jsonl",
                          RESULTS / "h100_wild_tune_f8_skinny_stored.jsonl",
                          RESULTS / "h100_wild_tune_f8_inplace.jsonl",
                          RESULTS / "h100_wild_tune_f8_pp2.jsonl",
                          RESULTS / "h100_wild_tune_f8_narrowk.jsonl",
                          RESULTS / "h100_wild_tune_f8_m1.jsonl",
                          RESULTS / "h100_wild_tune_f8_upcast.jsonl",
                          RESULTS / "h100_wild_tune_f8_decode_up.jsonl"]}


@pytest.fixture
def hopper(monkeypatch):
  """A Hopper GPU of `kind` with `sms` SMs, as the device module reports."""
  def make(kind=H100, sms=132):
    monkeypatch.setattr(device, "is_hopper", lambda: True)
    monkeypatch.setattr(device, "device_kind", lambda: kind)
    monkeypatch.setattr(device, "sm_count", lambda: sms)
  return make


@pytest.mark.parametrize("dtype_name", list(RUNS))
def test_shipped_coefficients_are_the_fit_of_the_committed_runs(dtype_name):
  import fit_cost_model  # pylint: disable=import-outside-toplevel
  import wild  # pylint: disable=import-outside-toplevel
  times, kind, dtype = fit_cost_model.load(map(str, RUNS[dtype_name]))
  assert dtype == dtype_name
  times = fit_cost_model.offered(times, dtype)
  check = {(e.m, e.n, e.k) for e in wild.load("check")}
  tune = {(e.m, e.n, e.k) for e in wild.load("tune")}
  assert set(times) <= tune and not set(times) & check
  shapes = sorted(s for s in times if {"xla", "pick"} <= set(times[s]))
  with open(cost_model.TABLE_PATH) as f:
    shipped = json.load(f)[kind][dtype]
  assert fit_cost_model.fit(times, shapes, dtype) == shipped


def test_off_hopper_and_uncalibrated_dtypes_get_no_pick(hopper, monkeypatch):
  monkeypatch.setattr(device, "is_hopper", lambda: False)  # E.g. an A100.
  assert cost_model.choose(4096, 4096, 4096, jnp.bfloat16) is None
  hopper()
  assert cost_model.choose(4096, 4096, 4096, jnp.float32) is not None
  for precision in (lax.Precision.HIGH, lax.Precision.HIGHEST):
    assert cost_model.choose(4096, 4096, 4096, jnp.float32,
                             precision) is None
  assert cost_model.choose(4096, 4096, 4096, jnp.int8) is None
  assert cost_model.choose(4096, 4096, 4096, jnp.float8_e4m3fn) is not None
  assert cost_model.choose(4096, 4096, 4096, jnp.float16) is not None


@pytest.mark.parametrize(
    "shape, backend, tile",
    [((8192, 8192, 8192), "mosaic", (128, 256)),
     # 3072 / 256 leaves 132 SMs 2.2 waves of 128x256 tiles; 128x192 tiles
     # make 2 (measured 1.01x jnp.matmul on an H200, 128x256 0.76x).
     ((3072, 3072, 3072), "mosaic", (128, 192)),
     # Few tiles, long K: split-K (1.34x measured on an H100, Mosaic 0.74x).
     ((128, 1024, 4096), "triton", None),
     # 40 CTA tiles of 128x256, K = 17920: 3 K ranges fill one wave (wild-
     # tune, on an H200: 1.05x jnp.matmul, the unsplit 128x128 pick 0.78x).
     ((256, 5120, 17920), "mosaic", (128, 256)),
     ((1, 4096, 4096), "triton", None)],
    ids=["large-square", "partial-wave", "few-tiles-long-k",
         "few-tiles-longer-k", "decode"])
def test_picks(hopper, shape, backend, tile):
  hopper()
  config = cost_model.choose(*shape, jnp.bfloat16)
  assert config.backend == backend
  if tile:
    assert config.cta_tile == tile
  if shape[0] in (128, 256):
    assert config.split_k > 1


def test_ping_pong_pays_its_epilogue_once(hopper):
  """Ping-pong consumers store a tile while the other consumer computes the
  next, so their class's per-wave term (fill and epilogue) is paid once per
  CTA, not once per round: the model then takes them for many rounds of a
  short K (wild-tune 8192x768x768 on an H100: 1.08x the best cooperative
  candidate) and leaves them where each SM gets one tile, the other
  consumer idle (wild-tune 1280x1280x448: 100 tiles of 128x128, ping-pong
  0.99x the best cooperative candidate)."""
  hopper()
  shape = (8192, 768, 768)
  candidates = cost_model.model_candidates(*shape, jnp.bfloat16)
  ping_pong = [c for c in candidates if c.backend == "mosaic" and c.ping_pong]
  cooperative = [c for c in candidates if c.backend == "mosaic"
                 and not c.ping_pong and not c.transposed]
  assert ping_pong and all(c.waves(*shape[:2]) > 1 for c in ping_pong)
  for config in ping_pong:
    assert cost_model.features(config, *shape, jnp.bfloat16, 132)[1][1] == 1
  for config in cooperative:
    assert cost_model.features(config, *shape, jnp.bfloat16, 132)[1][1] == (
        config.waves(*shape[:2]))
  assert cost_model.choose(*shape, jnp.bfloat16).ping_pong
  assert not cost_model.choose(1280, 1280, 448, jnp.bfloat16).ping_pong


def test_float8_reads_b_as_stored_where_its_transpose_dominates(hopper):
  """float8 wgmma wants b K-major: a transpose pass that costs more than
  the product for a few hundred rows (H100 wild-check 128x32000x4096: 113 of
  170 us). Triton tiles reading b as stored are offered beside it, with the
  K-phase the shape's (no 128-deep phases for K = 14), and chosen for 128
  rows (1.13x jnp.matmul, the transposing pick 0.67x); from ~256 rows
  Mosaic's product over the transposed b wins back."""
  hopper()
  f8 = jnp.float8_e4m3fn
  stored = lambda *shape: [c.label for c in cost_model.model_candidates(
      *shape, f8) if c.backend == "triton" and not c.k_major_b]
  assert stored(128, 32000, 4096) == ["128x256x128/w8/s3/g16",
                                      "128x128x128/w4/s4/g16",
                                      "64x128x256/w4/s4/g16"]
  assert stored(664, 3982, 14) == [
      # K fits one K-phase: the short-K tiles read b as stored too.
      "128x128x16/w4/s2/g16/align", "64x128x16/w4/s2/g16/align",
      "128x64x16/w4/s2/g16/align",
      "128x256x16/w8/s3/g16/align", "128x128x16/w4/s4/g16/align",
      "64x128x32/w4/s4/g16/align",
      # The same, K's unaligned rows read in place.
      "128x128x16/w4/s2/g16", "64x128x16/w4/s2/g16", "128x64x16/w4/s2/g16",
      "128x256x16/w8/s3/g16", "128x128x16/w4/s4/g16", "64x128x32/w4/s4/g16"]
  assert not cost_model.choose(128, 32000, 4096, f8).k_major_b
  assert cost_model.choose(2048, 13824, 5120, f8).backend == "mosaic"


def test_mosaic_k_ranges_share_their_tile_class(hopper):
  """16-bit Mosaic split-K candidates exist only where K is long (>= 6144,
  where they won on an H200's wild-tune calibration) and the ranges cut the
  busiest SM's K-steps (`k_range_variants`); each is predicted with its
  unsplit twin's coefficients over its K range and waves, plus the shared
  "reduce" term for its float32 partial sums."""
  hopper()
  splits = lambda shape: [c for c in cost_model.model_candidates(
      *shape, jnp.bfloat16) if c.backend == "mosaic" and c.split_k > 1]
  assert not splits((4096, 4096, 32768))  # 512 CTA tiles of 128x256.
  assert not splits((256, 5120, 5120))  # K under 6144.
  assert splits((256, 5120, 6144))
  shape = (256, 5120, 17920)
  candidates = splits(shape)
  # 40 CTA tiles of 128x256 fill a third of 132 SMs: every split cuts the
  # busiest SM's work. 80 of 128x128 in 2 ranges take two rounds of half
  # the K-steps: no less.
  assert {(c.cta_tile, c.split_k) for c in candidates} == {
      *(((128, 256), split) for split in (2, 3, 4, 6, 8)),
      *(((128, 128), split) for split in (3, 4, 6, 8))}
  coefs = cost_model.coefficients(H100, jnp.bfloat16)
  wide = coefs["wide"]
  tile_class = lambda c: cost_model.tile_class(c, shape[2], jnp.bfloat16)
  unsplit = {tile_class(c) for c in cost_model.model_candidates(
      *shape, jnp.bfloat16) if c.backend == "mosaic" and c.split_k == 1}
  for split in candidates:
    assert tile_class(split) in unsplit
    per_k, per_wave = wide["classes"][tile_class(split)]
    k_range = -(-shape[2] // split.split_k)
    waves = split.waves(*shape[:2])
    expected = (wide["launch"] + waves * (per_k * k_range / 1e3 + per_wave)
                + wide["reduce"] * 256 * 5120 * split.split_k * 4 / 1e6
                + wide["extra_ops"])  # The partial sums' XLA op.
    assert cost_model.predict_us(split, *shape, jnp.bfloat16, coefs,
                                 132) == pytest.approx(expected)


@pytest.mark.parametrize(
    "dtype, shape, offered",
    # wild-tune shapes, on an H200: 128x2304x768 1.33x jnp.matmul over 3
    # ranges, 0.89x unsplit; 384x1024x8192 15.3 us over 4 ranges, 18.1 us
    # unsplit; 128x5120x5120 (80 CTA tiles of 128x64) lost to the unsplit
    # 128x64 CTA tile. 192x1536x4096 (48 of them; an H200 probe shape in
    # neither split): 4 ranges of 128x128 ran 10.6 us, the unsplit pick 13.0.
    [(jnp.float32, (128, 2304, 768), True),
     (jnp.float8_e4m3fn, (384, 1024, 8192), True),
     (jnp.bfloat16, (128, 5120, 5120), False),
     (jnp.float16, (128, 5120, 5120), False),
     (jnp.bfloat16, (192, 1536, 4096), True)],
    ids=["float32", "float8", "bfloat16", "float16", "bfloat16-few-tiles"])
def test_short_k_ranges_for_float32_float8_and_few_tiles(hopper, dtype, shape,
                                                         offered):
  """Below 96 K-tiles, float32 and float8 products of few CTA tiles get
  Mosaic's K ranges (and the model takes them); 16-bit ones only where
  even unsplit 128x64 CTA tiles would leave half the SMs idle."""
  hopper()
  splits = [c for c in cost_model.model_candidates(*shape, dtype)
            if c.backend == "mosaic" and c.split_k > 1]
  assert bool(splits) == offered
  chosen = cost_model.choose(*shape, dtype)
  assert (chosen.split_k > 1 and chosen.backend == "mosaic") == offered


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float32,
                                   jnp.float8_e4m3fn], ids=lambda d: d.__name__)
def test_short_k_ping_pong_rings_share_their_long_k_class(hopper, dtype):
  """Where K is at most two 128-byte K-tiles, the ping-pong tiles' rings
  hold two stages (five and four where K is longer), and each is priced
  by its long-K twin's class: the one class is fitted on both."""
  hopper()
  tile_k = 128 // jnp.dtype(dtype).itemsize
  ping_pong = lambda k: {c.tile_n: c for c in cost_model.model_candidates(
      4096, 8192, k, dtype) if c.backend == "mosaic" and c.ping_pong}
  short, just_past, long = (ping_pong(k) for k in (
      2 * tile_k, 2 * tile_k + 1, 8 * tile_k))
  assert {c.max_concurrent_steps for c in short.values()} == {2}
  assert {n: c.max_concurrent_steps for n, c in just_past.items()} == {
      128: 5, 192: 4}
  for tile_n, config in short.items():
    assert config.label != long[tile_n].label
    assert (cost_model.tile_class(config, 2 * tile_k, dtype)
            == cost_model.tile_class(long[tile_n], 8 * tile_k, dtype))


def test_store_bound_ping_pong_tiles_walk_the_output_row_by_row(hopper):
  """Up to K = 64, ping-pong tiles storing 2- or 4-byte outputs walk the
  output row by row where a row of tiles' output and b fit 24 MiB; longer
  K, float8 outputs and wider rows keep strips of four tile columns. Both
  orders are priced by one class."""
  hopper()

  def ping_pong(k, dtype, out_dtype=None, n=8192):
    return [c for c in cost_model.model_candidates(
        4096, n, k, dtype, out_dtype=out_dtype)
            if c.backend == "mosaic" and c.ping_pong]

  order = lambda configs: {c.label.split("/")[3] for c in configs}
  f8 = jnp.float8_e4m3fn
  assert order(ping_pong(64, jnp.bfloat16)) == {"rows"}
  assert order(ping_pong(32, jnp.float32)) == {"rows"}
  assert order(ping_pong(64, jnp.float32)) == {"rows"}
  assert order(ping_pong(64, f8, jnp.bfloat16)) == {"rows"}
  assert order(ping_pong(65, jnp.bfloat16)) == {"snake-n4"}
  assert order(ping_pong(128, jnp.bfloat16)) == {"snake-n4"}
  assert order(ping_pong(64, f8)) == {"snake-n4"}
  # (128 * 2 + 64 * 2) * N bytes: 24 MiB at N = 65536.
  assert order(ping_pong(64, jnp.bfloat16, n=65536)) == {"rows"}
  assert order(ping_pong(64, jnp.bfloat16, n=65544)) == {"snake-n4"}
  assert order(ping_pong(64, jnp.float32, n=40960)) == {"snake-n4"}
  for rows in ping_pong(64, jnp.bfloat16):
    snake = dataclasses.replace(rows, grid_tile_width=4)
    assert (cost_model.tile_class(rows, 64, jnp.bfloat16)
            == cost_model.tile_class(snake, 64, jnp.bfloat16))


def test_decode_and_skinny_shapes_have_their_own_coefficients(hopper):
  """M or N <= 64: the "skinny" regime, fitted on wild-tune's decode and
  skinny shapes timed over cold operand copies; a 16x64 tile is a class of
  that regime only, and a regime with no coefficients predicts nothing."""
  hopper()
  coefs = cost_model.coefficients(H100, jnp.bfloat16)
  assert [cost_model.regime(*s) for s in ((1, 4096), (4096, 64), (65, 65))
          ] == ["skinny", "skinny", "wide"]
  decode = TileConfig.from_label("16x64x128/w4/s4/sk8")
  decode_class = cost_model.tile_class(decode, 8192, jnp.bfloat16)
  assert decode_class in coefs["skinny"]["classes"]
  assert decode_class not in coefs["wide"]["classes"]
  assert cost_model.predict_us(decode, 8, 1024, 8192, jnp.bfloat16, coefs,
                               132) > 0
  assert cost_model.predict_us(decode, 8, 1024, 8192, jnp.bfloat16,
                               {"wide": coefs["wide"]}, 132) is None


def test_candidates_needing_an_unfitted_term_are_never_picked(hopper):
  """Candidates that read unaligned rows in place (no copy) need the
  "unaligned" coefficient: without it they are predicted None; with the
  shipped one (fitted on calibrate.py's times of 15 wild-tune shapes), the
  decode of an unaligned LM head reads B in place instead of copying it."""
  hopper()
  coefs = cost_model.coefficients(H100, jnp.bfloat16)
  unfitted = {"skinny": {t: c for t, c in coefs["skinny"].items()
                         if t != "unaligned"}}
  in_place = TileConfig.from_label("16x64x128/w4/s4")
  copied = TileConfig.from_label("16x64x128/w4/s4/align")
  unaligned, aligned = (1, 51865, 1280), (1, 51200, 1280)
  predict = lambda c, shape, coefs: cost_model.predict_us(
      c, *shape, jnp.bfloat16, coefs, 132)
  assert predict(in_place, unaligned, unfitted) is None
  assert predict(copied, unaligned, unfitted) > predict(
      in_place, aligned, unfitted) > 0
  assert predict(copied, unaligned, coefs) > predict(
      in_place, unaligned, coefs) > 0
  assert in_place in cost_model.model_candidates(*unaligned, jnp.bfloat16)
  assert not cost_model.choose(*unaligned, jnp.bfloat16).align_operands


def test_fit_leaves_out_terms_nothing_timed_exercises():
  import fit_cost_model  # pylint: disable=import-outside-toplevel
  copied = TileConfig.from_label("16x64x128/w4/s4/align")
  in_place = TileConfig.from_label("16x64x128/w4/s4")
  shapes = [(1, 51865, 1280), (8, 30001, 4096), (16, 12289, 2048)]
  times = {s: {copied: 100.0 + i, "xla": 1.0} for i, s in enumerate(shapes)}
  assert "unaligned" not in fit_cost_model.fit(times, shapes, "bfloat16",
                                               min_shapes=1)["skinny"]
  for i, s in enumerate(shapes):
    times[s][in_place] = 50.0 + 3 * i
  assert "unaligned" in fit_cost_model.fit(times, shapes, "bfloat16",
                                           min_shapes=1)["skinny"]


def test_classes_priced_at_every_k_are_fitted_on_k_loops():
  """A Mosaic class timed only where K fits one K-phase gets no coefficients
  (its per-K term is not seen there), a one-phase Triton class ("xK") does,
  and a Mosaic class timed on K-loops too is fitted."""
  import fit_cost_model  # pylint: disable=import-outside-toplevel
  mosaic = next(c for c in cost_model.model_candidates(4096, 4096, 4096,
                                                      jnp.bfloat16)
                if c.backend == "mosaic")
  triton = TileConfig.from_label("64x128x64/w4/s2/g16")
  short = [(2048, 12288, 64), (384, 6144, 64), (8192, 4096, 32)]
  times = {s: {mosaic: 10.0 + i, triton: 11.0 + i, "xla": 1.0}
           for i, s in enumerate(short)}
  classes = fit_cost_model.fit(times, short, "bfloat16")["wide"]["classes"]
  assert set(classes) == {cost_model.tile_class(triton, 64, jnp.bfloat16)}
  deep = [(4096, 4096, 1024), (2048, 8192, 2048), (8192, 2048, 4096)]
  for i, s in enumerate(deep):
    times[s] = {mosaic: 30.0 + i, "xla": 1.0}
  classes = fit_cost_model.fit(times, short + deep, "bfloat16")["wide"][
      "classes"]
  assert cost_model.tile_class(mosaic, 64, jnp.bfloat16) in classes


@pytest.mark.parametrize("dtype,k,offered,tile_k", [
    ("bfloat16", 63, False, None), ("bfloat16", 64, True, 64),
    ("float32", 31, False, None), ("float32", 32, True, 32),
    ("float8_e4m3fn", 63, False, None), ("float8_e4m3fn", 64, True, 64),
    ("float8_e4m3fn", 100, True, 64), ("float8_e4m3fn", 128, True, 128)])
def test_mosaic_is_offered_from_one_whole_k_tile(hopper, dtype, k, offered,
                                                 tile_k):
  """Mosaic's TMA stores pay on store-bound products of a short K (bfloat16
  2048x57344x64 on an H200: 0.93x jnp.matmul, Triton's thread stores
  0.76x), from K of one whole 128-byte K-tile; a shorter K would be padded.
  float8's LoRA ranks are shorter than its 128-element K-tile: it gets
  Mosaic from K = 64, its K-tiles narrowed to 64 bytes below K = 128. No
  K-tile is wider than K (the 256-byte variants start at K = 256 bytes)."""
  hopper()
  configs = [c for c in cost_model.model_candidates(2048, 8192, k,
                                                    jnp.dtype(dtype))
             if c.backend == "mosaic"]
  assert bool(configs) == offered
  if offered:
    assert {c.tile_k for c in configs} == {tile_k}


@pytest.mark.parametrize("shape,offered", [
    ((384, 5376, 4096), True),  # 3 x 42 = 126 CTA tiles: one round.
    ((1024, 2048, 2048), True),  # 8 x 16 = 128.
    ((1024, 2048 + 8, 2048), False),  # 8 x 17 = 136: two rounds.
    ((1000, 128256, 4096), False)])
def test_six_stages_only_where_each_cta_computes_one_tile(hopper, shape,
                                                          offered):
  """Six stages seldom divide the K-steps, and a CTA whose pipeline cannot
  run across its tiles drains and refills it for each (H100 wild-tune:
  one round 0.99x jnp.matmul, four stages 0.90x; 61 rounds 0.63x, the pick
  0.99x)."""
  hopper()
  six = [c for c in cost_model.model_candidates(*shape, jnp.bfloat16)
         if c.backend == "mosaic" and c.max_concurrent_steps == 6]
  assert bool(six) == offered
  assert all(c.cta_tile == (128, 128) for c in six)


def test_another_hopper_part_uses_its_own_sm_count(hopper):
  # An H100 PCIe (114 SMs) has no coefficients of its own: the H100 SXM's,
  # with its own waves. 1024x3072 is 128 tiles of 128x192, one round of
  # 132 SMs but two of 114; its 96 tiles of 128x256 are one round on
  # either: 128x192 (less work per SM) wins on 132 SMs, 128x256 on 114.
  hopper()
  assert cost_model.choose(1024, 3072, 4096, jnp.bfloat16).cta_tile == (
      128, 192)
  hopper(kind="NVIDIA H100 PCIe", sms=114)
  config = cost_model.choose(1024, 3072, 4096, jnp.bfloat16)
  assert config.num_sms == 114 and config.cta_tile == (128, 256)


def test_the_h200_is_calibrated_on_wild_tune_and_takes_the_h100_fit():
  # Every candidate timed on the H200's 148 wild-tune shapes: its own fit,
  # each shape left out, picked 1.044x jnp.matmul (p10 0.908x) there, the
  # H100's fit 1.052x (p10 0.912x), and the H100's fit with each shape left
  # out of it as well 1.048x (BUILD_NOTES.md): it ships no fit of its own,
  # only classes of its own (H200_OWN_CLASSES), which replace the H100's
  # where both have one.
  import fit_cost_model  # pylint: disable=import-outside-toplevel
  import wild  # pylint: disable=import-outside-toplevel
  times, kind, dtype = fit_cost_model.load(
      [str(RESULTS / "h200_wild_tune_bf16.jsonl")])
  assert (kind, dtype) == ("NVIDIA H200", "bfloat16") and len(times) == 148
  assert set(times) <= {(e.m, e.n, e.k) for e in wild.load("tune")}
  for name in ("bfloat16", "float16", "float32", "float8_e4m3fn"):
    own, h100 = (cost_model.coefficients(kind, name),
                 cost_model.coefficients(H100, name))
    if name not in H200_OWN_CLASSES:
      assert own is h100
      continue
    pattern = H200_OWN_CLASSES[name][1]
    shared = lambda classes: {c: v for c, v in classes.items()
                              if not re.search(pattern, c)}
    for regime, coefs in h100.items():  # The H100's terms and classes,
      assert {**own[regime], "classes": coefs["classes"]} == coefs
      assert own[regime]["classes"].keys() >= coefs["classes"].keys()
      # each with the H100's coefficients but for the H200's own.
      assert shared(own[regime]["classes"]) == shared(coefs["classes"])


# The H200's own tile classes (`fit_cost_model.py --extend`): per dtype, its
# calibration runs and the classes' pattern.
H200_OWN_CLASSES = {
    "float32": ([RESULTS / "h200_wild_tune_f32_k64.jsonl",
                 RESULTS / "h200_wild_tune_f32_skinny.jsonl",
                 RESULTS / "h200_wild_tune_f32_skinny_mosaic.jsonl"],
                "^mosaic:64x128x64/s3/|^mosaic:64x64x(32/s4|64/s3)/ws-m/")}


@pytest.mark.parametrize("dtype_name", list(H200_OWN_CLASSES))
def test_the_h200s_own_classes_are_the_fit_of_its_runs(dtype_name):
  import fit_cost_model  # pylint: disable=import-outside-toplevel
  import wild  # pylint: disable=import-outside-toplevel
  runs, pattern = H200_OWN_CLASSES[dtype_name]
  times, kind, dtype = fit_cost_model.load(map(str, runs))
  assert (kind, dtype) == ("NVIDIA H200", dtype_name)
  times = fit_cost_model.offered(times, dtype)
  assert set(times) <= {(e.m, e.n, e.k) for e in wild.load("tune")}
  shapes = sorted(s for s in times if {"xla", "pick"} <= set(times[s]))
  with open(cost_model.TABLE_PATH) as f:
    shipped = json.load(f)[kind][dtype]
  assert fit_cost_model.fit_classes(
      times, shapes, dtype, cost_model.coefficients(H100, dtype),
      pattern) == shipped


def test_float32s_deep_k_tile_is_priced_where_it_was_timed(hopper):
  """TF32's 128x128 tile over three 256-byte K-tiles is a float32
  candidate only, priced on each GPU from that GPU's own timings (the
  H200's own class; the H100's since its in-flight run, fifty-third
  session), and picked where 128-wide consumers pay: 384x5376x4096 in
  wild-tune, on the H100 1.086x jnp.matmul against the 128-byte K-tile's
  0.994x."""
  deep = lambda c: (c.backend == "mosaic" and c.tile_k == 64
                    and c.tile_n == 128 and c.max_concurrent_steps == 3)
  shape = (384, 5376, 4096)
  for dtype in (jnp.bfloat16, jnp.float8_e4m3fn):
    assert not any(map(deep, cost_model.model_candidates(*shape, dtype)))
  hopper()
  (config,) = filter(deep, cost_model.model_candidates(*shape, jnp.float32))
  h100, h200 = (cost_model.coefficients(kind, jnp.float32)
                for kind in (H100, "NVIDIA H200"))
  klass = cost_model.tile_class(config, shape[2], jnp.float32)
  assert h100["wide"]["classes"][klass] != h200["wide"]["classes"][klass]
  for kind in (H100, "NVIDIA H200"):
    assert deep(cost_model.choose_on(kind, 132, *shape, jnp.float32))


def test_every_fitted_class_is_a_candidate():
  with open(cost_model.TABLE_PATH) as f:
    table = json.load(f)
  import wild  # pylint: disable=import-outside-toplevel
  for kinds in table.values():
    for dtype, regimes in kinds.items():
      classes = {cost_model.tile_class(c, e.k, dtype)
                 for e in wild.load("tune")
                 for c in cost_model.model_candidates(e.m, e.n, e.k, dtype)}
      for coefs in regimes.values():
        assert set(coefs["classes"]) <= classes


def test_fitting_refuses_wild_check_shapes(tmp_path):
  import fit_cost_model  # pylint: disable=import-outside-toplevel
  import wild  # pylint: disable=import-outside-toplevel
  from absl import app  # pylint: disable=import-outside-toplevel
  from absl import flags  # pylint: disable=import-outside-toplevel
  check = wild.load("check")[0]
  runs = tmp_path / "runs.jsonl"
  runs.write_text(json.dumps(dict(
      m=check.m, n=check.n, k=check.k, device=H100, dtype="bfloat16",
      impl="xla", status="ok", time_us=1.0)) + "\n")
  flags.FLAGS(["fit_cost_model", f"--runs={runs}"])
  try:
    with pytest.raises(app.UsageError, match="never fitted on"):
      fit_cost_model.main([])
  finally:
    flags.FLAGS.unparse_flags()



@pytest.mark.parametrize("kind, flag, error", [
    ("NVIDIA H200", "--write", "classes of its own"),
    (H100, "--extend=^mosaic:", "by a whole fit")],
    ids=["h200-whole", "h100-extend"])
def test_only_the_h100_ships_a_whole_fit(tmp_path, kind, flag, error):
  """Another kind's entry is merged as classes alone (`cost_model.
  coefficients`), and the H100's is the whole fit others extend: a whole
  fit written for another kind, or classes alone for the H100, would lose
  terms."""
  import fit_cost_model  # pylint: disable=import-outside-toplevel
  import wild  # pylint: disable=import-outside-toplevel
  from absl import app  # pylint: disable=import-outside-toplevel
  from absl import flags  # pylint: disable=import-outside-toplevel
  tune = wild.load("tune")[0]
  runs = tmp_path / "runs.jsonl"
  runs.write_text(json.dumps(dict(
      m=tune.m, n=tune.n, k=tune.k, device=kind, dtype="float32",
      impl="xla", status="ok", time_us=1.0)) + "\n")
  flags.FLAGS(["fit_cost_model", f"--runs={runs}", flag])
  try:
    with pytest.raises(app.UsageError, match=error):
      fit_cost_model.main([])
  finally:
    flags.FLAGS.unparse_flags()


def test_check_runs_are_reported_never_fitted(tmp_path, capsys):
  """--check_runs judges the model fitted on wild-tune on wild-check shapes
  (their pick and rank correlation) and refuses any tune shape there."""
  import fit_cost_model  # pylint: disable=import-outside-toplevel
  import wild  # pylint: disable=import-outside-toplevel
  from absl import app  # pylint: disable=import-outside-toplevel
  from absl import flags  # pylint: disable=import-outside-toplevel
  def rows(entry, pick_us):
    common = dict(m=entry.m, n=entry.n, k=entry.k, device=H100,
                  dtype="bfloat16", status="ok")
    yield dict(common, impl="xla", backend="xla", config=None, time_us=10.0)
    yield dict(common, impl="pick", backend="auto", config=None,
               time_us=pick_us)
    # Candidates the model offers for the shape: only those are fitted.
    for i, config in enumerate(cost_model.model_candidates(
        entry.m, entry.n, entry.k, jnp.bfloat16)[:3]):
      yield dict(common, impl="candidate", backend=config.backend,
                 config=dataclasses.asdict(config), time_us=10.0 + i)

  def write(path, entries):
    path.write_text("".join(json.dumps(r) + "\n" for e in entries
                            for r in rows(e, 20.0)))
    return path

  check = write(tmp_path / "check.jsonl", wild.load("check")[:3])
  tune = write(tmp_path / "tune.jsonl", wild.load("tune")[:4])
  try:
    flags.FLAGS(["fit_cost_model", f"--runs={tune}",
                 f"--check_runs={check}"])
    fit_cost_model.main([])
    assert "3 wild-check shapes, the model fitted on all of wild-tune" in (
        capsys.readouterr().out)
    flags.FLAGS.unparse_flags()
    flags.FLAGS(["fit_cost_model", f"--runs={tune}", f"--check_runs={tune}"])
    with pytest.raises(app.UsageError, match="non-check shapes"):
      fit_cost_model.main([])
  finally:
    flags.FLAGS.unparse_flags()


def test_a_later_run_of_a_shape_replaces_the_earlier(tmp_path):
  import fit_cost_model  # pylint: disable=import-outside-toplevel
  row = lambda m, impl, us: json.dumps(dict(
      m=m, n=64, k=64, device=H100, dtype="bfloat16", impl=impl,
      backend="xla", config=None, status="ok", time_us=us)) + "\n"
  first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
  first.write_text(row(1, "xla", 1.0) + row(1, "pick", 2.0)
                   + row(2, "xla", 3.0))
  second.write_text(row(1, "xla", 5.0))
  times, kind, dtype = fit_cost_model.load([str(first), str(second)])
  assert times == {(1, 64, 64): {"xla": 5.0}, (2, 64, 64): {"xla": 3.0}}
  assert (kind, dtype) == (H100, "bfloat16")


def test_direct_stores_are_priced_and_fitted_as_timed(tmp_path):
  """A Mosaic candidate storing an unaligned output directly is priced at
  DIRECT_STORE_COPY_SHARE of a copy per output byte, in place of the
  padded output's cut (read and written); runs timed before direct stores
  (rows without `layout_version` or `direct_stores`, which calibrate.py
  once wrote) are fitted with their layout of the time, padded and cut."""
  import fit_cost_model  # pylint: disable=import-outside-toplevel
  config = MosaicConfig(tile_m=128, tile_n=192, ping_pong=True)
  shape, bf16 = (1000, 30001, 1024), jnp.bfloat16
  relayout = lambda **kw: cost_model.features(
      config, *shape, bf16, 132, **kw)[0][cost_model.SHARED_TERMS.index(
          "relayout")] * 1e6
  direct = plan_lib.host_layout(*shape, config, bf16, bf16)
  cut = plan_lib.host_layout(*shape, config, bf16, bf16, layout_version=0)
  out_bytes = shape[0] * shape[1] * 2
  assert direct.direct_bytes == out_bytes and cut.direct_bytes == 0
  assert relayout() == pytest.approx(
      direct.copied_bytes + cost_model.DIRECT_STORE_COPY_SHARE * out_bytes)
  assert relayout(layout_version=0) == pytest.approx(cut.copied_bytes)
  assert cut.copied_bytes > direct.copied_bytes + out_bytes  # Cut and more.
  row = lambda m, **extra: json.dumps(dict(
      m=m, n=64, k=64, device=H100, dtype="bfloat16", impl="xla",
      backend="xla", config=None, status="ok", time_us=1.0, **extra)) + "\n"
  runs = tmp_path / "runs.jsonl"
  runs.write_text(row(1) + row(2, direct_stores=True)
                  + row(3, layout_version=plan_lib.LAYOUT_VERSION))
  times, _, _ = fit_cost_model.load([str(runs)])
  assert fit_cost_model.LAYOUT not in times[1, 64, 64]
  assert times[2, 64, 64][fit_cost_model.LAYOUT] == (
      plan_lib.LAYOUT_DIRECT_STORES)
  assert times[3, 64, 64][fit_cost_model.LAYOUT] == plan_lib.LAYOUT_VERSION


def test_k_major_a_in_registers_is_priced_as_timed():
  """TF32 reading a ragged K-major A through registers loads it as stored:
  priced without A's padded copy, which runs timed before it (an older
  `layout_version`) still paid."""
  config = MosaicConfig(tile_m=64, tile_n=192, tile_k=32, wg_dimension="m",
                        epi_tile_n=32, lowering="lane")
  m, n, k = 1001, 2304, 768
  layout = functools.partial(plan_lib.host_layout, m, n, k, config,
                             jnp.float32, jnp.float32)
  a_copy = (m * k + 1008 * k) * 4  # Read, and written padded to 8 rows.
  assert layout(layout_version=plan_lib.LAYOUT_DIRECT_STORES).copied_bytes \
      == layout().copied_bytes + a_copy


def test_a_partial_run_adds_candidates_rescaled(tmp_path):
  """A partial run's (`calibrate.py --labels`) candidates join the earlier
  rows of their shape, rescaled by the reference time that moved less
  (here the library pick's: jnp.matmul's second time is an outlier); a
  shape no earlier run timed is left out."""
  import fit_cost_model  # pylint: disable=import-outside-toplevel
  row = lambda m, impl, us, **extra: json.dumps(dict(
      m=m, n=64, k=64, device=H100, dtype="bfloat16", impl=impl,
      backend="triton" if impl == "candidate" else "xla",
      config=(dataclasses.asdict(TileConfig(64, 64, 64))
              if impl == "candidate" else None),
      status="ok", time_us=us, **extra)) + "\n"
  first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
  first.write_text(row(1, "xla", 10.0) + row(1, "pick", 8.0))
  second.write_text(row(1, "xla", 30.0, partial=True)
                    + row(1, "pick", 9.0, partial=True)
                    + row(1, "candidate", 4.5, partial=True)
                    + row(2, "xla", 1.0, partial=True))
  times, _, _ = fit_cost_model.load([str(first), str(second)])
  assert times == {(1, 64, 64): {"xla": 10.0, "pick": 8.0,
                                 TileConfig(64, 64, 64): 4.0}}


def test_transposed_tiles_fill_the_rounds(hopper):
  """16-bit products also get the transposed product's tile (C^T = B^T
  A^T), 128 columns of N by an M tile of any multiple of 8 that is no
  multiple of 64 (plain tiles cover those): the width leaving the busiest
  SM least work; one tile class for every width, whose coefficients are a
  256-wide tile's, scaled by width + TRANSPOSED_WIDTH_OFFSET."""
  hopper()
  transposed = lambda shape, dtype=jnp.bfloat16: {
      c.cta_tile: c for c in cost_model.model_candidates(*shape, dtype)
      if c.backend == "mosaic" and c.transposed}
  # 257 rows: 4 tiles of 72 by 30 of 128 columns, one round for 132 SMs.
  assert transposed((257, 3840, 1280))[(128, 72)].tile_n == 72
  # 4112 x 1280: 26 tiles of 160 by 10 of 128 columns, exactly 2 rounds.
  assert (128, 160) in transposed((4112, 1280, 1280), jnp.float16)
  assert not transposed((4096, 4096, 4096), jnp.float32)
  coefs = cost_model.coefficients(H100, jnp.bfloat16)
  shape = (3152, 768, 3072)  # wild-tune, where they won 1.18x.
  config = transposed(shape)[(128, 144)]
  assert cost_model.tile_class(config, 3072, jnp.bfloat16) == (
      "mosaic:64xWx64/ws-m/snake-n4/T")
  per_k, per_wave = coefs["wide"]["classes"][
      cost_model.tile_class(config, 3072, jnp.bfloat16)]
  waves = config.waves(768, 3152) * (144 + 53) / (256 + 53)
  assert cost_model.predict_us(config, *shape, jnp.bfloat16, coefs, 132) == (
      pytest.approx(coefs["wide"]["launch"]
                    + waves * (per_k * 3072 / 1e3 + per_wave)))
  assert cost_model.choose(*shape, jnp.bfloat16).transposed


def test_copies_around_the_mosaic_kernel_are_priced(hopper):
  """TF32 stages B K-major, except where consumers 256 wide, or spanning
  all of the transposed product's N, read it through registers and store C
  transposed. For a 128-row output, 64x128 consumers copy nothing; 64x256
  ones pad the result to the CTA tile's 256 rows and cut it, far less than
  the transpose of b that 64x64 consumers copy (1 GB at 128x32000x4096).
  On the H100's float32 check calibration, 64x256 ran 0.96x jnp.matmul, a
  transposed b 0.37x: the pick is one that copies little, and its waves
  are those of the transposed product it runs."""
  hopper()
  shape = (128, 32000, 4096)
  layout = lambda c: plan_lib.host_layout(*shape, c, jnp.float32,
                                          jnp.float32)
  mosaic = [c for c in cost_model.model_candidates(*shape, jnp.float32)
            if c.backend == "mosaic" and c.split_k == 1]
  by_label = {c.label: layout(c) for c in mosaic}
  b_bytes = shape[2] * shape[1] * 4
  copying = "64x64x64/s4/ws-m/snake-n4/epi64x32"
  assert by_label[copying] == (2 * b_bytes, False, 0)
  assert by_label["64x128x32/s4/ws-m/snake-n4/epi64x32"] == (0, True, 0)
  small = ((256 + 128) * (shape[2] + shape[1]) * 4, True, 0)
  wide = "64x256x32/s4/ws-m/snake-n4/epi64x32"
  assert by_label[wide] == small
  assert by_label["64x256x32/s4/ws-m/snake-n8/epi64x32/cluster-m"] == small
  assert cost_model.choose(*shape, jnp.float32).label != copying
  config = next(c for c in mosaic if c.label == wide)
  waves = cost_model.features(config, *shape, jnp.float32, 132)[1][1]
  assert waves == config.waves(shape[1], shape[0]) != config.waves(
      *shape[:2])


def test_transposed_store_only_where_it_copies_less(hopper):
  """The transposed store would pad a 3000x5000 output that the plain
  (lane) store writes in place, copying more than the 700x5000 transpose of
  b it spares (111.7 us against 83.9 on an H200): b is transposed there,
  but not for 128 rows. With K ranges the partial sums' addition cuts the
  padding anyway."""
  hopper()
  config = MosaicConfig(tile_m=64, tile_n=256, tile_k=32, wg_dimension="m",
                        epi_tile_n=32, lowering="lane")
  transposed = lambda c, *shape: plan_lib.host_layout(
      *shape, c, jnp.float32, jnp.float32).transposed_out
  assert not transposed(config, 3000, 5000, 700)
  assert transposed(config, 128, 5000, 700)
  assert transposed(dataclasses.replace(config, split_k=2), 3000, 5000, 700)


def test_float32_with_few_rows_streams_b_through_registers(hopper):
  """A float32 64xNxK product runs transposed on consumers as wide as its
  64 rows, reading b through registers uncopied (on an H100, 64x64 tiles ran
  0.91-0.99x jnp.matmul, Triton's best 0.61-0.77x); a 1000-row one keeps
  64x64 consumers K-major (there the register loads cost more than b's
  transpose)."""
  hopper()
  config = MosaicConfig(tile_m=64, tile_n=64, tile_k=32, wg_dimension="m",
                        epi_tile_n=32)
  layout = lambda *shape: plan_lib.host_layout(*shape, config, jnp.float32,
                                               jnp.float32)
  assert layout(64, 8192, 8192) == (0, True, 0)
  assert not layout(1000, 1000, 1000).transposed_out
  backends = {c.backend for c in cost_model.model_candidates(
      64, 8192, 8192, jnp.float32)}
  assert backends == {"triton", "mosaic"}


@pytest.mark.parametrize("m,mosaic", [(32, False), (33, True), (61, True)])
def test_float32_above_half_a_tile_of_rows_offers_mosaic(hopper, m, mosaic):
  """float32 products of more than 32 rows get Mosaic's candidates (one
  64-row tile, run transposed with b through registers: 0.93-1.04x
  jnp.matmul in H100 probes of 40-60 rows, Triton's best 0.45-0.79x), and
  then no Triton candidate reads an unaligned N-major b in place (2.0-2.2x
  the time over aligned copies); bfloat16 and fewer rows keep them."""
  hopper()
  in_place = lambda c: (c.backend == "triton" and not c.align_operands
                        and not c.k_major_b)
  for dtype, offered in ((jnp.float32, mosaic), (jnp.bfloat16, False)):
    configs = cost_model.model_candidates(m, 4701, 821, dtype)
    assert any(c.backend == "mosaic" for c in configs) == offered
    assert any(map(in_place, configs)) != offered
  # Aligned rows are read in place either way.
  assert any(map(in_place, cost_model.model_candidates(m, 4704, 824,
                                                       jnp.float32)))


@pytest.mark.parametrize("shape,registers", [
    ((384, 5376, 4096), True),  # 84 CTA tiles of 128x256 (run as C^T).
    ((512, 8960, 1536), True),  # 140: two rounds; 280 of 128x128 take 3.
    ((4096, 4096, 4096), False),  # 512: 4 rounds; 1024 of 128x128 take 8.
], ids=str)
def test_consumers_128_wide_use_registers_where_256_leave_sms_idle(
    hopper, shape, registers):
  """TF32 reads b through registers on 64x128 consumers where 64x256 ones
  would leave SMs idle: the busiest SM then does at least 10% less work
  (an H100's float32 384x5376x4096, transposed: 64x128 1.05x jnp.matmul,
  64x256 0.75x, 64x128 with b transposed first 0.51x). Elsewhere b is
  transposed for shared memory, where its narrow wgmmas run faster."""
  hopper()
  config = MosaicConfig(tile_m=64, tile_n=128, tile_k=32, wg_dimension="m",
                        epi_tile_n=32)
  layout = plan_lib.host_layout(*shape, config, jnp.float32, jnp.float32)
  assert (layout.copied_bytes == 0) == registers
  assert layout.transposed_out == registers


def test_narrow_output_stores_are_priced(hopper):
  """Triton stores into the (M, N) output as it is; with N * 2 bytes not a
  multiple of 16, every store is narrow, aligned operands or not. Unpriced,
  the model picked Triton's 128x256 tile for 8192x50257x1024 and it ran
  0.67x jnp.matmul on an H100 (4551 us), against 1.71x for the Mosaic
  tile, which pads the output and cuts it (priced as relayout)."""
  hopper()

  def narrow_store_mb(shape):
    triton = cost_model.model_candidates(*shape, jnp.bfloat16)[0]
    shared, _ = cost_model.features(triton, *shape, jnp.bfloat16, 132)
    return dict(zip(cost_model.SHARED_TERMS, shared))["unaligned_out"]

  shape = (8192, 50257, 1024)
  assert narrow_store_mb(shape) == pytest.approx(8192 * 50257 * 2 / 1e6)
  assert narrow_store_mb((8192, 50264, 1024)) == 0
  assert cost_model.choose(*shape, jnp.bfloat16).backend == "mosaic"


def test_ops_around_the_kernel_cost_a_launch_each(hopper):
  """Aligning 96x16x65 pads a and b, two XLA ops of about 2 us each on an
  H100, as long as the product itself: in place it ran 0.93x jnp.matmul,
  aligned 0.47x. Priced per byte alone, the pads looked free."""
  hopper()
  shape = (96, 16, 65)

  def ops(config):
    shared, _ = cost_model.features(config, *shape, jnp.bfloat16, 132)
    return dict(zip(cost_model.SHARED_TERMS, shared))["extra_ops"]

  candidates = cost_model.model_candidates(*shape, jnp.bfloat16)
  assert {ops(c) for c in candidates if c.align_operands} == {2}
  assert {ops(c) for c in candidates if not c.align_operands
          and c.split_k == 1} == {0}
  assert not cost_model.choose(*shape, jnp.bfloat16).align_operands


@pytest.mark.parametrize("transpose_a,transpose_b,pads", [
    (False, False, ((0, 2), (2, 3), 2)),
    (False, True, ((0, 2), (0, 2), 2)),
    (True, False, ((0, 1), (0, 3), 0)),
    (True, True, ((2, 1), (0, 2), 2)),
], ids=["ab", "ab_t", "a_t_b", "a_t_b_t"])
def test_row_pads_make_every_row_16_bytes(transpose_a, transpose_b, pads):
  """float32 7x13x30 (rows of 4-element multiples): K pads to 32 in both
  operands wherever it runs along a row of either; M and N pad only where
  they are a row."""
  assert layouts.row_pads(7, 13, 30, jnp.float32, transpose_a=transpose_a,
                          transpose_b=transpose_b) == pads


def test_aligning_is_priced_as_the_kernel_pads(hopper):
  """A K-major b has rows of K: with K aligned, aligning pads nothing but
  a's rows, and b's unaligned N (2486) costs neither a pad nor reads in
  place; with b as stored, it costs one pad of b's bytes."""
  hopper()
  shape = (184, 2486, 112)

  def terms(label):
    shared, _ = cost_model.features(TileConfig.from_label(label), *shape,
                                    jnp.float32, 132)
    return dict(zip(cost_model.SHARED_TERMS, shared))

  k_major = terms("128x64x32/w4/s4/kmajor/align")
  assert (k_major["align"], k_major["extra_ops"]) == (0, 1)  # The transpose.
  assert terms("128x64x32/w4/s4/kmajor")["unaligned"] == 0
  as_stored = terms("128x64x32/w4/s4/align")
  assert as_stored["align"] == 112 * 2486 * 4 / 1e6
  assert as_stored["extra_ops"] == 1


@pytest.mark.parametrize("shape, folded_rows", [((1, 50257, 768), 8),
                                                ((8, 50257, 768), 16)],
                         ids=["one-tile-row", "windows"])
def test_folded_candidates_are_priced_as_the_product_they_run(shape,
                                                              folded_rows):
  """A folded decode product (folding.py) costs what the folded product
  its kernel runs costs (one tile row, through 16-row windows where the
  folded rows pass one), plus a's regrouping copy (one row's a is a view
  instead), the kept partial sums and the XLA ops around it (the copy, the
  sum); its tile class is that product's."""
  dtype, fold = jnp.bfloat16, 8
  config = TileConfig(16, 256, 128, num_stages=3, fold_b=True)
  twin = dataclasses.replace(config, fold_b=False)
  folded = (folded_rows, fold * shape[1], shape[2] // fold)
  shared, per_tile = cost_model.features(config, *shape, dtype, 132)
  twin_shared, twin_tile = cost_model.features(twin, *folded, dtype, 132)
  assert per_tile == twin_tile
  terms = dict(zip(cost_model.SHARED_TERMS, shared))
  twin_terms = dict(zip(cost_model.SHARED_TERMS, twin_shared))
  assert terms["reduce"] == shape[0] * folded[1] * 4 / 1e6
  copied = shape[0] > 1  # One row's regrouped a is a view of a.
  assert terms["align"] == (twin_terms["align"]
                            + copied * shape[0] * shape[2] * 2 / 1e6)
  assert terms["extra_ops"] == twin_terms["extra_ops"] + 1 + copied
  assert cost_model.priced_class(config, *shape, dtype) == (
      cost_model.tile_class(twin, folded[2], dtype))


@pytest.mark.parametrize("shape, stages", [
    ((32, 18000, 4096), 3),  # 141 programs of 32x128: 1.07 rounds.
    ((32, 9000, 6000), 4),  # 71: one round.
    ((32, 28672, 4096), 4),  # 224: 1.7 rounds, the tail streams.
], ids=["short-tail", "one-round", "long-tail"])
def test_float32_short_tail_rounds_take_three_stages(hopper, shape, stages):
  """A float32 grid of 32-row Triton tiles that overflows one round of the
  SMs by at most a quarter runs over three stages (`shortens_tail`: on an
  H200, 1.29-1.31x faster there; 2-4% slower at 71 and 224 programs)."""
  hopper()
  chosen = cost_model.choose(*shape, jnp.float32)
  assert (chosen.block_m, chosen.block_n, chosen.num_stages) == (32, 128,
                                                                 stages)
