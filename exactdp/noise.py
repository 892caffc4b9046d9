"""Shared noise and coins for the mechanisms beyond paper 004.

Every sampler here is a deterministic function of its ``uniform(d)`` draws (through
:meth:`RandomSource.bernoulli` or :meth:`RandomSource.uniform`), makes a number of draws that
depends only on its public parameters (strict time), and has an exact rational law, so that the
exploring source of :mod:`exactdp.explore` computes the law of any mechanism built from them.

* :func:`randomized_response` -- ``RandResponse(b, p)`` of Aumüller, Lebeda & Pagh (paper 003,
  §2): ``1 - b`` with probability exactly ``p``, one coin.
* :func:`rand_round` -- ``RandRound(num/den)`` (paper 003, §2): ``ceil`` with probability
  ``frac``, else ``floor``; one coin, even when ``den`` divides ``num``.
* :class:`ClampedGeometric` -- the two-sided geometric (discrete Laplace) with any rational
  ratio ``r = a/b`` in ``(0, 1)``, ``Pr[eta = z] = (1 - r)/(1 + r) r^|z|``, added to a centre
  and clamped to a finite range: GeoSample (paper 004, Algorithm 4.8 / Lemma 4.9, ratio
  ``2^k/(2^k + 1)``) generalised.  One ``uniform(D)`` per sample, ``D`` fixed by the public
  parameters; an inverse-CDF search of a fixed number of rounds, non-decreasing in ``u``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cached_property
from typing import cast

import gmpy2

from exactdp.inverse_cdf import (
    MAX_INTEGER_BITS,
    CDFDraw,
    InverseCDFSampler,
    check_outcome,
    count_list,
    inverse_cdf_search,
)
from exactdp.params import (
    DomainError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    to_fraction,
)
from exactdp.randomness import RandomSource, default_source

__all__ = [
    "ClampedGeometric",
    "geometric_ratio",
    "probability",
    "rand_round",
    "randomized_response",
]


def probability(p: object, name: str = "p") -> Fraction:
    """``p`` as an exact probability in ``[0, 1]`` (a Fraction or int; floats are refused:
    a float probability is a rounded one, in a direction nobody chose)."""
    if isinstance(p, bool) or not isinstance(p, (int, Fraction)):
        raise ParameterTypeError(f"{name} = {p!r:.60} must be an int or a Fraction (an exact "
                                 f"probability; floats are refused)")
    q = Fraction(p)
    if not 0 <= q <= 1:
        raise DomainError(f"{name} = {q} must lie in [0, 1]")
    return q


def randomized_response(bit: int, p: Fraction, source: RandomSource) -> int:
    """``RandResponse(b, p)``: ``1 - b`` with probability exactly ``p``, else ``b``.

    One coin ``source.bernoulli(p.numerator, p.denominator)`` whatever ``b`` (strict time).
    ``p`` must already be validated (:func:`probability`); ``bit`` is 0 or 1.
    """
    flip = source.bernoulli(p.numerator, p.denominator)
    return bit ^ 1 if flip else bit


def rand_round(num: int, den: int, source: RandomSource) -> int:
    """``RandRound(num/den)`` for ints ``num >= 0``, ``den >= 1``: ``floor(num/den) + 1`` with
    probability exactly ``(num mod den)/den``, else ``floor(num/den)``.

    Unbiased (``E = num/den``) and within 1 of ``num/den``.  One coin
    ``bernoulli(num mod den, den)`` always, so the number of draws does not depend on whether
    the input is a multiple of ``den`` (strict time).
    """
    q, r = divmod(num, den)
    return q + 1 if source.bernoulli(r, den) else q


def geometric_ratio(r: object, name: str = "ratio") -> Fraction:
    """``r`` as an exact ratio in ``(0, 1)`` (int/Fraction/string ``"a/b"``; floats refused)."""
    q = to_fraction(r, name)
    if not 0 < q < 1:
        raise ParameterError(f"{name} = {q} must lie strictly between 0 and 1 (the two-sided "
                             f"geometric's ratio r = Pr[eta = z + 1]/Pr[eta = z] for z >= 0)")
    return q


def _int_arg(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterTypeError(f"{name} = {value!r:.60} must be an int")
    return value


class ClampedGeometric(InverseCDFSampler):
    """``clamp_[lo, hi](c + eta)``, ``eta`` two-sided geometric of ratio ``r = a/b`` (lowest
    terms): ``Pr[eta = z] = (1 - r)/(1 + r) r^|z|`` for every integer ``z``.

    GeoSample (paper 004, Algorithm 4.8) generalised from ``r = 2^k/(2^k + 1)`` to any rational
    ``r`` in ``(0, 1)`` and from ``[n] x [n]`` to any public centre range
    ``[centre_lo, centre_hi]`` (default ``[lo, hi]``) and output range ``[lo, hi]``.  Clamping is
    post-processing: the mass below ``lo`` (above ``hi``) is lumped at ``lo`` (``hi``).

    As a counting mechanism (``InverseCDFSampler``) the outputs are the *offsets*
    ``z = value - lo`` in ``[0, n]``, ``n = hi - lo``, and ``c`` is the centre itself; with
    ``lo = centre_lo = 0`` and ``hi = centre_hi = n`` this is exactly a counting mechanism
    ``[n] x [D]_+ -> [n]`` (with ``r = 2^k/(2^k+1)`` exactly GeoSample: same ``D``, same ``F``).

    Common denominator (fixed by ``r``, the output range and the centre range, never by ``c``):
    ``D = (a + b) b^N`` with ``N + 1 = max(centre_hi - lo, hi - centre_lo, 1)``.  Scaled CDF
    (the Lemma 4.9 analogue; ``v = lo + z`` the value, ``j = v - c``), for ``lo <= v < hi``:

    ``F_c(z) = a^(-j) b^(N + 1 + j)``        if ``j < 0``  (``D r^|j| / (1 + r)``),
    ``F_c(z) = D - a^(j+1) b^(N - j)``       if ``j >= 0`` (``D (1 - r^(j+1)/(1 + r))``),

    and ``F_c(n) = D``.  Sampling: ``M(c, u) = min{z : F_c(z) >= u}`` for one ``u = uniform(D)``
    by :func:`~exactdp.counting.inverse_cdf_search`, exactly ``n.bit_length()`` rounds of one
    ``F`` evaluation whatever ``c`` and ``u`` (strict time), non-decreasing in ``u`` (so
    :func:`exactdp.checker.threshold_distribution` applies).  Output law: exactly
    :meth:`law` (checked in tests/test_noise.py and by the proofs that use it).  Privacy: for
    centres ``c, c'`` the pmfs differ by a factor at most ``r^(-|c - c'|)``.
    """

    def __init__(self, ratio: object, lo: object, hi: object, centre_lo: object = None,
                 centre_hi: object = None) -> None:
        self.ratio = geometric_ratio(ratio)
        self.lo = _int_arg(lo, "lo")
        self.hi = _int_arg(hi, "hi")
        if self.hi < self.lo:
            raise ParameterError(f"hi = {self.hi} must be >= lo = {self.lo}")
        self.centre_lo = self.lo if centre_lo is None else _int_arg(centre_lo, "centre_lo")
        self.centre_hi = self.hi if centre_hi is None else _int_arg(centre_hi, "centre_hi")
        if self.centre_hi < self.centre_lo:
            raise ParameterError(f"centre_hi = {self.centre_hi} must be >= centre_lo = "
                                 f"{self.centre_lo}")
        self.n = self.hi - self.lo
        self._a, self._b = self.ratio.numerator, self.ratio.denominator
        self._ma, self._mb = gmpy2.mpz(self._a), gmpy2.mpz(self._b)
        self._top = max(self.centre_hi - self.lo, self.hi - self.centre_lo, 1)  # N + 1
        bits = self._top * self._b.bit_length() + (self._a + self._b).bit_length()
        if bits > MAX_INTEGER_BITS:
            raise ResourceLimitError(
                f"the clamped geometric's common denominator D would have about {bits} bits "
                f"(> {MAX_INTEGER_BITS}); narrow the output or centre range")

    def __repr__(self) -> str:
        return (f"ClampedGeometric(ratio={self.ratio}, lo={self.lo}, hi={self.hi}, "
                f"centre_lo={self.centre_lo}, centre_hi={self.centre_hi})")

    @cached_property
    def d(self) -> int:  # type: ignore[override]
        return (self._a + self._b) * self._b ** (self._top - 1)

    @property
    def privacy_ratio(self) -> Fraction:
        """``1/r``: the worst ratio of the pmfs at centres ``c`` and ``c + 1``."""
        return 1 / self.ratio

    def _check_cz(self, c: object, z: object) -> None:
        self._check_centre(c)
        check_outcome(z)

    def _check_centre(self, c: object) -> int:
        if type(c) is int and self.centre_lo <= c <= self.centre_hi:
            return c  # the common case first: a plain int in range (no ABC checks)
        if isinstance(c, bool) or not isinstance(c, int):
            raise ParameterTypeError(f"c = {c!r:.60} must be an int in [{self.centre_lo}, "
                                     f"{self.centre_hi}]")
        if not self.centre_lo <= c <= self.centre_hi:
            raise DomainError(f"c = {c} is outside the public centre range "
                              f"[{self.centre_lo}, {self.centre_hi}]")
        return c

    def cdf(self, c: int, z: int) -> int:
        """``F_c(z) = D * Pr[clamp(c + eta) <= lo + z]`` as an integer (see the class doc)."""
        if type(z) is not int or type(c) is not int or not (
                self.centre_lo <= c <= self.centre_hi):  # plain ints in range: checked here
            self._check_cz(c, z)
        if z < 0:
            return 0
        if z >= self.n:
            return self.d
        a, b, top = self._a, self._b, self._top
        j = self.lo + z - c
        if j < 0:
            return a ** (-j) * b ** (top + j)
        return self.d - a ** (j + 1) * b ** (top - 1 - j)

    def search_cdf(self, c: int, z: int) -> int:
        """:meth:`cdf` for ``z`` in ``[0, n)`` (the search's arguments) without re-validation,
        in gmpy2 arithmetic (the same integers; tests/test_noise.py checks equality)."""
        if z >= self.n:
            return self._d_mpz  # type: ignore[return-value]
        j = self.lo + z - c
        top = self._top
        if j < 0:
            return self._ma ** (-j) * self._mb ** (top + j)  # type: ignore[no-any-return]
        low = self._ma ** (j + 1) * self._mb ** (top - 1 - j)
        return self._d_mpz - low  # type: ignore[no-any-return,operator]

    @cached_property
    def _d_mpz(self) -> object:
        return gmpy2.mpz(self.d)

    def _search(self, c: int, u: int) -> int:
        """The search over :meth:`search_cdf` with ``u`` converted to gmpy2 once per draw
        (comparing a gmpy2 value with a Python int converts the int at every round: about
        30% of a draw at a 24,000-bit ``D``).  Same integers, same rounds, same outputs."""
        return inverse_cdf_search(lambda z: self.search_cdf(c, z), self.n, gmpy2.mpz(u))

    def __call__(self, c: int, u: int) -> int:
        """``M(c, u)``: the offset ``z`` of the output ``lo + z``; ``u`` in ``[D]_+``."""
        self._check_centre(c)
        if isinstance(u, bool) or not isinstance(u, int):
            raise ParameterTypeError(f"u = {u!r:.60} must be an int in [1, D]")
        if not 1 <= u <= self.d:
            raise DomainError(f"u = {u} is outside [D]_+ = [1, {self.d}]")
        return self._search(c, u)

    def draw(self, c: int) -> CDFDraw:
        return CDFDraw(self, self._check_centre(c))

    def check_counts(self, counts: Sequence[int]) -> list[int]:
        """``counts`` (centres) as a list, each checked as :meth:`draw` checks one centre (an
        int in ``[centre_lo, centre_hi]``) -- without building a draw per centre."""
        cs = count_list(counts)
        if all(type(c) is int for c in cs):
            ints = cast(list[int], cs)
            if not ints or (self.centre_lo <= min(ints) and max(ints) <= self.centre_hi):
                return ints
        return [self._check_centre(c) for c in cs]

    def sample_value(self, c: int, source: RandomSource | None = None) -> int:
        """One release ``clamp_[lo, hi](c + eta)``: ``lo + M(c, uniform(D))``."""
        return self.lo + default_source(source).inverse_cdf(self.draw(c))

    # ------------------------------------------------------------------ the ideal law

    def tail_below(self, j: int) -> Fraction:
        """``Pr[eta <= j]`` of the unclamped two-sided geometric, in closed form."""
        r = self.ratio
        if j < 0:
            return r ** (-j) / (1 + r)
        return 1 - r ** (j + 1) / (1 + r)

    def cdf_exact(self, c: int, value: int) -> Fraction:
        """``Pr[clamp(c + eta) <= value]`` as a Fraction (0 below ``lo``, 1 from ``hi``)."""
        self._check_centre(c)
        check_outcome(value)
        if value < self.lo:
            return Fraction(0)
        if value >= self.hi:
            return Fraction(1)
        return self.tail_below(value - c)

    def pmf(self, c: int, value: int) -> Fraction:
        """``Pr[clamp(c + eta) = value]``: ``(1-r)/(1+r) r^|value-c|`` inside ``(lo, hi)``,
        the lumped tails at the ends."""
        self._check_centre(c)
        check_outcome(value)
        if not self.lo <= value <= self.hi:
            return Fraction(0)
        r = self.ratio
        if self.lo == self.hi:
            return Fraction(1)
        if value == self.lo:
            return self.tail_below(value - c)
        if value == self.hi:
            return 1 - self.tail_below(value - 1 - c)
        return (1 - r) / (1 + r) * r ** abs(value - c)

    def law(self, c: int) -> dict[int, Fraction]:
        """``{value: Pr[clamp(c + eta) = value]}`` over ``[lo, hi]`` (closed form)."""
        return {v: self.pmf(c, v) for v in range(self.lo, self.hi + 1)}
