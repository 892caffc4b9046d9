"""``exactdp histogram --counts``: pre-aggregated ``element,count`` files (issue 15 item 2).

The counts path must give the very release the rows path gives under a seeded source (the
release code reads only ``n`` and the counts), and every bad counts file must be refused in
one line naming the file and line before any noise is drawn."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.files import InputFileError
from exactdp.histograms.counts_source import (
    CountedDataset,
    counts_files,
    elements_from_text,
    read_counts_csv,
)
from exactdp.histograms.data import Dataset, Universe, encode_label
from exactdp.histograms.release import ReleaseRequest, release
from exactdp.params import DomainError, ParameterError, ParameterTypeError
from exactdp.randomness import SeededSource
from tests._cli import one_line_error, run

SEED = ["--seed", "7", "--quiet"]


def _release_json(out: str) -> dict:
    rep = json.loads(out)
    rep.pop("integrity")
    rep["input"].pop("file")
    return rep


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    rc, out, err = run(capsys, "histogram", *argv, *SEED)
    assert rc == 0, err
    return _release_json(out)


def _write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("algorithm", "extra"), [
    ("pure-sparse", ["--universe-size", "2^64"]),
    ("stability", ["--universe-size", "2^64", "--delta", "1/1000"]),
    ("basic", ["--universe-size", "12"]),
    ("pure-sparse", ["--universe-size", "12"]),  # |X| < 2n + 1: the fallback
])
def test_counts_give_the_rows_release(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      algorithm: str, extra: list[str]) -> None:
    # Rows whose elements first appear in increasing order: StabilityHistogram draws in the
    # order of first appearance, a CountedDataset in increasing order.
    # Three counts above stability's threshold b = 76 (eps 1/2, delta 1/1000), so its
    # release lists bins and depends on which draw goes to which element.
    rows = [1, 3, 5, 9] + [3, 1, 9] * 77 + [1] * 22 + [3] * 42 + [5]
    rows_file = _write(tmp_path / "rows.txt", "".join(f"{x}\n" for x in rows))
    c = Counter(rows)
    counts_file = _write(tmp_path / "counts.csv",
                         "x,count\n" + "".join(f"{x},{c[x]}\n" for x in (9, 3, 1, 5)))
    common = ["--algorithm", algorithm, "--epsilon", "1/2", *extra]
    by_rows = _cli(capsys, rows_file, *common)
    by_counts = _cli(capsys, counts_file, "--counts", "--rows", str(len(rows)), *common)
    assert by_counts == by_rows
    assert by_counts["n"] == "300"
    if algorithm == "stability":
        assert len(by_counts["histogram"]) >= 2


def test_counts_of_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows_file = _write(tmp_path / "rows.txt", "alice\nbob\nalice\nbob, jr\n")
    counts_file = _write(tmp_path / "c.csv", 'name,count\nalice,2\nbob,1\n"bob, jr",1\n')
    common = ["--algorithm", "pure-sparse", "--epsilon", "1/2", "--universe-size", "2^64"]
    assert _cli(capsys, counts_file, "--counts", *common) == _cli(capsys, rows_file, *common)


def test_directory_of_part_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parts = tmp_path / "out"
    parts.mkdir()
    _write(parts / "part-00000.csv", "x,count\n4,2\n")
    _write(parts / "part-00001.csv", "x,count\n2,5\n7,1\n")
    _write(parts / "_SUCCESS", "")
    _write(parts / ".part-00000.csv.crc", "junk")
    assert [p.name for p in counts_files(str(parts))] == ["part-00000.csv", "part-00001.csv"]
    single = _write(tmp_path / "all.csv", "x,count\n2,5\n4,2\n7,1\n")
    common = ["--algorithm", "pure-sparse", "--epsilon", "1/2", "--universe-size", "2^64"]
    assert _cli(capsys, str(parts), "--counts", *common) == _cli(capsys, single, "--counts",
                                                                   *common)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 30), min_size=1, max_size=40), st.integers(0, 2**32))
def test_counted_dataset_is_the_dataset(rows: list[int], seed: int) -> None:
    u = Universe(30)
    counted = CountedDataset(u, Counter(rows))
    plain = Dataset.of(u, rows)
    assert counted.n == len(rows) == len(counted)
    assert counted.counts() == dict(Counter(rows))
    assert list(counted.counts()) == sorted(set(rows))
    assert list(counted) == sorted(rows)
    assert counted.count(rows[0]) == rows.count(rows[0])
    req = ReleaseRequest(u, Fraction(1, 2), Fraction(1, 20))
    for alg in ("basic", "pure-sparse"):
        assert (release(alg, req, counted, SeededSource(seed))
                == release(alg, req, plain, SeededSource(seed)))


def test_counted_dataset_validation() -> None:
    u = Universe(10)
    with pytest.raises(ParameterError, match="sum to 3 but n = 4"):
        CountedDataset(u, {1: 2, 2: 1}, n=4)
    with pytest.raises(ParameterError, match="positive integer"):
        CountedDataset(u, {1: 0})
    with pytest.raises(ParameterError, match="positive integer"):
        CountedDataset(u, {1: True})
    with pytest.raises(ParameterError, match="positive integer"):
        CountedDataset(u, {1: Fraction(2)})
    numpy = pytest.importorskip("numpy")
    wide = CountedDataset(u, {numpy.int64(3): numpy.int64(2), 1: 1})
    assert wide.counts() == {1: 1, 3: 2}
    assert all(type(x) is int and type(c) is int for x, c in wide.counts().items())
    with pytest.raises(DomainError, match="outside the universe"):
        CountedDataset(u, {11: 1})
    with pytest.raises(ParameterTypeError):
        CountedDataset(u, {1.0: 1})  # type: ignore[dict-item]
    with pytest.raises(ParameterError, match="empty"):
        CountedDataset(u, {})
    assert CountedDataset(u, {2: 1, 1: 3}, n=4) == CountedDataset(u, {1: 3, 2: 1})
    assert CountedDataset(u, {2: 1}) != CountedDataset(u, {2: 2})


BAD_COUNTS = [
    ("x,count\n1,0\n", "line 2", "count '0' is not a positive integer"),
    ("x,count\n1,-3\n", "line 2", "count '-3'"),
    ("x,count\n1,2.0\n", "line 2", "count '2.0'"),
    ("x,count\n1, 2\n", "line 2", "count ' 2'"),
    ("x,count\n1,02\n", "line 2", "count '02'"),
    ("x,count\n1,1000000000000000000\n", "line 2", "at most 18 digits"),
    ("x,count\n1,2\n5,1\n1,4\n", "line 4", "(first in counts file"),
    ("x,count\n1,2\n0,1\n", "line 3", "outside the universe"),
    ("x,count\n1,2\n11,1\n", "line 3", "outside the universe"),
    ("x,count\n1,2\n05,1\n", "line 3", "leading zero"),
    ("x,count\n1,2\nalice,1\n", "line 3", "is not an integer"),
    ("x,count\n1,2\n-5,1\n", "line 3", "looks like a number"),
    ("x,count\n,2\n", "line 2", "the element is empty"),
    ("x,count\n1,2,3\n", "line 2", "has 3 fields"),
    ("x,n\n1,2\n", "line 1", "header ELEMENT,count"),
    ("", "line 1", "header ELEMENT,count"),
    ("x,count\n", "no element lines", "n >= 1"),
    ('x,count\n"a\nb",2\n', "line 3", "line break"),
]


@pytest.mark.parametrize(("text", "where", "what"), BAD_COUNTS)
def test_bad_counts_one_line_before_noise(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch, text: str,
                                          where: str, what: str) -> None:
    from exactdp import keystream, randomness

    def no_noise(*args: object) -> None:
        raise AssertionError("a source was made before the counts were validated")

    monkeypatch.setattr(randomness, "SystemSource", no_noise)
    monkeypatch.setattr(keystream, "release_source", no_noise)
    path = _write(tmp_path / "bad.csv", text)
    rc, out, err = run(capsys, "histogram", path, "--counts", "--algorithm", "pure-sparse",
                       "--universe-size", "10", "--epsilon", "1/2", "--quiet")
    assert rc == 2 and out == ""
    one_line_error(err, "bad.csv", where, what)


def test_rows_total_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path / "c.csv", "x,count\n1,2\n3,4\n")
    rc, _, err = run(capsys, "histogram", path, "--counts", "--rows", "7", "--algorithm",
                     "pure-sparse", "--universe-size", "10", "--epsilon", "1/2")
    assert rc == 2
    one_line_error(err, "c.csv", "sum to 6 rows but --rows is 7")
    with pytest.raises(InputFileError, match="sum to 6 rows"):
        read_counts_csv(path, Universe(10), rows=5)
    data, fmt = read_counts_csv(path, Universe(10), rows=6)
    assert (data.n, data.counts(), fmt) == (6, {1: 2, 3: 4}, "integers")


def test_duplicate_across_part_files(tmp_path: Path) -> None:
    _write(tmp_path / "a.csv", "x,count\n4,2\n")
    _write(tmp_path / "b.csv", "x,count\n5,1\n4,1\n")
    with pytest.raises(InputFileError, match=r"b\.csv' line 3: element '4' again \(first in "
                                             r"counts file '.*a\.csv' line 2\)"):
        read_counts_csv(str(tmp_path), Universe(10))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputFileError, match="has no \\*.csv files"):
        read_counts_csv(str(empty), Universe(10))


def test_elements_from_text_formats() -> None:
    u = Universe(2**64)
    assert elements_from_text(["3", "10"], u, "auto", str) == ([3, 10], "integers")
    assert elements_from_text(["a", "b c"], u, "auto", str) == (
        [encode_label("a", 2**64), encode_label("b c", 2**64)], "labels")
    assert elements_from_text(["3"], u, "labels", str) == ([encode_label("3", 2**64)], "labels")
    with pytest.raises(InputFileError, match="^1: element '1e3' looks like a number"):
        elements_from_text(["2", "1e3"], u, "auto", str)
    with pytest.raises(InputFileError, match="^0: the element is empty"):
        elements_from_text([None], u, "auto", str)
    with pytest.raises(DomainError, match="^0: label"):
        elements_from_text(["x" * 9], u, "labels", str)


def test_option_conflicts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path / "c.csv", "x,count\n1,2\n")
    common = ["--algorithm", "pure-sparse", "--universe-size", "10", "--epsilon", "1/2"]
    for argv, words in [
        ([path, "--counts", "--engine", "duckdb"], ("drop --engine duckdb",)),
        ([path, "--engine", "text", "--column", "x"], ("--column applies",)),
        ([_write(tmp_path / "r.txt", "1\n"), "--rows", "1"], ("--rows applies",)),
        (["-", "--counts"], ("standard input",)),
    ]:
        rc, _, err = run(capsys, "histogram", *argv, *common)
        assert rc == 2
        one_line_error(err, *words)


def test_missing_duckdb_names_the_extra(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "duckdb", None)  # import duckdb raises ImportError
    rc, out, err = run(capsys, "histogram", str(tmp_path / "x.parquet"), "--algorithm",
                       "pure-sparse", "--universe-size", "10", "--epsilon", "1/2")
    assert rc == 2 and out == ""
    one_line_error(err, "needs the duckdb package", "pip install 'exactdp[scale]'")


def test_neighbouring_relation_is_stated(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path / "c.csv", "x,count\n1,2\n")
    rc, _, err = run(capsys, "histogram", path, "--counts", "--algorithm", "pure-sparse",
                     "--universe-size", "10", "--epsilon", "1/2", "--quiet", "--seed", "1")
    assert rc == 0
    assert "one row's element changed" in err
    assert "not private against one row being added or removed" in err
