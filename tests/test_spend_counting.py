"""--epsilon as a total budget on the counting commands, and the budget-first constructors.

Expected parameters are derived here independently of exactdp's choosers: with sympy's exact
comparison of ``K * log(1 + 2**-k)`` against the budget (GeoSample), and with the paper's
``eps/2`` per value (FastSample).
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.counting import MAX_INTEGER_BITS, FastSample, GeoSample
from exactdp.spend import EpsilonRangeError, Spend, ln_fits
from tests._cli import one_line_error, run


def sympy_k(total: Fraction, draws: int) -> int:
    """The smallest k >= 1 with draws * ln(1 + 2^-k) <= total, by sympy's exact comparison."""
    budget = sympy.Rational(total.numerator, total.denominator)
    k = 1
    while not bool(draws * sympy.log(1 + sympy.Rational(1, 2**k)) <= budget):
        k += 1
    return k


def sympy_value(expression: str) -> sympy.Expr:
    return sympy.sympify(expression.replace("ln(", "log("), rational=True)


def test_done_when_one_geosample_value_at_half(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "sample", "geosample", "--n", "100", "--epsilon", "1/2",
                       "--count", "3", "--json")
    assert rc == 0, err
    payload = json.loads(out)
    spent = payload["spent"]
    value = sympy_value(spent["epsilon"])
    assert bool(value <= sympy.Rational(1, 2)) and bool(value > sympy.Rational(1, 4))
    assert int(payload["k"]) == sympy_k(Fraction(1, 2), 1) == 1
    assert spent["requested_epsilon"] == "1/2" and spent["delta"] == "0"
    assert spent["epsilon_rational"] is None
    assert bool(sympy.Rational(spent["epsilon_lower"]) <= value <= sympy.Rational(
        spent["epsilon_upper"]))
    assert len(payload["values"]) == 1


@pytest.mark.parametrize(("total", "draws"), [
    (Fraction(1, 2), 1), (Fraction(1, 2), 3), (Fraction(1, 10), 1), (Fraction(3, 10), 7),
    (Fraction(1, 1000), 2), (Fraction(5, 2), 5), (Fraction(1, 4), 1), (Fraction(22, 100), 1),
])
def test_geosample_for_budget_picks_the_smallest_k_that_fits(total: Fraction,
                                                             draws: int) -> None:
    mech = GeoSample.for_budget(50, total, draws)
    assert mech.k == sympy_k(total, draws)
    assert mech.epsilon == Fraction(1, 2 ** (mech.k - 1))  # the paper's eps for that k
    spent = mech.spend(draws)
    assert spent.coefficient == draws and spent.ratio == 1 + Fraction(1, 2**mech.k)
    assert bool(sympy_value(spent.expression()) <= sympy.Rational(total.numerator,
                                                                  total.denominator))


def _bounds(expr: sympy.Expr, digits: int = 40) -> tuple[Fraction, Fraction]:
    """Rationals just below and just above the irrational ``expr`` (checked with sympy)."""
    approx = Fraction(str(sympy.N(expr, digits + 10)))
    step = Fraction(1, 10**digits)
    lo, hi = approx - step, approx + step
    assert bool(sympy.Rational(lo.numerator, lo.denominator) < expr)
    assert bool(sympy.Rational(hi.numerator, hi.denominator) > expr)
    return lo, hi


@pytest.mark.parametrize(("k", "draws"), [(1, 1), (2, 1), (3, 3), (5, 2)])
def test_geosample_threshold_boundaries(k: int, draws: int) -> None:
    # The threshold draws * ln(1 + 2^-k) is irrational: a rational budget is never exactly on
    # it. Just above it k fits; just below it k does not (k + 1 is chosen).
    lo, hi = _bounds(draws * sympy.log(1 + sympy.Rational(1, 2**k)))
    if hi <= Fraction(draws, 2):
        assert GeoSample.for_budget(10, hi, draws).k == k
    assert GeoSample.for_budget(10, lo, draws).k == k + 1
    assert ln_fits(draws, 1 + Fraction(1, 2**k), hi)
    assert not ln_fits(draws, 1 + Fraction(1, 2**k), lo)


@pytest.mark.parametrize(("m", "draws"), [(1, 1), (3, 1), (3, 3), (7, 4), (10, 20)])
def test_fastsample_budget_exactly_at_a_threshold(m: int, draws: int) -> None:
    # draws * eps/2 with eps = 1/m is rational: a budget exactly equal to it spends it all.
    total = Fraction(draws, 2 * m)
    mech = FastSample.for_budget(30, total, Fraction(1, 100), draws)
    assert mech.epsilon == Fraction(1, m)
    assert mech.spend(draws).rational == total
    below = FastSample.for_budget(30, total - Fraction(1, 10**9), Fraction(1, 100), draws)
    assert below.epsilon == Fraction(1, m + 1)
    assert below.spend(draws).rational == Fraction(draws, 2 * (m + 1)) < total


def test_top_of_the_range_is_accepted_and_above_it_refused() -> None:
    for draws in (1, 4):
        top = Fraction(draws, 2)
        geo = GeoSample.for_budget(10, top, draws)
        assert geo.k == 1 and geo.epsilon == 1
        fast = FastSample.for_budget(10, top, Fraction(1, 10), draws)
        assert fast.epsilon == 1 and fast.spend(draws).rational == top
        for cls_args in ((GeoSample, (10, top + Fraction(1, 10**30), draws)),
                         (FastSample, (10, top + Fraction(1, 10**30), Fraction(1, 10),
                                       draws))):
            cls, args = cls_args
            with pytest.raises(EpsilonRangeError, match=rf"range is \(0, {top}\]"):
                cls.for_budget(*args)  # type: ignore[attr-defined]


def test_below_the_smallest_spendable_is_refused_naming_it() -> None:
    n = 1 << 26  # d has n (k + 1) + 1 bits: k at most 2 within MAX_INTEGER_BITS = 2^28
    assert n * 3 + 1 <= MAX_INTEGER_BITS < n * 4 + 1
    assert GeoSample.largest_k(n) == 2
    assert GeoSample.for_budget(n, Fraction(1, 4)).k == 2  # ln(5/4) <= 1/4: the smallest
    with pytest.raises(EpsilonRangeError, match=r"smallest budget GeoSample can spend here, "
                                                r"ln\(5/4\)"):
        GeoSample.for_budget(n, Fraction(1, 5))


def test_fastsample_smallest_spendable_follows_the_size_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp import inverse_cdf

    monkeypatch.setattr(inverse_cdf, "MAX_INTEGER_BITS", 1 << 16)  # small enough to build d'
    gamma = Fraction(1, 1000)
    m = FastSample.largest_m(1000, gamma)
    assert m > 1
    # d' of FastSample(1000, 1/m, gamma) fits, that of 1/(m+1) does not (the size guard).
    assert FastSample(1000, Fraction(1, m), gamma).d_prime.bit_length() <= 1 << 16
    with pytest.raises(Exception, match="MAX_INTEGER_BITS"):
        FastSample(1000, Fraction(1, m + 1), gamma).d_prime  # noqa: B018
    smallest = Fraction(3, 2 * m)
    assert FastSample.for_budget(1000, smallest, gamma, 3).epsilon == Fraction(1, m)
    with pytest.raises(EpsilonRangeError, match=f"smallest budget FastSample can spend "
                                                f"here, {smallest}"):
        FastSample.for_budget(1000, smallest - Fraction(1, 10**12), gamma, 3)


def test_cli_refusals_name_the_range(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "sample", "geosample", "--n", str(1 << 26), "--epsilon", "1/5",
                       "--count", "3")
    assert rc == 2 and out == ""
    one_line_error(err, "--epsilon = 1/5", "smallest", "ln(5/4)", "range is [ln(5/4), 1/2]")
    rc, out, err = run(capsys, "sample", "fastsample", "--n", "10", "--epsilon", "3/2",
                       "--gamma", "1/10", "--count", "3", "--draws", "2")
    assert rc == 2 and out == ""
    one_line_error(err, "--epsilon = 3/2", "range is (0, 1]")
    for bad in ("0", "-1/2"):
        rc, out, err = run(capsys, "sample", "geosample", "--n", "10", f"--epsilon={bad}",
                           "--count", "3")
        assert rc == 2 and out == ""
        one_line_error(err, "must be positive")


@pytest.mark.parametrize(("mechanism", "total", "draws"), [
    ("geosample", "1/2", "3"), ("geosample", "0.3", "1"), ("geosample", "5/2", "5"),
    ("fastsample", "1/2", "3"), ("fastsample", "1/7", "2"), ("fastsample", "1", "2"),
])
def test_sample_json_spend_is_at_most_the_budget(capsys: pytest.CaptureFixture[str],
                                                 mechanism: str, total: str,
                                                 draws: str) -> None:
    extra = ["--gamma", "1/100"] if mechanism == "fastsample" else []
    rc, out, err = run(capsys, "sample", mechanism, "--n", "20", "--epsilon", total,
                       "--count", "4", "--draws", draws, "--seed", "1", "--json", *extra)
    assert rc == 0, err
    payload = json.loads(out)
    spent = payload["spent"]
    budget = sympy.Rational(Fraction(total).numerator, Fraction(total).denominator)
    value = sympy_value(spent["epsilon"])
    assert bool(value <= budget)
    assert len(payload["values"]) == int(draws)
    k = int(draws)
    if mechanism == "geosample":
        assert int(payload["k"]) == sympy_k(Fraction(total), k)
        assert spent["epsilon_rational"] is None
    else:
        m = Fraction(payload["paper_epsilon"]).denominator
        assert Fraction(k, 2 * m) <= Fraction(total) < Fraction(k, 2 * (m - 1)) if m > 1 \
            else Fraction(k, 2) <= Fraction(total)
        assert Fraction(spent["epsilon_rational"]) == Fraction(k, 2 * m)


def test_text_sample_keeps_values_on_stdout_and_the_spend_on_stderr(
        capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "sample", "geosample", "--n", "20", "--epsilon", "1/2",
                       "--count", "4", "--draws", "3", "--seed", "2")
    assert rc == 0
    assert len(out.split()) == 3 and all(v.isdigit() for v in out.split())
    assert "spent: epsilon = 3*ln(9/8) in [0.353349, 0.353350] (budget --epsilon 1/2)" in err


def test_spend_json_fields_and_decimals() -> None:
    s = Spend(Fraction(3), Fraction(9, 8), requested=Fraction(1, 2), composition="c",
              meaning="m")
    j = s.to_json()
    assert set(j) == {"epsilon", "epsilon_rational", "epsilon_lower", "epsilon_upper",
                      "delta", "requested_epsilon", "composition", "meaning"}
    exact = 3 * sympy.log(sympy.Rational(9, 8))
    assert bool(sympy.Rational(j["epsilon_lower"]) <= exact <= sympy.Rational(j["epsilon_upper"]))
    assert sympy.Rational(j["epsilon_upper"]) - sympy.Rational(j["epsilon_lower"]) <= \
        sympy.Rational(1, 10**6)
    r = Spend(Fraction(1, 3)).to_json()
    assert r["epsilon"] == r["epsilon_rational"] == "1/3"
    assert (r["epsilon_lower"], r["epsilon_upper"]) == ("0.333333", "0.333334")
    assert Spend(Fraction(2), Fraction(1)).rational == 0


def test_check_and_distribution_describe_the_one_value_mechanism(
        capsys: pytest.CaptureFixture[str]) -> None:
    # check / distribution / plot take the budget of one value: the mechanism sample uses.
    rc, out, _ = run(capsys, "check", "geosample", "--n", "3", "--epsilon", "1/2", "--json")
    assert rc == 0 and json.loads(out)["worst"] == "3/2"  # k = 1: ln(3/2) <= 1/2
    rc, out, _ = run(capsys, "check", "geosample", "--n", "3", "--epsilon", "2/5", "--json")
    assert rc == 0 and json.loads(out)["worst"] == "5/4"  # ln(3/2) > 2/5: k = 2


def test_no_geosample_fits_a_huge_n(capsys: pytest.CaptureFixture[str]) -> None:
    n = MAX_INTEGER_BITS // 2  # d has n (k + 1) + 1 > MAX_INTEGER_BITS bits already at k = 1
    assert GeoSample.largest_k(n) == 0
    rc, out, err = run(capsys, "sample", "geosample", "--n", str(n), "--epsilon", "1/2",
                       "--count", "3")
    assert rc == 2 and out == ""
    one_line_error(err, "no GeoSample fits", "smaller n")


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 10**6), st.integers(0, 10**6), st.integers(1, 20))
def test_geosample_choice_is_minimal_and_within_budget(p: int, extra: int, draws: int) -> None:
    total = Fraction(p, p + extra) * Fraction(draws, 2)  # anywhere in (0, draws/2]
    k = GeoSample.for_budget(10, total, draws).k
    budget = sympy.Rational(total.numerator, total.denominator)
    assert bool(draws * sympy.log(1 + sympy.Rational(1, 2**k)) <= budget)
    if k > 1:  # one step more accurate would overspend
        assert bool(draws * sympy.log(1 + sympy.Rational(1, 2 ** (k - 1))) > budget)


def test_the_guide_shows_the_spend_sample_prints(capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    import exactdp

    guide = Path(exactdp.__file__).parent / "docs" / "guide" / "epsilon.md"
    block = guide.read_text().split("```json")[1].split("```")[0]
    rc, out, _ = run(capsys, "sample", "geosample", "--n", "100", "--epsilon", "1/2",
                     "--count", "3", "--draws", "3", "--json")
    assert rc == 0
    assert json.loads(block)["spent"] == json.loads(out)["spent"]


def test_tiny_budgets_stay_exact_and_readable(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "sample", "geosample", "--n", "10", "--epsilon", "1e-3000",
                       "--count", "3", "--json")
    assert rc == 0, err
    payload = json.loads(out)
    spent = payload["spent"]
    k = int(payload["k"])
    assert spent["epsilon"] == f"ln(1+2^-{k})"  # 1 + 2^-k, written short
    # sympy's comparison is unreliable this close to 0; rational bounds decide it instead:
    # y - y^2/2 <= ln(1 + y) <= y for 0 < y <= 1.
    budget = Fraction(1, 10**3000)
    y = Fraction(1, 2**k)
    assert y <= budget  # so ln(1 + 2^-k) <= budget
    y1 = 2 * y
    assert y1 - y1 * y1 / 2 > budget  # so ln(1 + 2^-(k-1)) > budget: k is the smallest
    rc, out, err = run(capsys, "sample", "geosample", "--n", "10000", "--epsilon", "1e-10000",
                       "--count", "3")
    assert rc == 2 and out == "" and len(err) < 400
    one_line_error(err, "(10003 characters)", "smallest budget", "ln(1+2^-26842)")
