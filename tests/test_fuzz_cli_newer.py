"""Fuzzing the newer commands (project, convolve, sparse-vector, check, plot, figures,
tutorial, verify --results/--resume) and write failures of standard output.

The oracle of :mod:`tests.test_fuzz_cli`: every run ends with an exit status of the table
(0, 1, 2, 3, 130 -- never 4), prints no traceback, keeps every stderr line short (a long
value is cut), prints nothing on stdout and writes no file on status 2, and finishes within a
bound.  Runs are in-process (cheap); the default run draws a small sample of cases, ``-m
slow`` a few hundred per command.
"""

from __future__ import annotations

import io
import json
import struct
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactdp.cli import main
from exactdp.cli._common import LINE_CAP
from tests.test_fuzz_cli import BOUND_SECONDS, Hang, bounded

STATUSES = {0, 1, 2, 3, 130}
FAST = settings(max_examples=25, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])
SLOW = settings(max_examples=300, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

EPS = ["1", "1/2", "0", "-1", "1e10000", "1e-10000", "1001", "1000", "1e-100", "nan", "abc",
       "", "9" * 3000, "1/0", "0.5", "２", "inf"]
INTS = ["0", "1", "2", "3", "4", "-1", "--5", "1.5", "x", "", "100000000", "9" * 400, "٣"]


def check_run(argv: list[str], capsys: pytest.CaptureFixture[str], workdir: Path,
              stdout: object = None) -> int:
    before = {p.name for p in workdir.iterdir()}
    real = sys.stdout
    try:
        if stdout is not None:
            sys.stdout = stdout  # type: ignore[assignment]
        with bounded(BOUND_SECONDS):
            rc = main(argv)
    except SystemExit as exc:  # argparse: usage errors are 2, --help is 0
        rc = int(exc.code or 0)
    except Hang:
        pytest.fail(f"hang: exactdp {' '.join(argv)[:300]}")
    finally:
        sys.stdout = real
    out, err = capsys.readouterr()
    assert "Traceback" not in err, (argv, err)
    assert rc in STATUSES, (argv, rc, err[-500:])
    assert all(len(line) <= LINE_CAP + 100 for line in err.splitlines()), (argv, err[:300])
    if rc == 2 and stdout is None:
        assert out == "", (argv, out[:300])
        assert {p.name for p in workdir.iterdir()} == before, (argv, "wrote on status 2")
    return rc


@pytest.fixture
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def option(name: str, pool: list[str]) -> st.SearchStrategy[list[str]]:
    return st.one_of(st.just([]), st.sampled_from(pool).map(lambda v: [f"{name}={v}"]),
                     st.text(max_size=6).map(lambda v: [f"{name}={v}"]))


# --------------------------------------------------------------------------- inputs

CSV = [b"1,2,3,4\n0,1,1,1\n", b"nan,nan,nan,nan\n1,2,3,4\n", b"a,b,c,d\n1,2,3,4\n",
       b"1,2\n1,2,3\n", b"", b"#\n", b"1.5,2,3,4\n", b"\xff\xfe\n", b"1e3,1,1,1\n",
       b"9" * 200 + b",1\n", b"id,1,2,3\n4,5,6,7\n", b"-5,5,-5,5\n", b"1;2;3;4\n",
       b"inf,1,1,1\n", b"1,2,3,4"]


def npy(header: str, body: bytes = b"") -> bytes:
    raw = header.encode("latin-1")
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(raw)) + raw + body


NPY = [npy("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", b"\x01" * 16),
       npy("{'descr': '<i8', 'fortran_order': False, 'shape': (" + "9" * 5000 + ",), }"),
       npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", b"\x00" * 16),
       npy("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", b"\x00" * 16),
       npy("[1, 2]"), npy("{'descr': '<i8'"), b"\x93NUMPY\x09\x00", b"\x93NUMPY\x01\x00\xff\xff"]


@st.composite
def project_argv(draw: st.DrawFn, data: Path) -> list[str]:
    kind = draw(st.sampled_from(["signs", "values"]))
    argv = ["project", kind, str(data)]
    for name, pool in [("--k", INTS), ("--epsilon", EPS), ("--beta", INTS),
                       ("--bound", INTS), ("--plan-seed", INTS), ("--seed", INTS),
                       ("--max-denominator", INTS)]:
        argv += draw(st.one_of(st.just([name, "2" if name != "--epsilon" else "1"]),
                               option(name, pool)))
    argv += draw(st.sampled_from([[], ["--json"], ["--header"], ["--method=rp-rr"],
                                  ["--method=raw"], ["--repetitions=2"], ["--l-max=-1"]]))
    return argv


@st.composite
def convolve_argv(draw: st.DrawFn, data: Path) -> list[str]:
    command = draw(st.sampled_from([["convolve"], ["check", "convolution"]]))
    argv = [*command]
    argv += ["--group", draw(st.sampled_from(["xor", "cyclic", "nope"]))]
    argv += ["--filter", draw(st.sampled_from(["1,1,0,0", "1,0,0", "0,0,0,0", "1/2,x,0,0",
                                               "", "1e10000,0,0,0", "@/nonexistent",
                                               ",".join(["1"] * 8)]))]
    argv += ["--domain", draw(st.sampled_from(["histograms:n=4", "box:m=2", "histograms:n=0",
                                               "histograms:n=-1", "x", "box:m=10**9",
                                               "histograms:n=" + "9" * 400]))]
    for name, pool in [("--epsilon", EPS), ("--delta", ["1/1000", "0", "1", "2", "x", "1e-9999"]),
                       ("--scale", INTS), ("--max-seconds", ["1", "0", "x", "5"])]:
        argv += draw(option(name, pool))
    if command == ["convolve"]:
        argv += draw(st.sampled_from([[], ["--json"], ["--seed", "1"], ["--seed", "--1"]]))
        argv.append(str(data))
    return argv


@st.composite
def sparse_argv(draw: st.DrawFn, data: Path, workdir: Path) -> list[str]:
    if draw(st.booleans()):
        argv = ["sparse-vector", "project", str(data), "--output", str(workdir / "s.json")]
        for name, pool in [("--epsilon", EPS), ("--alpha", INTS), ("--beta", INTS),
                           ("--rows", INTS), ("--sparsity", INTS),
                           ("--universe-size", INTS + ["2^64", "2^100000"])]:
            argv += draw(st.one_of(st.just([name, "4" if name != "--epsilon" else "1"]),
                                   option(name, pool)))
        return argv
    return ["sparse-vector", "query", str(data),
            *draw(st.lists(st.sampled_from(["1", "0", "-1", "x", "9" * 500, ""]), min_size=1,
                           max_size=3))]


@st.composite
def check_argv(draw: st.DrawFn) -> list[str]:
    which = draw(st.sampled_from(["alp", "sign-oporp", "geosample"]))
    argv = ["check", which]
    pools = {"alp": [("--epsilon", EPS), ("--alpha", INTS), ("--rows", INTS),
                     ("--universe-size", INTS), ("--sparsity", INTS)],
             "sign-oporp": [("--epsilon", EPS), ("--rho", ["3/2", "1", "0", "x", "2"]),
                            ("--p", INTS), ("--k", INTS), ("--beta", INTS), ("--bound", INTS)],
             "geosample": [("--n", INTS), ("--epsilon", EPS)]}[which]
    for name, pool in pools:
        argv += draw(st.one_of(st.just([name, "1" if name not in ("--rho",) else "3/2"]),
                               option(name, pool)))
    return argv + draw(st.sampled_from([[], ["--json"]]))


@st.composite
def plot_argv(draw: st.DrawFn, workdir: Path) -> list[str]:
    picture = draw(st.sampled_from(["loss", "pmf", "accuracy", "nope"]))
    argv = ["plot", picture, draw(st.sampled_from(["geosample", "fastsample", "zprime", "x"]))]
    for name, pool in [("--n", INTS), ("--epsilon", EPS), ("--claimed-epsilon", EPS),
                       ("--gamma", EPS), ("--max-seconds", ["0", "1", "x"])]:
        argv += draw(option(name, pool))
    target = draw(st.sampled_from(["x.txt", "x.png", "", "no/dir.png", "."]))
    return [*argv, "--output", str(workdir / target) if target else ""]


@st.composite
def misc_argv(draw: st.DrawFn, workdir: Path) -> list[str]:
    return draw(st.sampled_from([
        ["figures", "--paper", "999", "--output", str(workdir / "f")],
        ["figures", "--paper", "004", "--output", ""],
        ["figures", "--output", str(workdir / "f")],
        ["tutorial"], ["tutorial", "no-such-tutorial"], ["tutorial", "../../etc/passwd"],
        ["tutorial", "--run"], ["tutorial", "--path"], ["tutorial", "x" * 5000],
        ["tutorial", "notebook", "--output", str(workdir)],
        ["verify", "--only", "lemma_3_02", "--workers", "0"],
        ["verify", "--only", "lemma_3_02", "--workers", "99999"],
        ["verify", "--only", "lemma_3_02", "--resume"],
        ["verify", "--only", "no-such", "--results", str(workdir / "r.jsonl")],
        ["verify", "--only", "lemma_3_02", "--results", str(workdir / "no" / "r.jsonl")],
    ]))


def _write(workdir: Path, name: str, content: bytes) -> Path:
    inputs = workdir.parent / f"{workdir.name}-in"
    inputs.mkdir(exist_ok=True)
    f = inputs / name
    f.write_bytes(content)
    return f


# --------------------------------------------------------------------------- the tests

def _project(data: st.DataObject, capsys: pytest.CaptureFixture[str], workdir: Path) -> None:
    content = data.draw(st.sampled_from(CSV + NPY) | st.binary(max_size=40))
    name = data.draw(st.sampled_from(["v.csv", "v.npy"]))
    f = _write(workdir, name, content)
    check_run(data.draw(project_argv(f)), capsys, workdir)


@FAST
@given(data=st.data())
def test_fuzz_project(data: st.DataObject, capsys: pytest.CaptureFixture[str],
                      workdir: Path) -> None:
    _project(data, capsys, workdir)


def _convolve(data: st.DataObject, capsys: pytest.CaptureFixture[str], workdir: Path) -> None:
    content = data.draw(st.sampled_from([b"0\n1\n2\n1\n", b"0\n1\n", b"-1\n0\n0\n0\n",
                                         b"x\n", b"", b"1/2\n0\n0\n0\n", b"9" * 300 + b"\n"]))
    f = _write(workdir, "x.txt", content)
    check_run(data.draw(convolve_argv(f)), capsys, workdir)


@FAST
@given(data=st.data())
def test_fuzz_convolve(data: st.DataObject, capsys: pytest.CaptureFixture[str],
                       workdir: Path) -> None:
    _convolve(data, capsys, workdir)


def _sparse(data: st.DataObject, capsys: pytest.CaptureFixture[str], workdir: Path) -> None:
    content = data.draw(st.sampled_from([b"1,5\n3,2\n", b"key,value\n1,1\n", b"1,-1\n",
                                         b"0,1\n", b"{}", b'{"format": 1}', b"", b"\x00",
                                         b"1,nan\n", b"99999999999999999999,1\n"]))
    f = _write(workdir, "v.csv", content)
    check_run(data.draw(sparse_argv(f, workdir)), capsys, workdir)


@FAST
@given(data=st.data())
def test_fuzz_sparse_vector(data: st.DataObject, capsys: pytest.CaptureFixture[str],
                            workdir: Path) -> None:
    _sparse(data, capsys, workdir)


@FAST
@given(argv=check_argv())
def test_fuzz_check(argv: list[str], capsys: pytest.CaptureFixture[str],
                    workdir: Path) -> None:
    check_run(argv, capsys, workdir)


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_plot_figures_tutorial_verify(data: st.DataObject,
                                           capsys: pytest.CaptureFixture[str],
                                           workdir: Path) -> None:
    argv = data.draw(st.one_of(plot_argv(workdir), misc_argv(workdir)))
    check_run(argv, capsys, workdir)


# --------------------------------------------------------------------------- resume

@pytest.fixture(scope="module")
def results_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("results")
    f = d / "r.jsonl"
    assert main(["verify", "--only", "lemma_3_02", "--results", str(f)]) == 0
    return f


def _tamper(record: dict, how: str, value: object) -> object:
    if how == "replace-field":
        field = sorted(record)[hash(str(value)) % len(record)]
        return {**record, field: value}
    if how == "drop-field":
        field = sorted(record)[hash(str(value)) % len(record)]
        return {k: v for k, v in record.items() if k != field}
    if how == "verdict":
        row = dict(record["row"], verdict=value)
        return {**record, "row": row}
    return value


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(how=st.sampled_from(["replace-field", "drop-field", "verdict", "whole"]),
       value=st.sampled_from(["pass", "FAIL", "full", None, 0, -1, [], {}, "x" * 300,
                              {"verdict": "pass"}]))
def test_fuzz_resume_never_reuses_a_tampered_line(
        how: str, value: object, results_file: Path, capsys: pytest.CaptureFixture[str],
        workdir: Path) -> None:
    lines = results_file.read_text().splitlines()
    first = json.loads(lines[0])
    tampered = _tamper(first, how, value)
    f = workdir / "r.jsonl"
    f.write_text(json.dumps(tampered) + "\n" + "\n".join(lines[1:]) + "\n")
    rc = check_run(["verify", "--only", "lemma_3_02", "--results", str(f), "--resume"],
                   capsys, workdir)
    assert rc == 0  # the claim ran again and passes
    if tampered != first:
        rerun = [json.loads(line) for line in f.read_text().splitlines()[len(lines):]]
        assert [r["module"] for r in rerun] == [first["module"]]


# --------------------------------------------------------------------------- write failures

class _Failing(io.StringIO):
    def __init__(self, exc: BaseException) -> None:
        super().__init__()
        self.exc = exc

    def write(self, s: str) -> int:
        raise self.exc


WRITE_FAILURES = [OSError(28, "No space left on device"), OSError(5, "Input/output error"),
                  ValueError("I/O operation on closed file.")]


@pytest.mark.parametrize("exc", WRITE_FAILURES, ids=["ENOSPC", "EIO", "closed"])
@pytest.mark.parametrize("argv", [
    ["sample", "geosample", "--n", "8", "--epsilon", "1/2", "--count", "3", "--json"],
    ["check", "geosample", "--n", "4", "--epsilon", "1/4"],
    ["project", "signs", "{csv}", "--k", "2", "--epsilon", "1", "--beta", "1", "--bound", "4"],
    ["convolve", "--group", "xor", "--filter", "1,1,0,0", "--domain", "histograms:n=4",
     "--epsilon", "1", "--delta", "1/1000", "--json", "{x}"],
    ["tutorial"],
])
def test_stdout_write_failures_are_one_line(argv: list[str], exc: BaseException,
                                            capsys: pytest.CaptureFixture[str],
                                            workdir: Path) -> None:
    csv = _write(workdir, "v.csv", CSV[0])
    x = _write(workdir, "x.txt", b"0\n1\n2\n1\n")
    argv = [a.format(csv=csv, x=x) for a in argv]
    stream = _Failing(exc)
    if isinstance(exc, ValueError):
        stream.close()
    rc = check_run(argv, capsys, workdir, stdout=stream)
    err = capsys.readouterr().err
    del err
    assert rc in (1, 2)


# --------------------------------------------------------------------------- slow sweep

@pytest.mark.slow
@SLOW
@given(data=st.data(), which=st.sampled_from(["project", "convolve", "sparse"]))
def test_fuzz_newer_many(data: st.DataObject, which: str, capsys: pytest.CaptureFixture[str],
                         workdir: Path) -> None:
    {"project": _project, "convolve": _convolve, "sparse": _sparse}[which](data, capsys,
                                                                          workdir)


@pytest.mark.slow
@SLOW
@given(argv=check_argv())
def test_fuzz_check_many(argv: list[str], capsys: pytest.CaptureFixture[str],
                         workdir: Path) -> None:
    check_run(argv, capsys, workdir)
