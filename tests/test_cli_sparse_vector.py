"""``exactdp sparse-vector project | query``: the input format, round trips, bad input, the
output path checked before any draw, reproducibility under --seed, exit statuses."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.cli import main
from exactdp.cli.sparse_vector import decimal_rounded, read_pairs
from exactdp.files import InputFileError
from exactdp.params import DomainError, ExactDPError

BASE = ["--epsilon", "1", "--alpha", "3", "--beta", "30", "--rows", "20", "--sparsity", "4",
        "--universe-size", "1000"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return rc, out, err


def one_line_error(err: str, *words: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    for w in words:
        assert w in lines[0], (w, lines[0])


@pytest.fixture
def vector(tmp_path: Path) -> Path:
    path = tmp_path / "x.csv"
    path.write_text("# a comment\nkey,value\n3,10\n\n17, 2\n999,0\n5,25\n")
    return path


# --------------------------------------------------------------------------- the input format

def test_read_pairs_policy() -> None:
    text = "\ufeff# c\r\nkey,value\r\n  \r\n3,10\r\n17 , 2.5\r\n8,5/2\r\n9,1e1\r\n10,0\r\n"
    assert read_pairs(text.removeprefix("\ufeff"), 100, 2, 4) == {3: 20, 17: 5, 8: 5, 9: 20}
    assert read_pairs("", 5, 1, 1) == {}
    assert read_pairs("key,value\n", 5, 1, 1) == {}
    assert read_pairs("1,0\n2,0\n3,0\n", 5, 1, 1) == {}  # zeros do not count toward k


@pytest.mark.parametrize(("text", "error", "words"), [
    ("3,1\n3,2\n", InputFileError, ["line 2", "line 1", "key 3"]),
    ("0,1\n", InputFileError, ["line 1", "key '0'"]),
    ("01,1\n", InputFileError, ["line 1", "leading zeros"]),
    ("+1,1\n", InputFileError, ["line 1"]),
    ("101,1\n", DomainError, ["line 1", "outside [1, D]", "D = 100"]),
    ("1,-2\n", DomainError, ["line 1", "negative"]),
    ("1,1/3\n", DomainError, ["line 1", "grid", "G = 2", "2/3"]),
    ("1,0.25\n", DomainError, ["line 1", "grid", "1/2"]),
    ("1,nan\n", InputFileError, ["line 1", "not an exact"]),
    ("1,1.5e\n", InputFileError, ["line 1"]),
    ("1,0x10\n", InputFileError, ["line 1"]),
    ("1,２\n", InputFileError, ["line 1"]),
    ("1,1,1\n", InputFileError, ["line 1", "KEY,VALUE"]),
    ("1\n", InputFileError, ["line 1", "KEY,VALUE"]),
    ("1,1\nkey,value\n", InputFileError, ["line 2"]),  # a header only as the first line
    ("1,1\r2,2\n", InputFileError, ["line 1", "carriage return"]),
    ("1,1\n2,1\n3,1\n4,0\n5,1\n", DomainError, ["line 5", "--sparsity K = 3"]),
    ("1," + "9" * 500 + "\n", InputFileError, ["line 1", "characters"]),
    ("1,1e99999\n", InputFileError, ["line 1", "exponent"]),
])
def test_read_pairs_errors_name_the_line(text: str, error: type[Exception],
                                         words: list[str]) -> None:
    with pytest.raises(error) as exc:
        read_pairs(text, 100, 2, 3, where="input 'x'")
    assert isinstance(exc.value, ExactDPError)
    message = str(exc.value)
    assert "\n" not in message and message.startswith("input 'x'")
    for w in words:
        assert w in message, (w, message)


def test_read_pairs_large_keys_and_many_lines() -> None:
    big = 2**64
    assert read_pairs(f"{big},1\n", big, 1, 1) == {big: 1}
    with pytest.raises(DomainError):
        read_pairs(f"{big + 1},1\n", big, 1, 1)
    lines = "".join(f"{i},{i % 7}\n" for i in range(1, 20_001))
    pairs = read_pairs(lines, 10**6, 1, 20_000)
    assert len(pairs) == 20_000 - 20_000 // 7 and pairs[8] == 1


@pytest.mark.parametrize(("q", "text"), [
    (Fraction(17, 3), "5.666667"), (Fraction(-1, 3), "-0.333333"), (Fraction(0), "0.000000"),
    (Fraction(1, 2_000_000), "0.000001"), (Fraction(-1, 2_000_001), "0.000000"),
    (Fraction(12), "12.000000"), (Fraction(9_999_999_5, 10**7), "10.000000"),
])
def test_decimal_rounded_is_exact(q: Fraction, text: str) -> None:
    assert decimal_rounded(q) == text
    # |q - shown| <= 1/2 * 10^-6, checked exactly
    assert abs(q - Fraction(text)) <= Fraction(1, 2 * 10**6)
