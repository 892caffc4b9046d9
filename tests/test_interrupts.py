"""Interrupts (issue 9, class 8): Ctrl-C ends every command with exit status 130, one line on
stderr, no traceback and no output file, and the native path of CompactHistogram notices it
within about a second.

Python runs signal handlers only in the main thread between bytecodes, so a long C call
(``_gf2native.c``, loaded with ctypes) would otherwise hold an interrupt until it returns
(half a minute for ``n = 10**4`` over ``GF(2**39366)``).  :func:`exactdp.histograms.native._call`
runs such calls in a helper thread, waits in short slices and, when a signal handler raises,
sets the C code's cancellation flag, waits for it to stop and re-raises.  The tests here
check that chain at each level: the C entry point alone (the flag), the Python wrapper (a
signal during a call), the library (an interrupt inside a draw propagates unchanged out of
every histogram), and the command line (SIGINT to a real process).
"""

from __future__ import annotations

import ctypes
import json
import os
import random
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import IO, Any

import pytest

import exactdp
from exactdp.counting import FastSample
from exactdp.histograms import native
from exactdp.histograms.basic import BasicHistogram, StabilityHistogram
from exactdp.histograms.compact import CompactHistogram
from exactdp.histograms.data import Dataset, Universe
from exactdp.histograms.fields import VanLintField
from exactdp.histograms.sparse import PureSparseHistogram
from exactdp.randomness import RandomSource, SeededSource

needs_native = pytest.mark.skipif(not native.available(),
                                  reason=f"native path unavailable: {native.status()}")
needs_proc = pytest.mark.skipif(not Path("/proc/self/task").is_dir(),
                                reason="needs /proc/PID/task to see the native call start")
posix_only = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="POSIX signals")

#: Seconds of work from the signal to the end of the process (or of the call) allowed:
#: processor seconds where they can be measured (a loaded machine stretches wall time).
LATENCY = 2.0
#: A large native job: n = 2000 points over GF(2^39366) (level 9) with nodes in GF(2^162)
#: (level 4), 243 coordinate interpolations; with one thread it runs for several seconds.
LEVEL, SUB_DEGREE, COUNT = 9, 162, 2000
INTERRUPTED = "interrupted; nothing was written"


# --------------------------------------------------------------------------- the C flag

def _big_job() -> tuple[list[int], list[int]]:
    rng = random.Random(9)
    degree = VanLintField(LEVEL).degree
    return list(range(COUNT)), [rng.getrandbits(degree) for _ in range(COUNT)]


@needs_native
@pytest.mark.parametrize("entry", ["gf2_interpolate", "gf2_to_table", "gf2_evaluate_table"])
def test_a_set_flag_stops_each_entry_point_at_once(entry: str) -> None:
    """Every C entry point returns the cancelled code (-3) when its flag is already set,
    without doing the job (a job that takes seconds returns in well under one)."""
    lib = native._lib()
    degree, s = VanLintField(LEVEL).degree, VanLintField(LEVEL).degree // SUB_DEGREE
    nodes, values = _big_job()
    words = degree // 64 + 1
    xs, ys = native._words(nodes, SUB_DEGREE), native._words(values, degree)
    table = (ctypes.c_uint64 * (COUNT * s * 3))()
    flag = ctypes.c_int(1)
    start = time.process_time()  # processor time: a loaded machine does not stretch it
    if entry == "gf2_interpolate":
        out = (ctypes.c_uint64 * (COUNT * words))()
        code = lib.gf2_interpolate(degree, SUB_DEGREE, COUNT, xs, ys, out, 1,
                                   ctypes.byref(flag))
    elif entry == "gf2_to_table":
        code = lib.gf2_to_table(degree, SUB_DEGREE, COUNT, ys, table, 1, ctypes.byref(flag))
    else:
        out = (ctypes.c_uint64 * words)()
        code = lib.gf2_evaluate_table(degree, SUB_DEGREE, COUNT, table, xs, out, 1,
                                      ctypes.byref(flag))
    assert code == native._CANCELLED
    assert time.process_time() - start < 0.5


@needs_native
def test_a_flag_set_during_the_call_stops_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The flag set from another thread while the C code runs (the GIL released by ctypes)
    ends the call within a second of processor time (the job takes several); an unset flag
    changes nothing (a small job gives the pure path's answer afterwards)."""
    lib = native._lib()
    degree = VanLintField(LEVEL).degree
    nodes, values = _big_job()
    out = (ctypes.c_uint64 * (COUNT * (degree // 64 + 1)))()
    flag = ctypes.c_int(0)
    set_at: list[float] = []

    def stop() -> None:
        set_at.append(time.process_time())
        flag.value = 1

    timer = threading.Timer(0.5, stop)
    timer.start()
    code = lib.gf2_interpolate(degree, SUB_DEGREE, COUNT, native._words(nodes, SUB_DEGREE),
                               native._words(values, degree), out, 1, ctypes.byref(flag))
    stopped = time.process_time()
    timer.join()
    assert code == native._CANCELLED and set_at
    assert stopped - set_at[0] < 1.0  # processor seconds after the flag was set
    field = VanLintField(3)
    small = native.interpolate(field.degree, 6, [1, 2, 3], [7, 8, 9])
    assert small == field.interpolate([field.embed(e, 1) for e in (1, 2, 3)], [7, 8, 9])


# --------------------------------------------------------------------------- native.py

class _Alarm(Exception):
    """Raised by the test's SIGALRM handler (as a time limit's handler would)."""


@pytest.fixture
def alarm() -> Iterator[Callable[..., dict[str, Any]]]:
    """``alarm(seconds)`` raises :class:`_Alarm` in the main thread after ``seconds`` (wall;
    ``alarm(seconds, processor=True)``: of the process's processor time, SIGPROF, which a
    loaded machine does not bring forward); the returned dict records when it fired and
    which threads were alive then."""
    seen: dict[str, Any] = {}

    def handler(signum: int, frame: FrameType | None) -> None:
        seen["time"] = time.monotonic()
        seen["cpu"] = time.process_time()
        seen["threads"] = [t.name for t in threading.enumerate()]
        raise _Alarm

    old = signal.signal(signal.SIGALRM, handler)
    old_prof = signal.signal(signal.SIGPROF, handler)

    def arm(seconds: float, processor: bool = False) -> dict[str, Any]:
        signal.setitimer(signal.ITIMER_PROF if processor else signal.ITIMER_REAL, seconds)
        return seen

    try:
        yield arm
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGALRM, old)
        signal.signal(signal.SIGPROF, old_prof)


@needs_native
@posix_only
def test_a_signal_during_a_native_call_is_raised_within_a_second(
        monkeypatch: pytest.MonkeyPatch, alarm: Callable[..., dict[str, Any]]) -> None:
    """A signal handler's exception reaches the caller of ``native.interpolate`` while the
    C code runs (not when it would have finished), unchanged, and no helper thread is left."""
    monkeypatch.setenv("EXACTDP_THREADS", "1")
    field = VanLintField(LEVEL)
    nodes, values = _big_job()
    before = threading.active_count()
    seen = alarm(0.5, processor=True)  # half a second of work, whatever the load
    with pytest.raises(_Alarm):
        native.interpolate(field.degree, SUB_DEGREE, nodes, values)
    raised = time.process_time()
    assert "exactdp-native" in seen["threads"], "the signal came before the C call started"
    assert raised - seen["cpu"] < 1.0  # processor seconds (all threads) after the signal
    assert threading.active_count() == before, threading.enumerate()


@posix_only
def test_a_signal_sets_the_flag_and_the_call_is_awaited(
        alarm: Callable[..., dict[str, Any]]) -> None:
    """``_call`` with a stand-in for a C entry point that runs until its flag is set: the
    signal handler's exception sets the flag, the call is awaited (it returns), and the
    exception is re-raised; without the flag the stand-in would run for 30 s."""
    calls: list[float] = []

    def slow(*args: object) -> int:
        flag = args[-1]
        assert isinstance(flag, ctypes.POINTER(ctypes.c_int))
        start = time.monotonic()
        while not flag.contents.value and time.monotonic() - start < 30:
            time.sleep(0.01)
        calls.append(time.monotonic() - start)
        return native._CANCELLED if flag.contents.value else 0

    seen = alarm(0.3)
    with pytest.raises(_Alarm):
        native._call(slow, native._DIRECT_WORK, 1, 2)
    # the stand-in sleeps (no processor time to measure): a generous wall bound, far below
    # the 30 s it runs without the flag
    assert calls and calls[0] < 10
    assert "exactdp-native" in seen["threads"]


def test_small_calls_are_direct_and_results_identical(monkeypatch: pytest.MonkeyPatch) -> None:
    """Below ``_DIRECT_WORK`` the call runs in the calling thread; both ways the C code is
    the same, so the coefficients are identical (checked when the library is present)."""
    threads: list[str] = []

    def probe(*args: object) -> int:
        threads.append(threading.current_thread().name)
        return 0

    native._call(probe, native._DIRECT_WORK - 1)
    native._call(probe, native._DIRECT_WORK)
    assert threads == [threading.main_thread().name, "exactdp-native"]
    if native.available():
        field = VanLintField(5)
        rng = random.Random(5)
        nodes = rng.sample(range(1 << 18), 200)
        values = [rng.randrange(field.order) for _ in nodes]
        monkeypatch.setattr(native, "_DIRECT_WORK", 1 << 62)
        direct = native.interpolate(field.degree, 18, nodes, values)
        monkeypatch.setattr(native, "_DIRECT_WORK", 0)
        assert native.interpolate(field.degree, 18, nodes, values) == direct


def test_an_error_in_the_helper_thread_reaches_the_caller() -> None:
    def broken(*args: object) -> int:
        raise ctypes.ArgumentError("argument 3: wrong type")

    with pytest.raises(ctypes.ArgumentError, match="argument 3"):
        native._call(broken, native._DIRECT_WORK)


# --------------------------------------------------------------------------- the library

class _InterruptingSource(RandomSource):
    """A seeded source that counts its draws and makes draw number ``after`` (from 0) raise
    ``exc`` (as Ctrl-C would, there); ``after=None`` never raises."""

    def __init__(self, after: int | None, exc: BaseException) -> None:
        self._inner = SeededSource(1)
        self.draws = 0
        self.after = after
        self.exc = exc

    def uniform(self, d: int) -> int:
        if self.draws == self.after:
            raise self.exc
        self.draws += 1
        return self._inner.uniform(d)


def _releases() -> dict[str, Callable[[RandomSource], object]]:
    u = Universe(6)
    data = Dataset.of(u, [1, 1, 2, 3])
    big = Universe(2**64)
    big_data = Dataset.of(big, [5, 5, 2**63, 7])
    return {
        "compact-pure": lambda s: CompactHistogram.theorem_8_6(
            u, 4, "1/2", "1/20", arithmetic="pure").release(data, s),
        "compact-auto": lambda s: CompactHistogram.theorem_8_6(
            big, 4, "1/2", "1/20").release(big_data, s),
        "stability": lambda s: StabilityHistogram.theorem_5_6(
            u, 4, "1/2", "1/1000", "1/20").release(data, s),
        "basic": lambda s: BasicHistogram.theorem_5_3(u, 4, "1/2", "1/20").release(data, s),
        "pure-sparse": lambda s: PureSparseHistogram.theorem_6_11(
            big, 4, "1/2", "1/20").release(big_data, s),
        "fastsample-huge-d": lambda s: FastSample(1000, "1/100", "1/1000000").sample(7, s),
    }


@pytest.mark.parametrize("name", sorted(_releases()))
@pytest.mark.parametrize("where", ["first", "last"])
def test_an_interrupt_inside_a_draw_propagates_unchanged(name: str, where: str) -> None:
    """A KeyboardInterrupt raised by the randomness source at the first or at the last draw
    of a release comes out of it as the same object: not wrapped in another error, not
    swallowed, not turned into a result."""
    release = _releases()[name]
    counter = _InterruptingSource(None, KeyboardInterrupt())
    release(counter)
    assert counter.draws >= 1
    exc = KeyboardInterrupt("from the source")
    source = _InterruptingSource(0 if where == "first" else counter.draws - 1, exc)
    with pytest.raises(KeyboardInterrupt) as info:
        release(source)
    assert info.value is exc


def test_an_interrupt_inside_a_cdf_search_propagates_unchanged(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """FastSample's inverse-CDF search over a huge ``d`` (a Python loop of exact CDF
    evaluations): an interrupt in the middle of the search comes out unchanged."""
    mech = FastSample(1000, "1/100", "1/1000000")
    real = FastSample.search_cdf
    exc = KeyboardInterrupt("in the search")
    calls = [0]

    def interrupted(self: FastSample, c: int, z: int) -> int:
        calls[0] += 1
        if calls[0] == 3:
            raise exc
        return real(self, c, z)

    monkeypatch.setattr(FastSample, "search_cdf", interrupted)
    with pytest.raises(KeyboardInterrupt) as info:
        mech.sample(500, SeededSource(2))
    assert info.value is exc and calls[0] == 3


# --------------------------------------------------------------------------- the CLI

def _command() -> list[str]:
    script = Path(sys.executable).with_name("exactdp")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from exactdp.cli import main; sys.exit(main())"]


def _env(**extra: str) -> dict[str, str]:
    """The environment of a child that imports this same exactdp."""
    root = str(Path(exactdp.__file__).resolve().parents[1])
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": root if not path else f"{root}{os.pathsep}{path}",
            **extra}


def _default_sigint() -> None:
    # A test runner started in the background (``cmd &`` in a script) inherits SIGINT
    # ignored, and Python then installs no handler: give the child an interactive user's
    # default, as a terminal would.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(args: list[str], cwd: Path, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen([*_command(), *args], cwd=cwd, env=_env(**env), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_default_sigint)  # noqa: PLW1509 - signal reset only


def _cpu_so_far(pid: int) -> float | None:
    """The processor seconds a running process (all its threads, and the children it has
    waited for, as its rusage on exit will count them) has used, from ``/proc/PID/stat``
    (None where there is no /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # utime, stime, cutime, cstime: fields 14-17 of proc(5), after the name's ")"
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _children_cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def _interrupt(proc: subprocess.Popen[str]) -> tuple[str, str, float]:
    """SIGINT, then the remaining output and the seconds the process worked after the
    signal until it ended: processor seconds (its total, from the kernel's accounting once
    it is reaped, less what it had used when the signal was sent), so that a loaded machine
    that delays the process without it working does not count; wall seconds where /proc is
    missing.  A process still running 30 s (wall) after the signal fails the test."""
    kids = _children_cpu()
    used = _cpu_so_far(proc.pid)
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"still running 30 s after SIGINT; stderr: {err}")
    if used is None:
        return out, err, time.monotonic() - sent
    return out, err, _children_cpu() - kids - used


def _wait_for(predicate: Callable[[], bool], proc: subprocess.Popen[str], what: str,
              timeout: float = 120) -> None:
    start = time.monotonic()
    while not predicate():
        if proc.poll() is not None:
            pytest.fail(f"ended (status {proc.returncode}) before {what}: "
                        f"{proc.communicate()[1]}")
        if time.monotonic() - start > timeout:
            proc.kill()
            pytest.fail(f"no {what} after {timeout} s")
        time.sleep(0.02)


def _line_with(stream: IO[str] | None, text: str, limit: int = 20) -> str:
    """The first of the next ``limit`` lines of ``stream`` that contains ``text``."""
    assert stream is not None
    for _ in range(limit):
        line = stream.readline()
        if text in line:
            return line
        if not line:
            break
    pytest.fail(f"no line with {text!r} in the output")


def _assert_clean_interrupt(command: str, status: int, err: str, elapsed: float,
                            tmp_path: Path, keep: set[str]) -> None:
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert status == 130, err
    lines = err.strip().splitlines()
    assert lines[-1] == f"exactdp {command}: {INTERRUPTED}", err
    assert sum(INTERRUPTED in line for line in lines) == 1, err
    assert elapsed < LATENCY
    assert {p.name for p in tmp_path.iterdir()} == keep, "an output or temporary file is left"


@pytest.mark.slow  # timing-sensitive under load (a subprocess, SIGINT, a 2 s bound): -m slow
@needs_native
@needs_proc
def test_ctrl_c_stops_a_compact_release_inside_the_native_code(tmp_path: Path) -> None:
    """``exactdp histogram --algorithm compact`` over ``|X| = 2^64`` (GF(2^39366), nodes in
    GF(2^162)): SIGINT half a second after the native interpolation started (a second
    thread appears in the process) ends it within LATENCY with status 130 and one line,
    and leaves neither ``out.json`` nor a temporary file.  2000 rows instead of 10^4 keep
    the Python draws short (about a second); with one native thread the interpolation
    alone would still take several seconds."""
    rng = random.Random(8)
    (tmp_path / "data.txt").write_text("".join(f"{rng.randrange(1, 2**64)}\n"
                                               for _ in range(COUNT)))
    # On a loaded machine the signal can land after the release has finished (status 0);
    # then the file must be complete, and the run is repeated to reach the native call.
    for _ in range(3):
        proc = _start(["histogram", "--algorithm", "compact", "--universe-size", "2^64",
                       "--epsilon", "1/10", "--input-format", "integers", "--quiet",
                       "--output", "out.json", "data.txt"], tmp_path, EXACTDP_THREADS="1")
        tasks = Path(f"/proc/{proc.pid}/task")
        _wait_for(lambda tasks=tasks: len(list(tasks.iterdir())) >= 2, proc, "native call")
        time.sleep(0.5)
        assert proc.poll() is None, "the release finished before the interrupt"
        _, err, elapsed = _interrupt(proc)
        if proc.returncode == 0:
            json.loads((tmp_path / "out.json").read_text())  # complete, never partial
            (tmp_path / "out.json").unlink()
            continue
        _assert_clean_interrupt("histogram", proc.returncode, err, elapsed, tmp_path,
                                {"data.txt"})
        assert err.strip() == f"exactdp histogram: {INTERRUPTED}"
        return
    pytest.fail("three releases finished before the interrupt reached them")


def test_ctrl_c_stops_sample(tmp_path: Path) -> None:
    """``exactdp sample`` streaming many draws to ``--output``: interrupted after its first
    progress line, status 130, one line, no file."""
    # --epsilon is the total of the 10^6 draws: 1/20 = eps/2 each for the paper's eps = 1/10.
    proc = _start(["sample", "fastsample", "--n", "1000", "--epsilon", "50000", "--gamma",
                   "1/1000", "--count", "5", "--draws", "1000000", "--output", "out.txt"],
                  tmp_path)
    _line_with(proc.stderr, "draws")
    _, err, elapsed = _interrupt(proc)
    _assert_clean_interrupt("sample", proc.returncode, err, elapsed, tmp_path, set())


def test_ctrl_c_stops_verify(tmp_path: Path) -> None:
    """``exactdp verify`` (the proof of Theorem 8.3, several seconds): interrupted after
    its first progress line, status 130, one line, no ``--output`` file."""
    proc = _start(["verify", "--only", "8_03", "--output", "v.json"], tmp_path)
    _line_with(proc.stderr, "claims")
    time.sleep(0.5)
    _, err, elapsed = _interrupt(proc)
    _assert_clean_interrupt("verify", proc.returncode, err, elapsed, tmp_path, set())
