"""The ``exactdp`` command.

Sub-commands each live in one ``_cmd_<name>`` function registered in ``_COMMANDS`` by an
``_add_<name>`` function that declares its arguments.  Every command that prints results
accepts ``--json`` (numbers as exact decimal strings and "p/q"); errors in user input
print one line to stderr and exit with status 2; failed verifications exit with 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from exactdp.certificate import ClaimReport
from exactdp.params import ExactDPError

__all__ = ["main"]


def _progress(message: str, stream: TextIO | None = None) -> None:
    out = sys.stderr if stream is None else stream
    print(message, file=out, flush=True)


def _write_json(payload: Any, path: str | None) -> None:
    text = json.dumps(payload, indent=2)
    if path is None or path == "-":
        print(text)
    else:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")


# --------------------------------------------------------------------------- verify

def _add_verify(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "verify",
        help="check every claim in proofs/ exactly on the implementation",
        description="Run every executable proof in proofs/ (one per theorem/lemma of the "
                    "papers) on its parameter grid and print one row per claim: the grid "
                    "covered, the worst exact value found against the claimed bound, the "
                    "verdict and the time taken. Exit status 1 if any claim fails.")
    grid = p.add_mutually_exclusive_group()
    grid.add_argument("--quick", action="store_true",
                      help="the small grids (default; about two minutes at most)")
    grid.add_argument("--full", action="store_true", help="the full exhaustive grids")
    p.add_argument("--json", metavar="PATH",
                   help="also write all certificates as JSON to PATH ('-' for stdout)")
    p.add_argument("--only", metavar="TEXT",
                   help="run only the proof modules whose name or claim contains TEXT")
    p.set_defaults(func=_cmd_verify)


def _cmd_verify(args: argparse.Namespace) -> int:
    import proofs

    full = bool(args.full)
    checks = [(module, fn) for module in proofs.discover() for fn in proofs.checks_of(module)]
    if args.only:
        needle = args.only.lower()
        checks = [(m, fn) for m, fn in checks
                  if needle in m.__name__.lower() or needle in str(getattr(m, "CLAIM", "")).lower()]
    rows: list[tuple[ClaimReport, float]] = []
    grid_name = "full" if full else "quick"
    from exactdp.histograms import native
    _progress(f"exactdp verify ({grid_name} grids): {len(checks)} claims; CompactHistogram "
              f"arithmetic: {native.status()}"
              + (" (Theorem 8.3 (i) also runs the pure path)" if native.available() else ""))
    for i, (module, fn) in enumerate(checks, 1):
        _progress(f"[{i}/{len(checks)}] {module.CLAIM} ...")
        start = time.perf_counter()
        report: ClaimReport = fn(full)
        seconds = time.perf_counter() - start
        rows.append((report, seconds))
        _progress(f"[{i}/{len(checks)}] {report.claim}: "
                  f"{'pass' if report.verdict else 'FAIL'} ({seconds:.1f} s)")
    _print_table(rows)
    if args.json:
        _write_json({"grid": grid_name,
                     "claims": [dict(r.to_json(), seconds=f"{s:.3f}") for r, s in rows]},
                    args.json)
    failed = [r.claim for r, _ in rows if not r.verdict]
    if failed:
        print(f"\n{len(failed)} claim(s) FAILED: " + "; ".join(failed))
        return 1
    print(f"\nall {len(rows)} claims pass")
    return 0


def _print_table(rows: Sequence[tuple[ClaimReport, float]]) -> None:
    """One block per claim: verdict, seconds and claim; then the grid covered, and the worst
    exact value found against the bound."""
    print(f"{'verdict':8} {'seconds':>8}  claim")
    print("-" * 78)
    for r, s in rows:
        print(f"{'pass' if r.verdict else 'FAIL':8} {s:8.1f}  {r.claim}")
        print(f"{'':18}grid:  {r.grid}")
        print(f"{'':18}worst: {r.worst}")
        print(f"{'':18}bound: {r.bound}")


# --------------------------------------------------------------------------- counting

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


# --------------------------------------------------------------------------- histogram

def _add_histogram(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from exactdp.histograms.release import ALGORITHMS, COUNTING

    p = sub.add_parser(
        "histogram", help="release a differentially private histogram of a file",
        description="Release a DP histogram of FILE (one element per line: integers in "
                    "[1, M], or string labels coded injectively into [1, M]) as JSON sorted "
                    "by element, with the exact parameters, the accuracy guarantees that "
                    "apply (Figures 3-5) and the lower bounds (Theorems 7.1, 7.2). "
                    "basic = BasicHistogram over all of X (Alg 5.1; small universes); "
                    "stability = StabilityHistogram (Alg 5.4, Theorem 5.6; needs --delta); "
                    "pure-sparse = PureSparseHistogram (Alg 6.9, Theorem 6.11; falls back to "
                    "BasicHistogram when |X| < 2n+1, and says so); "
                    "compact = CompactHistogram (Alg 8.2, Theorem 8.6): a dense histogram "
                    "over all of X held as a polynomial, written as validated exact JSON; "
                    "read counts from it with 'exactdp query'.")
    p.add_argument("file", metavar="FILE", help="input file, one element per line ('-': stdin)")
    p.add_argument("--algorithm", required=True, choices=sorted([*ALGORITHMS, "compact"]))
    p.add_argument("--universe-size", required=True, metavar="M",
                   help="the universe is [1, M]; e.g. 18446744073709551616 or 2^64")
    p.add_argument("--epsilon", required=True, help="privacy parameter 1/m, e.g. '1/10'")
    p.add_argument("--delta", help="stability only: delta = 1/m, e.g. '1/1000000'")
    p.add_argument("--beta", default="1/20",
                   help="failure probability beta0 = 1/m of the accuracy guarantees and "
                        "of the parameter choices (default 1/20)")
    p.add_argument("--counting", choices=COUNTING, default="fastsample",
                   help="the counting mechanism M (default fastsample)")
    p.add_argument("--input-format", choices=("auto", "integers", "strings"), default="auto",
                   help="auto: integers if every line is one, else every line is a label")
    p.add_argument("--seed", help="reproducible noise for examples (NOT for releases)")
    p.add_argument("--output", metavar="PATH", help="write the JSON here instead of stdout")
    p.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    p.set_defaults(func=_cmd_histogram)


def _cmd_histogram(args: argparse.Namespace) -> int:
    from exactdp.histograms.data import Universe
    from exactdp.histograms.release import (
        ReleaseRequest,
        parse_universe_size,
        read_dataset,
        release,
    )
    from exactdp.params import ParameterError, inverse_integer
    from exactdp.randomness import RandomSource, SeededSource, SystemSource

    def say(message: str) -> None:
        if not args.quiet:
            _progress(message)

    start = time.perf_counter()
    universe = Universe(parse_universe_size(args.universe_size))
    epsilon = inverse_integer(args.epsilon, "epsilon")
    beta = inverse_integer(args.beta, "beta")
    delta = None if args.delta is None else inverse_integer(args.delta, "delta")
    try:
        if args.file == "-":
            data, fmt = read_dataset(sys.stdin, universe, args.input_format)
        else:
            with open(args.file, encoding="utf-8") as fh:
                data, fmt = read_dataset(fh, universe, args.input_format)
    except OSError as exc:
        raise ParameterError(f"cannot read {args.file!r}: {exc.strerror}") from None
    say(f"read {data.n} rows ({fmt}) in {time.perf_counter() - start:.1f} s; releasing "
        f"with {args.algorithm} over a universe of size {universe.size}")

    last = [-1]

    def progress(done: int, total: int) -> None:
        tenth = 10 * done // total
        if total >= 10_000 and tenth != last[0]:
            last[0] = tenth
            say(f"  noisy counts: {done}/{total} ({100 * done // total}%) "
                f"{time.perf_counter() - start:.1f} s")

    source: RandomSource
    if args.seed is not None:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            source = SeededSource(args.seed)
        say("warning: --seed makes the noise predictable; never release these values")
    else:
        source = SystemSource()
    if args.algorithm == "compact":
        return _compact_histogram(args, universe, data, fmt, source, say, start)
    req = ReleaseRequest(universe, epsilon, beta, delta, args.counting, progress)
    report = release(args.algorithm, req, data, source, labels=(fmt == "strings"))
    report["input"] = {"file": args.file, "format": fmt, "rows": str(data.n)}
    report["seeded"] = args.seed is not None
    if report["fallback"]:
        say(f"note: {report['fallback']}")
    for note in report["notes"]:
        say(f"note: {note}")
    _write_json(report, args.output)
    say(f"released {len(report['histogram'])} bins in {time.perf_counter() - start:.1f} s")
    return 0


def _compact_histogram(args: argparse.Namespace, universe: Any, data: Any, fmt: str,
                       source: Any, say: Callable[[str], None], start: float) -> int:
    """``histogram --algorithm compact``: the CompactRelease JSON (Theorem 8.6)."""
    from exactdp.histograms.compact import release_report
    from exactdp.params import ParameterError

    if args.delta is not None:
        raise ParameterError("compact is (epsilon, 0)-DP: --delta does not apply")
    from exactdp.histograms import native
    say(f"interpolating a polynomial of degree {data.n}; arithmetic: {native.status()}"
        + ("" if native.available() else f" -- pure Python, about {data.n}^2 field operations"))
    report = release_report(universe, args.epsilon, args.beta, args.counting, data, source)
    report["input"] = {"file": args.file, "format": fmt, "rows": str(data.n)}
    report["seeded"] = args.seed is not None
    _write_json(report, args.output)
    say(f"released a polynomial over GF(2^{report['field']['degree']}) in "
        f"{time.perf_counter() - start:.1f} s; query it with: exactdp query FILE X ...")
    return 0


# --------------------------------------------------------------------------- query

def _add_query(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "query", help="noisy counts from a released compact histogram",
        description="Load RELEASED.json (written by 'exactdp histogram --algorithm compact'), "
                    "validate every field of it, and print the released noisy count "
                    "h_x = M0(T(p(x))) of each element X (Algorithm 8.2).")
    p.add_argument("released", metavar="RELEASED.json")
    p.add_argument("elements", nargs="+", metavar="X",
                   help="elements of [1, M] (integers) or labels")
    p.add_argument("--input-format", choices=("auto", "integers", "strings"), default="auto",
                   help="auto: integers if every X is one, else every X is a label")
    p.add_argument("--json", action="store_true", help="print JSON instead of lines")
    p.set_defaults(func=_cmd_query)


def _cmd_query(args: argparse.Namespace) -> int:
    import re

    import gmpy2

    from exactdp.histograms.compact import CompactRelease
    from exactdp.histograms.data import encode_label
    from exactdp.params import ParameterError

    try:
        with open(args.released, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise ParameterError(f"cannot read {args.released!r}: {exc.strerror}") from None
    release = CompactRelease.loads(text)
    decimal = re.compile(r"[0-9]+")
    integers = args.input_format == "integers" or (
        args.input_format == "auto" and all(decimal.fullmatch(e) for e in args.elements))
    rows = []
    for e in args.elements:
        if integers and not decimal.fullmatch(e):
            raise ParameterError(f"X = {e!r} is not a decimal integer")
        x = int(gmpy2.mpz(e)) if integers else encode_label(e, release.universe_size)
        rows.append((e, x, release.evaluate(x)))
    if args.json:
        print(json.dumps([{"element": e, "x": str(x), "count": str(c)} for e, x, c in rows],
                         indent=2))
    else:
        for e, _, c in rows:
            print(f"{e}\t{c}")
    return 0


# --------------------------------------------------------------------------- audit

def _add_audit(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "audit", help="audit a third-party DP mechanism (exact white-box or sampling black-box)",
        description="Audit MODULE:CALLABLE (or MODULE:FACTORY(k=literal, ...)) against a "
                    "claimed epsilon on the inputs RANGE (e.g. 0..8; neighbours c and c+1). "
                    "whitebox: the callable is f(c, u) with u in [D]_+ (D from "
                    "--randomness-size or the attribute f.d), or with --source f(c, source) "
                    "drawing from an exactdp RandomSource; its exact distribution on every "
                    "input gives the exact worst privacy-loss ratio p/q with its witness. "
                    "blackbox: the callable is sampler(c); samples are tested against the "
                    "reference (--reference or sampler.reference) with false-alarm probability "
                    "alpha, and the privacy loss is bounded from below. Exit status: 0 no "
                    "violation, 1 violation or mismatch detected, 2 bad arguments, 3 the "
                    "mechanism is broken (raised, hung, left its range).")
    p.add_argument("target", metavar="MODULE:CALLABLE")
    p.add_argument("--kind", required=True, choices=("whitebox", "blackbox"))
    p.add_argument("--claimed-epsilon", required=True, metavar="E", help="e.g. 1/2")
    p.add_argument("--claimed-delta", default="0", metavar="DELTA",
                   help="whitebox: judge (eps, delta)-DP by the hockey-stick divergence")
    p.add_argument("--inputs", required=True, metavar="RANGE", help="e.g. 0..8")
    p.add_argument("--outputs", metavar="RANGE",
                   help="declared outputs (default: f.outputs, else the input range)")
    p.add_argument("--randomness-size", metavar="D",
                   help="whitebox: u in [D]_+ (with --source: bound on the product of the "
                        "draws' domain sizes)")
    p.add_argument("--source", action="store_true",
                   help="whitebox: the callable is f(c, source), drawing from a RandomSource")
    p.add_argument("--monotone", action="store_true",
                   help="whitebox: f(c, u) is non-decreasing in u (allows threshold search "
                        "when D is too large to enumerate)")
    p.add_argument("--reference", metavar="MODULE:CALLABLE",
                   help="reference distributions: an exactdp mechanism or c -> {outcome: p}")
    p.add_argument("--draws", default="10000", metavar="K",
                   help="blackbox: draws per input (default 10000)")
    p.add_argument("--alpha", default="1/100", metavar="A",
                   help="blackbox: false-alarm probability of the audit (default 1/100)")
    p.add_argument("--time-limit", default="10", metavar="S",
                   help="seconds allowed for one call of the mechanism (default 10)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--json", nargs="?", const="-", metavar="PATH",
                   help="write the report as JSON to PATH (default: stdout)")
    p.set_defaults(func=_cmd_audit)


def _cmd_audit(args: argparse.Namespace) -> int:
    from exactdp.audit import blackbox_audit, load_target, parse_range, whitebox_audit
    from exactdp.params import positive_int

    progress = None if args.quiet else _progress
    target = load_target(args.target)
    inputs = parse_range(args.inputs)
    outputs = parse_range(args.outputs) if args.outputs else None
    reference = load_target(args.reference) if args.reference else None
    time_limit = positive_int(args.time_limit, "time-limit")
    report: Any
    if args.kind == "whitebox":
        size = positive_int(args.randomness_size, "randomness-size") \
            if args.randomness_size else None
        report = whitebox_audit(
            target, inputs=inputs, claimed_epsilon=args.claimed_epsilon,
            claimed_delta=args.claimed_delta, kind="source" if args.source else "auto",
            d=None if args.source else size, randomness_size=size if args.source else None,
            outputs=outputs, monotone=True if args.monotone else None, reference=reference,
            time_limit=time_limit, progress=progress)
    else:
        report = blackbox_audit(
            target, inputs=inputs, claimed_epsilon=args.claimed_epsilon,
            draws=positive_int(args.draws, "draws"), alpha=args.alpha, reference=reference,
            outputs=outputs, time_limit=time_limit, progress=progress)
    if args.json:
        _write_json(report.to_json(), args.json)
        if args.json != "-":
            print(report.summary())
    else:
        print(report.summary())
    return int(report.exit_code)


# --------------------------------------------------------------------------- main

_COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [  # type: ignore[type-arg]
    _add_verify,
    _add_distribution,
    _add_sample,
    _add_check,
    _add_histogram,
    _add_query,
    _add_audit,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="exactdp",
        description="Exact-arithmetic differential privacy on finite computers (Balcer & "
                    "Vadhan) with an exact checker. Parameters are exact rationals: write "
                    "epsilon as '1/10', never 0.1.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in _COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # Exact numbers of any length must print and parse: lift CPython's 4300-digit cap on
    # int <-> str conversion (3.11+) for this process.
    sys.set_int_max_str_digits(0)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except ExactDPError as exc:
        print(f"exactdp {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
