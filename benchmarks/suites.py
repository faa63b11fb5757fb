"""Named shape suites (MxNxK) shared by the benchmark and the tuning binary."""

SUITES = {
    "square": ["1024x1024x1024", "2048x2048x2048", "4096x4096x4096",
               "8192x8192x8192"],
    "llm": ["4096x14336x4096", "4096x4096x14336", "8192x8192x8192",
            "16x8192x8192"],
    "ragged": ["4097x4097x4097", "1000x1000x1000", "3000x5000x700",
               "2047x8191x1023"],
    "tiny": ["64x64x64", "127x129x65", "1x256x128", "200x100x300"],
}


def parse_shape(text: str) -> tuple[int, int, int]:
  """'4096x14336x4096' -> (4096, 14336, 4096); ValueError if malformed."""
  try:
    m, n, k = (int(part) for part in text.lower().split("x"))
  except ValueError:
    raise ValueError(f"shape {text!r} is not MxNxK, e.g. 4096x4096x4096")
  if min(m, n, k) < 1:
    raise ValueError(f"shape {text!r} needs positive dimensions")
  return m, n, k
