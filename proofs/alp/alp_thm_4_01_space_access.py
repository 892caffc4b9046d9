"""ALP-short Theorems 4.1, 4.2 (and 1.1's summary of them): the space of a release in bits
and the cells a query reads, measured on the implementation's releases against the stated
bounds with explicit constants."""

from __future__ import annotations

import warnings
from fractions import Fraction
from typing import Any

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.explore import explore
from exactdp.proofs.alp._alp import reads_per_query
from exactdp.randomness import NotForReleaseWarning, SeededSource
from exactdp.sparse_vectors.approx import ApproxThresholdALP
from exactdp.sparse_vectors.combined import ThresholdALP, ThresholdALPSketch

CLAIM = "ALP Theorems 4.1/4.2 space and access (measured)"
STATEMENT = """ALP-short Theorem 4.1 (pure, beta = t, eps/2 per part): O(log d) access time and
O(k log(d + u)) bits w.h.p. (k = Omega(log d)); Theorem 4.2 ((eps, delta)): O(log(1/delta))
access and O(k (log(d + u) + log(1/delta))) bits; Theorem 1.1 summarises both.  Explicit
forms checked on releases of the implementation (alpha = 3, s = 10k, eps = 1 split 1/2 + 1/2,
u = hi = 2^10, k = log2 d):
(a) a query on a key the threshold did not release reads exactly m = ceil(t eps2/alpha) cells
(counted) and a released key none; pure: t is the least integer with r^t/(1+r) <= 1/d
(checked: r^(t-1)/(1+r) > 1/d), so t - 1 < log_{1/r} d and m <= (1 + log_{1/r} d) eps2/alpha
+ 1; (eps, delta): t_delta is the least integer with r^(t-1)/(1+r) <= delta, so t_delta - 2 <
log_{1/r}(1/delta), and m does not depend on d;
(b) the expected number of released pairs is <= k + 1 (Lemma 5.2; exact, from the
implementation's noise law), and the bits of a release (s m matrix bits, m Carter-Wegman
seeds of 2 bitlen(P) bits, released pairs of bitlen(d) + bitlen(u) bits) are <= 8 k log2(d+u)
(pure) and <= 8 k (log2(d+u) + log2(1/delta)) ((eps, delta)), and below the d bitlen(u) bits
of the dense vector."""
PROOF_IDEA = """Each release is ThresholdALP.from_paper / ApproxThresholdALP.from_paper projected
on a k-sparse input with every entry at u (so every support key is released and the other
queries go to the sketch) from a fixed seeded source; its bits are counted from the released
objects (packed matrix bytes, seed primes, released pairs) and a query's reads are counted on
a copy whose bits count their reads.  Quick: d = 2^6, 2^8, 2^10; delta = 2^-10, 2^-40 at
d = 2^8 and 2^10.  --full adds d = 2^12 and delta = 2^-80."""

NOT_EXERCISABLE = {
    "the expected maximum errors of ALP-short Theorems 4.1, 4.2 and 1.1 (O(log(d)/eps), "
    "O(log(1/delta)/eps))":
        "as O() statements they hold for a large enough constant on every finite grid, and "
        "with colliding keys the maximum over d keys sharing hash functions has no exact law "
        "small enough to compute; the explicit no-collision form 2 K_d + 8pq/(1 - 4pq) "
        "is a row.",
}


EPS1 = EPS2 = Fraction(1, 2)
ALPHA = 3
U = 1 << 10


def _source(seed: int) -> SeededSource:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotForReleaseWarning)
        return SeededSource(seed)


def space_bits(sk: ThresholdALPSketch) -> dict[str, int]:
    """The bits of a release, part by part, counted from the released objects."""
    alp = sk.sketch
    prm = alp.params
    prime = alp.hashes.prime  # type: ignore[attr-defined]
    parts = {"matrix": 8 * len(alp.bits),
             "seeds": len(alp.seeds) * 2 * prime.bit_length(),
             "released": len(sk.released) * (prm.universe.bit_length()
                                             + sk.threshold.hi.bit_length())}
    parts["total"] = sum(parts.values())
    return parts


def _log2_floor(q: Fraction) -> int:
    """floor(log2 q) for q >= 1, exactly."""
    return (q.numerator // q.denominator).bit_length() - 1


def _within(bits: int, k: int, logs: list[int]) -> bool:
    """bits <= 8 k sum(log2 of each), with log2 rounded DOWN (a stronger test)."""
    return bits <= 8 * k * sum(logs)


def _reads(sk: ThresholdALPSketch, d: int) -> dict[int, int]:
    return {key: (0 if sk.value(key) else reads_per_query(sk.sketch, key))
            for key in (1, d // 2 + 1, d)}


def _pure(d: int) -> tuple[Certificate, dict[str, Any]]:
    k = d.bit_length() - 1
    alg = ThresholdALP.from_paper(EPS1, EPS2, ALPHA, 10 * k, k, d, U)
    thr, prm = alg.threshold.params, alg.alp.params
    x = {key: U for key in range(1, k + 1)}
    sk = alg.project(x, _source(d))
    bits = space_bits(sk)
    reads = _reads(sk, d)
    r, t, m = thr.r, thr.t, prm.columns
    noise = thr.noise
    released_zero = sum((w for v, w in explore(lambda s: noise.sample_value(0, s)).items()
                         if v >= t), Fraction(0))
    released_full = sum((w for v, w in explore(lambda s: noise.sample_value(U, s)).items()
                         if v >= t), Fraction(0))
    expected_released = k * released_full + (d - k) * released_zero
    minimal = r ** t / (1 + r) <= Fraction(1, d) and (t == 1 or r ** (t - 1) / (1 + r) > Fraction(1, d))
    reads_ok = set(reads.values()) <= {0, m} and m in reads.values() and reads[1] == 0
    log_d_u = _log2_floor(Fraction(d + U))
    ok = (minimal and reads_ok and expected_released <= k + 1
          and _within(bits["total"], k, [log_d_u]) and bits["total"] < d * U.bit_length())
    row = {"d": d, "k": k, "t": t, "m": m, "bits": bits["total"],
           "bits_per_k_log2(d+u)": Fraction(bits["total"], k * log_d_u)}
    return Certificate(CLAIM + ": pure (Theorem 4.1)", repr(alg),
                       {"d": d, "k": k, "s": prm.rows, "t": t, "m": m, "r": r},
                       "one seeded release, k keys at u", bits["total"],
                       f"<= 8 k floor(log2(d+u)) = {8 * k * log_d_u}; reads in {{0, m}}; "
                       f"E[released] <= k + 1; t minimal", ok,
                       {"bits": bits, "reads": reads, "expected_released": expected_released,
                        "dense_bits": d * U.bit_length(), "t_minimal": minimal}), row


def _approx(d: int, delta_bits: int) -> tuple[Certificate, dict[str, Any]]:
    k = d.bit_length() - 1
    delta = Fraction(1, 1 << delta_bits)
    alg = ApproxThresholdALP.from_paper(EPS1, EPS2, delta, ALPHA, 10 * k, k, d, U)
    thr, prm = alg.threshold.params, alg.alp.params
    sk = alg.project({key: U for key in range(1, k + 1)}, _source(d + delta_bits))
    bits = space_bits(sk)
    reads = _reads(sk, d)
    r, t, m = thr.r, thr.t, prm.columns
    q = r ** (t - 1) / (1 + r)
    minimal = q <= delta and (t == 1 or r ** (t - 2) / (1 + r) > delta)
    reads_ok = set(reads.values()) <= {0, m} and m in reads.values()
    log_d_u = _log2_floor(Fraction(d + U))
    ok = (minimal and reads_ok and len(sk.released) <= k
          and _within(bits["total"], k, [log_d_u, delta_bits]))
    row = {"d": d, "delta": f"2^-{delta_bits}", "t": t, "m": m, "bits": bits["total"]}
    return Certificate(CLAIM + ": approximate (Theorem 4.2)", repr(alg),
                       {"d": d, "k": k, "delta": delta, "t": t, "m": m},
                       "one seeded release, k keys at u", bits["total"],
                       f"<= 8 k (floor(log2(d+u)) + log2(1/delta)) = "
                       f"{8 * k * (log_d_u + delta_bits)}; reads in {{0, m}}; t minimal", ok,
                       {"bits": bits, "reads": reads, "t_minimal": minimal}), row


def check(full: bool) -> ClaimReport:
    ds = [1 << 6, 1 << 8, 1 << 10] + ([1 << 12] if full else [])
    certs, rows = [], []
    for d in ds:
        cert, row = _pure(d)
        certs.append(cert)
        rows.append(row)
    approx_rows = []
    for delta_bits in [10, 40] + ([80] if full else []):
        ms = set()
        for d in (1 << 8, 1 << 10):
            cert, row = _approx(d, delta_bits)
            certs.append(cert)
            approx_rows.append(row)
            ms.add(row["m"])
        certs.append(Certificate(CLAIM + ": access independent of d", "ApproxThresholdALP",
                                 {"delta": f"2^-{delta_bits}"}, "d = 2^8, 2^10", len(ms),
                                 "== 1 distinct m", len(ms) == 1))
    shown = ", ".join(f"d=2^{r['d'].bit_length() - 1}: {r['bits']} bits, m={r['m']}"
                      for r in rows)
    shown_a = ", ".join(f"{r['delta']}: m={r['m']}" for r in approx_rows[::2])
    worst = max(Fraction(r["bits_per_k_log2(d+u)"]) for r in rows)
    return ClaimReport(CLAIM, f"pure d in {[f'2^{d.bit_length() - 1}' for d in ds]}; "
                       f"(eps, delta) at d = 2^8, 2^10", f"{shown}; {shown_a}; max bits/(k "
                       f"log2(d+u)) {brief(worst, 3)}",
                       "<= 8 k log2(d+u) (+ 8 k log2(1/delta)); reads = m", certs)
