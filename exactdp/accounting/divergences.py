"""Renyi divergences and zero-concentrated DP of an exact privacy loss, certified.

``D_alpha(P || Q) = ln(E_P[V**(alpha - 1)]) / (alpha - 1)`` with ``V = P/Q`` the likelihood
ratio; infinite when ``P(Q = 0) > 0``.  For an integer order the expectation is an exact
rational and only its ``ln`` is an interval; for any other rational order each atom's
``v**(alpha-1) = exp((alpha - 1) ln v)`` is enclosed by :mod:`exactdp.certified` (ratios on
a lattice need two logarithms in all: ``ln offset`` and ``ln base``).  ``KL = E_P[ln V]``
(the order-1 limit) likewise.

zCDP (Bun & Steinke): ``rho = sup_{alpha > 1} D_alpha / alpha``.  ``D_alpha`` is
non-decreasing in ``alpha``, so on a grid ``1 < a_1 < ... < a_m``:

* ``rho >= max_j D_{a_j} / a_j`` (lower end),
* ``rho <= max(D_{a_1}, max_j D_{a_{j+1}} / a_j, D_inf / a_m)`` with ``D_inf = ln max V``
  (upper end: ``D_alpha / alpha`` on ``[a_j, a_{j+1}]`` is at most ``D_{a_{j+1}} / a_j``).

Both ends are certified; the grid's step sets the width.  For ``k`` independent runs of one
release ``D_alpha`` is ``k`` times the release's, so ``rho`` is exactly ``k`` times too.

>>> from fractions import Fraction as F
>>> from exactdp.accounting import PrivacyLoss
>>> rr = PrivacyLoss.from_laws({0: F(3, 4), 1: F(1, 4)}, {0: F(1, 4), 1: F(3, 4)})
>>> d2 = renyi(rr, 2)          # ln(3/4 * 3 + 1/4 * 1/3) = ln(7/3)
>>> F(8472, 10000) < d2.lo <= d2.hi < F(8473, 10000)
True
"""

from __future__ import annotations

from fractions import Fraction

from exactdp.accounting.loss import PrivacyLoss, check_loss
from exactdp.certified import Interval, exp_interval, ln_interval
from exactdp.params import ParameterError, to_fraction

__all__ = ["kl", "renyi", "zcdp_rho"]


def _ln_ratios(loss: PrivacyLoss, bits: int) -> list[tuple[Fraction, Interval]]:
    """``(P-mass, ln v)`` per atom of positive P-mass; on a lattice from ``ln offset`` and
    ``ln base`` alone."""
    out = []
    lat = loss.lattice
    if lat is not None and lat[1] is not None:
        offset, base, _ = lat
        assert base is not None  # checked above (mypy does not narrow through lat[1])
        lo_o, lo_b = ln_interval(offset, bits), ln_interval(base, bits)
        slots = ((i, a) for i, a in enumerate(loss._pn) if a)
        for i, a in slots:
            out.append((Fraction(a, loss.pden),
                        Interval(lo_o.lo + i * lo_b.lo, lo_o.hi + i * lo_b.hi)))
        return out
    for v, p, _ in loss.atoms():
        if p:
            out.append((p, ln_interval(v, bits)))
    return out


def kl(loss: object, bits: int = 128) -> Interval | None:
    """``KL(P || Q) = E_P[ln V]``, certified; None when infinite."""
    pl = check_loss(loss, "loss")
    if pl.infinite_mass:
        return None
    terms = _ln_ratios(pl, bits)
    return Interval(sum((p * iv.lo for p, iv in terms), Fraction(0)),
                    sum((p * iv.hi for p, iv in terms), Fraction(0)))


def _moment(loss: PrivacyLoss, t: Fraction, bits: int) -> Interval:
    """``E_P[V**t]`` for ``t > 0``: exact for integer ``t``, else per-atom certified."""
    if t.denominator == 1:
        k = t.numerator
        total = sum((p * v**k for v, p, _ in loss.atoms() if p), Fraction(0))
        return Interval(total, total)
    lo = hi = Fraction(0)
    for p, ln_v in _ln_ratios(loss, bits):
        # exp is increasing: exp(t lo) <= v**t <= exp(t hi)
        lo += p * exp_interval(t * ln_v.lo, bits).lo
        hi += p * exp_interval(t * ln_v.hi, bits).hi
    return Interval(lo, hi)


def renyi(loss: object, alpha: object, bits: int = 128) -> Interval | None:
    """``D_alpha(P || Q)`` for a rational order ``alpha > 1``, certified; None when
    infinite (``P(Q = 0) > 0``)."""
    pl = check_loss(loss, "loss")
    a = to_fraction(alpha, "alpha")
    if a <= 1:
        raise ParameterError(f"alpha = {a} must be > 1 (use kl for the order-1 limit)")
    if pl.infinite_mass:
        return None
    m = _moment(pl, a - 1, bits)
    lo, hi = ln_interval(m.lo, bits), ln_interval(m.hi, bits)
    return Interval(max(Fraction(0), lo.lo) / (a - 1), max(Fraction(0), hi.hi) / (a - 1))


def zcdp_rho(loss: object, step: object = Fraction(1, 32), bits: int = 96) -> Interval | None:
    """A certified interval containing ``rho = sup_{alpha > 1} D_alpha / alpha`` of this
    ordered pair (see the module doc), on the grid ``1 + step, 1 + 2 step, ...`` up to the
    order past which ``ln(max V) / alpha`` is below the lower end.  None when infinite."""
    pl = check_loss(loss, "loss")
    h = to_fraction(step, "step")
    if not 0 < h <= 1:
        raise ParameterError(f"step = {h} must lie in (0, 1]")
    top = pl.max_ratio
    if top is None:
        return None
    if top <= 1:
        return Interval(Fraction(0), Fraction(0))
    d_inf = ln_interval(top, bits).hi
    lower = Fraction(0)
    a = 1 + h
    first = renyi(pl, a, bits)
    assert first is not None
    upper = first.hi  # alpha in (1, a_1]: D_alpha / alpha <= D_{a_1}
    prev_a, d = a, first
    while True:
        lower = max(lower, d.lo / prev_a)
        if lower > 0 and d_inf / prev_a <= lower:
            break
        nxt = prev_a + h
        d = renyi(pl, nxt, bits)  # type: ignore[assignment]
        assert d is not None
        upper = max(upper, d.hi / prev_a)
        prev_a = nxt
    upper = max(upper, lower, d_inf / prev_a)
    return Interval(lower, upper)
