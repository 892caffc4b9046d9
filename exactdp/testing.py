"""An exact oracle for other projects' tests: assertions and hypothesis strategies.

Assertions (each raises :class:`OracleAssertionError`, an ``AssertionError``, whose message
shows the witness: the inputs, the outcome and the exact probabilities):

* :func:`assert_same_distribution` -- ``sampler(source)`` has exactly the reference
  distribution (exact mode: the sampler is run under the exploring source,
  :func:`exactdp.explore.explore`), or is consistent with it on ``draws`` samples (sampling
  mode: exact binomial tests with a stated false-alarm probability ``alpha``).
* :func:`assert_pure_dp` -- ``mechanism(x, source)`` is ``(eps, 0)``-DP on the given
  neighbouring pairs: the exact worst ratio is compared with ``e**eps`` through certified
  bounds.
* :func:`assert_approx_dp` -- ``(eps, delta)``-DP by the exact hockey-stick divergence.
* :func:`assert_strict_time` -- the operation traces (:mod:`exactdp.trace`: every draw's
  domain size, every CDF evaluation...) do not depend on the input.

The oracle is one import for a test author; the exact laws behind the assertions, computed
with the escape guards armed, live in :mod:`exactdp.oracle_laws`, the strategies in
:mod:`exactdp.oracle_strategies` (both re-exported here), the exploration in
:mod:`exactdp.explore` and the guards in :mod:`exactdp.audit`.

Claims are given as ``epsilon=`` or as ``ratio_bound=``, a rational bound ``r`` on
``e**eps`` checked exactly (``ratio_bound=3`` for ``ln(3)``-DP, whose epsilon is
irrational).  A failure message names the input pair, the outcome and both exact
probabilities; compared decimals are printed to enough places to differ.

Counting mechanisms: pass an :class:`~exactdp.counting.InverseCDFSampler` itself
(``GeoSample``, ``FastSample``, ``TabulatedMechanism`` or your subclass, ``M(c, u)`` with
``n``, ``d`` and ``cdf``), or wrap your own ``f(c, u)`` (``u`` in ``[d]_+``, outputs in
``[0, n]``, non-decreasing in ``u``) as :class:`CountingFunction`, rather than a function
of a source drawing ``uniform(d)``: the distribution then comes from the thresholds of
``u`` (:func:`exactdp.checker.counting_distribution`, ``O(n log d)`` calls), as in the
white-box audit, instead of exploring all ``d`` draws (``GeoSample(5, 1/4)``, ``d =
111537``, six inputs: milliseconds instead of tens of seconds).

Strategies (for :mod:`hypothesis`): valid parameters for each mechanism of the paper
(:func:`epsilons`, :func:`gammas`, :func:`betas`, :func:`geosample_params`,
:func:`fastsample_params`, :func:`geometric_params`), counts and neighbouring counts, small
universes, datasets over them and neighbouring dataset pairs.

Mechanisms under test draw all their randomness from the ``source`` argument (a
:class:`~exactdp.randomness.RandomSource`: ``uniform(d)``, ``bernoulli(num, den)``,
``inverse_cdf(draw)``); prefer ``bernoulli``/``inverse_cdf`` to a huge ``uniform(d)``,
which the exact mode would have to branch ``d`` ways on.  A ready-to-copy example test file
ships as ``exactdp/examples/test_example_oracle.py``.

Requires :mod:`hypothesis` (``pip install 'exactdp[test]'``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from exactdp.audit.escape import watching
from exactdp.audit.guard import Abort
from exactdp.audit.hash_seed import recipe
from exactdp.audit.path_log import PathLog
from exactdp.audit.severity import separated_decimals
from exactdp.binomial import critical_counts
from exactdp.certified import Interval, exp_interval
from exactdp.checker import (
    RatioWitness,
    certify_ratio,
    check_strict_time,
    hockey_stick,
    statistical_distance,
    worst_ratio,
)
from exactdp.claims import RatioClaim, parse_claim, ratio_claim
from exactdp.counting import InverseCDFSampler
from exactdp.explore import MAX_RUNS, MAX_UNIFORM
from exactdp.oracle_laws import (
    ADVICE,
    CountingFunction,
    Mechanism,
    OracleAssertionError,
    Sampler,
    confirmed,
    distributions,
    exact_distribution,
    explore_law,
    fail_escape,
    input_key,
)
from exactdp.oracle_strategies import (
    betas,
    counts,
    datasets,
    epsilons,
    fastsample_params,
    gammas,
    geometric_params,
    geosample_params,
    neighbouring_counts,
    neighbouring_datasets,
    universes,
)
from exactdp.params import ParameterError, ParameterTypeError, positive_int, to_fraction
from exactdp.randomness import RandomSource, default_source
from exactdp.trace import recording

__all__ = [
    "CountingFunction",
    "OracleAssertionError",
    "assert_approx_dp",
    "assert_pure_dp",
    "assert_same_distribution",
    "assert_strict_time",
    "betas",
    "counts",
    "datasets",
    "epsilons",
    "exact_distribution",
    "fastsample_params",
    "gammas",
    "geometric_params",
    "geosample_params",
    "neighbouring_counts",
    "neighbouring_datasets",
    "universes",
]


def _p(value: Fraction | Interval) -> tuple[Fraction, Fraction]:
    if isinstance(value, Interval):
        return value.lo, value.hi
    q = to_fraction(value, "reference probability")
    return q, q


def _fmt(value: Fraction | Interval) -> str:
    if isinstance(value, Interval):
        return f"in [{value.lo}, {value.hi}]"
    return str(value)


def _ordered(keys: Iterable[Any]) -> list[Any]:
    items = list(keys)
    try:
        return sorted(items)
    except TypeError:
        return items


def assert_same_distribution(sampler: Sampler,
                             exact_reference: Mapping[Any, Fraction | Interval], *,
                             draws: int | None = None, alpha: object = Fraction(1, 10**6),
                             source: RandomSource | None = None,
                             max_uniform: int = MAX_UNIFORM, max_runs: int = MAX_RUNS) -> None:
    """Assert that ``sampler(source)`` has the distribution ``exact_reference``.

    Exact mode (``draws=None``): the sampler's exact distribution is computed by running it
    under the exploring source and must equal the reference exactly (or lie inside each
    reference interval).  Nothing random happens; the check cannot flake.

    Sampling mode (``draws=K``): ``K`` draws from ``sampler(source)`` (``source`` defaults
    to the OS CSPRNG) and one exact two-sided binomial test per reference outcome with
    Bonferroni correction; an outcome outside the reference's support fails at once.  A
    sampler with exactly the reference distribution fails with probability at most
    ``alpha`` (exactly honoured: certified binomial tails, no approximation).
    """
    if draws is None:
        dist = exact_distribution(sampler, max_uniform=max_uniform, max_runs=max_runs)
        bad = []
        for o in _ordered(set(dist) | set(exact_reference)):
            got = dist.get(o, Fraction(0))
            lo, hi = _p(exact_reference.get(o, Fraction(0)))
            if not lo <= got <= hi:
                bad.append((o, got, exact_reference.get(o, Fraction(0))))
        if bad:
            exact_ref = {o: v for o, v in exact_reference.items() if not isinstance(v, Interval)}
            sd = (f"; statistical distance {statistical_distance(dist, exact_ref)}"
                  if len(exact_ref) == len(exact_reference) else "")
            lines = [f"  Pr[sampler = {o!r}] = {got}, reference {_fmt(ref)}"
                     for o, got, ref in bad[:8]]
            more = f"\n  ... and {len(bad) - 8} more outcome(s)" if len(bad) > 8 else ""
            raise OracleAssertionError(
                f"the sampler's exact distribution differs from the reference on {len(bad)} "
                f"outcome(s){sd}:\n" + "\n".join(lines) + more)
        return
    k = positive_int(draws, "draws")
    a = to_fraction(alpha, "alpha")
    if not 0 < a < 1:
        raise ParameterError(f"alpha = {a} must lie in (0, 1)")
    src = default_source(source)
    counts: dict[Any, int] = {}
    for _ in range(k):
        o = sampler(src)
        counts[o] = counts.get(o, 0) + 1
    support = [o for o, v in exact_reference.items() if _p(v)[1] > 0]
    outside = [o for o in counts if o not in set(support)]
    if outside:
        o = outside[0]
        raise OracleAssertionError(
            f"the sampler returned {o!r} ({counts[o]} of {k} draws), an outcome of reference "
            f"probability 0")
    level = a / (2 * len(support))
    bad_lines = []
    for o in support:
        crit = critical_counts(k, exact_reference[o], level)
        x = counts.get(o, 0)
        if crit.rejects(x):
            bad_lines.append(f"  outcome {o!r}: {x} of {k} draws, reference probability "
                             f"{_fmt(exact_reference[o])} (accepted counts "
                             f"{crit.k_lo + 1}..{crit.k_hi - 1})")
    if bad_lines:
        raise OracleAssertionError(
            f"{len(bad_lines)} outcome(s) inconsistent with the reference (exact binomial "
            f"tests, Bonferroni over {len(support)} outcomes; a correct sampler fails with "
            f"probability <= {a}):\n" + "\n".join(bad_lines))


def _pairs(neighbours: Iterable[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    try:
        pairs = list(neighbours)
    except TypeError:
        raise ParameterTypeError(f"neighbours = {neighbours!r} must be an iterable of pairs "
                                 f"(x, x')") from None
    if not pairs:
        raise ParameterError("neighbours must contain at least one pair (x, x')")
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise ParameterTypeError(f"neighbours: {pair!r} is not a pair (x, x'); pass e.g. "
                                     f"[(0, 1), (1, 2)]")
    return pairs


def _witness_text(w: RatioWitness) -> str:
    ratio = "infinite (the outcome is impossible on x')" if w.ratio is None else str(w.ratio)
    return (f"inputs x = {w.numerator_input!r}, x' = {w.denominator_input!r}, outcome "
            f"{w.outcome!r}: Pr[M({w.numerator_input!r}) = {w.outcome!r}] = {w.p}, "
            f"Pr[M({w.denominator_input!r}) = {w.outcome!r}] = {w.q}, ratio {ratio}")


def _claim(epsilon: object, ratio_bound: object) -> tuple[Fraction | None, Fraction | None]:
    """Exactly one of ``epsilon`` (exact, >= 0; or ``'ln 3'``, ``'2 ln 2'``: a ratio bound,
    :func:`exactdp.claims.parse_claim`) and ``ratio_bound`` (a rational >= 1, standing for
    ``e**eps <= ratio_bound``)."""
    if (epsilon is None) == (ratio_bound is None):
        raise ParameterError("give exactly one of epsilon= (exact) and ratio_bound= (a "
                             "rational bound on e^eps, e.g. 3 for ln(3)-DP)")
    if ratio_bound is not None:
        return None, ratio_claim(ratio_bound, "ratio_bound").ratio
    claim = parse_claim(epsilon, "epsilon")
    if isinstance(claim, RatioClaim):
        return None, claim.ratio
    eps = claim
    if eps < 0:
        raise ParameterError(f"epsilon = {eps} must be >= 0")
    return eps, None


def _claim_text(eps: Fraction | None, r: Fraction | None, delta: Fraction) -> str:
    return f"({eps}, {delta})-DP" if eps is not None else \
        f"(ln({r}), {delta})-DP (privacy-loss ratio bound {r})"


def _ratio_vs_claim(ratio: Fraction, eps: Fraction) -> str:
    """``ratio > e**eps`` in decimals that differ as printed (called on a failure)."""
    r_text, e_text = separated_decimals(lambda b: Interval(ratio, ratio),
                                        lambda b: exp_interval(eps, b))
    return f"{r_text} > e^({eps}) {'in ' if '[' in e_text else '= '}{e_text}"


def assert_pure_dp(mechanism: Mechanism | InverseCDFSampler,
                   neighbours: Iterable[tuple[Any, Any]], epsilon: object = None, *,
                   ratio_bound: object = None, max_uniform: int = MAX_UNIFORM,
                   max_runs: int = MAX_RUNS, hash_seed_check: bool = True) -> RatioWitness:
    """Assert ``Pr[M(x) = o] <= e**eps Pr[M(x') = o]`` for every given pair, both orders,
    and every outcome, exactly; return the worst ratio's witness.

    The claim is ``epsilon`` (compared with certified bounds on ``e**eps``) or
    ``ratio_bound`` (``Pr[M(x) = o] <= ratio_bound * Pr[M(x') = o]``, exactly).
    ``mechanism(x, source)`` is run under the exploring source for each input; an
    :class:`~exactdp.counting.InverseCDFSampler` is read through its thresholds.  Before it
    passes, the laws are confirmed in two more processes with other hash seeds
    (:mod:`exactdp.oracle_laws`; ``hash_seed_check=False``: this process's laws alone).
    """
    eps, r = _claim(epsilon, ratio_bound)
    pairs = _pairs(neighbours)
    pending: list[Callable[[], None]] | None = [] if hash_seed_check else None
    dists = distributions(mechanism, pairs, max_uniform, max_runs, pending)
    ordered = []
    for x, y in pairs:
        px, py = dists[input_key(x)], dists[input_key(y)]
        ordered += [(x, px, y, py), (y, py, x, px)]
    worst = worst_ratio(ordered)
    if r is not None:
        if worst.ratio is None or worst.ratio > r:
            raise OracleAssertionError(f"not {_claim_text(None, r, Fraction(0))}: "
                                       f"{_witness_text(worst)} > {r}")
        _confirm(pending)
        return worst
    assert eps is not None
    ok, _ = certify_ratio(worst, eps)
    if not ok:
        how = "" if worst.ratio is None else f"; {_ratio_vs_claim(worst.ratio, eps)}"
        raise OracleAssertionError(f"not ({eps}, 0)-DP: {_witness_text(worst)}{how}")
    _confirm(pending)
    return worst


def _confirm(pending: Sequence[Callable[[], None]] | None) -> None:
    """Confirm the laws in other processes before a pass (:func:`exactdp.oracle_laws.confirmed`)."""
    for call in pending or ():
        call()


def assert_approx_dp(mechanism: Mechanism | InverseCDFSampler,
                     neighbours: Iterable[tuple[Any, Any]], epsilon: object = None,
                     delta: object = None, *, ratio_bound: object = None,
                     max_uniform: int = MAX_UNIFORM, max_runs: int = MAX_RUNS,
                     hash_seed_check: bool = True) -> Fraction:
    """Assert ``sup_S Pr[M(x) in S] - e**eps Pr[M(x') in S] <= delta`` for every given pair,
    both orders, exactly (certified bounds on ``e**eps``); return the largest upper bound
    found on the divergence.  (A divergence within ``2**-4096`` of ``delta`` that the
    bounds cannot separate counts as a failure: the conservative side.)  With
    ``ratio_bound=r`` instead of ``epsilon`` the divergence at ratio ``r`` is exact."""
    eps, r = _claim(epsilon, ratio_bound)
    if delta is None:
        raise ParameterError("delta must be given (use assert_pure_dp for delta = 0)")
    dlt = to_fraction(delta, "delta")
    if not 0 <= dlt <= 1:
        raise ParameterError(f"delta = {dlt} must lie in [0, 1]")
    pairs = _pairs(neighbours)
    pending: list[Callable[[], None]] | None = [] if hash_seed_check else None
    dists = distributions(mechanism, pairs, max_uniform, max_runs, pending)
    worst_hi = Fraction(0)
    for x0, y0 in pairs:
        for x, y in ((x0, y0), (y0, x0)):
            p, q = dists[input_key(x)], dists[input_key(y)]
            if r is not None:
                exact = hockey_stick(p, q, r)
                holds, box, used = exact <= dlt, Interval(exact, exact), r
            else:
                assert eps is not None
                holds, box, used = _hockey(p, q, eps, dlt)
            worst_hi = max(worst_hi, box.hi)
            if not holds:
                top = sorted(((p.get(o, Fraction(0)) - used * q.get(o, Fraction(0)), o)
                              for o in p), key=lambda t: t[0], reverse=True)[:3]
                detail = "; ".join(f"outcome {o!r}: Pr[M({x!r}) = {o!r}] = "
                                   f"{p.get(o, Fraction(0))} vs Pr[M({y!r}) = {o!r}] = "
                                   f"{q.get(o, Fraction(0))}" for _, o in top)
                at = f"e^({eps})" if eps is not None else f"ratio {r}"
                value = (f"is exactly {box.lo}" if box.lo == box.hi else
                         f"lies in [{box.lo}, {box.hi}]")
                raise OracleAssertionError(
                    f"not {_claim_text(eps, r, dlt)}: for inputs x = {x!r}, x' = {y!r} the "
                    f"hockey-stick divergence at {at} {value}, above delta = {dlt}; largest "
                    f"contributions: {detail}")
    _confirm(pending)
    return worst_hi


def assert_strict_time(mechanism: Mechanism | InverseCDFSampler,
                       inputs: Iterable[Any] | None = None, *,
                       us: Iterable[int] | None = None, max_uniform: int = MAX_UNIFORM,
                       max_runs: int = MAX_RUNS, hash_seed_check: bool = True) -> int | None:
    """Assert that the operation traces do not depend on the input (strict time; the paper's
    Theorem 4.7 ii / 4.10 ii form for counting samplers).

    * An :class:`~exactdp.counting.InverseCDFSampler`: one trace for every count ``c`` in
      ``[0, n]`` and every ``u`` tried (``us``, default: the thresholds and the ends, see
      :func:`exactdp.checker.check_strict_time`); ``inputs`` must be None (refused
      otherwise rather than ignored).
    * ``mechanism(x, source)``: for each of ``inputs`` (two or more), the exact
      distribution of its trace -- the sequence of draws (``("uniform", d)`` for each
      ``uniform(d)``, ``bernoulli`` and ``inverse_cdf`` draw) and exactdp's trace events --
      over every path of draws; it must be the same for every input.

    Returns the common trace length when there is one fixed trace, else None.  A failure
    names the inputs (and ``u``) and the differing traces.
    """
    if isinstance(mechanism, InverseCDFSampler):
        if inputs is not None:
            raise ParameterError(f"inputs: a counting sampler ({mechanism!r}) is checked on "
                                 f"every count in [0, {mechanism.n}]; pass inputs=None")
        with watching(mechanism) as watch:
            watch.advice = ADVICE
            before = watch.arm()
            try:
                cert = check_strict_time(mechanism, us)
                watch.check()
            except Abort as abort:
                raise fail_escape(abort, f"the counting mechanism {mechanism!r}") from None
            finally:
                watch.disarm(before)
        if not cert.verdict:
            w = cert.witness
            raise OracleAssertionError(
                f"operation traces differ: input c = {w['c']!r} at u = {w['u']!r} gives "
                f"{_trace_text(w['trace'])}, but the reference (c = 0, first u) gives "
                f"{_trace_text(w['reference'])}")
        return int(cert.witness["trace_length"])
    if not callable(mechanism):
        raise ParameterTypeError(f"mechanism = {mechanism!r} must be callable as "
                                 f"mechanism(x, source)")
    xs = list(inputs) if inputs is not None else []
    if len(xs) < 2:
        raise ParameterError("assert_strict_time needs inputs: two or more values of x")
    rebuild = recipe(mechanism) if hash_seed_check else None  # before any call
    replays: list[tuple[Any, Any]] = [(x, PathLog()) for x in xs]  # compactly kept
    laws = [explore_law(_traced(mechanism, x), f"the mechanism on input {x!r}", x,
                     max_uniform=max_uniform, max_runs=max_runs, target=mechanism,
                     record=paths)
            for x, (_, paths) in zip(xs, replays, strict=True)]
    for x, law in zip(xs[1:], laws[1:], strict=True):
        if law != laws[0]:
            t = next(t for t in _ordered(set(law) | set(laws[0]))
                     if law.get(t, Fraction(0)) != laws[0].get(t, Fraction(0)))
            raise OracleAssertionError(
                f"operation traces differ between inputs x = {xs[0]!r} and x' = {x!r}: the "
                f"trace {_trace_text(t)} has probability {laws[0].get(t, Fraction(0))} on x "
                f"and {law.get(t, Fraction(0))} on x'")
    if rebuild is not None:
        confirmed(rebuild, "traced", {"max_uniform": max_uniform}, replays, "the mechanism")
    lengths = {len(t) for t in laws[0]}
    return lengths.pop() if len(laws[0]) == 1 else None


def _traced(mechanism: Mechanism, x: Any) -> Callable[[RandomSource], tuple[Any, ...]]:
    def run(source: RandomSource) -> tuple[Any, ...]:
        with recording() as events:
            mechanism(x, source)
        return tuple(events)
    return run


def _trace_text(trace: Sequence[Any], limit: int = 12) -> str:
    items = [" ".join(map(str, e)) if isinstance(e, (tuple, list)) else str(e)
             for e in trace]
    more = f", ... ({len(items)} events)" if len(items) > limit else ""
    return "[" + ", ".join(items[:limit]) + more + "]"


def _hockey(p: Mapping[Any, Fraction], q: Mapping[Any, Fraction], eps: Fraction,
            delta: Fraction) -> tuple[bool, Interval, Fraction]:
    zero = Fraction(0)
    bits = 128
    while True:
        box = exp_interval(eps, bits)
        keys = set(p) | set(q)
        hi = sum((max(zero, p.get(o, zero) - box.lo * q.get(o, zero)) for o in keys), zero)
        lo = sum((max(zero, p.get(o, zero) - box.hi * q.get(o, zero)) for o in keys), zero)
        if hi <= delta:
            return True, Interval(lo, hi), box.lo
        if lo > delta or bits >= 4096:
            return False, Interval(lo, hi), box.hi
        bits *= 2
