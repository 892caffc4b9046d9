"""Shared, exact tools for the "parameters against hypotheses" rows.

Those rows take the parameters exactly as the public constructors (and the command line's
planner) compute them and decide the inequality each proof of the paper needs, over wide
grids.  Only integer and rational arithmetic is used; where a real number appears it is
enclosed in rational bounds, and each helper says which way its bounds err:

* :func:`exp_enclosure` -- ``lo <= e**x <= hi`` for ``0 <= x <= 1`` by a Taylor sum with
  the remainder bounded by twice the first omitted term (written here, independently of
  :mod:`exactdp.certified`, so that the rows can check the library's own decision of Lemma
  3.2's condition against it);
* :func:`tanh_half` -- ``(e**x - 1)/(e**x + 1)`` enclosed through :func:`exp_enclosure`
  (``y -> (y - 1)/(y + 1)`` is increasing, so the lower end uses ``lo``);
* :func:`geometric_tail_at_most` -- decides ``2 alpha**j / (1 + alpha) <= R`` for GeoSample's
  ``alpha = 2**k/(2**k + 1)``, exactly, through :func:`exactdp.certified.ceil_log_ratio` (the
  least ``a`` with ``(1 + 2**-k)**a >= x``, decided with certified logarithms and an exact
  power test);
* :func:`truncation_hypothesis` -- Lemma 3.2's condition (1) in the proof of Theorem 4.10 i
  on a FastSample instance's own ``k``, ``t``, ``gamma`` and ``n``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from exactdp.certified import ceil_log_ratio
from exactdp.counting import FastSample

#: A rational upper bound on ln 2 = 0.693147...
LN2_UPPER = Fraction(6932, 10000)

#: Relative precision of :func:`exp_enclosure` (the Taylor sum stops below ``x * 2**-PREC``).
PREC = 120


@cache
def exp_enclosure(x: Fraction) -> tuple[Fraction, Fraction]:
    """``(lo, hi)`` with ``lo <= e**x <= hi`` for rational ``0 <= x <= 1``.

    ``lo = sum_{i <= N} x**i / i!`` (every omitted term is positive, so ``lo`` errs low);
    ``hi = lo + 2 x**(N+1)/(N+1)!``: the omitted terms are at most the first one times
    ``sum_j (x/(N+2))**j <= 2`` for ``x <= 1``, so ``hi`` errs high.
    """
    x = Fraction(x)
    if not 0 <= x <= 1:
        raise ValueError(f"exp_enclosure needs 0 <= x <= 1, got {x}")
    total, term, i = Fraction(1), Fraction(1), 0
    stop = x / (1 << PREC)
    while True:
        i += 1
        term = term * x / i
        if term <= stop or term == 0:
            return total, total + 2 * term
        total += term


def tanh_half(x: Fraction) -> tuple[Fraction, Fraction]:
    """``(lo, hi)`` enclosing ``(e**x - 1)/(e**x + 1)`` for ``0 <= x <= 1`` (lo errs low,
    hi errs high)."""
    lo, hi = exp_enclosure(Fraction(x))
    return (lo - 1) / (lo + 1), (hi - 1) / (hi + 1)


def geometric_tail_at_most(k: int, j: int, bound: Fraction) -> tuple[bool, int]:
    """Decide ``2 alpha**j / (1 + alpha) <= bound`` with ``alpha = 2**k / (2**k + 1)``,
    exactly; also return an upper bound on the least ``j`` for which it holds (the least
    ``j`` itself whenever the inequality fails or is close).

    ``2 alpha**j/(1 + alpha) <= R`` iff ``(1 + 2**-k)**j >= 2/((1 + alpha) R)``; the least
    such ``j`` is ``ceil_log_ratio(2/((1 + alpha) R), 1 + 2**-k)`` (exact; ``R >= 1``-sized
    targets need ``j = 0``).  The target is first rounded UP to 96 significant bits
    (:func:`round_up`): that can only raise the least ``j``, so a pass still proves the
    inequality (and the logarithms run on short numbers).
    """
    if bound <= 0:
        return False, -1
    alpha = Fraction(1 << k, (1 << k) + 1)
    target = round_up(2 / ((1 + alpha) * bound))
    if target <= 1:
        return True, 0
    # Fast sufficient test: ln target <= e ln 2 <= e * 6932/10000 with e >= log2 target read
    # off the bit lengths, and ln(1 + x) >= x - x^2/2; so need <= coarse (errs high).
    x = Fraction(1, 1 << k)
    e = target.numerator.bit_length() - target.denominator.bit_length() + 1
    q = e * LN2_UPPER / (x - x * x / 2)
    coarse = -((-q.numerator) // q.denominator)
    if j >= coarse:
        return True, coarse
    need = ceil_log_ratio(target, 1 + x)
    return j >= need, need


def round_up(x: Fraction, bits: int = 96) -> Fraction:
    """The least multiple of ``2**(e - bits)`` that is ``>= x > 0`` (``e`` about ``log2 x``):
    ``x`` rounded up to ``bits`` significant bits, so ``x <= round_up(x) <= x (1 + 2**(1-bits))``."""
    shift = bits - (x.numerator.bit_length() - x.denominator.bit_length())
    if shift >= 0:
        num = -((-x.numerator << shift) // x.denominator)
        return Fraction(num, 1 << shift)
    num = -((-x.numerator) // (x.denominator << -shift))
    return Fraction(num << -shift)


@dataclass(frozen=True)
class Truncation:
    """Lemma 3.2 (1) in the proof of Theorem 4.10 i, decided on one FastSample."""

    holds: bool
    t_plus_1: int
    need: int  # >= the least t + 1 satisfying the inequality with rhs = rhs_lower

    @property
    def margin(self) -> Fraction:
        return Fraction(self.t_plus_1, max(self.need, 1))


def truncation_hypothesis(mech: FastSample) -> Truncation:
    """``Pr[|Z - c| > t] = 2 alpha**(t+1)/(1 + alpha) <= (e**(eps/2) - 1)/(e**(eps/2) + 1)
    * gamma/(1 - gamma) * 1/(n + 1)`` on ``mech``'s own ``k, t, gamma, n, eps``.

    The right-hand side is replaced by a rational lower bound (``tanh_half`` errs low), so a
    pass proves the inequality; a failure is either a real failure or within ``2**-120``
    relative of the boundary (reported as a failure: the check errs toward refusing).
    """
    eps, g, n = mech.epsilon, mech.gamma, mech.n
    lo, _ = tanh_half(eps / 2)
    rhs_lower = lo * g / (1 - g) / (n + 1)
    holds, need = geometric_tail_at_most(mech.k, mech.t + 1, rhs_lower)
    return Truncation(holds, mech.t + 1, need)


def least_power_of_two_exponent(x: int) -> int:
    """The least ``k >= 0`` with ``2**k >= x`` (``x >= 1``), by doubling: the definition of
    ``ceil(log2 x)``, independent of ``int.bit_length``."""
    k, p = 0, 1
    while p < x:
        k, p = k + 1, p << 1
    return k


def tally(failures: list[dict[str, object]]) -> dict[str, int]:
    """How many failing settings failed each check (the keys whose value is ``False``)."""
    out: dict[str, int] = {}
    for f in failures:
        for key, value in f.items():
            if value is False:
                out[key] = out.get(key, 0) + 1
    return out
