"""Speed of DP-SignOPORP-RR-smooth (paper 001, Algorithm 8) against a float numpy version of
the same algorithm, in ONE process, interleaved (issue 12, "Speed").

    python tests/benchmarks/bench_projections.py                 # n = 10^4, p = 2^14, k = 1024
    python tests/benchmarks/bench_projections.py --n 1000 --rounds 1     # quick

Both sides: the same data (int8 vectors with entries in [-C, C]), the same OPORP plan, the same
levels ``L = min(ceil(|x|/beta), L_max)`` and keep probabilities ``rho^L/(rho^L + 1)``, a coin
for ``x = 0``.  exactdp: ``DPSignOPORP.sample_batch`` with ``SystemSource`` (exact rational
``rho = a/b``, one uniform(D) per bit from the OS CSPRNG by rejection, the native kernel when
built).  numpy: float64 projections, float keep probabilities, ``Generator.random``
(PCG64, not a CSPRNG) -- the "straightforward float implementation" the issue compares with.
Needs numpy (not a runtime dependency of exactdp).  Prints one table row per side and the ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

from exactdp.projections import DPSignOPORP, OPORPPlan, base_from_eps, fast, largest_l_max
from exactdp.randomness import SeededSource, SystemSource


def numpy_release(data: np.ndarray, perm: np.ndarray, w: np.ndarray, k: int, beta: int,
                  l_max: int, rho: float, rng: np.random.Generator, chunk: int) -> np.ndarray:
    """Algorithm 8 (smooth) in float numpy: the same law up to float rounding."""
    n, p = data.shape
    out = np.empty((n, k), dtype=np.int8)
    for start in range(0, n, chunk):
        u = data[start:start + chunk, perm].astype(np.float64) * w
        x = u.reshape(len(u), k, p // k).sum(axis=2)
        level = np.minimum(np.ceil(np.abs(x) / beta), l_max)
        keep = rho**level / (rho**level + 1.0)
        s = np.where(x < 0, -1, 1).astype(np.int8)
        flip = rng.random(x.shape) >= keep
        out[start:start + chunk] = np.where(flip, -s, s)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--p", type=int, default=1 << 14)
    ap.add_argument("--k", type=int, default=1024)
    ap.add_argument("--C", type=int, default=16, help="data entries in [-C, C]")
    ap.add_argument("--beta", type=int, default=16, help="neighbours: one entry moves <= beta")
    ap.add_argument("--eps", default="1", help="per-bin budget; rho = a/b <= e^eps")
    ap.add_argument("--max-denominator", type=int, default=8)
    ap.add_argument("--limb-bits", type=int, default=64,
                    help="L_max = the largest with D below this many bits")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pure", action="store_true",
                    help="force exactdp's pure-Python path (EXACTDP_NATIVE=0); use a small --n")
    args = ap.parse_args(argv)
    if args.pure:
        os.environ["EXACTDP_NATIVE"] = "0"
        fast._library.cache_clear()

    base = base_from_eps(args.eps, 1, args.max_denominator)
    l_max = largest_l_max(base, args.limb_bits)
    plan = OPORPPlan.sample(args.p, args.k, SeededSource(12))
    mech = DPSignOPORP(plan, args.beta, base, l_max, smooth=True)
    rng = np.random.default_rng(1)
    data = rng.integers(-args.C, args.C + 1, size=(args.n, args.p), dtype=np.int8)
    # numpy's view of the plan: position t holds coordinate perm[t], times w[t]
    perm = np.array(plan.perm)
    w = np.array(plan.w, dtype=np.float64)
    rho = base.a / base.b  # float-ok: the float baseline only
    chunk = max(1, (1 << 24) // args.p)
    print(f"# n={args.n} p={args.p} k={args.k} C={args.C} beta={args.beta} "
          f"rho={base.a}/{base.b} L_max={l_max} D={mech.flipper.denominator.bit_length()} bits; "
          f"exactdp path: {fast.status()}", file=sys.stderr)
    exact_t, float_t = [], []
    src = SystemSource()
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        bits = mech.sample_batch(data, src)
        exact_t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ref = numpy_release(data, perm, w, args.k, args.beta, l_max, rho, rng, chunk)
        float_t.append(time.perf_counter() - t0)
    # sanity (same law): the fraction of released bits equal to the true sign, on both sides,
    # next to its expectation mean(keep(L)) computed from the exact keep probabilities
    m = min(args.n, 1000)
    x = (data[:m, perm].astype(np.int64) * np.array(plan.w)).reshape(m, args.k, -1).sum(axis=2)
    true = np.where(x < 0, -1, 1)
    level = np.minimum((np.abs(x) + args.beta - 1) // args.beta, l_max)
    keep = [base.keep(int(v)) for v in range(l_max + 1)]
    expected = sum(keep[v] * c for v, c in zip(*np.unique(level, return_counts=True)))
    got_exact = np.mean(np.frombuffer(bits, dtype=np.int8)[:m * args.k] == true.ravel())
    got_float = np.mean(ref[:m] == true)
    e, f = statistics.median(exact_t), statistics.median(float_t)
    print("| side | median s | runs (s) |")
    print("|---|---|---|")
    print(f"| exactdp DPSignOPORP.sample_batch | {e:.2f} | {', '.join(f'{t:.2f}' for t in exact_t)} |")
    print(f"| numpy float | {f:.2f} | {', '.join(f'{t:.2f}' for t in float_t)} |")
    print(f"ratio exactdp/numpy = {e / f:.2f}")
    print(f"kept-sign fraction on the first {m} vectors: exactdp {got_exact:.4f}, numpy "
          f"{got_float:.4f}, exact expectation {float(expected / (m * args.k)):.4f}")
    return 0


if __name__ == "__main__":
    import record

    raise SystemExit(record.run(main, __file__))
