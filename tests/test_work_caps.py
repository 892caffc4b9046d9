"""Work without bounds is cut before it starts, and data is never misread.

Each case here used to hang or release something wrong: an NPY header holding a huge
integer, a budget of 1e10000 or 1e-10000, a convolution whose exact privacy check runs for
minutes, a CSV whose first row of NaN was taken for a header.
"""

from __future__ import annotations

import struct
import time
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.certified import compare_exp
from exactdp.cli.proj_input import read_vectors
from exactdp.files import InputFileError
from tests._cli import one_line_error, run

SIGNS = ["--k", "2", "--epsilon", "1", "--beta", "1", "--bound", "4", "--seed", "1",
         "--plan-seed", "1"]


def _npy(tmp_path: Path, header: str) -> str:
    body = header.encode("latin-1")
    f = tmp_path / "x.npy"
    f.write_bytes(b"\x93NUMPY\x02\x00" + struct.pack("<I", len(body)) + body)
    return str(f)


@pytest.mark.parametrize("digits", [31, 3_000_000])
def test_an_npy_header_with_a_huge_number_is_refused_at_once(tmp_path: Path,
                                                              digits: int) -> None:
    f = _npy(tmp_path, "{'descr': '<i8', 'fortran_order': False, 'shape': ("
             + "9" * digits + ",), }")
    start = time.process_time()
    with pytest.raises(InputFileError, match="NPY header"):
        read_vectors(f, 1 << 30)
    assert time.process_time() - start < 2


def test_compare_exp_of_a_huge_exponent_is_immediate() -> None:
    huge = Fraction(10) ** 10000
    start = time.process_time()
    assert compare_exp(huge, Fraction(3)) == 1
    assert compare_exp(-huge, Fraction(1, 3)) == -1
    assert compare_exp(Fraction(1), Fraction(2 ** 4000)) == -1
    assert time.process_time() - start < 1
    # near the shortcut's edge the answer is still the exact one: e^5 = 148.41...
    assert compare_exp(Fraction(5), Fraction(148)) == 1
    assert compare_exp(Fraction(5), Fraction(149)) == -1
    assert compare_exp(Fraction(-5), Fraction(1, 148)) == -1
    assert compare_exp(Fraction(-5), Fraction(1, 149)) == 1


@pytest.mark.parametrize("eps", ["1e10000", "1e-10000", "1001"])
@pytest.mark.parametrize("argv", [
    ["project", "signs", "{csv}", "--k", "2", "--beta", "1", "--bound", "4"],
    ["convolve", "--group", "xor", "--filter", "1,1,0,0", "--domain", "histograms:n=4",
     "--delta", "1/1000", "{x}"],
    ["check", "sign-oporp", "--rho", "3/2", "--p", "4", "--k", "2", "--beta", "1",
     "--bound", "1"],
    ["check", "alp", "--alpha", "1", "--rows", "3", "--universe-size", "4",
     "--sparsity", "1"],
])
def test_budgets_beyond_the_range_are_refused_before_any_work(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str],
        eps: str) -> None:
    csv, x = tmp_path / "v.csv", tmp_path / "x.txt"
    csv.write_text("1,2,3,4\n0,1,1,1\n")
    x.write_text("0\n1\n2\n1\n")
    argv = [a.format(csv=csv, x=x) for a in argv]
    start = time.process_time()
    rc, out, err = run(capsys, *argv, "--epsilon", eps)
    assert rc == 2 and out == ""
    one_line_error(err, "--epsilon", "1000" if "-" not in eps else "10^-100")
    assert len(err) < 700 and time.process_time() - start < 5


def test_sparse_vector_refuses_a_tiny_budget_before_drawing(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    vec = tmp_path / "v.csv"
    vec.write_text("1,5\n3,2\n")
    target = tmp_path / "sketch.json"
    rc, _, err = run(capsys, "sparse-vector", "project", "--epsilon", "1e-10000", "--alpha",
                     "3", "--beta", "30", "--rows", "20", "--sparsity", "4",
                     "--universe-size", "1000", str(vec), "--output", str(target))
    assert rc == 2 and not target.exists()
    assert "drawing" not in err  # refused before the sketch was drawn
    one_line_error(err, "--epsilon", "10^-100")


def test_convolve_estimates_its_exact_check_and_refuses_past_max_seconds(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    n = 1 << 14
    x, h = tmp_path / "x.txt", tmp_path / "h.txt"
    x.write_text("0\n" * n)
    h.write_text(",".join(["1"] + ["0"] * (n - 1)))
    start = time.process_time()
    rc, out, err = run(capsys, "convolve", "--group", "xor", "--filter", f"@{h}", "--domain",
                       "histograms:n=4", "--epsilon", "1", "--delta", "1/1000",
                       "--max-seconds", "10", str(x))
    assert rc == 2 and out == ""
    one_line_error(err, "N = 16384", "--max-seconds 10", "nothing was run or drawn")
    assert time.process_time() - start < 10


def test_convolve_estimates_its_noise_and_refuses_past_max_seconds(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    n = 1 << 6
    x, h = tmp_path / "x.txt", tmp_path / "h.txt"
    x.write_text("0\n" * n)
    h.write_text(",".join(["1"] + ["0"] * (n - 1)))
    rc, out, err = run(capsys, "convolve", "--group", "xor", "--filter", f"@{h}", "--domain",
                       "histograms:n=100000", "--epsilon", "1", "--delta", "1/1000",
                       "--max-seconds", "1", str(x))
    assert rc == 2 and out == ""
    assert "drawing the noise" in err and "of 64 coefficients" in err
    assert "nothing was run or drawn" in err


@pytest.mark.parametrize("first", ["nan,nan,nan,nan", "NaN,1,2,3", "1,inf,2,3",
                                   "-Infinity,1,1,1"])
def test_a_first_row_of_nan_is_an_error_with_its_line_never_a_header(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, first: str) -> None:
    f = tmp_path / "v.csv"
    f.write_text(f"{first}\n1,2,3,4\n0,1,1,1\n")
    rc, out, err = run(capsys, "project", "signs", str(f), *SIGNS)
    assert rc == 2 and out == ""
    one_line_error(err, "line 1", "not a finite number")


def test_a_header_is_declared_or_has_no_number(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    f = tmp_path / "v.csv"
    f.write_text("a,b,c,d\n1,2,3,4\n0,1,1,1\n")
    assert read_vectors(str(f), 1 << 20) == [(1, 2, 3, 4), (0, 1, 1, 1)]
    f.write_text("id,1,2,3\n1,2,3,4\n0,1,1,1\n")  # a field reads as a number: data
    rc, _, err = run(capsys, "project", "signs", str(f), *SIGNS)
    assert rc == 2
    one_line_error(err, "line 1", "'id'", "--header")
    rc, out, _ = run(capsys, "project", "signs", str(f), *SIGNS, "--header")
    assert rc == 0 and len([ln for ln in out.splitlines() if not ln.startswith("#")]) == 2
    f.write_text("1,2,3,4\n0,1,1,1\n")
    assert read_vectors(str(f), 1 << 20, header=True) == [(0, 1, 1, 1)]


@pytest.mark.parametrize("k", ["100000000", "9" * 500, "5"])
def test_project_k_is_at_most_the_vector_length(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path, k: str) -> None:
    f = tmp_path / "v.csv"
    f.write_text("1,2,3,4\n0,1,1,1\n")
    start = time.process_time()
    rc, out, err = run(capsys, "project", "signs", str(f), "--k", k, "--epsilon", "1",
                       "--beta", "1", "--bound", "4")
    assert rc == 2 and out == ""
    one_line_error(err, "--k", "above p = 4")
    assert time.process_time() - start < 2 and len(err) < 600


@pytest.mark.parametrize("fmt", [[], ["--format", "integers"]])
def test_a_csv_given_to_histogram_gets_the_column_hint(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path, fmt: list[str]) -> None:
    f = tmp_path / "t.csv"
    f.write_text("name,age\nann,3\nbob,4\n")
    rc, out, err = run(capsys, "histogram", "--algorithm", "basic", "--universe-size", "8",
                       "--epsilon", "1", *fmt, str(f))
    assert rc == 2 and out == ""
    one_line_error(err, "line 1", "--column NAME")
