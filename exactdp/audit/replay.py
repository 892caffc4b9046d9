"""Re-running an explored path with the same draws: the same output and draws, or the
mechanism is not a function of its randomness (:mod:`exactdp.audit.escape`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from exactdp.audit.guard import Abort, Finding, show
from exactdp.explore import ExploringSource, PathCut
from exactdp.randomness import RandomSource

__all__ = ["replay_path"]

T = TypeVar("T")


def replay_path(run: Callable[[ExploringSource], T], src: RandomSource, first: T,
                c: Any, timed: bool = True) -> T:
    """Run ``run`` again on a source that replays the draws ``src`` made: the result must
    equal ``first`` and the draws must be the same (same number, same domains), else
    :class:`Abort` with a ``"nondeterministic"`` finding (each draw must offer the same
    options with the same weights); the re-run's result is returned.
    ``timed=False`` (``first`` ran cold, as the first call on an input: white-box results
    ``(output, trace)``): only the outputs must be equal.  A replay cut off by the deadline
    raises :class:`~exactdp.explore.PathCut` (the path's mass is uncovered)."""
    assert isinstance(src, ExploringSource), "explore() runs every path on one"
    n = len(src.choices)
    again = ExploringSource(tuple(src.choices), src.max_uniform, max_draws=n,
                            deadline_ns=src.deadline_ns, memo=src.memo, weigh=False,
                            recorded=src.log)
    try:
        second: Any = run(again)
    except PathCut:
        if len(again.choices) < n:
            raise
        second = _MORE
    head: Any = first  # a white-box result (output, trace) when not timed
    same = (second[0] == head[0] if not timed and _pair(second) and _pair(first)
            else second == first)
    if second is _MORE or not same or again.choices != src.choices \
            or again.mismatch is not None or _other_draws(again, src):
        what = ("made more draws" if second is _MORE else
                f"made {len(again.choices)} draws instead of {n}" if len(again.choices) != n
                else "drew from other domains" if _draws(again) != _draws(src) else
                f"made draw {again.mismatch} with other options or weights"
                if again.mismatch is not None else _difference(second, first))
        raise Abort(Finding(
            "nondeterministic",
            f"on input {show(c)}, a path with {n} draws, re-run with the same draws, {what}: "
            f"the mechanism is not a function of its randomness (it draws from a source the "
            f"audit does not see, such as a C extension's generator, or keeps state between "
            f"calls: a counter, a cache, a generator made outside the call); its law cannot "
            f"be computed. Let it draw only from the source or generator the audit passes in "
            f"(--source, --rng, --patch), or audit it black-box (--kind blackbox)",
            {"c": c, "choices": list(src.choices)}))
    return second  # type: ignore[no-any-return]


_MORE = object()


def _other_draws(again: ExploringSource, src: ExploringSource) -> bool:
    """Whether ``again`` drew from other domains than ``src``: the same draws made the same
    requests as recorded, so their records are the very entries of ``src``'s (a list of the
    same objects compares equal at once); else each draw's options and denominator."""
    return again.log != src.log and _draws(again) != _draws(src)


def _draws(src: ExploringSource) -> list[tuple[int, int]]:
    return [(size, den) for size, (den, _) in zip(src.sizes, src.masses, strict=True)]


def _difference(second: Any, first: Any) -> str:
    """How a re-run's result differs from the first run's."""
    if _pair(second) and _pair(first) and second[0] == first[0]:
        return (f"gave the same output {show(first[0])} with another trace "
                f"({_cut(second[1])} instead of {_cut(first[1])})")
    return f"gave {_shown(second)} instead of {_shown(first)}"


def _pair(result: Any) -> bool:
    return isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], tuple)


def _cut(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def _shown(result: Any) -> str:
    """The output of a run (whitebox runs return (output, events))."""
    if _pair(result):
        return show(result[0])
    return show(result)
