"""Autotuning (`autotune.py`) and where tuned configs live (`cache.py`: the
user's cache file and the tables shipped per device in `tables/`)."""
