"""Probe (offline, NumPy): wgmma truncates float32 operands to TF32, cuBLAS
rounds them. Truncation's error has a coherent part: each operand shrinks by
~ln2 * 2^-11 on average, so every product by ~2 ln2 2^-11. Scaling the
result by s(A) s(B), s(X) = sum|X| / sum|trunc(X)|, removes that part. How
close does that come to rounding's error, per data distribution and K, with
s from the whole operands, from a strided sample, or per output tile from
its first 32-wide K-step only (what a kernel could compute in place)?"""
import numpy as np

rng = np.random.default_rng(0)


def trunc(x):
  return (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


def rne(x):
  u = x.view(np.uint32).astype(np.uint64)
  u = (u + 0xFFF + ((u >> 13) & 1)) & 0xFFFFE000
  return u.astype(np.uint32).view(np.float32)


def rel(out, ref):
  return np.linalg.norm(out - ref) / np.linalg.norm(ref)


def s(x, tx, axis=None):
  return (np.abs(x).sum(axis, dtype=np.float64)
          / np.abs(tx).sum(axis, dtype=np.float64))


def bf16(x):
  return (x.astype(np.float32).view(np.uint32)
          & np.uint32(0xFFFF0000)).view(np.float32)


DATA = {
    "normal": rng.standard_normal,
    "uniform[-1,1]": lambda sh: rng.uniform(-1, 1, sh),
    "uniform[0,1]": rng.random,
    "relu(normal)": lambda sh: np.maximum(rng.standard_normal(sh), 0),
    "bf16 upcast": lambda sh: bf16(rng.standard_normal(sh)),
    "lognormal(2), signed": lambda sh: rng.lognormal(0, 2, sh) * rng.choice(
        [-1, 1], sh),
}
M = N = 512
TM, TN, TK = 128, 256, 32
print(f"{'data':22s} {'K':>5s} {'round':>8s} {'trunc':>8s} {'x const':>8s}"
      f" {'x s(A)s(B)':>10s} {'sampled':>8s} {'per tile':>8s}  (relative"
      " error; float64 reference)")
for name, gen in DATA.items():
  for k in (256, 4096):
    a = gen((M, k)).astype(np.float32)
    b = gen((k, N)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    ta, tb = trunc(a), trunc(b)
    out_t = ta.astype(np.float64) @ tb.astype(np.float64)
    out_r = rne(a).astype(np.float64) @ rne(b).astype(np.float64)
    const = 1 + 2 * np.log(2) * 2**-11
    whole = s(a, ta) * s(b, tb)
    sampled = (s(a.ravel()[::97], ta.ravel()[::97])
               * s(b.ravel()[::97], tb.ravel()[::97]))
    # Per output tile: its rows of A and columns of B over the first K-step.
    sa = np.repeat([s(a[i:i + TM, :TK], ta[i:i + TM, :TK])
                    for i in range(0, M, TM)], TM)[:, None]
    sb = np.repeat([s(b[:TK, j:j + TN], tb[:TK, j:j + TN])
                    for j in range(0, N, TN)], TN)[None, :]
    print(f"{name:22s} {k:5d} {rel(out_r, ref):8.2e} {rel(out_t, ref):8.2e}"
          f" {rel(out_t * const, ref):8.2e} {rel(out_t * whole, ref):10.2e}"
          f" {rel(out_t * sampled, ref):8.2e} {rel(out_t * sa * sb, ref):8.2e}")
