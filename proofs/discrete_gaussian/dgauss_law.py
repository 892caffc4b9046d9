"""The strict-time discrete Gaussian samples exactly the law it claims."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.discrete_gaussian import DiscreteGaussian, weight_direct
from exactdp.explore import explore
from exactdp.randomness import CallableSource

CLAIM = "Discrete Gaussian: the law sampled is floor(2^b exp(-x^2/(2 sigma^2))) / W"
STATEMENT = """For sigma^2 a positive rational and b >= 1, DiscreteGaussian(sigma^2, b).add(c, source)
releases c + Z with Pr[Z = x] = w(x) / W, w(x) = floor(2^b exp(-x^2/(2 sigma^2))) for every
integer x (zero for |x| > T) and W = sum_x w(x), whatever the centre c."""
PROOF_IDEA = """The release is explored (every outcome of its one inverse-CDF draw, with its exact
weight) at several centres; the law found must equal the law built here from weights computed
one by one by the certified exponential (exactdp.certified.exp_interval, refined until the
floor is decided) -- a route that shares nothing with the table's fixed-point recurrence --
including the last x where the weight is positive and the first where it is 0.  The exploring
source reads the draw's CDF, so the sampling path's search is checked on its own: every u of
[W]_+ run through add(c) with that u as the draw (W <= 2^12), else the u at both ends of every
output's range F(z - 1) + 1 and F(z), must give the output z the law assigns to u."""

QUICK = ((Fraction(1, 2), 8), (Fraction(9, 4), 16), (Fraction(40, 3), 24), (Fraction(3), 6))
FULL = QUICK + tuple((Fraction(s), b) for s in (1, 5, Fraction(101, 7), 30) for b in (4, 32, 64))
CENTRES = (0, 3, -11)


def claimed_law(s2: Fraction, bits: int) -> dict[int, Fraction]:
    """``{x: w(x)/W}`` from the direct certified weights (``w(T + 1) = 0`` checked)."""
    weights: dict[int, int] = {}
    x = 0
    while (w := weight_direct(x, s2, bits)) > 0:
        weights[x] = weights[-x] = w
        x += 1
    total = sum(weights.values())
    return {z: Fraction(weights[z], total) for z in sorted(weights)}


#: Largest W whose every u is run through the sampling path.
ENUMERATE = 1 << 12


def search_mismatch(g: DiscreteGaussian, want: dict[int, Fraction]) -> dict[str, object] | None:
    """None if ``add(c)`` with the draw ``u`` gives the output whose range of ``u`` (from the
    claimed law) holds ``u``, for every ``u`` (small ``W``) or both ends of every range."""
    total, t = g.d, g.tail
    ends: list[tuple[int, int, int]] = []
    acc = 0
    for x in range(-t, t + 1):
        mass = want.get(x, Fraction(0)) * total  # w(x) when W is the claimed law's total
        if mass.denominator != 1:
            return {"x": x, "claimed mass times W": mass}
        ends.append((x, acc + 1, acc + mass.numerator))
        acc += mass.numerator
    if acc != total:
        return {"total": total, "sum of the claimed weights": acc}
    for x, lo, hi in ends:
        us = range(lo, hi + 1) if total <= ENUMERATE else (lo, hi)
        for u in us:
            for c in (0, CENTRES[-1]):
                out = g.add(c, CallableSource(lambda d, u=u: u))  # type: ignore[misc]
                if out != c + x:
                    return {"u": u, "centre": c, "output": out, "claimed": c + x}
    return None


def case(s2: Fraction, bits: int) -> Certificate:
    g = DiscreteGaussian(s2, bits)
    want = claimed_law(s2, bits)
    bad: dict[str, object] | None = None
    for c in CENTRES:
        got = explore(lambda src, c=c: g.add(c, src))  # type: ignore[misc]
        if got != {c + x: p for x, p in want.items()}:
            diff = sorted(set(got) ^ {c + x for x in want}) or [
                y for y in got if got[y] != want.get(y - c)]
            bad = {"centre": c, "first_difference": diff[:3]}
            break
    if bad is None:
        bad = search_mismatch(g, want)
    return Certificate(CLAIM, repr(g), {"sigma2": s2, "bits": bits},
                       f"centres {list(CENTRES)}, every output; "
                       f"{'every u' if g.d <= ENUMERATE else 'every threshold u'}", g.tail,
                       "explored law = direct certified weights", bad is None, bad or {})


def tails(grid: tuple[tuple[Fraction, int], ...]) -> list[DiscreteGaussian]:
    return [DiscreteGaussian(s2, b) for s2, b in grid]


def check(full: bool) -> ClaimReport:
    grid = FULL if full else QUICK
    certs = [case(s2, b) for s2, b in grid]
    return ClaimReport(CLAIM, f"(sigma^2, b) in {[(str(s), b) for s, b in grid]}",
                       f"{len(certs)} laws, T up to {max(g.tail for g in tails(grid))}",
                       "equal, outcome by outcome", certs)
