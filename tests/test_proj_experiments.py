"""The paper-001 experiment helpers (exactdp.plot.paper001*): the exact analytic formulas
and the certified parameters behind the README's tables, checked against hand values and
brute force; the metrics on toy inputs.  No timing is asserted."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from exactdp.certified import compare_exp
from exactdp.plot import paper001
from exactdp.plot import paper001_data as pd
from exactdp.plot import paper001_exact as pe

np = pytest.importorskip("numpy")


def test_variance_ratio_by_hand() -> None:
    # p = 4, k = 2, sigma = 1: (2 + 4) / (2 + 2 + 1/2) = 4/3; OPORP's last term (1/2)(2/3).
    assert paper001.variance_ratio(4, 2, Fraction(1)) == Fraction(4, 3)
    assert paper001.variance_ratio(4, 2, Fraction(1), oporp=True) == Fraction(18, 13)
    # sigma = 1/2: s^2 = 1/4: (1/2 + 4/16) / (1/2 + 2/16 + 1/2) = (3/4) / (9/8) = 2/3
    assert paper001.variance_ratio(4, 2, Fraction(1, 2)) == Fraction(2, 3)


@pytest.mark.parametrize("k, s, p", [(3, 2, 1), (4, 3, 2), (5, 2, 3), (6, 3, 1)])
def test_sparse_support_bound_is_the_least_union_bound(k: int, s: int, p: int) -> None:
    # Brute force over every support pattern of one row: Pr[Bin(k, 1/s) > m].
    weights = [sum(bits) for bits in product((0, 1), repeat=k)]
    def tail(m: int) -> Fraction:
        return sum((Fraction(1, s) ** w * Fraction(s - 1, s) ** (k - w)
                    for w in weights if w > m), Fraction(0))
    for delta in (Fraction(1, 10), Fraction(1, 3), Fraction(1, 100)):
        m = paper001.sparse_support_bound(k, s, p, delta)
        assert p * tail(m) <= delta
        assert m == 0 or p * tail(m - 1) > delta


def test_rademacher_and_oporp_sensitivity_rows_are_one() -> None:
    for row in paper001.sensitivity_rows():
        assert row["Rademacher"] == "1" and row["OPORP"] == "1"
        for s in paper001.SPARSITY:
            assert Fraction(row[f"sparse s={s}: Delta_2^2"]) >= 1  # mean support k/s, times s/k


def test_certified_bases_and_noise_ratios() -> None:
    for eps, k in [(Fraction(1, 10), 32), (Fraction(1), 1), (Fraction(20), 2), (Fraction(5), 16)]:
        rho = pe.base(eps, k)
        assert (1 << pe.BASE_BITS) % rho.b == 0
        a = Fraction(rho.a, rho.b) * (1 << pe.BASE_BITS)
        assert compare_exp(eps, Fraction(rho.a, rho.b) ** k) > 0       # rho^k < e^eps
        assert compare_exp(eps, ((a + 1) / (1 << pe.BASE_BITS)) ** k) < 0  # the next one up fails
    for eps in (Fraction(1, 10), Fraction(2), Fraction(20)):
        r = pe.noise_ratio(eps, 16)
        assert compare_exp(-eps, r**16) < 0                             # r^16 > e^-eps
        assert compare_exp(-eps, (r - Fraction(1, r.denominator)) ** 16) > 0  # one step less fails


def test_precision_at_r_on_a_toy() -> None:
    sim = np.array([[3.0, 2.0, 1.0, 0.0], [0.0, 1.0, 2.0, 3.0]])
    truth = np.array([[0, 1], [0, 1]])
    out = pd.precision_at(sim, truth, (1, 2, 4), seed=0)
    # query 0 retrieves 0, 1 (both true); query 1 retrieves 3, 2 (none) then all four.
    assert out == {1: 0.5, 2: 0.5, 4: 0.5}
    signs = np.array([[1, -1, 1], [1, 1, 1]])
    assert pd.similarity(signs[:1], signs, "signs").tolist() == [[3, 2]]


def test_webspam_stand_in_has_the_stated_dimension_and_density() -> None:
    """What the figure says of it: 512 columns, none empty, integer values 0..16 with a
    present feature non-zero, 1.6 % non-zeros (about 8 per document), two balanced classes."""
    x, y = pd.sparse_text()
    assert x.shape == (2000, 512) and x.dtype.kind == "i"
    assert x.min() == 0 and x.max() == 16 and (x.max(axis=0) > 0).all()
    density = float((x != 0).mean())
    assert 0.0155 < density < 0.0170, density
    assert np.bincount(y).tolist() == [1000, 1000]
