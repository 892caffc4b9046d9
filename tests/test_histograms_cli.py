"""``exactdp histogram``: parsing, the release report, fallbacks and bad input."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.cli import main
from exactdp.files import InputFileError
from exactdp.histograms.data import Universe, encode_label
from exactdp.histograms.release import ALGORITHMS, parse_universe_size, read_dataset
from exactdp.params import ParameterError


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, (json.loads(out) if rc == 0 and out.strip() else {}), err


@pytest.fixture
def ints(tmp_path: Path) -> Path:
    path = tmp_path / "ints.txt"
    path.write_text("3\n1\n3\n3\n2\n")
    return path


def test_parse_universe_size() -> None:
    assert parse_universe_size("2^64") == 2**64
    assert parse_universe_size("2**128") == 2**128
    assert parse_universe_size("18446744073709551616") == 2**64
    with pytest.raises(ParameterError):
        parse_universe_size("0")
    with pytest.raises(ParameterError):
        parse_universe_size("2^x")


def test_read_dataset_formats() -> None:
    u = Universe(2**64)
    data, fmt = read_dataset(["5\n", "7\r\n", "5\n"], u)
    assert fmt == "integers" and data.rows == (5, 7, 5)
    data, fmt = read_dataset("5\r\n7\r\n", u)
    assert fmt == "integers" and data.rows == (5, 7)
    labels = (encode_label("5", u.size), encode_label("bob", u.size))
    with pytest.raises(InputFileError, match="line 2 = 'bob' is not an integer"):
        read_dataset(["5\n", "bob\n"], u)  # auto needs every line to agree
    for name in ("labels", "strings"):  # 'strings' is the old name of labels
        data, fmt = read_dataset(["5\n", "bob\n"], u, name)
        assert fmt == "labels" and data.rows == labels
    with pytest.raises(InputFileError, match="line 2"):
        read_dataset(["5", "x"], u, "integers")
    with pytest.raises(ParameterError):
        read_dataset(["5"], u, "csv")


def test_choices_come_from_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["histogram", "--help"])
    out = capsys.readouterr().out
    for name in ALGORITHMS:
        assert name in out


def test_basic_release(capsys: pytest.CaptureFixture[str], ints: Path) -> None:
    rc, report, err = run(capsys, "histogram", "--algorithm", "basic", "--universe-size", "4",
                          "--epsilon", "1/2", "--seed", "5", str(ints))
    assert rc == 0
    assert [b["element"] for b in report["histogram"]] == ["1", "2", "3", "4"]
    assert all(0 <= int(b["count"]) <= 5 for b in report["histogram"])
    assert report["guarantees"]["privacy"] == "(1/2, 0)-DP"
    assert report["parameters"]["gamma"] == str(Fraction(1, 20) / 8)  # beta0/(2|X|)
    assert report["seeded"] is True and "NOT" not in report and "predictable" in err
    assert report["fallback"] is None


def test_pure_sparse_fallback_is_reported(capsys: pytest.CaptureFixture[str],
                                          ints: Path) -> None:
    rc, report, err = run(capsys, "histogram", "--algorithm", "pure-sparse", "--universe-size",
                          "10", "--epsilon", "1", "--seed", "1", str(ints))
    assert rc == 0
    assert "2n + 1 = 11" in report["fallback"] and "BasicHistogram" in report["fallback"]
    # The algorithm that released, its guarantees, and the requested one.
    assert report["released_by"] == "BasicHistogram" and report["algorithm"] == "pure-sparse"
    assert report["guarantees"]["algorithm"] == "BasicHistogram"
    assert "fallback" in report["paper"]
    assert len(report["histogram"]) == 10
    assert "note:" in err


def test_pure_sparse_over_a_huge_universe_with_strings(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path) -> None:
    path = tmp_path / "names.txt"
    path.write_text("alice\n" * 30 + "bob\n" * 2)
    rc, report, _ = run(capsys, "histogram", "--algorithm", "pure-sparse", "--universe-size",
                        "2^64", "--epsilon", "1", "--beta", "1/10", "--counting", "geosample",
                        "--seed", "2", "--quiet", str(path))
    assert rc == 0 and report["fallback"] is None
    assert report["input"]["format"] == "labels"
    elements = [int(b["element"]) for b in report["histogram"]]
    assert elements == sorted(elements) and len(elements) <= 32
    g = report["guarantees"]
    assert g["per_query"]["on_counts_larger_than"] is not None
    assert "per_query_sparse_outputs" in report["lower_bounds"]
    for b in report["histogram"]:
        assert "label" in b or "label_hex" in b


def test_stability_release(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "many.txt"
    path.write_text("".join(f"{x}\n" for x in [7] * 400 + list(range(1, 101))))
    rc, report, _ = run(capsys, "histogram", "--algorithm", "stability", "--universe-size",
                        "2^64", "--epsilon", "1", "--delta", "1/1000", "--seed", "3",
                        "--quiet", str(path))
    assert rc == 0
    b = int(report["parameters"]["threshold_b"])
    assert Fraction(report["parameters"]["certified_delta_at_most"]) <= Fraction(1, 1000)
    assert report["guarantees"]["threshold_b"] == str(b)
    assert all(int(x["count"]) > b for x in report["histogram"])
    assert [x["element"] for x in report["histogram"]] == ["7"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--algorithm", "basic", "--universe-size", "5", "--epsilon", "1.5"], "range is (0, 1]"),
    (["--algorithm", "basic", "--universe-size", "5", "--epsilon", "1/2", "--beta", "2/7"],
     "1/m"),
    (["--algorithm", "stability", "--universe-size", "5", "--epsilon", "1"], "--delta"),
    (["--algorithm", "basic", "--universe-size", "5", "--epsilon", "1", "--delta", "1/9"],
     "stability only"),
    (["--algorithm", "basic", "--universe-size", "2^64", "--epsilon", "1"], "PureSparse"),
    (["--algorithm", "basic", "--universe-size", "2", "--epsilon", "1"], "outside the universe"),
    (["--algorithm", "basic", "--universe-size", "-3", "--epsilon", "1"], "positive integer"),
])
def test_bad_input(capsys: pytest.CaptureFixture[str], ints: Path, argv: list[str],
                   message: str) -> None:
    rc, _, err = run(capsys, "histogram", *argv, str(ints))
    assert rc == 2 and message in err
    assert err.strip().splitlines()[-1].startswith("exactdp histogram: error:")


def test_empty_and_missing_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    rc, _, err = run(capsys, "histogram", "--algorithm", "basic", "--universe-size", "5",
                     "--epsilon", "1", str(empty))
    assert rc == 2 and "no rows" in err
    rc, _, err = run(capsys, "histogram", "--algorithm", "basic", "--universe-size", "5",
                     "--epsilon", "1", str(tmp_path / "missing.txt"))
    assert rc == 2 and "cannot read" in err


def test_output_file(capsys: pytest.CaptureFixture[str], ints: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    rc = main(["histogram", "--algorithm", "basic", "--universe-size", "3", "--epsilon", "1",
               "--quiet", "--output", str(target), str(ints)])
    assert rc == 0 and capsys.readouterr().out == ""
    assert json.loads(target.read_text())["n"] == "5"


def test_scientific_upper_is_an_upper_bound() -> None:
    from exactdp.histograms.release import scientific_upper

    assert scientific_upper(Fraction(1, 3)) == "3.34e-1"
    assert scientific_upper(Fraction(5)) == "5.00e0"
    assert scientific_upper(Fraction(999_999, 1000)) == "1.00e3"
    assert scientific_upper(Fraction(0)) == "0"
    for q in (Fraction(2, 7), Fraction(10**40 + 1, 3), Fraction(1, 10**30 - 7)):
        text = scientific_upper(q)
        mantissa, exp = text.split("e")
        assert Fraction(mantissa) * Fraction(10) ** int(exp) >= q
