"""Paper 003's Figure 3 from the implementation: the error of ALP-estimator (Aumüller,
Lebeda & Pagh, ALP-short Figure 3).

Setting (ALP-short section 5): ``eps = 1``, ``alpha = 3`` (so ``p = 1/5``), ``s = 10 k`` rows
(collision probability 0.1), exactdp's own ALP (:mod:`exactdp.sparse_vectors.alp`:
Carter-Wegman hashing over the prime after ``2^62``), ``k`` random distinct keys per
projection with values uniform on ``{0, ..., beta}``; every key of every projection is one
query, ``err = estimate(key) - x``.  This figure is an experiment on random data (seeded, so
reproducible), not an exact law: what is exact is each error (a Fraction), the histogram,
and the mean absolute error, mean and 90th percentile computed from it; the standard
deviation is the square root of the exact variance, in floating point for display.

``tests/benchmarks/alp_figure3.py`` (the long runs: ``10^6`` queries, a beta sweep) uses
:func:`error_histogram` and :func:`exact_stats` from here.
"""

from __future__ import annotations

import json
import math
import random
import time
import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from exactdp.certificate import exact_json
from exactdp.files import OutputPath

__all__ = ["ALPHA", "EPSILON", "PAPER", "TITLE", "UNIVERSE", "error_histogram", "exact_stats",
           "files", "paper_rows", "setting_paper", "write"]

TITLE = "Aumüller, Lebeda & Pagh, ALP (paper 003), Figure 3"
UNIVERSE = 2**62
EPSILON = Fraction(1)
ALPHA = Fraction(3)
#: What ALP-short reports for Figure 3 (10^6 queries).
PAPER = {"mae": "6.4", "std": "11", "p90_abs": "15.78", "mae_s_100k": "just under 5"}


def _quiet_seeded(seed: int) -> Any:
    from exactdp.randomness import SeededSource

    with warnings.catch_warnings():  # nothing here is released: reproducibility only
        warnings.simplefilter("ignore")
        return SeededSource(seed)


def error_histogram(beta: int, rows_factor: int, k: int, queries: int, seed: int,
                    log: Callable[[str], None], heavy: int = 0
                    ) -> tuple[Counter[Fraction], dict[str, Any]]:
    """Project ``ceil(queries / k)`` random vectors and query each of their ``k`` uniform keys.

    With ``heavy > 0`` each vector also has ``heavy`` keys at ``X = beta`` (full unary codes,
    never queried), so that every column holds about ``k + heavy`` ones and the collision
    probability is close to ``1/rows_factor`` in every column, not only in the first
    (sparsity ``k + heavy``, ``s = rows_factor (k + heavy)``).
    Returns the exact error histogram and a dict of run facts (projections, cells, times)."""
    from exactdp.sparse_vectors.alp import ALP, ALPParams

    total = k + heavy
    params = ALPParams.from_paper(EPSILON, ALPHA, Fraction(beta), rows_factor * total, total,
                                  UNIVERSE)
    alp = ALP(params)
    hist: Counter[Fraction] = Counter()
    rng = random.Random(seed)
    projections = -(-queries // k)
    t_project = t_query = 0.0
    done = 0
    for j in range(projections):
        keys = rng.sample(range(1, UNIVERSE + 1), total)
        xs = [rng.randint(0, beta) for _ in range(k)] + [beta] * heavy
        t0 = time.perf_counter()
        sketch = alp.project(dict(zip(keys, xs, strict=True)),
                             _quiet_seeded(seed * 1_000_003 + j))
        t1 = time.perf_counter()
        take = min(k, queries - done)
        for key, x in zip(keys[:take], xs[:take], strict=True):
            hist[sketch.estimate(key) - x] += 1
        t2 = time.perf_counter()
        t_project += t1 - t0
        t_query += t2 - t1
        done += take
        if j % 10 == 9 or j == projections - 1:
            log(f"  beta={beta} s={rows_factor}k: {done}/{queries} queries, project "
                f"{t_project:.1f} s, query {t_query:.1f} s")
    facts = {"beta": beta, "m": params.columns, "rows": params.rows, "k": k, "heavy": heavy,
             "rows_factor": rows_factor, "queries": done, "projections": projections,
             "cells_per_projection": params.rows * params.columns,
             "project_seconds": round(t_project, 2), "query_seconds": round(t_query, 2)}
    return hist, facts


def exact_stats(hist: Mapping[Fraction, int]) -> dict[str, Any]:
    """MAE, mean (bias), variance exactly; std as a float; the exact 90th percentile of |err|
    (the smallest ``v`` with ``#{|err| <= v} >= 0.9 N``)."""
    n = sum(hist.values())
    mae = sum((abs(e) * c for e, c in hist.items()), Fraction(0)) / n
    mean = sum((e * c for e, c in hist.items()), Fraction(0)) / n
    var = sum(((e - mean) ** 2 * c for e, c in hist.items()), Fraction(0)) / n
    abs_hist: Counter[Fraction] = Counter()
    for e, c in hist.items():
        abs_hist[abs(e)] += c
    need = -(-9 * n // 10)
    acc = 0
    p90 = Fraction(0)
    for v in sorted(abs_hist):
        acc += abs_hist[v]
        if acc >= need:
            p90 = v
            break
    return {"n": n, "mae": mae, "mean": mean, "variance": var,
            "std": math.sqrt(var), "p90_abs": p90}


def paper_rows(heavy: int, queried: int) -> int:
    """The paper's setting, "collision probability 0.1", made exact for the implementation's
    hashing: the fewest rows ``s`` with ``(1 - 1/s)^(heavy + queried - 1) >= 9/10``, so that
    a queried key meets at most probability 0.1 of a collision in any column even when every
    other key is on there (and at least ``1 - (1 - 1/s)^heavy`` in every column, from the
    ``heavy`` keys at ``beta``).  Decided with integers: ``10 (s-1)^n >= 9 s^n``."""
    n = heavy + queried - 1
    lo, hi = 1, 10 * n + 10
    while lo < hi:  # 10 (s-1)^n >= 9 s^n is monotone in s
        mid = (lo + hi) // 2
        if 10 * (mid - 1) ** n >= 9 * mid ** n:
            hi = mid
        else:
            lo = mid + 1
    return lo


def setting_paper(beta: int, queries: int, seed: int, log: Callable[[str], None]
                  ) -> tuple[Counter[Fraction], dict[str, Any]]:
    """Figure 3 in the paper's setting: every column of a queried key collides with
    probability close to (at most) 0.1 -- ``heavy = 90`` keys at ``beta`` beside ``10``
    queried keys uniform on ``[0, beta]``, ``s = paper_rows(90, 10)`` rows."""
    from exactdp.histograms.accuracy import decimal_string
    from exactdp.sparse_vectors.alp import ALP, ALPParams

    heavy, queried = 90, 10
    rows = paper_rows(heavy, queried)
    params = ALPParams.from_paper(EPSILON, ALPHA, Fraction(beta), rows, heavy + queried,
                                  UNIVERSE)
    alp = ALP(params)
    hist: Counter[Fraction] = Counter()
    rng = random.Random(seed)
    projections = -(-queries // queried)
    done = 0
    start = time.perf_counter()
    for j in range(projections):
        keys = rng.sample(range(1, UNIVERSE + 1), heavy + queried)
        xs = [rng.randint(0, beta) for _ in range(queried)] + [beta] * heavy
        sketch = alp.project(dict(zip(keys, xs, strict=True)),
                             _quiet_seeded(seed * 1_000_003 + j))
        take = min(queried, queries - done)
        for key, x in zip(keys[:take], xs[:take], strict=True):
            hist[sketch.estimate(key) - x] += 1
        done += take
        if j % 200 == 199 or j == projections - 1:
            log(f"  paper's setting beta={beta} s={rows}: {done}/{queries} queries")
    low = 1 - (1 - Fraction(1, rows)) ** heavy
    high = 1 - (1 - Fraction(1, rows)) ** (heavy + queried - 1)
    facts = {"setting": "paper: collision probability <= 0.1 in every column", "beta": beta,
             "m": params.columns, "rows": rows, "queried": queried, "heavy": heavy,
             "collision_probability": [decimal_string(low, 4), decimal_string(high, 4)],
             "queries": done,
             "projections": projections,
             "seconds": round(time.perf_counter() - start, 2)}
    return hist, facts


def files(quick: bool) -> Sequence[str]:
    from exactdp.plot.paper003_more import FILES

    return ("alp_figure3.png", "alp_figure3.json", *FILES)


def _bins(hist: Mapping[Fraction, int]) -> Counter[int]:
    bins: Counter[int] = Counter()
    for e, c in hist.items():
        bins[math.floor(e + Fraction(1, 2))] += c
    return bins


def _picture(hist: Mapping[Fraction, int], st: Mapping[str, Any],
             facts: Mapping[str, Any], other: Mapping[Fraction, int],
             other_st: Mapping[str, Any], other_facts: Mapping[str, Any]) -> bytes:
    from exactdp.histograms.accuracy import decimal_string
    from exactdp.plot.draw import IDEAL, IMPLEMENTATION, figure_bytes, new_figure

    n, n2 = st["n"], other_st["n"]
    bins, bins2 = _bins(hist), _bins(other)
    lo, hi = -40, 60
    xs = list(range(lo, hi + 1))
    fig, ax = new_figure(9, 5.5)
    ax.bar(xs, [bins[x] / n for x in xs], width=1.0, color=IMPLEMENTATION, alpha=0.55,
           edgecolor=IMPLEMENTATION,
           label=f"paper's setting (collision probability <= 0.1 in every column, s = "
                 f"{facts['rows']}): N = {n}, MAE {decimal_string(st['mae'], 3)}, std "
                 f"{st['std']:.2f}, p90 {st['p90_abs']}")
    ax.step(xs, [bins2[x] / n2 for x in xs], where="mid", color="0.45", linewidth=1.0,
            label=f"uniform keys, s = 10k (collisions only where other keys are on): N = "
                  f"{n2}, MAE {decimal_string(other_st['mae'], 3)}, std "
                  f"{other_st['std']:.2f}, p90 {other_st['p90_abs']}")
    grid = [lo + i * (hi - lo) / 1000 for i in range(1001)]
    for b, style in ((1, "-"), (6, "--")):
        ax.plot(grid, [math.exp(-abs(t) / b) / (2 * b) for t in grid], style, color="0.15",
                linewidth=1.2, label=f"Laplace({b}) density (as drawn in the paper)")
    p90 = float(st["p90_abs"])
    for sgn in (-1, 1):
        ax.axvline(sgn * p90, color=IDEAL, linewidth=1.2,
                   label=f"90th percentile of |err|, paper's setting = {st['p90_abs']} "
                         f"(paper: {PAPER['p90_abs']})" if sgn == 1 else None)
    ax.set_xlim(lo, hi)
    ax.set_xlabel("error = estimate - x")
    ax.set_ylabel("fraction of queries")
    ax.set_title(f"Paper 003 (ALP), Figure 3, regenerated: eps = 1, alpha = 3, beta = "
                 f"{facts['beta']} (m = {facts['m']})\npaper reports MAE {PAPER['mae']}, std "
                 f"{PAPER['std']}, p90 {PAPER['p90_abs']} (10^6 queries, beta not stated)",
                 fontsize=10)
    ax.legend(fontsize=7, loc="upper right")
    del other_facts
    return figure_bytes(fig, "png")


def write(outputs: Mapping[str, OutputPath], quick: bool,
          progress: Callable[[str], None]) -> Sequence[str]:
    """Two runs at beta = 1000 with 10^5 queries each (quick: beta = 100, 2000 queries): the
    paper's setting (:func:`setting_paper`: every column of a queried key collides with
    probability close to 0.1) and uniform keys at ``s = 10k`` (:func:`error_histogram`:
    collisions only in the columns where other keys are on, so fewer).  The picture shows
    both and says which is which; the JSON holds both exact histograms."""
    beta, queries, k, seed = (100, 2000, 1000, 3) if quick else (1000, 100_000, 1000, 3)
    start = time.perf_counter()
    hist, facts = setting_paper(beta, queries, seed, progress)
    st = exact_stats(hist)
    other, other_facts = error_histogram(beta, 10, k, queries, seed, progress)
    other_st = exact_stats(other)
    outputs["alp_figure3.png"].write_bytes(_picture(hist, st, facts, other, other_st,
                                                    other_facts))
    payload = {"figure": "ALP-short Figure 3: ALP-estimator error, eps = 1, alpha = 3 (p = 1/5)",
               "paper": PAPER, "setting": "paper: collision probability <= 0.1 in every "
                                          "column of a queried key",
               "facts": facts, "seed": seed,
               "stats": {k2: v for k2, v in st.items() if k2 != "std"},
               "std_decimal": f"{st['std']:.4f}",
               "histogram": {str(e): c for e, c in sorted(hist.items())},
               "uniform_keys": {"setting": "s = 10k rows, k keys uniform on [0, beta]: "
                                           "collisions only where other keys are on",
                                "facts": other_facts,
                                "stats": {k2: v for k2, v in other_st.items() if k2 != "std"},
                                "std_decimal": f"{other_st['std']:.4f}",
                                "histogram": {str(e): c for e, c in sorted(other.items())}},
               "wall_seconds": f"{time.perf_counter() - start:.1f}"}
    outputs["alp_figure3.json"].write(json.dumps(exact_json(payload), indent=1) + "\n")
    from exactdp.histograms.accuracy import decimal_string
    from exactdp.plot.paper003_more import write as write_more

    more = write_more(outputs, quick, progress)

    return [(f"alp_figure3.png/.json, beta = {beta}: paper's setting (collision probability "
             f"<= 0.1 in every column, s = {facts['rows']}): {st['n']} queries, exact MAE "
             f"{st['mae']} = {decimal_string(st['mae'], 3)}..., std {st['std']:.2f}, 90th percentile of "
             f"|err| {st['p90_abs']}; uniform keys at s = 10k: MAE "
             f"{decimal_string(other_st['mae'], 3)}..., std {other_st['std']:.2f}, p90 "
             f"{other_st['p90_abs']} (paper: 6.4, 11, 15.78 at 10^6 queries)"), *more]
