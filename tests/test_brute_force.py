"""proofs/_brute_force.py's integer forms (events summed as integer numerators over a common
denominator, Taylor sums built in integers, powers compared without reducing) against the
plain Fraction definitions they replace: the same exact values, and a planted bug caught."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from typing import Any

import pytest

from exactdp.proofs import _brute_force as bf


def _prob(p: dict[Any, Fraction], event: tuple[Any, ...]) -> Fraction:
    return sum((p.get(o, Fraction(0)) for o in event), Fraction(0))


def _events(outs: set[Any]) -> list[tuple[Any, ...]]:
    lst = list(outs)
    return [s for r in range(len(lst) + 1) for s in itertools.combinations(lst, r)]


def _sd(p: dict[Any, Fraction], q: dict[Any, Fraction]) -> Fraction:
    return max(abs(_prob(p, s) - _prob(q, s)) for s in _events(set(p) | set(q)))


def _hs(p: dict[Any, Fraction], q: dict[Any, Fraction], r: Fraction) -> Fraction:
    return max(_prob(p, s) - r * _prob(q, s) for s in _events(set(p) | set(q)))


def _exp_bounds(x: Fraction, terms: int) -> tuple[Fraction, Fraction]:
    y = abs(x)
    total, term = Fraction(1), Fraction(1)
    for i in range(1, terms + 1):
        term = term * y / i
        total += term
    rest = term * y / (terms + 1) / (1 - y / (terms + 2))
    lo, hi = total, total + rest
    return (lo, hi) if x >= 0 else (1 / hi, 1 / lo)


def _log_ceil(x: Fraction, base: Fraction) -> int:
    a, power = 0, Fraction(1)
    while power < x:
        a += 1
        power *= base
    return a


def _need(p: dict[int, Fraction], c: int, beta: Fraction) -> int:
    a = 0
    while sum((w for z, w in p.items() if -a <= z - c <= a), Fraction(0)) < 1 - beta:
        a += 1
    return a


def _law(values: list[Any]) -> dict[Any, Fraction]:
    out: dict[Any, Fraction] = {}
    for v in values:
        out[v] = out.get(v, Fraction(0)) + Fraction(1) / len(values)
    return out


def _agrees() -> bool:
    rng = random.Random(3)
    laws = [bf.law(row) for toy in bf.corpus()[:30] for row in toy.outs]
    laws += [{0: Fraction(1)}, {1: Fraction(1)}, {0: Fraction(1), 1: Fraction(0)},
             {0: Fraction(7, 8), 1: Fraction(1, 8)}, {0: Fraction(1, 3), 2: Fraction(2, 3)}]
    for p, q in itertools.pairwise(laws):
        if bf.sd_by_events(p, q) != _sd(p, q):
            return False
        for r in (Fraction(1), Fraction(3, 2), Fraction(1, 2), Fraction(7, 4)):
            if bf.hs_by_events(p, q, r) != _hs(p, q, r):
                return False
        for c in range(3):
            for beta in (Fraction(1), Fraction(1, 3), Fraction(1, 100)):
                if bf.accuracy_need(p, c, beta) != _need(p, c, beta):
                    return False
    for toy in bf.corpus()[:30]:
        for row in toy.outs:
            if list(bf.law(row).items()) != list(_law(row).items()):
                return False
    for x in (Fraction(1), Fraction(-1, 3), Fraction(5, 2), Fraction(-20, 3), Fraction(1, 1000)):
        for terms in (8, 13, 40, 60):
            if bf.exp_bounds(x, terms) != _exp_bounds(x, terms):
                return False
    for _ in range(40):
        x = Fraction(rng.randint(1, 10**4), rng.randint(1, 50))
        base = 1 + Fraction(rng.randint(1, 30), rng.randint(1, 40))
        if bf.brute_log_ceil(x, base) != _log_ceil(x, base):
            return False
    return True


def test_integer_forms_equal_the_fraction_definitions() -> None:
    bf.exp_bounds.cache_clear()
    assert _agrees()


@pytest.mark.parametrize("bug", ["denominator", "taylor", "power"])
def test_comparison_catches_a_planted_bug(monkeypatch: pytest.MonkeyPatch, bug: str) -> None:
    bf.exp_bounds.cache_clear()
    if bug == "denominator":  # one law's numerators scaled by the wrong factor
        real = bf._over_common_denominator

        def wrong(*laws: Any) -> Any:
            den, ints = real(*laws)
            return den, [ints[0]] + [{o: v + (o == 0) for o, v in p.items()} for p in ints[1:]]
        monkeypatch.setattr(bf, "_over_common_denominator", wrong)
    elif bug == "taylor":  # the remainder without its geometric factor
        monkeypatch.setattr(bf, "exp_bounds", lambda x, t: _exp_bounds(x, t - 1))
    else:
        monkeypatch.setattr(bf, "brute_log_ceil", lambda x, b: _log_ceil(x, b) + (x > 100))
    assert not _agrees()
