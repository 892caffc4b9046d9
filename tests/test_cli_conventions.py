"""Issue 9 regressions for the counting commands and the conventions every command shares:
exit statuses, one-line errors, no traceback, nothing written on status 2, bounded work,
atomic outputs, the bounded number parser."""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.cli import main
from exactdp.files import InputFileError, OutputFileError, OutputPath, parse_json, read_text
from exactdp.params import ParameterError, inverse_integer, to_fraction
from tests._cli import one_line_error, run

# --------------------------------------------------------------------------- numbers

@pytest.mark.parametrize("text", ["1e-1000000000", "1e99999", "２", "٣", "1/２", "0x10", "1_000",
                                  "inf", "nan", "", " ", "1/", "/2", "--1", "1e", "1.2.3"])
def test_number_parser_refuses_clearly(text: str) -> None:
    with pytest.raises(ParameterError, match="epsilon"):
        to_fraction(text, "epsilon")


def test_number_parser_accepts_exact_forms() -> None:
    assert to_fraction("1/10", "x") == to_fraction("0.1", "x") == to_fraction("1e-1", "x") \
        == Fraction(1, 10)
    assert to_fraction(" -3 / 6 ", "x") == Fraction(-1, 2)
    assert to_fraction("1e10000", "x") == 10**10000
    with pytest.raises(ParameterError, match="digits"):
        to_fraction("1" * 100_001, "x")


def test_delta_one_promises_nothing() -> None:
    with pytest.raises(ParameterError, match="below 1"):
        inverse_integer("1", "delta", below_one=True)
    assert inverse_integer("1/2", "delta", below_one=True) == Fraction(1, 2)


@pytest.mark.parametrize("argv", [
    ["sample", "geosample", "--n", "10", "--epsilon", "1e-1000000000", "--count", "1"],
    ["sample", "geosample", "--n", "1e400000", "--epsilon", "1/2", "--count", "1"],
    ["sample", "geosample", "--n", "１０", "--epsilon", "1/2", "--count", "1"],
    ["sample", "geosample", "--n", "10", "--epsilon", "0.6", "--count", "1"],
    ["sample", "geosample", "--n", "10", "--epsilon", "1/2", "--count", "3/2"],
    ["sample", "geosample", "--n", "10", "--epsilon", "1/2", "--count", "11"],
    ["sample", "geosample", "--n", "10", "--epsilon", "1/2", "--count", "1", "--draws", "0"],
    ["sample", "fastsample", "--n", "10", "--epsilon", "1/2", "--count", "1"],
    ["sample", "geosample", "--n", "10", "--epsilon", "1/2", "--gamma", "1/4", "--count", "1"],
    ["check", "fastsample", "--n", "10", "--epsilon", "1/2", "--gamma", "1"],
    ["check", "geosample", "--n", "4", "--epsilon", "1/2", "--beta", "1"],
    ["check", "geosample", "--n", "4", "--epsilon", "1/2", "--max-seconds", "0"],
    ["distribution", "geosample", "--n", "0", "--epsilon", "1/2", "--count", "0"],
])
def test_bad_counting_arguments_are_one_line_errors(capsys: pytest.CaptureFixture[str],
                                                     argv: list[str]) -> None:
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == ""
    one_line_error(err, f"exactdp {argv[0]}: error:")


def test_geometric_is_offered_only_where_it_works(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["sample", "--help"])
    assert exc.value.code == 0
    assert "geometric" not in capsys.readouterr().out.split("positional arguments")[0]
    with pytest.raises(SystemExit):
        main(["sample", "geometric", "--n", "3", "--epsilon", "1/2", "--count", "1"])
    assert "invalid choice" in capsys.readouterr().err


def test_help_says_what_epsilon_buys(capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["sample"], ["check", "geosample"], ["check", "fastsample"],
                    ["distribution"], ["plot", "pmf"], ["plot", "accuracy"]):
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "(eps~/2, 0)-DP" in text and "(eps/2, 0)-DP" in text
        assert "Exit statuses, exact numbers and the notation: exactdp --help" in text


# --------------------------------------------------------------------------- bounded work

def test_check_refuses_hours_with_the_estimate(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "check", "geosample", "--n", "20000", "--epsilon", "1/2")
    assert rc == 2 and out == ""
    one_line_error(err, "would take about", "--max-seconds", "smaller --n")


def test_sample_refuses_a_billion_draws(capsys: pytest.CaptureFixture[str]) -> None:
    # --epsilon is the total of all draws: 5*10^7 is 1/20 = eps/2 per draw (eps = 1/10).
    rc, out, err = run(capsys, "sample", "fastsample", "--n", "1000000", "--epsilon",
                       "50000000", "--gamma", "1/1000000", "--count", "3", "--draws",
                       "1000000000")
    assert rc == 2 and out == ""
    one_line_error(err, "1000000000 draws would take about", "fewer --draws")


def test_sample_streams_and_is_reproducible(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    argv = ["sample", "geosample", "--n", "10", "--epsilon", "1/2", "--count", "3",
            "--draws", "50", "--seed", "7"]
    rc, out, _ = run(capsys, *argv)
    values = out.split()
    assert rc == 0 and len(values) == 50 and all(0 <= int(v) <= 10 for v in values)
    assert run(capsys, *argv)[1] == out  # seeded: deterministic
    rc, out_json, _ = run(capsys, *argv, "--json")
    payload = json.loads(out_json)
    assert payload["values"] == values and payload["seeded"] is True
    target = tmp_path / "draws.txt"
    rc, out_file, _ = run(capsys, *argv, "--output", str(target))
    assert rc == 0 and out_file == "" and target.read_text().split() == values


def test_check_and_distribution_json_only(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "check", "geosample", "--n", "4", "--epsilon", "1/4", "--json",
                     "--beta", "1/10")
    cert = json.loads(out)
    assert rc == 0 and cert["verdict"] == "pass" and cert["worst"] == "5/4"
    rc, out, _ = run(capsys, "distribution", "geosample", "--n", "3", "--epsilon", "1/2",
                     "--count", "1", "--json")
    pmf = json.loads(out)["pmf"]
    assert rc == 0 and sum(Fraction(v) for v in pmf.values()) == 1


# --------------------------------------------------------------------------- outputs

def test_output_checked_before_any_draw(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp import randomness

    drawn: list[int] = []

    def spying(real):  # the OS source's uniform, and the keystream's (ByteSource's)
        def spy(self: randomness.RandomSource, d: int) -> int:
            drawn.append(d)
            return real(self, d)
        return spy

    for cls in (randomness.SystemSource, randomness.ByteSource):
        monkeypatch.setattr(cls, "uniform", spying(cls.uniform))
    base = ["sample", "geosample", "--n", "10", "--epsilon", "1/2", "--count", "3"]
    for target, words in [(tmp_path / "missing" / "x.txt", "does not exist"),
                          (tmp_path, "is a directory")]:
        rc, out, err = run(capsys, *base, "--output", str(target))
        assert rc == 2 and out == "" and not drawn
        one_line_error(err, words)
    existing = tmp_path / "old.txt"
    existing.write_text("precious\n")
    rc, _, err = run(capsys, *base, "--output", str(existing))
    assert rc == 2 and existing.read_text() == "precious\n" and not drawn
    one_line_error(err, "--force")
    rc, _, _ = run(capsys, *base, "--output", str(existing), "--force")
    assert rc == 0 and existing.read_text() != "precious\n" and drawn


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_read_only_directory(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        with pytest.raises(OutputFileError, match="not writable"):
            OutputPath.check(str(ro / "x.json"))
    finally:
        ro.chmod(0o700)


def test_failed_write_keeps_the_old_file_and_leaves_no_temp(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    target = tmp_path / "release.json"
    target.write_text("old release\n")
    out = OutputPath.check(str(target), force=True)

    def full_disk(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OutputFileError, match="disk is full"):
        out.write("new release\n")
    assert target.read_text() == "old release\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["release.json"]


def test_interrupted_stream_leaves_no_file(tmp_path: Path) -> None:
    target = tmp_path / "x.txt"
    out = OutputPath.check(str(target))

    def pieces():  # type: ignore[no-untyped-def]
        yield "1\n"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        out.write_stream(pieces())
    assert list(tmp_path.iterdir()) == []


def test_interrupt_exits_130_in_one_line(capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.cli import counting

    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(counting, "_make_mechanism", interrupted)
    rc, out, err = run(capsys, "sample", "geosample", "--n", "3", "--epsilon", "1/2",
                       "--count", "1")
    assert rc == 130 and out == ""
    one_line_error(err, "interrupted")


def test_a_bug_is_one_line_and_status_4(capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.cli import counting

    def broken(args: object) -> int:
        raise ZeroDivisionError("planted")

    monkeypatch.setattr(counting, "_make_mechanism", broken)
    rc, _, err = run(capsys, "sample", "geosample", "--n", "3", "--epsilon", "1/2",
                     "--count", "1")
    assert rc == 4
    one_line_error(err, "internal error", "ZeroDivisionError", "EXACTDP_DEBUG")


# --------------------------------------------------------------------------- inputs

def test_reads_are_capped(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"1\n" * 1000)
    with pytest.raises(InputFileError, match="larger than 100 bytes"):
        read_text(str(big), "data", max_bytes=100)
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    with pytest.raises(InputFileError, match="--max-input-bytes"):
        read_text(str(zero), "data", max_bytes=1 << 16)
    with pytest.raises(InputFileError, match="directory"):
        read_text(str(tmp_path), "data")
    with pytest.raises(InputFileError, match="cannot read"):
        read_text(str(tmp_path / "nope"), "data")


def test_non_utf8_names_the_byte_offset_and_line(tmp_path: Path) -> None:
    f = tmp_path / "bad.txt"
    f.write_bytes(b"1\n2\n\xff3\n")
    with pytest.raises(InputFileError, match=r"0xff at byte offset 4 \(line 3\)"):
        read_text(str(f), "data")
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbf1\r\n2\r\n")
    assert read_text(str(bom), "data") == "1\r\n2\r\n"


def test_json_is_bounded_and_exact() -> None:
    with pytest.raises(InputFileError, match="nests 100000 levels"):
        parse_json("[" * 100_000 + "]" * 100_000, "x.json")
    assert parse_json('{"a": ["[[[[", 1]}', "x.json") == {"a": ["[[[[", 1]}
    for text, words in [('{"a": 0.1}', "not exact"), ('{"a": NaN}', "not exact"),
                        ('{"a": ', "line 1, column 7")]:
        with pytest.raises(InputFileError, match=words):
            parse_json(text, "x.json")


def test_verify_only_matching_nothing_fails(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "verify", "--only", "no-such-claim")
    assert rc == 2 and out == ""
    one_line_error(err, "matches no proof module")


def test_verify_turns_a_raising_check_into_a_fail_row(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.cli.verify import run_check
    from exactdp.proofs.balcer_vadhan import lemma_3_02_mixing

    def boom(full: bool) -> None:
        raise RuntimeError("planted")

    monkeypatch.setattr(lemma_3_02_mixing, "check", boom)
    report = run_check(lemma_3_02_mixing.check, False)
    assert report.verdict is False and "RuntimeError: planted" in report.worst


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["sample"], ["bogus"], ["check", "geosample", "--n"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        one_line_error(err, "error:", "--help")


def test_cdf_outside_the_count_range_is_refused_not_a_float() -> None:
    from exactdp.counting import FastSample, GeoSample
    from exactdp.params import DomainError, ParameterTypeError

    for mech in (GeoSample(8, "1/2"), FastSample(8, "1/2", "1/4")):
        with pytest.raises(DomainError):
            mech.cdf(9, 0)
        with pytest.raises(ParameterTypeError):
            mech.cdf(1, 0.5)  # type: ignore[arg-type]


def test_histogram_refuses_a_long_release_before_drawing(capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp import randomness

    drawn: list[int] = []
    monkeypatch.setattr(randomness.SystemSource, "uniform",
                        lambda self, d: drawn.append(d) or 1)
    data = tmp_path / "d.txt"
    data.write_text("1\n2\n3\n")
    target = tmp_path / "out.json"
    rc, out, err = run(capsys, "histogram", "--algorithm", "basic", "--universe-size", "2^20",
                       "--epsilon", "1/10", "--max-seconds", "1", "--quiet", "--output",
                       str(target), str(data))
    assert rc == 2 and out == "" and not drawn and not target.exists()
    one_line_error(err, "1048576 noisy counts", "--max-seconds")


def test_padded_stability_is_estimated_at_n_draws_not_one_per_element(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # 2,000,000 rows of ONE element: the padded (strict-time) release draws n noisy counts
    counts = tmp_path / "counts.csv"
    counts.write_text("element,count\n7,2000000\n")
    rc, out, err = run(capsys, "histogram", "--algorithm", "stability", "--universe-size",
                       "2^64", "--epsilon", "1/10", "--delta", "1/1000000", "--counts",
                       str(counts), "--max-seconds", "1", "--quiet")
    assert rc == 2 and out == ""
    assert "2000000 noisy counts" in err.splitlines()[-1]


def test_outputs_get_ordinary_permissions(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        target = tmp_path / "new.json"
        OutputPath.check(str(target)).write("{}\n")
        assert target.stat().st_mode & 0o777 == 0o644
        target.chmod(0o640)
        OutputPath.check(str(target), force=True).write("[]\n")
        assert target.stat().st_mode & 0o777 == 0o640 and target.read_text() == "[]\n"
    finally:
        os.umask(old)


def test_verify_reports_a_proof_module_that_does_not_import(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp import proofs
    from exactdp.cli.verify import run_check
    from exactdp.proofs import balcer_vadhan

    broken = tmp_path / "thm_9_99_broken.py"
    broken.write_text("CLAIM = 'x'\ndef (:\n")
    monkeypatch.setattr(balcer_vadhan, "__path__", [*balcer_vadhan.__path__, str(tmp_path)])
    modules = {m.__name__: m for m in proofs.discover()}
    stand_in = modules["exactdp.proofs.balcer_vadhan.thm_9_99_broken"]
    report = run_check(proofs.checks_of(stand_in)[0], False)
    assert report.verdict is False and "SyntaxError" in report.worst
    assert "did not import" in report.claim


def test_an_interrupt_leaves_sigint_handling_alone(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """main() runs inside other programs: after an interrupt SIGINT must still raise
    KeyboardInterrupt (an ignored SIGINT would be inherited by every child process)."""
    import signal

    from exactdp.cli import counting

    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(counting, "_make_mechanism", interrupted)
    before = signal.getsignal(signal.SIGINT)
    assert run(capsys, "sample", "geosample", "--n", "3", "--epsilon", "1/2",
               "--count", "1")[0] == 130
    assert signal.getsignal(signal.SIGINT) is before


# --------------------------------------------------------------------------- red-team findings

@pytest.mark.parametrize("suffix", ["newdir/", "newdir/.", "."])
def test_output_naming_a_directory_is_refused(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path, suffix: str) -> None:
    # --output out/newdir/ wrote a *file* named newdir (Path() drops the slash), status 0.
    target = f"{tmp_path}/{suffix}"
    rc, out, err = run(capsys, "sample", "geosample", "--n", "10", "--epsilon", "1/2",
                       "--count", "3", "--output", target)
    assert rc == 2 and out == ""
    one_line_error(err, "directory", "give a file name")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_paths_with_nul_bytes_are_input_errors(tmp_path: Path) -> None:
    # open() raises ValueError("embedded null byte"): an internal error, not a typed one.
    with pytest.raises(InputFileError, match="NUL"):
        read_text(f"{tmp_path}/a\x00b", "data")
    with pytest.raises(OutputFileError, match="NUL"):
        OutputPath.check(f"{tmp_path}/a\x00b")
    (tmp_path / "d.txt").write_text("1\n")
    assert read_text(tmp_path / "d.txt", "data") == "1\n"  # type: ignore[arg-type]


@pytest.mark.skipif(os.geteuid() != 0 or not __import__("shutil").which("setpriv"),
                    reason="needs root and setpriv to drop to an unprivileged user")
def test_read_only_directory_as_an_unprivileged_user() -> None:
    # Root bypasses permissions, so as root the check above is skipped; drop to nobody.
    import subprocess
    import sys
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="exactdp-ro-"))
    try:
        base.chmod(0o755)
        ro = base / "ro"
        ro.mkdir(mode=0o555)
        ro.chmod(0o555)
        proc = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable,
             "-m", "exactdp.cli", "sample", "geosample", "--n", "3", "--epsilon", "1/2",
             "--count", "1", "--output", str(ro / "x.txt")],
            check=False, capture_output=True, text=True, timeout=60, cwd=base)
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        one_line_error(proc.stderr, "not writable")
        assert list(ro.iterdir()) == []
    finally:
        (base / "ro").chmod(0o755)
        __import__("shutil").rmtree(base)


@pytest.mark.parametrize(("flag", "value", "words"), [
    ("--n", "1.5", "--n = 3/2 must be a positive integer"),
    ("--epsilon", "1/0", "--epsilon = '1/0' has a zero denominator"),
    ("--epsilon", "2", "--epsilon = 2 is above the largest budget"),
    ("--gamma", "2/3", "--gamma = 2/3 is not of the form 1/m"),
    ("--gamma", "1", "--gamma = 1 is not allowed"),
])
def test_counting_errors_name_the_flag(capsys: pytest.CaptureFixture[str], flag: str,
                                       value: str, words: str) -> None:
    # The errors said 'n = 3/2', 'epsilon = ...': the parameter, not the flag to change.
    argv = {"--n": "10", "--epsilon": "1/2", "--gamma": "1/10"}
    argv[flag] = value
    rc, out, err = run(capsys, "sample", "fastsample", "--count", "1",
                       *[x for kv in argv.items() for x in kv])
    assert rc == 2 and out == ""
    one_line_error(err, words)


def test_long_distribution_says_so_on_stderr(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # distribution fastsample --n 10^6 worked for a minute without a word.
    from exactdp.cli import counting

    monkeypatch.setattr(counting, "estimate_ns", lambda mech, counts: 11 * 10**9)
    rc, out, err = run(capsys, "distribution", "geosample", "--n", "3", "--epsilon", "1/2",
                       "--count", "1", "--json")
    assert rc == 0 and json.loads(out)["equals_ideal"] is True
    assert err.startswith("computing the exact distribution (about 11 s)")


def test_stdout_that_cannot_show_the_answer_is_a_clear_error(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # PYTHONIOENCODING=ascii exactdp query REL café: "internal error ... UnicodeEncodeError".
    import io
    import sys

    from exactdp.cli import counting

    def prints_a_label(args: object) -> int:
        print("café")
        return 0

    def a_bug(args: object) -> int:
        "\ud800".encode("utf-8")
        return 0

    argv = ["sample", "geosample", "--n", "3", "--epsilon", "1/2", "--count", "1"]
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding="ascii"))
    monkeypatch.setattr(counting, "cmd_sample", prints_a_label)
    rc, _, err = run(capsys, *argv)
    assert rc == 2
    one_line_error(err, "encoding ascii", "'é'", "PYTHONIOENCODING=utf-8")
    monkeypatch.setattr(counting, "cmd_sample", a_bug)  # another codec's error is a bug
    rc, _, err = run(capsys, *argv)
    assert rc == 4
    one_line_error(err, "internal error")


def test_verify_only_blank_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "verify", "--only", " ")
    assert rc == 2 and out == ""
    one_line_error(err, "--only")


def test_checker_refuses_inexact_probabilities() -> None:
    from exactdp.checker import counting_distribution, statistical_distance, worst_neighbour_ratio
    from exactdp.params import ParameterTypeError

    with pytest.raises(ParameterTypeError, match="exact"):
        statistical_distance({0: 0.5}, {0: Fraction(1, 2)})  # type: ignore[dict-item]
    with pytest.raises(ParameterTypeError, match="exact"):
        worst_neighbour_ratio([{0: Fraction(1, 2)}, {0: 0.5}])  # type: ignore[list-item]
    with pytest.raises(ParameterTypeError, match="counting mechanism"):
        counting_distribution("x", 1)  # type: ignore[arg-type]


def test_histogram_constructors_type_their_universe() -> None:
    from exactdp.histograms.basic import BasicHistogram, StabilityHistogram
    from exactdp.histograms.data import Universe
    from exactdp.params import ParameterTypeError

    for bad in (None, 10, 10.0, "10"):
        with pytest.raises(ParameterTypeError, match="universe"):
            BasicHistogram.theorem_5_3(bad, 6, "1/2", "1/4")  # type: ignore[arg-type]
        with pytest.raises(ParameterTypeError, match="universe"):
            StabilityHistogram.theorem_5_6(bad, 6, "1/2", "1/4", "1/4")  # type: ignore[arg-type]
    alg = BasicHistogram.theorem_5_3(Universe(10), 6, "1/2", "1/4")
    with pytest.raises(ParameterTypeError, match="Dataset"):
        alg.release(None)  # type: ignore[arg-type]


def test_testing_helpers_type_their_arguments() -> None:
    from exactdp.params import ParameterTypeError
    from exactdp.testing import assert_pure_dp, exact_distribution

    with pytest.raises(ParameterTypeError, match="pair"):
        assert_pure_dp(lambda x, src: x, [0, 1], "1/2")  # type: ignore[list-item]
    with pytest.raises(ParameterTypeError, match="sampler"):
        exact_distribution(5)  # type: ignore[arg-type]


def test_a_closed_pipe_is_not_an_error() -> None:
    import subprocess
    import sys

    proc = subprocess.run(
        f"{sys.executable} -m exactdp.cli sample geosample --n 10 --epsilon 1/2 --count 3 "
        f"--draws 20000 --seed 1 | head -1", shell=True, capture_output=True, text=True,
        check=False, timeout=120)
    assert proc.stdout.strip().isdigit() and "Traceback" not in proc.stderr
