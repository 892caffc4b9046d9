"""``exactdp distribution | sample | check``: the counting mechanisms of Section 4."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from exactdp.cli._common import progress as _progress, write_json as _write_json

_MECHANISMS = ("geometric", "geosample", "fastsample")


def _counting_args(p: argparse.ArgumentParser, choices: Sequence[str]) -> None:
    p.add_argument("mechanism", choices=choices,
                   help="geosample = Algorithm 4.8, fastsample = Algorithm 4.11, geometric = "
                        "the ideal clamped geometric GeoSample equals (Algorithm 4.5 with eps~)")
    p.add_argument("--n", required=True, help="the largest count; counts lie in [0, n]")
    p.add_argument("--epsilon", required=True,
                   help="privacy parameter 1/m, written exactly (e.g. '1/10')")
    p.add_argument("--gamma", help="fastsample only: mixing weight 1/g < 1 (e.g. '1/1000')")


def _make_mechanism(args: argparse.Namespace) -> Any:
    from exactdp.counting import FastSample, GeometricMechanism, GeoSample
    from exactdp.params import ParameterError

    if args.mechanism == "fastsample":
        if args.gamma is None:
            raise ParameterError("fastsample needs --gamma (e.g. --gamma 1/1000)")
        return FastSample(args.n, args.epsilon, args.gamma)
    if args.gamma is not None:
        raise ParameterError(f"--gamma applies to fastsample only, not {args.mechanism}")
    if args.mechanism == "geometric":
        return GeometricMechanism.for_geosample(args.n, args.epsilon)
    return GeoSample(args.n, args.epsilon)


def _count(text: str, n: int) -> int:
    """A true count in ``[0, n]``; a non-integer such as ``3/2`` is refused, never rounded."""
    from exactdp.params import ParameterError, check_count, to_fraction

    q = to_fraction(text, "count")
    if q.denominator != 1:
        raise ParameterError(f"count = {q} must be an integer in [0, {n}]")
    return check_count(int(q), n, "count")


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


def _add_distribution(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "distribution", help="exact output distribution of a counting mechanism at a count",
        description="Print Pr[M(c) = z] for z in [0, n] exactly (p/q), derived from the "
                    "implementation (threshold search over u calling M(c, u)), and whether it "
                    "equals the ideal distribution (GeoSample: the clamped geometric with "
                    "ratio 2^k/(2^k+1); FastSample: the mixture of Lemma 4.12). 'geometric' "
                    "prints the ideal itself, for GeoSample's eps~.")
    _counting_args(p, _MECHANISMS)
    p.add_argument("--count", required=True, help="the true count c in [0, n]")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_distribution)


def _cmd_distribution(args: argparse.Namespace) -> int:
    from exactdp.certificate import exact_json
    from exactdp.checker import counting_distribution
    from exactdp.counting import GeometricMechanism

    mech = _make_mechanism(args)
    c = _count(args.count, mech.n)
    if isinstance(mech, GeometricMechanism):
        dist = dict(enumerate(mech.distribution(c)))
        equal: bool | None = None
        source = "closed form (the ideal)"
    else:
        dist = counting_distribution(mech, c)
        equal = dist == mech.ideal_distribution(c)
        source = "read off the implementation M(c, u)"
    total = sum(dist.values())
    if args.json:
        _write_json({**exact_json(_describe(mech)), "count": str(c), "source": source,
                     "pmf": exact_json(dist), "sum": str(total),
                     "equals_ideal": equal}, None)
    else:
        print(f"{_describe(mech)['mechanism']}  n={mech.n}  count={c}  ({source})")
        for z, p in dist.items():
            print(f"  Pr[M = {z}] = {p}")
        print(f"  sum = {total}")
        if equal is not None:
            print(f"  equals the ideal distribution: {'yes' if equal else 'NO'}")
    return 0 if equal is not False else 1


def _add_sample(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "sample", help="release noisy counts",
        description="Draw noisy counts M(c, U). Randomness: the OS CSPRNG, or --seed S for "
                    "reproducible examples (NOT for releases: the seed determines the noise).")
    _counting_args(p, _MECHANISMS[1:])
    p.add_argument("--count", required=True, help="the true count c in [0, n]")
    p.add_argument("--draws", default="1", help="how many independent draws (default 1)")
    p.add_argument("--seed", help="seed a reproducible source (not for releases)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_sample)


def _cmd_sample(args: argparse.Namespace) -> int:
    from exactdp.params import positive_int
    from exactdp.randomness import RandomSource, SeededSource, SystemSource

    mech = _make_mechanism(args)
    c = _count(args.count, mech.n)
    draws = positive_int(args.draws, "draws")
    source: RandomSource
    if args.seed is not None:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            source = SeededSource(args.seed)
        _progress("warning: --seed makes the noise predictable; never release these values")
    else:
        source = SystemSource()
    values = [mech.sample(c, source) for _ in range(draws)]
    if args.json:
        _write_json({"mechanism": type(mech).__name__, "n": str(mech.n), "count": str(c),
                     "seeded": args.seed is not None, "values": [str(v) for v in values]},
                    None)
    else:
        print("\n".join(map(str, values)))
    return 0


def _add_check(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "check", help="privacy certificate of a counting mechanism",
        description="Compute the exact distribution of M(c, U) for every c in [0, n] from "
                    "the implementation, the worst neighbouring ratio Pr[M(c)=z]/Pr[M(c')=z] "
                    "(|c - c'| = 1, both directions) with its witness, and compare it with "
                    "the paper's claim: GeoSample ratio == 1 + 2^-k = e^(eps~/2) exactly; "
                    "FastSample ratio <= e^(eps/2), certified with a rational bound.")
    _counting_args(p, _MECHANISMS[1:])
    p.add_argument("--beta", help="also report accuracy at this beta: the paper's closed-form "
                                  "a (Theorem 4.7 i / 4.10 ii) and the exact smallest a")
    p.add_argument("--json", action="store_true", help="print the certificate as JSON")
    p.set_defaults(func=_cmd_check)


def _cmd_check(args: argparse.Namespace) -> int:
    from exactdp.certificate import Certificate
    from exactdp.checker import (
        certify_ratio,
        counting_distributions,
        exact_accuracy,
        worst_neighbour_ratio,
    )
    from exactdp.counting import GeoSample

    mech = _make_mechanism(args)
    if mech.n > 512:
        _progress(f"computing {mech.n + 1} exact distributions ...")
    dists = counting_distributions(mech)
    w = worst_neighbour_ratio(dists)
    accuracy: dict[str, Any] = {}
    if args.beta is not None:
        exact = exact_accuracy(dists, args.beta)
        accuracy = {"beta": exact.beta, "paper_a": mech.paper_accuracy(exact.beta),
                    "exact_a": exact.a, "attained_at_count": exact.worst_count,
                    "probability_within_exact_a": exact.probability}
    params = {k: v for k, v in _describe(mech).items() if k not in ("mechanism", "d", "d_prime")}
    if isinstance(mech, GeoSample):
        ok = w.ratio == mech.privacy_ratio
        claim, bound = "Theorem 4.7 (i): (eps~/2, 0)-DP", f"== 1 + 2^-{mech.k} = {mech.privacy_ratio}"
    else:
        ok, bound = certify_ratio(w, mech.epsilon / 2)
        claim = "Theorem 4.10 (i): (eps/2, 0)-DP"
    cert = Certificate(claim, repr(mech), params, f"c in [0,{mech.n}], neighbours c, c+1",
                       w.ratio, bound, ok, {"ratio_witness": w.to_json(),
                                            **({"accuracy": accuracy} if accuracy else {})})
    if args.json:
        print(cert.dumps())
    else:
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
        print(f"  verdict: {'pass' if ok else 'FAIL'}  (exact values: --json; decimals shown "
              f"are truncated, not rounded)")
    return 0 if ok else 1




COMMANDS = [_add_distribution, _add_sample, _add_check]
