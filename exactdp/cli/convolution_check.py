"""``exactdp check convolution``: the exact privacy of ``exactdp convolve``'s mechanism on a small
domain, from the implementation: every input of the domain is run under
:func:`exactdp.explore.explore` (the release's own sampling code), and the worst ratio and the
hockey-stick divergence at ``e^eps`` are taken over every neighbouring pair, exactly; they are
compared with the accounting's :class:`~exactdp.convolution.accounting.PrivacyProfile`.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from functools import partial
from typing import Any

from exactdp.cli._common import (
    EPILOG,
    FAILED,
    OK,
    add_input_limit,
    add_json,
    emit_json,
    input_limit,
)
from exactdp.cli.conv_gaussian import NOISES, check_gaussian_options, gaussian_guarantee
from exactdp.cli.conv_input import parse_domain
from exactdp.cli.convolution import (
    MAX_PATHS,
    NEIGHBOURS,
    _add_mechanism_args,
    _epsilon_delta,
    _jsonable,
    _q,
    build_mechanism,
    gaussian_mechanism,
    guarantee,
    read_filter,
)
from exactdp.params import ParameterError, ResourceLimitError, positive_int, to_fraction
from exactdp.spend import compact

__all__ = ["add_check_convolution", "cmd_check_convolution"]


def _delta(lo: Fraction, hi: Fraction, target: Fraction) -> str:
    """``"= d"`` or ``"in [lo, hi]"``: a certified enclosure of a hockey-stick delta in
    scientific notation, ends rounded outwards, with enough digits to show on which side of
    ``target`` it lies (a delta of 1e-12 stays visible)."""
    from exactdp.audit.severity import decimal_against
    from exactdp.certified import Interval

    return decimal_against(Interval(Fraction(lo), Fraction(hi)), Fraction(target))


def _is(q: Fraction) -> str:
    """``"= q"`` for a short exact number, ``"in [lo, hi]"`` (decimals) for a long one."""
    text = _q(q)
    return text if text.startswith("in ") else f"= {text}"


def add_check_convolution(targets: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = targets.add_parser(
        "convolution", help="exact privacy of exactdp convolve on a small domain",
        epilog=EPILOG,
        description="The mechanism of 'exactdp convolve' with the same options, checked "
                    "exactly: every input x of the (small) --domain is run through the "
                    "release's own sampling code under the exploring random source "
                    "(exactdp.explore), which gives the exact law of the output y; over "
                    "every ordered neighbouring pair (x, x') the worst ratio P(y|x)/P(y|x') "
                    "and the hockey-stick divergence delta(e^eps) = sum_y max(0, P(y|x) - "
                    "e^eps P(y|x')) are computed exactly (e^eps bracketed by certified "
                    "rationals until the comparison with --delta is decided), with the worst "
                    "pair; they are compared with the accounting's exact PrivacyProfile. "
                    "--method profile skips the exploration and uses the profile alone "
                    "(data-independent by the integral factorization lemma; any domain). "
                    + NEIGHBOURS + " Exit status 0 if delta(e^eps) <= --delta for every "
                    "pair, 1 if some pair violates it (or the explored ratio exceeds the "
                    "profile's), 2 for bad arguments or a domain too large to explore.")
    _add_mechanism_args(p)
    p.add_argument("--noise", default="geometric", choices=NOISES, metavar="K",
                   help="geometric (default) or gaussian (discrete Gaussian: every pair's "
                        "delta(R_lo) is compared with the calibration's certified bound)")
    p.add_argument("--linear", metavar="n",
                   help="linear convolution of inputs of length n (zero padding; cyclic)")
    p.add_argument("--method", choices=("explore", "profile"), default="explore",
                   help="explore (default): exact laws from the implementation over the "
                        "whole domain; profile: the exact privacy profile only")
    p.add_argument("--max-paths", default=str(MAX_PATHS), metavar="K",
                   help=f"refuse to explore more than K = (inputs) x (random paths per input) "
                        f"(default {MAX_PATHS})")
    add_json(p)
    add_input_limit(p)
    p.set_defaults(func=cmd_check_convolution)


def _pair_delta(p: dict[Any, Fraction], q: dict[Any, Fraction], eps: Fraction,
                cache: dict[Fraction, bool]) -> tuple[Fraction, Fraction, Fraction | None, Any]:
    """``(A, B, ratio, witness)``: ``delta(e^eps) = A - e^eps B`` with ``A = P(S)``,
    ``B = Q(S)``, ``S = {y : P(y) > e^eps Q(y)}`` (decided exactly), and the worst ratio
    ``max P/Q`` (None: infinite) with an output attaining it."""
    from exactdp.certified import compare_exp

    zero = Fraction(0)
    a = b = zero
    worst: Fraction | None = zero
    wit = None
    for y, py in p.items():
        qy = q.get(y, zero)
        if qy == 0:
            a += py
            if worst is not None:
                worst, wit = None, y
            continue
        r = py / qy
        if worst is not None and r > worst:
            worst, wit = r, y
        above = cache.get(r)
        if above is None:
            above = cache[r] = compare_exp(eps, r) < 0
        if above:
            a += py
            b += qy
    return a, b, worst, wit


def cmd_check_convolution(args: argparse.Namespace) -> int:
    """Explore: the grid is every input of the public ``--domain``, which is the mechanism's
    whole input domain (a release refuses data outside it), with every neighbouring pair in
    both orders, so the pairs where the claim is tightest are on it.  Profile: the exact
    privacy profile, which holds for every pair."""
    from exactdp.certified import MAX_PRECISION_BITS, compare_exp, exp_interval
    from exactdp.checker import hockey_stick
    from exactdp.cli.check_coverage import Coverage, outcome
    from exactdp.explore import explore

    eps, delta = _epsilon_delta(args)
    spec = parse_domain(args.domain)
    h = read_filter(args.filter, input_limit(args), None)
    linear = None if args.linear is None else positive_int(args.linear, "--linear")
    gaussian = args.noise == "gaussian"
    if gaussian:
        check_gaussian_options(args)
        mech = gaussian_mechanism(args, h, spec, eps, delta)
        g = gaussian_guarantee(mech, eps, delta)
    else:
        mech = build_mechanism(args.group, h, spec, eps, delta, args.accounting, args.shape,
                               args.strategy, args.scale, args.ratio_grid, linear)
        g = guarantee(mech, eps, delta, args.accounting)
    report: dict[str, Any] = {
        "claim": f"(eps, delta) = ({compact(eps)}, {compact(delta)})-DP of exactdp convolve "
                 f"--group {args.group}"
                 + (" --noise gaussian" if gaussian else "")
                 + ("" if linear is None else f" --linear (inputs of length {linear})"),
        "mechanism": type(mech).__name__, "strategy": getattr(mech, "strategy_name", "walsh"),
        "N": mech.N, "domain": spec.describe(), "filter": list(h),
        "ratios": list(mech.ratios), "profile": g, "method": args.method,
        "noise": args.noise,
    }
    if gaussian:
        report["sigma2"] = list(mech.sigma2s)
    ok = bool(g["within_target"])
    if args.method == "explore":
        domain = getattr(mech, "input_domain", mech.domain)   # --linear: the real inputs
        paths = 1
        if gaussian:  # the exploring source branches once per value of each row's noise
            for sampler in mech.noise.samplers:
                paths *= 2 * sampler.tail + 1
        else:
            for lo, hi in mech.ranges:
                paths *= hi - lo + 1
        size = domain.size()
        limit = positive_int(to_fraction(args.max_paths, "--max-paths"), "--max-paths")
        if size * paths > limit:
            raise ResourceLimitError(
                f"the domain has {size} inputs and each release has {paths} random paths "
                f"({len(mech.rows)} noisy coefficients): {size * paths} > --max-paths "
                f"{limit}; use a smaller N or domain bound, or --method profile")
        laws: dict[tuple[int, ...], dict[Any, Fraction]] = {}
        for x in domain.elements():
            laws[x] = explore(partial(mech.sample_with, x), max_runs=paths + 1)
        cache: dict[Fraction, bool] = {}
        box = exp_interval(eps, 128)
        worst_ratio: Fraction | None = Fraction(0)
        ratio_pair: Any = None
        worst_pair: Any = None
        worst_hi = Fraction(-1)
        violated: Any = None
        pairs = differ = 0
        # Gaussian: every pair's exact delta(R_lo) against the calibration's certified bound
        r_lo = mech.calibration.R_lo if gaussian else None
        worst_at_r = Fraction(-1)
        r_pair: Any = None
        for x in laws:
            for _k, x2 in domain.neighbours(x):
                for u, v in ((x, x2), (x2, x)):
                    pairs += 1
                    differ += laws[u] != laws[v]
                    if r_lo is not None:
                        at_r = hockey_stick(laws[u], laws[v], r_lo)
                        if at_r > worst_at_r:
                            worst_at_r, r_pair = at_r, (u, v)
                    a, b, r, wit = _pair_delta(laws[u], laws[v], eps, cache)
                    if ratio_pair is None or (worst_ratio is not None and
                                              (r is None or r > worst_ratio)):
                        worst_ratio, ratio_pair = r, (u, v, wit)
                    hi_d = a - b * box.lo
                    if hi_d > worst_hi:
                        worst_hi, worst_pair = hi_d, (u, v, a, b)
                    within = a <= delta if b == 0 else (a <= delta or
                                                        compare_exp(eps, (a - delta) / b) >= 0)
                    if not within and violated is None:
                        violated = (u, v, a, b)
        if worst_pair is None:
            raise ParameterError(f"the domain {spec.describe()} has no neighbouring pairs")
        u, v, a, b = violated if violated is not None else worst_pair
        bits = 128
        while bits <= MAX_PRECISION_BITS:
            bx = exp_interval(eps, bits)
            d_lo, d_hi = max(Fraction(0), a - b * bx.hi), a - b * bx.lo
            if d_hi <= delta or d_lo > delta or b == 0:
                break
            bits *= 2
        explored_ok = violated is None
        if gaussian:
            agrees = worst_at_r <= g["delta_at_e_eps"][1]
        else:
            agrees = worst_ratio is not None and worst_ratio <= g["pure_ratio"]
        report["explored"] = {
            "inputs": size, "ordered_pairs": pairs, "paths_per_input": paths,
            "worst_ratio": "infinity" if worst_ratio is None else worst_ratio,
            "worst_ratio_pair": {"x": list(ratio_pair[0]), "x_prime": list(ratio_pair[1]),
                                 "y": _jsonable(ratio_pair[2])},
            "ratio_equals_profile": (None if gaussian else worst_ratio == g["pure_ratio"]),
            "delta_at_e_eps": [d_lo, d_hi],
            "delta_pair": {"x": list(u), "x_prime": list(v), "A": a, "B": b,
                           "note": "delta(e^eps) = A - e^eps B for this pair"},
            "within_target": explored_ok,
        }
        if gaussian:
            report["explored"]["delta_at_R_lo"] = {
                "R_lo": r_lo, "worst": worst_at_r, "x": list(r_pair[0]),
                "x_prime": list(r_pair[1]), "certified_bound": g["delta_at_e_eps"][1],
                "within_bound": agrees}
        ok = explored_ok and agrees
        coverage = Coverage(True, f"every input of the domain {spec.describe()}, the "
                                  f"mechanism's whole input domain", differ, pairs)
        report["coverage"] = coverage.to_json()
        word, status = outcome(ok, coverage)
    else:
        word, status = ("pass", OK) if ok else ("FAIL", FAILED)
    doc = _jsonable(report)
    doc["verdict"] = word
    if not emit_json(args, doc, None):
        _print_check(report, ok)
    return status


def _print_check(report: dict[str, Any], ok: bool) -> None:
    g = report["profile"]
    noise = report.get("sigma2")
    noise_text = (f"{len(report['ratios'])} noisy coefficients, ratios "
                  f"{_short(report['ratios'])}" if noise is None else
                  f"{len(noise)} noisy coefficients, discrete Gaussian sigma^2 {_short(noise)}")
    print(f"{report['claim']}\n  mechanism: {report['mechanism']} (strategy "
          f"{report['strategy']}), N = {report['N']}, domain {report['domain']}, {noise_text}")
    d = g["delta_at_e_eps"]
    print(f"  accounting {g['accounting']} (used {g['accounting_used']})"
          + ("  ** UNSOUND (paper's Theorem 4 as printed) **" if not g["sound"] else ""))
    pure = g["pure_ratio"]
    print("  profile: " + ("no pure ratio (the truncated noise has outputs a neighbour "
                            "cannot produce)" if pure is None else f"pure ratio {_q(pure)}")
          + "; delta(e^eps) "
          + (_delta(d[0], d[1], g["delta"]) if d is not None else "(not computed)")
          + f" ({g['how']})")
    e = report.get("explored")
    if e is not None:
        rp = e["worst_ratio_pair"]
        print(f"  explored: {e['inputs']} inputs, {e['ordered_pairs']} ordered neighbouring "
              f"pairs, {e['paths_per_input']} random paths each (exact laws of y from the "
              f"release's own code)")
        wr = e["worst_ratio"]
        same = e["ratio_equals_profile"]
        print(f"  worst ratio {wr if isinstance(wr, str) else _q(wr)} at x = {rp['x']}, "
              f"x' = {rp['x_prime']}"
              + ("" if same is None else
                 f" ({'equals' if same else 'DIFFERS FROM'} the profile's)"))
        at_r = e.get("delta_at_R_lo")
        if at_r is not None:
            print(f"  delta(R_lo) over every pair: {_q(at_r['worst'])} (worst at x = "
                  f"{at_r['x']}, x' = {at_r['x_prime']}; R_lo {_is(at_r['R_lo'])} <= e^eps): "
                  f"{'within' if at_r['within_bound'] else 'ABOVE'} the calibration's "
                  f"certified bound {_is(at_r['certified_bound'])}")
        dp = e["delta_pair"]
        lo, hi = e["delta_at_e_eps"]
        print(f"  delta(e^eps) {_delta(lo, hi, g['delta'])} at x = {dp['x']}, x' = "
              f"{dp['x_prime']} (exactly A - e^eps B, A = {_q(dp['A'])}, B = {_q(dp['B'])})")
        cov = report["coverage"]
        print(f"  non-vacuous: {cov['non_vacuous_pairs']} of {cov['pairs']} ordered pairs "
              f"(their laws differ); coverage: {cov['why']}")
    print(f"  verdict: {'pass' if ok else 'FAIL'} against delta = {compact(g['delta'])} at eps = "
          f"{compact(g['epsilon'])}  (decimal ends rounded outwards; exact values: --json)")


def _short(values: list[Any]) -> str:
    shown = ", ".join(str(v) for v in values[:6])
    return f"[{shown}{', ...' if len(values) > 6 else ''}]"


