"""The Triton backend: Pallas lowered through Triton, on any CUDA GPU.

kernel.py: the tiled kernel, the seeds' tiling concept read top to bottom.
masking.py: zero-filled loads and masked stores at ragged edges.
config.py: `TileConfig` and the compiled kernel's rules.
heuristics.py: the default config for a shape nobody tuned.
candidates.py: the configs the autotuner times.
"""
