"""One input of a white-box audit: its exact output distribution, computed by calling the
audited code itself -- the share of the work that :func:`~exactdp.audit.whitebox.whitebox_audit`
runs for each input in turn, and that :mod:`exactdp.audit.parallel` runs on a worker.

* :func:`counting_input` -- ``f(c, u)`` with ``u`` uniform on ``[d]_+``, through a
  :class:`CountingAdapter` (every ``u`` enumerated, or the threshold search);
* :func:`explore_input` -- ``f(c, source)`` under the exploring source, through a
  :class:`GuardedSource` that charges each draw against the declared randomness domain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from exactdp.audit.counted_runs import Counting
from exactdp.audit.draw_native import C as _C
from exactdp.audit.facades import FacadeMechanism, FacadeRefusal
from exactdp.audit.guard import (
    SLOW,
    Abort,
    Finding,
    Guard,
    Progress,
    alarm_handler,
    as_int,
    check_observed,
    check_outcome,
    plain_observed,
    say,
    show,
)
from exactdp.audit.path_log import PathLog
from exactdp.audit.replay import replay_path
from exactdp.counting import InverseCDFSampler
from exactdp.explore import (
    ExplorationIncomplete,
    ExplorationLimitError,
    ExploringSource,
    NondeterminismError,
    explore,
)
from exactdp.params import ResourceLimitError
from exactdp.randomness import InverseCDFDraw, RandomSource, check_domain_size
from exactdp.trace import collect, pause, resume

if TYPE_CHECKING:
    from exactdp.audit.report import Distribution

# (the budget, the reports and the checker -- what an audit's exploration reports with --
# are imported where used: another process replaying paths needs none of them)

__all__ = ["CountingAdapter", "Explored", "GuardedSource", "calls_exceeded", "counting_input",
           "explore_input", "path_runner", "run_once", "runner", "sorted_distribution"]


class CountingAdapter(InverseCDFSampler):
    """Presents a third party's ``f(c, u)`` to the checker as a counting mechanism.

    Outputs are shifted by ``outputs.start`` so that the checker sees ``[0, n]``; every
    call is guarded (time limit, exceptions) and its value validated.
    """

    def __init__(self, f: Callable[[int, int], Any], d: int, outputs: range,
                 guard: Guard) -> None:
        self.f = f
        self._d = d
        self.outputs = outputs
        self.n = outputs.stop - outputs.start - 1  # len() overflows past sys.maxsize
        self.guard = guard
        inner_cdf = getattr(f, "cdf", None)
        self.has_cdf = isinstance(f, InverseCDFSampler) and callable(inner_cdf)

    @property
    def d(self) -> int:
        return self._d

    def value(self, c: int, u: int, again: bool = True) -> int:
        """``f(c, u)`` itself, validated (not shifted); in a white-box audit called twice
        (``again``), and the two values must agree (:func:`_again`)."""
        call = f"f({c}, {u})"
        z = int(self.guard.call(
            self.f, (c, u), call, {"c": c, "u": u},
            check=lambda z: check_outcome(z, self.outputs, call, {"c": c, "u": u})))
        if again and self.guard.watch is not None:
            _again(z, self.guard.call(self.f, (c, u), call, {"c": c, "u": u}), call, c, u)
        return z

    def __call__(self, c: int, u: int) -> int:
        return self.value(c, u) - self.outputs.start

    def cdf(self, c: int, z: int) -> int:
        f = self.f
        assert isinstance(f, InverseCDFSampler)
        call = f"f.cdf({c}, {z + self.outputs.start})"
        witness = {"c": c, "z": z + self.outputs.start}

        def check(value: object) -> int:
            v = as_int(value)
            if v is None or not 0 <= v <= self._d:
                raise Abort(Finding("bad_output", f"{call} returned {show(value)}, not an int "
                                    f"in [0, d]", witness))
            return v

        v = int(self.guard.call(f.cdf, (c, z + self.outputs.start), call, witness,
                                check=check))
        if self.guard.watch is not None:
            _again(v, self.guard.call(f.cdf, (c, z + self.outputs.start), call, witness,
                                      check=check), call, c, z)
        return v


def _again(first: Any, second: Any, call: str, c: int, u: int) -> None:
    """A counting mechanism called twice with the same ``(c, u)`` must return the same."""
    if second != first:
        raise Abort(Finding(
            "nondeterministic", f"{call} returned {show(first)} and then {show(second)}: it is "
                                f"not a function of (c, u) (it draws from a source the audit "
                                f"does not see, or keeps state between calls); audit it "
                                f"black-box (--kind blackbox)",
            {"c": c, "u": u, "first": first, "second": second}))


class GuardedSource(RandomSource):
    """Forwards draws to the exploring source, charging each draw's domain size against
    the declared randomness domain ``[limit]_+``."""

    def __init__(self, inner: RandomSource, limit: int | None, c: Any) -> None:
        self.inner = inner
        self.limit = limit
        self.c = c
        #: the product of the domain sizes drawn (kept only under a ``limit``)
        self.size = 1
        self.draws: list[int] = []
        #: the inner source's event-free coin, bound once (an exploring source's own)
        self._coin = inner.explore_coin if type(inner) is ExploringSource else None

    def _charge(self, d: int) -> None:
        self.draws.append(d)
        if self.limit is not None:
            self._over(d)

    def _over(self, d: int) -> None:
        """Charge ``d`` against the limit."""
        assert self.limit is not None
        self.size *= d
        if self.size > self.limit:
            raise Abort(Finding(
                "randomness_domain",
                f"on input {self.c!r} the mechanism drew from domains of sizes {self.draws} "
                f"(product {self.size}), more randomness than the declared domain "
                f"[{self.limit}]_+", {"c": self.c, "draw_sizes": list(self.draws)}))

    def check_budget(self) -> None:
        """The exploring source's :meth:`~exactdp.explore.ExploringSource.check_budget`."""
        check = getattr(self.inner, "check_budget", None)
        if check is not None:
            check()

    def uniform(self, d: int) -> int:
        if type(d) is not int or d < 1:  # (a plain int >= 1 needs no call)
            check_domain_size(d)
        self.draws.append(d)  # (_charge, inlined: once per draw)
        if self.limit is not None:
            self._over(d)
        return self.inner.uniform(d)

    def inverse_cdf(self, draw: InverseCDFDraw) -> int:
        self._charge(check_domain_size(draw.d))
        return self.inner.inverse_cdf(draw)

    def explore_coin(self, num: int, den: int) -> bool:
        """The exploring source's :meth:`~exactdp.explore.ExploringSource.explore_coin` (plain ints
        ``0 < num < den``, no event), charged like :meth:`bernoulli`."""
        self.draws.append(den)  # (_charge, inlined: once per comparison of a lazy value)
        if self.limit is not None:
            self._over(den)
        coin = self._coin
        if coin is not None:
            return coin(num, den)
        coin = getattr(self.inner, "explore_coin", None)
        if coin is not None:
            return bool(coin(num, den))
        token = pause()
        try:
            return self.inner.bernoulli(num, den)
        finally:
            resume(token)

    def bernoulli(self, num: int, den: int) -> bool:
        if type(den) is not int or den < 1:  # (a plain int >= 1 needs no call)
            check_domain_size(den)
        self._charge(den)
        return self.inner.bernoulli(num, den)


if _C is not None:  # the guarded coin, as the C comparisons call it
    _C.setup_guarded(GuardedSource, GuardedSource.explore_coin)


def counting_input(adapter: CountingAdapter, c: int, enumerate_all: bool,
                   enumeration_limit: int) -> Distribution:
    """The exact distribution of ``f(c, u)``, ``u`` uniform on ``[d]_+``: every ``u``
    enumerated, or the threshold search (``f`` declared non-decreasing in ``u``).  One input's
    share of the white-box audit's counting distributions, also run alone on a worker
    (:mod:`exactdp.audit.parallel`)."""
    from exactdp.checker import enumerate_distribution, threshold_distribution

    if enumerate_all:
        raw = enumerate_distribution(adapter, c, limit=enumeration_limit)
    else:
        raw = threshold_distribution(adapter, c, hint=adapter.has_cdf)
    if adapter.guard.watch is not None:
        adapter.guard.watch.check()
    return {z + adapter.outputs.start: p for z, p in raw.items()}


@dataclass(frozen=True)
class Explored:
    """One input's exploration: the distribution of outputs and the joint law of (output,
    trace) (:mod:`exactdp.audit.timing`), the exact mass covered (1 when complete), what stopped it ("" when complete) and the
    calls of the mechanism it made."""

    dist: Distribution
    traces: dict[Any, Fraction]
    covered: Fraction
    stopped: str
    calls: int
    #: what the mechanism noted of this exploration (a facade's large draws, for its
    #: ``assumption``), when it ran on a worker (:mod:`exactdp.audit.parallel`)
    notes: tuple[str, ...] = ()
    #: the draws (choices) of one path per key ``(output, trace)`` of ``traces``: a path to
    #: run again to show where two traces differ (:mod:`exactdp.audit.divergence`)
    paths: dict[Any, tuple[int, ...]] = field(default_factory=dict)
    #: every path run (when asked: ``record``): its choices, its draws ``(options, den,
    #: numerators or None)`` and its output, to replay in another process
    #: (:mod:`exactdp.audit.hash_seed`), kept compactly (a :class:`PathLog`)
    every: PathLog | tuple[()] = ()


def explore_input(f: Callable[[Any, RandomSource], Any], c: Any, i: int, n: int, guard: Guard,
                  randomness_size: int | None, allowed: range | frozenset[Any] | None,
                  progress: Progress, max_uniform: int, max_runs: int, cap: int,
                  max_calls: int, share: int | None, max_draws: int | None,
                  record: bool = False) -> Explored:
    """Explore ``f(c, source)`` (input ``c``, the ``i``-th of ``n``) in at most ``cap`` runs
    (``max_runs``, or fewer when the calls left of ``max_calls`` are fewer: past them,
    :class:`ResourceLimitError`) and until ``share`` (monotonic ns) -- one input's share of
    the white-box audit's exploration, also run alone on a worker (:mod:`exactdp.audit.parallel`).
    ``record``: keep every path run (:attr:`Explored.every`)."""
    from exactdp.audit.budget import progress_printer
    from exactdp.audit.timing import output_law

    say(progress, f"  input {show(c)} ({i + 1}/{n}): exploring every path of draws")
    paths: dict[Any, tuple[int, ...]] = {}
    # the outputs only (traces are judged by their law there), kept compactly
    every: Any = PathLog(part=_output) if record else None
    counting = Counting(f)
    run, used = path_runner(f, c, guard, randomness_size, allowed, paths, every, counting)
    stopped = ""
    try:
        # (set once for the exploration, not per run: the alarm's handler, the recorders)
        with alarm_handler(guard.time_limit), counting.held():
            joint = explore(run, max_uniform=max_uniform, max_runs=cap,
                            deadline_ns=share, progress=progress_printer(progress, c),
                            max_draws=max_draws, path_ns=None if guard.time_limit is None
                            else guard.time_limit * 10**9 * 3 // 4)
        covered = Fraction(1)
    except ExplorationIncomplete as exc:
        if cap < max_runs and exc.runs >= cap:
            raise calls_exceeded(n, max_calls, c) from None
        joint, covered = exc.partial, exc.covered
        stopped = (f"--max-paths / max_runs = {max_runs} paths per input"
                   if exc.reason == "runs" else "--time-budget / time_budget"
                   if exc.reason == "deadline" else
                   f"--max-draws-per-path / max_draws = {max_draws} draws per path, or "
                   f"3/4 of --time-limit per path ({exc.cut} of {exc.runs} paths on "
                   f"input {show(c)} cut off)")
    except FacadeRefusal:
        raise
    except NondeterminismError as exc:
        raise Abort(Finding("nondeterministic", f"on input {show(c)}: {exc}",
                            {"c": c})) from None
    except ExplorationLimitError as exc:
        raise Abort(Finding("cannot_audit", f"on input {show(c)}: {exc}",
                            {"c": c})) from None
    if guard.watch is not None:
        guard.watch.check()
    return Explored(sorted_distribution(output_law(joint)), dict(joint), covered, stopped,
                    used[0], paths={k: paths[k] for k in joint if k in paths},
                    every=() if every is None else every)


def _output(result: tuple[Any, tuple[Any, ...]]) -> Any:
    return result[0]


def run_once(f: Callable[[Any, RandomSource], Any], c: Any, src: RandomSource, guard: Guard,
             randomness_size: int | None, allowed: range | frozenset[Any] | None,
             counting: Counting, call: str | None = None) -> tuple[Any, tuple[Any, ...]]:
    """One run of ``f(c, source)`` on ``src``: guarded, its draws charged, its operations
    counted; ``(output, trace)``.  ``call``: how messages name the call (made once per
    input by :func:`path_runner`)."""
    return runner(f, c, guard, randomness_size, allowed, counting, call)(src)


def runner(f: Callable[[Any, RandomSource], Any], c: Any, guard: Guard,
           randomness_size: int | None, allowed: range | frozenset[Any] | None,
           counting: Counting, call: str | None = None
           ) -> Callable[[RandomSource], tuple[Any, tuple[Any, ...]]]:
    """:func:`run_once` on one input, its parts made once (what the runs of an input
    share: how messages name the call, whether a facade mechanism is run directly, the
    output's check): ``once(src)``, called once per explored path and re-run."""
    if call is None:
        call = f"f({show(c)}, source)"
    direct = type(f) is FacadeMechanism
    cut = f.counted if direct else None  # type: ignore[attr-defined]
    run = counting.run
    current: list[Any] = [None]  # the guarded source of the run in progress

    memo: dict[Any, Any] = {}  # (the outcomes of lists and tuples: plain_observed)

    def check(v: Any) -> Any:
        if allowed is None:  # (check_observed's first step, before this run's witness is
            plain = plain_observed(v, memo)  # made: it is needed only by the checks)
            if plain is not SLOW:
                return plain
        draws = current[0].draws
        return check_observed(v, allowed, call, {"c": c, "draw_sizes": draws},
                              lambda: f" (draws {draws})")

    def once(src: RandomSource) -> tuple[Any, tuple[Any, ...]]:
        gs = current[0] = GuardedSource(src, randomness_size, c)
        events: list[Any] = []
        token = collect(events)  # (recording(), without a generator's frame)
        try:
            # (``with run(False) as counter``, its methods called directly: once per run)
            counted = run(False)
            counter = counted.__enter__()
            try:
                # a facade's run counted directly (what traced_call of its __call__ does)
                out = guard.call(cut, (c, gs, counter.trace), call, {"c": c, "draws": gs.draws},
                                 check) if cut is not None else \
                    guard.call(counter.traced_call, (f, c, gs), call,
                               {"c": c, "draws": gs.draws}, check)
            finally:
                counted.__exit__(None, None, None)
        finally:
            resume(token)
        return out, (tuple(events), *counter.observed())  # False is not 0, 0.0 is not 0

    return once


def path_runner(f: Callable[[Any, RandomSource], Any], c: Any, guard: Guard,
                randomness_size: int | None, allowed: range | frozenset[Any] | None,
                paths: dict[Any, tuple[int, ...]] | None = None,
                every: PathLog | None = None, counting: Counting | None = None
                ) -> tuple[Callable[[RandomSource], tuple[Any, tuple[Any, ...]]], list[int]]:
    """``run(source)``: one path of ``f(c, source)`` -- guarded, its draws charged, its
    operations counted (the result is ``(output, trace)``) and, in a white-box audit, run
    again with the same draws (:func:`~exactdp.audit.replay.replay_path`); and the list
    whose one item counts the paths run.  ``paths``: filled with the draws of the first
    path run per result; ``every``: a :class:`PathLog` given every path run (its choices,
    draws and result: :mod:`exactdp.audit.hash_seed`); ``counting``: the operation
    count's set-up (made here when not given)."""
    used = [0]
    if counting is None:
        counting = Counting(f)  # set up once, entered for every run
    call = f"f({show(c)}, source)"

    once = runner(f, c, guard, randomness_size, allowed, counting, call)
    warm: list[bool] = []
    memo: list[Any] = []  # the exploration's memo (a new one: it restarted)

    def run(src: RandomSource) -> tuple[Any, tuple[Any, ...]]:
        used[0] += 1
        watch = guard.watch
        # cold: the input's first call (a logger's or a memo's first fill), and every path
        # once a memo is in use (reset to its first content: Watch.restore); a cold run
        # must give the output of its warm re-run, whose trace is the path's
        cold = watch is not None and (not warm or watch.restore())
        first = once(src)
        if watch is not None:  # the same draws again: the same output and draws
            if cold or watch.grew:  # (a memo first grown on this path: it ran cold)
                warm.append(True)
                first = replay_path(once, src, first, c, timed=False)
            replay_path(once, src, first, c)
        if paths is not None and first not in paths:
            assert isinstance(src, ExploringSource), "explore() runs every path on one"
            paths[first] = tuple(src.choices)
        if every is not None:
            assert isinstance(src, ExploringSource), "explore() runs every path on one"
            if not memo or src.memo is not memo[0]:  # a restart: the paths before it go
                every.clear()
                memo[:] = [src.memo]
            every.add(src, first)  # (its draws packed from the path it branched from)
        return first

    return run, used


def draw_record(src: ExploringSource) -> tuple[tuple[Any, ...], ...]:
    """Each draw of ``src``'s path: ``(options, den, numerators or None)``."""
    # (from the log's entries (options, weight before, den, numerators) directly: made
    # once per explored path)
    return tuple([(e[0], e[3], None if e[4] is None else tuple(e[4])) for e in src.log])


def calls_exceeded(inputs: int, max_calls: int, c: Any) -> ResourceLimitError:
    return ResourceLimitError(
        f"exploring the mechanism on {inputs} inputs needs more than {max_calls} calls in "
        f"all (stopped at input {show(c)}; max_calls, --max-calls); use fewer inputs or "
        f"raise the limit")


def sorted_distribution(dist: Distribution) -> Distribution:
    """Outcomes in order when they are comparable (ints), else as found."""
    try:
        return dict(sorted(dist.items()))
    except TypeError:
        return dist
