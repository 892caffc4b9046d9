"""``exactdp histogram`` through DuckDB: a column of Parquet or CSV files (issue 15 item 2).

The files are written by DuckDB itself from the same rows as a one-element-per-line file, and
the release must be the rows path's release under a seeded source; every bad value is refused
in one line naming the file and row (Parquet) or line (CSV)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from exactdp.histograms.data import Universe, encode_label
from exactdp.histograms.warehouse import count_column, reader_for
from exactdp.params import ParameterError
from tests._cli import histogram_report, one_line_error, run

duckdb = pytest.importorskip("duckdb")

# First appearances in increasing order (see test_histogram_warehouse.py); three counts
# above stability's threshold 76 at eps 1/2, delta 1/1000.
ROWS = [1, 3, 5, 9] + [3, 1, 9] * 77 + [1] * 22 + [3] * 42 + [5]
COMMON = ["--epsilon", "1/2", "--universe-size", "2^64", "--seed", "3", "--quiet"]


def _copy(select: str, path: Path, fmt: str = "parquet") -> str:
    con = duckdb.connect()
    opts = "FORMAT parquet" if fmt == "parquet" else "FORMAT csv, HEADER true"
    con.execute(f"COPY ({select}) TO '{path}' ({opts})")
    return str(path)


def _values(rows: list[object]) -> str:
    return "SELECT * FROM (VALUES " + ", ".join(f"({i}, {x})" for i, x in enumerate(rows)) + ")"


def _release(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    return histogram_report(capsys, *argv, *COMMON)


@pytest.mark.parametrize("algorithm", ["pure-sparse", "stability"])
def test_parquet_and_csv_give_the_rows_release(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str],
                                               algorithm: str) -> None:
    table = f"SELECT x AS element, i AS id FROM ({_values(ROWS)}) t(i, x) ORDER BY i"
    parquet = _copy(table, tmp_path / "rows.parquet")
    csv_file = _copy(f"SELECT id, CAST(element AS VARCHAR) AS element FROM ({table})",
                     tmp_path / "rows.csv", "csv")
    text = tmp_path / "rows.txt"
    text.write_text("".join(f"{x}\n" for x in ROWS))
    alg = ["--algorithm", algorithm] + (["--delta", "1/1000"] if algorithm == "stability"
                                        else [])
    by_rows = _release(capsys, str(text), *alg)
    assert _release(capsys, parquet, "--column", "element", *alg) == by_rows
    assert _release(capsys, csv_file, "--column", "element", *alg) == by_rows
    if algorithm == "stability":
        assert len(by_rows["histogram"]) >= 2


def test_parquet_glob_of_files_and_labels(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    names = ["alice", "bob, jr", "alice", "carol"]
    for i, name in enumerate(names):
        _copy(f"SELECT '{name}' AS who", tmp_path / f"part-{i}.parquet")
    counted = count_column(str(tmp_path / "part-*.parquet"), Universe(2**64))
    assert counted.format == "labels" and counted.column_type == "VARCHAR"
    assert counted.data.counts() == {encode_label(k, 2**64): v
                                     for k, v in sorted(Counter(names).items(),
                                                        key=lambda kv: encode_label(kv[0],
                                                                                    2**64))}
    text = tmp_path / "names.txt"
    text.write_text("".join(f"{x}\n" for x in names))
    alg = ["--algorithm", "pure-sparse"]
    assert (_release(capsys, str(tmp_path / "part-*.parquet"), *alg)
            == _release(capsys, str(text), *alg))


def test_unsigned_64_bit_elements(tmp_path: Path) -> None:
    top = 2**64 - 1
    path = _copy(f"SELECT CAST(x AS UBIGINT) AS e FROM (VALUES ({top}), (1), ({top})) t(x)",
                 tmp_path / "u.parquet")
    counted = count_column(path, Universe(2**64))
    assert counted.data.counts() == {1: 1, top: 2}
    assert counted.column_type == "UBIGINT"


def _error(capsys: pytest.CaptureFixture[str], path: str, *argv: str) -> str:
    rc, out, err = run(capsys, "histogram", path, "--algorithm", "pure-sparse", "--epsilon",
                       "1/2", "--universe-size", "100", "--quiet", *argv)
    assert rc == 2 and out == ""
    return err


def test_bad_parquet_values_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = "SELECT CASE WHEN range = 6 THEN {} ELSE range + 1 END AS e FROM range(10)"
    null = _copy(base.format("NULL"), tmp_path / "null.parquet")
    one_line_error(_error(capsys, null), "null.parquet' row 7", "the element is null")
    zero = _copy(base.format("0"), tmp_path / "zero.parquet")
    one_line_error(_error(capsys, zero), "zero.parquet' row 7", "element 0 is outside")
    big = _copy(base.format("101"), tmp_path / "big.parquet")
    one_line_error(_error(capsys, big), "big.parquet' row 7", "element 101 is outside",
                   "[1, 100]")
    text = _copy(base.format("'05'").replace("range + 1", "CAST(range + 1 AS VARCHAR)"),
                 tmp_path / "text.parquet")
    one_line_error(_error(capsys, text), "text.parquet' row 7", "'05' has a leading zero")
    double = _copy("SELECT CAST(range + 1 AS DOUBLE) AS e FROM range(3)", tmp_path / "d.parquet")
    one_line_error(_error(capsys, double), "type DOUBLE", "never rounds")
    two = _copy("SELECT range + 1 AS a, range AS b FROM range(3)", tmp_path / "two.parquet")
    one_line_error(_error(capsys, two), "has columns ['a', 'b']", "--column")
    one_line_error(_error(capsys, two, "--column", "c"), "'c' is not a column")
    one_line_error(_error(capsys, two, "--column", "a", "--format", "labels"),
                   "labels need a text")
    one_line_error(_error(capsys, str(tmp_path / "none-*.parquet")), "none-*.parquet",
                   "No files found")
    one_line_error(_error(capsys, two, "--column", "a", "--rows", "4"),
                   "has 3 rows but --rows is 4")


def test_bad_csv_values_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "v.csv"
    path.write_text('id,e\n1,4\n2,"7"\n3,1.5\n4,2\n')
    one_line_error(_error(capsys, str(path), "--column", "e"), "v.csv' line 4",
                   "'1.5' looks like a number")
    path.write_text("id,e\n1,4\n2,\n3,2\n")
    one_line_error(_error(capsys, str(path), "--column", "e"), "v.csv' line 3",
                   "the element is empty")
    path.write_text("id,e\n1,4\n2,bob\n")
    one_line_error(_error(capsys, str(path), "--column", "e"), "v.csv' line 3",
                   "is not an integer")
    path.write_text("1\n5\n5\n")  # no header: its first row must not become one
    one_line_error(_error(capsys, str(path), "--engine", "duckdb"), "pass --column NAME",
                   "--engine text")
    path.write_text("id,e\n1,4\n2,500\n")
    one_line_error(_error(capsys, str(path), "--column", "e", "--format", "integers"),
                   "v.csv' line 3", "'500' is outside the universe")


def test_reader_for() -> None:
    assert reader_for("a/B.PARQUET") == "parquet"
    assert reader_for("x/*.csv") == "csv"
    with pytest.raises(ParameterError, match=r"\*\.parquet and \*\.csv"):
        reader_for("rows.txt")


def test_counts_written_by_duckdb(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The guide's engine recipe: the engine writes ``element,count``, exactdp releases."""
    table = f"SELECT x AS element FROM ({_values(ROWS)}) t(i, x) ORDER BY i"
    parquet = _copy(table, tmp_path / "rows.parquet")
    counts = _copy(f"SELECT element, count(*) AS count FROM '{parquet}' GROUP BY ALL",
                   tmp_path / "counts.csv", "csv")
    alg = ["--algorithm", "stability", "--delta", "1/1000"]
    assert (_release(capsys, counts, "--counts", "--rows", str(len(ROWS)), *alg)
            == _release(capsys, parquet, *alg))
