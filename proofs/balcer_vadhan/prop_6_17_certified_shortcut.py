"""Proposition 6.17, certified shortcut: ApproxBinSample's dyadic bounds bracket the exact
binomial CDF, and every output they certify is the output of the paper's loop."""

from __future__ import annotations

from fractions import Fraction
from math import comb

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.histograms.orderstats import ApproxBinDraw, BinomialCDFBounds

CLAIM = "Proposition 6.17 (certified shortcut)"
STATEMENT = """ApproxBinDraw.certified_output (exactdp.histograms.orderstats) decides the output of
Algorithm 6.18's loop from outward-rounded dyadic bounds lo_l <= P_l <= hi_l on
P_l = Pr[Bin(m, p'/s) <= l], p' = floor(sp/q) (BinomialCDFBounds), and the bounds
s P_l - t'(l)(m - 1) <= G(l) <= s P_l on the loop's tested values.  It is sound only if
every lo_l and hi_l is on the right side of P_l -- a bound rounded the wrong way makes the
shortcut return an output the loop would not."""
PROOF_IDEA = """P_l is a rational with denominator s^m: computed exactly here from the binomial
pmf at p'/s (p' by integer division), for m <= 8 and s from m to beyond 2^320 (both branches
of the enclosure of p'/s: from p' itself below 2^320 bits, from p/q above), including
powers of two (where p'/s is dyadic and any rounding error shows) and p in {0, q}.  Then,
for draws with t in {1, m, m + 1}, certified_output(u) is compared with the loop
(shortcuts=False) at every u where a wrong bound would change the answer: u = 1, s, and
G(l), G(l) + 1, floor(s P_l), floor(s P_l) + 1, floor(s P_l) - t'(l)(m - 1) (+1) for every
l < t."""


def _exact_cdf(m: int, p_prime: int, s: int) -> list[Fraction]:
    pmf = [Fraction(comb(m, j) * p_prime**j * (s - p_prime) ** (m - j), s**m)
           for j in range(m + 1)]
    out, total = [], Fraction(0)
    for x in pmf:
        total += x
        out.append(total)
    return out


def _dyadic(x: tuple[int, int]) -> Fraction:
    mant, exp = x
    return Fraction(mant << exp) if exp >= 0 else Fraction(mant, 1 << -exp)


def _grid(full: bool) -> list[tuple[int, int, int, int]]:
    """(m, p, q, s).  Besides plain values: ``p/q = 2^-300`` with ``s > 2^320`` (the pmf
    terms fall below the partial sums' last place, where the additions must round up), and
    ``p'/s = 2/(2^257 - 1)``, just above the 256-bit dyadic ``2^-256`` (the enclosure of
    ``p'/s`` is then all that keeps the lower bound below ``P_l``)."""
    ms = [1, 2, 3, 5, 8] if full else [1, 2, 5]
    pqs = [(0, 1), (1, 1), (1, 2), (1, 3), (2, 7), (1, 1 << 300), (999, 1000)]
    if not full:
        pqs = pqs[:6]
    near = (1 << 257) - 1
    out = []
    for m in ms:
        for s in sorted({m, 7 * m, 1 << 10, 10**6 + 3, 1 << 64, 3**210, 1 << 400, 3**300}):
            if not full and s in (7 * m, 1 << 400):
                continue
            out += [(m, p, q, s) for p, q in pqs]
        out.append((m, 2, near, near))
    return out


def _check_bounds(m: int, p: int, q: int, s: int) -> list[str]:
    p_prime = s * p // q
    exact = _exact_cdf(m, p_prime, s)
    bounds = BinomialCDFBounds(m, p, q, s)
    bad = []
    for ell in range(m + 2):
        lo, hi = (_dyadic(b) for b in bounds.at(ell))
        value = exact[min(ell, m)]
        if not lo <= value <= hi:
            side = "lo > P_l" if lo > value else "hi < P_l"
            bad.append(f"l={ell}: {side} by {brief(abs(value - (lo if lo > value else hi)))}")
    return bad


def _check_shortcut(m: int, p: int, q: int, s: int) -> tuple[int, list[str]]:
    exact = _exact_cdf(m, s * p // q, s)
    decided, bad = 0, []
    for t in sorted({1, m, m + 1}):
        fast = ApproxBinDraw(m, p, q, s, t)
        loop = ApproxBinDraw(m, p, q, s, t, shortcuts=False)
        us = {1, s}
        for ell in range(t):
            g = loop.tested_value(ell)
            sp = (s * exact[min(ell, m)].numerator) // exact[min(ell, m)].denominator
            slack = (1 << ell.bit_length()) * (m - 1)
            us.update({g, g + 1, sp, sp + 1, sp - slack, sp - slack + 1})
        for u in sorted(v for v in us if 1 <= v <= s):
            got = fast.certified_output(u)
            if got is None:
                continue
            decided += 1
            want = loop.search(u)
            if got != want:
                bad.append(f"t={t}, u={u}: certified {got}, loop {want}")
    return decided, bad


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    decided_total = 0
    for m, p, q, s in _grid(full):
        bad = _check_bounds(m, p, q, s)
        decided, wrong = _check_shortcut(m, p, q, s)
        decided_total += decided
        certs.append(Certificate(
            CLAIM, "BinomialCDFBounds, ApproxBinDraw.certified_output",
            {"m": m, "p/q": f"{p}/{q}", "s_bits": s.bit_length()},
            f"l in [0, {m + 1}]; {decided} certified u", len(bad) + len(wrong),
            "lo_l <= P_l <= hi_l exactly; certified output == loop output",
            not bad and not wrong, {"bounds": bad[:3], "shortcut": wrong[:3]}))
    failures = sum(not c.verdict for c in certs)
    return ClaimReport(
        CLAIM, f"{len(certs)} settings: m in {sorted({g[0] for g in _grid(full)})}, p/q incl. "
        f"0, 1 and 2^-300, s from m to 3^300 (powers of 2 and not; above 2^400 the comparisons "
        f"with u start from the leading bits) and "
        f"p'/s = 2/(2^257-1); every l; "
        f"{decided_total} certified outputs at the decision boundaries",
        f"{failures} settings with a bound on the wrong side or a wrong certified output",
        "0 (exact rational comparison; loop as reference)", certs)
