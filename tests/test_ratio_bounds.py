"""The screened worst ratio and hockey-stick divergence give exactly the direct results.

The reference here is the direct computation the checker used before the screen (copied
below: every ratio compared exactly over common denominators), and the definitions by
Fraction arithmetic.  Laws are drawn with exact ties written differently (2/6 and 1/3),
near-ties (ratios apart by 2^-40 .. 2^-90 relative, inside a short bound's width), huge
denominators, zeros and int masses, so that the screen's bounds, not only its exact stage,
are exercised; each piece of the screen is shown to matter by a planted bug.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from fractions import Fraction
from math import lcm
from typing import Any

import pytest
from _plant import plant
from hypothesis import example, given, settings
from hypothesis import strategies as st

from exactdp import checker, ratio_bounds
from exactdp.checker import hockey_stick, hockey_stick_eps, worst_ratio
from exactdp.params import ParameterError, ParameterTypeError
from exactdp.ratio_bounds import BITS, BoundsCache, short_bound

Law = dict[Any, Any]
Pair = tuple[Any, Law, Any, Law]


# --------------------------------------------------------------------------- references

def _direct_worst(pairs: Sequence[Pair]) -> tuple[Any, ...]:
    """The direct worst ratio: every ratio exactly, first strict maximum kept (pairs in
    order, outcomes in P_a's order), the first infinite ratio returned at once."""
    best: tuple[Any, ...] | None = None
    bn, bd = 0, 1
    for a, pa, b, pb in pairs:
        da = lcm(*(Fraction(v).denominator for v in pa.values()))
        db = lcm(*(Fraction(v).denominator for v in pb.values()))
        for o, v in pa.items():
            x = Fraction(v) * da
            if x == 0:
                continue
            y = Fraction(pb.get(o, 0)) * db
            if y == 0:
                return (None, a, b, o, v, pb.get(o, Fraction(0)))
            rn, rd = int(x) * db, da * int(y)
            if rd < 0:
                rn, rd = -rn, -rd
            if best is None or rn * bd > bn * rd:
                best, bn, bd = (a, b, o, v, pb[o]), rn, rd
    if best is None:
        return ("refused",)
    return (Fraction(bn, bd), *best)


def _direct_hockey(p: Mapping[Any, Any], q: Mapping[Any, Any], r: Fraction) -> Fraction:
    """``sum_o max(0, P(o) - r Q(o))`` by Fraction arithmetic (the definition)."""
    total = Fraction(0)
    for o in {**dict.fromkeys(p), **dict.fromkeys(q)}:
        total += max(Fraction(0), Fraction(p.get(o, 0)) - r * Fraction(q.get(o, 0)))
    return total


def _witness(pairs: Sequence[Pair]) -> tuple[Any, ...]:
    """The checker's worst ratio and witness (``("refused",)`` when nothing is examined)."""
    try:
        w = checker.worst_ratio(pairs)
    except ParameterError:
        return ("refused",)
    return (w.ratio, w.numerator_input, w.denominator_input, w.outcome, w.p, w.q)


def _differs(pairs: Sequence[Pair]) -> bool:
    """The checker's worst ratio is not the direct one (or the checker broke down)."""
    try:
        return not _same(_witness(pairs), _direct_worst(pairs))
    except AssertionError:
        return True


def _same(got: tuple[Any, ...], want: tuple[Any, ...]) -> bool:
    """Equal values of equal types (a Fraction is not an int in a witness)."""
    return got == want and [type(x) for x in got] == [type(x) for x in want]


# --------------------------------------------------------------------------- laws

def _mass(rng: random.Random, bits: int) -> Fraction:
    d = rng.getrandbits(bits) | 1 << (bits - 1) | 1
    return Fraction(rng.randint(1, d), d)


def _other_form(v: Fraction, rng: random.Random) -> Fraction:
    """The same value built through another fraction (a tie written differently)."""
    k = rng.randint(2, 9)
    return Fraction(v.numerator * k, v.denominator * k)


def tricky_pairs(seed: int, n_laws: int = 4, n_out: int = 6) -> list[Pair]:
    """Ordered pairs of neighbouring laws whose ratios cluster: one base ratio ``R``, exact
    ties of it (written differently), near-ties ``R (1 +- 2^-k)``, far ones, zeros, ints."""
    rng = random.Random(seed)
    bits = rng.choice([8, 40, 70, 200, 700])
    base = _mass(rng, rng.choice([3, 30, 90])) * rng.choice([1, 2, 5])
    laws: list[Law] = [{o: _mass(rng, bits) for o in range(n_out)}]
    for _ in range(n_laws - 1):
        q = laws[-1]
        p: Law = {}
        for o, w in q.items():
            kind = rng.randrange(7)
            if kind <= 1:
                p[o] = _other_form(Fraction(w) * base, rng) if kind else Fraction(w) * base
            elif kind == 2:
                k = rng.randint(40, 90)
                p[o] = Fraction(w) * base * (1 + rng.choice([1, -1]) * Fraction(1, 2**k))
            elif kind == 3:
                p[o] = Fraction(w) * base / rng.randint(2, 5)
            elif kind == 4:
                p[o] = Fraction(0)
            elif kind == 5:
                p[o] = Fraction(w) * base * 3
            else:
                p[o] = _mass(rng, bits)
        if rng.random() < 0.15:
            p[n_out] = rng.choice([1, Fraction(1, 7)])  # an int mass, an outcome q lacks
        if rng.random() < 0.5:  # another outcome order
            p = dict(rng.sample(list(p.items()), len(p)))
        laws.append(p)
    pairs: list[Pair] = []
    for c in range(n_laws - 1):
        pairs.append((c, laws[c], c + 1, laws[c + 1]))
        pairs.append((c + 1, laws[c + 1], c, laws[c]))
    if rng.random() < 0.7:  # most cases finite: drop the pairs with an infinite ratio
        finite = [t for t in pairs if all(Fraction(t[3].get(o, 0)) > 0
                                          for o, v in t[1].items() if Fraction(v) > 0)]
        pairs = finite or pairs
    return pairs


# --------------------------------------------------------------------------- short bounds

@given(st.integers(1, 2**300), st.integers(1, 2**300))
@example(2**64 - 1, 2**63)  # the widest bound: the largest mantissa over the smallest
@example(2**300 - 1, 2**299 + 1)
@example(2**63, 2**64 - 1)
@example(1, 1)
@example(3, 2**300)
@settings(max_examples=300, deadline=None)
def test_short_bound_contains_the_value(n: int, d: int) -> None:
    lo, hi, s = short_bound(n, d)
    two = Fraction(2) ** s
    assert lo * two <= Fraction(n, d) <= hi * two
    assert hi - lo <= 10 and lo >= 2 ** (BITS - 1)  # short: about 2^-60 relative


def test_short_bound_planted_upper_rounded_down_is_caught(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    plant(monkeypatch, ratio_bounds, "short_bound", "((mn + 1) << BITS) // md + 1",
          "(mn << BITS) // md")
    bad = [(n, d) for n, d in ((3, 1), (2**70 + 1, 3), (5, 7), (2**64 - 1, 2**63 + 5))
           if not Fraction(n, d) <= ratio_bounds.short_bound(n, d)[1] * Fraction(2) ** (
               ratio_bounds.short_bound(n, d)[2])]
    assert bad


# --------------------------------------------------------------------------- worst ratio

@pytest.mark.parametrize("seed", range(300))
def test_worst_ratio_equals_the_direct_computation(seed: int) -> None:
    pairs = tricky_pairs(seed)
    assert _same(_witness(pairs), _direct_worst(pairs)), seed


@given(st.integers(0, 2**32))
@settings(max_examples=150, deadline=None)
def test_worst_ratio_equals_the_direct_computation_hypothesis(seed: int) -> None:
    rng = random.Random(seed)
    pairs = tricky_pairs(seed, rng.randint(2, 6), rng.randint(1, 9))
    assert _same(_witness(pairs), _direct_worst(pairs))


def test_worst_ratio_first_of_exact_ties_written_differently() -> None:
    # the same ratio 2 three times, written 2/6 : 1/6, 1/3 : 1/6, 2/3 : 1/3; then a
    # near-tie below it, 2 (1 - 2^-80), which only exact products tell apart
    near = Fraction(1, 3) * 2 * (1 - Fraction(1, 2**80))
    pairs: list[Pair] = [("x", {0: near, 1: Fraction(2, 6)}, "y", {0: Fraction(1, 3), 1: Fraction(1, 6)}),
                         ("y", {0: Fraction(2, 3)}, "z", {0: Fraction(1, 3)})]
    w = worst_ratio(pairs)
    assert (w.ratio, w.numerator_input, w.outcome) == (2, "x", 1)
    assert _same(_witness(pairs), _direct_worst(pairs))


@pytest.mark.parametrize(("site", "new"), [
    # the exact stage takes the minimum (the screen alone leaves near-ties to it)
    ("rn * bd > bn * rd", "rn * bd < bn * rd"),
    # a later tie replaces the first
    ("rn * bd > bn * rd", "rn * bd >= bn * rd"),
    # kept: the outcomes whose *lower* bound reaches the best (too few)
    ("if not _above(best_lo, best_s, hi, s):", "if not _above(best_lo, best_s, lo, s):"),
    # the best lower bound taken from an upper bound (too high: drops near-ties)
    ("best_lo, best_s, have = lo, s, True", "best_lo, best_s, have = hi, s, True"),
])
def test_worst_ratio_planted_screen_bugs_are_caught(monkeypatch: pytest.MonkeyPatch,
                                                    site: str, new: str) -> None:
    plant(monkeypatch, ratio_bounds, "worst_ratio_screened", site, new)
    assert any(_differs(tricky_pairs(seed)) for seed in range(300))


def test_ratio_bound_planted_lower_bound_too_high_is_caught(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    # a ratio's lower bound read from the upper bounds: above the true ratio, so the
    # screen drops the true maximum among near-ties
    plant(monkeypatch, ratio_bounds, "_ratio_bound", "(p[0] << BITS) // q[1]",
          "(p[1] << BITS) // q[0] + 4")
    assert any(_differs(tricky_pairs(seed)) for seed in range(300))


def test_worst_ratio_negative_masses_take_the_direct_path() -> None:
    pairs: list[Pair] = [("a", {0: Fraction(2, 6), 1: Fraction(1, 4)}, "b",
                          {0: Fraction(-1, 3), 1: 1}),
                         ("c", {0: Fraction(3, 9)}, "d", {0: Fraction(1, 2)})]
    assert _same(_witness(pairs), _direct_worst(pairs))


def test_worst_ratio_refusals_unchanged() -> None:
    with pytest.raises(ParameterError):
        worst_ratio([(0, {0: Fraction(0)}, 1, {0: Fraction(1)})])
    with pytest.raises(ParameterTypeError, match="must be exact"):
        worst_ratio([(0, {0: 0.5}, 1, {0: Fraction(1)})])
    with pytest.raises(ParameterTypeError, match="must be exact"):
        worst_ratio([(0, {0: Fraction(1)}, 1, {0: True})])
    with pytest.raises(ParameterTypeError, match="mapping"):
        worst_ratio([(0, [Fraction(1)], 1, {0: Fraction(1)})])


# --------------------------------------------------------------------------- hockey stick

def _ratios_near(pairs: Sequence[Pair], rng: random.Random) -> list[Fraction]:
    """Ratios at, just above and just below some ``P(o) / Q(o)`` of the pairs."""
    out = [Fraction(1), Fraction(1, 3), Fraction(7, 2)]
    for _, p, _, q in pairs:
        for o, v in p.items():
            w = Fraction(q.get(o, 0))
            if Fraction(v) > 0 and w > 0 and rng.random() < 0.3:
                r = Fraction(v) / w
                k = rng.randint(40, 100)
                out += [r, r * (1 + Fraction(1, 2**k)), r * (1 - Fraction(1, 2**k))]
    return out


@pytest.mark.parametrize("seed", range(120))
def test_hockey_stick_equals_the_definition(seed: int) -> None:
    rng = random.Random(seed)
    pairs = tricky_pairs(seed)
    cache = BoundsCache()
    for _, p, _, q in pairs[:4]:
        for r in _ratios_near(pairs, rng)[:12]:
            want = _direct_hockey(p, q, r)
            got = hockey_stick(p, q, r)
            assert type(got) is Fraction and got == want, (seed, r)
            assert hockey_stick(p, q, r, cache) == want


def test_hockey_stick_eps_one_pass_equals_two_calls() -> None:
    for seed in range(40):
        for _, p, _, q in tricky_pairs(seed)[:3]:
            for eps in (Fraction(0), Fraction(1, 3), Fraction(1), Fraction(3)):
                box = hockey_stick_eps(p, q, eps)
                from exactdp.claims import exp_bounds
                e = exp_bounds(eps, 128)
                assert (box.lo, box.hi) == (_direct_hockey(p, q, e.hi),
                                            _direct_hockey(p, q, e.lo))


@pytest.mark.parametrize(("site", "new"), [
    # the exact fallback (ratio within a bound's width of r) decides the wrong way
    ("if xn * yd * r.denominator > r.numerator * xd * yn:",
     "if xn * yd * r.denominator < r.numerator * xd * yn:"),
    # an outcome whose ratio bound is above r's is not counted
    ("            if _above(lo, s, rhi, rexp):\n                c.append(o)\n",
     "            if _above(lo, s, rhi, rexp):\n                continue\n"),
    # the masses summed over a denominator that is not common
    ("num, den = num * (d // den) + n, d", "num, den = num + n, d"),
])
def test_hockey_stick_planted_bugs_are_caught(monkeypatch: pytest.MonkeyPatch, site: str,
                                              new: str) -> None:
    owner = "_mass_sum" if "num, den" in site else "hockey_sticks_screened"
    plant(monkeypatch, ratio_bounds, owner, site, new)
    wrong = 0
    for seed in range(60):
        rng = random.Random(seed)
        pairs = tricky_pairs(seed)
        for _, p, _, q in pairs[:2]:
            for r in _ratios_near(pairs, rng)[:8]:
                wrong += checker.hockey_stick(p, q, r) != _direct_hockey(p, q, r)
    assert wrong


def test_hockey_stick_nonpositive_ratio_and_negative_masses_direct() -> None:
    p = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    q = {0: Fraction(1, 4), 2: Fraction(3, 4)}
    for r in (Fraction(0), Fraction(-1), Fraction(-3, 2)):
        assert hockey_stick(p, q, r) == _direct_hockey(p, q, r)
    signed = {0: Fraction(-1, 2), 1: Fraction(3, 2)}
    for r in (Fraction(1), Fraction(1, 3)):
        assert hockey_stick(signed, q, r) == _direct_hockey(signed, q, r)
        assert hockey_stick(q, signed, r) == _direct_hockey(q, signed, r)


# --------------------------------------------------------------------------- the cache

def test_bounds_cache_reads_each_law_once_and_never_confuses_two() -> None:
    cache = BoundsCache()
    p = {0: Fraction(1, 3), 1: Fraction(2, 3)}
    first = cache(p)
    assert cache(p) is first and set(first.bounds) == {0, 1}
    q = dict(p)  # equal but another object: its own entry
    assert cache(q) is not first
    laws = [{0: Fraction(1, k)} for k in range(2, 200)]  # ids reused after collection
    for law in laws:
        assert cache(law).law is law


# --------------------------------------------------------------------------- the judge

def _judged(dists: dict[Any, Law], eps: Fraction, delta: Fraction) -> tuple[Any, ...]:
    from exactdp.audit.judge import _judge

    common = {"mechanism": "m", "kind": "source", "inputs": tuple(dists),
              "claimed_epsilon": eps, "claimed_delta": delta, "environment": {"at": "test"}}
    pairs = [(c, c + 1) for c in range(len(dists) - 1)]
    r = _judge(common, dists, pairs, eps, delta, None, None, "m", None, "", None, 0)
    return (r.verdict, r.worst, r.bound, r.infinite, r.hockey_stick, r.hockey_stick_pair,
            r.excess)


@pytest.mark.parametrize("seed", range(40))
def test_judge_report_equals_the_direct_paths(monkeypatch: pytest.MonkeyPatch,
                                              seed: int) -> None:
    """A white-box judgement (worst ratio, infinite losses, hockey-stick deltas decided
    pair by pair) is the same with the screen as with the direct computation forced."""
    rng = random.Random(seed)
    pairs = tricky_pairs(seed, rng.randint(2, 4), rng.randint(1, 6))
    dists = {a: pa for a, pa, _, _ in pairs} | {b: pb for _, _, b, pb in pairs}
    dists = {c: dists[c] for c in sorted(dists)}
    if len(dists) < 2 or any(c not in dists for c in range(len(dists))):
        return
    eps = rng.choice([Fraction(1, 2), Fraction(1), Fraction(3)])
    delta = rng.choice([Fraction(0), Fraction(1, 10), Fraction(1, 1000)])
    try:
        screened = _judged(dists, eps, delta)
    except ParameterError:
        screened = ("refused",)

    def unscreened(*args: Any) -> Any:
        raise ratio_bounds.NotScreened

    monkeypatch.setattr(ratio_bounds, "worst_ratio_screened", unscreened)
    monkeypatch.setattr(ratio_bounds, "hockey_sticks_screened", unscreened)
    monkeypatch.setattr(ratio_bounds.LawBounds, "__init__", _no_bounds)
    try:
        direct = _judged(dists, eps, delta)
    except ParameterError:
        direct = ("refused",)
    assert screened == direct


def _no_bounds(self: Any, law: Mapping[Any, Any]) -> None:
    """LawBounds of a law said to have a negative mass: the judge's direct loops."""
    self.law, self.nonnegative, self.bounds = law, False, {}


def test_judge_infinite_losses_with_and_without_negative_masses() -> None:
    from exactdp.audit.judge import _infinite_losses

    signed = {0: Fraction(-1, 2), 1: Fraction(3, 2), 2: Fraction(0)}
    plain = {0: Fraction(1, 2), 2: Fraction(1, 2), 3: 1}
    ordered = [(0, signed, 1, plain), (1, plain, 0, signed)]
    got = _infinite_losses(ordered, BoundsCache())
    # plain(0) > 0 > signed(0) is not an infinite ratio: only a zero on the other side is
    assert [(i.outcome, i.possible_on, i.impossible_on, i.probability) for i in got] == [
        (1, 0, 1, Fraction(3, 2)), (2, 1, 0, Fraction(1, 2)), (3, 1, 0, 1)]
    for seed in range(60):
        pairs = tricky_pairs(seed)
        want = [(o, a, b, x) for a, pa, b, pb in pairs for o, x in pa.items()
                if x > 0 and pb.get(o, 0) == 0]
        got = _infinite_losses(pairs, BoundsCache())
        assert [(i.outcome, i.possible_on, i.impossible_on, i.probability) for i in got] == want
