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

One module past 600 lines on purpose: the oracle is one import for a test author, and its
assertions share the witness messages and the escape guards' set-up; the exploration itself
lives in :mod:`exactdp.explore` and the guards in :mod:`exactdp.audit`.

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

import sys
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal

try:
    from hypothesis import strategies as st
except ImportError as exc:  # pragma: no cover - exercised only without the test extra
    raise ImportError("exactdp.testing needs hypothesis: pip install 'exactdp[test]'") from exc

from exactdp.audit.escape import watching
from exactdp.audit.guard import Abort
from exactdp.audit.replay import replay_path
from exactdp.audit.severity import separated_decimals
from exactdp.binomial import critical_counts
from exactdp.certified import Interval, exp_interval
from exactdp.checker import (
    RatioWitness,
    certify_ratio,
    check_strict_time,
    counting_distribution,
    hockey_stick,
    statistical_distance,
    thresholds,
    worst_ratio,
)
from exactdp.claims import RatioClaim, parse_claim, ratio_claim
from exactdp.counting import InverseCDFSampler
from exactdp.explore import MAX_RUNS, MAX_UNIFORM, explore
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
_ADVICE = ("Draw every random value from the source argument (source.uniform, "
           "source.bernoulli, source.inverse_cdf); a mechanism written against random, "
           "secrets or numpy can be audited as written with exactdp.audit's facades "
           "(FacadeMechanism), or tested in sampling mode")


def _fail_escape(abort: Abort, what: str) -> OracleAssertionError:
    return OracleAssertionError(f"{what}: no exact law: {abort.finding.message}")


def _explore(fn: Callable[[RandomSource], Any], what: str, key: Any, *, max_uniform: int,
             max_runs: int, target: object = None) -> dict[Any, Fraction]:
    """``explore(fn)`` with the white-box audit's escape checks
    (:mod:`exactdp.audit.escape`): the entropy sources the exploration does not model are
    guarded during each run, every path is re-run with the same draws and must give the
    same output and draws, and the global generators and the code's state must not change.
    An escape fails the assertion (:class:`OracleAssertionError`), every time."""
    with watching(fn if target is None else target) as watch:
        watch.advice = _ADVICE

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
            return first

        searched = _searches()
        try:
            dist = explore(run, max_uniform=max_uniform, max_runs=max_runs)
            watch.check()
        except Abort as abort:
            raise _fail_escape(abort, what) from None
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
        watch.advice = _ADVICE
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
            raise _fail_escape(abort, what) from None
    if laws[0] != laws[1]:
        raise OracleAssertionError(
            f"{what}: no exact law: computed twice, its distribution differed; the "
            f"mechanism is not a function of (c, u) (it draws from a source the checker does "
            f"not see, or keeps state between calls)")
    return laws[0]


# --------------------------------------------------------------------------- exact helpers

def exact_distribution(sampler: Sampler, *, max_uniform: int = MAX_UNIFORM,
                       max_runs: int = MAX_RUNS) -> dict[Any, Fraction]:
    """The exact output distribution of ``sampler(source)`` (every path of its draws)."""
    if not callable(sampler):
        raise ParameterTypeError(f"sampler = {sampler!r} must be a function of a RandomSource")
    return _explore(sampler, "the sampler", None, max_uniform=max_uniform, max_runs=max_runs)


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


def _distributions(mechanism: Mechanism | InverseCDFSampler, pairs: Sequence[tuple[Any, Any]],
                   max_uniform: int, max_runs: int) -> dict[Any, dict[Any, Fraction]]:
    cache: dict[Any, dict[Any, Fraction]] = {}
    for x, y in pairs:
        for v in (x, y):
            key = _key(v)
            if key in cache:
                continue
            if isinstance(mechanism, InverseCDFSampler):
                cache[key] = _counting(mechanism, _count(mechanism, v))
            else:
                cache[key] = _explore(_bind(mechanism, v), f"the mechanism on input {v!r}", v,
                                      max_uniform=max_uniform, max_runs=max_runs,
                                      target=mechanism)
    return cache


def _count(mechanism: InverseCDFSampler, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= mechanism.n:
        raise ParameterError(f"neighbours: input {v!r} of the counting mechanism {mechanism!r} "
                             f"must be an int in [0, {mechanism.n}]")
    return v


def _bind(mechanism: Mechanism, x: Any) -> Sampler:
    def sampler(source: RandomSource) -> Hashable:
        return mechanism(x, source)
    return sampler


def _key(v: Any) -> Any:
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)


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
                   max_runs: int = MAX_RUNS) -> RatioWitness:
    """Assert ``Pr[M(x) = o] <= e**eps Pr[M(x') = o]`` for every given pair, both orders,
    and every outcome, exactly; return the worst ratio's witness.

    The claim is ``epsilon`` (compared with certified bounds on ``e**eps``) or
    ``ratio_bound`` (``Pr[M(x) = o] <= ratio_bound * Pr[M(x') = o]``, exactly).
    ``mechanism(x, source)`` is run under the exploring source for each input; an
    :class:`~exactdp.counting.InverseCDFSampler` is read through its thresholds.
    """
    eps, r = _claim(epsilon, ratio_bound)
    pairs = _pairs(neighbours)
    dists = _distributions(mechanism, pairs, max_uniform, max_runs)
    ordered = []
    for x, y in pairs:
        px, py = dists[_key(x)], dists[_key(y)]
        ordered += [(x, px, y, py), (y, py, x, px)]
    worst = worst_ratio(ordered)
    if r is not None:
        if worst.ratio is None or worst.ratio > r:
            raise OracleAssertionError(f"not {_claim_text(None, r, Fraction(0))}: "
                                       f"{_witness_text(worst)} > {r}")
        return worst
    assert eps is not None
    ok, _ = certify_ratio(worst, eps)
    if not ok:
        how = "" if worst.ratio is None else f"; {_ratio_vs_claim(worst.ratio, eps)}"
        raise OracleAssertionError(f"not ({eps}, 0)-DP: {_witness_text(worst)}{how}")
    return worst


def assert_approx_dp(mechanism: Mechanism | InverseCDFSampler,
                     neighbours: Iterable[tuple[Any, Any]], epsilon: object = None,
                     delta: object = None, *, ratio_bound: object = None,
                     max_uniform: int = MAX_UNIFORM, max_runs: int = MAX_RUNS) -> Fraction:
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
    dists = _distributions(mechanism, pairs, max_uniform, max_runs)
    worst_hi = Fraction(0)
    for x0, y0 in pairs:
        for x, y in ((x0, y0), (y0, x0)):
            p, q = dists[_key(x)], dists[_key(y)]
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
    return worst_hi


def assert_strict_time(mechanism: Mechanism | InverseCDFSampler,
                       inputs: Iterable[Any] | None = None, *,
                       us: Iterable[int] | None = None, max_uniform: int = MAX_UNIFORM,
                       max_runs: int = MAX_RUNS) -> int | None:
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
            watch.advice = _ADVICE
            before = watch.arm()
            try:
                cert = check_strict_time(mechanism, us)
                watch.check()
            except Abort as abort:
                raise _fail_escape(abort, f"the counting mechanism {mechanism!r}") from None
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
    laws = [_explore(_traced(mechanism, x), f"the mechanism on input {x!r}", x,
                     max_uniform=max_uniform, max_runs=max_runs, target=mechanism)
            for x in xs]
    for x, law in zip(xs[1:], laws[1:], strict=True):
        if law != laws[0]:
            t = next(t for t in _ordered(set(law) | set(laws[0]))
                     if law.get(t, Fraction(0)) != laws[0].get(t, Fraction(0)))
            raise OracleAssertionError(
                f"operation traces differ between inputs x = {xs[0]!r} and x' = {x!r}: the "
                f"trace {_trace_text(t)} has probability {laws[0].get(t, Fraction(0))} on x "
                f"and {law.get(t, Fraction(0))} on x'")
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


# --------------------------------------------------------------------------- strategies

def epsilons(max_denominator: int = 64) -> st.SearchStrategy[Fraction]:
    """Privacy parameters in ``N^{-1}``: ``1/m`` for ``1 <= m <= max_denominator``."""
    return st.integers(1, positive_int(max_denominator, "max_denominator")).map(
        lambda m: Fraction(1, m))


def gammas(max_denominator: int = 64) -> st.SearchStrategy[Fraction]:
    """FastSample's ``gamma = 1/m`` with ``m >= 2`` (``gamma = 1`` is refused)."""
    return st.integers(2, max(2, positive_int(max_denominator, "max_denominator"))).map(
        lambda m: Fraction(1, m))


def betas(max_denominator: int = 64) -> st.SearchStrategy[Fraction]:
    """Accuracy failure probabilities ``beta = 1/m`` in ``(0, 1]``."""
    return epsilons(max_denominator)


def counts(n: int) -> st.SearchStrategy[int]:
    """A count ``c`` in ``[n] = {0, ..., n}``."""
    return st.integers(0, positive_int(n, "n"))


def neighbouring_counts(n: int) -> st.SearchStrategy[tuple[int, int]]:
    """Neighbouring counts ``(c, c + 1)`` with both in ``[n]`` (Definition 4.1)."""
    return st.integers(0, positive_int(n, "n") - 1).map(lambda c: (c, c + 1))


def geosample_params(max_n: int = 16, max_denominator: int = 16) -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments for :class:`~exactdp.counting.GeoSample` (Algorithm 4.8)."""
    return st.fixed_dictionaries({"n": st.integers(1, max_n),
                                  "epsilon": epsilons(max_denominator)})


def fastsample_params(max_n: int = 8, max_denominator: int = 4,
                      max_gamma_denominator: int = 8) -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments for :class:`~exactdp.counting.FastSample` (Algorithm 4.11).

    The defaults keep ``d`` small enough for exact checks in a unit test.
    """
    return st.fixed_dictionaries({"n": st.integers(1, max_n),
                                  "epsilon": epsilons(max_denominator),
                                  "gamma": gammas(max_gamma_denominator)})


def geometric_params(max_n: int = 16, max_denominator: int = 16) -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments for :class:`~exactdp.counting.GeometricMechanism`: ``n`` and a
    rational ``alpha`` in ``(0, 1)``."""
    alpha = st.integers(2, max_denominator).flatmap(
        lambda q: st.integers(1, q - 1).map(lambda p: Fraction(p, q)))
    return st.fixed_dictionaries({"n": st.integers(1, max_n), "alpha": alpha})


def universes(max_size: int = 4) -> st.SearchStrategy[tuple[int, ...]]:
    """A small universe ``(0, 1, ..., k-1)`` with ``1 <= k <= max_size``."""
    return st.integers(1, positive_int(max_size, "max_size")).map(lambda k: tuple(range(k)))


def datasets(universe: Sequence[Any] | None = None,
             max_size: int = 6) -> st.SearchStrategy[tuple[Any, ...]]:
    """A dataset: a tuple of elements of ``universe`` (drawn from :func:`universes` when
    omitted), of length at most ``max_size``; order is kept, repeats allowed."""
    if universe is None:
        return universes().flatmap(lambda u: datasets(u, max_size))
    if not universe:
        raise ParameterError("universe must not be empty")
    return st.lists(st.sampled_from(list(universe)), max_size=max_size).map(tuple)


def neighbouring_datasets(universe: Sequence[Any] | None = None, max_size: int = 6,
                          relation: Literal["add_remove", "substitute"] = "add_remove"
                          ) -> st.SearchStrategy[tuple[tuple[Any, ...], tuple[Any, ...]]]:
    """Neighbouring datasets ``(D, D')``.

    ``"add_remove"``: ``D'`` is ``D`` with one element inserted (at any position), so the
    pair covers both directions when used with the symmetric assertions above.
    ``"substitute"``: same size, one element replaced by a different one.
    """
    if universe is None:
        return universes().flatmap(lambda u: neighbouring_datasets(u, max_size, relation))
    items = list(universe)
    if not items:
        raise ParameterError("universe must not be empty")
    if relation == "add_remove":
        return datasets(items, max(max_size - 1, 0)).flatmap(
            lambda d: st.tuples(st.integers(0, len(d)), st.sampled_from(items)).map(
                lambda t: (d, d[:t[0]] + (t[1],) + d[t[0]:])))
    if relation == "substitute":
        if len(items) < 2:
            raise ParameterError("substitution needs a universe of at least two elements")
        return datasets(items, max_size).filter(bool).flatmap(
            lambda d: st.tuples(st.integers(0, len(d) - 1), st.sampled_from(items)).filter(
                lambda t: t[1] != d[t[0]]).map(
                lambda t: (d, d[:t[0]] + (t[1],) + d[t[0] + 1:])))
    raise ParameterError(f"relation = {relation!r} must be 'add_remove' or 'substitute'")
