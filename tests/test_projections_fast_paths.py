"""The integer fast paths of exactdp/projections (exact.py's closed forms, check.py's
checker) equal their reference Fraction formulas, and each comparison FAILS on a planted bug
(tests/_plant.py).

* ``keep_probability(rho, L)`` = ``rho^L/(rho^L + 1)``;
* ``smooth_factor`` = ``max_y Pr[y | x] / Pr[y | x']`` over the two bit laws;
* ``product_law`` = the Fraction product of the bit laws, in sorted order;
* ``check_dp_over_family(...).by_pair`` = ``sum_W Pr[W] delta_W(R)`` per pair;
* ``int_vector``'s tuple fast path refuses what the general path refuses.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from exactdp import neighbours as nb
from exactdp.checker import hockey_stick
from exactdp.params import ParameterError, ParameterTypeError
from exactdp.projections import check as check_mod
from exactdp.projections import exact as ex
from exactdp.projections.project import int_vector
from tests._plant import plant

BASES = [Fraction(3, 2), Fraction(2), Fraction(7, 5), Fraction(8, 7), Fraction(5, 2)]


def _keep_ref(rho: Fraction, level: int) -> Fraction:
    r = rho**level
    return r / (r + 1)


def _keep_mismatches() -> list[tuple[Fraction, int]]:
    return [(rho, level) for rho in BASES for level in range(-2, 8)
            if ex.keep_probability(rho, level) != _keep_ref(rho, level)]


def test_keep_probability_equals_the_fraction_formula() -> None:
    assert _keep_mismatches() == []
    assert ex.keep_probability(2, 3) == Fraction(8, 9)  # an int base


def test_keep_probability_planted_bug_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, ex, "keep_probability", "num + r.denominator**level",
          "num + r.denominator")
    assert _keep_mismatches()


def _factor_ref(x: int, x2: int, unit: int, rho: Fraction, level_max: int | None) -> Fraction:
    def bit(v: int) -> dict[int, Fraction]:
        return ex.sign_bit_law(v, _keep_ref(rho, ex.smooth_level(v, unit, level_max)))

    p, q = bit(x), bit(x2)
    return max(p[y] / q[y] for y in (-1, 1))


def _factor_mismatches() -> int:
    bad = 0
    for rho in BASES:
        for x, x2 in product(range(-6, 7), repeat=2):
            for unit, level_max in ((1, None), (2, 4), (3, 1)):
                bad += ex.smooth_factor(x, x2, unit, rho, level_max) != _factor_ref(
                    x, x2, unit, rho, level_max)
    return bad


def test_smooth_factor_equals_the_ratio_of_bit_laws() -> None:
    assert _factor_mismatches() == 0


@pytest.mark.parametrize("old,new", [
    ("if k * k2 >= f * f2 else", "if k * k2 <= f * f2 else"),
    ("if k * f2 >= f * k2 else", "if k * f2 <= f * k2 else"),
    ("scale_num, scale_den = k2 + f2, k + f", "scale_num, scale_den = k + f, k2 + f2"),
])
def test_smooth_factor_planted_bug_differs(monkeypatch: pytest.MonkeyPatch, old: str,
                                          new: str) -> None:
    plant(monkeypatch, ex, "smooth_factor", old, new)
    assert _factor_mismatches() > 0


def _product_ref(bits: list[dict[int, Fraction]]) -> dict[tuple[int, ...], Fraction]:
    law: dict[tuple[int, ...], Fraction] = {(): Fraction(1)}
    for bit in bits:
        law = {out + (b,): p * q for out, p in law.items() for b, q in bit.items() if q}
    return dict(sorted(law.items()))


def _product_mismatches() -> int:
    bad = 0
    for rho in BASES:
        for xs in product((-3, 0, 2), repeat=3):
            bits = [ex.sign_bit_law(v, _keep_ref(rho, abs(v))) for v in xs]
            bits.append({1: Fraction(1), -1: Fraction(0)})  # a certain bit (zero dropped)
            got, want = ex.product_law(bits), _product_ref(bits)
            bad += got != want or list(got) != list(want)
    return bad


def test_product_law_equals_the_fraction_products_in_order() -> None:
    assert _product_mismatches() == 0


def test_product_law_planted_bug_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, ex, "product_law", "(n * qn, d * qd)", "(n * qn, d * qn)")
    assert _product_mismatches() > 0


def _family_law(m: int, u: int) -> dict[int, Fraction]:
    keep = Fraction(1, 2) + Fraction(m, 8)
    return {u: keep, 1 - u: 1 - keep}


FAMILY = [(0, Fraction(1, 4)), (1, Fraction(1, 4)), (2, Fraction(1, 2))]
R = Fraction(5, 4)


def _by_pair_mismatches() -> int:
    rep = check_mod.check_dp_over_family(_family_law, FAMILY, nb.counts(1), R)
    bad = 0
    for a, b in nb.counts(1).ordered_pairs():
        want = sum((w * hockey_stick(_family_law(m, a), _family_law(m, b), R)
                    for m, w in FAMILY), Fraction(0))
        bad += rep.by_pair[(a, b)] != want
    bad += rep.averaged.delta != max(rep.by_pair.values())
    return bad


def test_family_by_pair_is_the_averaged_delta() -> None:
    assert _by_pair_mismatches() == 0


def test_family_by_pair_planted_bug_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, check_mod, "check_dp_over_family", "averaged[(a, b)] += weight * d",
          "averaged[(a, b)] += d")
    assert _by_pair_mismatches() > 0


@pytest.mark.parametrize("u,err", [((1, True, 2), ParameterTypeError),
                                   ((1, 2.0, 2), ParameterTypeError),
                                   ((1, 2), ParameterError), ([1, 2, 3], None)])
def test_int_vector_fast_path_refuses_the_same(u: object, err: type | None) -> None:
    if err is None:
        assert int_vector(u, 3) == (1, 2, 3)  # type: ignore[arg-type]
    else:
        with pytest.raises(err):
            int_vector(u, 3)  # type: ignore[arg-type]


POSITIVE_CASES: list[object] = [1, 2, 7, 0, -1, True, False, Fraction(3), Fraction(1, 2), "4",
                                2.0]


def _positive_mismatches() -> list[object]:
    """Values where matrices._positive and params.positive_int answer differently (a value
    or the type of the error)."""
    from exactdp.params import positive_int
    from exactdp.projections import matrices

    def answer(fn: object, v: object) -> object:
        try:
            return fn(v, "p")  # type: ignore[operator]
        except Exception as exc:  # noqa: BLE001 - the error type is the answer
            return type(exc)

    return [v for v in POSITIVE_CASES
            if answer(matrices._positive, v) != answer(positive_int, v)]


def test_positive_fast_path_equals_positive_int() -> None:
    assert _positive_mismatches() == []


def test_positive_fast_path_planted_bug_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.projections import matrices

    plant(monkeypatch, matrices, "_positive", "value >= 1", "value >= 0")
    assert _positive_mismatches() == [0]


def test_oporp_mechanism_keeps_its_validating_flipper() -> None:
    from exactdp.projections.matrices import OPORPPlan
    from exactdp.projections.rr import Base, SmoothFlipper
    from exactdp.projections.signs import DPSignOPORP

    mech = DPSignOPORP(OPORPPlan((1, 0), (1, -1), 1), 2, Base(3, 2), 3, True)
    assert mech.flipper == SmoothFlipper(Base(3, 2), 3)
    assert mech == DPSignOPORP(OPORPPlan((1, 0), (1, -1), 1), 2, Base(3, 2), 3, True)


def _flipper_table_mismatches() -> int:
    """SmoothFlipper's cached denominator / thresholds / validation lcm against the
    formulas ``D = lcm (a^L + b^L)``, ``N_L = D b^L / (a^L + b^L)``."""
    from math import lcm

    from exactdp.projections import rr

    bad = 0
    for a, b in ((3, 2), (2, 1), (7, 5), (5, 2)):
        for l_max in range(1, 6):
            d = lcm(*(a**lv + b**lv for lv in range(l_max + 1)))
            f = rr.SmoothFlipper(rr.Base(a, b), l_max)
            bad += f.denominator != d
            bad += f.thresholds != tuple(d * b**lv // (a**lv + b**lv) for lv in range(l_max + 1))
            bad += rr._capped_lcm(a, b, l_max, 1 << 12) != d
    return bad


def test_flipper_tables_equal_the_formulas() -> None:
    assert _flipper_table_mismatches() == 0


@pytest.mark.parametrize("name,old,new", [
    ("_threshold_table", "* b**level for level", "* a**level for level"),
    ("_capped_lcm", "d = lcm(d, a**lev + b**lev)", "d = lcm(d, a**lev)"),
    ("_denominator", "base.a**level + base.b**level", "base.a**level"),
])
def test_flipper_tables_planted_bug_differs(monkeypatch: pytest.MonkeyPatch, name: str,
                                           old: str, new: str) -> None:
    from exactdp.projections import rr

    plant(monkeypatch, rr, name, old, new)
    assert _flipper_table_mismatches() > 0


def _family_reference(law, family, prs, r):  # type: ignore[no-untyped-def]
    """check_dp_over_family's loop without interning or caches: (conditional witness,
    member, by-pair sums, worst single-member delta)."""
    points = list(dict.fromkeys(u for pair in prs for u in pair))
    worst, member, fixed = None, None, Fraction(0)
    averaged = {pair: Fraction(0) for pair in prs}
    for W, weight in family:
        laws = {u: law(W, u) for u in points}
        rep = check_mod._report("given pairs", prs, laws, None)
        if worst is None or not check_mod._at_least(worst, rep.worst):
            worst, member = rep.worst, W
        for a, b in prs:
            d = hockey_stick(laws[a], laws[b], r)
            averaged[(a, b)] += weight * d
            fixed = max(fixed, d)
    return worst, member, averaged, fixed


POOL = [{0: Fraction(1, 2), 1: Fraction(1, 3), 2: Fraction(1, 6)},
        {0: Fraction(1, 3), 1: Fraction(1, 3), 2: Fraction(1, 3)},  # numerators of POOL[0]
        {0: Fraction(1, 6), 1: Fraction(1, 3), 2: Fraction(1, 2)}]


def _family_mismatches() -> int:
    """Nine members: member m releases a fresh copy of POOL[m // 3] at u = 0 and of
    POOL[m % 3] at u = 1 (members share laws by content, never by object), with unequal
    weights; also a law that is never shared (one member each)."""
    fam = [(m, Fraction(m + 1, 45)) for m in range(9)]
    prs = list(nb.counts(1).ordered_pairs())
    r = Fraction(5, 4)

    def shared(m, u):  # type: ignore[no-untyped-def]
        return dict(POOL[m // 3] if u == 0 else POOL[m % 3])

    def distinct(m, u):  # type: ignore[no-untyped-def]
        tilt = Fraction(m + 1, 100) * (1 if u else -1)
        return {0: Fraction(1, 2) + tilt, 1: Fraction(1, 2) - tilt}

    bad = 0
    for law in (shared, distinct):
        rep = check_mod.check_dp_over_family(law, fam, prs, r)
        worst, member, averaged, fixed = _family_reference(law, fam, prs, r)
        bad += (rep.conditional != worst or rep.conditional_member != member
                or dict(rep.by_pair) != averaged or rep.conditional_delta != fixed
                or rep.averaged.delta != max(averaged.values()))
    return bad


def test_family_caches_equal_the_uncached_loop() -> None:
    assert _family_mismatches() == 0


@pytest.mark.parametrize("old,new", [
    ("pair_ids = (id(pa), id(pb))", "pair_ids = (id(pa), id(pa))"),
    ("key = tuple([(o, v.numerator, v.denominator) for o, v in found.items()])",
     "key = tuple([(o, v.numerator) for o, v in found.items()])"),
    ("ids = tuple([id(laws[u]) for u in points])",
     "ids = tuple([id(laws[u]) for u in points[:1]])"),
])
def test_family_caches_planted_bug_differs(monkeypatch: pytest.MonkeyPatch, old: str,
                                          new: str) -> None:
    plant(monkeypatch, check_mod, "check_dp_over_family", old, new)
    assert _family_mismatches() > 0
