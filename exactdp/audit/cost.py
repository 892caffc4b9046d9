"""The cost of a white-box exploration, estimated before it starts, and its limit.

Exploring ``f(c, source)`` runs every path of its draws, twice (the re-run of
:mod:`exactdp.audit.replay`), on every input.  Before that, :func:`estimate` runs a few
*probe* paths on a sample of the inputs (the first, the middle and the last): each probe
takes, at every draw, one of the draw's options uniformly at random (a seeded generator:
the same estimate every time), and the product of the numbers of options along it is an
unbiased estimate of the number of paths (Knuth's estimator of the size of a tree).  The
paths per input are the mean over the probes; the CPU time per path is the probes' mean
(each probe is a path run as the exploration runs it: guarded, counted and re-run).  The
estimate is only that: for a tree with long rare branches (a loop that continues with
probability 1/2 at every step) it is usually too low, and the limit is also enforced while
the exploration runs (:func:`exploration_deadline`, the white-box audit's ``max_seconds``).

A probe is the audited code's run like any other: an escape, a failure or a timeout stops
the audit as it would in the exploration.  A probe that restarts (a lazy value used
otherwise than compared, :mod:`exactdp.audit.facade_lazy`) is run again.  What a facade
learns on the probes (its notes, breakpoint searches, whether lazy values escaped) is
forgotten afterwards (:func:`unchanged`): the exploration and its report are the same as
without the estimate.
"""

from __future__ import annotations

import copy
import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from exactdp.explore import (
    MAX_RESTARTS,
    ExplorationLimitError,
    ExploringSource,
    RestartExploration,
)
from exactdp.params import ResourceLimitError
from exactdp.randomness import RandomSource

__all__ = ["PROBES", "Estimate", "estimate", "exploration_deadline", "over_deadline",
           "unchanged"]

#: Probe paths per sampled input.
PROBES = 12
#: Most draws one probe makes before it is stopped (its estimate counts the draws so far).
PROBE_DRAWS = 10**4
NS = 10**9


class _Probe(ExploringSource):
    """A path taking, at every draw, one of its options uniformly at random."""

    def __init__(self, seed: str) -> None:
        super().__init__((), max_draws=PROBE_DRAWS, chooser=random.Random(seed))

    def _choose(self, size: int, den: int, masses: list[int] | None) -> int:
        assert self.chooser is not None
        return self.chooser.randrange(size)


@dataclass(frozen=True)
class Estimate:
    """Paths per input (Knuth's estimator, the mean over ``probes`` probes), CPU
    nanoseconds per path (its re-run included), and the whole exploration's CPU
    nanoseconds over ``inputs`` inputs."""

    paths: int
    ns_per_path: int
    inputs: int
    probes: int

    @property
    def ns(self) -> int:
        return self.paths * self.inputs * self.ns_per_path

    def line(self) -> str:
        """The estimate in words, for stderr."""
        return (f"estimate: about {self.paths} paths per input (Knuth's estimator from "
                f"{self.probes} random paths; often too low for long loops), "
                f"{_seconds(self.ns)} CPU for {self.inputs} inputs")


def _seconds(ns: int) -> str:
    s = ns // NS
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60} min"
    if s >= 60:
        return f"{s // 60} min {s % 60} s"
    return f"{s} s" if s else "under a second"


def estimate(runner: Callable[[Any], Callable[[RandomSource], Any]], inputs: Sequence[Any],
             probes: int = PROBES) -> Estimate:
    """Estimate the exploration of every input in ``inputs``; ``runner(c)`` gives the
    function that runs one path of input ``c`` (:func:`exactdp.audit.per_input.path_runner`)."""
    n = len(inputs)
    sample = [inputs[i] for i in sorted({0, n // 2, n - 1})] if n else []
    leaves = runs = cpu = 0
    for c in sample:
        run = runner(c)
        for k in range(probes):
            src = None
            start = time.process_time_ns()
            for attempt in range(MAX_RESTARTS + 1):
                src = _Probe(f"{c!r}/{k}/{attempt}")
                try:
                    run(src)
                except RestartExploration:
                    continue
                except ExplorationLimitError:
                    pass  # cut off: the options met so far still estimate
                break
            cpu += time.process_time_ns() - start
            runs += 1
            assert src is not None
            leaves += math.prod(src.sizes)
    if not runs:
        return Estimate(0, 0, n, 0)
    return Estimate(-(-leaves // runs), cpu // runs, n, runs)


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


def exploration_deadline(limit: int | None) -> int | None:
    """The monotonic-clock deadline of an exploration allowed ``limit`` seconds."""
    return None if limit is None else time.monotonic_ns() + limit * NS


def over_deadline(limit: int, done: int, inputs: int) -> ResourceLimitError:
    """The error of an exploration that ran past ``--max-seconds`` (nothing concluded)."""
    return ResourceLimitError(
        f"the white-box exploration ran past --max-seconds {limit} ({done} of {inputs} inputs "
        f"explored); nothing is concluded: pass a larger --max-seconds, audit fewer inputs, "
        f"or pass --time-budget S for a partial verdict")
