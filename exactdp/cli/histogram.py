"""``exactdp histogram | query``: releasing histograms (Sections 5, 6, 8) and reading releases."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from exactdp.cli._common import (
    DEFAULT_MAX_SECONDS,
    EPILOG,
    NS,
    add_input_limit,
    add_max_seconds,
    add_output,
    draw_ns,
    duration,
    input_limit,
    max_seconds,
    output_path,
    per_call_ns,
    refuse_if_slow,
    seeded_source,
)
from exactdp.cli._common import progress as _progress
from exactdp.cli._common import write_json as _write_json
from exactdp.cli.histogram_sources import add_source_arguments, read_source
from exactdp.cli.random_source import add_random_source, release_source_of

_GUARANTEE = (
    "--epsilon is the budget of the whole released histogram, any exact rational in (0, 1]: "
    "the release uses the paper's eps = 1/m, the largest 1/m <= --epsilon, and states its "
    "exact spend under 'spent'. basic, pure-sparse and compact are (eps, 0)-DP, stability "
    "(eps, delta)-DP, for datasets of the same public size n that differ in one row. With "
    "probability at least 1 - beta a count is within the release's 'per_query' error.")
_INTEGRITY = (
    "A release file carries a SHA-256 digest that 'exactdp query' checks with every field "
    "derived from the public parameters: it detects corruption and editing; it is not an "
    "authentication.")


def _add_histogram(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from exactdp.histograms.release import ALGORITHMS, COUNTING

    p = sub.add_parser(
        "histogram", help="release a differentially private histogram of a file",
        epilog=EPILOG,
        description="Release a DP histogram of FILE (one element per line) as JSON, with the "
                    "exact parameters, the guarantees (Figures 3-6) and the lower bounds "
                    "(Theorems 7.1, 7.2). " + _GUARANTEE + " Algorithms: basic (Alg 5.1, "
                    "small M), stability (Alg 5.4), pure-sparse (Alg 6.9, time polynomial in "
                    "log M; when M < 2n + 1 it falls back to BasicHistogram and says so), "
                    "compact (Alg 8.2: every element, read with 'exactdp query'). "
                    + _INTEGRITY)
    p.add_argument("file", metavar="FILE",
                   help="UTF-8, one element per line ('-': stdin)")
    p.add_argument("--algorithm", required=True, choices=sorted([*ALGORITHMS, "compact"]),
                   metavar="A", help="basic, compact, pure-sparse or stability")
    p.add_argument("--universe-size", required=True, metavar="M",
                   help="the universe [1, M]: 1000, 1e6, 2^64 (at most 2^4096)")
    p.add_argument("--epsilon", required=True, metavar="E",
                   help="the privacy budget of the whole release, in (0, 1]")
    p.add_argument("--delta", metavar="D",
                   help="stability only: delta = 1/m below 1, e.g. 1/1000000")
    p.add_argument("--beta", default="1/20", metavar="B",
                   help="accuracy failure probability (default 1/20)")
    p.add_argument("--counting", choices=COUNTING, default="fastsample", metavar="C",
                   help="fastsample (default) or geosample")
    p.add_argument("--format", "--input-format", dest="format", default="auto",
                   choices=("auto", "integers", "labels", "strings"), metavar="F",
                   help="integers, labels or auto (default)")
    p.add_argument("--skip-blank-lines", action="store_true",
                   help="ignore blank lines (by default an error)")
    p.add_argument("--seed", help="reproducible noise for examples (NOT for releases)")
    add_random_source(p)
    add_output(p, "the release")
    add_input_limit(p)
    add_source_arguments(p)
    add_max_seconds(p, what=f"refuse releases estimated to take longer than S seconds "
                            f"(default {DEFAULT_MAX_SECONDS})")
    p.add_argument("--quiet", action="store_true",
                   help="no progress on stderr (notes are still printed)")
    p.set_defaults(func=_cmd_histogram)


def _cmd_histogram(args: argparse.Namespace) -> int:
    from exactdp.files import read_text
    from exactdp.histograms.data import Universe
    from exactdp.histograms.release import (
        ReleaseRequest,
        parse_universe_size,
        read_dataset,
        release,
    )
    from exactdp.histograms.release_file import seal, spent_of
    from exactdp.params import ParameterError, inverse_integer
    from exactdp.randomness import RandomSource
    from exactdp.spend import budget, histogram_m_for_budget

    def say(message: str) -> None:
        if not args.quiet:
            _progress(message)

    start = time.perf_counter()
    out = output_path(args)  # before anything is read or drawn
    universe = Universe(parse_universe_size(args.universe_size))
    total = budget(args.epsilon, "--epsilon")
    histogram_m_for_budget(total, None)  # the range's top, before anything is read
    beta = inverse_integer(args.beta, "--beta", below_one=True)
    delta = None
    if args.delta is not None:
        if args.algorithm != "stability":
            raise ParameterError(f"--delta applies to stability only: {args.algorithm} is "
                                 f"(epsilon, 0)-DP and takes no delta")
        delta = inverse_integer(args.delta, "--delta", below_one=True)
    elif args.algorithm == "stability":
        raise ParameterError("stability is (epsilon, delta)-DP: pass --delta (1/m below 1, "
                             "e.g. 1/1000000)")
    loaded = read_source(args, universe, input_limit(args), say)
    if loaded is not None:
        data, fmt = loaded
    else:
        name = "standard input" if args.file == "-" else repr(args.file)
        _check_read_cost(args, universe)
        text = read_text(args.file, "input", input_limit(args))
        data, fmt = read_dataset(text, universe, args.format,
                                 skip_blank_lines=args.skip_blank_lines, where=f"input {name}")
    say(f"read {data.n} rows as {fmt} in {time.perf_counter() - start:.1f} s; releasing "
        f"with {args.algorithm} over a universe of size {universe.size}")

    epsilon = _paper_epsilon(args, universe, total, beta, delta, data.n)
    last = [-1]

    def progress(done: int, total: int) -> None:
        tenth = 10 * done // total
        if total >= 10_000 and tenth != last[0]:
            last[0] = tenth
            say(f"  noisy counts: {done}/{total} ({100 * done // total}%) "
                f"{time.perf_counter() - start:.1f} s")

    _check_cost(args, universe, epsilon, beta, delta, data)
    source: RandomSource
    if args.seed is not None:
        source = seeded_source(args.seed)
    else:
        source = release_source_of(args)
    report: dict[str, Any]
    if args.algorithm == "compact":
        report = _compact_report(args, universe, epsilon, beta, data, source, say)
    else:
        req = ReleaseRequest(universe, epsilon, beta, delta, args.counting, progress)
        report = release(args.algorithm, req, data, source, labels=(fmt == "labels"))
        if report["fallback"]:
            _progress(f"note: {report['fallback']}")
        for note in report["notes"]:
            _progress(f"note: {note}")
    report["spent"] = spent_of(report, total)
    report["input"] = {"file": args.file, "format": fmt, "rows": str(data.n)}
    report["seeded"] = args.seed is not None
    _write_json(seal(report), out)
    if args.seed is not None:  # printed even with --quiet: it changes what the output means
        _progress("warning: --seed made the noise predictable (the release records seeded: "
                  "true); never publish these values")
    say(f"released in {time.perf_counter() - start:.1f} s"
        + ("; query it with: exactdp query FILE X ..." if out is not None else ""))
    return 0


def _paper_epsilon(args: argparse.Namespace, universe: Any, total: Any, beta: Any,
                   delta: Any, n: int) -> Any:
    """The paper's ``eps = 1/m`` for the budget ``total``: the largest ``1/m <= total``
    whose counting mechanism stays within the integer size limit (else refused, naming the
    smallest budget that fits)."""
    from fractions import Fraction

    from exactdp.counting import FastSample, GeoSample
    from exactdp.histograms.release import ReleaseRequest, plan
    from exactdp.spend import histogram_m_for_budget

    mech: Any
    if args.algorithm == "compact":  # M runs at eps' = 1/ceil(10 m / 9) (Theorem 8.6)
        mech = (FastSample(n, Fraction(1, 2), beta / (2 * universe.size))
                if args.counting == "fastsample" else GeoSample(n, Fraction(1, 2)))
    else:
        mech = plan(args.algorithm, ReleaseRequest(universe, Fraction(1), beta, delta,
                                                   args.counting), n).mechanism
    if isinstance(mech, FastSample):
        cap = FastSample.largest_m(mech.n, mech.gamma)
    else:
        k = GeoSample.largest_k(mech.n)
        cap = 1 << (k - 1) if k >= 1 else 0
    if args.algorithm == "compact":
        cap = 9 * cap // 10
    return Fraction(1, histogram_m_for_budget(total, cap))


def _check_cost(args: argparse.Namespace, universe: Any, epsilon: Any, beta: Any,
                delta: Any, data: Any) -> None:
    """Refuse, before any noise is drawn, a release estimated to run past --max-seconds.

    The estimate is the number of noisy counts the algorithm draws (basic: one per element
    of ``X``; stability: ``n``, padded to strict time; pure-sparse and compact: about ``n``)
    times the time of one draw of its counting mechanism, measured with a throwaway seeded
    source (never released), plus, for compact, the interpolation at a measured rate (about 8 s for n = 10^4 on the native path,
    growing as n^1.6; pure Python about an hour, growing as n^2)."""

    from exactdp.histograms import native
    from exactdp.histograms.compact import CompactHistogram
    from exactdp.histograms.release import ReleaseRequest, plan
    from exactdp.params import ResourceLimitError, positive_int

    limit = positive_int(args.max_seconds, "--max-seconds")
    n = data.n
    extra = 0
    if args.algorithm == "compact":
        build = (CompactHistogram.theorem_8_6(universe, n, epsilon, beta)
                 if args.counting == "fastsample"
                 else CompactHistogram.with_geosample(universe, n, epsilon))
        mech, draws = build.mechanism, n + 1
        # 7.9 s * (n/10^4)^1.6 = 7.9 s * (n^8 10^8)^(1/5) / 10^8; pure: 3600 s * (n/10^4)^2.
        extra = (79 * NS // 10 * _iroot5(n**8 * 10**8) // 10**8
                 if native.available() else 3600 * NS * n * n // 10**8)
    else:
        p = plan(args.algorithm, ReleaseRequest(universe, epsilon, beta, delta,
                                                args.counting), n)
        mech = p.mechanism
        if p.released_by == "BasicHistogram":
            draws = universe.size
        elif args.algorithm == "stability":
            draws = n  # padded to strict time (the plan's default): n draws whatever the data
        else:
            draws = 2 * n + 1
    per_draw = draw_ns(mech, 0)
    total = draws * per_draw + extra
    if total > limit * NS:
        raise ResourceLimitError(
            f"this release would take about {duration(total)} ({draws} noisy counts at "
            f"{per_draw // 1000} microseconds each"
            + (f", interpolation about {duration(extra)}" if extra else "")
            + f"), over --max-seconds {limit}; use a smaller universe or another algorithm "
              f"(pure-sparse and compact cost about n draws), or pass --max-seconds "
              f"{2 * total // NS + 1} to run it anyway")


#: The prefix of an input file timed to estimate the reading of the whole.
_SAMPLE_BYTES = 1 << 18


def _check_read_cost(args: argparse.Namespace, universe: Any) -> None:
    """Refuse, before reading it, an input file estimated to take past --max-seconds to
    parse: its size times the time of parsing its first 256 KiB (cut at a line end).  A
    prefix that does not parse says nothing here: the whole read reports it."""
    import os

    from exactdp.histograms.datafile import read_dataset
    from exactdp.params import ExactDPError

    if args.file == "-" or not os.path.isfile(args.file):
        return
    size = os.path.getsize(args.file)
    if size <= 4 * _SAMPLE_BYTES:
        return
    with open(args.file, "rb") as fh:
        head = fh.read(_SAMPLE_BYTES)
    head = head[: head.rfind(b"\n") + 1]
    if not head:
        return
    try:
        text = head.decode("utf-8")
        ns = per_call_ns(lambda: read_dataset(text, universe, args.format,
                                              skip_blank_lines=args.skip_blank_lines), calls=1)
    except (ExactDPError, UnicodeDecodeError):
        return
    refuse_if_slow(f"reading {size} bytes of input", ns * size // len(head),
                   max_seconds(args), "use a smaller input file")


def _iroot5(x: int) -> int:
    """``floor(x^(1/5))`` for an int ``x >= 0`` (exact: gmpy2's integer root)."""
    import gmpy2

    return int(gmpy2.iroot(gmpy2.mpz(x), 5)[0])


def _compact_report(args: argparse.Namespace, universe: Any, epsilon: Any, beta: Any,
                    data: Any, source: Any, say: Any) -> dict[str, Any]:
    """``histogram --algorithm compact``: the CompactRelease JSON (Theorem 8.6)."""
    from exactdp.histograms import native
    from exactdp.histograms.compact import release_report

    say(f"interpolating a polynomial of degree {data.n}; arithmetic: {native.status()}"
        + ("" if native.available() else f" -- pure Python, about {data.n}^2 field operations"))
    return release_report(universe, epsilon, beta, args.counting, data, source)


# --------------------------------------------------------------------------- query

def _add_query(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "query", help="released noisy counts of elements, from a release file",
        epilog=EPILOG,
        description="Load RELEASED.json (written by 'exactdp histogram'), check it and print "
                    "the released noisy count of each element X: for compact, h_x = "
                    "M0(T(p(x))) (Algorithm 8.2); for basic, stability and pure-sparse, the "
                    "listed count (0 for an element a sparse release does not list). "
                    + _INTEGRITY + " X is read the way the release's input was: as an "
                    "integer in [1, M] if the release records the format 'integers' (then "
                    "'-1' or '05' is an error, not a label), as a label if 'labels'.")
    p.add_argument("released", metavar="RELEASED.json",
                   help="a release file written by 'exactdp histogram' ('-': stdin)")
    p.add_argument("elements", nargs="+", metavar="X",
                   help="elements: integers in [1, M] or labels, as the release records")
    p.add_argument("--format", choices=("integers", "labels"),
                   help="how to read X for a release that records no input format (one made "
                        "with the Python API; default integers); with a release that records "
                        "one, a different --format is an error")
    p.add_argument("--json", action="store_true", help="print JSON only, on stdout")
    add_input_limit(p)
    add_max_seconds(p)
    p.set_defaults(func=_cmd_query)


def _cmd_query(args: argparse.Namespace) -> int:
    import re

    import gmpy2

    from exactdp.histograms.data import encode_label
    from exactdp.histograms.release_loader import load_release
    from exactdp.params import DomainError, ParameterError

    loaded = load_release(args.released, input_limit(args))
    recorded = loaded.recorded_format
    if recorded is not None and args.format is not None and args.format != recorded:
        raise ParameterError(f"--format {args.format}: the release records that its input "
                             f"was read as {recorded}, so X are read as {recorded} too")
    fmt = recorded or args.format or "integers"
    size = loaded.universe_size
    width = len(gmpy2.mpz(size).digits(10))
    plain = re.compile(r"[1-9][0-9]*", re.ASCII)
    parsed = []
    for e in args.elements:
        shown = e if len(e) <= 40 else e[:37] + "..."
        if fmt == "integers":
            if not plain.fullmatch(e):
                raise ParameterError(f"X = {shown!r} is not a plain decimal integer in [1, M] "
                                     f"(ASCII digits, no sign, spaces or leading zeros); this "
                                     f"release's elements are integers")
            if len(e) > width or int(gmpy2.mpz(e)) > size:
                raise DomainError(f"X = {shown} is outside the universe [1, M] with M = "
                                  f"{size}")
            x = int(gmpy2.mpz(e))
        else:
            try:
                e.encode("utf-8")
            except UnicodeEncodeError:
                raise ParameterError(f"X = {shown!r} is not valid UTF-8 text") from None
            x = encode_label(e, size)
        parsed.append((e, x))
    _check_query_cost(loaded, [x for _, x in parsed], max_seconds(args))
    rows = [(e, x, loaded.count(x)) for e, x in parsed]
    if args.json:
        print(json.dumps([{"element": e, "x": str(x), "count": str(c)} for e, x, c in rows],
                         indent=2))
    else:
        # One write: a row that stdout cannot encode fails before any row is printed.
        sys.stdout.write("".join(f"{e}\t{c}\n" for e, _, c in rows))
    sys.stdout.flush()
    return 0


def _check_query_cost(loaded: Any, xs: list[int], limit: int) -> None:
    """Refuse, before the answers, queries estimated past ``limit`` seconds: the first
    element's count (which may build a table once) plus the time of one more count times the
    number of elements (a compact release evaluates a polynomial of degree n per element)."""
    first = per_call_ns(lambda: loaded.count(xs[0]), calls=1)
    again = per_call_ns(lambda: loaded.count(xs[0]))
    refuse_if_slow(f"counting {len(xs)} element(s) of the release", first + len(xs) * again,
                   limit, "query fewer elements at a time")


COMMANDS = [_add_histogram, _add_query]
