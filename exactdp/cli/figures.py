"""``exactdp figures --paper P --output DIR``: the papers' figures regenerated from the code.

The files each paper writes are listed by :data:`exactdp.plot.figures.PAPERS`; every one is
checked before any work (never over an existing file without ``--force``), then computed
exactly from the implementation and written atomically.  Needs the ``[plot]`` extra.
"""

from __future__ import annotations

import argparse

from exactdp.cli._common import (
    EPILOG,
    OK,
    add_max_seconds,
    max_seconds,
    refuse_if_slow,
)
from exactdp.cli._common import progress as _progress

__all__ = ["COMMANDS"]


def _add_figures(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "figures", help="regenerate a paper's figures from the implementation (needs the "
                        "[plot] extra)",
        description="Regenerate the figures of a paper from exactdp's own code into DIR. "
                    "--paper 004 (Balcer & Vadhan): Figure 2 (the pmfs of GeoSample, Z' "
                    "clamped to [0, n] and FastSample, each the exact law read off the code "
                    "by the checker beside the paper's closed form; PNG, SVG and the exact "
                    "values as JSON) and Figures 3-6 (BasicHistogram, StabilityHistogram, "
                    "PureSparseHistogram, CompactHistogram: the paper's asymptotic running "
                    "times beside measured times of one release at several n, the paper's "
                    "error entries evaluated exactly with certified logarithms, and the exact "
                    "smallest error from the implementation where computed; Markdown, HTML, "
                    "JSON and a PNG of time against n). --paper 003 (Aumuller, Lebeda & "
                    "Pagh): Figure 3, the error of ALP-estimator on seeded random data (eps = "
                    "1, alpha = 3, s = 10k rows; 10^5 queries, --quick 2000), with the exact "
                    "error histogram and its exact MAE, mean and 90th percentile. --paper 002 "
                    "(Fawaz, Muthukrishnan & Nikolov): the exact MSE of private convolution "
                    "against N for four filters beside the paper's eq. 5, input and output "
                    "perturbation and the spectral lower bound (xor N = 8..64, cyclic 8, 16; "
                    "--quick xor N = 4, 8). --paper 001 (Li & Li): the analytic curves "
                    "(eq. 23 variance ratios, l2 sensitivity per matrix type), Figures 1, 4, "
                    "5, 6, 8 and 9 (sigma* of eq. 14, P(r, p) and N+ as certified brackets, "
                    "flip probabilities, eq. 30's P+ and the law of Alg. 7's levels for "
                    "five distributions of w: exact for very sparse w, simulated for "
                    "Gaussian and uniform w) "
                    "and, with the "
                    "[experiments] extra (scikit-learn), precision@10/@50, recall@100 and "
                    "linear-SVM accuracy against eps on load_digits for the exact "
                    "SignOPORP-smooth and -RR (t = 1, 2, 4), SignRP-RR, iDP-SignRP-RR, "
                    "DP-OPORP and raw-data mechanisms, 10 repetitions as in the paper "
                    "(Figures 10, 13 and 15 one set of files each; about 20 minutes of "
                    "processor time, --workers 2 shares it between two processes: "
                    "estimated first, refused past --max-seconds; "
                    "--quick: 3 eps, k = 16, one repetition); Figure 11 on gray patches of the "
                    "bundled photographs (for CIFAR) and Figures 12, 14, 16 on synthetic sparse "
                    "counts (for WEBSPAM: 512 columns, 1.6 % non-zeros). Needs matplotlib: "
                    "pip install 'exactdp[plot]'.",
        epilog=EPILOG)
    p.add_argument("--paper", required=True, metavar="P",
                   help="the paper: 001 (Li & Li), 002 (Fawaz, Muthukrishnan & Nikolov), 003 (Aumuller, Lebeda & Pagh) or 004 (Balcer & Vadhan)")
    p.add_argument("--output", required=True, metavar="DIR",
                   help="directory to write into (created if its parent exists); every file "
                        "is checked before any work")
    p.add_argument("--force", action="store_true", help="replace existing files in DIR")
    p.add_argument("--figure", metavar="N",
                   help="draw only the paper's Figure N (paper 001: 1-6, 8-16)")
    p.add_argument("--quick", action="store_true",
                   help="smaller runs (seconds instead of a minute or a few)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="paper 001: run the experiments' repetitions in N processes (the "
                        "same numbers for every N; default 1)")
    add_max_seconds(p, default=300)
    p.set_defaults(func=_cmd_figures)


def _cmd_figures(args: argparse.Namespace) -> int:
    from exactdp.params import ParameterError
    from exactdp.plot.draw import require_matplotlib
    from exactdp.plot.figures import write_figures

    figure = None
    if args.figure is not None:
        if not str(args.figure).isdigit():
            raise ParameterError(f"--figure {args.figure!r} must be a figure number (e.g. 6)")
        figure = int(args.figure)
    require_matplotlib()
    from exactdp.plot.figures import estimate_ns

    limit = max_seconds(args)
    refuse_if_slow(f"figures --paper {args.paper}", estimate_ns(args.paper, args.quick, figure),
                   limit, "pass --quick (one repetition, 3 eps, k = 16) or --figure N")
    for line in write_figures(args.paper, args.output, quick=args.quick, force=args.force,
                              progress=None if args.quiet else _progress, figure=figure,
                              workers=args.workers):
        print(line)
    return OK


COMMANDS = [_add_figures]
