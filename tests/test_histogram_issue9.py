"""Issue 9 ("nothing silently wrong") regression tests for ``exactdp histogram`` and
``exactdp query``, one group per class of the issue.

Every command runs in-process through :func:`exactdp.cli.main` and is checked for: its exit
status, a one-line error on stderr with the key words, no traceback, and -- on status 2 --
nothing written (no output file, no temporary file).
"""

from __future__ import annotations

import errno
import json
import os
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from exactdp import randomness
from exactdp.cli import main
from exactdp.counting import GeoSample
from exactdp.histograms.basic import BasicHistogram, StabilityHistogram
from exactdp.histograms.compact import CompactHistogram
from exactdp.histograms.data import Dataset, Histogram, Universe, encode_label
from exactdp.histograms.release_file import seal
from exactdp.histograms.sparse import PureSparseHistogram
from exactdp.params import ParameterTypeError
from exactdp.randomness import SeededSource


class Run:
    """One in-process run: status, stdout, stderr, and the --output target's directory."""

    def __init__(self, capsys: pytest.CaptureFixture[str], tmp_path: Path,
                 argv: list[str]) -> None:
        self.rc = main(argv)
        self.out, self.err = capsys.readouterr()
        assert "Traceback" not in self.err
        self.dir = tmp_path / "out"

    def json(self) -> Any:
        return json.loads(self.out)

    def refused(self, *words: str, written: bool = False) -> None:
        """Status 2, one line naming ``words``, nothing written (``written``: the output
        directory held a file before the run)."""
        assert self.rc == 2, (self.rc, self.err)
        lines = self.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("exactdp "), self.err
        for word in words:
            assert word in lines[0], (word, lines[0])
        assert self.out == ""
        if not written:
            assert not self.dir.exists() or list(self.dir.iterdir()) == [], "a file was written"


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Any:
    (tmp_path / "out").mkdir()

    def run(*argv: str, output: bool = False) -> Run:
        extra = ["--output", str(tmp_path / "out" / "release.json")] if output else []
        return Run(capsys, tmp_path, [*argv, *extra])
    return run


def data(tmp_path: Path, content: bytes | str, name: str = "rows.txt") -> str:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return str(path)


BASIC = ("histogram", "--algorithm", "basic", "--universe-size", "10", "--epsilon", "1/2",
         "--seed", "1")

# =========================================================================== class 1


@pytest.mark.parametrize(("content", "words"), [
    ("1\n2\n3\n\n", ["line 4 is blank", "--skip-blank-lines"]),
    ("1\n\n2\n", ["line 2 is blank"]),
    ("1\n   \n2\n", ["line 2 is blank"]),
    ("1\n2\n-5\n", ["line 3", "'-5'", "--format labels"]),
    ("1\n+5\n", ["line 2", "'+5'"]),
    ("1e3\n2\n", ["line 1", "'1e3'"]),
    ("1\n5.0\n", ["line 2", "'5.0'"]),
    ("1\n 5\n", ["line 2", "' 5'"]),
    ("1\n05\n", ["line 2", "'05'"]),
    ("1\n\u0663\n", ["line 2"]),  # an Arabic-Indic 3 is not the element 3
    ("alice\nbob\n5\n", ["line 3", "'5'", "is an integer", "--format labels"]),
    ("5\nalice\n", ["line 2", "'alice'", "not an integer"]),
    ("1\n0\n", ["line 2", "outside the universe"]),
    ("1\n11\n", ["line 2", "outside the universe"]),
    ("1\n" + "9" * 5000 + "\n", ["line 2", "outside the universe"]),
    ("1\r2\n", ["line 1", "carriage return"]),
    ("", ["no rows"]),
    ("\n", ["line 1 is blank"]),
])
def test_class1_data_read_wrongly_is_an_error(cli: Any, tmp_path: Path, content: str,
                                              words: list[str]) -> None:
    cli(*BASIC, data(tmp_path, content), output=True).refused(*words)


@pytest.mark.parametrize(("content", "rows"), [
    (b"\xef\xbb\xbf1\r\n2\r\n3\r\n", ["1", "2", "3"]),  # BOM and CRLF
    (b"1\n2\n3", ["1", "2", "3"]),  # no final newline
    (b"3\n3\n", ["3", "3"]),  # a final newline is not a blank line
])
def test_class1_bom_crlf_and_final_newline(cli: Any, tmp_path: Path, content: bytes,
                                           rows: list[str]) -> None:
    run = cli(*BASIC, "--quiet", data(tmp_path, content))
    assert run.rc == 0
    report = run.json()
    assert report["input"]["format"] == "integers" and report["n"] == str(len(rows))


def test_class1_skip_blank_lines_and_explicit_formats(cli: Any, tmp_path: Path) -> None:
    run = cli(*BASIC, "--quiet", "--skip-blank-lines", data(tmp_path, "1\n\n2\n  \n"))
    assert run.rc == 0 and run.json()["n"] == "2"
    # --format labels reads '-5' as the label "-5": every line, never a mixture.
    run = cli("histogram", "--algorithm", "pure-sparse", "--universe-size", "2^64",
              "--epsilon", "1", "--quiet", "--format", "labels", data(tmp_path, "1\n-5\n1\n"))
    assert run.rc == 0
    report = run.json()
    assert report["input"]["format"] == "labels"
    run = cli(*BASIC, "--format", "integers", data(tmp_path, "1\n05\n"), output=True)
    run.refused("line 2", "leading zero")
    run = cli(*BASIC, "--format", "integers", data(tmp_path, "1\nbob\n"), output=True)
    run.refused("line 2", "'bob'", "--format labels")


def test_class1_labels_are_counted_as_labels(cli: Any, tmp_path: Path) -> None:
    run = cli("histogram", "--algorithm", "basic", "--universe-size", "300", "--epsilon",
              "1", "--seed", "4", "--quiet", "--format", "labels", "--counting", "geosample",
              data(tmp_path, "a\na\nb\n"))
    assert run.rc == 0
    report = run.json()
    by_label = {b.get("label"): b for b in report["histogram"] if "label" in b}
    assert by_label["a"]["element"] == str(encode_label("a", 300)) == "99"


def test_class1_quiet_never_hides_what_changes_the_meaning(cli: Any, tmp_path: Path) -> None:
    run = cli("histogram", "--algorithm", "pure-sparse", "--universe-size", "5", "--epsilon",
              "1", "--seed", "2", "--quiet", data(tmp_path, "1\n2\n3\n"))
    assert run.rc == 0
    assert "note:" in run.err and "BasicHistogram" in run.err  # the fallback
    assert "--seed" in run.err  # the seeded warning
    assert "read " not in run.err  # progress is hidden


def _release(cli: Any, tmp_path: Path, content: str, *extra: str) -> str:
    target = tmp_path / "rel.json"
    if target.exists():
        target.unlink()
    run = cli("histogram", "--algorithm", "pure-sparse", "--universe-size", "2^64",
              "--epsilon", "1/2", "--counting", "geosample", "--quiet", "--output",
              str(target), *extra, data(tmp_path, content))
    assert run.rc == 0, run.err
    return str(target)


def test_class1_query_follows_the_recorded_format(cli: Any, tmp_path: Path) -> None:
    rel = _release(cli, tmp_path, "1\n2\n")
    cli("query", rel, "-1").refused("'-1'", "integers")
    cli("query", rel, "05").refused("'05'")
    cli("query", rel, "18446744073709551617").refused("outside the universe")
    cli("query", rel, "--format", "labels", "1").refused("records", "integers")
    run = cli("query", rel, "1", "2")
    assert run.rc == 0 and [line.split("\t")[0] for line in run.out.splitlines()] == ["1", "2"]
    rel = _release(cli, tmp_path, "5\n5\n", "--format", "labels")
    run = cli("query", rel, "--json", "5", "-1")
    assert run.rc == 0
    got = run.json()
    assert got[0]["x"] == str(encode_label("5", 2**64)) and got[1]["x"] == str(
        encode_label("-1", 2**64))


@pytest.mark.parametrize("bad", [1.9, 2.0, True, "1", Fraction(2), None, b"1"])
def test_class1_api_refuses_non_int_elements(bad: object) -> None:
    u = Universe(10)
    with pytest.raises(ParameterTypeError):
        Dataset.of(u, [1, bad])
    with pytest.raises(ParameterTypeError):
        Histogram(u, 2, ((1, 1), (bad, 1)) if bad != 1 else ((bad, 1),))  # type: ignore[arg-type]
    with pytest.raises(ParameterTypeError):
        Histogram(u, 2, ((1, bad),))  # type: ignore[arg-type]


def test_class1_api_float_is_never_truncated() -> None:
    with pytest.raises(ParameterTypeError, match="1.9"):
        Dataset.of(10, [1.9])
    with pytest.raises(ParameterTypeError, match="1.9"):
        Histogram(Universe(10), 3, ((1.9, 1),))  # type: ignore[arg-type]


def test_class1_api_numpy_types() -> None:
    np = pytest.importorskip("numpy")
    assert Dataset.of(10, [np.int64(3)]).rows == (3,)
    with pytest.raises(ParameterTypeError):
        Dataset.of(10, [np.float64(3.0)])


def test_class1_api_a_list_is_not_a_dataset() -> None:
    u = Universe(20)
    geo = GeoSample(3, 1)
    algorithms: list[Any] = [
        BasicHistogram(geo, u), StabilityHistogram(geo, u, 2),
        PureSparseHistogram.theorem_6_11(Universe(2**20), 3, 1, Fraction(1, 20), "geosample"),
        CompactHistogram(u, geo, 2)]
    for alg in algorithms:
        with pytest.raises(ParameterTypeError, match="must be a Dataset"):
            alg.release([1, 2, 3], SeededSource(1))
    with pytest.raises(ParameterTypeError, match="character by character"):
        Dataset.from_labels(u, "abc")
    with pytest.raises(ParameterTypeError):
        Dataset(u, 5)  # type: ignore[arg-type]


# =========================================================================== class 2


class _Draws:
    """Counts draws from the CLI's sources (a release whose output cannot be written must
    not be drawn at all)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        for cls in (randomness.SystemSource, randomness.SeededSource, randomness.ByteSource):
            original = cls.uniform

            def uniform(src: Any, d: int, _orig: Any = original) -> int:
                self.count += 1
                return int(_orig(src, d))
            monkeypatch.setattr(cls, "uniform", uniform)


ALGORITHM_ARGS = [
    ["--algorithm", "basic", "--universe-size", "10"],
    ["--algorithm", "stability", "--universe-size", "2^64", "--delta", "1/1000"],
    ["--algorithm", "pure-sparse", "--universe-size", "2^64"],
    ["--algorithm", "compact", "--universe-size", "100"],
]


@pytest.mark.parametrize("alg", ALGORITHM_ARGS)
@pytest.mark.parametrize(("target", "force", "words"), [
    ("missing/x.json", False, ["does not exist"]),
    ("", False, ["file name"]),
    (".", False, ["directory"]),
    ("existing.json", False, ["exists", "--force"]),
])
def test_class2_output_checked_before_any_draw(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               alg: list[str], target: str, force: bool,
                                               words: list[str]) -> None:
    rows = data(tmp_path, "1\n2\n2\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "existing.json").write_text("old")
    draws = _Draws(monkeypatch)
    path = {"": "", ".": str(out)}.get(target, str(out / target))
    run = Run(capsys, tmp_path, ["histogram", *alg, "--epsilon", "1", "--quiet", "--output",
                                 path, rows])
    assert run.rc == 2 and draws.count == 0
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and all(word in lines[0] for word in words), run.err
    assert (out / "existing.json").read_text() == "old"
    assert sorted(p.name for p in out.iterdir()) == ["existing.json"]


def test_class2_release_drawn_and_written_once(cli: Any, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    draws = _Draws(monkeypatch)
    run = cli(*BASIC, "--quiet", data(tmp_path, "1\n2\n"), output=True)
    assert run.rc == 0 and draws.count > 0 and run.out == ""
    written = tmp_path / "out" / "release.json"
    first = written.read_text()
    again = cli(*BASIC, "--quiet", data(tmp_path, "1\n2\n"), output=True)
    again.refused("exists", "--force", written=True)
    assert written.read_text() == first
    forced = cli(*BASIC, "--quiet", "--force", data(tmp_path, "1\n2\n2\n"), output=True)
    assert forced.rc == 0 and json.loads(written.read_text())["n"] == "3"


@pytest.mark.parametrize("fault", ["fsync", "replace"])
def test_class2_full_disk_keeps_the_old_file(cli: Any, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             fault: str) -> None:
    target = tmp_path / "out" / "release.json"
    target.write_text("the old release")

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, fault, full)
    run = cli(*BASIC, "--quiet", "--force", data(tmp_path, "1\n2\n"), output=True)
    # The release was drawn before the write failed: status 1, and the line says so.
    assert run.rc == 1 and "Traceback" not in run.err
    line = run.err.strip().splitlines()[-1]
    assert "cannot write" in line and "disk is full" in line and "unchanged" in line
    assert "DRAWN" in line and "NOT delivered" in line
    assert target.read_text() == "the old release"
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["release.json"]  # no temp file


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="root writes into read-only directories")
def test_class2_read_only_directory(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.chmod(0o500)
    try:
        cli(*BASIC, data(tmp_path, "1\n"), output=True).refused("not writable")
    finally:
        out.chmod(0o700)


def test_class2_interrupt_leaves_nothing(cli: Any, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> int:
        raise KeyboardInterrupt
    monkeypatch.setattr(randomness.SeededSource, "uniform", interrupted)
    run = cli(*BASIC, "--quiet", data(tmp_path, "1\n"), output=True)
    assert run.rc == 130 and len(run.err.strip().splitlines()) == 1
    assert list((tmp_path / "out").iterdir()) == []


# =========================================================================== class 4


def _sealed_release(cli: Any, tmp_path: Path, *alg: str) -> dict[str, Any]:
    target = tmp_path / "sealed.json"
    if target.exists():
        target.unlink()
    run = cli("histogram", *alg, "--epsilon", "1/2", "--seed", "9", "--quiet", "--output",
              str(target), data(tmp_path, "1\n2\n2\n7\n"))
    assert run.rc == 0, run.err
    obj: dict[str, Any] = json.loads(target.read_text())
    return obj


def _query(cli: Any, tmp_path: Path, obj: dict[str, Any], text: str | None = None) -> Run:
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(obj) if text is None else text)
    run: Run = cli("query", str(path), "1", "2")
    return run


@pytest.mark.parametrize("alg", ALGORITHM_ARGS)
def test_class4_tampered_releases_are_refused(cli: Any, tmp_path: Path,
                                              alg: list[str]) -> None:
    obj = _sealed_release(cli, tmp_path, *alg)
    assert _query(cli, tmp_path, obj).rc == 0  # the untouched file is accepted
    # Re-indenting does not change the content.
    assert _query(cli, tmp_path, obj, json.dumps(obj, indent=7)).rc == 0

    # One digit of one released number flipped.
    edited = json.loads(json.dumps(obj))
    if "coefficients" in edited:
        c = edited["coefficients"][1]
        edited["coefficients"][1] = c[:-1] + str((int(c[-1]) + 1) % 10)
    elif edited["histogram"]:
        b = edited["histogram"][0]
        b["count"] = str((int(b["count"]) + 1) % (int(edited["n"]) + 1))
    else:
        edited["n"] = "5"
    _query(cli, tmp_path, edited).refused("integrity check")

    # The privacy claim edited: refused by the digest, and -- with the digest recomputed,
    # which anyone can do -- by the recomputed guarantees.
    edited = json.loads(json.dumps(obj))
    edited["guarantees"]["privacy"] = "(1/100, 0)-DP"
    _query(cli, tmp_path, edited).refused("integrity check")
    _query(cli, tmp_path, seal(edited)).refused("guarantees")

    for field, value in [("epsilon", "1/3")]:
        edited = json.loads(json.dumps(obj))
        if "request" in edited:
            edited["request"][field] = value
        else:
            edited[field] = value
        _query(cli, tmp_path, seal(edited)).refused()

    # No digest, a second value of a key, an unknown field: refused.
    edited = {k: v for k, v in obj.items() if k != "integrity"}
    _query(cli, tmp_path, edited).refused("integrity")
    text = json.dumps(obj)
    _query(cli, tmp_path, obj, '{"n": "999", ' + text[1:]).refused("twice")
    _query(cli, tmp_path, seal({**obj, "comment": "hi"})).refused("unknown field")


def test_class4_stability_derived_fields_recomputed(cli: Any, tmp_path: Path) -> None:
    obj = _sealed_release(cli, tmp_path, *ALGORITHM_ARGS[1])
    for name in ("parameters", "notes", "lower_bounds", "mechanism", "released_by", "paper"):
        edited = json.loads(json.dumps(obj))
        edited[name] = "x" if not isinstance(edited[name], list) else ["x"]
        _query(cli, tmp_path, seal(edited)).refused(f"field {name!r}")


def test_class4_histogram_shape_checked(cli: Any, tmp_path: Path) -> None:
    obj = _sealed_release(cli, tmp_path, *ALGORITHM_ARGS[0])
    edited = json.loads(json.dumps(obj))
    edited["histogram"].pop()  # BasicHistogram lists every element of [1, M]
    _query(cli, tmp_path, seal(edited)).refused("every element")
    edited = json.loads(json.dumps(obj))
    edited["histogram"][0]["label"] = "x"
    _query(cli, tmp_path, seal(edited)).refused("histogram[0]")


# =========================================================================== class 7


@pytest.mark.parametrize("command", ["histogram", "query"])
def test_class7_bad_files_give_one_line(cli: Any, tmp_path: Path, command: str) -> None:
    def run(path: str, *extra: str) -> Run:
        if command == "histogram":
            return cli(*BASIC, *extra, path, output=True)
        return cli("query", *extra, path, "1")

    run(data(tmp_path, b"1\n\xff\n")).refused("not UTF-8", "byte offset 2", "line 2")
    run(str(tmp_path)).refused("directory")
    run(str(tmp_path / "missing")).refused("cannot read")
    zero = tmp_path / "zero"
    if os.path.exists("/dev/zero"):
        zero.symlink_to("/dev/zero")
        run(str(zero), "--max-input-bytes", "4096").refused("larger than 4096", "--max-input-bytes")
    run(data(tmp_path, "1\n" * 3000), "--max-input-bytes", "100").refused("larger than 100")
    if command == "query":
        run(data(tmp_path, "[" * 100000 + "]" * 100000)).refused("nests")
        run(data(tmp_path, '{"a": 1.5}')).refused("not exact")
        run(data(tmp_path, "[1, 2]")).refused("JSON object")
        run(data(tmp_path, '{"format": "x"}')).refused("format")


# =========================================================================== class 9


def test_class9_help_states_the_guarantees(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["histogram", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for words in ("(eps, 0)-DP", "(eps, delta)-DP", "1 - beta", "below 1",
                  "stability only", "not an authentication", "falls back to BasicHistogram"):
        assert words in text, words
    with pytest.raises(SystemExit):
        main(["query", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "not an authentication" in text and "'-1'" in text


def test_class9_statements_match_the_theorems(cli: Any, tmp_path: Path) -> None:
    rows = data(tmp_path, "".join(f"{x}\n" for x in [7] * 400 + list(range(1, 101))))
    run = cli("histogram", "--algorithm", "stability", "--universe-size", "2^64",
              "--epsilon", "1", "--delta", "1/1000", "--seed", "3", "--quiet", rows)
    assert run.rc == 0
    report = run.json()
    assert report["guarantees"]["privacy"] == "(1, 1/1000)-DP"
    everything = json.dumps(report) + run.err
    assert "certifies" not in everything and ", 0)-DP" not in everything
    assert any("(1, 1/1000)-DP" in note for note in report["notes"])
    # An empty-by-construction stability release says so, not "(epsilon, 0)-DP".
    run = cli("histogram", "--algorithm", "stability", "--universe-size", "2^64",
              "--epsilon", "1/2", "--delta", "1/1000000", "--quiet", data(tmp_path, "1\n2\n"))
    report = run.json()
    assert ", 0)-DP" not in json.dumps(report["notes"]) and "every release is empty" in run.err
    # The fallback names the algorithm that released and its guarantees.
    run = cli("histogram", "--algorithm", "pure-sparse", "--universe-size", "5",
              "--epsilon", "1", "--quiet", data(tmp_path, "1\n2\n3\n"))
    report = run.json()
    assert report["released_by"] == report["guarantees"]["algorithm"] == "BasicHistogram"
    assert report["fallback"] and report["algorithm"] == "pure-sparse"


# =========================================================================== class 5


@pytest.mark.parametrize(("argv", "words"), [
    (["--universe-size", "1e100000"], ["universe size", "'1e100000'"]),
    (["--universe-size", "2^100000"], ["beyond 2^4096"]),
    (["--universe-size", "10^99999999999999999999"], ["beyond 2^4096"]),
    (["--universe-size", "\u0662^\u0666\u0664"], ["ASCII"]),
    (["--universe-size", "\uff11\uff10"], ["ASCII"]),
    (["--universe-size", "0"], ["universe size", "positive integer"]),
    (["--universe-size", "10", "--delta", "1/9"], ["--delta", "stability only"]),
    (["--universe-size", "10", "--beta", "1"], ["--beta", "below 1"]),
    (["--universe-size", "10", "--beta", "3/10"], ["--beta", "1/m"]),
    (["--universe-size", "10", "--epsilon", "1e-1000000000"], ["--epsilon"]),
])
def test_class5_parameters(cli: Any, tmp_path: Path, argv: list[str],
                           words: list[str]) -> None:
    base = ["histogram", "--algorithm", "basic", "--epsilon", "1/2"]
    cli(*base, *argv, data(tmp_path, "1\n"), output=True).refused(*words)


@pytest.mark.parametrize(("alg", "words"), [
    (["--algorithm", "stability", "--delta", "1"], ["--delta", "below 1"]),
    (["--algorithm", "stability", "--delta", "1/2"], []),
    (["--algorithm", "stability"], ["--delta"]),
    (["--algorithm", "pure-sparse", "--delta", "1/100"], ["stability only"]),
    (["--algorithm", "compact", "--delta", "1/100"], ["stability only"]),
])
def test_class5_delta(cli: Any, tmp_path: Path, alg: list[str], words: list[str]) -> None:
    run = cli("histogram", *alg, "--universe-size", "2^20", "--epsilon", "1", "--quiet",
              data(tmp_path, "1\n"), output=True)
    if words:
        run.refused(*words)
    else:
        assert run.rc == 0


def test_class5_universe_size_forms(cli: Any, tmp_path: Path) -> None:
    for text, size in [("2^64", 2**64), ("2**64", 2**64), ("1e6", 10**6),
                       ("18446744073709551616", 2**64)]:
        run = cli("histogram", "--algorithm", "pure-sparse", "--universe-size", text,
                  "--epsilon", "1", "--quiet", data(tmp_path, "1\n"))
        assert run.rc == 0 and run.json()["universe_size"] == str(size)
