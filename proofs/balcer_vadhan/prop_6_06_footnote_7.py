"""Footnote 7: Pr[Z_(m) = 0] = Pr[M(0, U) = 0]^m (printed without the event "= 0")."""

from __future__ import annotations

from fractions import Fraction
from functools import partial

from exactdp.certificate import Certificate, ClaimReport
from exactdp.counting import GeoSample
from exactdp.explore import explore
from exactdp.histograms.orderstats import ord_sample

CLAIM = "Footnote 7: Pr[Z_(m) = 0]"
SLIP = ("Footnote 7 prints Pr[Z_(m) = 0] = Pr[M(0, U)]^m, with no event inside the "
        "probability; it means Pr[M(0, U) = 0]^m.")
STATEMENT = """Footnote 7 (Section 6.1, on KH's order statistics of m zero bins): Notice
Pr[Z_(m) = 0] = Pr[M(0, U)]^m.  Thus we need Omega(m) random bits to sample from Z_(m)."""
PROOF_IDEA = """Z_(m), the largest of m i.i.d. copies of M(0, U), is 0 iff every copy is 0:
Pr[Z_(m) = 0] = Pr[M(0, U) = 0]^m = (F(0)/d)^m, whose reduced denominator has m times the
bits of F(0)/d's -- hence Omega(m) random bits.  Check, on the implementation's OrdSample
(Algorithm 6.7, explored exactly) with M = GeoSample: the mass of outcomes whose top order
statistic is 0 equals (F(0)/d)^m exactly (the corrected reading; Pr[M(0, U) <= 0] is the same
event), and its denominator's bit length is m times that of F(0)/d."""


def _grid(full: bool) -> list[tuple[GeoSample, int]]:
    out = [(GeoSample(1, 1), m) for m in (2, 3, 5)] + [(GeoSample(2, 1), m) for m in (3, 5)]
    if full:
        out += [(GeoSample(2, Fraction(1, 2)), m) for m in (3, 6, 9)] + [(GeoSample(3, 1), 4)]
    return out


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    for geo, m in _grid(full):
        n = geo.n
        dist = explore(partial(ord_sample, geo.scaled_cdf_at_zero, n, geo.d, m))
        top_zero = sum((w for k, w in dist.items() if k[0] == 0), Fraction(0))
        p0 = Fraction(geo.scaled_cdf_at_zero(0), geo.d)
        bits = top_zero.denominator.bit_length()
        ok = top_zero == p0**m and p0.denominator**m == top_zero.denominator
        certs.append(Certificate(
            CLAIM, f"ord_sample({geo!r}, m={m})", {"n": n, "m": m},
            "the explored law of (Z_(m), ..., Z_(m-n))", top_zero,
            "== Pr[M(0, U) = 0]^m; denominator = (that of Pr[M(0,U) = 0])^m", ok,
            {"Pr[M(0,U)=0]": p0, "denominator_bits": bits}))
    return ClaimReport(
        CLAIM, "OrdSample with GeoSample: " + ", ".join(f"(n={g.n}, eps={g.epsilon}, m={m})"
                                                         for g, m in _grid(full)),
        f"Pr[Z_(m) = 0] == Pr[M(0, U) = 0]^m on {sum(c.verdict for c in certs)}/{len(certs)}",
        "exact equality (the footnote's corrected reading)", certs)
