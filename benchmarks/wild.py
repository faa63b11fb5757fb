"""The `wild` corpus: matmul shapes MxNxK that users bring, each with a source.

C[M, N] = A[M, K] @ B[K, N]. The shapes are the projections of published
models (attention QKV / Q / K-V / out, MLP up / gate / down, LM heads, Mixtral
experts and router, ViT patch embeddings and heads) at token counts from
decode to long prefill; the gradients of some of them; log-uniform random
shapes; and LoRA adapters beside the language models' projections (their
products of a rank-wide output and of a rank-deep K). `build()` makes them
deterministically (fixed seeds) and `wild_shapes.csv` beside this file holds
its output, one row per distinct shape with every source joined by "; ".

A fixed seed splits the distinct shapes, stratified by kind and token regime,
into `wild-tune` and `wild-check`. The rule: heuristics, cost models and
tables may be fitted on wild-tune only; wild-check is held out for reporting,
and no shipped table entry may be keyed to a wild-check shape. A heuristic
fitted on the shapes it is then judged on says nothing about the shapes users
bring.

  python3 benchmarks/wild.py           # counts per split, kind and regime
  python3 benchmarks/wild.py --write   # regenerate wild_shapes.csv
  python3 benchmarks/wild.py --fresh=7 # shapes of neither split, seed 7
"""

from __future__ import annotations

import collections
import csv
import dataclasses
import io
import math
import pathlib
from typing import NamedTuple
import zlib

from absl import app
from absl import flags
import numpy as np

import report

CSV_PATH = pathlib.Path(__file__).resolve().parent / "wild_shapes.csv"
FIELDS = ("m", "n", "k", "split", "kind", "source")
SPLITS = ("tune", "check")
# A merged row takes the first. A kind added later goes last: the split
# shuffles the strata in this order with one seeded stream, so the earlier
# kinds' shapes keep their split.
KINDS = ("model", "moe", "grad", "random", "adapter")
REGIMES = ("decode", "small", "large")
MAX_MNK = 2**39  # About 1.1 TFLOP (1.4 ms of bfloat16 on an H200) at most.

TOKEN_SEED = 2601  # Which token counts each model's projections get.
GRAD_SEED = 2602  # Which forward products contribute their gradients.
RANDOM_SEED = 2603  # The log-uniform random shapes.
SPLIT_SEED = 2604  # The tune / check split.
ADAPTER_SEED = 2605  # Each language model's adapter: projection, rank, tokens.
CHECK_FRACTION = 0.48
MOE_DRAWS = 2
NUM_GRADS = 36
NUM_RANDOM = 50
RANDOM_MAX_DIM = 16384
ADAPTER_RANKS = (8, 16, 32, 64)


class Entry(NamedTuple):
  m: int
  n: int
  k: int
  split: str
  kind: str
  source: str


def regime(m: int) -> str:
  """decode: M <= 64 (a batch of decode steps); small: M <= 1024; large."""
  return "decode" if m <= 64 else "small" if m <= 1024 else "large"


# Token counts M, each with what it stands for.
Pool = tuple[tuple[int, str], ...]
DECODE: Pool = tuple((b, f"decode batch {b}") for b in (1, 8, 16, 32, 64))
PREFILL: Pool = tuple((t, f"prefill {t} tokens") for t in (
    128, 256, 384, 512, 1000, 1024, 2048, 3000, 4096, 6144, 8192, 12288,
    16384))
LLM: Pool = DECODE + PREFILL
BERT: Pool = tuple((s * b, f"seq {s} x batch {b}") for s, b in (
    (128, 1), (384, 1), (512, 1), (128, 8), (128, 32), (384, 12), (512, 16),
    (512, 32)))
T5: Pool = DECODE + tuple((s * b, f"seq {s} x batch {b}") for s, b in (
    (512, 1), (128, 8), (512, 8), (512, 16), (512, 32)))
WHISPER_ENCODER: Pool = tuple((1500 * b, f"1500 frames x {b} clips")
                              for b in (1, 2, 4, 8))
WHISPER_DECODER: Pool = tuple((b, f"decode batch {b}") for b in (
    1, 8, 16, 32)) + ((5, "decode beam 5"), (224, "prefill 224 tokens"),
                      (448, "prefill 448 tokens"))
IMAGE_BATCHES = (1, 4, 8, 16, 32, 64)


def _images(b: int) -> str:
  return "1 image" if b == 1 else f"{b} images"


def vit_pool(tokens: int) -> Pool:
  """`tokens` per image (patches + class token) times a batch of images."""
  return tuple((tokens * b, f"{tokens} tokens x {_images(b)}")
               for b in IMAGE_BATCHES if tokens * b <= 16384)


@dataclasses.dataclass(frozen=True)
class Extra:
  """A product outside the transformer block, with its own token counts."""
  label: str
  n: int
  k: int
  pool: Pool


@dataclasses.dataclass(frozen=True)
class Model:
  """A model's published dimensions; `ref` names the config they come from."""
  name: str
  ref: str
  hidden: int
  ffn: int
  heads: int
  kv_heads: int
  head_dim: int
  vocab: int | None  # LM head width (the checkpoint's vocabulary size).
  gated: bool  # SwiGLU / GeGLU: a gate and an up projection.
  pool: Pool
  moe: tuple[int, int] | None = None  # (experts, experts per token)
  extras: tuple[Extra, ...] = ()


def _vit(name, ref, hidden, ffn, heads, patch, tokens):
  return Model(name, ref, hidden, ffn, heads, heads, hidden // heads, None,
               False, vit_pool(tokens), extras=(
                   Extra(f"patch embedding {patch}x{patch}x3", hidden,
                         3 * patch * patch, tuple(
                             ((tokens - 1) * b,
                              f"{tokens - 1} patches x {_images(b)}")
                             for b in IMAGE_BATCHES)),
                   Extra("ImageNet-1k classifier head", 1000, hidden, tuple(
                       (b, f"batch of {_images(b)}")
                       for b in (1, 8, 32, 64, 256)))))


def _gpt2(size, hidden, heads):
  repo = "gpt2" if size == "small" else f"gpt2-{size}"
  return Model(f"GPT-2 {size}", f"openai-community/{repo} config.json",
               hidden, 4 * hidden, heads, heads, 64, 50257, False, LLM)


# Dimensions from each model's published config (Hugging Face config.json or
# the paper's table): hidden, ffn, heads, kv heads, head_dim, vocab.
MODELS = (
    Model("Llama 2 7B", "meta-llama/Llama-2-7b-hf config.json", 4096, 11008,
          32, 32, 128, 32000, True, LLM),
    Model("Llama 2 13B", "meta-llama/Llama-2-13b-hf config.json", 5120, 13824,
          40, 40, 128, 32000, True, LLM),
    Model("Llama 2 70B", "meta-llama/Llama-2-70b-hf config.json", 8192, 28672,
          64, 8, 128, 32000, True, LLM),
    Model("Llama 3 8B", "meta-llama/Meta-Llama-3-8B config.json", 4096, 14336,
          32, 8, 128, 128256, True, LLM),
    Model("Llama 3 70B", "meta-llama/Meta-Llama-3-70B config.json", 8192,
          28672, 64, 8, 128, 128256, True, LLM),
    Model("Mistral 7B", "mistralai/Mistral-7B-v0.1 config.json", 4096, 14336,
          32, 8, 128, 32000, True, LLM),
    Model("Mixtral 8x7B", "mistralai/Mixtral-8x7B-v0.1 config.json", 4096,
          14336, 32, 8, 128, 32000, True, LLM, moe=(8, 2)),
    Model("Gemma 2 9B", "google/gemma-2-9b config.json", 3584, 14336, 16, 8,
          256, 256000, True, LLM),
    Model("Gemma 2 27B", "google/gemma-2-27b config.json", 4608, 36864, 32,
          16, 128, 256000, True, LLM),
    Model("Gemma 3 1B", "google/gemma-3-1b-pt config.json", 1152, 6912, 4, 1,
          256, 262144, True, LLM),
    Model("Gemma 3 4B", "google/gemma-3-4b-pt config.json text_config", 2560,
          10240, 8, 4, 256, 262208, True, LLM),
    Model("Gemma 3 12B", "google/gemma-3-12b-pt config.json text_config", 3840,
          15360, 16, 8, 256, 262208, True, LLM),
    Model("Gemma 3 27B", "google/gemma-3-27b-pt config.json text_config", 5376,
          21504, 32, 16, 128, 262208, True, LLM),
    Model("Qwen 2.5 1.5B", "Qwen/Qwen2.5-1.5B config.json", 1536, 8960, 12, 2,
          128, 151936, True, LLM),
    Model("Qwen 2.5 7B", "Qwen/Qwen2.5-7B config.json", 3584, 18944, 28, 4,
          128, 152064, True, LLM),
    Model("Qwen 2.5 14B", "Qwen/Qwen2.5-14B config.json", 5120, 13824, 40, 8,
          128, 152064, True, LLM),
    Model("Qwen 2.5 72B", "Qwen/Qwen2.5-72B config.json", 8192, 29568, 64, 8,
          128, 152064, True, LLM),
    Model("Phi-3 mini", "microsoft/Phi-3-mini-4k-instruct config.json", 3072,
          8192, 32, 32, 96, 32064, True, LLM),
    Model("Phi-3 medium", "microsoft/Phi-3-medium-4k-instruct config.json",
          5120, 17920, 40, 10, 128, 32064, True, LLM),
    _gpt2("small", 768, 12),
    _gpt2("medium", 1024, 16),
    _gpt2("large", 1280, 20),
    _gpt2("xl", 1600, 25),
    Model("GPT-J 6B", "EleutherAI/gpt-j-6b config.json", 4096, 16384, 16, 16,
          256, 50400, False, LLM),
    Model("GPT-NeoX 20B", "EleutherAI/gpt-neox-20b config.json", 6144, 24576,
          64, 64, 96, 50432, False, LLM),
    Model("BERT base", "google-bert/bert-base-uncased config.json", 768, 3072,
          12, 12, 64, 30522, False, BERT),
    Model("BERT large", "google-bert/bert-large-uncased config.json", 1024,
          4096, 16, 16, 64, 30522, False, BERT),
    Model("T5 base", "google-t5/t5-base config.json", 768, 3072, 12, 12, 64,
          32128, False, T5),
    Model("T5 large", "google-t5/t5-large config.json", 1024, 4096, 16, 16, 64,
          32128, False, T5),
    Model("T5 v1.1 XL", "google/t5-v1_1-xl config.json", 2048, 5120, 32, 32,
          64, 32128, True, T5),
    _vit("ViT-B/16", "google/vit-base-patch16-224 config.json", 768, 3072, 12,
         16, 197),
    _vit("ViT-L/16", "google/vit-large-patch16-224 config.json", 1024, 4096,
         16, 16, 197),
    _vit("ViT-H/14", "google/vit-huge-patch14-224-in21k config.json", 1280,
         5120, 16, 14, 257),
    Model("Whisper large-v2 encoder", "openai/whisper-large-v2 config.json",
          1280, 5120, 20, 20, 64, None, False, WHISPER_ENCODER),
    Model("Whisper large-v2 decoder", "openai/whisper-large-v2 config.json",
          1280, 5120, 20, 20, 64, 51865, False, WHISPER_DECODER, extras=(
              Extra("cross-attn K+V fused over encoder output", 2 * 1280,
                    1280, WHISPER_ENCODER),)),
)


def projections(model: Model) -> list[tuple[str, int, int]]:
  """(label, N, K) of each distinct product in one block, and the LM head."""
  h, f = model.hidden, model.ffn
  q = model.heads * model.head_dim
  kv = model.kv_heads * model.head_dim
  out = [(f"attn QKV fused N=({model.heads}+2*{model.kv_heads})"
          f"*{model.head_dim}", q + 2 * kv, h)]
  if kv != q:
    out += [(f"attn Q N={model.heads}*{model.head_dim}", q, h),
            (f"attn K or V N={model.kv_heads}*{model.head_dim}", kv, h)]
  elif q != h:
    out += [("attn Q/K/V each", q, h)]
  out += [("attn out" + (" (same shape as Q/K/V each)" if q == h == kv else ""),
           h, q)]
  if model.moe is None:
    if model.gated:
      out += [("MLP gate+up fused N=2*ffn", 2 * f, h),
              ("MLP gate or up", f, h)]
    else:
      out += [("MLP up", f, h)]
    out += [("MLP down", h, f)]
  if model.vocab:
    out += [(f"LM head vocab={model.vocab}", model.vocab, h)]
  return out


def _fits(pool: Pool, n: int, k: int) -> Pool:
  return tuple((m, d) for m, d in pool if m * n * k <= MAX_MNK)


def _draw(rng, pool: Pool, n: int, k: int, want: str):
  """A token count from `pool` in regime `want`, else any that fits."""
  fits = _fits(pool, n, k)
  choice = tuple(t for t in fits if regime(t[0]) == want) or fits
  return choice[rng.integers(len(choice))] if choice else None


def _model_rng(seed: int, name: str):
  """One stream per model, so editing one model leaves the others' draws."""
  return np.random.default_rng([seed, zlib.crc32(name.encode())])


def _model_entries(model: Model, seed: int = TOKEN_SEED
                   ) -> list[tuple[int, int, int, str, str]]:
  """Each projection at one token count, the regimes cycled over projections
  so that every model covers every regime its token counts reach."""
  rng = _model_rng(seed, model.name)
  rows = []
  products = [(label, n, k, model.pool) for label, n, k in projections(model)]
  products += [(e.label, e.n, e.k, e.pool) for e in model.extras]
  present = [r for r in REGIMES if any(regime(m) == r for m, _ in model.pool)]
  offset = int(rng.integers(len(present)))
  for i, (label, n, k, pool) in enumerate(products):
    drawn = _draw(rng, pool, n, k, present[(i + offset) % len(present)])
    if drawn:
      rows.append((drawn[0], n, k, "model",
                   f"{model.name}: {label} @ {drawn[1]}"))
  if model.moe:
    rows += _moe_entries(model, rng)
  return rows


def _tokens(t: int) -> str:
  return f"{t} token" if t == 1 else f"{t} tokens"


def _moe_entries(model: Model, rng) -> list[tuple[int, int, int, str, str]]:
  """Router and experts; an expert sees tokens * top_k / experts of them."""
  experts, top_k = model.moe
  h, f = model.hidden, model.ffn
  per_expert = tuple((max(1, t * top_k // experts),
                      f"{_tokens(t)} top-{top_k} of {experts} experts")
                     for t, _ in LLM)
  router = tuple((t, _tokens(t)) for t, _ in LLM)
  products = [(f"router N={experts}", experts, h, router),
              ("expert gate+up fused N=2*ffn", 2 * f, h, per_expert),
              ("expert gate or up", f, h, per_expert),
              ("expert down", h, f, per_expert)]
  rows = []
  for label, n, k, pool in products:
    for want in REGIMES:  # Up to MOE_DRAWS token counts in each regime.
      fits = [t for t in _fits(pool, n, k) if regime(t[0]) == want]
      for i in rng.permutation(len(fits))[:MOE_DRAWS]:
        rows.append((fits[i][0], n, k, "moe",
                     f"{model.name}: {label} @ {fits[i][1]}"))
  return rows


def _grad_entries(forward, seed: int = GRAD_SEED
                  ) -> list[tuple[int, int, int, str, str]]:
  """dA = dC B^T is M x K x N and dB = A^T dC is K x N x M, for forward
  products at training token counts (M >= 128), until NUM_GRADS new shapes."""
  rng = np.random.default_rng(seed)
  train = sorted(r for r in forward if r[0] >= 128)
  seen = {r[:3] for r in forward}
  rows = []
  for i in rng.permutation(len(train)):
    m, n, k, _, source = train[i]
    for name, shape in (("dA", (m, k, n)), ("dB", (k, n, m))):
      if shape not in seen and len(rows) < NUM_GRADS:
        seen.add(shape)
        rows.append((*shape, "grad", f"grad-{name} of {source}"))
  return rows


def _random_entries(seed: int = RANDOM_SEED
                    ) -> list[tuple[int, int, int, str, str]]:
  """M, N, K each log-uniform in [1, RANDOM_MAX_DIM]; costlier ones redrawn."""
  rng = np.random.default_rng(seed)
  rows = []
  while len(rows) < NUM_RANDOM:
    m, n, k = (int(round(math.exp(x))) for x in
               rng.uniform(0, math.log(RANDOM_MAX_DIM), size=3))
    if m * n * k <= MAX_MNK:
      rows.append((m, n, k, "random",
                   f"random log-uniform seed={seed} #{len(rows)}"))
  return rows


def _adapter_entries(seed: int = ADAPTER_SEED
                     ) -> list[tuple[int, int, int, str, str]]:
  """A LoRA adapter (Hu et al., 2021) fine-tuning each language model: a
  rank-r pair A (K x r), B (r x N) beside one of its block's N x K
  projections, at a prefill token count M: x @ A is M x r x K (an output r
  wide) and (x A) @ B is M x N x r (K = r, 8 to 64: one K-phase or less)."""
  rows = []
  for model in MODELS:
    if model.pool is not LLM:
      continue
    rng = _model_rng(seed, model.name)
    block = [p for p in projections(model) if not p[0].startswith("LM head")]
    label, n, k = block[rng.integers(len(block))]
    rank = ADAPTER_RANKS[rng.integers(len(ADAPTER_RANKS))]
    tokens, what = PREFILL[rng.integers(len(PREFILL))]
    source = f"{model.name}: LoRA rank {rank} %s of {label} @ {what}"
    rows += [(tokens, rank, k, "adapter", source % "x @ A"),
             (tokens, n, rank, "adapter", source % "(x A) @ B")]
  return rows


def _split(shapes: dict) -> dict:
  """(m, n, k) -> split: within each (kind, regime) stratum, a seeded shuffle
  of its sorted shapes puts CHECK_FRACTION of them (at least one of two or
  more, never all) into check."""
  rng = np.random.default_rng(SPLIT_SEED)
  strata = collections.defaultdict(list)
  for shape, kind in sorted(shapes.items()):
    strata[(KINDS.index(kind), REGIMES.index(regime(shape[0])))].append(shape)
  split = {}
  for key in sorted(strata):
    members = strata[key]
    order = rng.permutation(len(members))
    n_check = round(len(members) * CHECK_FRACTION)
    if len(members) >= 2:
      n_check = min(max(n_check, 1), len(members) - 1)
    for rank, i in enumerate(order):
      split[members[i]] = "check" if rank < n_check else "tune"
  return split


def _entries(seeds) -> list[tuple[int, int, int, str, str]]:
  """Every kind's draws, from seeds (token, grad, random, adapter)."""
  token_seed, grad_seed, random_seed, adapter_seed = seeds
  forward = [row for model in MODELS
             for row in _model_entries(model, token_seed)]
  return (forward + _grad_entries(forward, grad_seed)
          + _random_entries(random_seed) + _adapter_entries(adapter_seed))


def build() -> list[Entry]:
  """The corpus, one Entry per distinct (m, n, k), sorted by (split, m, n, k).

  Deterministic: every draw comes from a fixed seed."""
  rows = _entries((TOKEN_SEED, GRAD_SEED, RANDOM_SEED, ADAPTER_SEED))
  kinds, sources = {}, collections.defaultdict(list)
  for m, n, k, kind, source in rows:
    shape = (m, n, k)
    if kinds.get(shape) is None or KINDS.index(kind) < KINDS.index(
        kinds[shape]):
      kinds[shape] = kind
    if source not in sources[shape]:
      sources[shape].append(source)
  split = _split(kinds)
  return sorted(Entry(*shape, split[shape], kinds[shape],
                      "; ".join(sources[shape])) for shape in kinds)


def fresh(seed: int) -> list[tuple[int, int, int]]:
  """Shapes of neither split, drawn as the corpus is (the same models,
  kinds and bounds) from other seeds: a sample of the shapes users bring
  that no heuristic, fit or table has seen, to measure how selection
  generalizes (BUILD_NOTES.md, forty-fourth session). Deterministic per
  seed; sorted, distinct, none in the corpus."""
  seeds = [int(x) for x in np.random.default_rng(
      [seed, zlib.crc32(b"fresh")]).integers(2**31, size=4)]
  corpus = {(e.m, e.n, e.k) for e in load()}
  return sorted({row[:3] for row in _entries(seeds)} - corpus)


def to_csv(entries: list[Entry]) -> str:
  out = io.StringIO()
  writer = csv.writer(out, lineterminator="\n")
  writer.writerow(FIELDS)
  writer.writerows(entries)
  return out.getvalue()


def load(split: str | None = None, path=CSV_PATH) -> list[Entry]:
  """The committed corpus (all of it, or one split), as written by build()."""
  if split is not None and split not in SPLITS:
    raise ValueError(f"split {split!r} is not one of {SPLITS}")
  with open(path, newline="") as f:
    entries = [Entry(int(r["m"]), int(r["n"]), int(r["k"]), r["split"],
                     r["kind"], r["source"]) for r in csv.DictReader(f)]
  return [e for e in entries if split is None or e.split == split]


def suite(name: str) -> list[str]:
  """'wild-tune' or 'wild-check' as MxNxK strings, like suites.SUITES."""
  if name not in SUITE_NAMES:
    raise ValueError(f"suite {name!r} is not one of {SUITE_NAMES}")
  return [f"{e.m}x{e.n}x{e.k}" for e in load(name.removeprefix("wild-"))]


SUITE_NAMES = ("wild-tune", "wild-check")


def suites() -> dict[str, list[str]]:
  """{"wild-tune": [...], "wild-check": [...]}; read from the CSV on call."""
  return {name: suite(name) for name in SUITE_NAMES}


def summary(entries: list[Entry]) -> str:
  lines = [f"{len(entries)} distinct shapes"]
  for split in SPLITS:
    part = [e for e in entries if e.split == split]
    kinds = collections.Counter(e.kind for e in part)
    regimes = collections.Counter(regime(e.m) for e in part)
    lines.append(
        f"{split}: {len(part)}; "
        + ", ".join(f"{kind} {kinds[kind]}" for kind in KINDS) + "; "
        + ", ".join(f"{r} {regimes[r]}" for r in REGIMES))
  return "\n".join(lines)


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  if _FRESH.value is not None:
    print(",".join(f"{m}x{n}x{k}" for m, n, k in fresh(_FRESH.value)
                   if m * n * k >= _FRESH_MIN_MACS.value))
    return
  entries = build()
  text = to_csv(entries)
  if _WRITE.value:
    CSV_PATH.write_text(text)
    print(f"wrote {CSV_PATH}")
  elif not CSV_PATH.exists() or CSV_PATH.read_text() != text:
    print(f"{CSV_PATH} is stale: regenerate it with --write")
  print(summary(entries))


if __name__ == "__main__":
  # Defined here, so that importing wild for its suites adds no flags.
  _WRITE = flags.DEFINE_bool("write", False,
                             f"Regenerate {CSV_PATH.name} from build().")
  _FRESH = flags.DEFINE_integer(
      "fresh", None, "Print fresh(SEED)'s shapes, comma-separated, for"
      " matmul_benchmark.py --shapes.")
  _FRESH_MIN_MACS = flags.DEFINE_integer(
      "fresh_min_macs", report.MIN_STATS_MACS, "With --fresh, only shapes"
      " of at least this many multiply-adds (the speedup statistics' bound).")
  app.run(main)
