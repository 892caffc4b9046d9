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
    from exactdp import counting
    from exactdp.counting import FastSample

    monkeypatch.setattr(counting, "MAX_INTEGER_BITS", 1 << 12)
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
