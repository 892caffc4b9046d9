"""Reproduce [S] Figure 3 (Aumüller, Lebeda & Pagh): the error distribution of ALP-estimator.

Plain script (not collected by pytest)::

    python tests/benchmarks/alp_figure3.py                        # default run (see --help)
    python tests/benchmarks/alp_figure3.py --queries 1000000      # the paper's 10^6 queries
    python tests/benchmarks/alp_figure3.py --quick                # seconds: a smoke run

Setting ([S] §5, notes ALP.md §4 E1): ``eps = 1``, ``alpha = 3`` (so ``p = 1/5``), collision
probability 0.1, i.e. ``s = 10k`` rows, with exactdp's own ALP: Carter-Wegman hash functions
over the prime after ``2^62``, ``k`` random distinct keys per projection, values ``X`` uniform on
``{0, ..., beta}``; every key of every projection is one query, ``err = estimate(key) - X``.
The paper does not state ``beta``; ``--beta`` (default 1000, ``m = 334``) is the main run and
``--sweep-beta`` a few others.  ``--rows-factor 100`` is the paper's "MAE just under 5 for
``s >= 100k``" remark.

Exact where it can be: each error is a ``Fraction`` (``estimate`` is exact), the histogram is
a ``Counter`` of Fractions, the mean absolute error and the mean are exact Fractions (printed
as decimals), the 90th percentile of ``|err|`` is an exact order statistic (the smallest ``v``
with ``#{|err| <= v} >= 0.9 N``).  The standard deviation is the square root of the exact
variance, computed in floating point only for printing.  Floats appear only here, in the
statistics and the picture (Laplace densities), never in sampling.

Randomness: :class:`~exactdp.randomness.SeededSource` (reproducible; seed ``--seed`` plus the
projection number).  Its NotForReleaseWarning is silenced on purpose: nothing here is released.

Output (``--out``, default ``tests/benchmarks/results/``): ``alp_figure3.json`` (parameters,
command, wall time, statistics, the exact histogram ``"p/q" -> count`` of the main run),
``alp_figure3_hist.csv`` (the main run's errors in unit-width bins) and, when matplotlib is
importable, ``alp_figure3.png`` (density histogram with Laplace(1) and Laplace(6) overlaid and
the 90th percentile marked).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

from exactdp.plot.paper003 import PAPER, error_histogram, exact_stats

RESULTS = Path(__file__).resolve().parent / "results"


# The experiment itself is shared with `exactdp figures --paper 003`.
run = error_histogram


def _dec(q: Fraction, digits: int = 3) -> str:
    """A Fraction rounded to ``digits`` decimals (exact rounding, half away from zero)."""
    scale = 10**digits
    num = abs(q) * scale
    r = int(num + Fraction(1, 2))
    sign = "-" if q < 0 and r else ""
    return f"{sign}{r // scale}.{r % scale:0{digits}d}"


def stats_line(label: str, st: dict[str, Any]) -> str:
    return (f"{label}: N = {st['n']}, MAE = {_dec(st['mae'])}, std = {st['std']:.3f}, "
            f"90th pct |err| = {_dec(st['p90_abs'])}, mean (bias) = {_dec(st['mean'])}")


def stats_json(st: dict[str, Any]) -> dict[str, Any]:
    return {"n": st["n"], "mae": str(st["mae"]), "mae_decimal": _dec(st["mae"], 4),
            "mean": str(st["mean"]), "mean_decimal": _dec(st["mean"], 4),
            "variance": str(st["variance"]), "std": round(st["std"], 4),
            "p90_abs": str(st["p90_abs"]), "p90_abs_decimal": _dec(st["p90_abs"], 4)}


def write_csv(hist: Counter[Fraction], path: Path) -> None:
    """Unit-width bins ``[j - 1/2, j + 1/2)`` of the errors: ``center,count``."""
    bins: Counter[int] = Counter()
    for e, c in hist.items():
        bins[math.floor(e + Fraction(1, 2))] += c
    lines = ["bin_center,count"] + [f"{j},{bins[j]}" for j in sorted(bins)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def plot(hist: Counter[Fraction], st: dict[str, Any], facts: dict[str, Any], path: Path) -> bool:
    """The Figure-3 picture, if matplotlib is importable; returns whether it was written."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    n = st["n"]
    bins: Counter[int] = Counter()
    for e, c in hist.items():
        bins[math.floor(e + Fraction(1, 2))] += c
    lo, hi = -40, 60
    xs = list(range(lo, hi + 1))
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.bar(xs, [bins[x] / n for x in xs], width=1.0, color="#9ecae1", edgecolor="#6baed6",
           label=f"ALP error (exactdp), N = {n}")
    grid = [lo + i * (hi - lo) / 1000 for i in range(1001)]
    for b, style in ((1, "-"), (6, "--")):
        ax.plot(grid, [math.exp(-abs(t) / b) / (2 * b) for t in grid], "k" + style,
                linewidth=1.2, label=f"Laplace({b}) density")
    p90 = float(st["p90_abs"])
    for sgn in (-1, 1):
        ax.axvline(sgn * p90, color="#d62728", linewidth=1,
                   label="90th percentile of |err|" if sgn == 1 else None)
    ax.set_xlim(lo, hi)
    ax.set_xlabel("estimate - x")
    ax.set_ylabel("fraction of queries")
    ax.set_title(f"ALP, eps = 1, alpha = 3, s = {facts['rows_factor']}k, beta = "
                 f"{facts['beta']} (m = {facts['m']}): MAE {_dec(st['mae'], 2)}, "
                 f"std {st['std']:.1f}", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: beta 100, 2000 queries, no sweep (nothing written unless "
                         "--out is given)")
    ap.add_argument("--beta", type=int, default=1000, help="main run's beta (default 1000)")
    ap.add_argument("--queries", type=int, default=100_000, help="main run's queries")
    ap.add_argument("--k", type=int, default=1000, help="keys per projection (default 1000)")
    ap.add_argument("--rows-factor", type=int, default=10, help="s = rows_factor * k")
    ap.add_argument("--sweep-beta", type=int, nargs="*", default=[30, 100, 300],
                    help="extra betas at s = 10k (default 30 100 300)")
    ap.add_argument("--sweep-queries", type=int, default=50_000)
    ap.add_argument("--large-s-queries", type=int, default=10_000,
                    help="queries of the s = 100k run at the main beta (0: skip)")
    ap.add_argument("--heavy", type=int, default=0,
                    help="extra keys at X = beta per projection (never queried): collision "
                         "probability ~ 1/rows_factor in every column (default 0)")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--out", type=Path, default=None,
                    help="output folder (default tests/benchmarks/results; --quick writes nothing "
                         "unless given)")
    ap.add_argument("--json", action="store_true", help="the summary JSON on stdout")
    args = ap.parse_args(argv)
    if args.quick:
        args.beta, args.queries, args.sweep_beta, args.large_s_queries = 100, 2000, [], 0
    elif args.out is None:
        args.out = RESULTS
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    start = time.perf_counter()
    runs = []
    hist, facts = run(args.beta, args.rows_factor, args.k, args.queries, args.seed, log,
                      args.heavy)
    main_stats = exact_stats(hist)
    runs.append({"role": "main", **facts, "stats": stats_json(main_stats)})
    heavy = f" + {args.heavy} keys at beta" if args.heavy else ""
    lines = [stats_line(f"beta={args.beta} (m={facts['m']}), s={args.rows_factor}k{heavy}",
                        main_stats)]
    if args.large_s_queries:
        h2, f2 = run(args.beta, 100, args.k, args.large_s_queries, args.seed + 1, log)
        st2 = exact_stats(h2)
        runs.append({"role": "s=100k", **f2, "stats": stats_json(st2)})
        lines.append(stats_line(f"beta={args.beta} (m={f2['m']}), s=100k", st2))
    for i, beta in enumerate(args.sweep_beta):
        h3, f3 = run(beta, args.rows_factor, args.k, args.sweep_queries, args.seed + 2 + i, log)
        st3 = exact_stats(h3)
        runs.append({"role": "beta sweep", **f3, "stats": stats_json(st3)})
        lines.append(stats_line(f"beta={beta} (m={f3['m']}), s={args.rows_factor}k", st3))
    wall = time.perf_counter() - start
    summary = {
        "figure": "[S] Figure 3: ALP-estimator error, eps = 1, alpha = 3 (p = 1/5)",
        "command": "python tests/benchmarks/alp_figure3.py " + " ".join(
            sys.argv[1:] if argv is None else argv),
        "wall_seconds": round(wall, 1), "paper": PAPER, "runs": runs,
        "universe": "2^62 (Carter-Wegman over the next prime)", "seed": args.seed,
    }
    written = []
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        full = dict(summary)
        full["main_histogram"] = {str(e): c for e, c in sorted(hist.items())}
        (args.out / "alp_figure3.json").write_text(json.dumps(full, indent=1) + "\n",
                                                   encoding="utf-8")
        write_csv(hist, args.out / "alp_figure3_hist.csv")
        written = ["alp_figure3.json", "alp_figure3_hist.csv"]
        if plot(hist, main_stats, facts, args.out / "alp_figure3.png"):
            written.append("alp_figure3.png")
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print("ALP Figure 3 (eps = 1, alpha = 3, p = 1/5); paper: MAE 6.4, std 11, 90th pct "
              "15.78; MAE just under 5 for s >= 100k")
        for line in lines:
            print("  " + line)
        print(f"wall time {wall:.0f} s" + (f"; wrote {', '.join(written)} in {args.out}"
                                           if written else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
