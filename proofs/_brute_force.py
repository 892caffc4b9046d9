"""Independent brute-force references for testing the checker ("the checker checked").

Nothing here imports exactdp: every quantity is computed from its definition with plain
integers and ``Fraction`` so that a bug in ``exactdp.checker``, ``exactdp.explore`` or
``exactdp.certified`` cannot hide behind a shared helper.

* :class:`Toy` -- a counting mechanism given by its full output table ``outs[c][u - 1]``
  (any function of ``(c, u)``, monotone in ``u`` or not; ``n = 0`` allowed), duck-typed for
  the checker (``n``, ``d``, ``__call__``, ``cdf``, ``sample``).
* laws, neighbour ratios by a double loop over ordered pairs, statistical distance and
  hockey-stick divergence as maxima over all events, accuracy by increasing ``a``.
* ``e**x`` by Taylor partial sums with an explicit remainder, refined until a comparison
  with a rational is decided (``e**x`` is irrational for rational ``x != 0``).
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

INF = "infinity"


# ---------------------------------------------------------------- toy mechanisms


class Toy:
    """``M(c, u) = outs[c][u - 1]`` for ``c`` in ``[n]``, ``u`` in ``[d]_+``.

    ``cdf(c, z)`` counts the ``u`` with ``M(c, u) <= z`` (the true integer CDF) unless a
    ``hint`` table is given, which then stands in for it (a lying hint).  ``extra`` maps
    ``(c, u)`` to events that :meth:`sample` records besides its one draw (a strict-time
    violation planted at chosen points).
    """

    def __init__(self, outs: Sequence[Sequence[int]], hint: Sequence[Sequence[int]] | None = None,
                 extra: Mapping[tuple[int, int], int] | None = None) -> None:
        self.outs = [list(row) for row in outs]
        self.n = len(self.outs) - 1
        self.d = len(self.outs[0])
        assert self.d >= 1 and all(len(r) == self.d for r in self.outs)
        self.hint = hint
        self.extra = dict(extra or {})
        self.calls: list[tuple[int, int]] = []

    def __repr__(self) -> str:
        return f"Toy({self.outs})"

    def __call__(self, c: int, u: int) -> int:
        assert 0 <= c <= self.n and 1 <= u <= self.d, (c, u)
        self.calls.append((c, u))
        return self.outs[c][u - 1]

    def cdf(self, c: int, z: int) -> int:
        if self.hint is not None:
            return max(0, min(self.d, self.hint[c][min(max(z, 0), self.n)])) if z >= 0 else 0
        return sum(1 for v in self.outs[c] if v <= z)

    def sample(self, c: int, source: Any) -> int:
        from exactdp.trace import record  # the trace sink only; nothing it computes

        u = source.uniform(self.d)
        for _ in range(self.extra.get((c, u), 0)):
            record("extra")
        return self.outs[c][u - 1]


def toy_from_cdfs(cdfs: Sequence[Sequence[int]]) -> Toy:
    """The monotone mechanism of integer CDF rows ``F_c(0..n)`` (``F_c(n) = d``):
    ``M(c, u) = min{z : F_c(z) >= u}`` by a linear scan."""
    d = cdfs[0][-1]
    return Toy([[min(z for z, f in enumerate(row) if f >= u) for u in range(1, d + 1)]
                for row in cdfs])


def random_cdfs(rng: random.Random, n: int, d: int) -> list[list[int]]:
    return [sorted(rng.randint(0, d) for _ in range(n)) + [d] for _ in range(n + 1)]


def corpus(seed: int = 16, count: int = 60) -> list[Toy]:
    """Monotone toys: hand-made asymmetric ones, both ends, d = 1, n = 0, then random ones."""
    toys = [
        toy_from_cdfs([[7, 8], [4, 8]]),            # forward worst 7/4, reverse worst 4
        toy_from_cdfs([[1, 1, 1], [1, 1, 1], [0, 0, 1]]),  # d = 1; c = n jumps: infinite
        toy_from_cdfs([[3, 4], [3, 4], [3, 4]][:2]),  # identical rows: ratio 1
        Toy([[0, 0, 0]]),                            # n = 0
        toy_from_cdfs([[2, 3, 4], [2, 3, 4], [1, 3, 4]]),  # only (n-1, n) differs
        toy_from_cdfs([[1, 3, 4], [2, 3, 4], [2, 3, 4]]),  # only (0, 1) differs
        toy_from_cdfs([[0, 5, 5, 6], [1, 2, 5, 6], [0, 0, 6, 6], [0, 1, 1, 6]]),  # zero masses
        toy_from_cdfs([[1, 1, 4], [2, 2, 4], [2, 2, 4]]),  # z = 1 impossible everywhere: ratio 2
    ]
    rng = random.Random(seed)
    for _ in range(count):
        n, d = rng.randint(1, 5), rng.randint(1, 24)
        toys.append(toy_from_cdfs(random_cdfs(rng, n, d)))
    return toys


def scrambled_corpus(seed: int = 61, count: int = 60) -> list[Toy]:
    """Arbitrary (mostly non-monotone) tables."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        n, d = rng.randint(1, 4), rng.randint(1, 20)
        out.append(Toy([[rng.randint(0, n) for _ in range(d)] for _ in range(n + 1)]))
    return out


# ---------------------------------------------------------------- laws and divergences


def law(values: Iterable[Any], weight: Fraction = Fraction(1)) -> dict[Any, Fraction]:
    """Each value of the (multi)set counted with probability ``weight / len``: ``count *
    weight / len`` (the counts first, in the order the values are first seen)."""
    vals = list(values)
    counts: dict[Any, int] = {}
    for v in vals:
        counts[v] = counts.get(v, 0) + 1
    each = Fraction(weight) / len(vals)
    return {v: k * each for v, k in counts.items()}


def toy_laws(toy: Toy) -> list[dict[int, Fraction]]:
    return [law(row) for row in toy.outs]


def full(p: Mapping[Any, Fraction], keys: Iterable[Any]) -> dict[Any, Fraction]:
    return {k: p.get(k, Fraction(0)) for k in keys}


def neighbour_ratios(laws: Sequence[Mapping[Any, Fraction]]
                     ) -> dict[tuple[int, int, Any], Fraction | str]:
    """``P_a(o) / P_b(o)`` for every ordered pair ``|a - b| = 1`` and every ``o`` with
    ``P_a(o) > 0`` (``INF`` where ``P_b(o) = 0``): a double loop over all pairs."""
    out: dict[tuple[int, int, Any], Fraction | str] = {}
    for a in range(len(laws)):
        for b in range(len(laws)):
            if abs(a - b) != 1:
                continue
            for o in set(laws[a]) | set(laws[b]):
                x, y = laws[a].get(o, Fraction(0)), laws[b].get(o, Fraction(0))
                if x > 0:
                    out[(a, b, o)] = INF if y == 0 else x / y
    return out


def worst_of(ratios: Mapping[Any, Fraction | str]) -> Fraction | str:
    if any(r == INF for r in ratios.values()):
        return INF
    return max(ratios.values())  # type: ignore[type-var]


def events(outcomes: Iterable[Any]) -> list[tuple[Any, ...]]:
    outs = list(outcomes)
    return [s for r in range(len(outs) + 1) for s in itertools.combinations(outs, r)]


def prob(p: Mapping[Any, Fraction], event: Iterable[Any]) -> Fraction:
    return sum((p.get(o, Fraction(0)) for o in event), Fraction(0))


def _over_common_denominator(*laws: Mapping[Any, Fraction]
                             ) -> tuple[int, list[dict[Any, int]]]:
    """``(D, [{o: D P(o)}])``: the laws' masses as integer numerators over one denominator
    ``D`` (the product of the distinct denominators), so that sums over events are sums of
    ints and ``P(A) = (sum over A) / D`` exactly."""
    den = 1
    for d in {Fraction(v).denominator for p in laws for v in p.values()}:
        den *= d
    return den, [{o: Fraction(v).numerator * (den // Fraction(v).denominator)
                  for o, v in p.items()} for p in laws]


def sd_by_events(p: Mapping[Any, Fraction], q: Mapping[Any, Fraction]) -> Fraction:
    """Definition 2.9: ``max_A |P(A) - Q(A)|`` over every event ``A`` (integer numerators
    over a common denominator; the same exact value as summing the Fractions)."""
    den, (pi, qi) = _over_common_denominator(p, q)
    best = max(abs(sum(pi.get(o, 0) for o in s) - sum(qi.get(o, 0) for o in s))
               for s in events(set(p) | set(q)))
    return Fraction(best, den)


def hs_by_events(p: Mapping[Any, Fraction], q: Mapping[Any, Fraction], r: Fraction) -> Fraction:
    """``max_S P(S) - r Q(S)`` over every event ``S`` (the empty event gives 0), as
    ``max_S (D_r P_int(S) - N_r Q_int(S)) / (D D_r)`` for ``r = N_r/D_r``."""
    r = Fraction(r)
    den, (pi, qi) = _over_common_denominator(p, q)
    rn, rd = r.numerator, r.denominator
    best = max(rd * sum(pi.get(o, 0) for o in s) - rn * sum(qi.get(o, 0) for o in s)
               for s in events(set(p) | set(q)))
    return Fraction(best, den * rd)


def accuracy_need(p: Mapping[int, Fraction], c: int, beta: Fraction) -> int:
    """The smallest ``a`` with ``Pr[|M(c) - c| <= a] >= 1 - beta`` (counting up from 0)."""
    den, (pi,) = _over_common_denominator(p)     # masses as ints over den
    target = 1 - Fraction(beta)
    a = 0
    while sum(w for z, w in pi.items() if -a <= z - c <= a) * target.denominator \
            < target.numerator * den:
        a += 1
        assert a <= 10**6
    return a


# ---------------------------------------------------------------- e**x by Taylor sums


@functools.lru_cache(maxsize=4096)
def exp_bounds(x: Fraction, terms: int) -> tuple[Fraction, Fraction]:
    """``lo <= e**x <= hi`` from ``terms + 1`` Taylor terms (``terms + 2 > |x|``).

    With ``|x| = a/b``: ``sum_{i <= N} y^i/i! = s / (b^N N!)``, ``s = sum_i a^i b^(N-i) N!/i!``
    (integers, built term by term); the remainder ``sum_{i > N} y^i/i! <= y^(N+1)/(N+1)! *
    1/(1 - y/(N+2))``."""
    y = abs(Fraction(x))
    assert terms + 2 > y
    a, b = y.numerator, y.denominator
    s, den, power = 1, 1, 1          # the sum so far is s / den, den = b^i i!
    for i in range(1, terms + 1):
        power *= a
        s, den = s * b * i + power, den * b * i
    n = terms
    total = Fraction(s, den)
    rest = Fraction(power * a * (n + 2), den * (n + 1) * (b * (n + 2) - a))
    lo, hi = total, total + rest
    return (lo, hi) if x >= 0 else (1 / hi, 1 / lo)


def exp_compare(r: Fraction, x: Fraction, start: int = 8) -> int:
    """Sign of ``r - e**x``; ``x != 0`` or ``r != 1`` (never equal for rational ``x != 0``)."""
    if x == 0:
        return (r > 1) - (r < 1)
    terms = max(start, int(abs(x)) + 2)
    while True:
        lo, hi = exp_bounds(x, terms)
        if r < lo:
            return -1
        if r > hi:
            return 1
        terms *= 2
        assert terms < 1 << 16, "could not separate"


def brute_log_ceil(x: Fraction, base: Fraction) -> int:
    """The smallest integer ``a >= 0`` with ``base**a >= x`` (``x >= 1``, ``base > 1``)."""
    x, base = Fraction(x), Fraction(base)
    a, top, bottom = 0, 1, 1         # base**a = top / bottom, not reduced
    while top * x.denominator < x.numerator * bottom:
        a += 1
        top, bottom = top * base.numerator, bottom * base.denominator
    return a


# ---------------------------------------------------------------- programs for explore


class _Replay:
    """One run of a program: replays the ``u`` of ``prefix``, then takes ``u = 1``."""

    def __init__(self, prefix: tuple[int, ...]) -> None:
        self.prefix = prefix
        self.taken: list[int] = []
        self.sizes: list[int] = []

    def __call__(self, kind: str, arg: Any) -> Any:
        size = {"uniform": lambda: arg, "bernoulli": lambda: arg[1],
                "inverse_cdf": lambda: arg[-1]}[kind]()
        i = len(self.taken)
        u = self.prefix[i] if i < len(self.prefix) else 1
        self.taken.append(u)
        self.sizes.append(size)
        if kind == "uniform":
            return u
        if kind == "bernoulli":
            return u <= arg[0]
        return min(z for z, f in enumerate(arg) if f >= u)


def enumerate_program(fn: Callable[[Callable[[str, Any], Any]], Any]) -> dict[Any, Fraction]:
    """The law of ``fn(draw)``, where ``draw(kind, arg)`` is one of
    ``("uniform", d)`` (``u`` in ``[d]_+``), ``("bernoulli", (num, den))`` (``u <= num`` for
    ``u`` in ``[den]_+``) or ``("inverse_cdf", F)`` (``min{z : F[z] >= u}`` for ``u`` in
    ``[F[-1]]_+``), by running ``fn`` on every sequence of ``u`` (depth-first replay)."""
    out: dict[Any, Fraction] = {}
    stack: list[tuple[int, ...]] = [()]
    while stack:
        run = _Replay(stack.pop())
        value = fn(run)
        weight = Fraction(1)
        for s in run.sizes:
            weight /= s
        out[value] = out.get(value, Fraction(0)) + weight
        for i in range(len(run.prefix), len(run.taken)):
            stack.extend(tuple(run.taken[:i]) + (u,) for u in range(2, run.sizes[i] + 1))
    assert sum(out.values()) == 1
    return out
