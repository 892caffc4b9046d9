"""Theorems 4.7 iii and 4.10 iii-iv: the samplers' search rounds and the bits of d grow as the
stated running times say."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from functools import partial

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler, search_rounds
from exactdp.proofs._strict_time import traced

CLAIM = "Theorems 4.7 iii, 4.10 iii-iv (time growth)"
STATEMENT = """Theorem 4.7 iii: GeoSample_{n,eps} runs in time O~(n log(1/eps)) (F in the same time,
iv).  Theorem 4.10 iii: FastSample_{n,eps,gamma} runs in time O~((1/eps) log^2 n + (1/eps) log n
log(1/gamma)), and iv: F in time O~((1/eps) log(n/gamma))."""
PROOF_IDEA = """Both are one draw from [d]_+ and a binary search of O(log n) rounds, each round one
evaluation of F on integers of O(log d) bits; so the bounds are log d = O~(n log(1/eps)) for
GeoSample (d = 2^{k(n+1)}-ish, k = ceil(log2(2/eps))) and log d = O~((1/eps) log(n/gamma)) for
FastSample (d = (n+1) d'/gamma, d' = (2^{k+1} + 1)(2^k + 1)^t, t ~ (9/(2 eps)) ln(n/gamma)).
Checks, on the implementation: every sample (traced, low / high / seeded coins, c in {0,
n/2, n}) makes exactly one draw and search_rounds(n) = bitlen(n) evaluations of F (recorded
rounds, Python or native); and the bits of d against the stated growth with the O~'s log(1/eps)
factors made explicit (k = ceil(log2(2/eps))): bits(d) / ((n + 1)(k + 1)) for GeoSample and
bits(d) / ((1/eps)(log2(n/gamma) + k + 1)(k + 1)) for FastSample stay below 2 and 8 over a
grid where n spans 10 ..
10^9, eps 1 .. 1/64 and gamma 1/2 .. 2^-40 -- the printed maxima show they do not drift."""


def _geo(full: bool) -> list[GeoSample]:
    ns = [10, 1000] + ([100, 10**4, 10**5] if full else [])
    return [GeoSample(n, e) for n in ns for e in (Fraction(1), Fraction(1, 8), Fraction(1, 64))]


def _fast(full: bool) -> list[FastSample]:
    ns = [10, 10**6, 10**9] + ([1000] if full else [])
    gammas = [Fraction(1, 2), Fraction(1, 2**40)] + ([Fraction(1, 2**20)] if full else [])
    epss = [Fraction(1), Fraction(1, 8)] + ([Fraction(1, 64)] if full else [])
    return [FastSample(n, e, g) for n in ns for e in epss for g in gammas]


def _rounds_ok(mech: InverseCDFSampler) -> tuple[bool, dict[str, object]]:
    seen = set()
    for c in (0, mech.n // 2, mech.n):
        for coin in ("low", "high", "seed:7"):
            trace, _ = traced(partial(mech.sample, c), coin)
            counts = Counter(e[0] for e in trace)
            seen.add((counts["uniform"], counts["cdf"]))
    return seen == {(1, search_rounds(mech.n))}, {"(draws, F evaluations)": sorted(seen)}


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    worst = {"GeoSample": Fraction(0), "FastSample": Fraction(0)}
    limit = {"GeoSample": Fraction(2), "FastSample": Fraction(8)}
    mechs: list[InverseCDFSampler] = [*_geo(full), *_fast(full)]
    for mech in mechs:
        kind = type(mech).__name__
        k = mech.k  # type: ignore[attr-defined]
        eps = Fraction(mech.epsilon)  # type: ignore[attr-defined]
        if isinstance(mech, GeoSample):
            scale = Fraction((mech.n + 1) * (k + 1))
        else:
            n_over_gamma = mech.n * mech.gamma.denominator
            scale = (1 / eps) * (n_over_gamma.bit_length() + k + 1) * (k + 1)
        ratio = Fraction(mech.d.bit_length()) / scale
        worst[kind] = max(worst[kind], ratio)
        rounds_ok, witness = _rounds_ok(mech)
        certs.append(Certificate(
            CLAIM, repr(mech), {"n": mech.n, "epsilon": eps, "d_bits": mech.d.bit_length()},
            "samples at c in {0, n/2, n}, coins low/high/seeded", ratio,
            f"one draw, bitlen(n) F evaluations; bits(d) / stated growth < {limit[kind]}",
            rounds_ok and ratio < limit[kind], witness))
    return ClaimReport(
        CLAIM, f"GeoSample n in 10..{10**5 if full else 1000}, eps in {{1, 1/8, 1/64}}; "
        "FastSample n in 10..10^9, eps in " + ("{1, 1/8, 1/64}" if full else "{1, 1/8}")
        + ", gamma in " + ("{1/2, 2^-20, 2^-40}" if full else "{1/2, 2^-40}"),
        f"one search of bitlen(n) rounds per sample on all; max bits(d) / growth: GeoSample "
        f"{brief(worst['GeoSample'])}, FastSample {brief(worst['FastSample'])}",
        "log d = O~(n log 1/eps) (4.7), O~((1/eps) log(n/gamma)) (4.10); O(log n) rounds", certs)
