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
(matplotlib, the ``[plot]`` extra) in ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import random
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from exactdp.convolution import Domain
from exactdp.convolution.baselines import (
    cyclic_magnitudes,
    input_perturbation_mse,
    output_perturbation_mse,
    paper_mse,
    walsh_magnitudes,
)
from exactdp.convolution.lower_bounds import spec_lb_core

EPS, DELTA, EVENTS = Fraction(1), Fraction(1, 10**6), 100
FILTERS = ("moving-sum-8", "low-pass-binomial-8", "running-sum", "random-0/1")
RESULTS = Path(__file__).resolve().parent / "results"


def make_filter(kind: str, n: int, seed: int = 7) -> list[int]:
    h = [0] * n
    if kind == "moving-sum-8":
        for i in range(min(8, n)):
            h[i] = 1
    elif kind == "low-pass-binomial-8":
        for i in range(min(9, n)):
            h[i] += math.comb(8, i)
    elif kind == "running-sum":
        for i in range(n // 2):
            h[i] = 1
    else:
        rng = random.Random(seed * 7919 + n)
        h = [rng.randrange(2) for _ in range(n)]
        h[0] = 1
    return h


def mechanism(group: str, h: list[int]) -> Any:
    n = len(h)
    if group == "xor":
        from exactdp.convolution.mechanism import WalshFourierMechanism

        return WalshFourierMechanism(h, Domain.histograms(n, EVENTS), epsilon=EPS, delta=DELTA)
    from exactdp.convolution.cyclic import CyclicFourierMechanism

    return CyclicFourierMechanism(h, Domain.histograms(n, EVENTS), strategy="auto",
                                  epsilon=EPS, delta=DELTA)


def spec_lb(group: str, h: list[int]) -> Fraction:
    n = len(h)
    if group == "xor":
        sq = [m * m for m in walsh_magnitudes(h)]
    else:
        sq = [iv.lo * iv.lo if iv.lo > 0 else Fraction(0) for iv in cyclic_magnitudes(h)]
    core, _ = spec_lb_core(sq)
    return core / (n * n * (n.bit_length() - 1) ** 2)


def row(group: str, kind: str, n: int) -> dict[str, Any]:
    h = make_filter(kind, n)
    t0 = time.perf_counter()
    mech = mechanism(group, h)
    exact = mech.mse_bound()
    eq5 = paper_mse(h, EPS, DELTA, group)
    _, inp = input_perturbation_mse(h, EPS)
    _, outp, used = output_perturbation_mse(h, EPS, DELTA, group)
    lb = spec_lb(group, h)
    cal = getattr(mech, "calibration", None)
    return {"group": group, "filter": kind, "N": n,
            "strategy": getattr(mech, "strategy_name", "walsh"),
            "noisy_rows": len(mech.rows),
            "accounting_used": getattr(cal, "accounting_used", "?"),
            "exact_mse": exact, "eq5_lo": eq5.lo, "eq5_hi": eq5.hi, "input_mse": inp,
            "output_mse": outp, "output_accounting": used, "spec_lb": lb,
            "seconds": time.perf_counter() - t0}


def _f(q: Fraction) -> float:
    return q.numerator / q.denominator if isinstance(q, Fraction) else float(q)


def markdown(rows: list[dict[str, Any]]) -> str:
    out = [("| group | filter | N | strategy | rows | exact MSE | eq. 5 (paper) | "
            "exact / eq. 5 | input pert. | output pert. | specLB |"),
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['group']} | {r['filter']} | {r['N']} | {r['strategy']} | "
                   f"{r['noisy_rows']} | {_f(r['exact_mse']):.4g} | {_f(r['eq5_lo']):.4g} | "
                   f"{_f(r['exact_mse'] / r['eq5_lo']):.3f} | {_f(r['input_mse']):.4g} | "
                   f"{_f(r['output_mse']):.4g} | {_f(r['spec_lb']):.3g} |")
    return "\n".join(out) + "\n"


def plot(rows: list[dict[str, Any]], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    groups = sorted({r["group"] for r in rows})
    fig, axes = plt.subplots(len(groups), len(FILTERS), figsize=(4 * len(FILTERS),
                                                                  3.4 * len(groups)),
                             squeeze=False)
    series = [("exact_mse", "exact mechanism (exact MSE)", "o-"),
              ("eq5_lo", "paper eq. 5", "s--"), ("input_mse", "input perturbation", "^:"),
              ("output_mse", "output perturbation", "v:"), ("spec_lb", "specLB (Thm 5)", "x-.")]
    for gi, g in enumerate(groups):
        for fi, kind in enumerate(FILTERS):
            ax = axes[gi][fi]
            sel = [r for r in rows if r["group"] == g and r["filter"] == kind]
            if not sel:
                ax.set_visible(False)
                continue
            ns = [r["N"] for r in sel]
            for key, label, style in series:
                ax.plot(ns, [_f(r[key]) for r in sel], style, label=label, markersize=4)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title(f"{g}: {kind}", fontsize=9)
            ax.set_xlabel("N")
            if fi == 0:
                ax.set_ylabel("MSE (eps=1, delta=1e-6)")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
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
