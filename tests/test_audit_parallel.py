"""``exactdp audit --kind whitebox --workers N`` / ``--dask ADDRESS``.

The parallel report must be the serial one (the same JSON once the timing and the command line
are set aside: the distributions are exact Fractions computed by the same per-input code); a
worker that dies on an input never yields a pass (the verdict is INCOMPLETE, status 2); a
failure of the mechanism on a worker is reported as the serial audit reports it.  Planted
targets are written to ``tmp_path`` (imported by name in the spawned workers).
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from exactdp.audit import parallel
from tests._cli import one_line_error, run

REPO = Path(__file__).resolve().parent.parent

PLANTED = textwrap.dedent("""
    import math
    import os
    import random

    P = math.exp(1) / (1 + math.exp(1))

    def uniform4(c, source):
        # the same distribution on every input: passes any claim
        return source.uniform(4) - 1

    def dies_on_3(c, source):
        if c == 3:
            os._exit(7)  # the worker process dies on input 3 only
        return source.uniform(4) - 1

    def dies_once_on_3(c, source):
        marker = os.path.join(os.path.dirname(__file__), "died-once")
        seen = os.path.exists(marker)  # on every input: the same operations (timing)
        if c == 3 and not seen:
            open(marker, "w").close()
            os._exit(7)
        return source.uniform(4) - 1

    def counting_dies_on_2(c, u):
        if c == 2:
            os._exit(7)
        return (u - 1) % 2

    def hangs(c, source):
        # writes its pid (read through multiprocessing: os.getpid() called here would be an
        # escape), then sleeps (for the Ctrl-C test)
        import multiprocessing
        with open(os.path.join(os.path.dirname(__file__), f"pid{c}"), "w") as f:
            f.write(str(multiprocessing.current_process().pid))
        import time
        time.sleep(600)

    def raises_on_2(c, u):
        if c == 2:
            raise ValueError("planted failure on input 2")
        return (u + c) % 2

    def noisy_count(c, source):
        # randomized response on one bit of c, then a uniform shift: a violation of eps = 1/4
        bit = c % 2 if source.bernoulli(3, 4) else 1 - c % 2
        return bit + source.uniform(3) - 1

    def rr(c, rng):
        return c if rng.random() < P else 1 - c

    def rr_module(c, rng):
        return c if random.random() < P else 1 - c
""")


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The module ``planted_audit`` in tmp_path, importable here and in spawned workers."""
    (tmp_path / "planted_audit.py").write_text(PLANTED)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), str(REPO / "tests"),
                                                      str(REPO)]))
    return "planted_audit"


def _report(out: str) -> dict[str, Any]:
    """The JSON report without what may differ between runs: its seconds and the command line
    (in ``environment``)."""
    data = json.loads(out)
    del data["seconds"]
    data["environment"].pop("command")
    return data


CASES = {
    # counting kind, threshold search (d = 703125 > the enumeration limit)
    "counting-threshold": ["exactdp.counting:GeoSample(8, '1/2')", "--claimed-epsilon", "1/2",
                           "--inputs", "0..8"],
    # counting kind, enumeration (d = 1125), a violation
    "counting-enumerated": ["exactdp.counting:GeoSample(4, '1/2')", "--claimed-epsilon",
                            "1/5", "--inputs", "0..4"],
    # source kind over tuples (a neighbour relation), a pass and a violation
    "source-datasets": ["audit_targets.relation_targets:ones_count", "--source", "--inputs",
                        "datasets(0..1, 2, replace-one)", "--outputs", "0..2",
                        "--claimed-epsilon", "1/4"],
    "source-violation": ["{P}:noisy_count", "--source", "--inputs", "0..5", "--outputs",
                         "0..3", "--claimed-epsilon", "1/4"],
    # a random.Random facade (code as shipped, rng.random() explored exactly)
    "facade": ["{P}:rr", "--rng", "random", "--claimed-epsilon", "1", "--inputs", "0..1"],
    # the mechanism raises on one input: BROKEN, with the serial finding
    "broken": ["{P}:raises_on_2", "--randomness-size", "6", "--outputs", "0..1",
               "--claimed-epsilon", "1", "--inputs", "0..4"],
}


def _args(case: str, planted: str) -> list[str]:
    return ["audit", *(a.replace("{P}", planted) for a in CASES[case]), "--kind", "whitebox",
            "--json"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_workers_report_equals_serial(case: str, planted: str,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, *_args(case, planted))
    rc2, out2, err2 = run(capsys, *_args(case, planted), "--workers", "2")
    assert rc == rc2, err2
    assert _report(out) == _report(out2)
    assert "on 2 worker process(es), one job each" in err2
    assert {"counting-threshold": 0, "counting-enumerated": 1, "source-datasets": 0,
            "source-violation": 1, "facade": 1, "broken": 3}[case] == rc


def test_shipped_diffprivlib_target_equals_serial(capsys: pytest.CaptureFixture[str]) -> None:
    """Each worker process builds the target afresh, importing diffprivlib (about 1.5 s of
    processor time) under --time-limit, a wall-clock limit (10 s by default): on a busy
    machine two workers importing at once passed it and the parallel run ended with status
    2 ("the factory did not return within 10 s") instead of the serial report.  The limits
    are not what is compared here: both runs get ample ones (the same), so the comparison
    does not depend on how busy the processors are."""
    pytest.importorskip("diffprivlib")
    args = ["audit", "exactdp.audit.shipped:diffprivlib_randomise('Binary', epsilon=1)",
            "--kind", "whitebox", "--claimed-epsilon", "1", "--inputs", "0..1", "--json",
            "--quiet", "--time-limit", "600", "--max-seconds", "600"]
    rc, out, _ = run(capsys, *args)
    rc2, out2, err2 = run(capsys, *args, "--workers", "2")
    assert rc == rc2 and _report(out) == _report(out2) and err2 == ""


def test_merge_in_completion_order_would_be_caught(planted: str, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The equality above can fail: a planted merge that takes the workers' results in
    another order than the inputs' gives another report."""
    args = _args("source-violation", planted)
    _, serial, _ = run(capsys, *args)
    real = parallel.Spread._run

    def reversed_run(self: parallel.Spread, *a: Any) -> list[Any]:
        return real(self, *a)[::-1]

    monkeypatch.setattr(parallel.Spread, "_run", reversed_run)
    _, out, _ = run(capsys, *args, "--workers", "2")
    assert _report(out) != _report(serial)


def test_max_calls_is_counted_over_all_inputs_as_serially(
        planted: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Each input is explored alone on a worker, but --max-calls bounds the calls of all
    inputs together: the merge replays the serial count and stops at the same input."""
    base = ["audit", f"{planted}:uniform4", "--kind", "whitebox", "--source",
            "--claimed-epsilon", "1/10", "--inputs", "0..5"]
    for limit, expected in (("10", "stopped at input 2"), ("24", None)):
        outputs = [run(capsys, *base, "--max-calls", limit, "--json", *extra)
                   for extra in ([], ["--workers", "2"])]
        assert outputs[0][0] == outputs[1][0]
        if expected is None:
            assert outputs[0][0] == 0  # 6 inputs x 4 paths = 24 calls: just enough
            assert _report(outputs[0][1]) == _report(outputs[1][1])
        else:
            assert outputs[0][1] == outputs[1][1] == ""
            assert outputs[0][0] == outputs[1][0] == 2
            one_line_error(outputs[1][2].splitlines()[-1], "more than 10 calls", expected)
            one_line_error(outputs[0][2].splitlines()[-1], "more than 10 calls", expected)


def test_uncounted_worker_calls_would_be_caught(planted: str, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The comparison above can fail: a planted merge that loses the workers' call counts
    lets the parallel audit pass where the serial one stops at --max-calls."""
    import dataclasses

    real = parallel.Spread._run

    def uncounted(self: parallel.Spread, *a: Any) -> list[Any]:
        return [dataclasses.replace(r, calls=0) for r in real(self, *a)]

    monkeypatch.setattr(parallel.Spread, "_run", uncounted)
    rc, _, _ = run(capsys, "audit", f"{planted}:uniform4", "--kind", "whitebox", "--source",
                   "--claimed-epsilon", "1/10", "--inputs", "0..5", "--max-calls", "10",
                   "--workers", "2", "--quiet")
    assert rc == 0  # serially: 2 (more than 10 calls)


def test_killed_worker_is_incomplete_never_pass(planted: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    base = ["audit", f"{planted}:uniform4", "--kind", "whitebox", "--source",
            "--claimed-epsilon", "1/10", "--inputs", "0..5", "--json"]
    rc, out, _ = run(capsys, *base)
    assert rc == 0 and json.loads(out)["verdict"] == "pass"  # the mechanism itself passes
    killed = [a.replace("uniform4", "dies_on_3") for a in base]
    rc, out, err = run(capsys, *killed, "--workers", "2")
    data = json.loads(out)
    assert rc == 2 and data["verdict"] == "incomplete"
    assert "worker died (exit code 7) on input 3; retrying it once" in err
    assert "input 3: NOT RUN (the worker process died twice, exit code 7)" in err
    finding = data["findings"][0]
    assert "inputs not run by the workers: 3 (the worker process died twice" in \
        finding["message"]
    assert finding["witness"]["covered"] == {"0": "1", "1": "1", "2": "1", "3": "0",
                                             "4": "1", "5": "1"}
    # the text report says so too
    rc, text, _ = run(capsys, *killed[:-1], "--workers", "2", "--quiet")
    assert rc == 2 and "INCOMPLETE" in text.upper() and "PASS" not in text.split("\n")[0]


def test_time_budget_holds_on_workers(planted: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """--time-budget bounds the whole audit with --workers too (each input its share of the
    time, on the wall clock): an unbounded loop ends INCOMPLETE, in time."""
    import time

    (tmp_path / "loop_audit.py").write_text(
        "def loop(c, source):\n    while source.uniform(2) == 2:\n        pass\n    return 0\n")
    start = time.monotonic()
    rc, out, err = run(capsys, "audit", "loop_audit:loop", "--kind", "whitebox", "--source",
                       "--claimed-epsilon", "1", "--inputs", "0..3", "--time-budget", "3",
                       "--json", "--workers", "2")
    assert time.monotonic() - start < 60
    data = json.loads(out)
    assert rc == 2 and data["verdict"] == "incomplete", err
    assert data["findings"][0]["witness"]["stopped_at"] == "--time-budget / time_budget"


def test_killed_worker_counting_kind_is_incomplete(planted: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    args = ["audit", f"{planted}:counting_dies_on_2", "--kind", "whitebox", "--randomness-size",
            "4", "--outputs", "0..1", "--claimed-epsilon", "1/10", "--inputs", "0..4", "--json",
            "--workers", "2"]
    rc, out, err = run(capsys, *args)
    data = json.loads(out)
    assert rc == 2 and data["verdict"] == "incomplete", err
    assert data["method"] == "enumerated all d = 4 values of u"
    assert data["findings"][0]["witness"]["covered"]["2"] == "0"
    assert data["distributions"]["2"] == {}


def test_ctrl_c_stops_the_workers(planted: str, tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the process group) during ``exactdp audit --workers 2`` with both
    workers inside the mechanism: status 130, no traceback, and both workers gone."""
    import signal
    import subprocess
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "exactdp.cli", "audit", f"{planted}:hangs", "--kind", "whitebox",
         "--source", "--claimed-epsilon", "1", "--inputs", "0..1", "--time-limit", "600",
         "--workers", "2"], cwd=tmp_path, env=dict(os.environ), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    pidfiles = [tmp_path / "pid0", tmp_path / "pid1"]
    deadline = time.monotonic() + 120
    while not all(p.exists() and p.read_text() for p in pidfiles):
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.2)
    pids = [int(p.read_text()) for p in pidfiles]
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_worker_dying_once_is_retried(planted: str, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["audit", f"{planted}:uniform4", "--kind", "whitebox", "--source",
            "--claimed-epsilon", "1/10", "--inputs", "0..5", "--json"]
    _, serial, _ = run(capsys, *base)
    flaky = [a.replace("uniform4", "dies_once_on_3") for a in base]
    rc, out, err = run(capsys, *flaky, "--workers", "2")
    assert rc == 0 and "retrying it once" in err
    serial_report, report = _report(serial), _report(out)
    assert report["mechanism"].endswith("dies_once_on_3")
    report["mechanism"] = serial_report["mechanism"]
    assert report == serial_report


def test_dask_local_cluster_equals_serial(planted: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    distributed = pytest.importorskip("distributed")
    serial = {case: run(capsys, *_args(case, planted)) for case in
              ("counting-threshold", "source-violation")}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        for case, (rc, out, _) in serial.items():
            for _ in range(3):  # again if a source file changed under the run (shared tree)
                rc2, out2, err2 = run(capsys, *_args(case, planted), "--dask",
                                      cluster.scheduler_address)
                if "the worker runs other code" not in err2:
                    break
            assert rc == rc2, err2
            assert _report(out) == _report(out2)
            assert "on the Dask cluster, one job each" in err2


def test_dask_worker_threads_equal_serial(planted: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Jobs in threads of one Dask worker: each thread has its own copy of the facade
    mechanism, and --patch jobs take turns; the reports are the serial ones.  (A sanity
    check only: with a shared mechanism and no turns it still passed in three runs here, the
    race being narrow; the per-thread copies rest on the code, not on this test.)"""
    distributed = pytest.importorskip("distributed")
    cases = [[f"{planted}:rr", "--rng", "random"],
             [f"{planted}:rr_module", "--rng", "random", "--patch", "random"]]
    base = ["audit", "--kind", "whitebox", "--claimed-epsilon", "1", "--inputs", "0..1",
            "--json", "--quiet"]
    serial = [run(capsys, *base, *case) for case in cases]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=4, processes=False,
                                  dashboard_address=None) as cluster:
        for case, (rc, out, _) in zip(cases, serial, strict=True):
            rc2, out2, err2 = run(capsys, *base, *case, "--dask", cluster.scheduler_address)
            assert rc == rc2 == 1, err2
            assert _report(out) == _report(out2)
    import random

    assert random.random == random._inst.random  # type: ignore[attr-defined]  # restored


def test_dask_killed_worker_is_incomplete(planted: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    distributed = pytest.importorskip("distributed")
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                     dashboard_address=None) as cluster:
        rc, out, err = run(capsys, "audit", f"{planted}:dies_on_3", "--kind", "whitebox",
                           "--source", "--claimed-epsilon", "1/10", "--inputs", "0..5",
                           "--json", "--dask", cluster.scheduler_address)
    data = json.loads(out)
    assert rc == 2 and data["verdict"] == "incomplete", err
    assert "input 3: NOT RUN (KilledWorker on the cluster" in err
    assert data["findings"][0]["witness"]["covered"]["3"] == "0"


@pytest.mark.parametrize(("argv", "words"), [
    (["--workers", "0"], ["--workers", "positive integer"]),
    (["--workers", "two"], ["--workers"]),
])
def test_usage_errors(capsys: pytest.CaptureFixture[str], argv: list[str],
                      words: list[str]) -> None:
    rc, out, err = run(capsys, *_args("counting-threshold", "x"), *argv)
    assert rc == 2 and out == ""
    one_line_error(err, *words)


def test_blackbox_refuses_workers_and_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    for flag in (["--workers", "2"], ["--dask", "tcp://127.0.0.1:1"]):
        rc, out, err = run(capsys, "audit", "exactdp.counting:GeoSample(8, '1/2')", "--kind",
                           "blackbox", "--claimed-epsilon", "1", "--inputs", "0..8", *flag)
        assert rc == 2 and out == ""
        one_line_error(err, flag[0], "--kind whitebox only", "randomness")


def test_workers_and_dask_exclusive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        run(capsys, *_args("counting-threshold", "x"), "--workers", "2", "--dask",
            "tcp://127.0.0.1:1")
    assert exc.value.code == 2


def test_dask_missing_names_the_extra(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    rc, out, err = run(capsys, *_args("counting-threshold", "x"), "--dask", "tcp://127.0.0.1:1")
    assert rc == 2 and out == ""
    one_line_error(err, "--dask", "exactdp[scale]")


def test_help_describes_the_flags(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        run(capsys, "audit", "--help")
    text = " ".join(capsys.readouterr().out.split())
    assert "--workers N" in text and "--dask ADDRESS" in text
    assert "one input per job" in text
