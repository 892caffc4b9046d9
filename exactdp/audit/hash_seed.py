"""A pass confirmed in other processes: the law must not depend on the process's hash seed.

A white-box law is computed in one process, whose hash seed (``PYTHONHASHSEED``, random by
default) fixes the iteration order of every set and frozenset of strings or bytes (and of a
dict or list built from one).  Code that branches on that order -- ``next(iter({"keep",
"flip"}))`` -- is a fixed function of its draws within the process, so the re-run of every
path and every guard agree, yet another process computes another law.  Before a white-box
verdict (or an :mod:`exactdp.testing` assertion) passes, :func:`confirm` therefore replays
the audit in :data:`SEEDS` (two) more processes, each started with another fixed hash seed (run at
the same time): every explored path's recorded draws run again there (nothing is explored
anew), and each must give the same output and the same draws (choices and domains) and, in
the first of them, the same trace (operation count, trace events, sleep/clock/output calls)
that the timing verdict was computed from; a counting mechanism's distribution is computed again
there and must be equal.  A difference is a ``"nondeterministic"`` finding naming the
input, the path's draws and the two results (white-box verdict ``"broken"``, exit status
3, as for the other escapes).  Equal replays in every process make the law the same law
there: the same choices with the same domains and no draw more or less is the same tree of
paths with the same masses.

How a second process rebuilds the mechanism: the command line's TARGET text and options
(the :class:`~exactdp.audit.parallel.Loader` of ``--workers``); a Python object is pickled
*before* the audit calls it (:func:`recipe`; with ``cloudpickle`` where installed, which
also carries lambdas and closures by value, else :mod:`pickle`, which needs a module-level
function or an object of an importable class).  A mechanism that cannot be pickled, or
that the second process cannot rebuild, is not confirmed: the white-box verdict is
``"incomplete"`` (exit status 2) and an assertion fails, saying why -- never a pass.  Asked
to skip the confirmation (``hash_seed_check=False``, ``--hash-seeds 0``), a pass
says it holds in this process only.

What it cannot promise: a dependence that shows under none of the seeds tried.  The order
of a small set of strings is close to a fresh random permutation for each seed, so code
choosing by it behaves like a choice among ``m`` orders; with three seeds in all (this
process's and two more) the replays all agree only if the three seeds fall on the same
choice, about ``m**-2`` of the time (1/4 for a choice between two strings, 1/9 among
three) -- and less as the choice repeats over inputs; ``k`` more seeds (``hash_seeds``,
``--hash-seeds``) make it ``m**-k``.  The only sound fix is in the code: sort what it
iterates (``sorted(names)``), which is the same in every process.
"""

from __future__ import annotations

import contextlib
import gc
import io
import marshal
import os
import pickle
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exactdp.audit.guard import Abort, Finding, show
from exactdp.audit.path_log import PathLog

__all__ = ["SEEDS", "Confirmation", "Path", "confirm", "recipe", "unconfirmed_note"]

#: How many more processes a pass is confirmed in, by default (one per hash seed, run at
#: the same time); their seeds are 1, 2, 3, ..., skipping this process's own
#: ``PYTHONHASHSEED``.
SEEDS = 2

#: One explored path: its choices, its draws ``(options, den, numerators or None)`` and its
#: result.
Path = tuple[tuple[int, ...], tuple[tuple[int, int], ...], Any]


@dataclass(frozen=True)
class Recipe:
    """How another process rebuilds the mechanism: ``loader`` (``fn(*args)``, picklable by
    name) or ``blob`` (the pickled object); ``why`` when neither is possible."""

    loader: Any = None
    blob: bytes | None = None
    why: str = ""


@dataclass(frozen=True)
class Confirmation:
    """The outcome of :func:`confirm`: ``finding`` (a difference: ``"nondeterministic"``),
    ``unconfirmed`` (why nothing was confirmed), or neither (confirmed); ``line``: what was
    done, for the report; ``cpu``: the CPU seconds of the processes."""

    finding: Finding | None = None
    unconfirmed: str = ""
    line: str = ""
    cpu: Fraction = field(default_factory=Fraction)
    seeds: tuple[str, ...] = field(default_factory=tuple)
    #: per input, the joint law of (output, trace) with the traces counted in the first
    #: other process (white-box paths): the timing verdict is judged on it again
    laws: dict[Any, dict[Any, Any]] = field(default_factory=dict)


def recipe(mechanism: Any, loader: Any = None) -> Recipe:
    """How another process rebuilds ``mechanism``: ``loader`` when given, else the object
    pickled now (before the audit calls it: a cache it fills is not carried over)."""
    if loader is not None:
        return Recipe(loader=loader)
    try:
        return Recipe(blob=_dumps(mechanism))
    except Exception as exc:  # noqa: BLE001 - any pickling failure: not rebuildable
        hint = ""
        try:
            import cloudpickle  # noqa: F401
        except ImportError:
            hint = ("; lambdas and closures need cloudpickle: pip install "
                    "'exactdp[testing]'")
        return Recipe(why=f"it cannot be pickled ({type(exc).__name__}: "
                          f"{_cut(str(exc))}){hint}")


def _dumps(value: Any) -> bytes:
    try:
        import cloudpickle
    except ImportError:  # pragma: no cover - the testing extra installs it; pickle by name
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)

    class Pickler(cloudpickle.Pickler):  # type: ignore[misc,name-defined]
        def reducer_override(self, obj: Any) -> Any:
            if isinstance(obj, types.FunctionType) and _in_module(obj):
                return _function_reduce(obj)
            return super().reducer_override(obj)

    buffer = io.BytesIO()
    Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return buffer.getvalue()


def _in_module(fn: types.FunctionType) -> bool:
    """Whether ``fn`` is a nested function or lambda whose globals are an importable
    module's (not ``__main__``) and that is not reachable by its name: rebuilt from its
    code in that module's own namespace (cloudpickle would give it a copy of the globals
    and another file name, which the operation count reads)."""
    home = fn.__globals__.get("__name__")
    module = sys.modules.get(home) if isinstance(home, str) else None
    if module is None or home == "__main__" or fn.__globals__ is not vars(module):
        return False
    named = sys.modules.get(fn.__module__) if isinstance(fn.__module__, str) else None
    found: Any = named
    for part in fn.__qualname__.split("."):
        found = getattr(found, part, None)
    return found is not fn


def _function_reduce(fn: types.FunctionType) -> tuple[Any, ...]:
    cells = len(fn.__closure__ or ())
    state = ([c.cell_contents if _filled(c) else _EMPTY for c in fn.__closure__ or ()],
             fn.__defaults__, fn.__kwdefaults__, dict(vars(fn)), fn.__module__, fn.__doc__)
    return (_make_function, (marshal.dumps(fn.__code__), fn.__globals__["__name__"],
                             fn.__name__, fn.__qualname__, cells), state, None, None,
            _fill_function)


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


class _Empty:
    pass


_EMPTY = _Empty()


def _make_function(code: bytes, module: str, name: str, qualname: str,
                   cells: int) -> types.FunctionType:
    import importlib

    fn = types.FunctionType(marshal.loads(code), vars(importlib.import_module(module)), name,
                            None, tuple(types.CellType() for _ in range(cells)) or None)
    fn.__qualname__ = qualname
    return fn


def _fill_function(fn: types.FunctionType, state: tuple[Any, ...]) -> types.FunctionType:
    contents, defaults, kwdefaults, attributes, fn.__module__, fn.__doc__ = state
    for cell, value in zip(fn.__closure__ or (), contents, strict=True):
        if not isinstance(value, _Empty):
            cell.cell_contents = value
    fn.__defaults__, fn.__kwdefaults__ = defaults, kwdefaults
    vars(fn).update(attributes)
    return fn


def _cut(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def seeds(count: int = SEEDS) -> tuple[str, ...]:
    """The fixed hash seeds 1, 2, ... of ``count`` processes, skipping this process's own
    ``PYTHONHASHSEED``."""
    mine = os.environ.get("PYTHONHASHSEED", "")
    out: list[str] = []
    seed = 1
    while len(out) < count:
        if str(seed) != mine.strip():
            out.append(str(seed))
        seed += 1
    return tuple(out)


def unconfirmed_note(why: str) -> str:
    return (f"not confirmed in another process: {why}; the law was computed under this "
            f"process's hash seed only, and code whose output depends on the iteration order "
            f"of a set of strings gives another law in another process")


def confirm(rebuild: Recipe, mode: str, params: Mapping[str, Any],
            inputs: Sequence[tuple[Any, Any]], progress: Callable[[str], None] | None = None,
            timeout: float = 600, count: int = SEEDS) -> Confirmation:
    """Replay ``inputs`` -- per input ``(c, paths)``: a list of :data:`Path` (``mode``
    ``"audit"``, ``"oracle"``, ``"traced"``) or the exact distribution (``"counting"``,
    ``"counting_oracle"``) -- in one process for each of ``count`` seeds (:func:`seeds`),
    all at once; the first difference is the finding.  The first process compares a
    white-box path's trace too, the others its output and draws.  Processes still running after ``timeout`` seconds
    are stopped: nothing is confirmed."""
    if rebuild.why:
        return Confirmation(unconfirmed=rebuild.why)
    try:
        job = _job(mode, params, inputs)
    except Exception as exc:  # noqa: BLE001 - an output that does not pickle
        return Confirmation(unconfirmed=f"its outputs cannot be pickled "
                                        f"({type(exc).__name__}: {_cut(str(exc))})")
    head = pickle.dumps({"loader": rebuild.loader, "blob": rebuild.blob,
                         "cwd": os.getcwd()}, protocol=pickle.HIGHEST_PROTOCOL)
    used = seeds(count)
    count = sum(len(p) if mode in ("audit", "oracle", "traced") else 1 for _, p in inputs)
    what = ("paths" if mode in ("audit", "oracle", "traced") else "distributions")
    if progress is not None:
        progress(f"  confirming in {len(used)} more processes (hash seeds "
                 f"{', '.join(used)}): replaying {count} {what}")
    before = _children_cpu()
    end = time.monotonic() + timeout
    with tempfile.TemporaryDirectory(prefix="exactdp-hash-seed-") as tmp:
        name = os.path.join(tmp, "job")
        with open(name, "wb") as fh:
            # this process's import path first, plain strings: set before anything that
            # imports (the head's loader is pickled by name)
            pickle.dump((list(sys.path), head, job), fh, protocol=pickle.HIGHEST_PROTOCOL)
        runs = []
        for i, seed in enumerate(used):
            env = dict(os.environ, PYTHONHASHSEED=seed)
            err = open(os.path.join(tmp, f"err{seed}"), "w+b")  # noqa: SIM115 - closed below
            runs.append((seed, err, subprocess.Popen(
                [sys.executable, "-c", _BOOT, name, "traced" if i == 0 else "plain"], env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=err)))
        results: list[tuple[str, int, bytes, str]] = []
        for seed, err, proc in runs:
            try:
                out, _ = proc.communicate(timeout=max(1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                for _, other_err, other in runs:
                    other.kill()
                    other.communicate()
                    other_err.close()
                return Confirmation(unconfirmed=f"the replays did not finish within "
                                                f"{timeout:.0f} s",
                                    cpu=_children_cpu() - before, seeds=used)
            err.seek(0)
            results.append((seed, proc.returncode, out, err.read().decode(errors="replace")))
            err.close()
    cpu = _children_cpu() - before
    for seed, code, out, text in results:
        try:
            answer = pickle.loads(out) if code == 0 else None
        except Exception:  # noqa: BLE001 - a garbled answer: not confirmed
            answer = None
        if answer is None:
            tail = text.strip().splitlines()[-1:] or [f"exit status {code}"]
            return Confirmation(unconfirmed=f"the process with hash seed {seed} failed "
                                            f"({_cut(tail[0])})", cpu=cpu, seeds=used)
        if "unbuilt" in answer:
            return Confirmation(unconfirmed=f"another process could not rebuild it "
                                            f"({_cut(answer['unbuilt'])})", cpu=cpu, seeds=used)
        if "differ" in answer:
            return Confirmation(finding=_finding(seed, answer["differ"]), cpu=cpu, seeds=used)
    laws = dict(pickle.loads(results[0][2]).get("laws") or {}) if results else {}
    line = (f"confirmed in {len(used)} more processes (hash seeds {', '.join(used)}): the "
            f"same outputs and draws on all {count} {what}" if what == "paths" else
            f"confirmed in {len(used)} more processes (hash seeds {', '.join(used)}): the "
            f"same distribution on all {count} inputs")
    return Confirmation(line=line, cpu=cpu, seeds=used, laws=laws)


#: the modes whose inputs are explored paths (the others: one distribution per input)
_PATHS = ("audit", "oracle", "traced")


def _job(mode: str, params: Mapping[str, Any], inputs: Sequence[tuple[Any, Any]]) -> bytes:
    """The replays for the other processes, pickled.  Paths: per input, a
    :class:`~exactdp.audit.path_log.PathLog`'s tables (the distinct draw sequences, the
    distinct results) and its rows (each path's choices and two indices): plain
    :mod:`pickle` of ints, bytes and a few shared objects, with cloudpickle only for
    results that need it."""
    if mode not in _PATHS:
        return _dumps({"mode": mode, "params": dict(params), "inputs": list(inputs)})
    task = {"mode": mode, "params": dict(params), "logs": True,
            "inputs": [(c, PathLog.of(paths).state()) for c, paths in inputs]}
    try:
        return pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - a result or input that only cloudpickle carries
        return _dumps(task)


def _weights(draws: Sequence[tuple[Any, ...]]) -> tuple[int, tuple[tuple[int, Any], ...]]:
    """A draw sequence's weights: the product of its denominators, and the position and
    numerators of each draw whose options are not equally likely (the others weigh 1)."""
    den = 1
    for _, d, _ in draws:
        den *= d
    return den, tuple((i, nums) for i, (_, _, nums) in enumerate(draws) if nums is not None)


def _numerator(choices: Sequence[int], coins: tuple[tuple[int, Any], ...]) -> int:
    """A path's exact probability's numerator over its draw sequence's denominator
    (:func:`_weights`): the product of the numerators of its unequally likely draws."""
    num = 1
    for i, nums in coins:
        num *= nums[choices[i]]
    return num


def _add(sums: dict[Any, dict[int, int]], key: Any, num: int, den: int) -> None:
    """Add ``num / den`` to ``key``'s mass, kept as a sum of numerators per denominator
    (the paths of one exploration share few): one exact sum per key at the end."""
    per = sums.setdefault(key, {})
    per[den] = per.get(den, 0) + num


def _masses(sums: Mapping[Any, Mapping[int, int]]) -> dict[Any, Fraction]:
    return {key: sum((Fraction(num, den) for den, num in per.items()), Fraction(0))
            for key, per in sums.items()}


def _children_cpu() -> Fraction:
    """CPU seconds of this process's finished children (0 where not known), exactly as the
    system reports them."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on this platform
        return Fraction(0)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Fraction(used.ru_utime) + Fraction(used.ru_stime)


def _finding(seed: str, differ: Mapping[str, Any]) -> Finding:
    c = differ["c"]
    where = ("" if differ.get("choices") is None else
             f", on the path with draws {_cut(str(list(differ['choices'])), 120)}")
    return Finding(
        "nondeterministic",
        f"the output depends on the process's hash seed: on input {show(c)}{where}, this "
        f"process got {differ['first']} and a process started with PYTHONHASHSEED={seed} "
        f"{differ['second']} (same draws): the code depends on the iteration order of a set "
        f"(or a dict or list built from one) of strings or bytes, or on another value "
        f"fixed per process; its law differs between processes. Iterate in a fixed order "
        f"(sorted(...)), or audit it black-box (--kind blackbox)",
        {"c": c, "choices": None if differ.get("choices") is None else
         list(differ["choices"]), "hash_seed": seed})


# --------------------------------------------------------------------------- the other process

#: the other process's program: the import path set before anything that imports, then
#: :func:`main`; the job held in a function's frame, not in ``__main__``'s globals, which
#: the escape watch follows as the user's (a list bound there is compared after every call)
_BOOT = ("import sys, pickle\n"
         "def boot(path, head, job):\n"
         "    sys.path[:] = path\n"
         "    from exactdp.audit.hash_seed import main\n"
         "    main(head, job, sys.argv[2] == 'traced')\n"
         "boot(*pickle.load(open(sys.argv[1], 'rb')))\n")


def main(head: bytes, job: bytes, traced: bool = True) -> None:
    """The other process: rebuild the mechanism, replay, answer on stdout (pickled).
    ``traced=False``: a white-box path's output and draws only, not its operation count."""
    real = sys.stdout.buffer
    with contextlib.redirect_stdout(io.StringIO()):  # the audited code's prints
        answer = _answer(head, job, traced)
    real.write(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))
    real.flush()


def _answer(head: bytes, job: bytes, traced: bool = True) -> dict[str, Any]:
    spec = pickle.loads(head)
    # the job's paths and the rebuilt mechanism live to the end: made with the garbage
    # collector off (unpickling the job's hundreds of thousands of small objects set off a
    # collection every few hundred of them), then put out of its sight (it walked them at
    # every full collection during the replays)
    gc.disable()
    try:
        os.chdir(spec["cwd"])
        if spec["loader"] is not None:
            from exactdp.audit.parallel import _mechanism

            mechanism = _mechanism(spec["loader"])
        else:
            mechanism = pickle.loads(spec["blob"])
        task = pickle.loads(job)
    except Exception as exc:  # noqa: BLE001 - the target does not rebuild here
        return {"unbuilt": f"{type(exc).__name__}: {exc}"}
    finally:
        gc.freeze()
        gc.enable()
    from exactdp.audit.escape import watching

    mode, params = task["mode"], task["params"]
    if mode == "audit" and not traced:
        mode = "audit_plain"
    laws: dict[Any, dict[Any, Any]] = {}
    logs = task.get("logs", False)
    with watching(mechanism) as watch:  # the guards installed as there (they wrap, e.g.,
        for c, expected in task["inputs"]:  # random.Random: the operation count sees it)
            kept = laws.setdefault(c, {}) if mode == "audit" else None
            differ = (_paths(mechanism, mode, params, c, _Replays(*expected), watch, kept)
                      if logs else _counting(mechanism, mode, params, c, expected, watch))
            if differ is not None:
                return {"differ": differ}
    return {"ok": True, "laws": laws}


class _Replays:
    """One input's paths from a :class:`~exactdp.audit.path_log.PathLog`'s state: iterated,
    per path its choices, draws and result, and the log entries an unweighed source makes
    for those draws (:class:`~exactdp.explore.ExploringSource`'s ``recorded``: each draw is
    checked against the recorded one as it is made) and its sequence's weights (each
    path's tuple made as it is replayed, none kept: the garbage collector walks every
    object kept)."""

    __slots__ = ("draws", "entries", "results", "rows", "weights")

    def __init__(self, draws: Sequence[tuple[tuple[Any, ...], ...]], results: Sequence[Any],
                 rows: Sequence[tuple[Any, int, int]]) -> None:
        self.draws, self.results, self.rows = draws, results, rows
        self.entries = [[(size, 1, 1, den, None if nums is None else list(nums))
                         for size, den, nums in sequence] for sequence in draws]
        # per sequence, shared by its paths: its index and weights (the paths' masses are
        # summed per sequence, then once per denominator)
        self.weights = [(d, *_weights(sequence)) for d, sequence in enumerate(draws)]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        draws, results, entries, weights = self.draws, self.results, self.entries, self.weights
        for choices, d, r in self.rows:
            yield tuple(choices), draws[d], results[r], entries[d], weights[d]



def _paths(mechanism: Any, mode: str, params: Mapping[str, Any], c: Any,
           paths: _Replays, watch: Any,
           kept: dict[Any, Any] | None = None) -> dict[str, Any] | None:
    """Replay one input's paths; a facade that gives up lazy values restarts the
    exploration (:class:`~exactdp.explore.RestartExploration`), as it did there: the
    input's paths are replayed again from the first, in its new mode."""
    from exactdp.audit.guard import alarm_handler
    from exactdp.explore import RestartExploration

    for _ in range(_RESTARTS):
        if kept is not None:
            kept.clear()
        try:
            # (the time limit's timer started once for the input's replays, as for the
            # audit's exploration: no timer set and cancelled per run)
            with alarm_handler(params.get("time_limit")):
                return _replayed(mechanism, mode, params, c, paths, watch, kept)
        except RestartExploration:
            continue
    first = next(iter(paths), ((), None, None))
    return _differ(c, first[0], first[2],
                   f"restarted the exploration more than {_RESTARTS} times")


#: restarts of one input's replay (a facade's modes: lazy values, lazy integers)
_RESTARTS = 4


def _replayed(mechanism: Any, mode: str, params: Mapping[str, Any], c: Any,
              paths: Iterable[tuple[Any, ...]], watch: Any, kept: dict[Any, Any] | None
              ) -> dict[str, Any] | None:
    """Replay ``paths``: the same output and draws, else the difference.  White-box paths
    carry their output alone; ``kept`` (the first process): filled with the joint law of
    (output, trace) with the traces counted here, for the timing verdict to be judged
    again -- not compared path by path: a library's bookkeeping (a logger's cache) may
    count differently in a fresh process without changing what an observer learns.  The
    first path runs twice, its trace the warm one's, as in the audit."""
    run, hold = _runner(mechanism, mode, params, c, watch)
    # as the audit explores an input: the operation count's recorders held in place
    # between the runs (and one timer for their time limits: _paths)
    with hold:
        return _replay_all(run, mode, params, c, paths, watch, kept)


def _replay_all(run: Callable[[Any], Any], mode: str, params: Mapping[str, Any], c: Any,
                paths: Iterable[tuple[Any, ...]], watch: Any, kept: dict[Any, Any] | None
                ) -> dict[str, Any] | None:
    from exactdp.explore import ExploringSource, PathCut, RestartExploration

    max_uniform = params["max_uniform"]
    memo: dict[Any, Any] = {}
    # per (output and trace, draw sequence): the sum of its paths' numerators over the
    # sequence's denominator (the product of the numerators of its unequally likely draws;
    # 1 per path when all are equally likely)
    per_sequence: dict[tuple[Any, int], list[int]] = {}
    dens: dict[int, int] = {}
    from exactdp.audit.per_input import draw_record

    # a white-box replay's outcome (an immutable outcome object, one per equal output of
    # an input: guard.plain_observed) found equal to a recorded result, by the result's id
    # (the job's results live to the end): the same object again needs no comparison
    same: dict[int, Any] = {}
    started = False
    for choices, draws, first, entries, weights in paths:
        n = len(choices)
        # as the audit ran it (per_input.path_runner): the first path, and every path once
        # a memo is in use (reset to its first content: Watch.restore), runs cold -- else
        # a memo filled on two paths in a row (here each runs once) reads as a counter
        cold = watch.restore() or not started
        started = True
        for attempt in (0, 1):  # a cold white-box path: once more, warm
            # each draw checked against the recorded one as it is made: a source whose log
            # is the list of those entries made the same draws (else compared in full)
            src = ExploringSource(choices, max_uniform, max_draws=n,
                                  memo=memo, weigh=False, recorded=entries)
            try:
                second = run(src)
            except RestartExploration:
                raise
            except PathCut:
                return _differ(c, choices, first, "made more draws")
            except Abort as abort:  # the guard's finding (it raised, hung, left its range)
                return _differ(c, choices, first, _cut(abort.finding.message, 300))
            except Exception as exc:  # noqa: BLE001 - it raised here, not there
                return _differ(c, choices, first, f"raised {type(exc).__name__}: "
                                                  f"{_cut(str(exc))}")
            if src.log != entries or tuple(src.choices) != choices:
                got = draw_record(src)
                if tuple(src.choices) != choices or got != tuple(draws):
                    return _differ(c, choices, first, f"made draws {_cut(str(list(got)))} "
                                                      f"instead of {_cut(str(list(draws)))}")
            if mode == "audit_plain":
                if second is not same.get(id(first)):
                    if second != first:
                        return _differ(c, choices, first, f"output {show(second)}")
                    same[id(first)] = second
                break
            if kept is not None:
                output = second[0]
                if output is not same.get(id(first)):
                    if output != first:
                        return _differ(c, choices, first, f"output {show(output)}")
                    same[id(first)] = output
                if attempt == 1 or not (cold or watch.grew):  # (a memo first grown here)
                    d, den, coins = weights
                    num = _numerator(choices, coins) if coins else 1
                    at = ((first, second[1]), d)
                    cell = per_sequence.get(at)  # (the key hashed once when it is there)
                    if cell is None:
                        per_sequence[at] = [num]
                        dens[d] = den
                    else:
                        cell[0] += num
                    break
                continue
            if second == first:
                break
            return _differ(c, choices, first, f"output {show(second)}")
    if kept is not None:
        sums: dict[Any, dict[int, int]] = {}
        for (key, d), (num,) in per_sequence.items():
            _add(sums, key, num, dens[d])
        kept.update(_masses(sums))
    return None


def _runner(mechanism: Any, mode: str, params: Mapping[str, Any], c: Any, watch: Any
            ) -> tuple[Callable[[Any], Any], Any]:
    """The replay of one path, and a context manager to run the replays in (a white-box
    path's operation count held across them, as the audit holds it for an input's
    exploration: :func:`~exactdp.audit.per_input.explore_input`)."""
    if mode == "audit":
        from exactdp.audit.counted_runs import Counting
        from exactdp.audit.guard import Guard
        from exactdp.audit.per_input import runner

        guard = Guard(params["time_limit"], watch)
        counting = Counting(mechanism)
        call = f"f({show(c)}, source)"  # how messages name the call: once per input
        # (per_input.run_once's runs of one input, made once)
        return runner(mechanism, c, guard, params["randomness_size"], params["allowed"],
                      counting, call), counting.held()
    return _plain_runner(mechanism, mode, params, c, watch), contextlib.nullcontext()


def _plain_runner(mechanism: Any, mode: str, params: Mapping[str, Any], c: Any, watch: Any
                  ) -> Callable[[Any], Any]:
    from exactdp.audit.escape import armed

    if mode == "audit_plain":
        from exactdp.audit.guard import Guard, check_observed
        from exactdp.audit.per_input import GuardedSource

        plain = Guard(params["time_limit"], watch)
        call, witness, allowed = f"f({show(c)}, source)", {"c": c}, params["allowed"]
        size = params["randomness_size"]
        memo: dict[Any, Any] = {}  # (the outcomes of lists and tuples, as the audit's runs)

        def check(v: Any) -> Any:
            # the output keyed as the audit keys it (its type and exact value: a list stays
            # a list, a float its exact value): else it differs from the one recorded there
            return check_observed(v, allowed, call, witness, memo=memo)
        # the source the audit's runs draw from (per_input.run_once): its draws charged
        # against the declared domain, the facades' draws in their native chain
        return lambda src: plain.call(mechanism, (c, GuardedSource(src, size, c)), call,
                                      witness, check=check)

    if mode == "traced":
        from exactdp.trace import recording

        def traced(src: Any) -> Any:
            with recording() as events, armed(watch):
                mechanism(c, src)
            return tuple(events)
        return traced

    def plain_call(src: Any) -> Any:
        with armed(watch):
            return mechanism(src) if params.get("sampler") else mechanism(c, src)
    return plain_call


def _counting(mechanism: Any, mode: str, params: Mapping[str, Any], c: Any,
              expected: Any, watch: Any) -> dict[str, Any] | None:
    try:
        if mode == "counting":
            from exactdp.audit.guard import Guard
            from exactdp.audit.per_input import CountingAdapter, counting_input

            adapter = CountingAdapter(mechanism, params["d"], params["allowed"],
                                      Guard(params["time_limit"], watch))
            got = counting_input(adapter, c, params["enumerate_all"],
                                 params["enumeration_limit"])
        else:
            from exactdp.audit.escape import armed
            from exactdp.checker import counting_distribution

            with armed(watch):
                got = counting_distribution(mechanism, c)
    except Abort as abort:
        return {"c": c, "choices": None, "first": "a distribution",
                "second": _cut(abort.finding.message, 300)}
    except Exception as exc:  # noqa: BLE001 - it raised here, not there
        return {"c": c, "choices": None, "first": "a distribution",
                "second": f"raised {type(exc).__name__}: {_cut(str(exc))}"}
    if dict(got) == dict(expected):
        return None
    return {"c": c, "choices": None, "first": f"the distribution {_cut(_law(expected))}",
            "second": f"the distribution {_cut(_law(got))}"}


def _law(dist: Mapping[Any, Any]) -> str:
    return "{" + ", ".join(f"{show(o)}: {p}" for o, p in dist.items()) + "}"


def _differ(c: Any, choices: Sequence[int], first: Any, what: str) -> dict[str, Any]:
    shown = f"output {show(first)}"
    return {"c": c, "choices": tuple(choices), "first": shown, "second": what}
