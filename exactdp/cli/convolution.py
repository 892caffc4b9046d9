"""``exactdp convolve`` and ``exactdp check convolution``: exact private convolution (paper 002,
Fawaz, Muthukrishnan & Nikolov, "Nearly Optimal Private Convolution").

``convolve`` releases ``y ~ h * x`` for a private count vector ``x`` (``FILE``) and a public filter
``h``: on ``Z_2^d`` (``--group xor``) the paper's Algorithm 1 exactly
(:class:`~exactdp.convolution.mechanism.WalshFourierMechanism`), on ``Z_N`` (``--group cyclic``)
Algorithm 1 with an integer strategy in place of the irrational DFT
(:class:`~exactdp.convolution.cyclic.CyclicFourierMechanism`).  It prints the exact output
(Fractions), the exact guarantee (pure ratio, ``delta`` at ``e^eps``) and the exact MSE bound.

``check convolution`` computes the exact privacy of the same mechanism on a small domain from the
implementation: every input of the domain is run under :func:`exactdp.explore.explore` (the
release's own sampling code), and the worst ratio and the hockey-stick divergence at ``e^eps``
are taken over every neighbouring pair, exactly; they are compared with the accounting's
:class:`~exactdp.convolution.accounting.PrivacyProfile`.

One module past 600 lines on purpose: the two commands share their options, the reading of
the vector and filter, the cost estimate and the report of the exact guarantee.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction
from functools import partial
from typing import Any

from exactdp.cli._common import (
    EPILOG,
    FAILED,
    OK,
    add_input_limit,
    add_json,
    add_max_seconds,
    add_output,
    deadline,
    emit_json,
    epsilon_in_range,
    input_limit,
    max_seconds,
    output_path,
    per_call_ns,
    progress,
    refuse_if_slow,
    seeded_source,
)
from exactdp.cli.conv_input import DomainSpec, parse_domain, parse_filter, read_vector
from exactdp.cli.random_source import add_random_source, release_source_of
from exactdp.params import (
    DomainError,
    ParameterError,
    ResourceLimitError,
    positive_int,
    to_fraction,
)

__all__ = ["COMMANDS", "add_check_convolution", "build_mechanism", "decide_delta"]

NEIGHBOURS = (
    "Neighbours: count vectors that differ by exactly 1 in one coordinate (one event added "
    "or removed), both in the public --domain; replacing an event costs the guarantee twice.")
GUARANTEE = (
    "The privacy-loss law between neighbours does not depend on the data, so the pure ratio "
    "and delta(e^eps) are exact, computed from the ratios actually used. --accounting: exact "
    "(default), zcdp, drv, or paper-unsound (the paper's Theorem 4 as printed, which is "
    "false: a release whose exact delta exceeds --delta is refused). The MSE printed is the "
    "exact bound for every x in the domain, beside the paper's eq. 5.")
GROUPS = (
    "--group xor: (h*x)(a) = sum_b x(b) h(a XOR b) on {0,1}^d, Algorithm 1 exactly (Walsh "
    "coefficients are integers). --group cyclic: y_k = sum_n x_n h_(k-n mod N), with an "
    "integer strategy in place of the irrational DFT (O(N^2) release, O(N^3) set-up).")
_FILE = (
    "FILE: the private counts, one non-negative integer per line ('#' lines skipped). "
    "--filter: exact numbers, comma-separated ('1,1,0,0'), or @PATH.")

#: Refuse --group cyclic beyond this N (set-up is O(N^3) exact operations).
MAX_CYCLIC_N = 512
#: check convolution: refuse when (inputs) x (paths per input) exceeds this.
MAX_PATHS = 100_000


# --------------------------------------------------------------------------- shared


def _add_mechanism_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--group", required=True, choices=("xor", "cyclic"), metavar="G",
                   help="xor (Z_2^d, N = 2^d) or cyclic (Z_N)")
    p.add_argument("--filter", required=True, metavar="H",
                   help="the public filter h: comma-separated exact numbers or @FILE")
    p.add_argument("--domain", required=True, metavar="D",
                   help="the public domain of x: 'histograms:n=N' or 'box:m=M'")
    p.add_argument("--epsilon", required=True, metavar="E",
                   help="privacy budget of the whole release, > 0, at most 1000")
    p.add_argument("--delta", required=True, metavar="D",
                   help="target delta in (0, 1), exact ('1/1000000', '1e-6')")
    p.add_argument("--accounting", default="exact", metavar="A",
                   choices=("exact", "zcdp", "drv", "paper-unsound"),
                   help="exact (default), zcdp, drv or paper-unsound")
    p.add_argument("--shape", default="fourier", metavar="S",
                   choices=("fourier", "spectral-partition", "uniform"),
                   help="fourier (Algorithm 1), spectral-partition (Algorithm 2), uniform")
    p.add_argument("--strategy", default="auto", metavar="T",
                   choices=("auto", "walsh", "real-fourier", "hartley"),
                   help="cyclic: auto (default), walsh, real-fourier or hartley")
    p.add_argument("--scale", default="32", metavar="C",
                   help="cyclic real-fourier: T = round(c Q) (default 32)")
    add_max_seconds(p)
    p.add_argument("--ratio-grid", default="fractions", choices=("fractions", "reciprocal"),
                   metavar="R",
                   help="noise ratios rounded DOWN onto fractions (default) or 1 + 1/m")


def _epsilon_delta(args: argparse.Namespace) -> tuple[Fraction, Fraction]:
    from exactdp.spend import budget

    eps = epsilon_in_range(budget(args.epsilon, "--epsilon"))
    delta = to_fraction(args.delta, "--delta")
    if not 0 < delta < 1:
        raise ParameterError(f"--delta = {delta} must lie strictly between 0 and 1")
    return eps, delta


def build_mechanism(group: str, h: tuple[Fraction, ...], spec: DomainSpec, eps: Fraction,
                    delta: Fraction, accounting: str, shape: str, strategy: str,
                    scale: str, ratio_grid: str = "fractions") -> Any:
    """The calibrated mechanism of the command line (public data only)."""
    n = len(h)
    if group == "xor":
        from exactdp.convolution.mechanism import WalshFourierMechanism

        if n & (n - 1):
            raise ParameterError(f"--filter has {n} entries; --group xor needs N = 2^d "
                                 f"(pad h with zeros)")
        if strategy not in ("auto", "walsh"):
            raise ParameterError(f"--strategy {strategy} applies to --group cyclic; xor uses "
                                 f"the Walsh basis (its own Fourier basis)")
        if not any(h):
            raise ParameterError("--filter is all zeros: h * x = 0 needs no release")
        return WalshFourierMechanism(list(h), spec.build(n), epsilon=eps, delta=delta,
                                     accounting=accounting, shape=shape, ratio_grid=ratio_grid)
    from exactdp.convolution.cyclic import CyclicFourierMechanism

    if n > MAX_CYCLIC_N:
        raise ResourceLimitError(f"--group cyclic with N = {n}: the exact set-up takes O(N^3) "
                                 f"and each release O(N^2) exact operations; at most N = "
                                 f"{MAX_CYCLIC_N} (use --group xor for large N)")
    if not any(h):
        raise ParameterError("--filter is all zeros: h * x = 0 needs no release")
    c = positive_int(scale, "--scale")
    return CyclicFourierMechanism(list(h), spec.build(n), strategy=strategy, scale=c,
                                  epsilon=eps, delta=delta, accounting=accounting, shape=shape,
                                  ratio_grid=ratio_grid)


def decide_delta(profile: Any, eps: Fraction, delta: Fraction) -> dict[str, Any]:
    """Exact ``delta(e^eps)`` of the profile as a certified interval, and whether it is at most
    ``delta`` (decided: ``delta(.)`` is non-increasing and ``e^eps`` is bracketed by rationals
    until the answer is certain)."""
    from exactdp.certified import MAX_PRECISION_BITS, compare_exp, exp_interval

    if compare_exp(eps, profile.pure_ratio) >= 0:
        return {"lo": Fraction(0), "hi": Fraction(0), "within": True}
    bits = 64
    while bits <= MAX_PRECISION_BITS:
        box = exp_interval(eps, bits)
        lo, hi = profile.delta(box.hi), profile.delta(box.lo)
        if hi <= delta:
            return {"lo": lo, "hi": hi, "within": True}
        if lo > delta:
            return {"lo": lo, "hi": hi, "within": False}
        bits *= 2
    raise ResourceLimitError(f"could not decide delta(e^{eps}) <= {delta}")


def _ln_interval(r: Fraction) -> tuple[Fraction, Fraction]:
    from exactdp.certified import ln_interval

    if r == 1:
        return Fraction(0), Fraction(0)
    iv = ln_interval(r, 64)
    return iv.lo, iv.hi


def _dec(q: Fraction, places: int = 6, up: bool = False) -> str:
    """``q`` to ``places`` decimals, rounded down (``up``: up), so that a printed lower
    (upper) end stays a true bound."""
    scale = 10**places
    v = q * scale
    whole = -((-v.numerator) // v.denominator) if up else v.numerator // v.denominator
    sign = "-" if whole < 0 else ""
    digits = str(abs(whole)).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def _q(q: Fraction, places: int = 9) -> str:
    """``q`` exactly if short, else a decimal interval around it (exact in --json)."""
    text = str(q)
    return text if len(text) <= 40 else f"in {_iv(q, q, places)}"


def _iv(lo: Fraction, hi: Fraction, places: int = 9) -> str:
    """A certified interval in decimals (ends rounded outwards)."""
    return f"[{_dec(lo, places)}, {_dec(hi, places, up=True)}]"


def guarantee(mech: Any, eps: Fraction, delta: Fraction, accounting: str) -> dict[str, Any]:
    """The exact guarantee of ``mech`` (public: depends on the ratios and shifts only)."""
    from exactdp.convolution.accounting import MAX_SUPPORT

    profile = mech.privacy()
    pure = profile.pure_ratio
    lo, hi = _ln_interval(pure)
    cal = getattr(mech, "calibration", None)
    out: dict[str, Any] = {
        "accounting": accounting,
        "accounting_used": getattr(cal, "accounting_used", accounting),
        "sound": accounting != "paper-unsound",
        "epsilon": eps, "delta": delta,
        "pure_ratio": pure, "pure_epsilon_interval": [lo, hi],
    }
    if getattr(profile, "support_bound", 0) <= MAX_SUPPORT:
        d = decide_delta(profile, eps, delta)
        out["delta_at_e_eps"] = [d["lo"], d["hi"]]
        out["within_target"] = d["within"]
        out["how"] = "exact privacy profile (integral factorization lemma), e^eps bracketed"
    elif out["accounting_used"] == "exact-grid" and cal is not None:
        cert = cal.certificate
        out["delta_at_e_eps"] = [Fraction(0), cert["delta_upper"]]
        out["within_target"] = cert["delta_upper"] <= delta
        out["how"] = (f"certified dominating-grid upper bound delta(R_lo) with R_lo = "
                      f"{cert['R_lo']} <= e^eps (the exact law is too large)")
    elif accounting in ("zcdp", "drv"):
        out["delta_at_e_eps"] = [Fraction(0), delta]
        out["within_target"] = True
        out["how"] = f"the {accounting} composition theorem (certified calibration)"
    else:
        out["delta_at_e_eps"] = None
        out["within_target"] = None
        out["how"] = "not certified: the exact law is too large and the accounting is unsound"
    return out


def convolution_spend(g: dict[str, Any], eps: Fraction) -> Any:
    """What a release with guarantee ``g`` (:func:`guarantee`) spends: ``(eps, delta')``
    with ``delta'`` the certified upper end of ``delta(e^eps)``; when that is not certified
    (paper-unsound on a law too large to compute), the exact pure spend ``ln R``."""
    from exactdp.spend import Spend

    composition = "the whole release: every noisy Fourier coefficient of one draw"
    d = g["delta_at_e_eps"]
    if d is None:
        return Spend(Fraction(1), g["pure_ratio"], requested=eps, composition=composition,
                     meaning="not certified at (eps, delta): the exact pure spend ln R, R the "
                             "worst ratio over neighbours")
    return Spend(eps, delta=d[1], requested=eps, composition=composition,
                 meaning=f"the paper's (eps, delta) target, met: delta here is a certified "
                         f"upper bound on the exact delta(e^eps), at most --delta {g['delta']} "
                         f"({g['how']})")


def _jsonable(value: Any) -> Any:
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _eq5(mech: Any, group: str, eps: Fraction, delta: Fraction) -> list[Fraction]:
    """The paper's eq. 5, ``4 ln(1/delta) ||h^||_1^2/(eps^2 N)``, as a certified interval
    (:func:`exactdp.convolution.baselines.paper_mse`: exact ``|lambda|`` on xor, certified
    intervals on cyclic)."""
    from exactdp.convolution.baselines import paper_mse

    iv = paper_mse(list(mech.h), eps, delta, group)
    return [iv.lo, iv.hi]


# --------------------------------------------------------------------------- convolve


def _add_convolve(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "convolve", help="private convolution h * x of a count vector (exact)",
        epilog=EPILOG,
        description="Release h * x for the private counts x in FILE and a public filter h "
                    "with Fawaz, Muthukrishnan & Nikolov's Algorithm 1 made exact: integer "
                    "transform, clamped geometric noise of rational ratios, exact "
                    "reconstruction. Prints y (fractions), the exact guarantee and the exact "
                    "MSE bound. " + GROUPS + " " + NEIGHBOURS + " " + GUARANTEE + " "
                    + _FILE)
    p.add_argument("file", metavar="FILE", help="the private counts, one per line ('-': stdin)")
    _add_mechanism_args(p)
    p.add_argument("--seed", help="reproducible noise for examples (NOT for releases)")
    add_random_source(p)
    p.add_argument("--mse-at-input", action="store_true",
                   help="also the exact MSE at this x (private: NOT covered)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_json(p)
    add_output(p, "the release as JSON")
    add_input_limit(p)
    p.set_defaults(func=cmd_convolve)


#: Nanoseconds per N^2 of the calibration and exact privacy check (a rough, generous fit).
CHECK_NS_PER_N2 = 500


def release_ns(mech: Any) -> int:
    """About how many nanoseconds one release's noise takes: one draw of up to 8 of the
    noise classes, timed with a throwaway seeded source (never released), times the rows of
    each class, scaled to every class."""
    noise = mech.noise
    classes = len(noise.class_rows)
    picked = sorted({k * classes // 8 for k in range(8)} & set(range(classes)))
    trial = seeded_source(0)
    ns = 0
    for k in picked:
        s = noise.fast_sampler(k)
        centre = s.lo + (s.hi - s.lo) // 2
        ns += len(noise.class_rows[k]) * per_call_ns(
            lambda s=s, centre=centre: s.sample_many([centre], trial), 1)
    return ns * classes // max(1, len(picked))


def cmd_convolve(args: argparse.Namespace) -> int:
    from exactdp.randomness import RandomSource

    def say(message: str) -> None:
        if not args.quiet and not args.json:
            progress(message)

    start = time.perf_counter()
    out = output_path(args)  # before anything is read or drawn
    eps, delta = _epsilon_delta(args)
    spec = parse_domain(args.domain)
    limit = input_limit(args)
    h = parse_filter(args.filter, limit)
    x = read_vector(args.file, limit)
    if len(x) != len(h):
        raise DomainError(f"input {args.file!r} has {len(x)} entries but --filter has "
                          f"{len(h)}; they must have the same length N")
    why = spec.contains(x)
    if why is not None:
        raise DomainError(f"input {args.file!r}: {why}: outside the public --domain "
                          f"{args.domain} (the domain must hold for every possible input; "
                          f"widen it)")
    limit = max_seconds(args)
    # The exact privacy check handles numbers of about N digits, N times: about N^2 steps
    # (measured: 2 minutes of CPU at N = 2^14 with every coefficient noisy).
    refuse_if_slow(f"the calibration and exact privacy check at N = {len(h)}",
                   len(h) * len(h) * CHECK_NS_PER_N2, limit, "use a smaller N")
    with deadline(limit, "the calibration and the exact privacy check"):
        mech = build_mechanism(args.group, h, spec, eps, delta, args.accounting, args.shape,
                               args.strategy, args.scale, args.ratio_grid)
        g = guarantee(mech, eps, delta, args.accounting)
        mse_bound = mech.mse_bound()  # before drawing: nothing may fail after it
        eq5 = _eq5(mech, args.group, eps, delta)
    refuse_if_slow(f"drawing the noise of {len(mech.rows)} coefficients",
                   release_ns(mech), limit, "use a smaller --domain or N")
    say(f"calibrated in {time.perf_counter() - start:.1f} s: {len(mech.rows)} noisy "
        f"coefficients, pure ratio {_dec(g['pure_ratio'])}")
    if g["within_target"] is False:
        dl = g["delta_at_e_eps"][0]
        progress(f"exactdp convolve: refused: with --accounting {args.accounting} the exact "
                 f"delta at e^{eps} is at least {_dec(dl, 9)} > --delta {delta} (the "
                 f"requested guarantee does not hold); nothing was released")
        return FAILED
    if not g["sound"]:
        progress("warning: --accounting paper-unsound calibrates with the paper's Theorem 4 "
                 "as printed, which is false in general; the exact guarantee "
                 "below is what holds")
    source: RandomSource = (release_source_of(args) if args.seed is None
                            else seeded_source(args.seed))
    release = mech.release(x, source)
    payload: dict[str, Any] = {
        "mechanism": type(mech).__name__,
        "group": args.group,
        "strategy": getattr(mech, "strategy_name", "walsh"),
        "N": mech.N,
        "domain": spec.describe(),
        "filter": list(h),
        "shape": args.shape,
        "ratio_grid": args.ratio_grid,
        "noisy_coefficients": len(release.coefficients),
        "ratios": list(mech.ratios),
        "guarantee": g,
        "spent": convolution_spend(g, eps).to_json(),
        "mse": {"bound_every_x": mse_bound, "paper_eq5_interval": eq5},
        "y": list(release.y),
        "seeded": args.seed is not None,
    }
    if args.mse_at_input:
        payload["mse"]["at_this_input_NOT_PRIVATE"] = mech.mse(x)
    doc = _jsonable(payload)
    printed = emit_json(args, doc, out)
    if args.seed is not None:
        progress("warning: --seed made the noise predictable (the output records seeded: "
                 "true); never publish this release")
    if not printed:
        _print_release(args, mech, g, payload)
    say(f"done in {time.perf_counter() - start:.1f} s")
    return OK


def _print_release(args: argparse.Namespace, mech: Any, g: dict[str, Any],
                   payload: dict[str, Any]) -> None:
    lo, hi = g["pure_epsilon_interval"]
    lines = [
        (f"# exact private {args.group} convolution ({payload['mechanism']}, strategy "
         f"{payload['strategy']}), N = {mech.N}, {payload['noisy_coefficients']} noisy "
         f"coefficients, domain {payload['domain']}"),
        f"# accounting {g['accounting']} (used: {g['accounting_used']})"
        + ("  ** UNSOUND: the paper's Theorem 4 as printed **" if not g["sound"] else ""),
        f"# pure ratio {_q(g['pure_ratio'])} (pure eps in {_iv(lo, hi, 6)})",
    ]
    d = g["delta_at_e_eps"]
    if d is not None:
        lines.append(f"# delta at e^{g['epsilon']}: in {_iv(d[0], d[1], 12)} ({g['how']}); "
                     f"target {g['delta']}: "
                     + ("met" if g["within_target"] else "NOT certified"))
    else:
        lines.append(f"# delta at e^{g['epsilon']}: {g['how']}")
    mse = payload["mse"]
    lines.append(f"# {convolution_spend(g, g['epsilon']).describe()}")
    lines.append(f"# MSE (exact bound for every x): {_q(mse['bound_every_x'])}")
    a, b = mse["paper_eq5_interval"]
    lines.append(f"# paper's eq. 5 at the same (eps, delta): in {_iv(a, b, 6)}")
    if "at_this_input_NOT_PRIVATE" in mse:
        lines.append(f"# MSE at this x (depends on the private data, not private): "
                     f"{mse['at_this_input_NOT_PRIVATE']}")
    lines.append("# y (exact), one per line:")
    print("\n".join(lines))
    print("\n".join(str(v) for v in payload["y"]))


# --------------------------------------------------------------------------- check


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
    from exactdp.cli.check_coverage import Coverage, outcome
    from exactdp.explore import explore

    eps, delta = _epsilon_delta(args)
    spec = parse_domain(args.domain)
    h = parse_filter(args.filter, input_limit(args))
    mech = build_mechanism(args.group, h, spec, eps, delta, args.accounting, args.shape,
                           args.strategy, args.scale, args.ratio_grid)
    g = guarantee(mech, eps, delta, args.accounting)
    report: dict[str, Any] = {
        "claim": f"(eps, delta) = ({eps}, {delta})-DP of exactdp convolve --group {args.group}",
        "mechanism": type(mech).__name__, "strategy": getattr(mech, "strategy_name", "walsh"),
        "N": mech.N, "domain": spec.describe(), "filter": list(h),
        "ratios": list(mech.ratios), "profile": g, "method": args.method,
    }
    ok = bool(g["within_target"])
    if args.method == "explore":
        domain = mech.domain
        paths = 1
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
        for x in laws:
            for _k, x2 in domain.neighbours(x):
                for u, v in ((x, x2), (x2, x)):
                    pairs += 1
                    differ += laws[u] != laws[v]
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
        agrees = worst_ratio is not None and worst_ratio <= g["pure_ratio"]
        report["explored"] = {
            "inputs": size, "ordered_pairs": pairs, "paths_per_input": paths,
            "worst_ratio": "infinity" if worst_ratio is None else worst_ratio,
            "worst_ratio_pair": {"x": list(ratio_pair[0]), "x_prime": list(ratio_pair[1]),
                                 "y": _jsonable(ratio_pair[2])},
            "ratio_equals_profile": worst_ratio == g["pure_ratio"],
            "delta_at_e_eps": [d_lo, d_hi],
            "delta_pair": {"x": list(u), "x_prime": list(v), "A": a, "B": b,
                           "note": "delta(e^eps) = A - e^eps B for this pair"},
            "within_target": explored_ok,
        }
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
    print(f"{report['claim']}\n  mechanism: {report['mechanism']} (strategy "
          f"{report['strategy']}), N = {report['N']}, domain {report['domain']}, "
          f"{len(report['ratios'])} noisy coefficients, ratios {_short(report['ratios'])}")
    d = g["delta_at_e_eps"]
    print(f"  accounting {g['accounting']} (used {g['accounting_used']})"
          + ("  ** UNSOUND (paper's Theorem 4 as printed) **" if not g["sound"] else ""))
    print(f"  profile: pure ratio {_q(g['pure_ratio'])}; delta(e^eps) in "
          + (_iv(d[0], d[1]) if d is not None else "(not computed)")
          + f" ({g['how']})")
    e = report.get("explored")
    if e is not None:
        rp = e["worst_ratio_pair"]
        print(f"  explored: {e['inputs']} inputs, {e['ordered_pairs']} ordered neighbouring "
              f"pairs, {e['paths_per_input']} random paths each (exact laws of y from the "
              f"release's own code)")
        wr = e["worst_ratio"]
        print(f"  worst ratio {wr if isinstance(wr, str) else _q(wr)} at x = {rp['x']}, "
              f"x' = {rp['x_prime']} "
              f"({'equals' if e['ratio_equals_profile'] else 'DIFFERS FROM'} the profile's)")
        dp = e["delta_pair"]
        lo, hi = e["delta_at_e_eps"]
        print(f"  delta(e^eps) in {_iv(lo, hi)} at x = {dp['x']}, x' = "
              f"{dp['x_prime']} (exactly A - e^eps B, A = {_q(dp['A'])}, B = {_q(dp['B'])})")
        cov = report["coverage"]
        print(f"  non-vacuous: {cov['non_vacuous_pairs']} of {cov['pairs']} ordered pairs "
              f"(their laws differ); coverage: {cov['why']}")
    print(f"  verdict: {'pass' if ok else 'FAIL'} against delta = {g['delta']} at eps = "
          f"{g['epsilon']}  (decimal ends rounded outwards; exact values: --json)")


def _short(values: list[Any]) -> str:
    shown = ", ".join(str(v) for v in values[:6])
    return f"[{shown}{', ...' if len(values) > 6 else ''}]"


COMMANDS = [_add_convolve]
