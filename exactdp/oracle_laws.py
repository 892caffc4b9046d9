"""The exact laws behind :mod:`exactdp.testing`'s assertions, computed with the white-box
audit's escape checks.

A mechanism's law is computed by running it under the exploring source
(:func:`exactdp.explore.explore`) or, for a counting mechanism, through its thresholds
(:func:`exactdp.checker.counting_distribution`).  Either is the mechanism's law only if all
its randomness came from the source it was given: the entropy sources the exploration does
not model are guarded during each run (:mod:`exactdp.audit.escape`), every path is re-run
with the same draws, and a counting mechanism's law is computed twice.  An escape fails the
assertion with :class:`OracleAssertionError`, on every run.

Before an assertion passes, the laws are confirmed in two more processes started with other
hash seeds (:mod:`exactdp.audit.hash_seed`): every explored path replayed there must give
the same output and draws (a counting law: the same distribution).  A difference fails the
assertion (the law depends on the iteration order of a set of strings); a mechanism that
cannot be pickled into another process fails it too, saying so, unless the assertion is
told ``hash_seed_check=False`` (then it passes on this process's law alone).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import Any

from exactdp.audit.escape import watching
from exactdp.audit.guard import Abort
from exactdp.audit.hash_seed import confirm, recipe, unconfirmed_note
from exactdp.audit.path_log import PathLog
from exactdp.audit.replay import replay_path
from exactdp.checker import counting_distribution, thresholds
from exactdp.counting import InverseCDFSampler
from exactdp.explore import (
    MAX_RUNS,
    MAX_UNIFORM,
    ExploringSource,
    NondeterminismError,
    explore,
)
from exactdp.params import ParameterError, ParameterTypeError, positive_int
from exactdp.randomness import RandomSource

__all__ = ["ADVICE", "CountingFunction", "Mechanism", "OracleAssertionError", "Sampler",
           "distributions", "exact_distribution", "explore_law", "fail_escape", "input_key"]

Sampler = Callable[[RandomSource], Hashable]
Mechanism = Callable[[Any, RandomSource], Hashable]


class OracleAssertionError(AssertionError):
    """An exact oracle assertion failed; the message carries the witness."""


class CountingFunction(InverseCDFSampler):
    """Your counting mechanism ``f(c, u)`` for the assertions' threshold fast path.

    ``u`` ranges over ``[d]_+``, outputs over ``[0, n]``, and ``f(c, .)`` must be
    non-decreasing (the counting form of Definition 4.3).  Distributions are enumerated for
    ``d <= 4096``, else found by binary search for each threshold (the ends of every
    output's interval are checked: a non-monotone ``f`` seen there raises
    :class:`~exactdp.checker.NotMonotoneError`; interior points are not examined).

    >>> CountingFunction(lambda c, u: min(c + (u > 2), 3), d=4, n=3)(1, 3)
    2
    """

    def __init__(self, f: Callable[[int, int], int], d: int, n: int) -> None:
        if not callable(f):
            raise ParameterTypeError(f"f = {f!r} must be callable as f(c, u)")
        self.f = f
        self._d = positive_int(d, "d")
        self.n = positive_int(n, "n")
        self._thresholds: dict[int, tuple[int, ...]] = {}

    @property
    def d(self) -> int:
        return self._d

    def _search(self, c: int, u: int) -> int:
        z = self.f(c, u)
        if isinstance(z, bool) or not isinstance(z, int):
            raise ParameterTypeError(f"f({c!r}, {u}) = {z!r} must be an int in [0, {self.n}]")
        return z

    def cdf(self, c: int, z: int) -> int:
        """``F_c(z) = #{u : f(c, u) <= z}``, from the thresholds found by binary search
        (:func:`exactdp.checker.thresholds`, computed once per ``c``)."""
        self._check_cz(c, z)
        if c not in self._thresholds:
            self._thresholds[c] = thresholds(self, c, hint=False)
        return self._thresholds[c][min(max(z, 0), self.n)] if z >= 0 else 0

    def __repr__(self) -> str:
        return f"CountingFunction({getattr(self.f, '__qualname__', self.f)!r}, d={self._d}, " \
               f"n={self.n})"


# --------------------------------------------------------------------------- escapes

#: what an escape message advises in a test, instead of the command line's options
ADVICE = ("Draw every random value from the source argument (source.uniform, "
           "source.bernoulli, source.inverse_cdf); a mechanism written against random, "
           "secrets or numpy can be audited as written with exactdp.audit's facades "
           "(FacadeMechanism), or tested in sampling mode")


def fail_escape(abort: Abort, what: str) -> OracleAssertionError:
    return OracleAssertionError(f"{what}: no exact law: {abort.finding.message}")


def explore_law(fn: Callable[[RandomSource], Any], what: str, key: Any, *, max_uniform: int,
             max_runs: int, target: object = None,
             record: PathLog | None = None) -> dict[Any, Fraction]:
    """``explore(fn)`` with the white-box audit's escape checks
    (:mod:`exactdp.audit.escape`): the entropy sources the exploration does not model are
    guarded during each run, every path is re-run with the same draws and must give the
    same output and draws, and the global generators and the code's state must not change.
    An escape fails the assertion (:class:`OracleAssertionError`), every time.  ``record``:
    filled with every path run (choices, draws, output), for :func:`confirmed`."""
    with watching(fn if target is None else target) as watch:
        watch.advice = ADVICE

        def once(src: RandomSource) -> Any:
            before = watch.arm()
            try:
                out = fn(src)
            except Abort:
                raise
            except BaseException:
                watch.check_call()  # an escape the code caught, then raised for
                raise
            finally:
                watch.disarm(before)
            watch.check_call()
            watch.called()
            return out

        def run(src: RandomSource) -> Any:
            cold = watch.restore()  # a memo in use: every path cold, then warm (the same)
            first = once(src)
            if cold:
                first = replay_path(once, src, first, key, timed=False)
            replay_path(once, src, first, key)
            if record is not None:
                assert isinstance(src, ExploringSource), "explore() runs every path on one"
                if not memo or src.memo is not memo[0]:  # a restart: the paths before go
                    record.clear()
                    memo[:] = [src.memo]
                record.add(src, first)  # (its draws packed from the path it branched from)
            return first

        memo: list[Any] = []
        searched = _searches()
        try:
            dist = explore(run, max_uniform=max_uniform, max_runs=max_runs)
            watch.check()
        except Abort as abort:
            raise fail_escape(abort, what) from None
        except NondeterminismError as exc:  # the exploration's own re-run disagreed
            raise OracleAssertionError(f"{what}: no exact law: {exc}") from None
    if _searches() != searched:
        raise OracleAssertionError(
            f"{what}: no exact law: a draw was explored by its effect (a facade's breakpoint "
            f"search, assumed piecewise constant and checked at finitely many values only), "
            f"and no assertion passes on an unverified law; compare each random() value "
            f"only with numbers, or draw from the source argument")
    return dist


def _searches() -> int:
    """How many draws the facades have explored by their effect so far (0 if the facades
    were never imported: then none was)."""
    facades = sys.modules.get("exactdp.audit.facades")
    return int(facades.SEARCHES[0]) if facades is not None else 0


def _counting(mechanism: InverseCDFSampler, c: int) -> dict[Any, Fraction]:
    """``counting_distribution(mechanism, c)`` with the escape guards armed, computed twice
    (a :class:`CountingFunction`'s thresholds searched afresh): the two must agree."""
    what = f"the counting mechanism {mechanism!r} on input {c}"
    with watching(mechanism) as watch:
        watch.advice = ADVICE
        try:
            laws = []
            for _ in range(2):
                if isinstance(mechanism, CountingFunction):
                    mechanism._thresholds.pop(c, None)
                before = watch.arm()
                try:
                    laws.append(counting_distribution(mechanism, c))
                finally:
                    watch.disarm(before)
                watch.check_call()
                watch.called()
            watch.check()
        except Abort as abort:
            raise fail_escape(abort, what) from None
    if laws[0] != laws[1]:
        raise OracleAssertionError(
            f"{what}: no exact law: computed twice, its distribution differed; the "
            f"mechanism is not a function of (c, u) (it draws from a source the checker does "
            f"not see, or keeps state between calls)")
    return laws[0]


# --------------------------------------------------------------------------- exact helpers

def exact_distribution(sampler: Sampler, *, max_uniform: int = MAX_UNIFORM,
                       max_runs: int = MAX_RUNS, hash_seed_check: bool = True
                       ) -> dict[Any, Fraction]:
    """The exact output distribution of ``sampler(source)`` (every path of its draws),
    confirmed in other processes with other hash seeds (``hash_seed_check``)."""
    if not callable(sampler):
        raise ParameterTypeError(f"sampler = {sampler!r} must be a function of a RandomSource")
    rebuild = recipe(sampler) if hash_seed_check else None  # before any call
    paths = PathLog()  # every path run, kept compactly (to replay them elsewhere)
    dist = explore_law(sampler, "the sampler", None, max_uniform=max_uniform,
                       max_runs=max_runs, record=paths)
    if rebuild is not None:
        confirmed(rebuild, "oracle", {"max_uniform": max_uniform, "sampler": True},
                  [(None, paths)], "the sampler")
    return dist


def distributions(mechanism: Mechanism | InverseCDFSampler, pairs: Sequence[tuple[Any, Any]],
                   max_uniform: int, max_runs: int,
                   pending: list[Callable[[], None]] | None = None
                   ) -> dict[Any, dict[Any, Fraction]]:
    """The law of ``mechanism`` on every input of ``pairs``; ``pending``: given a call that
    confirms them in other processes (:func:`confirmed`), to make before a pass."""
    rebuild = None if pending is None else recipe(mechanism)  # before any call
    cache: dict[Any, dict[Any, Fraction]] = {}
    replays: list[tuple[Any, Any]] = []
    counting = isinstance(mechanism, InverseCDFSampler)
    for x, y in pairs:
        for v in (x, y):
            key = input_key(v)
            if key in cache:
                continue
            if isinstance(mechanism, InverseCDFSampler):
                cache[key] = _counting(mechanism, _count(mechanism, v))
                replays.append((v, cache[key]))
            else:
                paths = PathLog()  # every path run, kept compactly (to replay them elsewhere)
                cache[key] = explore_law(_bind(mechanism, v), f"the mechanism on input {v!r}", v,
                                      max_uniform=max_uniform, max_runs=max_runs,
                                      target=mechanism, record=paths)
                replays.append((v, paths))
    if pending is not None:
        assert rebuild is not None
        mode = "counting_oracle" if counting else "oracle"
        pending.append(lambda: confirmed(rebuild, mode, {"max_uniform": max_uniform},
                                         replays, "the mechanism"))
    return cache


def confirmed(rebuild: Any, mode: str, params: dict[str, Any],
              replays: Sequence[tuple[Any, Any]], what: str) -> None:
    """Confirm laws in other processes (:func:`exactdp.audit.hash_seed.confirm`), or fail the
    assertion (:class:`OracleAssertionError`)."""
    outcome = confirm(rebuild, mode, params, replays)
    if outcome.finding is not None:
        raise OracleAssertionError(f"{what}: no exact law: {outcome.finding.message}")
    if outcome.unconfirmed:
        raise OracleAssertionError(
            f"{what}: {unconfirmed_note(outcome.unconfirmed)}. Define it at module level (or "
            f"as an object of an importable class, or a lambda over picklable values) so "
            f"that another process can rebuild it, or pass hash_seed_check=False to accept "
            f"this process's law")


def _count(mechanism: InverseCDFSampler, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= mechanism.n:
        raise ParameterError(f"neighbours: input {v!r} of the counting mechanism {mechanism!r} "
                             f"must be an int in [0, {mechanism.n}]")
    return v


def _bind(mechanism: Mechanism, x: Any) -> Sampler:
    def sampler(source: RandomSource) -> Hashable:
        return mechanism(x, source)
    return sampler


def input_key(v: Any) -> Any:
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)
