"""White-box audits on local worker processes or a Dask cluster: one job per audited input.

Each input's exact output distribution is independent of the others': the counting kind
enumerates (or threshold-searches) ``f(c, u)`` for one ``c``, the source kind explores every
path of draws of ``f(c, source)`` for one ``c``.  :class:`Spread` runs these per-input
shares -- :func:`~exactdp.audit.per_input.counting_input` and
:func:`~exactdp.audit.per_input.explore_input`, the very functions the serial audit calls --
on the workers of :mod:`exactdp.workers` and hands the results back in input order;
:func:`~exactdp.audit.whitebox.whitebox_audit` merges them as the serial audit does (the
distributions are exact Fractions, computed by the same code, so they are equal, and every
later step -- monotonicity spot check, traces, ratios, hockey-stick, report -- runs in the
parent, unchanged).  A failure on a worker (the mechanism raised, hung, left its range; a
usage error such as too many calls) comes back as :class:`Failed` and is raised again in the
parent at that input's place in the input order, so the report is the serial one.

The mechanism itself is never pickled (third-party callables often cannot be): each worker
rebuilds it once from a :class:`Loader` -- for the command line the TARGET text, ``--rng``
and ``--patch`` (:func:`exactdp.cli.audit.load_mechanism`), so a worker imports the target as
the parent did (same current directory for local workers; on a Dask cluster the target must
be importable on the workers).

A job the workers could not run (its process died twice; the Dask scheduler lost it; the
worker ran other code) is :class:`Lost`: that input's mass is uncovered and the verdict is
``"incomplete"`` (exit status 2), never a pass.

Each worker guards the entropy sources the audit does not model and re-runs every path,
as the serial audit does (:mod:`exactdp.audit.escape`); an escape on a worker comes back
as its finding.

Limits: time limits on calls of the audited code are signal-based (main thread only,
:mod:`exactdp.audit.guard`), so they hold on local worker processes but not inside Dask's
worker threads; each worker thread builds its own copy of the mechanism, and jobs whose
mechanism patches module functions (``--patch``, process-wide) run one at a time per process.  One input is one job: an input whose exploration alone is large is not
split further (splitting it by path prefix needs a hook in :func:`exactdp.explore.explore`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from exactdp.audit.guard import Abort, Finding, Progress, say, show
from exactdp.audit.per_input import CountingAdapter, counting_input, explore_input
from exactdp.params import DomainError, ParameterError, ResourceLimitError

__all__ = ["Failed", "Loader", "Lost", "Spread", "absorb_notes", "run_input", "unwrap"]


@dataclass(frozen=True)
class Lost:
    """An input the workers could not run, and why."""

    why: str


@dataclass(frozen=True)
class Failed:
    """An exception raised on a worker, to be raised again in the parent (exceptions are sent
    as their kind and message: their classes' constructors need not survive pickling)."""

    kind: str  # abort, not_monotone, domain, facade, resource, parameter
    message: str
    finding: Finding | None = None

    def throw(self) -> NoReturn:
        from exactdp.audit.facades import FacadeRefusal
        from exactdp.checker import NotMonotoneError

        if self.kind == "abort":
            assert self.finding is not None
            raise Abort(self.finding)
        raise {"not_monotone": NotMonotoneError, "domain": DomainError,
               "facade": FacadeRefusal, "resource": ResourceLimitError,
               "parameter": ParameterError}[self.kind](self.message)


def _notes(mechanism: Any) -> list[str] | None:
    """The list in which ``mechanism`` notes what it met while explored, read by the serial
    audit afterwards: a :class:`~exactdp.audit.facades.FacadeMechanism`'s large draws (its
    ``assumption``); None for other mechanisms."""
    from exactdp.audit.facades import FacadeMechanism

    return mechanism._large if isinstance(mechanism, FacadeMechanism) else None


def absorb_notes(mechanism: Any, notes: Sequence[str]) -> None:
    """Add what a worker's copy of ``mechanism`` noted on one input to the parent's copy (in
    input order, as the serial exploration notes them)."""
    kept = _notes(mechanism)
    if kept is not None:
        kept.extend(notes)


def unwrap(value: object) -> str | None:
    """None for a worker's result, the reason for a :class:`Lost` input; a :class:`Failed`
    one is raised."""
    if isinstance(value, Failed):
        value.throw()
    return value.why if isinstance(value, Lost) else None


@dataclass(frozen=True)
class Loader:
    """How a worker rebuilds the mechanism: ``fn(*args)``, ``fn`` a module-level function
    (pickled by name) and ``args`` picklable literals."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]


#: A worker's mechanisms, built once per process *and thread*: Dask runs jobs in threads,
#: and a mechanism may keep state per call (a facade sets its generator on itself).
_loaded: dict[tuple[Loader, int], Any] = {}
#: Held by a job whose mechanism patches module functions (``--patch``): those are shared by
#: every thread of the process, so such jobs run one at a time there.
_patching = threading.Lock()


def _mechanism(loader: Loader) -> Any:
    key = (loader, threading.get_ident())
    if key not in _loaded:
        with contextlib.redirect_stdout(sys.stderr):
            _loaded[key] = loader.fn(*loader.args)
    return _loaded[key]


def _exclusive(mechanism: Any) -> contextlib.AbstractContextManager[Any]:
    from exactdp.audit.facades import FacadeMechanism

    patches = isinstance(mechanism, FacadeMechanism) and mechanism.patch_modules
    return _patching if patches else contextlib.nullcontext()


def run_input(loader: Loader, task: str, c: Any, i: int, n: int, params: dict[str, Any],
              share_wall_ns: int | None, verbose: bool) -> Any:
    """A worker's job: input ``c`` (the ``i``-th of ``n``) of a ``task`` (``"counting"`` or
    ``"source"``) audit, by the serial audit's own per-input function; a failure is returned
    as :class:`Failed`.  ``share_wall_ns``: the input's deadline on the wall clock (the
    parent's monotonic clock means nothing on another machine)."""
    from exactdp.audit.escape import watching
    from exactdp.audit.facades import FacadeRefusal
    from exactdp.audit.guard import Guard
    from exactdp.checker import NotMonotoneError
    from exactdp.cli._common import progress as _progress

    progress = _progress if verbose else None
    try:
        mechanism = _mechanism(loader)
        with contextlib.redirect_stdout(sys.stderr), _exclusive(mechanism), \
                watching(mechanism) as watch:  # the escape guards, as in the serial audit
            guard = Guard(params["time_limit"], watch)
            if task == "counting":
                adapter = CountingAdapter(mechanism, params["d"], params["allowed"], guard)
                return counting_input(adapter, c, params["enumerate_all"],
                                      params["enumeration_limit"])
            share = None if share_wall_ns is None else \
                time.monotonic_ns() + (share_wall_ns - time.time_ns())
            cap = min(params["max_runs"], params["max_calls"])
            kept = _notes(mechanism)
            before = 0 if kept is None else len(kept)
            explored = explore_input(mechanism, c, i, n, guard, params["randomness_size"],
                                     params["allowed"], progress, params["max_uniform"],
                                     params["max_runs"], cap, params["max_calls"], share,
                                     params["max_draws"], record=params.get("record", False))
            # A stopped exploration makes the whole audit INCOMPLETE, which never reads the
            # traces: not sending them saves pickling one event tuple per draw of every path.
            return dataclasses.replace(explored, notes=() if kept is None else
                                       tuple(kept[before:]),
                                       traces={} if explored.stopped else explored.traces)
    except Abort as abort:
        return Failed("abort", abort.finding.message, abort.finding)
    except NotMonotoneError as exc:
        return Failed("not_monotone", str(exc))
    except DomainError as exc:
        return Failed("domain", str(exc))
    except FacadeRefusal as exc:
        return Failed("facade", str(exc))
    except ResourceLimitError as exc:
        return Failed("resource", str(exc))
    except ParameterError as exc:
        return Failed("parameter", str(exc))


class Spread:
    """Runs an audit's per-input work on ``workers`` local processes, or on the Dask cluster
    of ``client`` (:func:`exactdp.workers.dask_client`; ``code``: our code hash, for
    refusing workers that run other code).  One use: the Dask client is closed after it."""

    def __init__(self, loader: Loader, *, workers: int | None = None, client: Any = None,
                 code: str = "", progress: Progress = None) -> None:
        if (workers is None) == (client is None):
            raise ParameterError("a Spread runs on local workers or on a Dask client: give "
                                 "exactly one")
        self.loader, self.workers, self.client = loader, workers, client
        self.code, self.progress = code, progress

    def close(self) -> None:
        """Close the Dask client (if any; again is harmless)."""
        if self.client is not None:
            self.client.close()

    @property
    def where(self) -> str:
        return (f"{self.workers} worker process(es)" if self.workers is not None else
                "the Dask cluster")

    def counting(self, inputs: Sequence[Any], params: dict[str, Any]) -> list[Any]:
        return self._run("counting", inputs, params, [None] * len(inputs))

    def source(self, inputs: Sequence[Any], params: dict[str, Any],
               shares: Sequence[int | None]) -> list[Any]:
        now_mono, now_wall = time.monotonic_ns(), time.time_ns()
        walls = [None if s is None else now_wall + (s - now_mono) for s in shares]
        return self._run("source", inputs, params, walls)

    def _run(self, task: str, inputs: Sequence[Any], params: dict[str, Any],
             walls: Sequence[int | None]) -> list[Any]:
        from exactdp import workers

        n = len(inputs)
        out: list[Any] = [Lost("not reported by any worker")] * n
        finished = [0]
        verbose = self.progress is not None
        say(self.progress, f"  the {n} inputs run on {self.where}, one job each")

        def done(i: int, envelope: dict[str, Any]) -> None:
            out[i] = envelope["value"]
            finished[0] += 1
            state = ("failed" if isinstance(out[i], Failed) else
                     "stopped at its budget" if getattr(out[i], "stopped", "") else "done")
            say(self.progress, f"  [{finished[0]}/{n}] input {show(inputs[i])}: {state} "
                               f"({envelope['ns'] // 10**6} ms on a worker)")

        def lost(i: int, why: str) -> None:
            out[i] = Lost(why)
            finished[0] += 1
            say(self.progress, f"  [{finished[0]}/{n}] input {show(inputs[i])}: NOT RUN "
                               f"({why})")

        jobs = [(i, run_input, (self.loader, task, c, i, n, params, walls[i], verbose))
                for i, c in enumerate(inputs)]
        if self.workers is not None:
            workers.run_pool(jobs, self.workers, done, lost,
                             label=lambda i: f"input {show(inputs[i])}")
        else:
            workers.run_dask(jobs, self.client, self.code, done, lost)
        return out
