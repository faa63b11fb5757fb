"""Named shape suites shared by the benchmark and the tuning binary.

Shapes are MxNxK, or BxMxNxK for B independent products (a batch of B
(M, K) @ (K, N) matmuls, one batch grid axis). "wild-tune" and "wild-check"
are the shapes users bring (`wild.py`): fit on the first, report on the
second.
"""

import wild

SUITES = {
    "square": ["1024x1024x1024", "2048x2048x2048", "4096x4096x4096",
               "8192x8192x8192"],
    "llm": ["4096x14336x4096", "4096x4096x14336", "8192x8192x8192",
            "16x8192x8192"],
    "ragged": ["4097x4097x4097", "1000x1000x1000", "3000x5000x700",
               "2047x8191x1023"],
    "batched": ["32x512x512x512", "16x1024x1024x1024", "8x2048x2048x2048"],
    "tiny": ["64x64x64", "127x129x65", "1x256x128", "200x100x300"],
    **wild.suites(),
}


def parse_shape(text: str) -> tuple[int, ...]:
  """'4096x14336x4096' -> (4096, 14336, 4096); '8x512x512x512' -> (8, 512,
  512, 512), batch first. ValueError if malformed."""
  try:
    dims = tuple(int(part) for part in text.lower().split("x"))
  except ValueError:
    dims = ()
  if len(dims) not in (3, 4):
    raise ValueError(f"shape {text!r} is not MxNxK or BxMxNxK, e.g."
                     " 4096x4096x4096 or 8x2048x2048x2048")
  if min(dims) < 1:
    raise ValueError(f"shape {text!r} needs positive dimensions")
  return dims
