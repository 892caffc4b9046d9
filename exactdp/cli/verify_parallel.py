"""``exactdp verify`` beyond one process: local worker processes, a Dask cluster, a results file.

The unit of work is one check of one proof module (a claim, or one part of a claim when the
module lists ``CHECKS``).  Every unit runs exactly the code the serial path runs
(:func:`exactdp.cli.verify.run_check`) and sends back ``ClaimReport.to_json()``: plain strings
with the exact fractions already printed, so the merged table is the serial one, row for row,
whatever the order in which the units finish.

A unit is *not run* -- never passed -- when its worker process dies twice on it (local pool: the
parent knows which unit each worker holds, so a death is charged to that unit only), when the
Dask scheduler gives up on it (``KilledWorker``, after its ``allowed-failures``), or when the
worker ran different code from ours (a cluster with another version installed).

The results file (``--results PATH``) gets one JSON line per finished unit, appended with one
``write`` and ``fsync``; a line cut short by a crash is ignored.  Each line records the code hash
of the process that ran the unit (:func:`code_hash`: every source file of ``exactdp`` and
``proofs``, so any edit changes it) and, for people, the git commit.  ``--resume`` reuses the
passed and failed units whose grid and code hash match the code as it is now, and reruns the
rest (not-run units, other grids, other code).
"""

from __future__ import annotations

import functools
import hashlib
import json
import multiprocessing
import os
import signal
import subprocess
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

import proofs
from exactdp.cli._common import progress
from exactdp.params import ParameterError

__all__ = ["Results", "Unit", "code_hash", "dask_client", "not_run_row", "run_dask", "run_pool", "run_unit",
           "seconds_text", "split_resumed", "tree_hash", "units_of"]

Row = dict[str, Any]
Done = Callable[["Unit", Row, int, str], None]  # unit, row, nanoseconds, code hash that ran


@dataclass(frozen=True)
class Unit:
    """One check: ``proofs.checks_of(load(module))[index]``, named ``check`` (its function)."""

    module: str
    index: int
    check: str
    claim: str

    @property
    def key(self) -> tuple[str, int, str]:
        return (self.module, self.index, self.check)


def units_of(checks: Sequence[tuple[Any, Any]]) -> list[Unit]:
    """The units of ``verify``'s ``(module, check)`` list, in its order."""
    units = []
    for module, fn in checks:
        index = next(i for i, f in enumerate(proofs.checks_of(module)) if f is fn)
        units.append(Unit(module.__name__, index, getattr(fn, "__name__", "check"),
                          str(getattr(module, "CLAIM", module.__name__))))
    return units


def code_hash() -> str:
    """SHA-256 over the path and bytes of every ``.py``/``.c`` file of ``exactdp`` and ``proofs``
    (what a verdict depends on), as they are now."""
    import exactdp

    return tree_hash(tuple((p.__name__, Path(p.__file__).parent) for p in (exactdp, proofs)))


def tree_hash(roots: tuple[tuple[str, Path], ...]) -> str:
    """SHA-256 over ``name/relative path``, NUL, bytes, NUL of every ``.py``/``.c`` file under
    each named root, in sorted order (outside ``__pycache__``)."""
    digest = hashlib.sha256()
    for name, root in roots:
        for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".c")
                           and "__pycache__" not in p.parts):
            digest.update(f"{name}/{path.relative_to(root).as_posix()}\0".encode())
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()


_worker_code = functools.cache(code_hash)  # a worker's hash, taken at its first unit


def run_unit(module: str, index: int, full: bool) -> dict[str, Any]:
    """Run one unit in this process (the worker's job): its row, nanoseconds and code hash."""
    from exactdp.cli.verify import run_check

    fn = proofs.checks_of(proofs.load(module))[index]
    start = time.perf_counter_ns()
    report = run_check(fn, full)
    return {"row": report.to_json(), "ns": time.perf_counter_ns() - start,
            "code": _worker_code()}


def seconds_text(ns: int, places: int) -> str:
    """``ns`` nanoseconds as seconds with ``places`` (1 to 9) decimals, rounded half up.

    >>> seconds_text(1_250_000_000, 1), seconds_text(999_600_000, 3), seconds_text(0, 1)
    ('1.3', '1.000', '0.0')
    """
    unit = 10**(9 - places)
    whole, frac = divmod((ns + unit // 2) // unit, 10**places)
    return f"{whole}.{frac:0{places}d}"


def not_run_row(unit: Unit, why: str) -> Row:
    """The row of a unit that did not finish: verdict ``NOT RUN``, which fails the run."""
    return {"claim": f"{unit.claim} [{unit.check}]", "grid": f"(not run: {why})",
            "worst": "-", "bound": "the check must finish", "verdict": "NOT RUN",
            "certificates": []}


# --- local worker processes ---------------------------------------------------------------

def _serve(conn: Connection) -> None:
    """A worker process: run the units sent on ``conn`` until told to stop (``None``).
    Ctrl-C is the parent's to handle: it stops the workers itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while (message := conn.recv()) is not None:
        conn.send(run_unit(*message))


@dataclass
class _Worker:
    process: Any
    conn: Connection
    unit: Unit | None = None


def run_pool(units: Sequence[Unit], full: bool, workers: int, done: Done) -> None:
    """Run ``units`` on ``workers`` spawned processes, calling ``done`` as each finishes.

    A unit whose worker dies is retried once on a fresh worker, then reported as not run."""
    context = multiprocessing.get_context("spawn")
    queue = deque(units)
    deaths: dict[tuple[str, int, str], int] = {}
    pool: list[_Worker] = []

    def start() -> _Worker:
        ours, theirs = context.Pipe()
        process = context.Process(target=_serve, args=(theirs,), daemon=True)
        process.start()
        theirs.close()
        return _Worker(process, ours)

    try:
        while queue or any(w.unit for w in pool):
            while queue and len(pool) < workers:
                pool.append(start())
            for w in pool:
                if w.unit is None and queue:
                    w.unit = queue.popleft()
                    w.conn.send((w.unit.module, w.unit.index, full))
            busy = [w for w in pool if w.unit is not None]
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
            for w in busy:
                if w.conn not in ready and w.process.sentinel not in ready:
                    continue
                unit = w.unit
                assert unit is not None
                try:
                    result = w.conn.recv()
                except (EOFError, OSError):
                    w.process.join()
                    w.conn.close()
                    pool.remove(w)
                    deaths[unit.key] = deaths.get(unit.key, 0) + 1
                    code = w.process.exitcode
                    if deaths[unit.key] < 2:
                        progress(f"worker died (exit code {code}) on {unit.claim} "
                                 f"[{unit.check}]; retrying it once")
                        queue.appendleft(unit)
                    else:
                        done(unit, not_run_row(unit, f"the worker process died twice, exit "
                                                     f"code {code}"), 0, "")
                    continue
                w.unit = None
                done(unit, result["row"], result["ns"], result["code"])
            if not queue:
                for w in [w for w in pool if w.unit is None]:
                    _stop(w)
                    pool.remove(w)
    finally:
        for w in pool:
            _stop(w)


def _stop(w: _Worker) -> None:
    """Stop a worker: ask it to leave if idle, terminate it if busy (Ctrl-C), kill if stuck."""
    if w.unit is None:
        try:
            w.conn.send(None)
        except OSError:
            pass
    else:
        w.process.terminate()
    w.process.join(5)
    if w.process.is_alive():
        w.process.kill()
        w.process.join()
    w.conn.close()


# --- Dask ---------------------------------------------------------------------------------

def dask_client(address: str) -> Any:
    """A ``distributed.Client`` connected to the scheduler at ``address`` (a usage error, before
    any work, if Dask is not installed or nothing answers there within 10 s)."""
    try:
        from distributed import Client
    except ImportError:
        raise ParameterError("--dask needs Dask distributed, which is not installed: "
                             "pip install 'exactdp[scale]'") from None
    try:
        return Client(address, timeout=10)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ParameterError(f"--dask {address!r}: no Dask scheduler reachable there "
                             f"({type(exc).__name__}: {exc})") from None


def run_dask(units: Sequence[Unit], full: bool, client: Any, code: str, done: Done) -> None:
    """Run ``units`` on the Dask cluster of ``client`` (from :func:`dask_client`), then close it.

    A worker whose code hash is neither ``code`` (ours at the start) nor that of our source
    tree as it is when its result arrives runs another version of exactdp: its rows are not
    run.  (A local edit during the run changes both hashes alike and is not refused.)
    A unit that raises on the cluster (e.g. ``KilledWorker`` once the scheduler has lost
    ``distributed.scheduler.allowed-failures`` workers on it) is reported as not run.  Ctrl-C
    cancels every unit not yet finished; a unit already running on a worker thread finishes
    there (Dask cannot stop a running thread) and its result is dropped."""
    from distributed import as_completed

    known = {code}
    with client:
        futures = {client.submit(run_unit, u.module, u.index, full, pure=False): u
                   for u in units}
        try:
            for future in as_completed(futures):
                unit = futures[future]
                try:
                    result = future.result()
                except Exception as exc:  # noqa: BLE001 - a lost unit is NOT RUN, never a pass
                    done(unit, not_run_row(unit, f"{type(exc).__name__} on the cluster: "
                                                 f"{exc}"), 0, "")
                    continue
                if result["code"] not in known:
                    known.add(code_hash())  # our tree as it is now (edited since the start?)
                if result["code"] not in known:
                    done(unit, not_run_row(unit, f"the worker runs other code (hash "
                                                 f"{result['code'][:12]}, ours {code[:12]})"),
                         result["ns"], result["code"])
                else:
                    done(unit, result["row"], result["ns"], result["code"])
        finally:
            client.cancel(list(futures))


# --- the results file ---------------------------------------------------------------------

def _git_commit() -> str | None:
    """The commit of the source tree (recorded for people; resuming compares the code hash)."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10, cwd=Path(proofs.__file__).parent, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


class Results:
    """The JSON-lines file of finished units: one record per line, appended and fsynced."""

    def __init__(self, path: str, resume: bool, grid: str, code: str) -> None:
        self.path = Path(path)
        self.grid = grid
        self.code = code
        self.reused: dict[tuple[str, int, str], tuple[Row, int]] = {}
        self._cut = False  # the file ends inside a line (a crash while appending)
        if not self.path.parent.is_dir():
            raise ParameterError(f"--results {path}: the directory {self.path.parent} "
                                 "does not exist")
        if self.path.exists() and not resume:
            raise ParameterError(f"--results {path} exists; pass --resume to continue from it, "
                                 "or remove it to start over")
        if resume and self.path.exists():
            self.reused = self._read()
        self._commit = _git_commit()
        self._fd: int | None = None

    def _read(self) -> dict[tuple[str, int, str], tuple[Row, int]]:
        from exactdp.files import read_text

        reused: dict[tuple[str, int, str], tuple[Row, int]] = {}
        other = skipped = 0
        text = read_text(str(self.path), "--results", max_bytes=1 << 30)
        self._cut = bool(text) and not text.endswith("\n")
        for line in text.splitlines():
            try:
                record = json.loads(line)
                key = (record["module"], int(record["index"]), record["check"])
                verdict = record["row"]["verdict"]
                usable = record["grid"] == self.grid and verdict in ("pass", "FAIL")
                same = record["code"] == self.code
            except (ValueError, KeyError, TypeError):
                skipped += 1  # a line cut short by a crash, or not ours
                continue
            if usable and same:
                reused[key] = (record["row"], int(record["ns"]))
            elif usable:
                other += 1
        if other:
            progress(f"{self.path}: {other} result(s) were recorded for other code (a "
                     "different hash of exactdp/ and proofs/); they run again")
        if skipped:
            progress(f"{self.path}: {skipped} line(s) unreadable (cut short?); ignored")
        return reused

    def add(self, unit: Unit, row: Row, ns: int, code: str) -> None:
        """Append the record of a finished unit; ``code`` is the hash of the code that ran it."""
        record = {"module": unit.module, "index": unit.index, "check": unit.check,
                  "grid": self.grid, "code": code, "commit": self._commit,
                  "ns": ns, "row": row}
        if self._fd is None:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            if self._cut:
                os.write(self._fd, b"\n")
        os.write(self._fd, (json.dumps(record) + "\n").encode())
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)


def split_resumed(units: Iterable[Unit], results: Results | None
                  ) -> tuple[list[Unit], dict[Unit, tuple[Row, int]]]:
    """The units still to run, and the rows reused from the results file."""
    todo, reused = [], {}
    for u in units:
        if results is not None and u.key in results.reused:
            reused[u] = results.reused[u.key]
        else:
            todo.append(u)
    return todo, reused
