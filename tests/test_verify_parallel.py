"""``exactdp verify --workers N`` / ``--dask ADDRESS`` / ``--results`` / ``--resume``.

The parallel table must be the serial one (the rows are the checks' own exact strings, so this
is a string equality once the seconds column is set aside); a worker that dies on a claim never
yields a pass; a resumed run reruns nothing it may reuse and everything it may not.  Planted
proof packages (written to ``tmp_path``, imported by name in the spawned workers) supply
claims that pass, fail, kill their worker or hang, in well under a second each.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import io
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactdp import proofs
from exactdp import workers as wk
from exactdp.cli import main
from exactdp.cli import verify_parallel as par
from tests._cli import one_line_error, run

REPO = Path(__file__).resolve().parent.parent
_PACKAGES = itertools.count()  # a fresh package name per plant (modules stay in sys.modules)

CHECK = """
from exactdp.certificate import Certificate, ClaimReport
CLAIM = {claim!r}

def check(full):
    {body}
    return ClaimReport(claim=CLAIM, grid="planted", worst="w", bound="b", certificates=[
        Certificate(claim=CLAIM, mechanism="m", parameters={{}}, domain="d", worst=None,
                    bound="b", verdict={verdict})])
"""


def _package(tmp: Path, name: str, modules: dict[str, tuple[str, bool]]) -> list[str]:
    """Write package ``name`` under ``tmp``: module -> (first statement of check, verdict)."""
    pkg = tmp / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for module, (body, verdict) in modules.items():
        (pkg / f"{module}.py").write_text(CHECK.format(claim=f"planted {module}", body=body,
                                                       verdict=verdict))
    return [f"{name}.{m}" for m in modules]


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """``planted(modules)``: make ``exactdp verify`` see only these planted modules."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), str(REPO)]))

    def plant(modules: dict[str, tuple[str, bool]]) -> list[ModuleType]:
        names = _package(tmp_path, f"planted_verify_{next(_PACKAGES)}", modules)
        loaded = [importlib.import_module(n) for n in names]
        monkeypatch.setattr(proofs, "discover", lambda: loaded)
        return loaded

    return plant


def _log(tmp: Path, tag: str) -> str:
    """A statement appending ``tag`` to tmp/calls.log (to count runs across processes)."""
    return f"open({str(tmp / 'calls.log')!r}, 'a').write({tag + chr(10)!r})"


def _calls(tmp: Path) -> list[str]:
    path = tmp / "calls.log"
    return path.read_text().split() if path.exists() else []


def _no_seconds(table: str) -> str:
    """The table with each row's seconds column blanked (the only column that may differ)."""
    return re.sub(r"^(pass|FAIL|NOT RUN) +\d+\.\d", r"\1 -", table, flags=re.MULTILINE)


def _json_no_seconds(out: str) -> dict[str, object]:
    payload = json.loads(out)
    for row in payload["claims"]:
        del row["seconds"]
    return payload


# --- the merged table is the serial one ---------------------------------------------------

SUBSET = "sources"  # Lemma 2.13: one module whose CHECKS are three units, about a second


@pytest.fixture(scope="module")
def serial() -> dict[str, str]:
    """The serial ``verify --only SUBSET``: its table and its JSON (run once for the module)."""
    outputs = {}
    for kind, extra in (("table", []), ("json", ["--json"])):
        with contextlib.redirect_stdout(io.StringIO()) as out, \
                contextlib.redirect_stderr(io.StringIO()):
            assert main(["verify", "--only", SUBSET, *extra]) == 0
        outputs[kind] = out.getvalue()
    assert outputs["table"].count("\npass ") == 3, outputs["table"]
    return outputs


def test_workers_table_and_json_equal_serial(serial: dict[str, str],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    rc, table, err = run(capsys, "verify", "--only", SUBSET, "--workers", "2")
    assert rc == 0 and "on 2 worker process(es)" in err and "[3/3]" in err
    assert _no_seconds(table) == _no_seconds(serial["table"])
    rc, out, _ = run(capsys, "verify", "--only", SUBSET, "--json", "--workers", "3")
    assert rc == 0 and _json_no_seconds(out) == _json_no_seconds(serial["json"])


def test_dask_local_cluster_equals_serial(serial: dict[str, str],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    distributed = pytest.importorskip("distributed")
    for _ in range(2):  # once more if a source file changed under the run (a shared tree)
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster:
            rc, out, err = run(capsys, "verify", "--only", SUBSET, "--dask",
                               cluster.scheduler_address)
        if "the worker runs other code" not in out:
            break
    assert rc == 0 and "on the Dask scheduler" in err, out + err
    assert _no_seconds(out) == _no_seconds(serial["table"])


@pytest.mark.slow
@pytest.mark.parametrize("grid", ["--quick", "--full"])
def test_whole_grid_serial_workers_dask(capsys: pytest.CaptureFixture[str], grid: str) -> None:
    """Every claim: serial, 2 workers and a 2-worker LocalCluster give the same table."""
    distributed = pytest.importorskip("distributed")
    _, serial, _ = run(capsys, "verify", grid)
    _, pooled, _ = run(capsys, "verify", grid, "--workers", "2")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        _, dasked, _ = run(capsys, "verify", grid, "--dask", cluster.scheduler_address)
    assert _no_seconds(pooled) == _no_seconds(serial) == _no_seconds(dasked)


# --- a dying worker never yields a pass ---------------------------------------------------

KILL = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"


def test_killed_worker_is_not_run_and_fails_the_run(
        planted, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    planted({"a_ok": (_log(tmp_path, "a"), True),
             "b_kill": (_log(tmp_path, "b") + "; " + KILL, True),
             "c_ok": (_log(tmp_path, "c"), True)})
    rc, out, err = run(capsys, "verify", "--workers", "2")
    assert rc == 1
    rows = {line.split("  ")[-1].strip(): line.split()[0] for line in out.splitlines()
            if line.startswith(("pass", "FAIL", "NOT RUN"))}
    assert rows == {"planted a_ok": "pass", "planted b_kill [check]": "NOT",
                    "planted c_ok": "pass"}
    assert "1 claim(s) NOT RUN" in out and "all 3 claims pass" not in out
    assert "worker died (exit code -9) on planted b_kill [check]; retrying it once" in err
    assert sorted(_calls(tmp_path)) == ["a", "b", "b", "c"]  # retried exactly once


def test_worker_dying_once_is_retried(
        planted, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "died-once"
    planted({"a_flaky": ((f"import pathlib; m = pathlib.Path({str(marker)!r})\n"
                         f"    if not m.exists(): m.touch(); {KILL}"), True)})
    rc, out, err = run(capsys, "verify", "--workers", "1")
    assert rc == 0 and "retrying it once" in err and "all 1 claims pass" in out


def test_dask_killed_worker_is_not_run(
        planted, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    distributed = pytest.importorskip("distributed")
    import dask

    planted({"a_ok": ("pass", True), "b_kill": (KILL, True)})
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                     dashboard_address=None) as cluster:
        rc, out, _ = run(capsys, "verify", "--dask", cluster.scheduler_address)
    assert rc == 1 and "KilledWorker" in out
    assert re.search(r"^NOT RUN +\d+\.\d  planted b_kill \[check\]$", out, flags=re.MULTILINE)
    # a_ok may share the dying worker (Dask queues several tasks on one): then it is not run
    assert re.search(r"^(pass .*planted a_ok|NOT RUN .*planted a_ok \[check\])$", out,
                     flags=re.MULTILINE)


def test_ctrl_c_stops_the_workers(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the process group) during ``exactdp verify --workers 2`` with both
    workers inside a claim: status 130, one line, no traceback, and both workers gone."""
    names = _package(tmp_path, "planted_hang", {
        f"h{i}": ((f"import os, time; open({str(tmp_path / f'pid{i}')!r}, 'w')"
                  f".write(str(os.getpid())); time.sleep(600)"), True) for i in (1, 2)})
    script = textwrap.dedent(f"""
        import importlib, sys
        from exactdp import proofs
        from exactdp.cli import main
        loaded = [importlib.import_module(n) for n in {names!r}]
        proofs.discover = lambda: loaded
        sys.exit(main(["verify", "--workers", "2"]))
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(REPO)]))
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    pidfiles = [tmp_path / "pid1", tmp_path / "pid2"]
    deadline = time.monotonic() + 120
    while not all(p.exists() and p.read_text() for p in pidfiles):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.2)
    pids = [int(p.read_text()) for p in pidfiles]
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C at a terminal: the whole process group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


# --- results file and resume ----------------------------------------------------------------

def test_results_and_resume(planted, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    planted({"a_ok": (_log(tmp_path, "a"), True), "b_fail": (_log(tmp_path, "b"), False)})
    results = tmp_path / "r.jsonl"
    rc, first, _ = run(capsys, "verify", "--workers", "2", "--results", str(results))
    assert rc == 1 and "1 claim(s) FAILED: planted b_fail" in first
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert sorted(r["row"]["verdict"] for r in records) == ["FAIL", "pass"]
    assert {r["code"] for r in records} == {par.code_hash()}
    assert sorted(_calls(tmp_path)) == ["a", "b"]

    # A line cut short by a crash is ignored, and the next record starts on a new line.
    with results.open("a") as f:
        f.write('{"module": "planted_verify_0.a_ok", "ind')
    rc, resumed, err = run(capsys, "verify", "--results", str(results), "--resume")
    assert rc == 1 and _no_seconds(resumed) == _no_seconds(first)
    assert "2 reused" in err and "1 line(s) not reused: unreadable" in err
    assert sorted(_calls(tmp_path)) == ["a", "b"]  # nothing ran again

    # A row recorded as NOT RUN is run again (only passes and failures are reused); its
    # digest is recomputed here, as a forger would, so that only the verdict is judged.
    lines = []
    for line in results.read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record["module"].endswith(".a_ok"):
            record["row"]["verdict"] = "NOT RUN"
            record["digest"] = par.digest(record)
        lines.append(json.dumps(record))
    results.write_text("\n".join(lines) + "\n")
    rc, _, err = run(capsys, "verify", "--results", str(results), "--resume")
    assert rc == 1 and "1 reused" in err and sorted(_calls(tmp_path)) == ["a", "a", "b"]
    assert "1 line(s) not reused: record a claim that was not run" in err
    last = json.loads(results.read_text().splitlines()[-1])
    assert last["module"].endswith(".a_ok") and last["row"]["verdict"] == "pass"


def test_resume_reruns_on_other_code(planted, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    planted({"a_ok": (_log(tmp_path, "a"), True)})
    results = tmp_path / "r.jsonl"
    assert run(capsys, "verify", "--results", str(results))[0] == 0
    monkeypatch.setattr(par, "code_hash", lambda: "0" * 64)  # as if exactdp/ were edited
    rc, _, err = run(capsys, "verify", "--results", str(results), "--resume")
    assert rc == 0 and "1 line(s) not reused: recorded for other code" in err
    assert _calls(tmp_path) == ["a", "a"]
    rc, _, err = run(capsys, "verify", "--results", str(results), "--resume", "--quick")
    assert rc == 0 and "1 reused" in err and _calls(tmp_path) == ["a", "a"]
    # another grid is another result: --full reruns it
    assert run(capsys, "verify", "--results", str(results), "--resume", "--full")[0] == 0
    assert _calls(tmp_path) == ["a", "a", "a"]


def test_code_hash_covers_sources(tmp_path: Path) -> None:
    """The hash changes with any byte, name or place of a source file (so no edit can reuse a
    verdict), and not with other files; code_hash is the hash of exactdp/ and proofs/."""
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "a.py").write_bytes(b"x = 1\n")
    (root / "sub" / "b.c").write_bytes(b"int y;\n")
    roots = (("pkg", root),)
    h = par.tree_hash(roots)
    expected = hashlib.sha256(b"pkg/a.py\0x = 1\n\0pkg/sub/b.c\0int y;\n\0").hexdigest()
    assert h == expected
    (root / "notes.txt").write_text("not code")
    assert par.tree_hash(roots) == h
    (root / "a.py").write_bytes(b"x = 2\n")
    assert par.tree_hash(roots) != h
    import exactdp

    assert par.code_hash() == par.tree_hash(
        (("exactdp", Path(exactdp.__file__).parent), ("proofs", Path(proofs.__file__).parent)))
    installed = tmp_path / "site" / "exactdp"
    assert wk.code_roots(installed, installed / "proofs") == (("exactdp", installed),)


# --- usage errors ---------------------------------------------------------------------------

@pytest.mark.parametrize(("argv", "words"), [
    (["--workers", "0"], ["--workers", "positive integer"]),
    (["--workers", "1.5"], ["--workers"]),
    (["--resume"], ["--resume", "--results"]),
])
def test_usage_errors(capsys: pytest.CaptureFixture[str], argv: list[str],
                      words: list[str]) -> None:
    rc, out, err = run(capsys, "verify", "--only", SUBSET, *argv)
    assert rc == 2 and out == ""
    one_line_error(err, *words)


def test_existing_results_without_resume(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "r.jsonl"
    results.write_text("")
    rc, _, err = run(capsys, "verify", "--only", SUBSET, "--results", str(results))
    assert rc == 2
    one_line_error(err, str(results), "exists", "--resume")
    rc, _, err = run(capsys, "verify", "--only", SUBSET, "--results",
                     str(tmp_path / "no" / "r.jsonl"))
    assert rc == 2
    one_line_error(err, "does not exist")


def test_dask_missing_names_the_extra(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    rc, out, err = run(capsys, "verify", "--only", SUBSET, "--dask", "tcp://127.0.0.1:1")
    assert rc == 2 and out == ""
    one_line_error(err, "--dask", "exactdp[scale]")


def test_workers_and_dask_exclusive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        run(capsys, "verify", "--workers", "2", "--dask", "tcp://127.0.0.1:1")
    assert exc.value.code == 2


def test_dask_worker_with_other_code_is_not_run(
        planted, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A cluster worker running another version of exactdp (another code hash) passes nothing."""
    distributed = pytest.importorskip("distributed")
    planted({"a_ok": ("pass", True)})
    monkeypatch.setattr(wk, "_worker_code", lambda: "f" * 64)  # threads share this module
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        rc, out, _ = run(capsys, "verify", "--dask", cluster.scheduler_address)
    assert rc == 1 and "the worker runs other code (hash ffffffffffff" in out
    assert re.search(r"^NOT RUN +\d+\.\d  planted a_ok \[check\]$", out, flags=re.MULTILINE)


@given(st.integers(min_value=0, max_value=10**13), st.integers(min_value=1, max_value=9))
def test_seconds_text_is_decimal_half_up(ns: int, places: int) -> None:
    exact = (Decimal(ns) / Decimal(10**9)).quantize(Decimal(1).scaleb(-places),
                                                    rounding=ROUND_HALF_UP)
    assert par.seconds_text(ns, places) == f"{exact:.{places}f}"


# --- a results line is reused only when it is internally consistent -------------------------

def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _rewrite(path: Path, records: list[object], *, redigest: bool) -> None:
    lines = []
    for r in records:
        if redigest and isinstance(r, dict):
            r["digest"] = par.digest(r)
        lines.append(json.dumps(r))
    path.write_text("\n".join(lines) + "\n")


def _tamper_fail_as_pass(r: dict) -> None:
    r["row"]["verdict"] = "pass"  # its certificate still says FAIL


def _tamper_claim(r: dict) -> None:
    r["claim"] = "Theorem 99 (forged)"
    r["row"]["claim"] = "Theorem 99 (forged)"


def _tamper_grid(r: dict) -> None:
    r["grid"] = "full"


def _tamper_module(r: dict) -> None:
    r["module"] = r["module"] + "_gone"


@pytest.mark.parametrize(("tamper", "redigest", "why"), [
    (_tamper_fail_as_pass, False, "digest does not match"),
    (_tamper_fail_as_pass, True, "verdict does not follow from its certificates"),
    (_tamper_claim, True, "name no check that exists"),
    (_tamper_module, True, "name no check that exists"),
])
def test_a_tampered_failure_is_never_reused_as_a_pass(
        planted, tmp_path: Path, capsys: pytest.CaptureFixture[str], tamper, redigest: bool,
        why: str) -> None:
    planted({"b_fail": (_log(tmp_path, "b"), False)})
    results = tmp_path / "r.jsonl"
    assert run(capsys, "verify", "--results", str(results))[0] == 1
    records = _records(results)
    tamper(records[0])
    _rewrite(results, records, redigest=redigest)
    rc, out, err = run(capsys, "verify", "--results", str(results), "--resume")
    assert rc == 1 and "all 1 claims pass" not in out and "Theorem 99" not in out
    assert f"1 line(s) not reused: {why}" in err and "0 reused" in err
    assert _calls(tmp_path) == ["b", "b"]  # it ran again


def test_a_quick_line_edited_to_full_is_not_reused_for_full(
        planted, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    planted({"a_ok": (_log(tmp_path, "a"), True)})
    results = tmp_path / "r.jsonl"
    assert run(capsys, "verify", "--results", str(results))[0] == 0
    records = _records(results)
    _tamper_grid(records[0])
    _rewrite(results, records, redigest=False)
    rc, _, err = run(capsys, "verify", "--full", "--results", str(results), "--resume")
    assert rc == 0 and "1 line(s) not reused: digest does not match" in err
    assert _calls(tmp_path) == ["a", "a"]


@pytest.mark.parametrize("line", [
    '{"verdict": "pass"}', '{"row": {"verdict": "pass"}}', "[]", "7", "null", '"pass"',
    '{"module": 1, "index": "0", "check": [], "row": null}', "{" * 5000, "\x00",
])
def test_malformed_lines_are_rerun_never_a_crash(
        planted, tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str) -> None:
    planted({"a_ok": (_log(tmp_path, "a"), True)})
    results = tmp_path / "r.jsonl"
    results.write_text(line + "\n")
    rc, _, err = run(capsys, "verify", "--results", str(results), "--resume")
    assert rc == 0 and "0 reused" in err and "line(s) not reused" in err
    assert _calls(tmp_path) == ["a"]


def test_judge_reuses_only_consistent_records() -> None:
    unit = par.Unit("proofs.m", 0, "check", "Lemma 1")
    units = {unit.key: unit}
    cert = {"verdict": "pass"}
    row = {"claim": "Lemma 1 (part)", "grid": "g", "worst": "w", "bound": "b",
           "verdict": "pass", "certificates": [cert]}
    good = {"module": "proofs.m", "index": 0, "check": "check", "claim": "Lemma 1",
            "grid": "quick", "code": "c", "commit": None, "ns": 5, "row": row}
    good["digest"] = par.digest(good)
    assert par.judge(good, units, "quick", "c") is None
    assert par.judge(good, units, "full", "c") == "grid"
    assert par.judge(good, units, "quick", "other") == "code"
    for change, why in [({"ns": -1}, "fields"), ({"index": True}, "fields"),
                        ({"digest": "0" * 64}, "digest")]:
        assert par.judge({**good, **change}, units, "quick", "c") == why
    empty = json.loads(json.dumps(good))
    empty["row"]["certificates"] = []  # a check that covered nothing proves nothing
    empty["digest"] = par.digest(empty)
    assert par.judge(empty, units, "quick", "c") == "verdict"
    assert par.recomputed_verdict(row) == "pass"
    assert par.recomputed_verdict({**row, "certificates": [cert, {"verdict": "FAIL"}]}) == "FAIL"
    assert par.recomputed_verdict({**row, "certificates": [{"verdict": "maybe"}]}) is None


def test_results_on_a_full_disk_is_one_line(
        planted, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    planted({"a_ok": (_log(tmp_path, "a"), True)})

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    rc, out, err = run(capsys, "verify", "--results", str(tmp_path / "r.jsonl"))
    assert rc == 2 and out == ""
    assert "No space left on device" in err.splitlines()[-1] and "--resume" in err
