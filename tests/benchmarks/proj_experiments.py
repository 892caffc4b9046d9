"""Experiments of paper 001 (Li & Li) on scikit-learn's ``load_digits`` (LILI.md §4).

Plain script (not collected by pytest; needs the ``[experiments]`` and ``[plot]`` extras)::

    python tests/benchmarks/proj_experiments.py --out DIR              # the README tables
    python tests/benchmarks/proj_experiments.py --out DIR --quick      # 3 eps, 1 rep
    python tests/benchmarks/proj_experiments.py --out DIR --float-reference   # + float rows

The data, methods, metrics, tables and pictures are :mod:`exactdp.plot.paper001_experiments`
(shared with ``exactdp figures --paper 001``, which runs the default sweep, or with ``--quick``
a smaller one); the analytic curves :mod:`exactdp.plot.paper001`.  This script adds the
options (eps, k, t, repetitions, seed, float references) and writes everything to one
directory.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

from exactdp.plot import paper001
from exactdp.plot import paper001_experiments as exp
from exactdp.plot.draw import MissingPlotExtra, figure_bytes


def save(fig_thunk: Callable[[], Any], path: Path) -> bool:
    """A figure as a PNG (skipped without matplotlib)."""
    try:
        path.write_bytes(figure_bytes(fig_thunk(), "png"))
    except MissingPlotExtra:
        print("matplotlib missing (the [plot] extra): no picture", file=sys.stderr)
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="results directory (created if missing)")
    ap.add_argument("--eps", default=exp.EPS_DEFAULT,
                    help=f"comma-separated (default {exp.EPS_DEFAULT})")
    ap.add_argument("--ks", default=",".join(map(str, exp.KS)),
                    help="comma-separated numbers of bins/bits")
    ap.add_argument("--t", default=",".join(map(str, exp.T_VALUES)),
                    help="SignOPORP repetitions t (comma-separated)")
    ap.add_argument("--reps", type=int, default=exp.REPS,
                    help="repetitions (new W/plan and noise)")
    ap.add_argument("--seed", type=int, default=exp.SEED)
    ap.add_argument("--quick", action="store_true", help=f"eps {exp.EPS_QUICK}, one repetition")
    ap.add_argument("--float-reference", action="store_true",
                    help="add the float numpy versions (labelled 'float', not exact)")
    ap.add_argument("--no-exact", action="store_true", help="float reference only (debugging)")
    args = ap.parse_args(argv)
    if (missing := exp.missing_extra()) is not None:
        raise SystemExit(missing)
    if args.quick:
        args.eps, args.reps = exp.EPS_QUICK, 1
    eps_list = [Fraction(e) for e in args.eps.split(",")]
    ks = [int(k) for k in args.ks.split(",")]
    t_values = tuple(int(t) for t in args.t.split(","))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    res = exp.experiments(eps_list, ks, t_values, args.reps, args.seed,
                          float_reference=args.float_reference, no_exact=args.no_exact,
                          log=log)
    analytic = paper001.tables()
    seconds = time.perf_counter() - start

    command = "python tests/benchmarks/proj_experiments.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    md = [f"Command: `{command}` ({seconds:.0f} s)\n", *exp.report(res), analytic["markdown"]]
    for metric, name in exp.METRICS.items():
        save(lambda metric=metric: exp.figure(res, metric), out / name)
    save(paper001.figure, out / "proj_analytic.png")
    (out / "proj_experiments.md").write_text("\n".join(md))
    (out / "proj_experiments.json").write_text(json.dumps(
        {"command": command, "seconds": seconds, "rows": res.rows, "no_privacy": res.refs,
         "analytic": analytic["json"]}, indent=1) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
