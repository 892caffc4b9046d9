"""Lemma 8.4 iv: the empty-bin sampler M0 costs one search of M plus O~(log d0)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler, search_rounds
from exactdp.histograms.empty_bin import EmptyBinSampler
from exactdp.histograms.fields import VanLintField
from exactdp.params import ParameterError
from exactdp.proofs._strict_time import traced

CLAIM = "Lemma 8.4 iv"
STATEMENT = """M0 (Algorithm 8.5: M0(u0) = M(0, f(u0)), f a fixed map [d0]_+ -> [d]_+ built from
q, r = divmod(d0, d)) has running time O~(log d0) + Time(M)."""
PROOF_IDEA = """f(u0) is one division of log d0-bit numbers; then M runs once.  Check, on the
operation trace of the implementation's M0 (its search, the draw path) at u0 = 1, u0 = d0 and
seeded u0: exactly one search of M -- search_rounds(n) evaluations of M's CDF, whether Python
or native -- and no other counted operation, for fields of 19, 55, 163 and 487 bits (d0 enters
only through the size of f's division), with GeoSample and FastSample."""


def _grid(full: bool) -> list[tuple[InverseCDFSampler, int]]:
    mechs: list[InverseCDFSampler] = [GeoSample(3, 1), FastSample(5, 1, Fraction(1, 2))]
    if full:
        mechs += [GeoSample(7, Fraction(1, 2)), FastSample(40, 1, Fraction(1, 10))]
    return [(m, level) for m in mechs for level in (2, 3, 4, 5)]


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    for mech, level in _grid(full):
        d0 = VanLintField(level).order
        try:
            m0 = EmptyBinSampler(mech, d0)
        except ParameterError:  # d0 < 4d/3: this field is too small for this M
            continue
        seen = set()
        for coin in ("low", "high", "seed:5"):
            trace, _ = traced(lambda src, m0=m0: m0.search(src.uniform(m0.d0)), coin)
            counts = Counter(str(e[:2]) if e[0] == "call" else e[0] for e in trace
                             if e[0] != "uniform")
            seen.add(tuple(sorted(counts.items())))
        rounds = search_rounds(mech.n)
        ok = all(dict(s).get("cdf") == rounds and
                 all(k in ("cdf", str(("call", "search_cdf"))) for k, _ in s) for s in seen)
        certs.append(Certificate(
            CLAIM, f"EmptyBinSampler({mech!r}, d0 = 2^{d0.bit_length() - 1})",
            {"n": mech.n, "d0_bits": d0.bit_length() - 1}, "u0 at 1, d0, seeded",
            rounds, "one search of M (search_rounds(n) CDF evaluations), nothing else", ok,
            {"seen": [dict(s) for s in seen]}))
    return ClaimReport(
        CLAIM, "GeoSample(3, 1), FastSample(5, 1, 1/2)" + (" and two more" if full else "")
        + " on GF(2^18), GF(2^54), GF(2^162), GF(2^486) where d0 >= 4d/3",
        f"{sum(c.verdict for c in certs)}/{len(certs)} with one search of M per M0 call",
        "O~(log d0) + Time(M)", certs)
