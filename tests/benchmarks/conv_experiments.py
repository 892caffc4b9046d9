"""Experiments for paper 002 (Fawaz, Muthukrishnan & Nikolov), which has none: MSE against N
(CONV.md §4, E1/E2/E4/E6 style), all numbers exact rationals or certified intervals.

Plain script (not collected by pytest)::

    python tests/benchmarks/conv_experiments.py            # xor N = 2^3..2^10, cyclic 8..32
    python tests/benchmarks/conv_experiments.py --quick    # xor 2^3..2^5, cyclic 8 (seconds)
    python tests/benchmarks/conv_experiments.py --out DIR  # tables + PNG (default results/)

For each group (``xor``: XOR convolution on ``Z_2^d``, the exact Walsh-Fourier mechanism =
Algorithm 1; ``cyclic``: circular convolution, the rounded real-Fourier integer strategy at
scale 32 or Walsh, whichever has the smaller exact MSE bound), each filter and each ``N``, at
``eps = 1``, ``delta = 1e-6`` and ``histograms(N, n = 100)``:

* ``exact``: the mechanism's exact MSE bound ``mse_bound()`` (for every ``x`` in the domain;
  exact accounting of the calibrated ratios, the library default);
* ``eq5``: the paper's eq. 5, ``4 ln(1/delta) ||h^||_1^2 / (eps^2 N)`` (lower end of the certified
  interval; the paper's calibration rests on its false Theorem 4, so this is what the paper
  *claims*, not a guarantee);
* ``input``: input perturbation with geometric noise of ratio ``r <= e^eps`` on every count
  (pure eps; ``||h||_2^2 2r/(r-1)^2``);
* ``output``: output perturbation, one geometric noise per output, calibrated by the exact
  privacy profile of the circulant's shifts at ``(eps, delta)`` (``2r/(r-1)^2``);
* ``specLB``: Theorem 5's spectral lower bound ``max_K K^2 |h^_(K-1)|^2 / (N log2^2 N)`` (exact on
  xor; on cyclic from certified lower ends of ``|lambda|``, so a valid lower value).  Its
  constant is unspecified: it shows the shape, not a hard floor.

Filters (integer taps; MSE scales with the square of a tap scale, so sums stand for averages):
moving sum of ``W = 8`` taps (a moving average times 8), low-pass binomial kernel ``C(8, i)``,
``i = 0..8`` (a discrete Gaussian smoother), running sum ``(1^{N/2}, 0^{N/2})`` (§5.2), random 0/1
taps (seeded).  Outputs: ``conv_experiments.{json,csv,md}`` and ``conv_experiments.png``
(matplotlib, the ``[plot]`` extra) in ``--out``.  The computation, table and picture are
:mod:`exactdp.plot.paper002`'s, shared with ``exactdp figures --paper 002``.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

from exactdp.plot.paper002 import DELTA, EPS, EVENTS, FILTERS, as_float, markdown, row

RESULTS = Path(__file__).resolve().parent / "results"

# The computation is shared with `exactdp figures --paper 002` (exactdp/plot/paper002.py).
_f = as_float


def plot(rows: list[dict[str, Any]], path: Path) -> bool:
    try:
        from exactdp.plot.draw import figure_bytes, require_matplotlib
        from exactdp.plot.paper002 import figure

        require_matplotlib()
    except ImportError:
        return False
    path.write_bytes(figure_bytes(figure(rows), "png"))
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--xor", help="comma-separated log2 N for xor")
    ap.add_argument("--cyclic", help="comma-separated N for cyclic")
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args(argv)
    xor = [3, 4, 5] if args.quick else [3, 4, 5, 6, 7, 8, 9, 10]
    cyc = [8] if args.quick else [8, 16, 32]
    if args.xor is not None:
        xor = [int(v) for v in args.xor.split(",") if v]
    if args.cyclic is not None:
        cyc = [int(v) for v in args.cyclic.split(",") if v]
    rows = []
    for group, sizes in (("xor", [2**d for d in xor]), ("cyclic", cyc)):
        for kind in FILTERS:
            for n in sizes:
                r = row(group, kind, n)
                print(f"{group} {kind} N={n}: exact {_f(r['exact_mse']):.4g} eq5 "
                      f"{_f(r['eq5_lo']):.4g} ({r['seconds']:.1f} s)", file=sys.stderr,
                      flush=True)
                rows.append(r)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    doc = {"parameters": {"epsilon": str(EPS), "delta": str(DELTA),
                          "domain": f"histograms(N, {EVENTS})"},
           "rows": [{k: (str(v) if isinstance(v, Fraction) else v) for k, v in r.items()}
                    for r in rows]}
    (out / "conv_experiments.json").write_text(json.dumps(doc, indent=1) + "\n",
                                               encoding="utf-8")
    with open(out / "conv_experiments.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        keys = list(rows[0])
        w.writerow(keys)
        for r in rows:
            w.writerow([str(r[k]) if isinstance(r[k], Fraction) else r[k] for k in keys])
    md = markdown(rows)
    (out / "conv_experiments.md").write_text(md, encoding="utf-8")
    plot(rows, out / "conv_experiments.png")
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
