"""``exactdp histogram | query``: releasing histograms (Sections 5, 6, 8) and reading compact releases."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from exactdp.cli._common import add_output, output_path, progress as _progress, write_json as _write_json



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
    add_output(p, "the release (instead of stdout)")
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
    out = output_path(args)
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
        return _compact_histogram(args, universe, data, fmt, source, say, start, out)
    req = ReleaseRequest(universe, epsilon, beta, delta, args.counting, progress)
    report = release(args.algorithm, req, data, source, labels=(fmt == "strings"))
    report["input"] = {"file": args.file, "format": fmt, "rows": str(data.n)}
    report["seeded"] = args.seed is not None
    if report["fallback"]:
        say(f"note: {report['fallback']}")
    for note in report["notes"]:
        say(f"note: {note}")
    _write_json(report, out)
    say(f"released {len(report['histogram'])} bins in {time.perf_counter() - start:.1f} s")
    return 0


def _compact_histogram(args: argparse.Namespace, universe: Any, data: Any, fmt: str,
                       source: Any, say: Callable[[str], None], start: float,
                       out: Any) -> int:
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
    _write_json(report, out)
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




COMMANDS = [_add_histogram, _add_query]
