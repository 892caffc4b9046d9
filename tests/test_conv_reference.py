"""proofs/convolution/_conv's integer forms against plain Fraction arithmetic: loss_law (the independent
privacy-loss law of the factorization lemma, kept in integers over a common denominator and
memoized) against the Fraction product of the notes' per-row table (row_loss_law), and
mat_vec / mat_mul (integer dot products over common denominators) against Fraction sums:
the same exact values, and planted bugs caught."""

from __future__ import annotations

import inspect
import random
import textwrap
from fractions import Fraction
from typing import Any

import pytest

from exactdp.proofs.convolution import _conv


def _fraction_product(ratios: list[Fraction], deltas: list[int]) -> dict[Fraction, Fraction]:
    law = {Fraction(1): Fraction(1)}
    for r, dl in zip(ratios, deltas, strict=True):
        row = _conv.row_loss_law(r, abs(dl))
        nxt: dict[Fraction, Fraction] = {}
        for a, p in law.items():
            for b, q in row.items():
                nxt[a * b] = nxt.get(a * b, Fraction(0)) + p * q
        law = nxt
    return law


def _agrees() -> bool:
    rng = random.Random(4)
    pool = [Fraction(2), Fraction(3, 2), Fraction(4), Fraction(5, 3), Fraction(9, 4),
            Fraction(7, 5), Fraction(11, 10)]
    cases: list[tuple[list[Fraction], list[int]]] = [([], []), ([Fraction(4)] * 8, [1] * 8),
                                                     ([Fraction(2), Fraction(4)], [2, 1])]
    for _ in range(150):
        m = rng.randint(1, 6)
        cases.append(([rng.choice(pool) for _ in range(m)], [rng.randint(-3, 3) for _ in range(m)]))
    for ratios, deltas in cases:
        for _ in range(2):  # the second time from the memo table
            if _conv.loss_law(ratios, deltas) != _fraction_product(ratios, deltas):
                return False
    return True


def test_loss_law_equals_the_fraction_product_of_the_table() -> None:
    _conv._loss_law.cache_clear()
    assert _agrees()
    law = _conv.loss_law([Fraction(4)] * 8, [1] * 8)
    law.clear()  # a caller's copy: the memoized law is not touched
    assert _conv.loss_law([Fraction(4)] * 8, [1] * 8)[Fraction(4) ** 8] == Fraction(4, 5) ** 8


@pytest.mark.parametrize(("old", "new"), [
    ("[(-dl, b**dl)]", "[(-dl, b**dl + (dl > 1))]"),       # the last outcome's mass
    ("(dl - 2 * i, (a - b)", "(dl - 2 * i - 1, (a - b)"),   # an interior ratio
])
def test_comparison_catches_a_planted_bug(monkeypatch: pytest.MonkeyPatch, old: str,
                                          new: str) -> None:
    source = textwrap.dedent(inspect.getsource(_conv._loss_law))
    assert source.count(old) == 1
    namespace: dict[str, Any] = {}
    exec(compile(source.replace(old, new), "<mutant>", "exec"),  # noqa: S102
         vars(_conv), namespace)
    monkeypatch.setattr(_conv, "_loss_law", namespace["_loss_law"])
    assert not _agrees()


def _products_agree() -> bool:
    rng = random.Random(6)

    def vec(n: int) -> list[Fraction | int]:
        return [rng.choice([rng.randint(-9, 9), Fraction(rng.randint(-9, 9), rng.randint(1, 7))])
                for _ in range(n)]
    for _ in range(200):
        n, k = rng.randint(1, 5), rng.randint(1, 5)
        m, v, b = [vec(n) for _ in range(k)], vec(n), [vec(k) for _ in range(n)]
        want = [sum((Fraction(a) * x for a, x in zip(row, v)), Fraction(0)) for row in m]
        cols = list(zip(*b))
        want_mm = [[sum((Fraction(a) * x for a, x in zip(row, col)), Fraction(0))
                    for col in cols] for row in m]
        if _conv.mat_vec(m, v) != want or _conv.mat_mul(m, b) != want_mm:
            return False
    return True


def test_matrix_products_equal_fraction_sums() -> None:
    assert _products_agree()


def test_matrix_product_comparison_catches_a_planted_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    real = _conv._scaled

    def wrong(v: Any) -> tuple[list[int], int]:  # a denominator dropped when it is 7
        ints, den = real(v)
        return ints, (den // 7 if den % 7 == 0 else den)
    monkeypatch.setattr(_conv, "_scaled", wrong)
    assert not _products_agree()
