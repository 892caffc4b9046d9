"""The number of fragile projections of a Rademacher sign projection (Li & Li, paper 001,
eq. 30-31 and Proposition 4.5), computed exactly.

A projection ``x_j = w_j^T u`` with a ±1 column ``w_j`` is fragile (a one-coordinate neighbour
at distance ``beta`` can change or zero its sign: Algorithm 10's set ``A``) exactly when
``|x_j| <= beta``.  Its probability ``F = P+(u) = Pr_w[|w^T u| <= beta]`` (eq. 30 for ±1
``w``; eq. 31 is only a normal approximation of it) is an exact rational, and the ``k`` columns
are independent, so the number of fragile projections is ``Binomial(k, F)``.  Proposition 4.5
(eq. 27, through the Chernoff bound of Lemma 4.4) bounds it, with probability at least
``1 - delta`` over ``W``, by ``N+ = min{F k + (log(1/delta) + sqrt(log(1/delta)^2 + 8 F k
log(1/delta))) / 2, k}``; :func:`n_plus` returns that bound's integer floor, certified
(computed from an upper end of a certified interval for ``log(1/delta)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import isqrt

from exactdp.certified import ln_interval
from exactdp.params import ParameterError, open_unit, positive_int, to_fraction
from exactdp.projections.project import int_vector
from exactdp.projections.signs import check_beta

__all__ = ["fragile_probability", "n_plus", "n_plus_bound"]


def fragile_probability(u: Sequence[int], beta: int) -> Fraction:
    """``F = Pr_w[|w^T u| <= beta]`` for ``w`` uniform on ``{-1, +1}^p``: the number of sign
    vectors with ``|sum_i w_i u_i| <= beta`` (integer counts of the partial sums), over
    ``2^p``."""
    vec = int_vector(u, len(u))
    b = check_beta(beta)
    counts: dict[int, int] = {0: 1}
    for v in vec:
        nxt: dict[int, int] = {}
        for s, c in counts.items():
            nxt[s + v] = nxt.get(s + v, 0) + c
            nxt[s - v] = nxt.get(s - v, 0) + c
        counts = nxt
    return Fraction(sum(c for s, c in counts.items() if -b <= s <= b), 1 << len(vec))


def _sqrt_up(x: Fraction, bits: int) -> Fraction:
    """A rational ``>= sqrt(x)`` within ``2^-bits`` of it (``x >= 0``)."""
    scale = 1 << (2 * bits)
    n = -(-x.numerator * scale // x.denominator)  # ceil(x * 4^bits)
    r = isqrt(n)
    if r * r < n:
        r += 1
    return Fraction(r, 1 << bits)


def n_plus_bound(fraction: object, k: int, delta: object, bits: int = 64) -> Fraction:
    """A certified upper end of eq. 27's ``F k + (L + sqrt(L^2 + 8 F k L)) / 2`` with
    ``L = log(1/delta)`` (the expression grows with ``L``), within about ``2^-bits * k``."""
    f = to_fraction(fraction, "F")
    if not 0 <= f <= 1:
        raise ParameterError(f"F = {f} must lie in [0, 1]")
    k = positive_int(k, "k")
    d = open_unit(delta, "delta")
    big_l = ln_interval(1 / d, positive_int(bits, "bits")).hi
    fk = f * k
    return fk + (big_l + _sqrt_up(big_l * big_l + 8 * fk * big_l, bits)) / 2


def n_plus(u: Sequence[int], beta: int, k: int, delta: object, bits: int = 64) -> int:
    """Proposition 4.5's ``N+`` at ``u`` as an integer: ``min(floor(bound), k)`` with ``F =``
    :func:`fragile_probability` ``(u, beta)`` (computed, not supplied).  The number of
    fragile projections is an integer, so it is at most ``N+`` whenever it is at most the
    real bound; the certified upper end can only make ``N+`` larger (safe)."""
    bound = n_plus_bound(fragile_probability(u, beta), k, delta, bits)
    return min(bound.numerator // bound.denominator, positive_int(k, "k"))
