"""Certified dyadic bounds on the binomial CDF, for
:meth:`ApproxBinDraw.certified_output <exactdp.histograms.orderstats.ApproxBinDraw.certified_output>`
(the fast path of Algorithm 6.18, beside its reference loop in
:mod:`exactdp.histograms.orderstats`): :class:`BinomialCDFBounds` encloses
``P_l = Pr[Bin(m, p/q) <= l]``, and :func:`times_lt` decides ``floor(s x) < u`` for a dyadic
``x`` reading the leading bits of ``s`` and ``u`` first.

Dyadic numbers ``(mant, exp) = mant * 2**exp`` come from :mod:`exactdp.dyadic`, with
mantissas of exactly ``_PREC`` bits; every operation rounds in the direction it is told
(``up=True``: the result is at least the exact value).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import gmpy2

from exactdp.dyadic import Dyadic, dadd, dnorm, dpow, dscale

__all__ = ["BinomialCDFBounds", "times_lt"]

_PREC = 256
#: ``pi = p'/s`` is enclosed in ``[P_lo, P_hi] / 2**_PI_BITS``.
_PI_BITS = 320


def _floor_times(x: Dyadic, s: int) -> int:
    """``floor(s * x)`` for an integer ``s >= 1`` and a dyadic ``x >= 0``."""
    prod = s * x[0]
    if x[1] >= 0:
        return prod << x[1]
    return 0 if prod.bit_length() <= -x[1] else prod >> -x[1]


#: Leading bits of ``s`` and ``u`` that :func:`times_lt` looks at before multiplying.
_LEAD = 400


def _dyadic_vs(mant: int, exp: int, v: int) -> int:
    """The sign of ``mant * 2**exp - v`` for integers ``mant, v >= 0``."""
    if exp >= 0:
        a, b = mant << exp, v
    elif mant.bit_length() <= -exp:  # 0 <= mant 2^exp < 1
        return -1 if v >= 1 else int(mant > 0)
    else:
        a, b = mant, v << -exp
    return (a > b) - (a < b)


def times_lt(x: Dyadic, s: int, u: int) -> bool:
    """``s x < u`` -- i.e. ``floor(s x) < u`` -- for a dyadic ``x >= 0`` and integers
    ``s >= 1``, ``u``.  With ``s = s_top 2^k + r`` and ``u = u_top 2^k + r'`` (``k`` keeps
    the leading ``_LEAD`` bits of ``s``; ``0 <= r, r' < 2^k``): ``(s_top + 1) x <= u_top``
    gives ``s x < (s_top + 1) 2^k x <= u``, and ``s_top x >= u_top + 1`` gives
    ``s x >= s_top 2^k x >= (u_top + 1) 2^k > u``; only between the two (``u`` within about
    ``2^-390 s`` of ``s x``) is ``s x`` formed, with GMP (``s`` has ``~n log2(3|X|)`` bits
    in SparseHistogram)."""
    mant, exp = x
    if mant == 0:
        return u > 0
    k = max(0, s.bit_length() - _LEAD)
    if k and u >= 0:
        s_top, u_top = s >> k, u >> k
        if _dyadic_vs((s_top + 1) * mant, exp, u_top) <= 0:
            return True
        if _dyadic_vs(s_top * mant, exp, u_top + 1) >= 0:
            return False
    return _floor_times(x, gmpy2.mpz(s)) < u


class BinomialCDFBounds:
    """Bounds ``lo_l <= Pr[Bin(m, p'/s) <= l] <= hi_l`` (dyadic rationals), computed lazily
    for ``l = 0, 1, ...`` with outward-rounded arithmetic on 256-bit mantissas.

    The binomial CDF decreases in the success probability, so ``lo`` is evaluated at
    ``P_hi / 2^320 >= p'/s`` and ``hi`` at ``P_lo / 2^320 <= p'/s``, where
    ``p' = floor(sp/q)``.  For ``s < 2^320`` the enclosure comes from ``p'`` itself; for
    larger ``s`` from ``p/q - 1/s < p'/s <= p/q`` (so the ``log s``-bit ``p'`` is never
    formed here: with ``s ~ 2^200000`` that division dominated the run time).  At a dyadic ``pi``
    the pmf terms are ``t_0 = (1 - pi)^m`` (binary powering) and
    ``t_{j+1} = t_j (m - j) pi / ((j + 1)(1 - pi))`` (an integer ratio), each rounded
    down for ``lo`` and up for ``hi``, as are the partial sums.  Exponents are unbounded
    ints, so a ``(1 - pi)^m`` far below ``2^-1000000`` keeps its relative precision.
    """

    def __init__(self, m: int, p: int, q: int, s: int) -> None:
        self.m, self.p, self.q, self.s = m, p, q, s
        self._lo_sum: Dyadic = (0, 0)
        self._hi_sum: Dyadic = (0, 0)
        self._cdf: list[tuple[Dyadic, Dyadic]] = []
        self._lo_terms: Iterator[Dyadic] | None = None
        self._hi_terms: Iterator[Dyadic] | None = None

    def _start(self) -> None:
        """The enclosure ``[P_lo, P_hi] / 2^320`` of ``p'/s`` and the two term streams."""
        p, q, s = self.p, self.q, self.s
        scale = 1 << _PI_BITS
        if s.bit_length() <= _PI_BITS:
            p_lo, rest = divmod((s * p // q) * scale, s)
            p_hi = p_lo + (rest > 0)
        else:  # p/q - 1/s < p'/s <= p/q, and 2^320/s < 1
            p_hi = -((-p * scale) // q)
            p_lo = max(0, p * scale // q - 1)
        self._lo_terms = self._terms(p_hi, up=False)
        self._hi_terms = self._terms(p_lo, up=True)

    def _terms(self, p_num: int, up: bool) -> Iterator[Dyadic]:
        m = self.m
        q_num = (1 << _PI_BITS) - p_num
        if q_num == 0:  # pi = 1: all the mass at m
            for j in itertools.count():
                yield dnorm(1 if j == m else 0, 0, up, _PREC)
        term = dpow(dnorm(q_num, -_PI_BITS, up, _PREC), m, up, _PREC)
        for j in itertools.count():
            yield term
            term = (dscale(term, (m - j) * p_num, (j + 1) * q_num, up, _PREC) if j < m
                    else (0, 0))

    def certified_zero(self, u: int) -> bool:
        """Whether ``u <= s L - (m - 1)`` for the cheap lower bound
        ``L = 1 - m P / 2^320 <= 1 - m p/q <= 1 - m p'/s <= (1 - p'/s)^m = P_0``
        (Bernoulli's inequality; ``P / 2^320 >= p/q`` from the leading bits of ``p`` and
        ``q``): then ``u <= floor(s lo_0) - t'(0)(m - 1)`` holds for the exact ``P_0`` as
        well, so the loop hits at ``l = 0`` (see :meth:`ApproxBinDraw.certified_output`).

        ``s`` and ``u`` enter through their leading 400 bits (``s >= s_top 2^k`` and
        ``u + m - 1 < a_top 2^k``, exact when ``s < 2^400``), so the test costs two shifts
        instead of the ``2 log2 m`` rounded products of ``(1 - pi)^m`` and products with
        an ``n log2(3|X|)``-bit ``s``: in SparseHistogram almost every draw has
        ``m p/q < 2^-20`` and ``u`` far from ``s P_0``, and is decided here.  False means
        "not decided here" (never a certified miss): the caller goes on with the dyadic
        bounds.
        """
        m, p, q, s = self.m, self.p, self.q, self.s
        cut = max(0, q.bit_length() - 2 * _PI_BITS)  # p/q < ((p >> cut) + 1) / (q >> cut)
        p_top = (p >> cut) + (cut > 0)
        p_up = -((-p_top << _PI_BITS) // (q >> cut))  # P >= 2^320 p/q
        k = max(0, s.bit_length() - 400)
        a_top = ((u >> k) + ((m - 1) >> k) + 2) if k else u + m - 1
        return a_top << _PI_BITS <= (s >> k) * ((1 << _PI_BITS) - m * p_up)

    def at(self, ell: int) -> tuple[Dyadic, Dyadic]:
        """``(lo_ell, hi_ell)``."""
        if self._lo_terms is None:
            self._start()
        assert self._lo_terms is not None and self._hi_terms is not None
        while len(self._cdf) <= ell:
            self._lo_sum = dadd(self._lo_sum, next(self._lo_terms), False, _PREC)
            self._hi_sum = dadd(self._hi_sum, next(self._hi_terms), True, _PREC)
            self._cdf.append((self._lo_sum, self._hi_sum))
        return self._cdf[ell]
