"""Work beyond one process: a pool of local worker processes, a Dask cluster, the code hash.

Shared by ``exactdp verify --workers/--dask`` (:mod:`exactdp.cli.verify_parallel`, one job per
check of a proof module) and ``exactdp audit --workers/--dask``
(:mod:`exactdp.audit.parallel`, one job per audited input).  A *job* is a key chosen by the
caller and a module-level function with picklable arguments; the worker runs
``fn(*args)`` through :func:`call_job` and sends back an *envelope*: the value, the
nanoseconds it took and the code hash of the worker (:func:`code_hash`).

A job is *lost* -- reported through ``lost(key, why)``, never through ``done`` -- when its
worker process dies twice on it (local pool: the parent knows which job each worker holds,
so a death is charged to that job only), when the Dask scheduler gives up on it
(``KilledWorker``, after its ``allowed-failures``) or it raises there, or when the worker
ran different code from ours (a cluster with another version installed).  What a lost job
means is the caller's to say (``verify``: the claim is NOT RUN; ``audit``: the verdict is
incomplete); it is never a pass.
"""

from __future__ import annotations

import functools
import hashlib
import multiprocessing
import signal
import time
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from exactdp.cli._common import progress
from exactdp.params import ParameterError

__all__ = ["Envelope", "Job", "call_job", "code_hash", "dask_client", "run_dask", "run_pool",
           "tree_hash"]

#: ``(key, fn, args)``: ``fn`` a module-level function (pickled by name), ``args`` picklable.
Job = tuple[Hashable, Callable[..., Any], tuple[Any, ...]]
#: What a worker sends back: ``{"value": fn(*args), "ns": nanoseconds, "code": its hash}``.
Envelope = dict[str, Any]
Done = Callable[[Any, Envelope], None]
Lost = Callable[[Any, str], None]


def code_hash() -> str:
    """SHA-256 over the path and bytes of every ``.py``/``.c`` file of ``exactdp`` and of its
    proofs (what a verdict depends on), as they are now.  The proofs are ``exactdp/proofs``
    when installed, hashed with the package; in a source checkout they are the folder
    ``proofs/`` beside it, hashed as a second root."""
    import exactdp
    from exactdp import proofs

    return tree_hash(code_roots(Path(str(exactdp.__file__)).parent,
                                Path(str(proofs.__file__)).parent))


def code_roots(package: Path, proofs: Path) -> tuple[tuple[str, Path], ...]:
    """The roots :func:`code_hash` hashes: the package, and the proofs unless inside it."""
    if proofs.is_relative_to(package):
        return (("exactdp", package),)
    return (("exactdp", package), ("proofs", proofs))


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


_worker_code = functools.cache(code_hash)  # a worker's hash, taken at its first job


def call_job(fn: Callable[..., Any], args: tuple[Any, ...]) -> Envelope:
    """Run one job in this process (the worker's side): its envelope."""
    start = time.perf_counter_ns()
    value = fn(*args)
    return {"value": value, "ns": time.perf_counter_ns() - start, "code": _worker_code()}


# --- local worker processes ---------------------------------------------------------------

def _serve(conn: Connection) -> None:
    """A worker process: run the jobs sent on ``conn`` until told to stop (``None``).
    Ctrl-C is the parent's to handle: it stops the workers itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while (message := conn.recv()) is not None:
        conn.send(call_job(*message))


@dataclass
class _Worker:
    process: Any
    conn: Connection
    job: Job | None = None


def run_pool(jobs: Sequence[Job], workers: int, done: Done, lost: Lost,
             label: Callable[[Any], str] = str) -> None:
    """Run ``jobs`` on ``workers`` spawned processes, calling ``done(key, envelope)`` as each
    finishes.  A job whose worker dies is retried once on a fresh worker (said on stderr,
    naming ``label(key)``), then ``lost(key, why)``."""
    context = multiprocessing.get_context("spawn")
    queue = deque(jobs)
    deaths: dict[Hashable, int] = {}
    pool: list[_Worker] = []

    def start() -> _Worker:
        ours, theirs = context.Pipe()
        process = context.Process(target=_serve, args=(theirs,), daemon=True)
        process.start()
        theirs.close()
        return _Worker(process, ours)

    try:
        while queue or any(w.job for w in pool):
            while queue and len(pool) < workers:
                pool.append(start())
            for w in pool:
                if w.job is None and queue:
                    w.job = queue.popleft()
                    w.conn.send(w.job[1:])
            busy = [w for w in pool if w.job is not None]
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
            for w in busy:
                if w.conn not in ready and w.process.sentinel not in ready:
                    continue
                job = w.job
                assert job is not None
                try:
                    envelope = w.conn.recv()
                except (EOFError, OSError):
                    w.process.join()
                    w.conn.close()
                    pool.remove(w)
                    deaths[job[0]] = deaths.get(job[0], 0) + 1
                    code = w.process.exitcode
                    if deaths[job[0]] < 2:
                        progress(f"worker died (exit code {code}) on {label(job[0])}; "
                                 f"retrying it once")
                        queue.appendleft(job)
                    else:
                        lost(job[0], f"the worker process died twice, exit code {code}")
                    continue
                w.job = None
                done(job[0], envelope)
            if not queue:
                for w in [w for w in pool if w.job is None]:
                    _stop(w)
                    pool.remove(w)
    finally:
        for w in pool:
            _stop(w)


def _stop(w: _Worker) -> None:
    """Stop a worker: ask it to leave if idle, terminate it if busy (Ctrl-C), kill if stuck."""
    if w.job is None:
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


def run_dask(jobs: Sequence[Job], client: Any, code: str, done: Done, lost: Lost,
             rehash: Callable[[], str] = code_hash) -> None:
    """Run ``jobs`` on the Dask cluster of ``client`` (from :func:`dask_client`), then close it.

    A worker whose code hash is neither ``code`` (ours at the start) nor ``rehash()`` (our
    source tree as it is when its result arrives) runs another version of exactdp: its jobs
    are lost.  (A local edit during the run changes both hashes alike and is not refused.)
    A job that raises on the cluster (e.g. ``KilledWorker`` once the scheduler has lost
    ``distributed.scheduler.allowed-failures`` workers on it) is lost.  Ctrl-C cancels every
    job not yet finished; a job already running on a worker thread finishes there (Dask
    cannot stop a running thread) and its result is dropped."""
    from distributed import as_completed

    known = {code}
    with client:
        futures = {client.submit(call_job, fn, args, pure=False): key for key, fn, args in jobs}
        try:
            for future in as_completed(futures):
                key = futures[future]
                try:
                    envelope = future.result()
                except Exception as exc:  # noqa: BLE001 - a lost job, never a pass
                    lost(key, f"{type(exc).__name__} on the cluster: {exc}")
                    continue
                if envelope["code"] not in known:
                    known.add(rehash())  # our tree as it is now (edited since the start?)
                if envelope["code"] not in known:
                    lost(key, f"the worker runs other code (hash {envelope['code'][:12]}, "
                              f"ours {code[:12]})")
                else:
                    done(key, envelope)
        finally:
            client.cancel(list(futures))
