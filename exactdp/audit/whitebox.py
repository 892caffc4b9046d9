"""White-box audits: the exact output distribution of a third party's mechanism.

The auditor makes the mechanism's randomness explicit, either

* as a counting mechanism ``f(c, u)`` with ``u`` uniform on ``[d]_+`` (``d`` passed in or
  read from ``f.d``; an :class:`~exactdp.counting.InverseCDFSampler` qualifies), or
* as code ``f(c, source)`` that draws from a :class:`~exactdp.randomness.RandomSource`
  we pass in, which is then run under the checker's exploring source
  (:func:`exactdp.explore.explore`).

The output distribution for every input is then *exact*, obtained by calling ``f`` itself
(enumeration for small ``d``; for large ``d`` and ``f`` non-decreasing in ``u``, the
checker's threshold search, exact *given* monotonicity -- spot-checked, and said so).
From the distributions: the exact worst privacy-loss ratio over neighbouring inputs with
its witness, compared with ``e**eps`` through certified bounds
(:func:`~exactdp.checker.certify_ratio`); infinite-loss outcomes; the hockey-stick
``delta`` at the claimed ``eps``; the statistical distance to a reference; and the timing
verdict on what an observer sees (counting kind: the operation traces at each ``u``
compared across inputs; exploring kinds: the joint law of (output, draw sequence,
operation count, sleep/clock/output calls) against the claim, :mod:`exactdp.audit.timing`).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from types import FrameType
from typing import Any, Literal

from exactdp.audit.budget import (
    MAX_DRAWS_PER_PATH,
    check_time_budget,
    cost_estimate,
    incomplete_report,
)
from exactdp.audit.cost import (
    NS,
    estimate,
    exploration_deadline,
    over_deadline,
    over_estimate,
    unchanged,
)
from exactdp.audit.counted_runs import Counting
from exactdp.audit.divergence import located
from exactdp.audit.escape import watching
from exactdp.audit.facades import EXACT_LIMIT
from exactdp.audit.guard import (
    DEFAULT_TIME_LIMIT,
    Abort,
    Finding,
    Guard,
    Progress,
    alarm_handler,
    as_int,
    describe,
    elapsed,
    only_none,
    say,
    show,
)
from exactdp.audit.hash_seed import SEEDS, confirm, recipe, unconfirmed_note
from exactdp.audit.judge import HOCKEY_STICK_MAX_BITS, _judge
from exactdp.audit.parallel import Spread, absorb_notes, unwrap
from exactdp.audit.per_input import (
    CountingAdapter,
    Explored,
    calls_exceeded,
    counting_input,
    explore_input,
    path_runner,
)
from exactdp.audit.reference import (
    Reference,
    describe_reference,
    reference_distributions,
)
from exactdp.audit.report import (
    Distribution,
    TraceResult,
    WhiteBoxReport,
    _short_int,
)
from exactdp.audit.targets import (
    MAX_CALLS,
    MAX_INPUTS,
    check_callable,
    check_calls,
    check_delta,
    check_epsilon,
    check_time_limit,
    declared,
    declared_outputs,
    materialise_inputs,
    neighbour_pairs,
)
from exactdp.audit.timing import timing_result
from exactdp.checker import (
    NotMonotoneError,
)
from exactdp.claims import Claim
from exactdp.counting import InverseCDFSampler
from exactdp.params import DomainError, ParameterError, positive_int
from exactdp.randomness import RandomSource
from exactdp.trace import Event, recording

__all__ = ["ENUMERATION_LIMIT", "HOCKEY_STICK_MAX_BITS", "Explored", "counting_input", "explore_input",
           "whitebox_audit"]

#: Default largest ``d`` enumerated by the white-box audit (above it: threshold search).
ENUMERATION_LIMIT = 1 << 14
#: An exploration estimated at this many CPU seconds or more has its estimate said on the
#: ``notice`` channel (stderr on the command line, even with --quiet).
LONG = 10


def _trace_counter(names: frozenset[str], sink: list[Event]) -> Callable[..., Any]:
    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and frame.f_code.co_name in names:
            sink.append(("call", frame.f_code.co_name))
    return profile


def _counting_trace(adapter: CountingAdapter, c: int, u: int,
                    names: frozenset[str]) -> tuple[tuple[Event, ...], int]:
    """Events of one call ``f(c, u)``: exactdp trace events plus calls of functions named
    in ``names`` (e.g. ``cdf``), recorded with :func:`sys.setprofile`."""
    calls: list[Event] = []
    old = sys.getprofile()
    with recording() as events:
        sys.setprofile(_trace_counter(names, calls))
        try:
            z = adapter.value(c, u, again=False)
        finally:
            sys.setprofile(old)
    merged = tuple(events) + tuple(calls)
    return merged, z


def _trace_points(d: int, dist0: Mapping[int, Fraction], limit: int = 48) -> list[int]:
    pts = {1, 2, d // 2, d - 1, d}
    acc = Fraction(0)
    for z in sorted(dist0):
        acc += dist0[z]
        t = acc * d
        if t.denominator == 1:
            pts.update({int(t), int(t) + 1})
    pts = {u for u in pts if 1 <= u <= d}
    chosen = sorted(pts)
    if len(chosen) > limit:
        chosen = chosen[::-(-len(chosen) // limit)]
    return chosen


def _monotone_spot_check(adapter: CountingAdapter, inputs: Sequence[int],
                         points: Sequence[int]) -> Finding | None:
    rng = random.Random(20180101)
    us = sorted(set(points) | {rng.randrange(1, adapter.d + 1) for _ in range(32)})
    for c in inputs:
        prev_u, prev_z = us[0], adapter.value(c, us[0])
        for u in us[1:]:
            z = adapter.value(c, u)
            if z < prev_z:
                return Finding("not_monotone",
                               f"declared non-decreasing in u, but f({c}, {prev_u}) = {prev_z} "
                               f"> f({c}, {u}) = {z}; the threshold search does not apply",
                               {"c": c, "u1": prev_u, "z1": prev_z, "u2": u, "z2": z})
            prev_u, prev_z = u, z
    return None


def _counting_cost(inputs: int, d: int, outputs: int, enumeration_limit: int
                   ) -> tuple[int, str]:
    """Calls of ``f`` a counting audit makes, about: enumeration ``inputs x d`` (and a table
    of ``outputs`` counts per input); threshold search ``inputs x outputs x (log2 d + 2)``;
    plus the trace comparison (two calls per input at up to 50 values of ``u``) and the
    monotonicity spot check."""
    extra = inputs * 100 + inputs * 90
    if d <= enumeration_limit:
        return (inputs * (d + outputs) + extra,
                f"{inputs} inputs x (d = {d} values of u + {outputs} outputs)")
    bits = d.bit_length() + 2
    return (inputs * outputs * bits + extra,
            f"{inputs} inputs x {outputs} outputs x {bits} binary-search steps")


def _counting_distributions(adapter: CountingAdapter, inputs: Sequence[int],
                            monotone: bool | None, enumeration_limit: int,
                            progress: Progress, spread: Spread | None = None
                            ) -> tuple[dict[Any, Distribution], str, str, list[Finding],
                                       dict[Any, str]]:
    """The distributions per input (computed here, or by ``spread`` on its workers and
    merged in input order: the first failure in that order is raised as here), the method,
    the monotonicity note, findings, and the inputs ``spread`` could not run (why)."""
    d = adapter.d
    findings: list[Finding] = []
    dists: dict[Any, Distribution] = {}
    enumerate_all = d <= enumeration_limit
    if enumerate_all:
        method = f"enumerated all d = {d} values of u"
        mono = "not needed (enumerated)"
    else:
        assert monotone, "checked by whitebox_audit before any call"
        method = ("threshold search confirmed from f.cdf" if adapter.has_cdf else
                  "binary-search thresholds T_z = max{u : f(c,u) <= z}")
    spread_out = None if spread is None else spread.counting(
        inputs, {"d": d, "allowed": adapter.outputs, "time_limit": adapter.guard.time_limit,
                 "enumerate_all": enumerate_all, "enumeration_limit": enumeration_limit})
    not_run: dict[Any, str] = {}
    for i, c in enumerate(inputs):
        if spread_out is None:
            say(progress, f"  input {c} ({i + 1}/{len(inputs)}): " +
                (f"enumerating {d} values of u" if enumerate_all else
                 f"threshold search over {adapter.n + 1} outputs"))
            dists[c] = counting_input(adapter, c, enumerate_all, enumeration_limit)
        elif (why := unwrap(spread_out[i])) is not None:
            not_run[c] = why
        else:
            dists[c] = spread_out[i]
    if enumerate_all or not_run:
        return dists, method, "" if not_run else mono, findings, not_run
    shift = adapter.outputs.start
    points = _trace_points(d, {z - shift: p for z, p in dists[inputs[0]].items()})
    bad = _monotone_spot_check(adapter, inputs, points)
    if bad is not None:
        raise Abort(bad)
    mono = ("declared; spot-checked at the thresholds and 32 pseudo-random u (the "
            "distribution is exact if f is non-decreasing in u)")
    return dists, method, mono, findings, not_run


def _counting_trace_result(adapter: CountingAdapter, inputs: Sequence[int],
                           dists: Mapping[Any, Distribution],
                           names: frozenset[str]) -> TraceResult:
    """For each ``u`` examined, compare the trace of ``f(c, u)`` on every input ``c`` with
    the trace of ``f(inputs[0], u)``: a difference at a fixed ``u`` is a dependence on the
    input.  Differences between values of ``u`` are reported separately, as information."""
    shift = adapter.outputs.start
    points = _trace_points(adapter.d, {z - shift: p for z, p in dists[inputs[0]].items()})
    ref_c = inputs[0]
    examined = (f"{len(points)} values of u, at each every one of {len(inputs)} inputs "
                f"compared with input {ref_c}; events: exactdp trace + calls named "
                f"{sorted(names)}")
    per_u: dict[int, tuple[Event, ...]] = {}
    for u in points:
        for c in inputs:
            tr, z = _counting_trace(adapter, c, u, names)
            again = adapter.value(c, u)
            if again != z:
                raise Abort(Finding(
                    "nondeterministic", f"f({c}, {u}) returned {z} and then {again}: it is not a "
                    f"deterministic function of (c, u) (hidden randomness?)",
                    {"c": c, "u": u, "first": z, "second": again}))
            reference = per_u.setdefault(u, tr)
            if tr != reference:
                return TraceResult(False, examined, None,
                                   {"u": u, "input": c, "trace_length": len(tr),
                                    "reference_input": ref_c,
                                    "reference_length": len(reference),
                                    "trace": [" ".join(map(str, e)) for e in tr[:12]],
                                    "reference": [" ".join(map(str, e))
                                                  for e in reference[:12]]})
    lengths = sorted({len(t) for t in per_u.values()})
    distinct = len(set(per_u.values()))
    note = ""
    if distinct > 1:
        spread = (f"length {lengths[0]} throughout" if len(lengths) == 1 else
                  f"lengths {lengths[0]}..{lengths[-1]}")
        note = (f"the trace varies with the randomness u ({distinct} different traces over "
                f"the {len(points)} values of u, {spread}) but, at each u, not with the "
                f"input; a timing observer learns about u, and the privacy ratios above are "
                f"for the output alone, not for (output, time) jointly")
    return TraceResult(True, examined, lengths[0] if len(lengths) == 1 else None,
                       randomness_note=note)


def _source_distributions(f: Callable[[Any, RandomSource], Any], inputs: Sequence[Any],
                          guard: Guard, randomness_size: int | None,
                          allowed: range | frozenset[Any] | None, progress: Progress,
                          max_uniform: int, max_runs: int, max_calls: int,
                          deadline_ns: int | None = None,
                          max_draws: int | None = MAX_DRAWS_PER_PATH,
                          spread: Spread | None = None, max_seconds: int | None = None,
                          notice: Progress = None,
                          paths: dict[Any, dict[Any, tuple[int, ...]]] | None = None,
                          every: dict[Any, Any] | None = None
                          ) -> tuple[dict[Any, Distribution], dict[Any, dict[Any, Fraction]],
                                     dict[Any, Fraction], str, dict[Any, str]]:
    """Explore ``f(c, source)`` on every input; at most ``max_runs`` runs per input and
    ``max_calls`` in all (past the latter: :class:`ResourceLimitError`, a usage error).
    An input whose exploration reaches ``max_runs`` or ``deadline_ns``, or has paths cut
    off at ``max_draws`` draws, keeps the paths finished; the third value is the mass covered per input (1 when complete), the fourth
    what stopped the exploration ("" when complete), the fifth the inputs ``spread`` could
    not run (why).

    With ``spread``, every input is explored on a worker with ``min(max_runs, max_calls)``
    runs and merged here in input order, replaying the serial bookkeeping: an input whose
    calls exceed what the inputs before it left of ``max_calls`` raises as the serial run
    would, and the first failure in input order is raised as here (the serial run stops at
    it, so the inputs before it are the same)."""
    dists: dict[Any, Distribution] = {}
    traces: dict[Any, dict[Any, Fraction]] = {}
    covered: dict[Any, Fraction] = {}
    not_run: dict[Any, str] = {}
    stopped = ""
    used = 0
    begin = time.monotonic_ns()
    cpu = time.process_time()

    if max_seconds is not None and spread is None:  # the cost, estimated before it starts
        counting = Counting(f)
        # the probes leave no trace in the mechanism or its report, and run as the
        # exploration runs its paths (one timer for their time limits, the recorders held)
        with unchanged(f), alarm_handler(guard.time_limit), counting.held():
            guess = estimate(lambda c: path_runner(f, c, guard, randomness_size, allowed,
                                                   counting=counting)[0],
                             inputs, max_draws=max_draws)
        # what the budgets let it run (--max-paths, --time-budget): a partial verdict
        guess = guess.capped(max_runs, None if deadline_ns is None else
                             max(deadline_ns - time.monotonic_ns(), 0))
        if guess.ns > max_seconds * NS:  # (the estimate is in the one-line refusal)
            raise over_estimate(guess, max_seconds)
        # a PASS is confirmed in other processes: each path once more in each of them
        after = ("; a PASS is then confirmed in other processes replaying every path (up "
                 "to about as much CPU again, in parallel)" if every is not None else "")
        say(notice if guess.ns >= LONG * NS else progress, "  " + guess.line() + after)
    stop_ns = exploration_deadline(max_seconds)

    def share(i: int) -> int | None:  # each input: an equal share of the time to the deadline
        mine = None if deadline_ns is None else \
            begin + (deadline_ns - begin) * (i + 1) // len(inputs)
        return stop_ns if mine is None else mine if stop_ns is None else min(mine, stop_ns)

    spread_out = None if spread is None else spread.source(
        inputs, {"randomness_size": randomness_size, "allowed": allowed,
                 "time_limit": guard.time_limit, "max_uniform": max_uniform,
                 "max_runs": max_runs, "max_calls": max_calls, "max_draws": max_draws,
                 "record": every is not None},
        [share(i) for i in range(len(inputs))])
    for i, c in enumerate(inputs):
        cap = min(max_runs, max_calls - used)
        if i == 1 and spread_out is None:
            say(progress, cost_estimate(used, time.process_time() - cpu, len(inputs),
                                        max_calls))
        if spread_out is None:
            r = explore_input(f, c, i, len(inputs), guard, randomness_size, allowed, progress,
                              max_uniform, max_runs, cap, max_calls, share(i), max_draws,
                              record=every is not None)
        elif (why := unwrap(spread_out[i])) is not None:
            not_run[c] = why
            covered[c] = Fraction(0)
            dists[c] = {}
            continue
        else:
            r = spread_out[i]
            if r.calls > cap:  # the serial run would have stopped at cap < max_runs calls
                raise calls_exceeded(len(inputs), max_calls, c)
            absorb_notes(f, r.notes)
        if r.stopped and stop_ns is not None and time.monotonic_ns() >= stop_ns:
            assert max_seconds is not None
            raise over_deadline(max_seconds, i, len(inputs))
        used += r.calls
        dists[c], traces[c], covered[c] = r.dist, r.traces, r.covered
        if paths is not None:
            paths[c] = r.paths
        if every is not None:
            every[c] = r.every
        stopped = r.stopped or stopped
    return dists, traces, covered, stopped, not_run


def whitebox_audit(mechanism: Any, *, inputs: Sequence[Any] | range | None = None,
                   claimed_epsilon: object, claimed_delta: object = 0,
                   kind: Literal["auto", "counting", "source"] = "auto",
                   d: int | None = None, outputs: range | Sequence[Any] | None = None,
                   monotone: bool | None = None, reference: Reference | None = None,
                   neighbours: Sequence[tuple[Any, Any]] | None = None,
                   randomness_size: int | None = None,
                   time_limit: int | None = DEFAULT_TIME_LIMIT,
                   enumeration_limit: int = ENUMERATION_LIMIT,
                   trace_calls: Sequence[str] = ("cdf",),
                   max_uniform: int = 1 << 16, max_runs: int = 1 << 20,
                   max_inputs: int = MAX_INPUTS, max_calls: int = MAX_CALLS,
                   time_budget: int | None = None,
                   progress: Progress = None,
                   max_draws: int | None = MAX_DRAWS_PER_PATH,
                   spread: Spread | None = None, max_seconds: int | None = None,
                   notice: Progress = None, hash_seed_check: bool = True,
                   rebuild: Any = None, hash_seeds: int = SEEDS) -> WhiteBoxReport:
    """Audit ``mechanism`` exactly: its output distribution on every input, its worst
    privacy-loss ratio over neighbours against ``e**claimed_epsilon``, and more.

    ``kind``:

    * ``"counting"`` -- ``mechanism(c, u)`` with ``u`` in ``[d]_+``; ``d`` from the argument
      or ``mechanism.d``; integer outputs in ``outputs`` (default: ``[0, n]`` for an
      :class:`InverseCDFSampler`, otherwise the input range); ``monotone`` (default
      ``mechanism.monotone`` if present; True for an :class:`InverseCDFSampler`, whose
      contract it is) allows the threshold search when ``d > enumeration_limit``.
    * ``"source"`` -- ``mechanism(c, source)`` drawing from ``source``; explored exactly.
      ``randomness_size`` (or ``d``) declares the randomness domain: the product of the
      domain sizes of the draws along any path may not exceed it.
    * ``"auto"`` -- counting when ``d`` is known (argument or attribute), else source.

    ``neighbours`` defaults to consecutive inputs ``(c, c+1)``; both orders are checked.
    ``reference``: an exactdp mechanism or per-input distributions (exact or interval)
    to measure the statistical distance to.  ``claimed_delta > 0`` judges the claim as
    approximate DP by the hockey-stick divergence instead of the pure ratio.

    The verdict is ``"pass"`` (claim holds exactly on this domain), ``"violation"`` or
    ``"broken"`` (the code failed; see ``findings``).  Never raises for faults of the
    audited code; raises :class:`~exactdp.params.ParameterError` for bad audit arguments
    (and bad declarations: an attribute ``d``, ``outputs`` or ``reference`` that is not
    what it should be), :class:`~exactdp.params.ResourceLimitError` when the audit would
    take more than ``max_inputs`` inputs or about ``max_calls`` calls of the mechanism
    (counting kind: inputs x ``d`` when enumerating, inputs x outputs x ``log2 d`` for the
    threshold search; source kind: the runs of the exploration, counted as they happen).

    Source kind: ``max_runs`` paths per input and ``time_budget`` seconds for the whole
    exploration (None: no budget) are a *budget*: an exploration reaching either stops
    with the verdict ``"incomplete"``, reporting the exact mass covered per input, or
    ``"violation"`` when a ratio is certain to exceed the claim from that mass alone
    (:mod:`exactdp.audit.budget`); progress (paths, mass covered, rate) about once a
    second.  A path making more than ``max_draws`` draws (None: no cap), or still drawing at
    the deadline or after 3/4 of ``time_limit``, is cut off: its mass is uncovered and the verdict at best ``"incomplete"``
    (an unbounded loop on a probability-0 path no longer hangs the audit).  A :class:`~exactdp.audit.facades.FacadeMechanism` whose draws cannot be
    explored exactly raises :class:`~exactdp.audit.facades.FacadeRefusal` (a
    :class:`~exactdp.params.ResourceLimitError`).

    ``max_seconds`` (source kind; None: no limit) is a *limit*, not a budget: the
    exploration's cost is estimated before it starts (:mod:`exactdp.audit.cost`; the
    estimate is said on ``notice`` when it is 10 s or more, else on ``progress``) and
    refused past ``max_seconds`` CPU seconds, and an exploration still running
    ``max_seconds`` seconds after it started stops; both raise
    :class:`~exactdp.params.ResourceLimitError` (nothing is concluded).

    A pass is confirmed in other processes started with other hash seeds
    (:mod:`exactdp.audit.hash_seed`): every explored path replayed there (counting kind:
    the distributions computed again) must give the same output, draws and trace, else the
    verdict is ``"broken"`` (a ``"nondeterministic"`` finding: the law depends on the
    process's hash seed).  ``rebuild``: how those processes rebuild the mechanism (a
    :class:`~exactdp.audit.parallel.Loader`; default: the mechanism pickled before the
    audit calls it, with cloudpickle where installed); one that cannot be rebuilt there
    is not confirmed and the verdict is ``"incomplete"``.  ``hash_seeds``: how many more
    processes (default 2); ``hash_seed_check=False`` (or ``hash_seeds=0``) skips the
    confirmation: a pass then says it holds in this process only (``scope``).
    """
    start = time.monotonic_ns()
    check_callable(mechanism, "mechanism", "f(c, u) or f(c, source)")
    eps = check_epsilon(claimed_epsilon)
    delta = check_delta(claimed_delta)
    limit = check_time_limit(time_limit)
    budget = check_time_budget(time_budget)
    if kind not in ("auto", "counting", "source"):
        raise ParameterError(f"kind = {kind!r} must be auto, counting or source")
    if d is None and kind != "source":
        attr = declared(mechanism, "d")
        if attr is not None:
            d = as_int(attr)
            if d is None or d < 1:
                raise ParameterError(f"the target's attribute d = {show(attr)} must be a "
                                     f"positive int (the size of its randomness domain)")
    if d is not None:
        d = positive_int(d, "d")
    if randomness_size is not None:
        randomness_size = positive_int(randomness_size, "randomness_size")
    if kind == "auto":
        kind = "counting" if d is not None else "source"
    if inputs is None:
        if isinstance(mechanism, InverseCDFSampler):
            inputs = range(mechanism.n + 1)
        else:
            raise ParameterError("inputs must be given (e.g. range(0, 9) or '0..8')")
    ins = materialise_inputs(inputs, max_inputs)
    pairs = neighbour_pairs(ins, neighbours)
    if isinstance(mechanism, InverseCDFSampler):
        outside = [c for c in ins if as_int(c) is None or not 0 <= c <= mechanism.n]
        if outside:
            raise ParameterError(f"input {show(outside[0])} lies outside the mechanism's "
                                 f"domain [n] = {{0, ..., {mechanism.n}}}")
    if reference is None:
        reference = declared(mechanism, "reference")
    name = (describe(mechanism) if not isinstance(mechanism, InverseCDFSampler)
            else sampler_name(mechanism))
    guard = Guard(limit)
    # taken before the first call: a cache the audit fills is not carried to the others
    if isinstance(hash_seeds, bool) or not isinstance(hash_seeds, int) or hash_seeds < 0:
        raise ParameterError(f"hash_seeds = {hash_seeds!r} must be an int >= 0 (the number "
                             f"of other processes a pass is confirmed in)")
    rebuilt = None if not hash_seed_check or not hash_seeds else recipe(
        mechanism, rebuild if rebuild is not None else None if spread is None else spread.loader)
    every: dict[Any, Any] | None = \
        None if rebuilt is None or kind == "counting" else {}
    common: dict[str, Any] = {"mechanism": name, "kind": kind, "inputs": tuple(ins),
                              "claimed_epsilon": eps, "claimed_delta": delta}
    if neighbours is not None:  # the report must not say "c and c+1" for other pairs
        common["relation"] = f"the {len(pairs)} given pairs"
    if outputs is None and isinstance(mechanism, InverseCDFSampler):
        outputs = range(mechanism.n + 1)
    allowed = declared_outputs(outputs if outputs is not None else
                               declared(mechanism, "outputs"))
    if kind == "counting":
        if d is None:
            raise ParameterError("a counting mechanism f(c, u) needs its randomness-domain "
                                 "size d (argument d, --randomness-size, or attribute d)")
        for c in ins:
            if as_int(c) is None:
                raise ParameterError(f"input {show(c)} of a counting mechanism must be an int")
        if allowed is None:
            allowed = range(min(ins), max(ins) + 1)
        if not isinstance(allowed, range):
            raise ParameterError("outputs of a counting mechanism must be a range LO..HI")
        if monotone is None:
            flag = declared(mechanism, "monotone")
            monotone = bool(flag) if flag is not None else \
                isinstance(mechanism, InverseCDFSampler)
        if d > enumeration_limit and not monotone:
            # A limit of the audit, known before any call: nothing is audited (status 2).
            raise ParameterError(
                f"d = {_short_int(d)} is too large to enumerate (limit {enumeration_limit}) "
                f"and f is not declared non-decreasing in u; declare it monotone (attribute "
                f"monotone=True / --monotone) if it is, or audit it black-box")
        check_calls(*_counting_cost(len(ins), d, allowed.stop - allowed.start,
                                    enumeration_limit), max_calls)
    elif randomness_size is None and d is not None:
        randomness_size = d
    refs = None if reference is None else reference_distributions(reference, ins, limit)
    trace: TraceResult | None = None
    searches = _searches()
    with watching(mechanism) as watch:  # no law from a run that escaped the exploration
        guard.watch = watch
        try:
            if kind == "counting":
                assert d is not None and isinstance(allowed, range)
                adapter = CountingAdapter(mechanism, d, allowed, guard)
                say(progress, f"white-box audit of {name}: {len(ins)} inputs, "
                              f"d = {_short_int(d)}")
                dists, method, mono, _, not_run = _counting_distributions(
                    adapter, ins, bool(monotone), enumeration_limit, progress, spread)
                watch.check()
                if not_run:
                    return _not_run_report(common, dists, not_run, pairs, eps, method, d,
                                           start)
                say(progress, "  comparing operation traces across inputs")
                trace = _counting_trace_result(adapter, ins, dists, frozenset(trace_calls))
            else:
                say(progress, f"white-box audit of {name}: {len(ins)} inputs, exploring draws")
                paths: dict[Any, dict[Any, tuple[int, ...]]] = {}
                dists, traces, covered, stopped, not_run = _source_distributions(
                    mechanism, ins, guard, randomness_size, allowed, progress, max_uniform,
                    max_runs, max_calls, None if budget is None else start + budget * 10**9,
                    max_draws, spread, max_seconds, notice, paths, every)
                watch.check()
                only_none(dists, "f({c}, source)")
                method = "explored every path of draws (exploring source)"
                assumed = getattr(mechanism, "assumption", "")
                if assumed and isinstance(assumed, str):
                    method += f"; {assumed}"
                mono = ""
                d = randomness_size
                if not_run:
                    return _not_run_report(common, dists, not_run, pairs, eps,
                                           "explored every path of draws (exploring source)", d,
                                           start, covered, stopped)
                if stopped:
                    return incomplete_report(common, dists, covered, pairs, eps,
                                             "explored the paths of draws up to the budget "
                                             "(exploring source)", d, stopped,
                                             elapsed(start))
                trace = timing_result(traces, ins, pairs, eps, delta)
                if not trace.same:
                    with unchanged(mechanism):
                        trace = located(trace, traces, paths, mechanism, guard,
                                        randomness_size, allowed, max_uniform)
            watch.check()
        except Abort as abort:
            return WhiteBoxReport(**common, verdict="broken", d=d, findings=(abort.finding,),
                                  seconds=elapsed(start))
        except DomainError as exc:  # raised by the checker on an inconsistent mechanism
            finding = "not_monotone" if isinstance(exc, NotMonotoneError) else "inconsistent"
            return WhiteBoxReport(**common, verdict="broken", d=d,
                                  findings=(Finding(finding, str(exc)),),
                                  seconds=elapsed(start))
    say(progress, "  exact privacy-loss ratios over neighbouring inputs")
    ref_name = None if reference is None else describe_reference(reference)
    report = _judge(common, dists, pairs, eps, delta, ref_name, refs, method, d, mono, trace,
                    start)
    labels = declared(mechanism, "labels")
    if isinstance(labels, Mapping):
        notes = []
        for o, label in labels.items():
            probs = {c: dist.get(o, Fraction(0)) for c, dist in dists.items()}
            if not any(probs.values()):
                continue
            values = set(probs.values())
            where = (f"{values.pop()} on every input" if len(values) == 1 else
                     ", ".join(f"{p} on input {show(c)}" for c, p in probs.items()))
            notes.append(Finding("labelled_outcome", f"outcome {show(o)} ({show(label)}) has "
                                 f"probability "
                                 f"{where}", {"outcome": o, "probabilities": probs}))
        report = replace(report, findings=report.findings + tuple(notes))
    searched = getattr(mechanism, "unverified", "")
    if not isinstance(searched, str) or not searched and _searches() != searches:
        searched = "by a facade inside the mechanism"  # a facade wrapped in other code
    report = _no_pass_on_assumption(report, searched)
    if report.verdict != "pass":
        return report
    if rebuilt is None:
        return replace(report, scope="in this process only: the hash-seed confirmation was "
                                     "skipped")
    if kind == "counting":
        assert d is not None
        confirmation = confirm(rebuilt, "counting", {
            "d": d, "allowed": allowed, "time_limit": limit,
            "enumerate_all": d <= enumeration_limit, "enumeration_limit": enumeration_limit},
            [(c, dists[c]) for c in ins], progress, _replay_limit(start), hash_seeds)
    else:
        assert every is not None
        confirmation = confirm(rebuilt, "audit", {
            "time_limit": limit, "randomness_size": randomness_size, "allowed": allowed,
            "max_uniform": max_uniform},  # outputs only: traces are judged by their law
            [(c, every[c]) for c in ins], progress,
            _replay_limit(start), hash_seeds)
    if confirmation.laws and trace is not None:
        # the timing verdict again, on the traces the first other process counted
        again = timing_result(confirmation.laws, ins, pairs, eps, delta)
        if not again.same:
            confirmation = replace(confirmation, finding=Finding(
                "nondeterministic",
                f"the timing verdict depends on the process's hash seed: on the operation "
                f"traces counted in a process started with PYTHONHASHSEED="
                f"{confirmation.seeds[0]} (the same outputs and draws), the joint law of "
                f"(output, trace) breaks the claim ({again.examined}); the code's running "
                f"time follows the iteration order of a set (or a dict or list built from "
                f"one) of strings or bytes. Iterate in a fixed order (sorted(...))",
                {"hash_seed": confirmation.seeds[0], "witness": again.witness}))
        else:
            confirmation = replace(confirmation, line=confirmation.line + (
                f"; the timing verdict holds on the traces counted there (hash seed "
                f"{confirmation.seeds[0]})"))
    return _confirmed(report, confirmation, common, d, start)


def _replay_limit(start: int) -> int:
    """Seconds the replays in other processes may take: three times the audit so far (a
    replay runs each path once, the audit at least twice), and at least two minutes."""
    return max(120, -(-3 * (time.monotonic_ns() - start) // 10**9))


def _confirmed(report: WhiteBoxReport, confirmation: Any, common: dict[str, Any],
               d: int | None, start: int) -> WhiteBoxReport:
    """A pass as :func:`~exactdp.audit.hash_seed.confirm` left it: confirmed (said in the
    method), ``"broken"`` on a difference, ``"incomplete"`` when not confirmed."""
    if confirmation.finding is not None:
        return WhiteBoxReport(**common, verdict="broken", d=d,
                              findings=(confirmation.finding,), seconds=elapsed(start))
    if confirmation.unconfirmed:
        note = unconfirmed_note(confirmation.unconfirmed)
        return replace(report, verdict="incomplete", seconds=elapsed(start),
                       bound="undecided: the claim held on the law computed in this process, "
                             "which was not confirmed in another process (see the finding)",
                       findings=report.findings + (Finding(
                           "hash_seed_unconfirmed",
                           f"{note}. Define the mechanism at module level (or as an object "
                           f"of an importable class) so that another process can rebuild "
                           f"it, or pass hash_seed_check=False (--hash-seeds 0) to "
                           f"accept a pass in this process only"),))
    return replace(report, method=f"{report.method}; {confirmation.line}",
                   seconds=elapsed(start))


def _searches() -> int:
    """How many draws the facades have explored by their effect in this process (0 if the
    facades were never imported)."""
    facades = sys.modules.get("exactdp.audit.facades")
    return int(facades.SEARCHES[0]) if facades is not None else 0


def _no_pass_on_assumption(report: WhiteBoxReport, searched: str) -> WhiteBoxReport:
    """A PASS never rests on an unverified assumption: a law in which a draw was explored by
    its effect (a facade's breakpoint search, checked at finitely many values only) cannot
    prove the claim, so the verdict is ``"incomplete"`` (exit status 2) instead."""
    if not searched:
        return report
    if report.verdict != "pass":
        note = (f"the law rests on draws explored by their effect ({searched}), assumed "
                f"piecewise constant and checked at finitely many values only: its "
                f"probabilities are exact if that assumption holds")
        return replace(report, findings=report.findings + (
            Finding("unverified_law", note, {"searched": searched}),))
    why = (f"no PASS on an unverified law: draws explored by their effect ({searched}) are "
           f"assumed piecewise constant, which checks at finitely many values cannot verify "
           f"(a narrow piece, or one opened jointly by later draws, can be missed); the "
           f"claim held on the law found.  To verify it: use each random() value and "
           f"integer draw only in comparisons with numbers (an int added to an integer "
           f"draw too: branched exactly), or integers from at most {EXACT_LIMIT} values in "
           f"any way (each value branched), draw from the exploring source, or audit "
           f"black-box")
    bound = ("undecided: no PASS on an unverified law (the claim held on a law that rests on "
             "draws explored by their effect, see the finding)")
    return replace(report, verdict="incomplete", bound=bound,
                   findings=report.findings + (Finding("unverified_law", why,
                                                       {"searched": searched}),))


def _not_run_report(common: dict[str, Any], dists: dict[Any, Distribution],
                    not_run: Mapping[Any, str], pairs: Sequence[tuple[Any, Any]],
                    eps: Claim, method: str, d: int | None, start: int,
                    covered: Mapping[Any, Fraction] | None = None,
                    stopped: str = "") -> WhiteBoxReport:
    """Inputs that a worker could not run (it died twice, or the cluster lost it): their mass
    is uncovered (0 covered, nothing known), so the verdict is ``"incomplete"`` -- never a
    pass -- or ``"violation"`` when a ratio between inputs that did run is certain to exceed
    the claim (:func:`~exactdp.audit.budget.incomplete_report`)."""
    mass = {c: (Fraction(0) if c in not_run else Fraction(1) if covered is None
                else covered[c]) for c in common["inputs"]}
    full = {c: dists.get(c, {}) for c in common["inputs"]}
    why = ("inputs not run by the workers: " + "; ".join(f"{show(c)} ({w})"
                                                         for c, w in not_run.items())
           + (f"; and {stopped}" if stopped else ""))
    return incomplete_report(common, full, mass, pairs, eps, method, d, why, elapsed(start))


def sampler_name(mechanism: InverseCDFSampler) -> str:
    """``repr(mechanism)`` for exactdp's own samplers; for a subclass defined elsewhere (which
    inherits that ``repr``, e.g. a modified GeoSample), its own class name first, so that a
    report never names the audited code after the class it changed."""
    cls = type(mechanism)
    base = next((k for k in cls.__mro__ if k.__module__.startswith("exactdp.")), cls)
    if base is cls:
        return repr(mechanism)
    return f"{cls.__module__}.{cls.__qualname__} (a subclass of {base.__name__}): {mechanism!r}"
