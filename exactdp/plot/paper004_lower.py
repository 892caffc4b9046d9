"""Paper 004, Section 7 as a picture: the exact per-query errors of exactdp's histograms against
the lower bounds of Theorems 7.1 (i) and 7.2, as beta shrinks.

Every error is exact, read off the implementation's counting laws (thresholds found by the
checker): BasicHistogram's per-query error is ``a_M(beta)`` (Theorem 5.2 ii, an identity the
verify row "Theorem 5.2 (ii)-(iii)" checks on the explored releases), and StabilityHistogram's,
over every count ``c >= 1``, is the smallest ``a`` with ``Pr[|h_x - c| <= a] >= 1 - beta`` where
``h_x = M(c, U)`` if that is above ``b`` and 0 otherwise (Algorithm 5.4, whose release law the
verify rows of Theorem 5.5 check on small grids).
The bounds are certified (``ln`` enclosed in rational intervals); the picture draws the lower end
of each interval.  The verify row "Theorems 7.1, 7.2 (lower bounds vs exact errors)" checks the
same inequalities on the explored releases at small n.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from exactdp.checker import counting_distribution, exact_accuracy
from exactdp.counting import FastSample, GeoSample
from exactdp.histograms import StabilityHistogram, Universe
from exactdp.histograms.accuracy import theorem_7_1_per_query, theorem_7_2_sparse
from exactdp.histograms.basic import theorem_5_3_gamma
from exactdp.plot.draw import figure_bytes, new_figure

__all__ = ["LOWER_BOUND_PARAMETERS", "lower_bound_data"]

#: n, eps, |X| (Theorem 7.2 needs it large), delta of the (eps, delta)-DP StabilityHistogram.
LOWER_BOUND_PARAMETERS: dict[str, Any] = {"n": 64, "epsilon": Fraction(1),
                                          "universe_size": 1 << 20, "delta": Fraction(1, 1 << 10),
                                          "betas": [Fraction(1, 1 << j) for j in range(1, 21)]}


def _f(q: Fraction | int) -> float:
    return q.numerator / q.denominator if isinstance(q, Fraction) else q  # display only


def _stability_error(law: Mapping[int, Fraction], c: int, b: int, beta: Fraction) -> int:
    """The smallest ``a`` with ``Pr[|h - c| <= a] >= 1 - beta``, ``h = z`` if ``z > b`` else 0."""
    errors: dict[int, Fraction] = {}
    for z, w in law.items():
        e = abs(z - c) if z > b else c
        errors[e] = errors.get(e, Fraction(0)) + Fraction(w)
    total = Fraction(0)
    for e in sorted(errors):
        total += errors[e]
        if total >= 1 - beta:
            return e
    raise AssertionError("a law of total mass below 1")


def lower_bound_data() -> dict[str, Any]:
    """The exact errors and certified bounds drawn, per beta (exact numbers)."""
    p = LOWER_BOUND_PARAMETERS
    n, eps, size, delta = p["n"], p["epsilon"], p["universe_size"], p["delta"]
    universe = Universe(size)
    geo = GeoSample(n, eps)
    fast = FastSample(n, eps, theorem_5_3_gamma(Fraction(1, 2), universe))
    geo_laws = [counting_distribution(geo, c) for c in range(n + 1)]
    fast_laws = [counting_distribution(fast, c) for c in range(n + 1)]
    stability = StabilityHistogram.with_geosample(universe, n, eps, delta)
    b = stability.threshold
    rows = []
    for beta in p["betas"]:
        b71 = theorem_7_1_per_query(eps, beta, 0, n)
        b72 = theorem_7_2_sparse(eps, beta, delta, n, size)
        rows.append({
            "beta": beta,
            "theorem_7_1_i_bound": b71.interval.lo, "theorem_7_1_i_at_least": b71.at_least,
            "basic_geosample": exact_accuracy(geo_laws, beta).a,
            "basic_fastsample": exact_accuracy(fast_laws, beta).a if beta >= 2 * fast.gamma
            else None,
            "theorem_7_2_bound": b72.interval.lo, "theorem_7_2_at_least": b72.at_least,
            "stability_geosample": max(_stability_error(geo_laws[c], c, b, beta)
                                       for c in range(1, n + 1)),
        })
    return {"parameters": {**p, "stability_b": stability.threshold,
                           "fastsample_gamma": fast.gamma}, "rows": rows}


def draw(data: Mapping[str, Any]) -> tuple[bytes, bytes]:
    """PNG and SVG bytes of the picture of :func:`lower_bound_data`."""
    rows = data["rows"]
    prm = data["parameters"]
    xs = [r["beta"].denominator.bit_length() - 1 for r in rows]  # log2(1/beta)
    fig, ax = new_figure(9, 5)
    series = [("theorem_7_1_i_bound", "Theorem 7.1 (i) lower bound (any (eps, 0)-DP histogram)",
               "--", "0.4"),
              ("basic_geosample", "BasicHistogram + GeoSample, exact", "-", "C0"),
              ("basic_fastsample", "BasicHistogram + FastSample (Theorem 5.3), exact", "-",
               "C1"),
              ("theorem_7_2_bound", (f"Theorem 7.2 lower bound (sparse outputs, "
                                     f"delta = 1/{prm['delta'].denominator})"), ":", "0.2"),
              ("stability_geosample", (f"StabilityHistogram + GeoSample (b = "
                                       f"{prm['stability_b']}), exact, all counts"), "-", "C2")]
    for key, label, style, color in series:
        pts = [(x, r[key]) for x, r in zip(xs, rows, strict=True) if r[key] is not None]
        ax.plot([x for x, _ in pts], [_f(y) for _, y in pts], style, color=color, label=label,
                marker="o" if style == "-" else None, markersize=3)
    ax.set_xlabel("log2(1/beta)")
    ax.set_ylabel("per-query error a at beta")
    ax.set_title(f"Paper 004, Section 7: exact errors against the lower bounds\n"
                 f"n = {prm['n']}, eps = {prm['epsilon']}, |X| = 2^20; bounds drawn at the "
                 f"lower end of their certified intervals", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_ylim(bottom=0)
    return figure_bytes(fig, "png"), figure_bytes(fig, "svg")
