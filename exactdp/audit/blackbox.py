"""Black-box audits: sampling code whose randomness cannot be reached, honestly.

We only sample, and say exactly what the samples can and cannot show:

* a goodness-of-fit test against an exact reference distribution: one exact two-sided
  binomial test per (input, outcome), Bonferroni-corrected, computed with certified
  binomial tails (:mod:`exactdp.binomial`), so the stated false-alarm probability is
  honoured exactly (not asymptotically, as a chi-square statistic would be);
* a lower confidence bound on the privacy loss of the most distinguishing outcome set,
  with sample splitting: one batch of draws *selects* the neighbour pair and outcome set,
  a fresh batch *estimates* it with Clopper--Pearson bounds on both sides (choosing the
  set from the same samples that bound it would void the confidence statement);
* for an ``(eps, delta)`` claim (``delta > 0``), a lower confidence bound on the
  hockey-stick divergence instead: the selection draws choose the set
  ``S = {o : count_a(o) > e^eps count_b(o)}``, and with probability ``>= 1 - alpha`` the
  fresh draws give ``delta(eps) >= P_a(S) - e^eps P_b(S) >= L - e^eps_hi U``
  (Clopper--Pearson, ``alpha/2`` each side); the claim is refuted when that exceeds
  ``delta`` -- the false-alarm probability is at most ``alpha`` (see
  :func:`hockey_stick_rejects`);
* never "private": at best "no violation detected", with the power stated.

Every value the sampler returns is checked (:func:`exactdp.audit.guard.check_outcome`):
``None``, nan, an unhashable or otherwise inexact value, or a value outside the
declared outputs stops the audit with verdict ``"broken"`` -- counting garbage would make
every statement about the samples meaningless.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from exactdp.audit.guard import (
    DEFAULT_TIME_LIMIT,
    Abort,
    Finding,
    Guard,
    Progress,
    check_observed,
    describe,
    elapsed,
    only_none,
    say,
    show,
)
from exactdp.audit.reference import (
    RefDistribution,
    Reference,
    describe_reference,
    reference_distributions,
)
from exactdp.audit.report import (
    BlackBoxReport,
    FitResult,
    PrivacyTest,
    Verdict,
    _decimal,
    _short_fraction,
)
from exactdp.audit.targets import (
    MAX_CALLS,
    MAX_INPUTS,
    check_alpha,
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
from exactdp.binomial import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    critical_counts,
    upper_tail,
)
from exactdp.certified import Interval, ln_interval
from exactdp.claims import Claim, exp_bounds
from exactdp.params import positive_int

__all__ = ["blackbox_audit", "hockey_stick_lower", "hockey_stick_rejects", "privacy_test_rejects"]


def _draw(sampler: Callable[[Any], Any], c: Any, k: int, guard: Guard,
          outputs: range | frozenset[Any] | None, progress: Progress,
          label: str) -> dict[Any, int]:
    """``k`` checked draws of ``sampler(c)`` (through ``sampler.batch(c, m)`` if offered),
    counted by outcome.  Each value is checked inside the guarded call; a batch is read
    inside it too, at most ``m + 1`` values deep (an endless iterator is a bad batch)."""
    counts: dict[Any, int] = {}
    batch = getattr(sampler, "batch", None)
    step = max(k // 4, 1)
    done = 0
    call = f"sampler({show(c)})"

    def check(v: Any, j: int = 0) -> Any:
        return check_observed(v, outputs, call, {"c": c, "draw": done + j})

    while done < k:
        m = min(step, k - done)
        if callable(batch):
            what = f"batch({show(c)}, {m})"

            def read(values: Any, m: int = m, what: str = what) -> list[Any]:
                try:
                    items = list(itertools.islice(iter(values), m + 1))
                except TypeError:
                    raise Abort(Finding("bad_output", f"{what} returned {show(values)}, not an "
                                        f"iterable of {m} values", {"c": c})) from None
                if len(items) != m:
                    more = "more than" if len(items) > m else "only"
                    raise Abort(Finding("bad_output", f"{what} returned {more} "
                                        f"{min(len(items), m)} values, not {m}", {"c": c}))
                return [check(v, j) for j, v in enumerate(items)]

            values = guard.call(batch, (c, m), what, {"c": c}, check=read)
        else:
            values = [guard.call(sampler, (c,), call, {"c": c, "draw": done + j},
                                 check=functools.partial(check, j=j))
                      for j in range(m)]
        for v in values:
            counts[v] = counts.get(v, 0) + 1
        done += m
        say(progress, f"  {label}: input {show(c)}: {done}/{k} draws")
    return counts


def _pessimistic(x: int, y: int) -> Fraction:
    """Selection score of a set with counts ``x`` vs ``y``: ratio of count bounds three
    rough standard deviations apart (a heuristic: it only *chooses* the set, and favours
    sets with enough mass for the estimation draws to bound)."""
    num = x - 3 * math.isqrt(x)
    return Fraction(max(num, 0), y + 3 * math.isqrt(y) + 3)


def _select(counts: Mapping[Any, Mapping[Any, int]],
            pairs: Sequence[tuple[Any, Any]]) -> tuple[Any, Any, tuple[Any, ...], int, int]:
    best: tuple[Fraction, Any, Any, tuple[Any, ...], int, int] | None = None
    for a0, b0 in pairs:
        for a, b in ((a0, b0), (b0, a0)):
            ca, cb = counts[a], counts[b]
            outs = sorted(set(ca) | set(cb),
                          key=lambda o: Fraction(2 * ca.get(o, 0) + 1, 2 * cb.get(o, 0) + 1),
                          reverse=True)
            x = y = 0
            chosen: list[Any] = []
            for o in outs:
                x += ca.get(o, 0)
                y += cb.get(o, 0)
                chosen.append(o)
                score = _pessimistic(x, y)
                if best is None or score > best[0]:
                    best = (score, a, b, tuple(chosen), x, y)
    assert best is not None
    return best[1], best[2], best[3], best[4], best[5]


def _select_hockey(counts: Mapping[Any, Mapping[Any, int]], pairs: Sequence[tuple[Any, Any]],
                   e_eps: Fraction) -> tuple[Any, Any, tuple[Any, ...], int, int]:
    """The ordered pair and set ``{o : x_o > e^eps y_o}`` with the largest pessimistic
    ``x - e^eps y`` on the selection draws (a heuristic: it only chooses the set)."""
    best: tuple[Fraction, Any, Any, tuple[Any, ...], int, int] | None = None
    for a0, b0 in pairs:
        for a, b in ((a0, b0), (b0, a0)):
            ca, cb = counts[a], counts[b]
            outs = sorted(set(ca) | set(cb), key=lambda o: e_eps * cb.get(o, 0) - ca.get(o, 0))
            chosen = tuple(o for o in outs if ca.get(o, 0) > e_eps * cb.get(o, 0)) \
                or tuple(outs[:1])
            x = sum(ca.get(o, 0) for o in chosen)
            y = sum(cb.get(o, 0) for o in chosen)
            score = (x - 3 * math.isqrt(x)) - e_eps * (y + 3 * math.isqrt(y) + 3)
            if best is None or score > best[0]:
                best = (score, a, b, chosen, x, y)
    assert best is not None
    return best[1], best[2], best[3], best[4], best[5]


def hockey_stick_lower(x: int, y: int, K: int, alpha: Fraction, e_eps_upper: Fraction
                       ) -> Fraction:
    """``L - e_eps_upper * U``: with probability ``>= 1 - alpha`` a lower bound on
    ``P_a(S) - e^eps P_b(S) <= delta(eps)`` (``L``, ``U``: Clopper--Pearson bounds at
    level ``alpha/2`` for ``x`` and ``y`` of ``K``; ``e_eps_upper >= e**eps``)."""
    half = alpha / 2
    return clopper_pearson_lower(x, K, half) - e_eps_upper * clopper_pearson_upper(y, K, half)


def hockey_stick_rejects(x: int, y: int, K: int, alpha: Fraction, e_eps_upper: Fraction,
                         delta: Fraction) -> bool:
    """The black-box ``(eps, delta)`` test: reject when :func:`hockey_stick_lower` ``>
    delta``.  If the claim holds, ``P_a(S) - e^eps P_b(S) <= delta``, so rejecting needs
    ``L > P_a(S)`` or ``U < P_b(S)``: probability at most ``alpha/2 + alpha/2``."""
    return hockey_stick_lower(x, y, K, alpha, e_eps_upper) > delta


def privacy_test_rejects(x: int, y: int, K: int, alpha: Fraction, e_eps_upper: Fraction,
                         upper: Fraction | None = None) -> bool:
    """The black-box privacy test's decision: reject ``P_a(S) <= e^eps P_b(S)``?

    ``x``, ``y``: counts of ``S`` in ``K`` fresh draws on ``a`` and on ``b``;
    ``e_eps_upper >= e**eps``.  With ``U`` the Clopper--Pearson upper bound for ``y`` at
    level ``alpha/2`` and ``t = e_eps_upper * U``, reject when ``t < 1`` and the certified
    ``Pr_t[Bin(K, t) >= x] <= alpha/2``.  If ``P_a(S) <= e^eps P_b(S)`` the rejection
    probability is at most ``alpha``: ``U < P_b(S)`` has probability ``<= alpha/2``, and
    otherwise ``P_a(S) <= t``, so rejecting needs a count whose exact tail under the true
    ``P_a(S)`` is ``<= alpha/2`` (probability ``<= alpha/2``).
    """
    half = alpha / 2
    u = clopper_pearson_upper(y, K, half) if upper is None else upper
    t = e_eps_upper * u
    return t < 1 and upper_tail(K, t, x).hi <= half


def _privacy_test(sampler: Callable[[Any], Any], sel_counts: Mapping[Any, Mapping[Any, int]],
                  pairs: Sequence[tuple[Any, Any]], K: int, alpha: Fraction, eps: Claim,
                  guard: Guard, outputs: range | frozenset[Any] | None,
                  progress: Progress, delta: Fraction = Fraction(0)) -> PrivacyTest:
    e_hi = exp_bounds(eps, 128).hi
    a, b, S, sx, sy = (_select(sel_counts, pairs) if delta == 0 else
                       _select_hockey(sel_counts, pairs, e_hi))
    say(progress, f"  selected inputs {show(a)} vs {show(b)}, {len(S)} outcome(s); drawing fresh "
                   f"estimation samples")
    ca = _draw(sampler, a, K, guard, outputs, progress, "estimation")
    cb = _draw(sampler, b, K, guard, outputs, progress, "estimation")
    x = sum(ca.get(o, 0) for o in S)
    y = sum(cb.get(o, 0) for o in S)
    half = alpha / 2
    lower = clopper_pearson_lower(x, K, half)
    upper = clopper_pearson_upper(y, K, half)

    def rejects(xx: int, yy: int) -> bool:
        if delta > 0:
            return hockey_stick_rejects(xx, yy, K, alpha, e_hi, delta)
        return privacy_test_rejects(xx, yy, K, alpha, e_hi,
                                    upper if yy == y else None)

    violation = rejects(x, y)
    ratio = lower / upper if upper > 0 else None
    ln_lo = None
    if ratio is not None and ratio > 1:
        ln_lo = ln_interval(ratio, 64).lo
    # Power: the smallest x that rejects when the count on b is y0 = K * q, with q the
    # selection-phase estimate sy / K of P_b(S).
    y0 = sy
    lo_x, hi_x = 0, K + 1
    if rejects(K, y0):
        while hi_x - lo_x > 1:
            mid = (lo_x + hi_x) // 2
            if rejects(mid, y0):
                hi_x = mid
            else:
                lo_x = mid
        x_star: int | None = hi_x
    else:
        x_star = None
    return PrivacyTest(a, b, S, K, x, y, alpha, lower, upper, ratio, ln_lo, violation, y0,
                       x_star, (sx, sy), delta,
                       lower - e_hi * upper if delta > 0 else None)


def blackbox_audit(sampler: Callable[[Any], Any], *, inputs: Sequence[Any] | range,
                   claimed_epsilon: object, draws: int, alpha: object = Fraction(1, 100),
                   claimed_delta: object = 0,
                   reference: Reference | None = None,
                   outputs: Sequence[Any] | range | None = None,
                   neighbours: Sequence[tuple[Any, Any]] | None = None,
                   time_limit: int | None = DEFAULT_TIME_LIMIT,
                   max_inputs: int = MAX_INPUTS, max_calls: int = MAX_CALLS,
                   progress: Progress = None) -> BlackBoxReport:
    """Sample ``sampler(c)`` and test it; every error probability is stated and honoured.

    * ``draws`` per input (selection and goodness of fit), then ``draws`` fresh draws on
      each of the two inputs selected for the privacy test (sample splitting).
    * ``alpha`` bounds the probability that this audit reports anything (a mismatch or a
      violation) about a mechanism that matches the reference and satisfies the claim:
      ``alpha/2`` for the fit test and ``alpha/2`` for the privacy test when a reference
      is given, all of ``alpha`` for the privacy test otherwise.
    * The fit test: one exact two-sided binomial test per (input, outcome) in the
      reference's support, level ``alpha_fit / (2m)`` per side for ``m`` tests; an
      outcome outside the support is a certain mismatch.
    * The privacy test: see :class:`PrivacyTest`; with ``claimed_delta > 0`` the
      hockey-stick test of ``(eps, delta)``-DP (:func:`hockey_stick_rejects`) instead of
      the ratio test.

    * ``outputs`` (default ``sampler.outputs``): the declared outputs, a range ``LO..HI``
      or a collection; every sampled value must lie in it.  Whether declared or not, every
      value must be an exact outcome (:func:`~exactdp.audit.guard.check_outcome`).

    The sampler may offer ``sampler.batch(c, k) -> list`` for speed.  Verdicts:
    ``"violation"``, ``"mismatch"``, ``"no violation detected"`` (never "private"),
    ``"broken"`` (the sampler raised, hung, or returned garbage: see ``findings``).

    Refused before any sampling (:class:`~exactdp.params.ResourceLimitError`): more than
    ``max_inputs`` inputs, or more than ``max_calls`` calls of the sampler in all
    (``draws x (inputs + 2)``).
    """
    start = time.monotonic_ns()
    check_callable(sampler, "sampler", "sampler(c)")
    eps = check_epsilon(claimed_epsilon)
    delta = check_delta(claimed_delta)
    a_total = check_alpha(alpha)
    K = positive_int(draws, "draws")
    limit = check_time_limit(time_limit)
    ins = materialise_inputs(inputs, max_inputs)
    pairs = neighbour_pairs(ins, neighbours)
    check_calls(K * (len(ins) + 2), f"{len(ins)} inputs x {K} draws + 2 x {K} estimation "
                f"draws", max_calls)
    if reference is None:
        reference = declared(sampler, "reference")
    allowed = declared_outputs(outputs if outputs is not None else
                               declared(sampler, "outputs"))
    name = describe(sampler)
    guard = Guard(limit)
    fit_alpha = a_total / 2 if reference is not None else None
    priv_alpha = a_total - (fit_alpha or 0)
    common: dict[str, Any] = {"mechanism": name, "inputs": tuple(ins), "claimed_epsilon": eps,
                              "claimed_delta": delta, "alpha": a_total, "draws": K,
                              "total_draws": K * (len(ins) + 2),
                              "relation": "" if neighbours is None else
                              f"the {len(pairs)} given pairs (both orders)"}
    counts: dict[Any, dict[Any, int]] = {}
    ref_name = None
    table: dict[Any, RefDistribution] = {}
    if reference is not None:  # validated before any sampling: a bad reference is exit 2
        ref_name = describe_reference(reference)
        table = reference_distributions(reference, ins, limit)
    say(progress, f"black-box audit of {name}: {len(ins)} inputs x {K} draws")
    try:
        for c in ins:
            counts[c] = _draw(sampler, c, K, guard, allowed, progress, "selection/fit")
        only_none(counts, "sampler({c})")
        rejections: list[FitResult] = []
        fit_power = ""
        tests = 0
        if reference is not None:
            say(progress, "  exact binomial goodness-of-fit tests")
            rejections, tests, fit_power = _fit(counts, table, K, fit_alpha or Fraction(0))
        say(progress, "  privacy-loss test on the most distinguishing set")
        pt = _privacy_test(sampler, counts, pairs, K, priv_alpha, eps, guard, allowed, progress,
                           delta)
    except Abort as abort:
        return BlackBoxReport(**common, verdict="broken", findings=(abort.finding,),
                              seconds=elapsed(start))
    bound, power = _privacy_text(pt, eps)
    verdict: Verdict = ("violation" if pt.violation else
                        "mismatch" if rejections else "no violation detected")
    return BlackBoxReport(**common, verdict=verdict, reference=ref_name, fit_alpha=fit_alpha,
                          fit_tests=tests, fit_rejections=tuple(rejections), fit_power=fit_power,
                          privacy=pt, privacy_bound=bound, power=power,
                          seconds=elapsed(start),
                          reference_table=table)


def _fit(counts: Mapping[Any, Mapping[Any, int]], refs: Mapping[Any, RefDistribution], K: int,
         fit_alpha: Fraction) -> tuple[list[FitResult], int, str]:
    tests = [(c, o, p) for c in refs for o, p in refs[c].items()
             if (p.hi if isinstance(p, Interval) else p) > 0]
    m = len(tests)
    level = fit_alpha / (2 * m)
    rejections: list[FitResult] = []
    widest: tuple[Fraction, str] | None = None
    for c in counts:
        support = {o for o, p in refs[c].items() if (p.hi if isinstance(p, Interval) else p) > 0}
        for o, x in counts[c].items():
            if o not in support:
                rejections.append(FitResult(c, o, x, K, Fraction(0), None))
    for c, o, p in tests:
        x = counts[c].get(o, 0)
        crit = critical_counts(K, p, level)
        if crit.rejects(x):
            rejections.append(FitResult(c, o, x, K, p, crit))
        lo = crit.detect_below
        hi = crit.detect_above
        width = (hi if hi is not None else Fraction(1)) - (lo if lo is not None else Fraction(0))
        if widest is None or width > widest[0]:
            band = (f"[{_decimal(lo) if lo is not None else '0'}, "
                    f"{_decimal(hi) if hi is not None else '1'}]")
            widest = (width, f"input {show(c)}, outcome {show(o)}: {band}")
    power = ""
    if widest is not None:
        power = ("each (input, outcome) probability outside its detection band [k_lo/K, "
                 "k_hi/K] is detected with probability >= 1/2 (binomial median); widest band: "
                 + widest[1])
    return rejections, m, power


def _privacy_text(pt: PrivacyTest, eps: Claim) -> tuple[str, str]:
    conf = 1 - pt.alpha
    if pt.hockey_stick_lower is not None:
        hs = pt.hockey_stick_lower
        bound = (f"with confidence {conf}: delta(eps) >= P_{show(pt.a)}(S) - e^({eps}) "
                 f"P_{show(pt.b)}(S) >= "
                 + (f"{_decimal(hs)} (rounded down; exact in --json)" if hs > 0 else
                    "a non-positive value (no evidence against delta)")
                 + f"; claimed delta {pt.delta} "
                 + ("EXCEEDED (violation detected at level " + str(pt.alpha) + ")"
                    if pt.violation else "not exceeded"))
    elif pt.ratio_lower is None:
        bound = f"no finite lower bound (P_b(S) upper bound is 0); confidence {conf}"
    else:
        ln = "" if pt.ln_ratio_lower is None else \
            f", i.e. privacy loss >= {_decimal(pt.ln_ratio_lower)}"
        bound = (f"with confidence {conf}: P_{show(pt.a)}(S) / P_{show(pt.b)}(S) >= "
                 f"{_short_fraction(pt.ratio_lower)} (~{_decimal(pt.ratio_lower)}){ln}; "
                 f"claimed e^({eps}) "
                 + ("EXCEEDED (violation detected at level " + str(pt.alpha) + ")"
                    if pt.violation else "not exceeded"))
    if pt.x_star is None:
        power = (f"with {pt.K} estimation draws no count on input {show(pt.a)} could show a "
                 f"violation when the count on {show(pt.b)} is {pt.y0}: more draws are needed")
    else:
        what = (f"ratio ~{_decimal(Fraction(pt.x_star, max(pt.y0, 1)))}" if pt.delta == 0 else
                f"P_a(S) - e^({eps}) P_b(S) ~"
                f"{_decimal(Fraction(pt.x_star, pt.K) - exp_bounds(eps, 64).hi * pt.y0 / pt.K)}")
        power = (f"a violation on this set is detected with probability >= 1/4 whenever "
                 f"P_{show(pt.a)}(S) >= {pt.x_star}/{pt.K} and P_{show(pt.b)}(S) <= {pt.y0}/{pt.K} "
                 f"({what}); weaker violations may go undetected")
    return bound, power
