"""Theorem 8.6 (i) at the theorem's own d0: Theorem 8.3 (i)'s premises read off the
implementation's M and M0 exactly, their product certified <= e^eps."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.certified import compare_exp
from exactdp.checker import counting_distributions, worst_neighbour_ratio
from exactdp.histograms.compact import CompactHistogram
from exactdp.proofs.balcer_vadhan._compact import m0_distribution

CLAIM = "Theorem 8.6 (i) at the real d0"
STATEMENT = """Theorem 8.6 (i): CompactHistogram_{M,M0} with M = FastSample_{n,eps',gamma}, eps' =
1/ceil(10/(9 eps)), and Lemma 8.4's M0 on d0 = 2^{2*3^l} (l the least level with d0 >=
max{|X|, 30 d/eps}) is (eps, 0)-DP."""
PROOF_IDEA = """Theorem 8.3 (i) gives (eps1 + eps2 + eps3)-DP from M's ratio r1 = e^{eps1/2} between
neighbouring counts and M0's closeness e^{-eps2} P0 <= P <= e^{eps3} P0 to M(0, U); its
composition step is checked exactly by Theorem 8.3's row on small fields, where the release
can be explored (and with the premises at their exact values: worst ratio <= r1^2 max(P0/P)
max(P/P0)).  At the theorem's d0 (hundreds of bits) the release cannot be explored, but the
premises can: r1 from M's laws (threshold search on the implementation's FastSample), P0 from
the implementation's M0 (block argument: Lemma 8.4's rows), so the bound r1^2 max(P0/P)
max(P/P0) is exact, and it is certified <= e^eps here -- Theorem 8.6 (i) at the real field,
with the slack printed (the paper's route, eps' + 3d/d0 <= eps, is the parameter row's)."""


def _grid(full: bool) -> list[tuple[int, int, Fraction, Fraction]]:
    """(|X|, n, eps, beta0)."""
    out = [(2, 30, Fraction(1), Fraction(1, 2)), (2**64, 4, Fraction(1, 2), Fraction(1, 2**20))]
    if full:
        out += [(3, 12, Fraction(1), Fraction(1, 2)), (1000, 10, Fraction(1, 3), Fraction(1, 8))]
    return out


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    for size, n, eps, beta0 in _grid(full):
        ch = CompactHistogram.theorem_8_6(size, n, eps, beta0)
        p = counting_distributions(ch.mechanism)
        r1 = worst_neighbour_ratio(p).ratio
        reading = m0_distribution(ch.empty)
        p0 = reading.dist
        up = max(Fraction(p0[c]) / Fraction(p[0][c]) for c in p0 if p0[c])
        down = max(Fraction(p[0][c]) / Fraction(p0[c]) for c in p[0] if p[0][c])
        ok = r1 is not None and reading.monotone and set(p0) >= {c for c in p[0] if p[0][c]}
        bound = None if r1 is None else r1 * r1 * up * down
        below = bound is not None and compare_exp(eps, bound) > 0
        certs.append(Certificate(
            CLAIM, repr(ch), {"|X|": size, "n": n, "epsilon": eps, "beta0": beta0,
                              "d0_bits": ch.field.degree},
            "M's laws (every c) and M0's law at the real d0", None,
            "r1^2 max(P0/P) max(P/P0) < e^eps (certified)", ok and below,
            {"r1^2": brief(r1 * r1) if r1 else None, "e^eps2": brief(up), "e^eps3": brief(down),
             "bound": brief(bound) if bound else None,
             "m0_read_by": "enumeration" if reading.enumerated else "block argument"}))
    return ClaimReport(
        CLAIM, "Theorem 8.6's parameters (|X|, n, eps, beta0) in " + ", ".join(
            f"({s}, {n}, {e}, {b})" for s, n, e, b in _grid(full)) + " at their own d0",
        f"{sum(c.verdict for c in certs)}/{len(certs)} with r1^2 e^eps2 e^eps3 < e^eps: "
        + ", ".join(f"{c.witness['bound']} (d0 = 2^{c.parameters['d0_bits']})" for c in certs),
        "Theorem 8.3 (i)'s premises at their exact values, certified against e^eps", certs)
