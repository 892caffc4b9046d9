"""``exactdp convolve`` and ``exactdp check convolution``: exact private convolution (paper 002,
Fawaz, Muthukrishnan & Nikolov, "Nearly Optimal Private Convolution").

``convolve`` releases ``y ~ h * x`` for a private count vector ``x`` (``FILE``) and a public filter
``h``: on ``Z_2^d`` (``--group xor``) the paper's Algorithm 1 exactly
(:class:`~exactdp.convolution.mechanism.WalshFourierMechanism`), on ``Z_N`` (``--group cyclic``)
Algorithm 1 with an integer strategy in place of the irrational DFT
(:class:`~exactdp.convolution.cyclic.CyclicFourierMechanism`).  It prints the exact output
(Fractions), the exact guarantee (pure ratio, ``delta`` at ``e^eps``) and the exact MSE bound.

``exactdp check convolution`` (:mod:`exactdp.cli.convolution_check`) checks the same mechanism
exactly on a small domain; it shares the options, the building of the mechanism and the report
of the exact guarantee defined here.
"""

from __future__ import annotations

import argparse
import functools
import time
from fractions import Fraction
from typing import Any

from exactdp.cli._common import (
    EPILOG,
    FAILED,
    OK,
    add_input_limit,
    add_json,
    add_max_seconds,
    add_output,
    duration,
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
    open_unit,
    positive_int,
)

__all__ = ["COMMANDS", "build_mechanism", "decide_delta", "guarantee"]

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
                   help="public h: exact numbers a,b,..., @FILE, window:W, decay:A:W, hp:L")
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
                   help="fourier (Alg. 1), spectral-partition (Alg. 2), uniform")
    p.add_argument("--strategy", default="auto", metavar="T",
                   choices=("auto", "walsh", "real-fourier", "hartley"),
                   help="cyclic: auto (default), walsh, real-fourier or hartley")
    p.add_argument("--scale", default="32", metavar="C",
                   help="cyclic real-fourier: T = round(c Q) (default 32)")
    add_max_seconds(p)
    p.add_argument("--ratio-grid", default="fractions", choices=("fractions", "reciprocal"),
                   metavar="R",
                   help="ratios rounded DOWN onto fractions (default) or 1+1/m")


def _epsilon_delta(args: argparse.Namespace) -> tuple[Fraction, Fraction]:
    from exactdp.spend import budget

    eps = epsilon_in_range(budget(args.epsilon, "--epsilon"))
    return eps, open_unit(args.delta, "--delta")


def build_mechanism(group: str, h: tuple[Fraction, ...], spec: DomainSpec, eps: Fraction,
                    delta: Fraction, accounting: str, shape: str, strategy: str,
                    scale: str, ratio_grid: str = "fractions",
                    linear_length: int | None = None) -> Any:
    """The calibrated mechanism of the command line (public data only).  ``linear_length``:
    the length ``n`` of the input for linear convolution by zero padding (``--linear``)."""
    if linear_length is not None:
        return _linear_mechanism(group, h, spec, eps, delta, accounting, shape, strategy,
                                 scale, ratio_grid, linear_length)
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


def read_filter(text: str, limit: int, n: int | None, linear: bool = False
                ) -> tuple[Fraction, ...]:
    """``--filter``: exact numbers or ``@FILE`` (:func:`parse_filter`), or a named filter of
    :mod:`exactdp.convolution.filters` (``window:W``, ``decay:ALPHA:W``; ``hp:LAMBDA`` of the
    input's length ``n``).  Without ``--linear`` a window or decay filter shorter than the input
    is padded with zeros to ``n`` (the circular moving window)."""
    from exactdp.convolution.filters import named_filter

    if linear and text.startswith("hp:"):
        raise ParameterError("--filter hp:LAMBDA is the circular Hodrick-Prescott trend (length "
                             "N); it does not combine with --linear")
    named = named_filter(text, n)
    if named is None:
        return parse_filter(text, limit)
    if n is not None and not linear and len(named) < n:
        named = named + [Fraction(0)] * (n - len(named))
    if n is not None and not linear and len(named) > n:
        raise ParameterError(f"--filter {text} has {len(named)} entries, more than the input's "
                             f"{n}")
    return tuple(named)


def _linear_mechanism(group: str, h: tuple[Fraction, ...], spec: DomainSpec, eps: Fraction,
                      delta: Fraction, accounting: str, shape: str, strategy: str, scale: str,
                      ratio_grid: str, n: int) -> Any:
    from exactdp.convolution.linear import LinearConvolutionMechanism, padded_length

    if group != "cyclic":
        raise ParameterError("--linear needs --group cyclic: linear convolution is circular "
                             "convolution on Z_N after zero padding (XOR convolution has no "
                             "such form)")
    big = padded_length(n, len(h))
    if big > MAX_CYCLIC_N:
        raise ResourceLimitError(f"--linear with n = {n} inputs and a filter of {len(h)}: the "
                                 f"padded length N = {big} exceeds {MAX_CYCLIC_N} (the exact "
                                 f"set-up takes O(N^3) operations)")
    if not any(h):
        raise ParameterError("--filter is all zeros: h * x = 0 needs no release")
    return LinearConvolutionMechanism(list(h), spec.build(n), strategy=strategy,
                                      scale=positive_int(scale, "--scale"), epsilon=eps,
                                      delta=delta, accounting=accounting, shape=shape,
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


def gaussian_mechanism(args: argparse.Namespace, h: tuple[Fraction, ...], spec: DomainSpec,
                       eps: Fraction, delta: Fraction) -> Any:
    """The calibrated discrete Gaussian mechanism of ``--noise gaussian`` (public data only)."""
    from exactdp.cli.conv_gaussian import build_gaussian

    if args.group == "cyclic" and len(h) > MAX_CYCLIC_N:
        raise ResourceLimitError(f"--group cyclic with N = {len(h)}: at most N = "
                                 f"{MAX_CYCLIC_N} (use --group xor for large N)")
    if not any(h):
        raise ParameterError("--filter is all zeros: h * x = 0 needs no release")
    return build_gaussian(args.group, h, spec.build(len(h)), eps, delta, args.shape,
                          args.strategy, args.scale)


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
    from exactdp.spend import Spend, compact

    composition = "the whole release: every noisy Fourier coefficient of one draw"
    d = g["delta_at_e_eps"]
    if d is None:
        return Spend(Fraction(1), g["pure_ratio"], requested=eps, composition=composition,
                     meaning="not certified at (eps, delta): the exact pure spend ln R, R the "
                             "worst ratio over neighbours")
    return Spend(eps, delta=d[1], requested=eps, composition=composition,
                 meaning=f"the paper's (eps, delta) target, met: delta here is a certified "
                         f"upper bound on the exact delta(e^eps), at most --delta "
                         f"{compact(g['delta'])} "
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
    p.add_argument("--linear", action="store_true",
                   help="linear convolution by zero padding (cyclic)")
    p.add_argument("--noise", default="geometric", choices=("geometric", "gaussian"),
                   metavar="K", help="geometric (default) or gaussian (discrete Gaussian)")
    p.add_argument("--seed", help="reproducible noise for examples (NOT for releases)")
    add_random_source(p)
    p.add_argument("--mse-at-input", action="store_true",
                   help="also the exact MSE at this x (private: NOT covered)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_json(p)
    add_output(p, "the release as JSON")
    add_input_limit(p)
    p.set_defaults(func=cmd_convolve)


#: Nanoseconds per (N x noisy coefficients) of the exact privacy check: its profile reads
#: every coefficient's shift in every column (measured: 22 s of CPU at N = 2^14 with 2^13
#: noisy coefficients, 170 ns each; 200 rounds it up).
CHECK_NS_PER_CELL = 200


def release_ns(mech: Any) -> int:
    """About how many nanoseconds one release's noise takes: up to 8 of the noise classes
    timed with a throwaway seeded source (never released): the first draw (which builds the
    class's sampler) once, then the fastest of two more draws once per row of the class;
    scaled to every class."""
    noise = mech.noise
    classes = len(noise.class_rows)
    picked = sorted({k * classes // 8 for k in range(8)} & set(range(classes)))
    trial = seeded_source(0)
    ns = 0
    for k in picked:
        start = time.perf_counter_ns()
        s = noise.fast_sampler(k)
        centre = s.lo + (s.hi - s.lo) // 2
        s.sample_many([centre], trial)
        first = time.perf_counter_ns() - start
        warm = per_call_ns(functools.partial(s.sample_many, [centre], trial), 2)
        ns += max(0, first - warm) + len(noise.class_rows[k]) * warm
    return ns * classes // max(1, len(picked))


def cmd_convolve(args: argparse.Namespace) -> int:
    from exactdp.randomness import RandomSource
    from exactdp.spend import compact

    def say(message: str) -> None:
        if not args.quiet and not args.json:
            progress(message)

    start = time.perf_counter()
    out = output_path(args)  # before anything is read or drawn
    eps, delta = _epsilon_delta(args)
    spec = parse_domain(args.domain)
    limit = input_limit(args)
    x = read_vector(args.file, limit)
    h = read_filter(args.filter, limit, len(x), args.linear)
    if len(x) != len(h) and not args.linear:
        raise DomainError(f"input {args.file!r} has {len(x)} entries but --filter has "
                          f"{len(h)}; they must have the same length N (or use --linear)")
    why = spec.contains(x)
    if why is not None:
        raise DomainError(f"input {args.file!r}: {why}: outside the public --domain "
                          f"{args.domain} (the domain must hold for every possible input; "
                          f"widen it)")
    gaussian = args.noise == "gaussian"
    if gaussian:
        from exactdp.cli.conv_gaussian import (
            check_gaussian_options,
            gaussian_guarantee,
            gaussian_release_ns,
        )

        check_gaussian_options(args)
    limit = max_seconds(args)
    # The exact privacy check reads every noisy coefficient's shift in every column: up to N
    # of them (refused here at the worst), then exactly as many as the calibration keeps.
    n = len(x) + len(h) - 1 if args.linear else len(h)
    refuse_if_slow(f"the exact privacy check at N = {n} (up to {n} noisy coefficients)",
                   n * n * CHECK_NS_PER_CELL, limit, "use a smaller N")
    if gaussian:
        mech = gaussian_mechanism(args, h, spec, eps, delta)
    else:
        mech = build_mechanism(args.group, h, spec, eps, delta, args.accounting, args.shape,
                               args.strategy, args.scale, args.ratio_grid,
                               len(x) if args.linear else None)
    check_ns = n * len(mech.rows) * CHECK_NS_PER_CELL
    noise_ns = gaussian_release_ns(mech) if gaussian else release_ns(mech)
    refuse_if_slow(f"the exact privacy check ({duration(check_ns)}) and drawing the noise "
                   f"({duration(noise_ns)}) of {len(mech.rows)} coefficients at N = {n}",
                   check_ns + noise_ns, limit, "use a smaller --domain or N")
    g = (gaussian_guarantee(mech, eps, delta) if gaussian
         else guarantee(mech, eps, delta, args.accounting))
    mse_bound = mech.mse_bound()  # before drawing: nothing may fail after it
    eq5 = _eq5(mech, args.group, eps, delta)
    say(f"calibrated in {time.perf_counter() - start:.1f} s: {len(mech.rows)} noisy "
        f"coefficients, " + ("discrete Gaussian noise" if gaussian else
                             f"pure ratio {_dec(g['pure_ratio'])}"))
    if g["within_target"] is False:
        dl = g["delta_at_e_eps"][0]
        progress(f"exactdp convolve: refused: with --accounting {args.accounting} the exact "
                 f"delta at e^{eps} is at least {_dec(dl, 9)} > --delta {compact(delta)} (the "
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
        "linear": bool(args.linear),
        "strategy": getattr(mech, "strategy_name", "walsh"),
        "N": mech.N,
        "domain": spec.describe(),
        "filter": list(h),
        "shape": args.shape,
        "ratio_grid": args.ratio_grid,
        "noise": args.noise,
        "noisy_coefficients": len(release.coefficients),
        "ratios": list(mech.ratios),
        "guarantee": g,
        "spent": convolution_spend(g, eps).to_json(),
        "mse": {"bound_every_x": mse_bound, "paper_eq5_interval": eq5},
        "y": list(release.y),
        "seeded": args.seed is not None,
    }
    if gaussian:
        payload["sigma2"] = list(mech.sigma2s)
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
    lines = [
        (f"# exact private {'linear (zero-padded) ' if args.linear else ''}{args.group} "
         f"convolution ({payload['mechanism']}, strategy "
         f"{payload['strategy']}), N = {mech.N}, {payload['noisy_coefficients']} noisy "
         f"coefficients, domain {payload['domain']}"),
        f"# accounting {g['accounting']} (used: {g['accounting_used']})"
        + ("  ** UNSOUND: the paper's Theorem 4 as printed **" if not g["sound"] else ""),
    ]
    if g["pure_ratio"] is None:
        lines.append(f"# noise: discrete Gaussian, sigma^2 per coefficient in "
                     f"[{_q(min(payload['sigma2']))}, {_q(max(payload['sigma2']))}]; no pure "
                     f"ratio (the truncated noise has outputs a neighbour cannot produce)")
    else:
        lo, hi = g["pure_epsilon_interval"]
        lines.append(f"# pure ratio {_q(g['pure_ratio'])} (pure eps in {_iv(lo, hi, 6)})")
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


COMMANDS = [_add_convolve]
