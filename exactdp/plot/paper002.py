"""Paper 002 (Fawaz, Muthukrishnan & Nikolov, private convolution) from the implementation:
MSE against ``N`` for four filters (the paper itself has no
experiments).

For each group (``xor``: XOR convolution on ``Z_2^d``, the exact Walsh-Fourier mechanism =
Algorithm 1; ``cyclic``: circular convolution, the rounded real-Fourier integer strategy or
Walsh, whichever has the smaller exact MSE bound), each filter and each ``N``, at ``eps = 1``,
``delta = 10^-6`` and ``Domain.histograms(N, 100)``:

* ``exact``: the mechanism's exact MSE bound ``mse_bound()`` (an exact rational, for every
  ``x`` in the domain; exact accounting of the calibrated ratios);
* ``eq5``: the paper's eq. 5, ``4 ln(1/delta) ||h^||_1^2 / (eps^2 N)`` (lower end of its
  certified interval; the paper's calibration rests on its false Theorem 4, so this is what
  the paper *claims*, not a guarantee);
* ``input``: input perturbation, a geometric noise of ratio ``r <= e^eps`` on every count
  (pure eps; ``||h||_2^2 2r / (1 - r)^2``);
* ``output``: output perturbation, one geometric noise per output, calibrated by the exact
  privacy profile of the circulant's shifts at ``(eps, delta)``;
* ``specLB``: Theorem 5's spectral lower bound ``max_K K^2 |h^_(K)|^2 / (N log2^2 N)``
  (exact on xor; on cyclic from certified lower ends of ``|lambda|``, so a valid lower
  value).  Its constant is unspecified: it shows the shape, not a hard floor.

Filters (integer taps; MSE scales with the square of a tap scale, so sums stand for
averages): moving sum of ``W = 8`` taps (a moving average times 8), low-pass binomial kernel
``C(8, i)``, ``i = 0..8``, running sum ``(1^{N/2}, 0^{N/2})`` (section 5.2), random 0/1 taps
(seeded).

``tests/benchmarks/conv_experiments.py`` (its own sizes, CSV) runs :func:`row`, draws with
:func:`figure` and tabulates with :func:`markdown` from here.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from exactdp.certificate import exact_json
from exactdp.files import OutputPath

__all__ = ["DELTA", "EPS", "EVENTS", "FILTERS", "TITLE", "as_float", "figure", "files",
           "make_filter", "markdown", "mechanism", "row", "sizes", "spec_lb", "table",
           "write"]

TITLE = "Fawaz, Muthukrishnan & Nikolov, private convolution (paper 002): MSE against N"
EPS, DELTA, EVENTS = Fraction(1), Fraction(1, 10**6), 100
FILTERS = ("moving-sum-8", "low-pass-binomial-8", "running-sum", "random-0/1")


def make_filter(kind: str, n: int, seed: int = 7) -> list[int]:
    """The integer taps of filter ``kind`` at length ``n`` (one of :data:`FILTERS`)."""
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
    """The exact mechanism for ``h``: Algorithm 1 on ``xor``, the best integer strategy on
    ``cyclic`` (both at :data:`EPS`, :data:`DELTA` over ``histograms(N, EVENTS)``)."""
    from exactdp.convolution import Domain

    n = len(h)
    if group == "xor":
        from exactdp.convolution.mechanism import WalshFourierMechanism

        return WalshFourierMechanism(h, Domain.histograms(n, EVENTS), epsilon=EPS, delta=DELTA)
    from exactdp.convolution.cyclic import CyclicFourierMechanism

    return CyclicFourierMechanism(h, Domain.histograms(n, EVENTS), strategy="auto",
                                  epsilon=EPS, delta=DELTA)


def spec_lb(group: str, h: list[int]) -> Fraction:
    """Theorem 5's ``specLB(h)`` (exact on xor, a certified lower value on cyclic)."""
    from exactdp.convolution.baselines import cyclic_magnitudes, walsh_magnitudes
    from exactdp.convolution.lower_bounds import spec_lb_core

    n = len(h)
    if group == "xor":
        sq = [m * m for m in walsh_magnitudes(h)]
    else:
        sq = [iv.lo * iv.lo if iv.lo > 0 else Fraction(0) for iv in cyclic_magnitudes(h)]
    core, _ = spec_lb_core(sq)
    return core / (n * n * (n.bit_length() - 1) ** 2)


def row(group: str, kind: str, n: int) -> dict[str, Any]:
    """Every exact quantity of one (group, filter, N) point, plus the seconds it took."""
    from exactdp.convolution.baselines import (
        input_perturbation_mse,
        output_perturbation_mse,
        paper_mse,
    )

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


def as_float(q: Fraction | float) -> float:
    """A Fraction for display (tables, axes) only."""
    return q.numerator / q.denominator if isinstance(q, Fraction) else float(q)


def table(rows: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """Headers and cells of the MSE table (4 significant digits; exact values in JSON)."""
    f = as_float
    headers = ["group", "filter", "N", "strategy", "rows", "exact MSE", "eq. 5 (paper)",
               "exact / eq. 5", "input pert.", "output pert.", "specLB"]
    cells = [[r["group"], r["filter"], str(r["N"]), r["strategy"], str(r["noisy_rows"]),
              f"{f(r['exact_mse']):.4g}", f"{f(r['eq5_lo']):.4g}",
              f"{f(r['exact_mse'] / r['eq5_lo']):.3f}", f"{f(r['input_mse']):.4g}",
              f"{f(r['output_mse']):.4g}", f"{f(r['spec_lb']):.3g}"] for r in rows]
    return headers, cells


def markdown(rows: Sequence[Mapping[str, Any]]) -> str:
    """The rows as a Markdown table (:func:`table`)."""
    from exactdp.plot.tables import markdown_table

    return markdown_table(*table(rows))


SERIES = (("exact_mse", "exact mechanism (exact MSE bound)", "o-"),
          ("eq5_lo", "paper's eq. 5 (claimed, rests on false Thm 4)", "s--"),
          ("input_mse", "input perturbation (geometric)", "^:"),
          ("output_mse", "output perturbation (geometric)", "v:"),
          ("spec_lb", "specLB, Thm 5 (shape only: constant unspecified)", "x-."))

GROUP_NAMES = {"xor": "XOR convolution on Z_2^d (Algorithm 1, Walsh)",
               "cyclic": "circular convolution (best integer strategy)"}


def figure(rows: Sequence[Mapping[str, Any]]) -> Any:
    """One panel per (group, filter): every series of :data:`SERIES` against ``N``, log-log."""
    from exactdp.plot.draw import new_figure

    groups = [g for g in ("xor", "cyclic") if any(r["group"] == g for r in rows)]
    fig, axes = new_figure(4.2 * len(FILTERS), 3.6 * len(groups) + 1.2, len(groups),
                           len(FILTERS))
    if len(groups) == 1:
        axes = [axes]
    for gi, g in enumerate(groups):
        for fi, kind in enumerate(FILTERS):
            ax = axes[gi][fi]
            sel = [r for r in rows if r["group"] == g and r["filter"] == kind]
            if not sel:
                ax.set_visible(False)
                continue
            ns = [r["N"] for r in sel]
            for key, label, style in SERIES:
                ax.plot(ns, [as_float(r[key]) for r in sel], style, label=label, markersize=4)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xticks(ns, [str(n) for n in ns])
            ax.minorticks_off()
            ax.set_title(f"{g}: {kind}", fontsize=9)
            ax.set_xlabel("N (signal length)")
            ax.grid(True, alpha=0.3)
            if fi == 0:
                ax.set_ylabel("MSE per output (squared counts)")
    fig.suptitle("Paper 002 (Fawaz, Muthukrishnan & Nikolov): mean squared error of private "
                 f"convolution against N; eps = {EPS}, delta = 1e-6, x in histograms(N, "
                 f"{EVENTS})\nrows: " + "; ".join(GROUP_NAMES[g] for g in groups),
                 fontsize=10)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=8)
    return fig


def sizes(quick: bool) -> dict[str, list[int]]:
    """The ``N`` per group: the figure's sizes (``--quick``: xor only, a few seconds)."""
    if quick:
        return {"xor": [4, 8]}
    return {"xor": [8, 16, 32, 64], "cyclic": [8, 16]}


def files(quick: bool) -> Sequence[str]:
    return ("conv_mse.png", "conv_mse.md", "conv_mse.html", "conv_mse.json")


def write(outputs: Mapping[str, OutputPath], quick: bool,
          progress: Callable[[str], None]) -> Sequence[str]:
    """Every (group, filter, N) of :func:`sizes`: the picture, the table (Markdown, HTML) and
    every exact value as JSON."""
    from exactdp.plot.draw import figure_bytes
    from exactdp.plot.tables import html_page, html_table

    start = time.perf_counter()
    rows = []
    for group, ns in sizes(quick).items():
        for kind in FILTERS:
            for n in ns:
                r = row(group, kind, n)
                progress(f"{group} {kind} N={n}: exact MSE {as_float(r['exact_mse']):.4g} "
                         f"({r['seconds']:.1f} s)")
                rows.append(r)
    outputs["conv_mse.png"].write_bytes(figure_bytes(figure(rows), "png"))
    caption = (f"MSE per output at eps = {EPS}, delta = 1e-6, histograms(N, {EVENTS}) "
               "(4 significant digits; exact values in conv_mse.json); below N = 8 the 8-tap "
               "filters keep their first N taps")
    md = markdown(rows)
    outputs["conv_mse.md"].write(f"## {TITLE}\n\n{caption}\n\n{md}")
    outputs["conv_mse.html"].write(html_page(TITLE, f"<h1>{TITLE}</h1>\n"
                                                    + html_table(*table(rows), caption)))
    payload = {"figure": TITLE, "parameters": {"epsilon": EPS, "delta": DELTA,
                                               "domain": f"histograms(N, {EVENTS})"},
               "wall_seconds": f"{time.perf_counter() - start:.1f}",
               "rows": [{k: v for k, v in r.items() if k != "seconds"} for r in rows]}
    outputs["conv_mse.json"].write(json.dumps(exact_json(payload), indent=1) + "\n")
    worst = max(rows, key=lambda r: r["exact_mse"] / r["eq5_lo"])
    return [f"conv_mse.png/.md/.html/.json: {len(rows)} points (N = "
            + ", ".join(f"{g} {ns}" for g, ns in sizes(quick).items())
            + f"); exact MSE / eq. 5 at most {as_float(worst['exact_mse'] / worst['eq5_lo']):.3f}"
            f" ({worst['group']} {worst['filter']} N={worst['N']})"]
