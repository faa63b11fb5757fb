"""The Hopper backend: Pallas on Mosaic GPU (TMA, wgmma, warp specialization).

kernel.py: the persistent, warp-specialized kernel and its wrapper.
config.py: `MosaicConfig` and the compiled kernel's rules.
heuristics.py: the default config for a shape nobody tuned (wave cost).
candidates.py: the configs the autotuner times.
tf32_wgmma.py, tf32x3.py: float32 on TF32 matrix units (see docs/design.md).
"""
