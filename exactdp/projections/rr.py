"""Randomized response on signs with a rational base (Li & Li, paper 001, Algorithms 6-8, 11).

Every sign mechanism of the paper keeps a sign with probability ``e^(L eps')/(e^(L eps')+1)``
for an integer level ``L`` (``L = 1``: plain randomized response; ``L = ceil(|x|/unit)``: the
"smooth flipping probability" of Algorithms 7 and 8).  Here the real base ``e^(eps')`` is
replaced by a rational ``rho = a/b <= e^(eps')`` (the BASE is rounded down, never each
probability), so that

    keep(L) = a^L / (a^L + b^L),    flip(L) = b^L / (a^L + b^L)

are exact rationals and the proofs of Thm 4.7/4.8 hold verbatim with ``e^(eps') -> rho``
(achieved privacy loss ``ln rho <= eps'`` per unit).  ``L = 0`` (a zero projection) gives
``keep = flip = 1/2``: a fair coin, never a third output symbol (§5 P4).

Strict time (§3.0): the level is capped at a public ``L_max`` (capping keeps
``|L - L'| <= 1`` between neighbours, so the proofs are unchanged) and every bit costs exactly
one ``uniform(D)`` (through ``source.bernoulli(N_L, D)``) with the common denominator
``D = lcm_{0 <= L <= L_max} (a^L + b^L)`` fixed by the public ``(a, b, L_max)``.
(:func:`exactdp.noise.randomized_response` does not fit here: it draws
``uniform(denominator of p)``, and that denominator would change with the data-dependent
level ``L``.)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from math import gcd, lcm

from exactdp.certified import compare_exp
from exactdp.params import (
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    positive_fraction,
    positive_int,
    to_fraction,
)
from exactdp.randomness import RandomSource

__all__ = [
    "MAX_DENOMINATOR_BITS",
    "Base",
    "SmoothFlipper",
    "base_from_eps",
    "largest_l_max",
    "rr_keep",
]

#: Refuse common denominators ``D`` above this many bits (a draw costs ``O(bits)``).
MAX_DENOMINATOR_BITS = 1 << 12


@dataclass(frozen=True)
class Base:
    """The rational base ``rho = a/b`` (``a > b >= 1``, lowest terms) standing for
    ``e^(eps')``: the per-unit privacy ratio of randomized response on one sign."""

    a: int
    b: int

    def __post_init__(self) -> None:
        for name in ("a", "b"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int):
                raise ParameterTypeError(f"base {name} = {v!r:.60} must be an int (rho = a/b)")
        if not self.a > self.b >= 1:
            raise ParameterError(f"base rho = {self.a}/{self.b} needs a > b >= 1 (rho > 1)")
        if gcd(self.a, self.b) != 1:
            raise ParameterError(f"base rho = {self.a}/{self.b} must be in lowest terms; pass "
                                 f"Base.of(Fraction({self.a}, {self.b}))")

    @classmethod
    def of(cls, rho: object) -> Base:
        """``Base`` from a rational ``rho > 1`` (int, Fraction or string ``"a/b"``)."""
        q = to_fraction(rho, "rho")
        if q <= 1:
            raise ParameterError(f"rho = {q} must be > 1 (rho = e^(eps') with eps' > 0)")
        return cls(q.numerator, q.denominator)

    @property
    def ratio(self) -> Fraction:
        return Fraction(self.a, self.b)

    def keep(self, level: int) -> Fraction:
        """``a^L/(a^L + b^L)``: probability of releasing the true sign at level ``L``."""
        level = _level(level)
        return Fraction(self.a**level, self.a**level + self.b**level)

    def flip(self, level: int) -> Fraction:
        """``b^L/(a^L + b^L)``: probability of releasing the opposite sign at level ``L``."""
        level = _level(level)
        return Fraction(self.b**level, self.a**level + self.b**level)


def _level(level: object) -> int:
    """A level ``L``: an int ``>= 0`` (the number of grid steps of a projection)."""
    if isinstance(level, bool) or not isinstance(level, int):
        raise ParameterTypeError(f"level L = {level!r:.60} must be an int >= 0 (a count of "
                                 f"grid steps)")
    if level < 0:
        raise ParameterError(f"level L = {level} must be >= 0 (a count of grid steps)")
    return level


def rr_keep(base: Base, level: int) -> Fraction:
    """``a^L/(a^L + b^L)`` (= ``rho^L/(rho^L + 1)``), the smooth keep probability."""
    return base.keep(level)


def base_from_eps(eps: object, k: object = 1, max_denominator: object = 64) -> Base:
    """The largest ``a/b`` with ``b <= max_denominator`` and ``(a/b)^k <= e^eps``, certified
    with :func:`exactdp.certified.compare_exp` (rounding the BASE down: the achieved loss
    ``k ln(a/b)`` is at most ``eps``).  Ties in value are impossible (``a/b`` in lowest terms
    is unique).  Small ``max_denominator`` keeps ``D`` of :class:`SmoothFlipper` small.

    The best lower approximation of the irrational ``x = e^(eps/k)`` is found by a
    Stern-Brocot descent (each run of equal moves by exponential then binary search), so the
    number of certified comparisons grows as ``log(max_denominator)^2``, not linearly."""
    e = positive_fraction(eps, "eps")
    kk = positive_int(k, "k")
    nmax = positive_int(max_denominator, "max_denominator")

    def below(a: int, b: int) -> bool:  # (a/b)^k < e^eps; never equal (e^eps is irrational)
        return compare_exp(e, Fraction(a, b) ** kk) > 0

    def longest_run(base: tuple[int, int], step: tuple[int, int], lower: bool) -> int:
        """The largest t >= 1 keeping ``base + t*step`` (numerators and denominators added)
        on its side of x (below if ``lower``) with denominator <= nmax; t = 1 is known."""
        def ok(t: int) -> bool:
            return below(base[0] + t * step[0], base[1] + t * step[1]) == lower

        limit = (nmax - base[1]) // step[1] if step[1] else None
        good, bad, t = 1, 0, 2
        while limit is None or t <= limit:
            if not ok(t):
                bad = t
                break
            good, t = t, 2 * t
        else:
            bad = limit + 1
        while bad - good > 1:
            mid = (good + bad) // 2
            good, bad = (mid, bad) if ok(mid) else (good, mid)
        return good

    lo, hi = (1, 1), (1, 0)  # lo <= x < hi; x > 1 as eps > 0
    while lo[1] + hi[1] <= nmax:
        if below(lo[0] + hi[0], lo[1] + hi[1]):
            t = longest_run(lo, hi, lower=True)
            lo = (lo[0] + t * hi[0], lo[1] + t * hi[1])
        else:
            t = longest_run(hi, lo, lower=False)
            hi = (hi[0] + t * lo[0], hi[1] + t * lo[1])
    if lo[0] == lo[1]:
        raise ParameterError(f"no rho = a/b > 1 with b <= max_denominator = {nmax} has "
                             f"rho^{kk} <= e^{e}; raise max_denominator")
    return Base(lo[0], lo[1])


@lru_cache(maxsize=256)
def _denominator(base: Base, l_max: int) -> int:
    """``lcm_{0 <= L <= l_max} (a^L + b^L)`` (pure, cached)."""
    return lcm(*(base.a**level + base.b**level for level in range(l_max + 1)))


@lru_cache(maxsize=256)
def _capped_lcm(a: int, b: int, l_max: int, bits: int) -> int:
    """``lcm_{0 <= L <= l_max} (a^L + b^L)``, or the first partial lcm past ``bits`` bits
    (a pure function of public ints, cached: mechanisms are built per explored path)."""
    d = 1
    for lev in range(l_max + 1):
        d = lcm(d, a**lev + b**lev)
        if d.bit_length() > bits:
            break
    return d


@lru_cache(maxsize=256)
def _threshold_table(d: int, a: int, b: int, l_max: int) -> tuple[int, ...]:
    """``N_L = d b^L/(a^L + b^L)`` for ``L = 0..l_max`` (pure, cached)."""
    return tuple(d // (a**level + b**level) * b**level for level in range(l_max + 1))


def largest_l_max(base: Base, bits: int) -> int:
    """The largest ``L_max`` whose common denominator ``D`` has at most ``bits`` bits (0 if
    even ``L_max = 1`` needs more): a public cap chosen from the base alone."""
    bits = positive_int(bits, "bits")
    level = 0
    d = 2
    while True:
        d = lcm(d, base.a ** (level + 1) + base.b ** (level + 1))
        if d.bit_length() > bits:
            return level
        level += 1


@dataclass(frozen=True)
class SmoothFlipper:
    """Smooth randomized response on one sign (Algorithms 7/8).

    For a projection ``x`` and a public sensitivity unit ``unit >= 1`` (``beta`` for OPORP,
    ``beta * max_i |W_ij|`` for dense ``W``): level ``L = min(ceil(|x|/unit), L_max)`` (0 iff
    ``x = 0``), sign ``s = +1`` if ``x >= 0`` else ``-1``; release ``s`` with probability
    exactly ``keep(L)``, else ``-s``.  ``x = 0`` gives a fair coin.  ``L_max = 1`` is plain
    randomized response (Algorithm 6 / 8-RR) with a coin for zero.

    One ``source.bernoulli(thresholds[L], D)`` = one ``uniform(D)`` per call, ``D`` fixed by
    ``(a, b, L_max)``.  Privacy per bit: neighbours with ``|L - L'| <= 1`` have output ratio
    at most ``rho`` (Thm 4.7/4.8 with ``e^(eps') -> rho``).
    """

    base: Base
    l_max: int

    def __post_init__(self) -> None:
        if not isinstance(self.base, Base):
            raise ParameterTypeError(f"base = {self.base!r:.60} must be a Base(a, b)")
        level = self.l_max
        if type(level) is not int or level < 1:
            level = positive_int(self.l_max, "L_max")
        object.__setattr__(self, "l_max", level)
        d = _capped_lcm(self.base.a, self.base.b, level, MAX_DENOMINATOR_BITS)
        if d.bit_length() > MAX_DENOMINATOR_BITS:
            raise ResourceLimitError(
                f"L_max = {level} with rho = {self.base.a}/{self.base.b} needs a common "
                f"denominator D of more than {MAX_DENOMINATOR_BITS} bits; lower L_max "
                f"(largest_l_max(base, bits) gives the largest within a budget)")

    @cached_property
    def denominator(self) -> int:
        """``D = lcm_{0 <= L <= L_max} (a^L + b^L)`` (even: the ``L = 0`` term is 2)."""
        return _denominator(self.base, self.l_max)

    @cached_property
    def thresholds(self) -> tuple[int, ...]:
        """``N_L = D b^L/(a^L + b^L)`` for ``L = 0..L_max``: flip iff ``uniform(D) <= N_L``."""
        return _threshold_table(self.denominator, self.base.a, self.base.b, self.l_max)

    def level(self, x: int, unit: int) -> int:
        """``min(ceil(|x|/unit), L_max)``; 0 iff ``x = 0`` (any ``unit >= 0`` then)."""
        if x == 0:
            return 0
        if unit < 1:
            raise ParameterError(f"unit = {unit} must be >= 1 for a non-zero projection x = {x}")
        return min((abs(x) + unit - 1) // unit, self.l_max)

    def sample(self, x: int, unit: int, source: RandomSource) -> int:
        """The released sign in ``{-1, +1}`` (one ``uniform(D)``)."""
        s = -1 if x < 0 else 1
        return -s if source.bernoulli(self.thresholds[self.level(x, unit)],
                                      self.denominator) else s

    def keep_probability(self, x: int, unit: int) -> Fraction:
        """``Pr[release sign(x)]`` (for ``x = 0``: ``Pr[+1] = 1/2``), exactly."""
        return self.base.keep(self.level(x, unit))
