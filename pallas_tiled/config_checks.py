"""What both backends' config dataclasses share: field checks, powers of
two, and filtering candidate configs by a backend's checks."""

from __future__ import annotations

import dataclasses

import numpy as np


def is_power_of_two(x: int) -> bool:
  return x > 0 and x & (x - 1) == 0


def next_power_of_two(x: int) -> int:
  return 1 << max(0, int(x) - 1).bit_length()


def check_fields(config, *, minimum=None, choices=None) -> None:
  """Type- and range-checks a frozen config dataclass's fields in place.

  bool fields must be bools; str fields must be in `choices[name]`; int
  fields must be ints of at least `minimum.get(name, 1)`. numpy scalars are
  normalized to Python bools and ints, so equal configs hash equal.
  """
  cls = type(config).__name__
  for field in dataclasses.fields(config):
    name, value = field.name, getattr(config, field.name)
    if field.type in ("bool", bool):
      if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{cls}.{name} must be a bool, got {value!r}.")
      object.__setattr__(config, name, bool(value))
    elif field.type in ("str", str):
      if value not in choices[name]:
        raise ValueError(f"{cls}.{name} must be one of"
                         f" {tuple(choices[name])}, got {value!r}.")
    else:
      if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"{cls}.{name} must be an int, got {value!r} of type"
            f" {type(value).__name__}.")
      low = (minimum or {}).get(name, 1)
      if value < low:
        raise ValueError(
            f"{cls}.{name} must be "
            + ("positive" if low == 1 else f">= {low}") + f", got {value}.")
      object.__setattr__(config, name, int(value))


def passing(candidates, check) -> list:
  """The distinct candidates, in order, that `check` does not reject with a
  ValueError."""
  valid = []
  for c in dict.fromkeys(candidates):
    try:
      check(c)
    except ValueError:
      continue
    valid.append(c)
  return valid
