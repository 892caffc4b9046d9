"""Paper 002 slip P12: §5.3's volatility filter is two releases, its deviation vector has
per-count sensitivity 2(W-1)/W (not 1), and its normaliser starts at the wrong index."""

from __future__ import annotations

import itertools
from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport

CLAIM = "Conv Section 5.3 volatility filter"
SLIP = ("The volatility filter sigma_t = (1/W) sum_{i=1}^{W-1} |x_(t-i) - xbar_t| is two releases "
        "(the mean, then the deviations), its deviations move by up to 2(W-1)/W when one count "
        "changes (not 1), and the sum must start at i = 0.")
NOT_EXERCISABLE = {
    "The volatility filter as a convolution release (Algorithm 1 on |x - xbar|)":
        "it is not linear in x, so no convolution mechanism releases it; computed on a private "
        "release of x it is post-processing and needs no privacy argument of its own.",
}
STATEMENT = """Section 5.3: volatility sigma_t = (1/W) sum_{i=1}^{W-1} |x_(t-i) - xbar_t| with xbar_t the
window mean, released by first releasing xbar and then filtering |x - xbar| with Algorithm 1.
That is two releases (the budget must be split between them); with the true mean, the vector
of deviations (|x_(t-i) - xbar_t|)_{i<W} changes in l1 by up to 2(W-1)/W when one count
changes by 1, so a release calibrated to sensitivity 1 is under-noised for W >= 3; and the
printed sum from i = 1 averages W - 1 deviations with 1/W and leaves out x_t itself."""
PROOF_IDEA = """Not run through exactdp.convolution: the filter is not linear in x, so it is not offered
as a convolution filter (exactdp.convolution.filters says so).  From the definition, exactly:
the largest l1 change of the deviation vector over every window x in {0, 1, 2}^W and every
x' = x + e_j in the box must equal 2(W-1)/W for W = 2 .. 5 (> 1 from W = 3).  Normaliser: on
x = (0, ..., 0, W) (the spike at t), the printed sigma_t (sum from i = 1) must differ from the
mean absolute deviation (sum from i = 0) and be smaller than it."""


def _deviations(x: tuple[int, ...]) -> list[Fraction]:
    mean = Fraction(sum(x), len(x))
    return [abs(v - mean) for v in x]


def sensitivity_certificate(w: int) -> Certificate:
    worst = Fraction(0)
    arg: tuple[tuple[int, ...], int] | None = None
    for x in itertools.product(range(3), repeat=w):
        dx = _deviations(x)
        for j in range(w):
            if x[j] == 2:
                continue
            y = x[:j] + (x[j] + 1,) + x[j + 1:]
            change = sum((abs(a - b) for a, b in zip(dx, _deviations(y), strict=True)),
                         Fraction(0))
            if change > worst:
                worst, arg = change, (x, j)
    want = Fraction(2 * (w - 1), w)
    ok = worst == want and (worst > 1) == (w >= 3)
    return Certificate(CLAIM + ": sensitivity", f"W = {w}", {"W": w}, "x in {0,1,2}^W, every "
                       "x + e_j", worst, f"= 2(W-1)/W = {want}" + (" > 1" if w >= 3 else ""),
                       ok, {"x": arg[0] if arg else None, "j": arg[1] if arg else None})


def normaliser_certificate(w: int) -> Certificate:
    x = (w,) + (0,) * (w - 1)          # x_t = W (i = 0), earlier counts 0
    dev = _deviations(x)
    printed = sum(dev[1:], Fraction(0)) / w
    fixed = sum(dev, Fraction(0)) / w
    ok = printed < fixed
    return Certificate(CLAIM + ": normaliser", f"W = {w}", {"x_t": w}, "spike at t", printed,
                       f"printed sum from i = 1: {printed} < mean absolute deviation {fixed}",
                       ok, {"printed": printed, "fixed": fixed})


def check(full: bool) -> ClaimReport:
    widths = range(2, 7 if full else 6)
    certs = [sensitivity_certificate(w) for w in widths]
    last = certs[-1]
    certs += [normaliser_certificate(w) for w in (2, 3, 5)]
    return ClaimReport(CLAIM, f"W = 2 .. {widths[-1]}, windows in {{0,1,2}}^W",
                       f"sensitivity {last.worst} = 2(W-1)/W at W = {widths[-1]}",
                       "2(W-1)/W > 1 from W = 3; printed normaliser misses x_t", certs)
