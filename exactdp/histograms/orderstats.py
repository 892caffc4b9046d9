"""Order statistics of i.i.d. noisy counts (Balcer & Vadhan, Sections 6.1-6.3).

KH' and SparseHistogram (Algorithms 6.4, 6.21) need the top ``n + 1`` order statistics
``(Z_(m), ..., Z_(m-n))`` of ``m`` i.i.d. draws ``Z_j`` on ``[n] = {0..n}`` with integer
CDF ``F(z)/d`` -- the noisy counts of the ``m`` empty bins, ``m`` about ``|X|``.

* :func:`ord_sample` -- Algorithm 6.7 (Proposition 6.6): exact, through exact binomials
  ``min{Bin(M, p), T}`` (:class:`BinomialDraw`); its numbers have ``Omega(m)`` bits, so
  it is for small ``m`` only (the checker's reference).
* :func:`approx_conv_exp` -- Algorithm 6.16 (Proposition 6.15): truncated ``i``-fold
  convolution with flooring, by repeated squaring.
* :func:`approx_bin_sample` -- Algorithm 6.18 (Proposition 6.17): ``min{Bin(m, p/q), t}``
  to within statistical distance ``(m(t+1) - t)/s``, in time polylogarithmic in ``m``.
* :func:`approx_ord_sample` -- Algorithm 6.20 (Proposition 6.19): OrdSample with
  ApproxBinSample in place of the exact binomials; distance ``<= m(n^2+2n)/s``.

Every draw goes through ``source.inverse_cdf`` with a small draw object (``n``, ``d``,
``cdf(z)``, ``search(u)``) whose ``cdf`` and ``search`` run the algorithm's own
arithmetic, so the checker's exploring source (:func:`exactdp.explore.explore`) branches
once per output value of a draw, never once per ``u``.

Speed.  At PureSparseHistogram sizes ``s`` has about ``n log2(3|X|)`` bits, and the loop
of Algorithm 6.18 squares vectors of up to ``~2n`` such numbers ``log2 m ~ log2 |X|`` times
per width (``O~(n^2 log^2 |X|)``, Theorem 6.10 iv): minutes for ``n = 1000`` over
``2^64`` even with FLINT.  :meth:`ApproxBinDraw.certified_output` decides almost every
``u`` from certified dyadic bounds on the binomial CDF instead, with exactly the output
the loop would give (proved in its docstring, compared with the loop for every ``u`` on
small grids in the tests); the loop still runs for the rare undecided ``u``, and always in
padded mode.  Measured with ``tests/benchmarks/bench_orderstats.py``.

Notes on the paper.  Before Proposition 6.6 the paper records that the conference
version [BV18] sampled ``Z_(m-k)`` given ``Z_(m-k+1) = v`` with CDF ``(F(z)/F(v))^{m-k}``,
which is only right for continuous distributions; ``proofs/balcer_vadhan/prop_6_06_remark_bv18.py``
exhibits the difference exactly.  Slips found while implementing: the proof of
Proposition 6.15 i swaps the cases (Algorithm 6.16 squares for even ``i`` and multiplies
by ``a`` for odd ``i``; the proof says the opposite -- harmless, both bounds hold);
Proposition 6.17's time bound ``O~(log q) + O(log m) O~(l log s)`` is ``O~(log q)`` for
output ``l = 0``, but that run still does width 1, ``O(log m) O~(log s)``: read
``l + 1`` for ``l``; footnote 7 means ``Pr[Z_(m) = 0] = Pr[M(0, U) = 0]^m``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from math import comb, gcd
from operator import le as _le

import gmpy2

from exactdp.counting import inverse_cdf_search
from exactdp.histograms.binomial_bounds import BinomialCDFBounds, times_lt
from exactdp.histograms.polymul import floor_divide, truncated_product, truncated_square
from exactdp.params import DomainError, ParameterError, ParameterTypeError
from exactdp.randomness import RandomSource, default_source
from exactdp.trace import active, record

__all__ = [
    "ApproxBinDraw",
    "BinomialDraw",
    "FunctionDraw",
    "approx_bin_sample",
    "approx_conv_exp",
    "approx_ord_sample",
    "cdf_values",
    "doubling_widths",
    "ord_sample",
    "order_statistics_from_counts",
]


def _int(value: object, name: str, low: int) -> int:
    if type(value) is int and value >= low:  # the common case, checked first
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterTypeError(f"{name} = {value!r} must be an int >= {low}")
    if value < low:
        raise ParameterError(f"{name} = {value} must be >= {low}")
    return int(value)


def cdf_values(cdf: Callable[[int], int], n: int, d: int) -> list[int]:
    """``[F(0), ..., F(n)]``, checked against Proposition 6.6's hypotheses.

    ``F: [n] -> [d]_+`` non-decreasing with ``F(n) = d`` (so ``F(0) >= 1``; every
    ``p_v = 1 - F(v-1)/F(v)`` is then defined).  Exactly ``n + 1`` evaluations of ``F``.
    """
    n = _int(n, "n", 1)
    d = _int(d, "d", 1)
    values = [cdf(z) for z in range(n + 1)]
    prev = 1
    for z, f in enumerate(values):
        if type(f) is not int and (isinstance(f, bool) or not isinstance(f, int)):
            raise ParameterTypeError(f"F({z}) = {f!r} must be an int")
        if not prev <= f <= d:
            raise DomainError(f"F({z}) = {f}: F must map [n] into [d]_+ = [1, {d}] and be "
                              f"non-decreasing (F({z - 1}) = {values[z - 1] if z else '-'})")
        prev = f
    if values[n] != d:
        raise DomainError(f"F(n) = F({n}) = {values[n]} must equal d = {d}")
    return [int(f) for f in values]


def order_statistics_from_counts(ell: Sequence[int]) -> tuple[int, ...]:
    """Step 4 of Algorithms 6.7/6.20: ``ell[v]`` copies of ``v``, from ``v = n`` down to 0."""
    out: list[int] = []
    for v in range(len(ell) - 1, -1, -1):
        out += [v] * ell[v]
    return tuple(out)


def _check_m(m: object, n: int) -> int:
    m = _int(m, "m", 1)
    if m < n + 1:
        raise ParameterError(f"m = {m} must be >= n + 1 = {n + 1} (Proposition 6.6)")
    return m


# --------------------------------------------------------------------------- exact

@dataclass(frozen=True)
class FunctionDraw:
    """An inverse-CDF draw on ``[n]`` from an integer CDF ``fn`` with ``fn(n) = d``.

    ``fn`` may close over state, so the exploring source does not memoise its options
    (``explore_cache = False``, :mod:`exactdp.explore`)."""

    explore_cache = False

    n: int
    d: int
    fn: Callable[[int], int]

    def cdf(self, z: int) -> int:
        return self.fn(z)

    def search(self, u: int) -> int:
        return inverse_cdf_search(self.fn, self.n, u)


@dataclass(frozen=True)
class BinomialDraw:
    """``min{Bin(trials, num/den), cap}`` as an inverse-CDF draw with exact integer CDF.

    Outputs ``[cap] = {0..cap}``.  With ``num/den`` in lowest terms the CDF has common
    denominator ``d = den**trials``:
    ``cdf(k) = sum_{j <= k} C(trials, j) num**j (den - num)**(trials - j)`` for
    ``k < cap`` and ``d`` for ``k >= cap``.  For ``cap = 0`` the output is 0 surely and
    ``d = 1``.  Its CDF table (built on the first :meth:`cdf`) costs ``O(cap)`` operations
    on ``trials * log2(den)``-bit integers: this is the ``Omega(m)`` of Algorithm 6.7.
    A value (equal parameters, equal draws): the exploring source computes the options of
    equal draws once per exploration.
    """

    trials: int
    num: int
    den: int
    cap: int
    d: int = field(init=False, compare=False)

    def __post_init__(self) -> None:
        if not (self.trials >= 0 and self.cap >= 0 and 0 <= self.num <= self.den
                and self.den >= 1):
            raise ParameterError(f"BinomialDraw needs trials, cap >= 0 and 0 <= num <= den, "
                                 f"den >= 1; got {self.trials}, {self.num}/{self.den}, "
                                 f"cap {self.cap}")
        den = self.den // gcd(self.num, self.den)
        object.__setattr__(self, "d", 1 if self.cap == 0 else den**self.trials)

    @cached_property
    def _cdf(self) -> tuple[int, ...]:
        """``(F(0), ..., F(cap))``, built on first use (the exploring source memoises the
        options of equal draws, :mod:`exactdp.explore`, and needs only ``d`` then)."""
        if self.cap == 0:
            return (1,)
        g = gcd(self.num, self.den)
        num, den = self.num // g, self.den // g
        values: list[int] = []
        total = 0
        for j in range(self.cap):
            if j <= self.trials:
                total += comb(self.trials, j) * num**j * (den - num) ** (self.trials - j)
            values.append(total)
        values.append(self.d)
        return tuple(values)

    @property
    def n(self) -> int:
        return self.cap

    def cdf(self, z: int) -> int:
        if z < 0:
            return 0
        return self._cdf[min(z, self.cap)]

    def search(self, u: int) -> int:
        return inverse_cdf_search(self.cdf, self.cap, u)


def ord_sample(cdf: Callable[[int], int], n: int, d: int, m: int,
               source: RandomSource | None = None) -> tuple[int, ...]:
    """``OrdSample_F(m)``, Algorithm 6.7: the top ``n + 1`` order statistics, exactly.

    Preconditions (Proposition 6.6): ``F = cdf`` maps ``[n]`` into ``[d]_+``,
    non-decreasing, ``F(n) = d``; ``m >= n + 1``.

    Output: ``(Z_(m), ..., Z_(m-n))`` (non-increasing) for ``Z_1..Z_m`` i.i.d. with
    ``Pr[Z <= z] = F(z)/d`` -- identically distributed (Proposition 6.6, checked in
    ``proofs/balcer_vadhan/prop_6_06_ordsample.py`` against exploring the naive sampler).
    For ``v = n, ..., 1``: ``ell_v ~ min{Bin(m - L_{v+1}, p_v), n + 1 - L_{v+1}}`` with
    ``p_v = (F(v) - F(v-1))/F(v)``, one :class:`BinomialDraw` each (``n`` draws always).
    Time: ``n + 1`` evaluations of ``F`` plus ``O(n^2)`` operations on integers of
    ``O(m log d)`` bits -- ``Omega(m)``, usable for small ``m`` only (the paper's point,
    footnote 7).
    """
    values = cdf_values(cdf, n, d)
    m = _check_m(m, n)
    src = default_source(source)
    ell = [0] * (n + 1)
    assigned = 0
    for v in range(n, 0, -1):
        ell[v] = src.inverse_cdf(BinomialDraw(m - assigned, values[v] - values[v - 1],
                                              values[v], n + 1 - assigned))
        assigned += ell[v]
    ell[0] = n + 1 - assigned
    return order_statistics_from_counts(ell)


# --------------------------------------------------------------------------- approximate

def _check_vector(a: Sequence[int], s: int) -> list[int]:
    vec = list(a)
    if not vec:
        raise ParameterError("a must have length t >= 1")
    # fast path, C-level only: every entry a plain int in [0, s] (bools are not plain)
    if set(map(type, vec)) == {int} and 0 <= min(vec) and max(vec) <= s:
        return vec
    plain = True  # every entry a plain int: nothing to convert
    for k, x in enumerate(vec):
        if type(x) is not int:
            if isinstance(x, bool) or not isinstance(x, int):
                raise ParameterTypeError(f"a[{k}] = {x!r} must be an int in [0, s]")
            plain = False
        if not 0 <= x <= s:
            raise DomainError(f"a[{k}] = {x} is outside [s] = [0, {s}]")
    return vec if plain else [int(x) for x in vec]


def approx_conv_exp(a: Sequence[int], i: int, s: int, *,
                    exponent_rounds: int | None = None) -> list[int]:
    """``ApproxConvExp_{s,t}(a, i)``, Algorithm 6.16, with ``t = len(a)``.

    ``ACE(a, 1) = a``; for ``i >= 2`` with ``b = ACE(a, floor(i/2))``:
    ``floor((b*b)/s)`` if ``i`` is even, ``floor((a*b*b)/s^2)`` if odd, each entry, where
    ``*`` is the convolution truncated to ``t`` entries (Definition 6.12).  Computed
    iteratively over the bits of ``i`` from the top (the same recursion unrolled).

    Preconditions: ``i, s >= 1``, ``a`` in ``[s]^t``, ``t >= 1``; Proposition 6.15 also
    assumes ``||a||_1 <= s``, under which (i) the output is in ``[s]^t`` with
    ``||.||_1 <= s``, (ii) its first ``t' < t`` entries equal ``ACE_{s,t'}(a[:t'], i)``,
    and (iii) ``||ACE/s - *^(i)(a)/s^i||_1 <= t(i-1)/s``.  All three are checked exactly
    in ``proofs/prop_6_15_*``.

    Time: ``bit_length(i) - 1`` rounds, each one truncated squaring (plus one product
    with ``a`` in odd rounds) of ``t`` numbers of ``O(log s)`` bits and ``t`` floor
    divisions: ``O(log i) * O~(t log s)`` (Proposition 6.15 iv).  Which rounds multiply
    by ``a`` follows the bits of ``i``.

    ``exponent_rounds`` (padded mode, for strict time): run exactly that many rounds,
    each computing both ``b*b`` and ``a*b*b``, starting from the unit ``e = (s, 0..0)``
    (``floor(e*e/s) = e`` and ``floor(a*e*e/s^2) = a`` exactly, so leading zero bits
    change nothing): same output, and the operation trace depends only on
    ``(t, exponent_rounds)``.  Needs ``exponent_rounds >= bit_length(i)``; here ``i = 0``
    is allowed and gives ``e``, the scaled point mass at 0 (``Bin(0, p) = 0``).
    """
    s = _int(s, "s", 1)
    i = _int(i, "i", 1 if exponent_rounds is None else 0)
    vec = _check_vector(a, s)
    t = len(vec)
    s_squared = s * s
    events = active()  # record(...) per round, the trace read once
    if exponent_rounds is None:
        b = vec
        bits = [(i >> k) & 1 for k in range(i.bit_length() - 2, -1, -1)]
        for bit in bits:
            if events is not None:
                events.append(("ace_round", t, bit))
            square = truncated_square(b, t)
            if bit:
                b = floor_divide(truncated_product(vec, square, t), s_squared)
            else:
                b = floor_divide(square, s)
        return b
    rounds = _int(exponent_rounds, "exponent_rounds", i.bit_length())
    b = [s] + [0] * (t - 1)
    for k in range(rounds - 1, -1, -1):
        if events is not None:
            events.append(("ace_round", t))
        square = truncated_square(b, t)
        with_a = truncated_product(vec, square, t)
        b = floor_divide(with_a, s_squared) if (i >> k) & 1 else floor_divide(square, s)
    return b


_ABS_TEST = ("abs_test",)


def doubling_widths(t: int) -> list[int]:
    """The widths ``t' = 1, 2, 4, ...`` with ``t' < 2t`` of Algorithm 6.18 step 4."""
    widths = []
    width = 1
    while width < 2 * t:
        widths.append(width)
        width *= 2
    return widths


class ApproxBinDraw:
    """The one uniform draw ``u`` of ``ApproxBinSample_{s,t}(m, p, q)`` (Algorithm 6.18).

    Outputs ``[t] = {0..t}``, ``d = s``.  ``search(u)`` is steps 3-5 verbatim: for
    ``t' = 1, 2, 4, ...`` (``t' < 2t``) compute ``d^(t') = ACE_{s,t'}(a, m)`` with
    ``a = (s - p', p', 0, ..)``, ``p' = floor(sp/q)``, its prefix sums ``F^(t')``, and
    return ``min{l, t}`` for the first ``l`` in ``[floor(t'/2), t'-1]`` with
    ``F^(t')_l >= u``; ``t`` if none.  Widths are computed lazily and cached, so a
    sampling run stops at the width where it finds ``l`` (the paper's running time).

    ``cdf(z)`` must be the exact CDF of ``search(U)`` for ``U ~ Unif([s]_+)``, computed
    from the same numbers.  Write ``G(l) = F^(t'(l))_l`` for the value ``search`` tests
    at ``l`` (``t'(l)`` the width at which ``l`` is tested).  ``search(u) <= z < t`` iff
    some ``l <= z`` has ``G(l) >= u``, so ``cdf(z) = max_{l <= z} G(l)`` for ``z < t``
    and ``s`` for ``z >= t``.  By Proposition 6.15 ii the per-width vectors agree and
    ``G`` is already non-decreasing, but the draw does not rely on it: the running
    maximum makes ``cdf`` the CDF of the code as written, whatever ACE returns.

    ``padded``: ``search`` computes every width up to the last one for ``pad_t`` (default
    ``t``) and tests every ``l`` whatever it finds, and ACE runs ``exponent_rounds``
    rounds -- the output is the same function of ``u`` (the first hit is kept, and the
    first hit below ``t`` is the same at every width by construction of ``G``), and the
    operation trace no longer depends on ``u`` or on the output.

    ``shortcuts`` (unpadded only; default on): before computing anything, ``search``
    asks :meth:`certified_output` whether exact bounds on the tested values already
    decide the output for this ``u``; that answer is provably the one the loop would
    return, so the output is the same function of ``u``, only computed without
    ApproxConvExp (``O(t)`` operations on 256-bit dyadics instead of ``log m`` squarings
    of vectors of ``O(log s)``-bit numbers); the loop runs only for the ``u`` the bounds
    leave undecided.  This matters at the sizes of PureSparseHistogram, where ``s`` has
    about ``n log2(3|X|)`` bits: the loop for ``n = 1000`` over ``2^64`` takes minutes.
    """

    def __init__(self, m: int, p: int, q: int, s: int, t: int, *, padded: bool = False,
                 pad_t: int | None = None, exponent_rounds: int | None = None,
                 shortcuts: bool = True) -> None:
        self.m, self.p, self.q, self.s, self.t = m, p, q, s, t
        self.padded = padded
        self.shortcuts = shortcuts and not padded
        self.widths = doubling_widths(t if pad_t is None else pad_t)
        self.exponent_rounds = exponent_rounds
        self._prefix: dict[int, list[int]] = {}
        self._running_max: list[int] = []
        self._bounds: BinomialCDFBounds | None = None

    @property
    def n(self) -> int:
        return self.t

    @property
    def d(self) -> int:
        return self.s

    @property
    def explore_key(self) -> tuple[object, ...]:
        """Every parameter of the draw (:meth:`cdf` depends on ``m, p, q, s, t`` and
        ``exponent_rounds``): equal keys, equal CDFs -- the exploring source computes the
        options of equal draws once per exploration (:mod:`exactdp.explore`)."""
        return (self.m, self.p, self.q, self.s, self.t, self.padded, tuple(self.widths),
                self.exponent_rounds, self.shortcuts)

    @cached_property
    def p_prime(self) -> int:
        """``p' = floor(sp/q)`` (step 3), by GMP: Python's ``//`` is quadratic."""
        return int(gmpy2.mpz(self.s) * self.p // self.q)

    def prefix_sums(self, width: int) -> list[int]:
        """``F^(t')`` for ``t' = width``: prefix sums of ``ACE_{s,t'}(a, m)`` (steps 4a-c)."""
        if width not in self._prefix:
            record("abs_width", width)
            p_prime = self.p_prime
            a = ([self.s - p_prime, p_prime] + [0] * width)[:width]
            conv = approx_conv_exp(a, self.m, self.s, exponent_rounds=self.exponent_rounds)
            self._prefix[width] = list(itertools.accumulate(conv))
        return self._prefix[width]

    def tested_value(self, ell: int) -> int:
        """``G(l)``: the ``F^(t')_l`` that step 4(d) compares with ``u``."""
        width = 1 << ell.bit_length()  # l in [t'/2, t'-1]  <=>  t' = 2^bitlen(l)
        return self.prefix_sums(width)[ell]

    def cdf(self, z: int) -> int:
        if z < 0:
            return 0
        if z >= self.t:
            return self.s
        while len(self._running_max) <= z:
            ell = len(self._running_max)
            prev = self._running_max[-1] if self._running_max else 0
            self._running_max.append(max(prev, self.tested_value(ell)))
        return self._running_max[z]

    def certified_output(self, u: int) -> int | None:
        """The output of the loop for this ``u`` when exact bounds decide it, else None.

        With ``P_l = Pr[Bin(m, p'/s) <= l]`` and ``t'(l) = 2^bitlen(l)`` the width at which
        ``l`` is tested, every tested value satisfies

        (U) ``G(l) <= s P_l``: flooring only lowers and convolving non-negative vectors
            is monotone, so by induction ``ACE_{s,t'}(a, m) <= *^(m)(a) / s^(m-1)``
            entrywise, and the prefix sums of the right side are ``s P_l``;
        (L) ``G(l) >= s P_l - t'(l)(m - 1)``: Proposition 6.15 iii at width ``t'(l)``
            bounds ``sum_{k < t'} |d_k - s Pr[Bin = k]|`` by ``t'(m-1)``.

        With :class:`BinomialCDFBounds` ``lo_l <= P_l <= hi_l``, for ``l = 0, 1, ..``:
        ``s hi_l < u`` certifies a miss at ``l`` and ``u <= floor(s lo_l) - t'(l)(m-1)``
        a hit; the first certified hit after certified misses is the loop's output, and
        if every ``l < t`` is a certified miss the output is ``t``.  An undecided ``l``
        returns None (the caller runs the loop).  Before computing any ``lo_l``, a hit at
        ``l = 0`` is tried with the cheaper ``1 - m p'/s <= P_0``
        (:meth:`BinomialCDFBounds.certified_zero`): the usual case in SparseHistogram.  The undecided ``u`` lie in windows of
        width about ``s 2^-190 + t'(l) m`` around the ``s P_l``: with the ``s`` of
        SparseHistogram that essentially never happens; on the small grids of the tests
        it happens often, and both paths are compared there for every ``u``.
        """
        m, t = self.m, self.t
        if self._bounds is None:
            self._bounds = BinomialCDFBounds(m, self.p, self.q, self.s)
        if t and self._bounds.certified_zero(u):
            return 0
        s = self.s
        for ell in range(t):
            lo, hi = self._bounds.at(ell)
            if times_lt(hi, s, u):  # s hi_l < u
                continue
            if not times_lt(lo, s, u + (1 << ell.bit_length()) * (m - 1)):
                return ell  # u + t'(l)(m - 1) <= s lo_l, so u <= floor(s lo_l) - t'(l)(m - 1)
            return None
        return t

    @property
    def lazy_low_bits(self) -> bool:
        """With the shortcuts on, :meth:`RandomSource.inverse_cdf
        <exactdp.randomness.RandomSource.inverse_cdf>` draws ``u``'s leading bits first
        (:func:`~exactdp.randomness.split_inverse_cdf`) and its low bits only when
        :meth:`certified_search` leaves ``u``'s block undecided; padded mode draws ``u`` whole."""
        return self.shortcuts

    def certified_search(self, u: int) -> int | None:
        """:meth:`search` ``(u)`` when the certified bounds decide it, else None."""
        return self.certified_output(u) if self.shortcuts else None

    def search(self, u: int) -> int:
        if self.shortcuts:
            decided = self.certified_output(u)
            if decided is not None:
                record("abs_certified")
                return decided
        found: int | None = None
        events = active()  # record("abs_test") per test, the trace read once
        for width in self.widths:
            sums = self.prefix_sums(width)
            low = width // 2
            # the tests l = low..width-1 in order, each one event ("abs_test",); the first
            # l with sums[l] >= u found by C-level iteration (nothing else is recorded
            # between the tests, so the events are appended in one batch)
            if found is None:
                hit = next(itertools.compress(range(low, width), map(
                    _le, itertools.repeat(u), sums[low:width])), None)
                if hit is not None:
                    found = min(hit, self.t)
                    if not self.padded:
                        if events is not None:
                            events.extend(itertools.repeat(_ABS_TEST, hit - low + 1))
                        return found
            if events is not None:
                events.extend(itertools.repeat(_ABS_TEST, width - low))
        return self.t if found is None else found


def approx_bin_sample(m: int, p: int, q: int, s: int, t: int,
                      source: RandomSource | None = None, *, padded: bool = False,
                      pad_t: int | None = None, exponent_rounds: int | None = None) -> int:
    """``ApproxBinSample_{s,t}(m, p, q)``, Algorithm 6.18.

    Preconditions: ``q, s >= 1``, ``s >= m``, ``t >= 0``, ``p`` in ``[q]``, and
    ``m >= 1`` as in the paper -- extended to ``m = 0`` (``Bin(0, p) = 0``: output 0),
    which ApproxOrdSample reaches when ``m = n + 1`` and all values are placed.
    Output: a value in ``[t]`` whose distribution is within statistical distance
    ``(m(t+1) - t)/s`` of ``min{Bin(m, p/q), t}`` (Proposition 6.17; checked exactly in
    ``proofs/balcer_vadhan/prop_6_17_approxbinsample.py``).  Exactly: ``Pr[l] = d^(t)_l / s`` for
    ``l < t`` with ``d^(t) = ACE_{s,t}((s-p', p', 0..), m)``, ``p' = floor(sp/q)``.

    Randomness: ``t = 0`` or ``m = 0`` returns 0 and draws nothing (step 1, unless
    ``padded`` with ``pad_t > 0``); otherwise one ``u`` uniform on ``[s]_+`` through
    ``source.inverse_cdf(ApproxBinDraw(...))`` -- see :class:`ApproxBinDraw` for why
    its ``cdf`` is exactly the distribution of its ``search``.  Unpadded with ``s`` of
    more than 1024 bits, the default ``inverse_cdf`` draws ``u``'s leading 512 bits first
    and its low bits only when the certified bounds leave that block of ``u`` undecided
    (:func:`~exactdp.randomness.split_inverse_cdf`; checked for every pair of parts in
    ``proofs/balcer_vadhan/prop_6_17_split_draw.py``): in PureSparseHistogram ``s`` has about
    ``n log2(3|X|)`` bits, and drawing all of them for each of the ``n`` calls made the
    random bits alone cost ``Theta(n^2 log|X|)``.

    Time -- **depends on u and on the output**.  First (unpadded) the certified bounds of
    :meth:`ApproxBinDraw.certified_output` try to decide ``u`` (with the split draw: ``u``'s
    block, whose low bits are drawn only when the block is undecided -- the same kind of
    event, of probability about ``(l + 1)(2^-190 + 2tm/s)``, that runs the loop): ``O(log m + l)``
    operations on 256-bit dyadics and ``O(l)`` products with ``s``, ``l`` the output.
    Only an undecided ``u`` (probability about ``(l + 1)(2^-190 + 2t m/s)``) runs the
    paper's loop, whose time depends on the output (the paper's design): a run that
    returns ``l < t`` stops at the width ``t' = 2^bitlen(l)``, after ``bitlen(l) + 1``
    widths, each one ApproxConvExp with ``bitlen(m) - 1`` rounds on ``t'`` numbers of
    ``O(log s)`` bits: ``O~(log q) + O(log m) O~(l log s)``; a run returning ``t``
    computes every width ``t' < 2t``.  The ACE rounds that multiply by ``a`` follow the
    bits of ``m``.  ``padded=True`` removes the dependence on the output: every width for ``pad_t``
    (default ``t``; must be ``>= t``) is computed and every ``l`` tested, and
    ``exponent_rounds`` (default ``bitlen(m)``) ACE rounds each doing both products; the
    trace is then a function of ``(pad_t, exponent_rounds)`` only and the output is the
    same function of ``u`` as unpadded.  Cost: that of the worst-case output.
    """
    m = _int(m, "m", 0)
    q = _int(q, "q", 1)
    s = _int(s, "s", 1)
    t = _int(t, "t", 0)
    p = _int(p, "p", 0)
    if p > q:
        raise DomainError(f"p = {p} must lie in [q] = [0, {q}]")
    if s < m:
        raise ParameterError(f"s = {s} must be >= m = {m} (Proposition 6.17)")
    if padded:
        pad = t if pad_t is None else _int(pad_t, "pad_t", t)
        rounds = m.bit_length() if exponent_rounds is None else exponent_rounds
        if pad == 0:
            return 0
        draw = ApproxBinDraw(m, p, q, s, t, padded=True, pad_t=pad, exponent_rounds=rounds)
    else:
        if t == 0 or m == 0:
            return 0
        draw = ApproxBinDraw(m, p, q, s, t)
    return default_source(source).inverse_cdf(draw)


def approx_ord_sample(cdf: Callable[[int], int], n: int, d: int, m: int, s: int,
                      source: RandomSource | None = None, padded: bool = False, *,
                      max_m: int | None = None) -> tuple[int, ...]:
    """``ApproxOrdSample_F(m, s)``, Algorithm 6.20.

    Preconditions (Proposition 6.19): ``F = cdf`` maps ``[n]`` into ``[d]_+``,
    non-decreasing, ``F(n) = d``; ``m >= n + 1``; ``s >= m``.
    Output: a non-increasing tuple of ``n + 1`` values in ``[n]`` within statistical
    distance ``m(n^2 + 2n)/s`` of :func:`ord_sample` (Proposition 6.19, checked exactly in
    ``proofs/balcer_vadhan/prop_6_19_approxordsample.py``).  For ``v = n..1``:
    ``l'_v = ApproxBinSample_{s, n+1-L'}(m - L', F(v) - F(v-1), F(v))``.

    Time: ``n + 1`` evaluations of ``F``, and ``n`` ApproxBinSample calls whose cost
    depends on their outputs ``l'_v`` (``sum l'_v <= n + 1``):
    ``O(n) O~(log d) + O(log m) O~(n log s)`` in all.  Calls after the ``n + 1`` values
    are placed have ``t = 0`` and cost nothing.  So the unpadded running time reveals
    the ``l'_v`` -- i.e. the released noisy counts of the empty bins, and nothing else.

    ``padded=True``: every call runs as ApproxBinSample with ``pad_t = n + 1`` and
    ``exponent_rounds = bitlen(max_m)`` (``max_m`` defaults to ``m``; pass an upper bound
    such as ``|X|`` to hide ``m`` too): same output distribution, operation trace a
    function of ``(n, bitlen(max_m))`` only, but each of the ``n`` calls costs the
    worst case, ``O(log m) O~(n log s)`` -- ``n`` times the unpadded bound.
    """
    values = cdf_values(cdf, n, d)
    m = _check_m(m, n)
    s = _int(s, "s", 1)
    if s < m:
        raise ParameterError(f"s = {s} must be >= m = {m} (Proposition 6.19)")
    rounds = None
    if padded:
        bound = m if max_m is None else _int(max_m, "max_m", m)
        rounds = bound.bit_length()
    src = default_source(source)
    ell = [0] * (n + 1)
    assigned = 0
    for v in range(n, 0, -1):
        ell[v] = approx_bin_sample(m - assigned, values[v] - values[v - 1], values[v], s,
                                   n + 1 - assigned, src, padded=padded,
                                   pad_t=n + 1 if padded else None, exponent_rounds=rounds)
        assigned += ell[v]
    ell[0] = n + 1 - assigned
    return order_statistics_from_counts(ell)
