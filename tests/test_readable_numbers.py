"""Text output abbreviates long exact numbers: a delta rounded UP (never toward less privacy),
an echoed value exactly or by its truncated leading digits; JSON keeps the exact values.
References: the decimal module at high precision (independent of the code)."""

from __future__ import annotations

import json
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.spend import Spend, compact, readable_bound
from tests._cli import run

fractions = st.builds(Fraction, st.integers(1, 10**80), st.integers(1, 10**80))


def _decimal(q: Fraction) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = 400
        return Decimal(q.numerator) / Decimal(q.denominator)


@settings(max_examples=150, deadline=None)
@given(fractions)
def test_readable_bound_rounds_the_right_way_by_at_most_one_unit(q: Fraction) -> None:
    up, down = readable_bound(q), readable_bound(q, up=False)
    if not up.startswith("<="):
        assert Fraction(up) == q and down == up
        return
    hi, lo = Fraction(up[3:]), Fraction(down[3:])
    assert down.startswith(">=") and lo <= q <= hi
    exact = _decimal(q)
    unit = Decimal(10) ** (exact.adjusted() - 5)  # the sixth significant digit
    assert _decimal(hi) - exact <= unit + unit  # rounded, not a loose bound
    assert exact - _decimal(lo) <= unit
    assert len(up) <= 16


@settings(max_examples=150, deadline=None)
@given(st.one_of(fractions, st.builds(lambda m, k: Fraction(m * 10**k), st.integers(1, 99),
                                      st.integers(0, 3000)),
                 st.builds(lambda m, k: Fraction(m, 10**k), st.integers(1, 99),
                           st.integers(0, 3000))))
def test_compact_is_exact_or_the_truncated_leading_digits(q: Fraction) -> None:
    text = compact(q)
    assert len(text) <= 40
    if "..." not in text:
        assert Fraction(text) == q
        return
    mant, exp = text.split("...e")
    shown = Fraction(f"{mant}e{exp}")
    ulp = Fraction(f"1e{int(exp) - 8}")
    assert shown <= q < shown + ulp


def test_spend_text_rounds_delta_up_and_json_is_exact() -> None:
    delta = Fraction(10**40 + 7, 3 * 10**43)
    spend = Spend(Fraction(1), delta=delta, composition="c", meaning="m")
    line = spend.describe()
    assert "delta <= 3.33334e-4" in line and str(delta) not in line
    assert Fraction(spend.to_json()["delta"]) == delta
    assert "delta = 1/1000" in Spend(Fraction(1), delta=Fraction(1, 1000)).describe()


def test_account_echoes_an_enormous_ratio_briefly(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    rc, out, _ = run(capsys, "sample", "geosample", "--n", "10", "--epsilon", "1/2", "--count",
                     "3", "--seed", "1", "--json")
    assert rc == 0
    release = tmp_path / "s.json"
    release.write_text(out, encoding="utf-8")
    rc, text, _ = run(capsys, "account", str(release), "--ratio=1e10000")
    assert rc == 0 and "epsilon = ln(1e+10000)" in text and len(text) < 1000
    rc, out, _ = run(capsys, "account", str(release), "--ratio=1e10000", "--json")
    assert rc == 0 and json.loads(out)["exact"]["at"] == f"epsilon = ln({10**10000})"


def test_gaussian_release_states_its_delta_rounded_up(capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    x = tmp_path / "x.txt"
    x.write_text("1\n0\n0\n0\n", encoding="utf-8")
    args = ("convolve", "--group", "xor", "--filter", "1,1,1,1", "--domain", "histograms:n=4",
            "--epsilon", "1", "--delta", "1/1000", "--noise", "gaussian", "--seed", "1",
            "--quiet", str(x))
    rc, out, _ = run(capsys, *args, "--json")
    exact = Fraction(json.loads(out)["spent"]["delta"])
    assert rc == 0 and len(str(exact)) > 40
    rc, text, _ = run(capsys, *args)
    (line,) = [ln for ln in text.splitlines() if "spent:" in ln]
    shown = Fraction(line.split("delta <= ")[1].split(" ")[0])
    assert exact <= shown <= Fraction(1, 1000) and str(exact) not in text
