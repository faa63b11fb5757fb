"""Probe (removed next commit): shapes in neither split, drawn fresh, to time
the default pick against jnp.matmul as a user's unseen shapes would be."""
import csv, math, pathlib, sys
import numpy as np

corpus = {(int(r["m"]), int(r["n"]), int(r["k"])) for r in csv.DictReader(
    open(pathlib.Path(__file__).parent.parent / "benchmarks/wild_shapes.csv"))}
rng = np.random.default_rng(20261202)
# (model, hidden, ffn, qkv_n, attn_in, vocab) of models outside the corpus.
models = [
    ("Llama 3.2 1B", 2048, 8192, 3072, 2048, 128256),
    ("Llama 3.2 3B", 3072, 8192, 5120, 3072, 128256),
    ("Qwen 2.5 0.5B", 896, 4864, 1152, 896, 151936),
    ("Qwen 2.5 32B", 5120, 27648, 7168, 5120, 152064),
    ("Mistral Nemo", 5120, 14336, 6144, 4096, 131072),
    ("Falcon 7B", 4544, 18176, 4672, 4544, 65024),
    ("OPT 1.3B", 2048, 8192, 6144, 2048, 50272),
    ("DiT-XL/2", 1152, 4608, 3456, 1152, 0),
    ("SigLIP so400m", 1152, 4304, 3456, 1152, 0),
    ("CLIP ViT-L/14-336", 1024, 4096, 3072, 1024, 0),
]
tokens = [1, 4, 16, 24, 48, 77 * 8, 333, 729 * 4, 577 * 16, 1500, 2500, 4000,
          6144, 12000, 256 * 8]
shapes = []
for name, h, f, qkv, ain, vocab in models:
  for _ in range(4):
    m = int(rng.choice(tokens))
    kind = rng.integers(0, 5 if vocab else 4)
    n, k = [(qkv, h), (h, ain), (f, h), (h, f), (vocab, h)][kind]
    if rng.random() < 0.25 and m > 64:  # a gradient: dB = A^T dC
      m, n, k = k, n, m
    shapes.append((m, n, k))
# LoRA adapters: x @ A (N = rank) and (x A) @ B (K = rank).
for _ in range(8):
  name, h, f, qkv, ain, vocab = models[rng.integers(len(models))]
  r = int(rng.choice([8, 16, 32, 64])); m = int(rng.choice(tokens[5:]))
  shapes.append((m, r, h) if rng.random() < 0.5 else (m, qkv, r))
while len(shapes) < 84:
  m, n, k = np.exp(rng.uniform(0, math.log(16384), 3)).astype(int)
  if 2**24 <= m * n * k <= 2**38:
    shapes.append((int(m), int(n), int(k)))
out = []
for s in shapes:
  if (s not in corpus and s not in out
      and 2**22 <= math.prod(s) <= 2**39):
    out.append(s)
print(",".join(f"{m}x{n}x{k}" for m, n, k in out))
print(len(out), file=sys.stderr)
