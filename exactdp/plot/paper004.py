"""Paper 004's figures from the implementation (Balcer & Vadhan, *Differential Privacy on
Finite Computers*).

* **Figure 2** -- example pmfs of (a) GeoSample (Algorithm 4.8), (b) ``Z'`` clamped to
  ``[0, n]`` (Lemma 4.12 i) and (c) FastSample (Algorithm 4.11), in the paper's situation
  ``c - t > 0`` and ``c + t > n``: each the exact law read off the code by the checker, the
  paper's closed form as dots (``figure2.png`` / ``.svg``; exact values ``figure2.json``).
* **Figures 3-6** -- running time and error of BasicHistogram (Algorithm 5.1),
  StabilityHistogram (Algorithm 5.4), PureSparseHistogram (Algorithm 6.9) and
  CompactHistogram (Algorithm 8.2) with each counting mechanism: the paper's asymptotic time
  beside the MEASURED time of one release (best of a few runs, seeded data and source), the
  paper's error entries evaluated exactly at stated parameters (certified logarithms,
  :mod:`exactdp.histograms.accuracy`), and, where the implementation's law gives it in a
  few seconds, the exact smallest error (``figures3-6.md`` / ``.html`` / ``.json``,
  measured times against ``n`` in ``figures3-6_time.png``).

Quick mode (``quick=True``): smaller ``n`` and one timing run, for tests (a few seconds).
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import partial
from typing import Any

from exactdp.certificate import brief, exact_json
from exactdp.checker import counting_distribution, exact_accuracy
from exactdp.counting import FastSample, GeoSample
from exactdp.files import OutputPath
from exactdp.histograms import (
    BasicHistogram,
    CompactHistogram,
    Dataset,
    PureSparseHistogram,
    StabilityHistogram,
    Universe,
    ceil_scaled_ln,
    figure_3,
    figure_4,
    figure_5,
)
from exactdp.plot.data import PmfData, pmf_data
from exactdp.plot.draw import (
    IDEAL,
    IMPLEMENTATION,
    draw_pmf,
    figure_bytes,
    inline_svg,
    new_figure,
)
from exactdp.plot.tables import html_page, html_table, markdown_table

__all__ = ["FIGURE_2", "TABLE_PARAMETERS", "TITLE", "exact_stability_per_query", "figure_2_data",
           "files", "write"]

TITLE = "Balcer & Vadhan, Differential Privacy on Finite Computers (paper 004)"

#: Figure 2's example: n, eps, gamma and the count c, chosen so that ``c - t > 0`` and
#: ``c + t > n`` as in the paper's picture (``t = 40`` for these).
FIG2_N, FIG2_EPS, FIG2_GAMMA, FIG2_COUNT = 60, Fraction(1), Fraction(1, 2), 50
FIGURE_2: dict[str, Any] = {"n": FIG2_N, "epsilon": FIG2_EPS, "gamma": FIG2_GAMMA,
                            "count": FIG2_COUNT}

#: The parameters at which Figures 3-6's error entries are evaluated.
EPS, BETA, DELTA, SMALL_X, LARGE_X = Fraction(1, 2), Fraction(1, 20), Fraction(1, 1000), 64, 2**64
TABLE_PARAMETERS: dict[str, Any] = {"epsilon": EPS, "beta": BETA, "delta": DELTA,
                                    "basic_universe": SMALL_X, "large_universe": LARGE_X}

MECHS = ("GeometricMechanism", "GeoSample", "FastSample")

#: The paper's running-time entries (Figures 3-6), as printed.
PAPER_TIME = {
    3: {"GeometricMechanism": "n/a (needs real arithmetic)",
        "GeoSample": "O~(|X| n log(1/eps))",
        "FastSample": "O~((|X|/eps) log^2 n) + O~(n) log|X|"},
    4: {"GeometricMechanism": "n/a",
        "GeoSample": "O~(n^2 log(1/eps)) + O(n log n log|X|)",
        "FastSample": "O~((n/eps) log(1/(beta0 delta))) + O(n log n log|X|)"},
    5: {"GeoSample": "O~(n^2 log^2|X| + n^2 log(1/eps) + n log|X| log(1/(beta eps)))",
        "FastSample": "O~(n^2 log^2|X| + (n/eps) log(|X|/beta) + n log|X| log(1/(beta eps)))"},
    6: {"GeoSample": "O~(n^2 log(1/eps) + n log|X|); evaluation the same",
        "FastSample": "O~((n/eps) log(|X|/beta)); evaluation the same"},
}

#: The paper's error entries (Figures 3-6) as formulas in words; C = 9/(2 eps) except for
#: the ideal GeometricMechanism (C = 2/eps) and Figure 6 (C = 5/eps).
PAPER_ERROR = {
    3: {"GeometricMechanism": ("ceil(2/eps ln(1/beta))", "ceil(2/eps ln(|X|/beta))"),
        "GeoSample": ("ceil(9/(2eps) ln(1/beta))", "ceil(9/(2eps) ln(|X|/beta))"),
        "FastSample": ("ceil(9/(2eps) ln(2/beta))", "ceil(9/(2eps) ln(2|X|/beta))")},
    4: {"GeometricMechanism": ("ceil(2/eps ln(1/beta)) on c > 2 + ceil(2/eps ln(2/(beta delta)))",
                               "2 + ceil(2/eps ln(2n/(beta delta)))"),
        "GeoSample": ("ceil(9/(2eps) ln(1/beta)) on c > 2 + ceil(9/(2eps) ln(2/(beta delta)))",
                      "2 + ceil(9/(2eps) ln(2n/(beta delta)))"),
        "FastSample": ("ceil(9/(2eps) ln(2/beta)) on c > 2 + ceil(9/(2eps) ln(8/(beta delta)))",
                       "2 + ceil(9/(2eps) ln(8n/(beta delta)))")},
    5: {"GeoSample": ("ceil(9/(2eps) ln(4/beta)) on c > 2 ceil(9/(2eps) ln(4|X|/beta))",
                      "2 ceil(9/(2eps) ln(2|X|/beta))"),
        "FastSample": ("ceil(9/(2eps) ln(8/beta)) on c > 2 ceil(9/(2eps) ln(8|X|/beta))",
                       "2 ceil(9/(2eps) ln(4|X|/beta))")},
    6: {"GeoSample": ("ceil(5/eps ln(1/beta))", "ceil(5/eps ln(|X|/beta))"),
        "FastSample": ("ceil(5/eps ln(2/beta))", "ceil(5/eps ln(2|X|/beta))")},
}

ALGORITHMS = {3: "BasicHistogram (Algorithm 5.1), (eps, 0)-DP",
              4: "StabilityHistogram (Algorithm 5.4), (eps, delta)-DP",
              5: "PureSparseHistogram (Algorithm 6.9, beta_1 = beta/4), (eps, 0)-DP",
              6: "CompactHistogram (Algorithm 8.2, Theorem 8.6), (eps, 0)-DP"}


def files(quick: bool) -> Sequence[str]:
    return ("figure2.png", "figure2.svg", "figure2.json", "figures3-6.md", "figures3-6.html",
            "figures3-6.json", "figures3-6_time.png", "section7.png", "section7.svg",
            "section7.json")


# --------------------------------------------------------------------------- Figure 2


def figure_2_data() -> tuple[PmfData, PmfData, PmfData, int]:
    """The three exact pmfs of Figure 2 (and FastSample's ``t``)."""
    fast = FastSample(FIG2_N, FIG2_EPS, FIG2_GAMMA)
    geo = GeoSample(FIG2_N, FIG2_EPS)
    c = FIG2_COUNT
    return (pmf_data(geo, c), pmf_data(fast.truncated(), c), pmf_data(fast, c), fast.t)


def _figure_2(outputs: Mapping[str, OutputPath]) -> tuple[list[str], str]:
    panels = figure_2_data()
    t = panels[3]
    n, c = FIG2_N, FIG2_COUNT
    fig, axes = new_figure(9, 13, rows=3)
    names = ("(a) GeoSample", "(b) Z' clamped to [0, n]", "(c) FastSample")
    laws = ("Theorem 4.7 i", "Lemma 4.12 i", "Lemma 4.12 ii")
    for ax, data, name, law in zip(axes, panels[:3], names, laws, strict=True):
        draw_pmf(ax, data, title=f"({name[1]}) {data.title}\nexact pmf at c = {c}",
                 ideal_label=f"closed form ({law})", log=True)
        zeros = [z for z, p in zip(data.outcomes, data.exact, strict=True) if p == 0]
        if zeros:
            ax.text(min(zeros) - 0.3, ax.get_ylim()[0] * 10,
                    f"Pr = 0 exactly for z in [{min(zeros)}, {max(zeros)}]\n(no bar on a "
                    f"log scale)", ha="left", fontsize=8, color="0.25")
        marks = sorted({0, c - t, c, n} & set(range(n + 1)))
        ax.set_xticks(marks, [{0: "0", c - t: f"c - t = {c - t}",
                               c: f"c = {c}", n: f"n = {n}"}[m] for m in marks])
    fig.suptitle(f"Paper 004, Figure 2, regenerated from the implementation\nn = {n}, "
                 f"eps = {FIGURE_2['epsilon']}, gamma = {FIGURE_2['gamma']}, t = {t} "
                 f"(c - t > 0 and c + t > n, as in the paper); log scale, so that the "
                 f"tails show", fontsize=10)
    outputs["figure2.png"].write_bytes(figure_bytes(fig, "png"))
    outputs["figure2.svg"].write_bytes(figure_bytes(fig, "svg"))
    payload = {"figure": "paper 004, Figure 2", "parameters": {**FIGURE_2, "t": t},
               "panels": [{"name": name, "mechanism": d.title,
                           "exact_pmf": dict(zip(d.outcomes, d.exact, strict=True)),
                           "closed_form": dict(zip(d.outcomes, d.ideal or (), strict=True)),
                           "statistical_distance": d.distance}
                          for name, d in zip(names, panels[:3], strict=True)]}
    outputs["figure2.json"].write(json.dumps(exact_json(payload), indent=1) + "\n")
    said = [(f"figure2.png/.svg/.json: pmfs at n = {n}, c = {c}, t = {t}; distance to the "
             f"closed form: {', '.join(str(d.distance) for d in panels[:3])}")]
    return said, inline_svg(fig, "figure2")


# --------------------------------------------------------------------------- Figures 3-6


def exact_stability_per_query(laws: Mapping[int, Mapping[int, Fraction]], beta: Fraction,
                              b: int, t: int) -> int | None:
    """StabilityHistogram (Theorem 5.5 ii): the smallest ``a`` such that every bin with true
    count ``c > t`` is released (noisy count ``> b``) within ``a`` of ``c`` with probability
    at least ``1 - beta``, from the exact laws ``laws[c]`` of ``M(c, U)``; None if no
    ``c > t`` is given or no ``a`` works (the bin is too often suppressed)."""
    counts = [c for c in laws if c > t]
    if not counts:
        return None
    worst = 0
    for c in counts:
        law = laws[c]
        span = max(abs(z - c) for z in law)
        a, prob = 0, (law.get(c, Fraction(0)) if c > b else Fraction(0))
        while prob < 1 - beta:
            a += 1
            if a > span:
                return None
            prob += sum(law.get(z, Fraction(0)) for z in (c - a, c + a) if z > b)
        worst = max(worst, a)
    return worst


def _dataset(universe: Universe, n: int) -> Dataset:
    """``n`` rows: half on five heavy elements, half on distinct ones (deterministic)."""
    size = universe.size
    rows = [(7919 * (i % 5) + 1) % size + 1 if i % 2 == 0 else (104729 * i + 13) % size + 1
            for i in range(n)]
    return Dataset.of(universe, rows)


def _seconds(run: Callable[[], Any], repeats: int) -> float:
    """Best of ``repeats`` wall-clock timings (display only: never used in a computation)."""
    best = None
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        took = time.perf_counter() - start
        best = took if best is None else min(best, took)
    return best or 0.0


def _source() -> Any:
    from exactdp.randomness import SeededSource

    with warnings.catch_warnings():  # nothing here is released: timing only
        warnings.simplefilter("ignore")
        return SeededSource(2024)


def _builders(fig: int, n: int) -> dict[str, Callable[[], Any]]:
    """For Figure ``fig``: mechanism name -> a function that builds the algorithm at ``n``
    with the theorem's parameters."""
    eps, beta, delta = EPS, BETA, DELTA
    small, large = Universe(SMALL_X), Universe(LARGE_X)
    if fig == 3:
        return {"GeoSample": lambda: BasicHistogram.with_geosample(small, n, eps),
                "FastSample": lambda: BasicHistogram.theorem_5_3(small, n, eps, beta)}
    if fig == 4:
        return {"GeoSample": lambda: StabilityHistogram.with_geosample(large, n, eps, delta),
                "FastSample": lambda: StabilityHistogram.theorem_5_6(large, n, eps, delta,
                                                                     beta)}
    if fig == 5:
        return {"GeoSample": lambda: PureSparseHistogram.theorem_6_11(large, n, eps, beta),
                "FastSample": lambda: PureSparseHistogram.theorem_6_11(
                    large, n, eps, beta, counting="fastsample")}
    return {"GeoSample": lambda: CompactHistogram.with_geosample(large, n, eps),
            "FastSample": lambda: CompactHistogram.theorem_8_6(large, n, eps, beta)}


def _release(alg: Any, data: Dataset) -> Any:
    return alg.release(data, _source())


def _timings(sizes: Sequence[int], repeats: int, progress: Callable[[str], None]
             ) -> dict[int, dict[str, dict[int, float]]]:
    """Measured seconds per release (Figure 6: release, then one evaluation, as
    ``-fig``), GeoSample and FastSample interleaved at each ``n``."""
    out: dict[int, dict[str, dict[int, float]]] = {}
    for fig in (3, 4, 5, 6):
        out[fig] = {"GeoSample": {}, "FastSample": {}}
        if fig == 6:
            out[-6] = {"GeoSample": {}, "FastSample": {}}
        for n in sizes:
            progress(f"timing Figure {fig} at n = {n} ...")
            for mech, build in _builders(fig, n).items():
                alg = build()
                data = _dataset(alg.universe, n)
                out[fig][mech][n] = _seconds(partial(_release, alg, data), repeats)
                if fig == 6:
                    release = alg.release(data, _source())
                    out[-6][mech][n] = _seconds(partial(release.evaluate,
                                                        next(iter(data.counts()))), repeats)
    return out


def _errors(n_exact: int) -> dict[int, dict[str, dict[str, Any]]]:
    """The paper's error entries evaluated exactly, and the implementation's exact errors
    where they are computed here (Figure 3 per-query; Figure 4 per-query on c > t and the
    certified delta)."""
    eps, beta, delta = EPS, BETA, DELTA
    small, large = SMALL_X, LARGE_X
    out: dict[int, dict[str, dict[str, Any]]] = {3: {}, 4: {}, 5: {}, 6: {}}
    for mech in MECHS:
        g3 = figure_3(mech, eps, beta, small)
        out[3][mech] = {"per_query": g3.per_query[0], "simultaneous": g3.simultaneous[0]}
        g4 = figure_4(mech, eps, delta, beta, n_exact)
        out[4][mech] = {"per_query": g4.per_query[0], "t": g4.per_query_threshold,
                        "b": g4.threshold_b, "simultaneous": g4.simultaneous[0]}
    for mech in ("GeoSample", "FastSample"):
        g5 = figure_5(mech, eps, beta, large)
        out[5][mech] = {"per_query": g5.per_query[0], "t": g5.per_query_threshold,
                        "simultaneous": g5.simultaneous[0]}
        two = 2 if mech == "FastSample" else 1
        out[6][mech] = {"per_query": ceil_scaled_ln(5 / eps, two / beta),
                        "simultaneous": ceil_scaled_ln(5 / eps, two * large / beta)}
    small_u = Universe(small)
    for mech, hist in (("GeoSample", BasicHistogram.with_geosample(small_u, n_exact, eps)),
                       ("FastSample", BasicHistogram.theorem_5_3(small_u, n_exact, eps, beta))):
        m = hist.mechanism
        laws = [counting_distribution(m, c) for c in range(m.n + 1)]
        out[3][mech]["exact_per_query"] = exact_accuracy(laws, beta).a
    large_u = Universe(large)
    for mech, stab in (
            ("GeoSample", StabilityHistogram.with_geosample(large_u, n_exact, eps, delta)),
            ("FastSample", StabilityHistogram.theorem_5_6(large_u, n_exact, eps, delta, beta))):
        t = out[4][mech]["t"]
        laws4 = {c: counting_distribution(stab.mechanism, c) for c in range(t + 1, n_exact + 1)}
        out[4][mech]["exact_per_query"] = exact_stability_per_query(
            laws4, beta, stab.threshold, t)
        out[4][mech]["exact_b"] = stab.threshold
        out[4][mech]["certified_delta"] = stab.certified_delta_upper()
    return out


def _secs(s: float | None) -> str:
    return "-" if s is None else f"{s:.4f} s" if s < 1 else f"{s:.2f} s"


def _tables(errors: Mapping[int, Any], times: Mapping[int, Any], sizes: Sequence[int],
            n_exact: int) -> list[tuple[str, list[str], list[list[str]], str]]:
    eps, beta, delta = EPS, BETA, DELTA
    small = SMALL_X
    where = {3: f"|X| = {small}", 4: f"|X| = 2^64, delta = {delta}, errors at n = {n_exact}",
             5: "|X| = 2^64", 6: "|X| = 2^64"}
    tables = []
    for fig in (3, 4, 5, 6):
        head = ["M", "paper: running time"]
        head += [f"measured, n = {n}" for n in sizes]
        head += ["paper: per-query error a", "its value here (exact)", "paper: simultaneous error",
                 "its value here (exact)", "implementation: exact per-query a"]
        rows = []
        for mech in PAPER_TIME[fig]:
            e = errors[fig][mech]
            per, sim = PAPER_ERROR[fig][mech]
            measured = [_secs(times.get(fig, {}).get(mech, {}).get(n)) for n in sizes]
            if fig == 6:
                measured = [f"{m} (+ {_secs(times[-6][mech].get(n))} to evaluate)"
                            for m, n in zip(measured, sizes, strict=True)]
            per_value = str(e["per_query"]) + (f" on c > {e['t']}" if "t" in e else "")
            exact = e.get("exact_per_query", "-")
            if fig == 3 and mech == "GeometricMechanism":
                exact = "n/a (alpha = e^(-eps/2) is irrational)"
            elif fig == 4 and mech in ("GeoSample", "FastSample"):
                exact = (f"{exact if exact is not None else 'none'} on c > {e['t']} (b = "
                         f"{e['exact_b']}; certified delta <= {brief(e['certified_delta'])})")
            rows.append([mech, PAPER_TIME[fig][mech], *measured, per, per_value, sim,
                         str(e["simultaneous"]), str(exact)])
        caption = (f"Figure {fig}: {ALGORITHMS[fig]}; eps = {eps}, beta = beta0 = {beta}, "
                   f"{where[fig]}")
        note = ("Measured: best of the runs of one release on seeded data (half the rows on "
                "five heavy elements): compare the growth with n, "
                "not the absolute values. Exact values: the paper's formula evaluated with "
                "certified logarithms. Implementation: the smallest a from the exact laws "
                "M(c, U) read off the code" + (f" at n = {n_exact}" if fig in (3, 4) else "")
                + ("; '-' where it is not computed here" if fig in (5, 6) else "") + ".")
        tables.append((caption, head, rows, note))
    return tables


def _time_plot(times: Mapping[int, Any], sizes: Sequence[int]) -> tuple[bytes, str]:
    fig, axes = new_figure(11, 8, rows=2, cols=2)
    for ax, f in zip(axes.flat, (3, 4, 5, 6), strict=True):
        for mech, colour in (("GeoSample", IMPLEMENTATION), ("FastSample", IDEAL)):
            ys = [times[f][mech][n] for n in sizes]
            ax.plot(sizes, ys, "o-", color=colour, label=f"{mech}: one release")
            if f == 6:
                ax.plot(sizes, [times[-6][mech][n] for n in sizes], "s:", color=colour,
                        label=f"{mech}: one evaluation")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("n (rows in the dataset)")
        ax.set_ylabel("measured seconds (log scale)")
        ax.set_title(f"Figure {f}: {ALGORITHMS[f].split(' (')[0]}, |X| = "
                     f"{SMALL_X if f == 3 else '2^64'}", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Paper 004, Figures 3-6: measured time of one release against n (eps = "
                 f"{TABLE_PARAMETERS['epsilon']}, beta = {TABLE_PARAMETERS['beta']})", fontsize=10)
    return figure_bytes(fig, "png"), inline_svg(fig, "times")


def write(outputs: Mapping[str, OutputPath], quick: bool,
          progress: Callable[[str], None]) -> Sequence[str]:
    """Compute and write every file of :func:`files`; one line per group written."""
    said, figure2_svg = _figure_2(outputs)
    sizes = (16, 32) if quick else (64, 256, 1024, 2048)
    n_exact = 128 if quick else 200
    progress(f"exact errors at n = {n_exact} ...")
    errors = _errors(n_exact)
    times = _timings(sizes, 1 if quick else 3, progress)
    tables = _tables(errors, times, sizes, n_exact)
    md = [f"# {TITLE}: Figures 3-6 regenerated\n"]
    body = [f"<h1>{TITLE}</h1>", "<h2>Figure 2</h2>", f"<figure>{figure2_svg}</figure>"]
    body.append("<h2>Figures 3-6: running time and error</h2>")
    for caption, head, rows, note in tables:
        md += [f"## {caption}\n", markdown_table(head, rows), f"{note}\n"]
        body += [html_table(head, rows, caption), f"<p class=\"note\">{note}</p>"]
    png, svg = _time_plot(times, sizes)
    body += ["<h2>Measured time against n</h2>", f"<figure>{svg}</figure>"]
    outputs["figures3-6.md"].write("\n".join(md))
    outputs["figures3-6.html"].write(html_page(f"{TITLE}: figures", "\n".join(body)))
    outputs["figures3-6_time.png"].write_bytes(png)
    payload = {"parameters": TABLE_PARAMETERS, "n_exact": n_exact, "errors": errors,
               "seconds": {str(f): {m: {str(n): f"{s:.6f}" for n, s in d.items()}
                                    for m, d in v.items()} for f, v in times.items()},
               "note": "seconds measured on a shared machine (decimal strings, display only)"}
    outputs["figures3-6.json"].write(json.dumps(exact_json(payload), indent=1) + "\n")
    said.append(f"figures3-6.md/.html/.json/_time.png: 4 tables, measured at n = "
                f"{', '.join(map(str, sizes))}, exact errors at n = {n_exact}")
    said.append(_section_7(outputs))
    return said


def _section_7(outputs: Mapping[str, OutputPath]) -> str:
    """Section 7's lower bounds against the exact errors (:mod:`exactdp.plot.paper004_lower`)."""
    from exactdp.plot import paper004_lower

    data = paper004_lower.lower_bound_data()
    png, svg = paper004_lower.draw(data)
    outputs["section7.png"].write_bytes(png)
    outputs["section7.svg"].write_bytes(svg)
    outputs["section7.json"].write(json.dumps(exact_json(data), indent=1) + "\n")
    n = data["parameters"]["n"]
    return (f"section7.png/.svg/.json: exact per-query errors against Theorems 7.1 (i) and 7.2 "
            f"at n = {n}, beta = 1/2 .. 2^-20")
