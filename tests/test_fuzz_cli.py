"""Fuzzing the whole command line (issue 9): hypothesis over the argument grammar and over
file contents.

Every run must end with an exit status of the table (0, 1, 2, 3, 130 -- never 4, an internal
error), print no traceback, write nothing and print nothing on stdout when the status is 2,
and finish within a bound (a hang is a failure).  In-process runs are bounded by SIGALRM;
audits (which use SIGALRM themselves and import arbitrary code) run in a subprocess with a
timeout.  ``-m slow`` runs many more examples.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactdp.cli import main

STATUSES = {0, 1, 2, 3, 130}
BOUND_SECONDS = 30
FAST = settings(max_examples=120, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])
SLOW = settings(max_examples=1500, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


class Hang(BaseException):
    """Raised by the alarm: the command ran past the bound."""


@contextmanager
def bounded(seconds: int) -> Iterator[None]:
    def on_alarm(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


# --------------------------------------------------------------------------- the grammar

NUMBERS = ["1", "2", "3", "10", "0", "-1", "1/2", "1/3", "1/10", "0.1", "0.5", "1e-1", "2/7",
           "1/0", "0/1", "3/2", "1e-1000000000", "1e400", "1e99999", "9" * 5000, "1e3",
           "２", "٣", "1/２", "abc", "", " ", "nan", "inf", "-0", "+1", "0x10", "1_0", "1.",
           ".5", "1e", "1/1000000", "2^64", "2**64", "2^100000", "1e-5", "4", "16", "64"]
SMALL = ["0", "1", "2", "3", "4", "8", "16", "-1", "1/2", "0.5", "1e1", "abc", "", "٣"]


def value(pool: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(pool), st.text(max_size=8))


def option(name: str, pool: list[str]) -> st.SearchStrategy[list[str]]:
    return st.one_of(st.just([]), value(pool).map(lambda v: [name, v]),
                     st.just([name]))  # missing value


@st.composite
def counting_argv(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from(["distribution", "sample", "check"]))
    mech = draw(st.sampled_from(["geosample", "fastsample", "geometric", "laplace"]))
    argv = [command, mech]
    for name, pool in [("--n", SMALL + NUMBERS), ("--epsilon", NUMBERS), ("--gamma", NUMBERS),
                       ("--count", SMALL), ("--draws", SMALL + ["1000000000", "10000"]),
                       ("--beta", NUMBERS), ("--seed", SMALL), ("--max-seconds", SMALL)]:
        argv += draw(option(name, pool))
    argv += draw(st.sampled_from([[], ["--json"], ["--bogus"]]))
    return argv


@st.composite
def verify_argv(draw: st.DrawFn) -> list[str]:
    # Only cheap selections: every claim's full run belongs to the main job, not a fuzz run.
    only = draw(st.sampled_from(["lemma_3_02_mixing", "no-such-claim", "", "lemma_4_09",
                                 "lemma_4_12"]))
    return ["verify", "--only", only, *draw(st.sampled_from([[], ["--json"], ["--full"],
                                                             ["--quick", "--full"]]))]


CONTENTS = [b"1\n2\n3\n", b"1\n2\n3", b"1\r\n2\r\n", b"\xef\xbb\xbf1\n2\n", b"1\n\n2\n",
            b"1\n2\n\n", b"-5\n1\n", b"1e3\n1\n", b"a\nb\nc\n", b"1\na\n", b"\xff\xfe1\n",
            b"", b"\n", b"99999999999999999999999\n", b"\x00\n", b"  7 \n", b"\xd9\xa3\n",
            b"0\n1\n"]


@st.composite
def data_file(draw: st.DrawFn) -> bytes:
    return draw(st.one_of(st.sampled_from(CONTENTS), st.binary(max_size=64),
                          st.lists(st.integers(-3, 12), min_size=0, max_size=12).map(
                              lambda xs: "".join(f"{x}\n" for x in xs).encode())))


@st.composite
def histogram_argv(draw: st.DrawFn) -> list[str]:
    argv = ["histogram"]
    argv += draw(option("--algorithm", ["basic", "stability", "pure-sparse", "compact",
                                        "sparse"]))
    for name, pool in [("--universe-size", SMALL + NUMBERS + ["2^64", "2^200000"]),
                       ("--epsilon", NUMBERS), ("--delta", NUMBERS), ("--beta", NUMBERS),
                       ("--counting", ["fastsample", "geosample", "x"]),
                       ("--format", ["auto", "integers", "labels", "strings", "x"]),
                       ("--seed", SMALL), ("--max-input-bytes", SMALL + ["100"])]:
        argv += draw(option(name, pool))
    argv += draw(st.sampled_from([[], ["--skip-blank-lines"], ["--quiet"], ["--force"]]))
    return argv


# --------------------------------------------------------------------------- the oracle

def check_run(argv: list[str], capsys: pytest.CaptureFixture[str], workdir: Path) -> int:
    before = {p.name for p in workdir.iterdir()}
    try:
        with bounded(BOUND_SECONDS):
            rc = main(argv)
    except SystemExit as exc:  # argparse: usage errors are 2, --help is 0
        rc = int(exc.code or 0)
    except Hang:
        pytest.fail(f"hang: exactdp {' '.join(argv)}")
    out, err = capsys.readouterr()
    assert "Traceback" not in err, (argv, err)
    assert rc in STATUSES, (argv, rc, err)
    if rc == 2:
        assert out == "", (argv, out)
        assert {p.name for p in workdir.iterdir()} == before, (argv, "wrote on status 2")
    return rc


@pytest.fixture
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def _with_output(argv: list[str], workdir: Path, choice: int) -> list[str]:
    targets = [[], ["--output", str(workdir / "out.json")], ["--output", str(workdir)],
               ["--output", str(workdir / "no" / "dir.json")], ["--output", ""]]
    return argv + targets[choice]


@FAST
@given(argv=counting_argv(), out=st.integers(0, 4))
def test_fuzz_counting(argv: list[str], out: int, capsys: pytest.CaptureFixture[str],
                       workdir: Path) -> None:
    check_run(_with_output(argv, workdir, out), capsys, workdir)


@FAST
@given(argv=histogram_argv(), content=data_file(), out=st.integers(0, 4),
       target=st.sampled_from(["file", "missing", "dir", "zero"]))
def test_fuzz_histogram(argv: list[str], content: bytes, out: int, target: str,
                        capsys: pytest.CaptureFixture[str], workdir: Path) -> None:
    inputs = workdir.parent / f"{workdir.name}-in"
    inputs.mkdir(exist_ok=True)
    f = inputs / "data.txt"
    f.write_bytes(content)
    zero = inputs / "zero"
    if not zero.exists():
        zero.symlink_to("/dev/zero")
    path = {"file": f, "missing": inputs / "missing.txt", "dir": inputs, "zero": zero}[target]
    argv = [*argv, "--max-input-bytes", "4096"] if target == "zero" else argv
    check_run(_with_output([*argv, str(path)], workdir, out), capsys, workdir)


@FAST
@given(argv=verify_argv())
def test_fuzz_verify(argv: list[str], capsys: pytest.CaptureFixture[str],
                     workdir: Path) -> None:
    if "--full" in argv and "--quick" not in argv and argv[2] not in ("", "no-such-claim"):
        return  # a full grid is not a fuzz case
    if argv[2] == "":
        return  # every claim: the main job
    check_run(argv, capsys, workdir)


@st.composite
def tampered_release(draw: st.DrawFn, text: str) -> str:
    """A release with one character changed, removed or inserted."""
    i = draw(st.integers(0, len(text) - 1))
    edit = draw(st.sampled_from(["flip", "drop", "insert"]))
    ch = draw(st.sampled_from(list('0123456789"{}[],: ax\\')))
    if edit == "drop":
        return text[:i] + text[i + 1:]
    if edit == "insert":
        return text[:i] + ch + text[i:]
    return text[:i] + ch + text[i + 1:]


@pytest.fixture(scope="module")
def compact_release(tmp_path_factory: pytest.TempPathFactory) -> str:
    d = tmp_path_factory.mktemp("release")
    data = d / "data.txt"
    data.write_text("1\n2\n2\n5\n")
    out = d / "rel.json"
    assert main(["histogram", "--algorithm", "compact", "--universe-size", "8", "--epsilon",
                 "1", "--beta", "1/4", "--seed", "1", "--quiet", "--output", str(out),
                 str(data)]) == 0
    return out.read_text()


@FAST
@given(data=st.data(), elements=st.lists(st.sampled_from(["1", "2", "8", "9", "0", "-1", "x",
                                                          "", "２"]), min_size=1, max_size=3))
def test_fuzz_query_of_tampered_releases(data: st.DataObject, elements: list[str],
                                         compact_release: str,
                                         capsys: pytest.CaptureFixture[str],
                                         workdir: Path) -> None:
    text = data.draw(tampered_release(compact_release))
    f = workdir / "rel.json"
    f.write_text(text)
    rc = check_run(["query", str(f), *elements], capsys, workdir)
    if text != compact_release:
        # Any change to the sealed content is refused; only whitespace outside strings is
        # not content (the digest covers the canonical JSON, not the bytes).
        canonical_same = _same_json(text, compact_release)
        assert rc == 2 or canonical_same, "a tampered release was accepted"


def _same_json(a: str, b: str) -> bool:
    import json

    try:
        return bool(json.loads(a) == json.loads(b))
    except ValueError:
        return False


# --------------------------------------------------------------------------- audit

AUDIT_TARGETS = ["exactdp.counting:GeoSample(8, '1/2')", "exactdp.counting:GeoSample",
                 "exactdp.counting:GeoSample(8, 0.5)", "no.such.module:f", "os:system",
                 "exactdp.counting:Nope", "exactdp.counting", ":", "exactdp.counting:GeoSample(",
                 "exactdp.counting:GeoSample(8, __import__('os'))"]


@st.composite
def audit_argv(draw: st.DrawFn) -> list[str]:
    argv = ["audit", draw(st.sampled_from(AUDIT_TARGETS))]
    argv += draw(option("--kind", ["whitebox", "blackbox", "greybox"]))
    for name, pool in [("--claimed-epsilon", NUMBERS), ("--inputs", ["0..8", "0..1", "8..0",
                                                                     "0..1000000000000", "x",
                                                                     "0..", "-1..2"]),
                       ("--draws", SMALL + ["100"]), ("--alpha", NUMBERS),
                       ("--randomness-size", SMALL), ("--time-limit", SMALL)]:
        argv += draw(option(name, pool))
    return argv


def run_subprocess(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    try:
        proc = subprocess.run([sys.executable, "-m", "exactdp.cli", *argv], cwd=cwd,
                              check=False, capture_output=True, text=True,
                              timeout=BOUND_SECONDS,
                              env={**os.environ, "PYTHONWARNINGS": "ignore"})
    except subprocess.TimeoutExpired:
        pytest.fail(f"hang: exactdp {' '.join(argv)}")
    return proc.returncode, proc.stdout, proc.stderr


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(argv=audit_argv())
def test_fuzz_audit(argv: list[str], workdir: Path) -> None:
    rc, out, err = run_subprocess(argv, workdir)
    assert "Traceback" not in err, (argv, err)
    assert rc in STATUSES, (argv, rc, err)
    if rc == 2:
        assert out == "", (argv, out)


# --------------------------------------------------------------------------- slow variants

@pytest.mark.slow
@SLOW
@given(argv=counting_argv(), out=st.integers(0, 4))
def test_fuzz_counting_many(argv: list[str], out: int, capsys: pytest.CaptureFixture[str],
                            workdir: Path) -> None:
    check_run(_with_output(argv, workdir, out), capsys, workdir)


@pytest.mark.slow
@SLOW
@given(argv=histogram_argv(), content=data_file())
def test_fuzz_histogram_many(argv: list[str], content: bytes,
                             capsys: pytest.CaptureFixture[str], workdir: Path) -> None:
    f = workdir.parent / f"{workdir.name}-data.txt"
    f.write_bytes(content)
    check_run([*argv, str(f)], capsys, workdir)
