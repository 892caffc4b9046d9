"""The cost of a white-box exploration, estimated before it starts, and its limit.

Exploring ``f(c, source)`` runs every path of its draws, twice (the re-run of
:mod:`exactdp.audit.replay`), on every input.  Before that, :func:`estimate` runs a few
*descents* on a sample of the inputs (the first, the middle and the last): Knuth's
estimator of the size of a tree, applied to the decomposition of the tree of paths into its
first-choice path and the subtrees off it (:func:`_descent`; a seeded generator picks the
subtrees: the same estimate every time).  Each path a descent runs is run as the
exploration runs it (guarded, counted and re-run), and its draws, weighted like its count,
estimate the work of the paths it stands for, in units of ``1 + draws`` (a long path costs
more); a unit's CPU time is the median over every path run by the estimate.  Knuth's
estimator on the draws themselves (one option uniformly at random at every draw) is
usually far too low for a loop: the probes rarely go deep (a geometric loop to N = 100
estimated 7 paths per input instead of about 100); the first-choice decomposition counts a
loop exactly whichever option continues it.  The estimate is still only that, and the
limit is also enforced while the exploration runs (:func:`exploration_deadline`, the
white-box audit's ``max_seconds``): on the command line as processor time, the estimate's
unit (:func:`cpu_limit`), so that an audit that fits is neither refused nor stopped when
other processes share the processors; elsewhere on the wall clock.

A probe is the audited code's run like any other: an escape, a failure or a timeout stops
the audit as it would in the exploration.  A probe that restarts (a lazy value used
otherwise than compared, :mod:`exactdp.audit.facade_lazy`) is run again.  What a facade
learns on the probes (its notes, breakpoint searches, whether lazy values escaped) is
forgotten afterwards (:func:`unchanged`): the exploration and its report are the same as
without the estimate.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import random
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.explore import (
    MAX_RESTARTS,
    ExplorationLimitError,
    ExploringSource,
    RestartExploration,
)
from exactdp.params import ResourceLimitError
from exactdp.randomness import RandomSource

__all__ = ["PROBES", "Estimate", "OverLimit", "cpu_limit", "estimate", "exploration_deadline",
           "over_deadline", "over_estimate", "unchanged"]

NS = 10**9
#: Descents per sampled input.
PROBES = 12
#: Most draws one probe makes before it is stopped (its estimate counts the draws so far).
PROBE_DRAWS = 10**4
#: Most paths run by one descent (a deeper decomposition is counted up to there).
MAX_DESCENT = 1000
#: CPU nanoseconds after which an input's descents stop (after at least 2).
PROBE_NS = NS // 2


class _Spine(ExploringSource):
    """The path that replays ``prefix`` and takes choice 0 at every later draw (cut, as the
    exploration cuts it, at ``max_draws``)."""

    def __init__(self, prefix: tuple[int, ...], max_draws: int = PROBE_DRAWS) -> None:
        super().__init__(prefix, max_draws=max_draws)


@dataclass(frozen=True)
class Estimate:
    """Paths per input (the mean over ``probes`` descents), CPU nanoseconds per path (its
    re-run included), and the whole exploration's CPU nanoseconds over ``inputs``
    inputs -- at most what the exploration's budget lets it run (:meth:`capped`)."""

    paths: int
    ns_per_path: int
    inputs: int
    probes: int
    #: ``--max-paths``: each input's exploration stops after this many paths.
    max_paths: int | None = None
    #: ``--time-budget``: the whole exploration stops after this many nanoseconds (of
    #: wall-clock time, which bounds its processor time).
    budget_ns: int | None = None

    @property
    def ns(self) -> int:
        paths = self.paths if self.max_paths is None else min(self.paths, self.max_paths)
        ns = paths * self.inputs * self.ns_per_path
        return ns if self.budget_ns is None else min(ns, self.budget_ns)

    def capped(self, max_paths: int | None, budget_ns: int | None) -> Estimate:
        """This estimate of an exploration that stops at ``max_paths`` paths per input and
        after ``budget_ns`` nanoseconds (None: no such budget)."""
        return dataclasses.replace(self, max_paths=max_paths, budget_ns=budget_ns)

    def _stopped(self) -> str:
        """The budgets that stop the exploration before it ends, in words ("" if none)."""
        full = self.paths * self.inputs * self.ns_per_path
        stops = []
        if self.max_paths is not None and self.paths > self.max_paths:
            stops.append(f"--max-paths {self.max_paths} per input")
        if self.budget_ns is not None and self.budget_ns < full:
            stops.append(f"--time-budget {_seconds(self.budget_ns)}")
        return (f"; stopped sooner by {' and '.join(stops)} (a partial verdict)"
                if stops else "")

    def line(self) -> str:
        """The estimate in words, for stderr."""
        return (f"estimate: about {self.paths} paths per input (the larger of Knuth's "
                f"estimators along first-choice paths and on the draws, {self.probes} "
                f"tries), "
                f"{_seconds(self.ns)} CPU for {self.inputs} inputs{self._stopped()}")


def over_estimate(guess: Estimate, limit: int) -> ResourceLimitError:
    """The refusal of an exploration estimated past ``--max-seconds`` ``limit`` (nothing
    explored): the estimate, and what to pass -- a budget for a partial verdict, or the
    limit that lets it run."""
    return ResourceLimitError(
        f"the white-box exploration would take about {guess.ns // NS} s CPU "
        f"({guess.paths} paths per input, estimated from {guess.probes} probe paths"
        f"{guess._stopped()}), over --max-seconds {limit}; audit fewer inputs, pass "
        f"--max-paths N or --time-budget S for a partial verdict (INCOMPLETE, or a "
        f"VIOLATION certain from the mass covered), or pass --max-seconds "
        f"{2 * guess.ns // NS + 1} to run it anyway")


def _seconds(ns: int) -> str:
    s = ns // NS
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60} min"
    if s >= 60:
        return f"{s // 60} min {s % 60} s"
    return f"{s} s" if s else "under a second"


def _spine(run: Callable[[RandomSource], Any], prefix: tuple[int, ...],
           max_draws: int = PROBE_DRAWS) -> tuple[ExploringSource, int]:
    """Run the path replaying ``prefix`` then taking choice 0 (restarted when the
    mechanism restarts its exploration); the source and the CPU nanoseconds."""
    src = _Spine(prefix, max_draws)
    start = time.process_time_ns()
    for _attempt in range(MAX_RESTARTS + 1):
        src = _Spine(prefix, max_draws)
        try:
            run(src)
        except RestartExploration:
            continue
        except ExplorationLimitError:
            pass  # cut off: the options met so far still estimate
        break
    return src, time.process_time_ns() - start


def _descent(run: Callable[[RandomSource], Any], rng: random.Random,
             max_draws: int = PROBE_DRAWS, rates: list[Fraction] | None = None
             ) -> tuple[Fraction, Fraction]:
    """One estimate of the number of paths and of their total work, in runs' units of
    ``1 + draws`` (a long path costs more); ``rates``: gets each path run's CPU nanoseconds
    per unit.

    The paths of a tree are its first-choice path (choice 0 at every draw, the one the
    exploration runs first) and the paths of the subtrees rooted at each alternative
    along it (a prefix of that path, then another option at one draw).  Knuth's
    estimator on that decomposition: run the first-choice path, pick one alternative
    ``a`` with probability ``p_a`` and count its subtree ``1 / p_a`` times -- recursively,
    an unbiased estimate.  ``p_a`` is half uniform over the ``A`` alternatives and half
    proportional to ``g_a``, the product of the option counts of the first-choice path's
    draws after the alternative's (the subtree's size if it were shaped like the rest of
    the path): the second half keeps the estimate near for trees of independent draws
    (sparse vector), the first bounds ``1 / p_a`` by ``2 A``.  Unlike Knuth's estimator
    on the draws themselves, a loop is estimated near its size whichever option continues
    it: when choice 0 continues, the first-choice path is the whole loop and every
    alternative a leaf; when choice 0 stops, each subtree is one step shorter."""
    prefix: tuple[int, ...] = ()
    weight, paths, ns = Fraction(1), Fraction(0), Fraction(0)
    for _ in range(MAX_DESCENT):
        src, cpu = _spine(run, prefix, max_draws)
        sizes = src.sizes
        paths += weight
        ns += weight * (1 + len(sizes))
        if rates is not None:
            rates.append(Fraction(cpu, 1 + len(sizes)))
        # per draw after the prefix: its alternatives and their size guess
        rest = 1
        spots: list[tuple[int, int, int]] = []  # (position, alternatives, guess)
        for i in range(len(sizes) - 1, len(prefix) - 1, -1):
            if sizes[i] > 1:
                spots.append((i, sizes[i] - 1, rest))
            rest *= sizes[i]
        count = sum(alt for _, alt, _ in spots)
        if not count:
            break
        total = sum(alt * guess for _, alt, guess in spots)
        # p_a = 1/(2A) + g_a/(2G) = (G + A g_a) / (2 A G): draw on [0, 2 A G)
        r = rng.randrange(2 * count * total)
        for i, alt, guess in spots:
            mass = total + count * guess
            if r < alt * mass:
                prefix = (*src.choices[:i], 1 + r // mass)
                weight *= Fraction(2 * count * total, mass)
                break
            r -= alt * mass
    return paths, ns


class _Probe(ExploringSource):
    """A path taking, at every draw, one of its options uniformly at random."""

    def __init__(self, seed: str, max_draws: int = PROBE_DRAWS) -> None:
        super().__init__((), max_draws=max_draws, chooser=random.Random(seed))

    def _choose(self, size: int, den: int, masses: list[int] | None) -> int:
        assert self.chooser is not None
        return self.chooser.randrange(size)


def _probe(run: Callable[[RandomSource], Any], seed: str,
           max_draws: int = PROBE_DRAWS) -> tuple[int, int, int]:
    """Knuth's estimator on the draws themselves: one path taking an option uniformly at
    random at every draw; the product of the option counts along it (an unbiased estimate
    of the number of paths), its CPU nanoseconds and its draws."""
    src = None
    start = time.process_time_ns()
    for attempt in range(MAX_RESTARTS + 1):
        src = _Probe(f"{seed}/{attempt}", max_draws)
        try:
            run(src)
        except RestartExploration:
            continue
        except ExplorationLimitError:
            pass  # cut off: the options met so far still estimate
        break
    assert src is not None
    return math.prod(src.sizes), time.process_time_ns() - start, len(src.sizes)


def estimate(runner: Callable[[Any], Callable[[RandomSource], Any]], inputs: Sequence[Any],
             probes: int = PROBES, budget_ns: int = PROBE_NS,
             max_draws: int | None = None) -> Estimate:
    """Estimate the exploration of every input in ``inputs``; ``runner(c)`` gives the
    function that runs one path of input ``c`` (:func:`exactdp.audit.per_input.path_runner`).

    Two unbiased estimators, each from ``probes`` tries per sampled input: the descents
    along first-choice paths (:func:`_descent`; fewer, at least 2, once their CPU time
    passes ``budget_ns``) and Knuth's estimator on the draws (:func:`_probe`: the paths
    counted, times the mean CPU time of the random paths).  Both have heavy tails -- the
    latter misses deep loops, the former can miss the larger subtrees of a bushy tree --
    and a low estimate lets a long exploration start: the larger of the two is kept.
    ``max_draws``: the exploration's draws per path (its paths are cut there, and so are
    the probes')."""
    n = len(inputs)
    cap = PROBE_DRAWS if max_draws is None else min(PROBE_DRAWS, max_draws)
    sample = [inputs[i] for i in sorted({0, n // 2, n - 1})] if n else []
    paths, units, descents = Fraction(0), Fraction(0), 0
    leaves, probed, runs = 0, 0, 0
    rates: list[Fraction] = []  # CPU nanoseconds per unit (1 + draws) of each path run
    for c in sample:
        run = runner(c)
        # the input's first run is not timed: it does once-per-input work (its first call
        # runs cold and warm, the tracer and the facade are set up), which would be counted
        # as if every path did it
        _spine(run, (), cap)
        start = time.process_time_ns()
        for k in range(probes):
            if k >= 2 and time.process_time_ns() - start > budget_ns:
                break
            p, u = _descent(run, random.Random(f"{c!r}/{k}"), cap, rates)
            paths += p
            units += u
            descents += 1
        for k in range(probes):
            p_, t_, d_ = _probe(run, f"{c!r}/{k}", cap)
            leaves += p_
            probed += 1 + d_
            runs += 1
            rates.append(Fraction(t_, 1 + d_))
    if not descents:
        return Estimate(0, 0, n, 0)
    # the time of a unit: the median of the runs' (one run stretched by a collection or a
    # preemption would otherwise weigh on every path it stands for; the counts of paths and
    # draws are the estimators' own, the same every time)
    rates.sort()
    rate = rates[len(rates) // 2]
    along = (math.ceil(paths / descents), math.floor(units / max(paths, Fraction(1)) * rate))
    knuth = (-(-leaves // runs), math.floor(Fraction(probed, runs) * rate))
    paths_, per_path = max(along, knuth, key=lambda e: e[0] * e[1])
    return Estimate(paths_, per_path, n, descents + runs)


#: What a mechanism (a :class:`~exactdp.audit.facades.FacadeMechanism`) learns while run.
_LEARNT = ("_large", "_cache", "lazy", "lazy_ints", "lazy_used")


@contextmanager
def unchanged(mechanism: Any) -> Iterator[None]:
    """Restore, after the block, what ``mechanism`` learns while run (:data:`_LEARNT`)."""
    saved = {n: copy.copy(getattr(mechanism, n)) for n in _LEARNT if hasattr(mechanism, n)}
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(mechanism, name, value)


class OverLimit(BaseException):
    """Raised by :func:`cpu_limit`'s timer wherever the process is, the audited code
    included.  A BaseException, so that an ``except Exception`` does not swallow it; the
    guard reports it as the code raising, but :func:`cpu_limit` turns whatever the audit
    ended with into the one over-limit error once it has fired."""


#: The limit :func:`cpu_limit` holds, while it holds one (None: none).
_CPU_LIMIT: list[int | None] = [None]


@contextmanager
def cpu_limit(limit: int | None) -> Iterator[bool]:
    """Hold the white-box exploration inside the block to ``limit`` seconds of this
    process's processor time (user and system, the unit of :func:`estimate`), counted from
    its start (:func:`exploration_deadline`, called once the estimate is made: the estimate
    is bounded by itself, :data:`PROBE_NS` per sampled input).  Past it,
    :class:`OverLimit` is raised where the process is, and again every further second of
    processor time (code that catches it meets it again), and the block ends with
    :func:`over_deadline`'s error whatever it returned or raised -- a law computed while the
    limit interrupted it is never reported.  Yields whether the limit is held (the
    ``SIGPROF`` timer: main thread only, and only when nobody else holds that signal);
    while it is, :func:`exploration_deadline` gives no wall-clock deadline.  Work on other
    processes (``--workers``) is not counted here."""
    if (limit is None or threading.current_thread() is not threading.main_thread()
            or not hasattr(signal, "setitimer")
            or signal.getsignal(signal.SIGPROF) not in (signal.SIG_DFL, None)):
        yield False
        return
    armed, fired = [True], [False]

    def expired(signum: int, frame: object) -> None:
        if armed[0]:
            fired[0] = True
            raise OverLimit

    old = signal.signal(signal.SIGPROF, expired)
    _CPU_LIMIT[0] = limit
    try:
        try:
            yield True
        finally:
            while True:  # the timer may fire here: stop it before anything else
                try:
                    armed[0] = False
                    signal.setitimer(signal.ITIMER_PROF, 0)
                    break
                except OverLimit:
                    continue
            signal.signal(signal.SIGPROF, old)
            _CPU_LIMIT[0] = None
    except BaseException as exc:
        if not fired[0] or isinstance(exc, KeyboardInterrupt):
            raise
    if fired[0]:
        raise over_deadline(limit, None, None) from None


def exploration_deadline(limit: int | None) -> int | None:
    """The monotonic-clock deadline of an exploration allowed ``limit`` seconds, starting
    now; None when there is no limit, or when :func:`cpu_limit` holds the processor time
    instead (its timer starts now)."""
    if limit is None:
        return None
    if _CPU_LIMIT[0] is not None:
        signal.setitimer(signal.ITIMER_PROF, limit, 1)
        return None
    return time.monotonic_ns() + limit * NS


def over_deadline(limit: int, done: int | None, inputs: int | None) -> ResourceLimitError:
    """The error of an exploration that ran past ``--max-seconds`` (nothing concluded):
    ``done`` of ``inputs`` explored on the wall clock, or (None) processor time."""
    where = ("of processor time" if done is None else
             f"of wall-clock time ({done} of {inputs} inputs explored)")
    return ResourceLimitError(
        f"the white-box exploration ran past --max-seconds {limit} {where}; nothing is "
        f"concluded: pass a larger --max-seconds, audit fewer inputs, or pass "
        f"--time-budget S for a partial verdict")
