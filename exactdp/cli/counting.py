"""``exactdp distribution | sample | check``: the counting mechanisms of Section 4.

Each command builds the mechanism from exact parameters, estimates its cost before doing any
work (refusing past ``--max-seconds`` with the estimate and what to change), and follows the
shared conventions of :mod:`exactdp.cli._common`.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator
from typing import Any, TextIO

from exactdp.cli._common import (
    DEFAULT_MAX_SECONDS,
    EPILOG,
    FAILED,
    NS,
    OK,
    add_json,
    add_output,
    clip_value,
    draw_ns,
    duration,
    emit_json,
    output_path,
    per_call_ns,
    progress,
    seeded_source,
)
from exactdp.cli.random_source import add_random_source, release_source_of
from exactdp.params import ParameterError, ResourceLimitError

__all__ = ["COMMANDS", "estimate_ns"]

#: What --epsilon means on sample, which releases K values (Theorems 4.7 i and 4.10 i).
GUARANTEES = (
    "What --epsilon means: the total privacy budget of the output, any exact rational in "
    "(0, K/2] for K values (--draws). The most accurate parameters that spend at most that "
    "are chosen, and sample states the exact spend (under 'spent' with --json, else on "
    "stderr): K geosample values spend "
    "K ln(1 + 2^-k) for the smallest k with K ln(1 + 2^-k) <= --epsilon (the paper's eps = "
    "2^(1-k); one value is (eps~/2, 0)-DP with eps~/2 = ln(1 + 2^-k), Theorem 4.7 i); K "
    "fastsample values spend K eps/2 for the paper's eps = 1/m with the smallest m that fits "
    "(one value is (eps/2, 0)-DP, Theorem 4.10 i). The choice compares ln exactly, never with "
    "floats. The top K/2 is the paper's eps = 1 (its eps is 1/m); the bottom is set by the "
    "size of the integers d.")

#: What --epsilon means on distribution, check and plot, which describe one value.
ONE_VALUE = (
    "What --epsilon means: the privacy budget of one released value, any exact rational in "
    "(0, 1/2]; the mechanism is built with the most accurate parameters that spend at most "
    "that (the same choice as 'exactdp sample' with --draws 1): geosample spends "
    "ln(1 + 2^-k) for the smallest k with ln(1 + 2^-k) <= --epsilon (the paper's eps = "
    "2^(1-k); a value is (eps~/2, 0)-DP with eps~/2 = ln(1 + 2^-k), Theorem 4.7 i); "
    "fastsample spends eps/2 for the paper's eps = 1/m with the smallest m that fits "
    "(a value is (eps/2, 0)-DP, Theorem 4.10 i). The choice compares ln exactly, never with floats. The top 1/2 is the "
    "paper's eps = 1; the bottom is set by the size of the integers d.")

_DEFAULT_MAX_SECONDS = str(DEFAULT_MAX_SECONDS)
#: The largest count the command line takes is below 2^MAX_N_BITS: at n = 10^3000 one draw
#: of FastSample takes about 20 s of processor time, at 10^1000 under 2 s.
MAX_N_BITS = 1024


def _counting_args(p: argparse.ArgumentParser, ideal: bool = False,
                   positional: bool = True, draws: bool = False) -> None:
    """The counting mechanisms' arguments; ``positional=False`` leaves out the mechanism
    (``exactdp check`` makes it a sub-command, see :mod:`exactdp.cli.check`); ``draws``: the
    command releases K values (--draws), and its description says :data:`GUARANTEES`, else
    :data:`ONE_VALUE`."""
    choices = ("geometric", "geosample", "fastsample") if ideal else ("geosample", "fastsample")
    if positional:
        p.add_argument("mechanism", choices=choices,
                       help="geosample = GeoSample (Algorithm 4.8), fastsample = "
                            "FastSample (Algorithm 4.11)"
                            + ("; geometric = the ideal clamped geometric that GeoSample "
                               "equals (Algorithm 4.5 with eps~), from its closed form"
                               if ideal else ""))
    p.add_argument("--n", required=True,
                   help="the largest count, a positive integer; counts lie in [n] = {0..n}")
    p.add_argument("--epsilon", required=True, metavar="E",
                   help=("privacy budget of the output: any exact rational in (0, K/2] "
                         "for K values" if draws else "privacy budget of one released "
                         "value: any exact rational in (0, 1/2]")
                        + ", e.g. '1/2' or '0.3' (see above for what it buys)")
    p.add_argument("--gamma", help="fastsample only: mixing weight 1/g with g >= 2, e.g. "
                                   "'1/1000' (FastSample is gamma-close to GeoSample's law)")
    p.add_argument("--max-seconds", default=_DEFAULT_MAX_SECONDS, metavar="S",
                   help="refuse work estimated to take longer than S seconds (default "
                        f"{_DEFAULT_MAX_SECONDS}); the estimate is printed with the refusal")


def _make_mechanism(args: argparse.Namespace) -> Any:
    """The most accurate mechanism whose ``K`` values spend at most ``--epsilon`` in total
    (:meth:`GeoSample.for_budget`, :meth:`FastSample.for_budget`): ``K = --draws`` for
    ``sample``, 1 for the commands that describe one value."""
    from exactdp.counting import FastSample, GeometricMechanism, GeoSample
    from exactdp.params import inverse_integer, positive_int
    from exactdp.spend import budget

    # Parsed here first so that errors name the flags (--n, not n).
    n = positive_int(args.n, "--n")
    if n.bit_length() > MAX_N_BITS:
        raise ResourceLimitError(
            f"--n = {clip_value(n)} has {n.bit_length()} bits; the command line takes counts "
            f"below 2^{MAX_N_BITS} (the binary searches over [0, n] take time growing with "
            f"the cube of log n, and even timing one of them would run for minutes)")
    total = budget(args.epsilon, "--epsilon")
    draws = _draws(args)
    if args.mechanism == "fastsample":
        if args.gamma is None:
            raise ParameterError("fastsample needs --gamma (e.g. --gamma 1/1000)")
        gamma = inverse_integer(args.gamma, "--gamma")
        if gamma == 1:
            raise ParameterError("--gamma = 1 is not allowed: FastSample's t involves "
                                 "log((1 - gamma)/gamma) = log 0; use --gamma 1/2 or smaller")
        return FastSample.for_budget(n, total, gamma, draws)
    if args.gamma is not None:
        raise ParameterError(f"--gamma applies to fastsample only, not {args.mechanism}")
    geo = GeoSample.for_budget(n, total, draws)
    if args.mechanism == "geometric":
        return GeometricMechanism.for_geosample(n, geo.epsilon)
    return geo


def _draws(args: argparse.Namespace) -> int:
    """``K``: ``--draws`` where the command has it, else 1."""
    from exactdp.params import positive_int

    value = getattr(args, "draws", None)
    return 1 if value is None else positive_int(value, "--draws")


def _spend(mech: Any, args: argparse.Namespace) -> Any:
    """What ``K`` values of ``mech`` (GeoSample or FastSample) spend, exactly, against the
    budget ``--epsilon``."""
    from exactdp.spend import budget

    return mech.spend(_draws(args), budget(args.epsilon, "--epsilon"))


def _count(text: str, n: int) -> int:
    """A true count in ``[0, n]``; a non-integer such as ``3/2`` is refused, never rounded."""
    from exactdp.params import check_count, to_fraction

    q = to_fraction(text, "--count")
    if q.denominator != 1:
        raise ParameterError(f"--count = {q} must be an integer in [0, {n}]")
    return check_count(int(q), n, "--count")


def _max_seconds(args: argparse.Namespace) -> int:
    from exactdp.params import positive_int

    return positive_int(args.max_seconds, "--max-seconds")


def estimate_ns(mech: Any, counts: int) -> int:
    """About how many nanoseconds :func:`exactdp.checker.counting_distribution` takes for
    ``counts`` values of ``c``: it enumerates ``u`` when ``d <= 4096`` (``d`` calls of
    ``M``), and otherwise finds ``n + 1`` thresholds, each one ``F`` evaluation and four calls
    of ``M`` (the threshold and its neighbour, and the checks of the intervals' ends); then it makes ``n + 1`` exact probabilities ``mass / d``, whose reduction (a gcd
    of numbers as long as ``d``, which grows with ``n``) dominates at large ``n``.  Timed on
    the mechanism itself, at the middle of its range (a display estimate only: it decides
    whether to start, never a value that is released)."""
    n, d = mech.n, mech.d
    mid_u, mid_z = (d + 1) // 2, n // 2
    t_call = per_call_ns(lambda: mech(0, mid_u))
    t_fraction = fraction_ns(mech)[0]
    if d <= 4096:
        return counts * (d * t_call + (n + 1) * t_fraction)
    t_cdf = per_call_ns(lambda: mech.cdf(0, mid_z))
    return counts * (n + 1) * (t_cdf + 4 * t_call + t_fraction)


def fraction_ns(mech: Any) -> tuple[int, int, int]:
    """Nanoseconds to make one exact probability ``mass / d`` of ``mech``'s law (at the
    middle output, as :func:`Fraction` reduces it), to add two of them and to print one."""
    from fractions import Fraction

    n, d = mech.n, mech.d
    mid_z = n // 2
    high = mech.cdf(0, mid_z)
    mass = high - (mech.cdf(0, mid_z - 1) if mid_z >= 1 else 0)
    t_make = per_call_ns(lambda: Fraction(mass, d))
    one, two = Fraction(mass, d), Fraction(high, d)
    return t_make, per_call_ns(lambda: one + two), per_call_ns(lambda: str(one))


def check_ns(mech: Any) -> int:
    """About how many nanoseconds ``exactdp check geosample|fastsample`` takes: the ``n + 1``
    laws (:func:`estimate_ns`) and the worst ratio over the ``2n`` neighbouring pairs, one
    exact comparison of two quotients of probabilities per output (products and gcds of
    numbers as long as ``d``: about three reductions of :func:`fraction_ns`, measured)."""
    n = mech.n
    return estimate_ns(mech, n + 1) + 6 * n * (n + 1) * fraction_ns(mech)[0]


def distribution_ns(mech: Any) -> int:
    """About how many nanoseconds ``exactdp distribution`` takes at one count: the law read
    off the implementation (:func:`estimate_ns`), the ideal law (another ``n + 1`` exact
    probabilities), their sum, and both printed (pmf and, for the text, each value once
    more)."""
    t_make, t_add, t_str = fraction_ns(mech)
    return estimate_ns(mech, 1) + (mech.n + 1) * (t_make + t_add + 2 * t_str)


def _refuse_if_slow(what: str, ns: int, limit: int, change: str) -> None:
    if ns > limit * NS:
        raise ResourceLimitError(
            f"{what} would take about {duration(ns)} (estimated by timing the mechanism), "
            f"over --max-seconds {limit}; {change}, or pass --max-seconds "
            f"{2 * ns // NS + 1} to run it anyway")


def _describe(mech: Any) -> dict[str, Any]:
    from exactdp.counting import FastSample, GeometricMechanism

    if isinstance(mech, GeometricMechanism):
        return {"mechanism": "GeometricMechanism (Algorithm 4.5)", "n": mech.n,
                "alpha": mech.alpha}
    out: dict[str, Any] = {"mechanism": type(mech).__name__, "n": mech.n,
                           "epsilon": mech.epsilon, "k": mech.k, "d": mech.d}
    if isinstance(mech, FastSample):
        out.update(gamma=mech.gamma, t=mech.t, d_prime=mech.d_prime)
    return out


def _guarantee(mech: Any) -> str:
    from exactdp.certificate import brief
    from exactdp.counting import FastSample

    if isinstance(mech, FastSample):
        return (f"(eps/2, 0)-DP per released value, eps/2 = {mech.epsilon / 2} for the "
                f"paper's eps = {mech.epsilon} (Theorem 4.10 i)")
    return (f"(eps~/2, 0)-DP per released value, e^(eps~/2) = 1 + 2^-{mech.k} = "
            f"{brief(mech.privacy_ratio)} exactly, eps~/2 < eps/2 = {mech.epsilon / 2} for "
            f"the paper's eps = {mech.epsilon} (Theorem 4.7 i)")


# --------------------------------------------------------------------------- distribution

def add_distribution(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "distribution", help="exact output distribution of a counting mechanism at a count",
        description="Print Pr[M(c) = z] for z in [0, n] exactly (p/q), derived from the "
                    "implementation (threshold search over u calling M(c, u)), and whether it "
                    "equals the ideal distribution (GeoSample: the clamped geometric with "
                    "ratio 2^k/(2^k+1); FastSample: the mixture of Lemma 4.12). 'geometric' "
                    "prints the ideal itself, for GeoSample's eps~. Nothing is released: "
                    "this spends no privacy. Exit status 1 if the implementation's "
                    "distribution differs from the ideal. " + ONE_VALUE,
        epilog=EPILOG)
    _counting_args(p, ideal=True)
    p.add_argument("--count", required=True, help="the true count c in [0, n]")
    add_json(p)
    add_output(p)
    p.set_defaults(func=cmd_distribution)


def cmd_distribution(args: argparse.Namespace) -> int:
    from exactdp.certificate import exact_json
    from exactdp.checker import counting_distribution
    from exactdp.counting import GeometricMechanism

    out = output_path(args)
    mech = _make_mechanism(args)
    c = _count(args.count, mech.n)
    if isinstance(mech, GeometricMechanism):
        dist = dict(enumerate(mech.distribution(c)))
        equal: bool | None = None
        source = "closed form (the ideal)"
    else:
        estimate = distribution_ns(mech)
        _refuse_if_slow(f"the distribution of {type(mech).__name__} at n = {mech.n}",
                        estimate, _max_seconds(args), "use a smaller --n")
        if estimate > 10 * NS:
            progress(f"computing the exact distribution (about {duration(estimate)}) ...")
        dist = counting_distribution(mech, c)
        equal = dist == mech.ideal_distribution(c)
        source = "read off the implementation M(c, u)"
    total = sum(dist.values())
    payload = {**exact_json(_describe(mech)), "count": str(c), "source": source,
               "pmf": exact_json(dist), "sum": str(total), "equals_ideal": equal}
    if not emit_json(args, payload, out):
        print(f"{_describe(mech)['mechanism']}  n={mech.n}  count={c}  ({source})")
        for z, p in dist.items():
            print(f"  Pr[M = {z}] = {p}")
        print(f"  sum = {total}")
        if equal is not None:
            print(f"  equals the ideal distribution: {'yes' if equal else 'NO'}")
    return FAILED if equal is False else OK


# --------------------------------------------------------------------------- sample

def add_sample(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "sample", help="release noisy counts",
        description="Release noisy counts M(c, U) of the true count c, one per line (or as "
                    "JSON), streamed as they are drawn (memory does not grow with --draws), "
                    "with progress on stderr for long runs. Randomness: the OS CSPRNG (or "
                    "a ChaCha20 keystream keyed from it: --random-source), or "
                    "--seed S for reproducible examples (NOT for releases: the seed "
                    "determines the noise). " + GUARANTEES,
        epilog=EPILOG)
    _counting_args(p, draws=True)
    p.add_argument("--count", required=True, help="the true count c in [0, n]")
    p.add_argument("--draws", default="1", metavar="K",
                   help="how many independent draws K (default 1); --epsilon is the budget "
                        "of all K together")
    p.add_argument("--seed", help="seed a reproducible source (not for releases)")
    add_random_source(p)
    add_json(p)
    add_output(p, "the values (one per line, or JSON with --json)")
    p.set_defaults(func=cmd_sample)


def _sample_lines(mech: Any, c: int, draws: int, source: Any, as_json: bool,
                  seeded: bool, spent: dict[str, Any]) -> Iterator[str]:
    """The output, piece by piece, so that memory does not grow with ``draws``."""
    if as_json:
        gamma = f'"gamma": "{mech.gamma}", ' if hasattr(mech, "gamma") else ""
        yield (f'{{"mechanism": "{type(mech).__name__}", "n": "{mech.n}", "count": "{c}", '
               f'"paper_epsilon": "{mech.epsilon}", "k": "{mech.k}", {gamma}'
               f'"spent": {json.dumps(spent)}, '
               f'"seeded": {"true" if seeded else "false"}, "values": [')
    last = time.monotonic()
    for i in range(draws):
        value = str(mech.sample(c, source))
        yield (("" if i == 0 else ", ") + f'"{value}"') if as_json else value + "\n"
        now = time.monotonic()
        if now - last >= 2:
            last = now
            progress(f"  {i + 1}/{draws} draws ({100 * (i + 1) // draws}%)")
    if as_json:
        yield "]}\n"


def cmd_sample(args: argparse.Namespace) -> int:
    import sys

    from exactdp.params import positive_int
    from exactdp.randomness import RandomSource

    out = output_path(args)
    mech = _make_mechanism(args)
    c = _count(args.count, mech.n)
    draws = positive_int(args.draws, "--draws")
    spent = _spend(mech, args)
    per_draw = draw_ns(mech, c)
    _refuse_if_slow(f"{draws} draws", draws * per_draw, _max_seconds(args),
                    "use fewer --draws")
    source: RandomSource
    if args.seed is not None:
        source = seeded_source(args.seed)
        progress("warning: --seed makes the noise predictable; never release these values")
    else:
        source = release_source_of(args)
    if not args.json:  # the values stay one per line on stdout, so that they pipe
        progress(spent.describe())
    pieces = _sample_lines(mech, c, draws, source, bool(args.json), args.seed is not None,
                           spent.to_json())
    if out is not None:
        out.write_stream(pieces)
        if args.json:  # --json prints what was written, JSON only
            sys.stdout.write(out.path.read_text(encoding="utf-8"))
    else:
        _stream(pieces, sys.stdout)
    return OK


def _stream(pieces: Iterator[str], stream: TextIO) -> None:
    stream.writelines(pieces)
    stream.flush()


# --------------------------------------------------------------------------- check

def add_check(targets: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """``exactdp check geosample`` and ``exactdp check fastsample`` (the ``check`` command
    itself is :mod:`exactdp.cli.check`'s, shared with the other papers' mechanisms)."""
    for name in ("geosample", "fastsample"):
        _add_check_target(targets, name)


def _add_check_target(targets: argparse._SubParsersAction, name: str) -> None:  # type: ignore[type-arg]
    algorithm = "Algorithm 4.8" if name == "geosample" else "Algorithm 4.11"
    p = targets.add_parser(
        name, help=f"privacy certificate of {name} ({algorithm})",
        description="Compute the exact distribution of M(c, U) for every c in [0, n] from "
                    "the implementation, the worst neighbouring ratio Pr[M(c)=z]/Pr[M(c')=z] "
                    "(|c - c'| = 1, both directions) with its witness, and compare it with "
                    "the paper's claim: GeoSample ratio == 1 + 2^-k = e^(eps~/2) exactly; "
                    "FastSample ratio <= e^(eps/2), certified with a rational bound. Nothing "
                    "is released. The work grows about as n^2 distributions' worth of "
                    "threshold searches: the cost is estimated first. " + ONE_VALUE
                    + " Exit status 1 if the claim fails.",
        epilog=EPILOG)
    _counting_args(p, positional=False)
    p.add_argument("--beta", help="also report accuracy at this failure probability, any "
                                  "rational in (0, 1) (here beta only describes the noise; "
                                  "histogram's --beta also sets parameters and must be 1/m): "
                                  "the paper's closed-form a (Theorem 4.7 i / 4.10 ii) and "
                                  "the exact smallest a")
    add_json(p)
    add_output(p, "the certificate as JSON")
    p.set_defaults(func=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    """The grid is ``c`` in ``[0, n]``: the mechanism's whole input domain, every ordered pair
    ``(c, c +- 1)`` and every output, so the pairs where the claim is tightest are on it."""
    from exactdp.certificate import Certificate
    from exactdp.checker import (
        certify_ratio,
        counting_distributions,
        exact_accuracy,
        worst_neighbour_ratio,
    )
    from exactdp.cli.check_coverage import Coverage, non_vacuous, outcome
    from exactdp.counting import GeoSample
    from exactdp.params import open_unit

    out = output_path(args)
    mech = _make_mechanism(args)
    beta = None
    if args.beta is not None:
        beta = open_unit(args.beta, "--beta")
    estimate = check_ns(mech)
    _refuse_if_slow(f"checking {type(mech).__name__} at n = {mech.n}", estimate,
                    _max_seconds(args), "use a smaller --n")
    if estimate > 10 * NS:
        progress(f"computing {mech.n + 1} exact distributions (about "
                 f"{duration(estimate)}) ...")
    dists = counting_distributions(mech)
    w = worst_neighbour_ratio(dists)
    accuracy: dict[str, Any] = {}
    if beta is not None:
        exact = exact_accuracy(dists, beta)
        accuracy = {"beta": exact.beta, "paper_a": mech.paper_accuracy(exact.beta),
                    "exact_a": exact.a, "attained_at_count": exact.worst_count,
                    "probability_within_exact_a": exact.probability}
    params = {k: v for k, v in _describe(mech).items() if k not in ("mechanism", "d", "d_prime")}
    if isinstance(mech, GeoSample):
        ok = w.ratio == mech.privacy_ratio
        claim, bound = ("Theorem 4.7 (i): (eps~/2, 0)-DP",
                        f"== 1 + 2^-{mech.k} = {mech.privacy_ratio}")
    else:
        ok, bound = certify_ratio(w, mech.epsilon / 2)
        claim = "Theorem 4.10 (i): (eps/2, 0)-DP"
    cert = Certificate(claim, repr(mech), params, f"c in [0,{mech.n}], neighbours c, c+1",
                       w.ratio, bound, ok, {"ratio_witness": w.to_json(),
                                            **({"accuracy": accuracy} if accuracy else {})})
    pairs = [(c, c + d) for c in range(mech.n + 1) for d in (-1, 1) if 0 <= c + d <= mech.n]
    coverage = Coverage(True, f"c ranges over [0, {mech.n}], the mechanism's whole input "
                              f"domain", non_vacuous(pairs, dists), len(pairs))
    word, status = outcome(ok, coverage)
    if not emit_json(args, {**cert.to_json(), "coverage": coverage.to_json()}, out):
        from exactdp.certificate import brief

        print(f"{claim}\n  mechanism: {cert.mechanism}\n  domain: {cert.domain}")
        print(f"  worst ratio: {brief(w.ratio) if w.ratio is not None else 'infinite'}\n"
              f"    attained at Pr[M({w.numerator_input}) = {w.outcome}] / "
              f"Pr[M({w.denominator_input}) = {w.outcome}] = {brief(w.p)} / {brief(w.q)}")
        print(f"  bound: {bound}")
        if accuracy:
            print(f"  accuracy at beta = {accuracy['beta']}: paper a = {accuracy['paper_a']}, "
                  f"exact smallest a = {accuracy['exact_a']} (worst count "
                  f"{accuracy['attained_at_count']})")
        print(f"  guarantee of one released value: {_guarantee(mech)}")
        print(coverage.lines())
        print(f"  verdict: {word}  (exact values: --json; decimals shown "
              f"are truncated, not rounded)")
    return status


#: ``check`` is registered by :mod:`exactdp.cli.check`, which calls :func:`add_check`.
COMMANDS = [add_distribution, add_sample]
