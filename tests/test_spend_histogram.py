"""``exactdp histogram --epsilon``: the total budget of the whole release; the paper's eps =
1/m is the largest 1/m within it, and the release's ``spent`` states it exactly."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from tests._cli import one_line_error, run

ALGORITHMS = [("basic", []), ("stability", ["--delta", "1/1000"]), ("pure-sparse", []),
              ("compact", [])]


@pytest.fixture
def rows(tmp_path: Path) -> Path:
    path = tmp_path / "rows.txt"
    path.write_text("".join(f"{x}\n" for x in [1, 2, 2, 3, 5, 5, 5]))
    return path


def _release(capsys: pytest.CaptureFixture[str], rows: Path, algorithm: str, extra: list[str],
             epsilon: str, size: str = "8") -> dict:
    rc, out, err = run(capsys, "histogram", str(rows), "--algorithm", algorithm,
                       "--universe-size", size, "--epsilon", epsilon, "--seed", "1",
                       "--quiet", *extra)
    assert rc == 0, err
    return json.loads(out)


def _recorded_eps(report: dict) -> Fraction:
    return Fraction(report["request"]["epsilon"] if "request" in report else report["epsilon"])


@pytest.mark.parametrize(("algorithm", "extra"), ALGORITHMS)
@pytest.mark.parametrize(("budget", "paper_eps"), [
    ("0.3", Fraction(1, 4)), ("1/4", Fraction(1, 4)), ("249999/1000000", Fraction(1, 5)),
    ("1", Fraction(1)), ("2/3", Fraction(1, 2)),
])
def test_spend_is_the_largest_one_over_m_within_the_budget(
        capsys: pytest.CaptureFixture[str], rows: Path, algorithm: str, extra: list[str],
        budget: str, paper_eps: Fraction) -> None:
    report = _release(capsys, rows, algorithm, extra, budget)
    spent = report["spent"]
    assert _recorded_eps(report) == paper_eps
    assert Fraction(spent["epsilon_rational"]) == Fraction(spent["epsilon"]) == paper_eps
    assert paper_eps <= Fraction(budget)
    assert Fraction(spent["requested_epsilon"]) == Fraction(budget)
    # the largest 1/m within the budget: 1/(m - 1) would exceed it
    if paper_eps < 1:
        assert Fraction(1, paper_eps.denominator - 1) > Fraction(budget)
    assert spent["delta"] == ("1/1000" if algorithm == "stability" else "0")


@pytest.mark.parametrize(("algorithm", "extra"), ALGORITHMS)
def test_above_the_top_is_refused(capsys: pytest.CaptureFixture[str], rows: Path,
                                  algorithm: str, extra: list[str]) -> None:
    rc, out, err = run(capsys, "histogram", str(rows), "--algorithm", algorithm,
                       "--universe-size", "8", "--epsilon", "1000000000000000000000001/"
                       "1000000000000000000000000", *extra)
    assert rc == 2 and out == ""
    one_line_error(err, "above 1", "range is (0, 1]")


def test_below_the_smallest_spendable_is_refused_naming_it(
        capsys: pytest.CaptureFixture[str], rows: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp import inverse_cdf
    from exactdp.counting import FastSample

    monkeypatch.setattr(inverse_cdf, "MAX_INTEGER_BITS", 1 << 12)
    gamma = Fraction(1, 20) / (2 * 8)  # Theorem 5.3: beta0 / (2|X|) with beta0 = 1/20
    cap = FastSample.largest_m(7, gamma)
    assert cap > 1
    report = _release(capsys, rows, "basic", [], f"1/{cap}")
    assert report["spent"]["epsilon"] == f"1/{cap}"
    rc, out, err = run(capsys, "histogram", str(rows), "--algorithm", "basic",
                       "--universe-size", "8", "--epsilon", f"1/{cap + 1}", "--quiet")
    assert rc == 2 and out == ""
    one_line_error(err, f"smallest budget this histogram can spend here, 1/{cap}",
                   f"range is [1/{cap}, 1]")
    rc, out, err = run(capsys, "histogram", str(rows), "--algorithm", "basic",
                       "--universe-size", "8", "--epsilon", f"1/{10**30}", "--quiet")
    assert rc == 2 and out == ""  # the smallest named is the mechanism's, whatever the budget
    one_line_error(err, f"smallest budget this histogram can spend here, 1/{cap}")


@pytest.mark.parametrize(("algorithm", "extra"), ALGORITHMS)
def test_query_checks_the_spent_field(capsys: pytest.CaptureFixture[str], rows: Path,
                                      tmp_path: Path, algorithm: str,
                                      extra: list[str]) -> None:
    from exactdp.histograms.release_file import seal

    report = _release(capsys, rows, algorithm, extra, "0.3")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(report))
    rc, _, err = run(capsys, "query", str(good), "5")
    assert rc == 0, err
    for field, value in [("requested_epsilon", "1/5"), ("requested_epsilon", "1/3"),
                         ("epsilon", "1/5"), ("delta", "1/2"), ("meaning", "x")]:
        edited = json.loads(json.dumps(report))
        edited["spent"][field] = value
        edited.pop("integrity")
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(seal(edited)))  # a consistent digest: only the check stops it
        rc, _, err = run(capsys, "query", str(bad), "5")
        assert rc == 2, (field, value)
        assert "spent" in err


@pytest.mark.parametrize(("total", "paper_eps"), [
    (Fraction(3, 10), Fraction(1, 4)), (Fraction(1, 4), Fraction(1, 4)),
    (Fraction(1), Fraction(1)), (Fraction(2, 7), Fraction(1, 4)),
])
def test_histogram_budget_first_constructors(total: Fraction, paper_eps: Fraction) -> None:
    from exactdp.histograms.basic import BasicHistogram, StabilityHistogram
    from exactdp.histograms.compact import CompactHistogram
    from exactdp.histograms.data import Universe
    from exactdp.histograms.sparse import PureSparseHistogram

    u, beta0, delta = Universe(64), Fraction(1, 20), Fraction(1, 1000)
    # the paper's eps, derived here: the largest 1/m not above the budget
    m = next(m for m in range(1, 100) if Fraction(1, m) <= total)
    assert Fraction(1, m) == paper_eps
    pairs = [
        (BasicHistogram.for_budget(u, 5, total, beta0),
         BasicHistogram.theorem_5_3(u, 5, paper_eps, beta0)),
        (BasicHistogram.for_budget(u, 5, total, beta0, "geosample"),
         BasicHistogram.with_geosample(u, 5, paper_eps)),
        (StabilityHistogram.for_budget(u, 5, total, delta, beta0),
         StabilityHistogram.theorem_5_6(u, 5, paper_eps, delta, beta0)),
        (StabilityHistogram.for_budget(u, 5, total, delta, beta0, "geosample"),
         StabilityHistogram.with_geosample(u, 5, paper_eps, delta)),
        (PureSparseHistogram.for_budget(u, 5, total, beta0),
         PureSparseHistogram.theorem_6_11(u, 5, paper_eps, beta0)),
        (CompactHistogram.for_budget(u, 5, total, beta0),
         CompactHistogram.theorem_8_6(u, 5, paper_eps, beta0)),
        (CompactHistogram.for_budget(u, 5, total, counting="geosample"),
         CompactHistogram.with_geosample(u, 5, paper_eps)),
    ]
    for built, expected in pairs:
        assert repr(built) == repr(expected)
        assert repr(built.mechanism) == repr(expected.mechanism)


def test_histogram_budget_first_constructors_refuse_outside_the_range() -> None:
    from exactdp.histograms.basic import BasicHistogram
    from exactdp.histograms.data import Universe
    from exactdp.spend import EpsilonRangeError

    with pytest.raises(EpsilonRangeError, match=r"range is \(0, 1\]"):
        BasicHistogram.for_budget(Universe(8), 5, Fraction(3, 2), Fraction(1, 20))
    with pytest.raises(EpsilonRangeError, match="must be positive"):
        BasicHistogram.for_budget(Universe(8), 5, 0, Fraction(1, 20))
