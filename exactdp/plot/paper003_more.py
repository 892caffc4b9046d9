"""Paper 003's Figures 1 and 2 and the full version's alpha and s sweeps, from the
implementation (Aumüller, Lebeda & Pagh, ALP).

* Figure 1: the embedding of ``y = 5`` into an ``s = 5`` by ``m = 8`` matrix through the
  paper's hash rows ``2,3,5,3,4,4,1,2``, drawn from :func:`exactdp.sparse_vectors.alp.embed`.
* Figure 2: the walk ``f`` of the estimator over the paper's noisy bits ``1,1,1,0,1,0,0,1``,
  its argmax positions and the estimate, from :func:`exactdp.sparse_vectors.estimator.
  argmax_positions` and :func:`~exactdp.sparse_vectors.estimator.unary_estimate`.
* The sweeps (the full version's experiments, not in the seed text): the exact mean absolute
  error of ALP-estimator for ``x_1, x_2`` uniform on ``[0, beta]`` (``k = 2``) against
  ``alpha`` for several ``s/k``, with the implementation's Carter-Wegman hashing (every seed:
  :func:`exactdp.sparse_vectors.alp_error.estimate_law`), beside the collision-free error and
  the dense Laplace mechanism's ``1/eps`` and Threshold alone (the baselines the paper
  compares with); and the
  space ``s m`` bits of the matrix and the ``m`` reads per query against ``alpha``.
  Exact at a small ``beta`` (the paper's runs are simulations at an unstated ``beta``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from exactdp.certificate import exact_json
from exactdp.files import OutputPath

__all__ = ["FIG1_ROWS", "FIG2_BITS", "FILES", "figure1", "figure2", "sweep",
           "threshold_baseline", "write"]

FIG1_ROWS = (2, 3, 5, 3, 4, 4, 1, 2)
FIG2_BITS = (1, 1, 1, 0, 1, 0, 0, 1)
FILES = ("alp_figure1.png", "alp_figure2.png", "alp_sweeps.png", "alp_sweeps.json")


def figure1() -> bytes:
    from exactdp.hashing import TableHash, TableSeed
    from exactdp.plot.draw import IMPLEMENTATION, figure_bytes, new_figure
    from exactdp.sparse_vectors.alp import ALPParams, embed

    params = ALPParams(Fraction(1), Fraction(1, 3), 8, 5, 1, 1)
    cells = embed(params, tuple(TableSeed((r,)) for r in FIG1_ROWS), [(1, 5)], TableHash(1, 5))
    fig, ax = new_figure(6, 4)
    for a in range(1, 6):
        for b in range(1, 9):
            on = (a, b) in cells
            ax.add_patch(_rect(b, a, IMPLEMENTATION if on else "white"))
            ax.text(b, a, "1" if on else "0", ha="center", va="center",
                    color="white" if on else "0.4", fontsize=10)
    ax.set_xlim(0.5, 8.5)
    ax.set_ylim(5.5, 0.5)
    ax.set_xticks(range(1, 9), [f"b={b}\nh={r}" for b, r in zip(range(1, 9), FIG1_ROWS,
                                                                  strict=True)], fontsize=8)
    ax.set_yticks(range(1, 6), [f"row {a}" for a in range(1, 6)], fontsize=8)
    ax.set_title("Paper 003 (ALP), Figure 1, from exactdp's embed: y = 5, s = 5, m = 8,\n"
                 "bit b of the unary code stored in row h_b(i) of column b", fontsize=10)
    return figure_bytes(fig, "png")


def _rect(b: int, a: int, color: str) -> Any:
    from matplotlib.patches import Rectangle

    return Rectangle((b - 0.5, a - 0.5), 1, 1, facecolor=color, edgecolor="0.3")


def figure2() -> bytes:
    from exactdp.plot.draw import IDEAL, IMPLEMENTATION, figure_bytes, new_figure
    from exactdp.sparse_vectors.estimator import argmax_positions, unary_estimate

    walk = [0]
    for bit in FIG2_BITS:
        walk.append(walk[-1] + 2 * bit - 1)
    best = argmax_positions(list(FIG2_BITS))
    est = unary_estimate(list(FIG2_BITS))
    fig, ax = new_figure(6, 4)
    ax.plot(range(len(walk)), walk, "-o", color=IMPLEMENTATION, label="f(n) = sum (2 z~ - 1)")
    ax.scatter(best, [walk[n] for n in best], s=120, facecolors="none", edgecolors=IDEAL,
               linewidths=2, label=f"argmax positions P = {set(best)}", zorder=3)
    ax.axvline(float(est), color=IDEAL, linestyle="--", label=f"estimate avg(P) = {est}")
    ax.axvline(5, color="0.5", linestyle=":", label="true y = 5")
    ax.set_xlabel("n")
    ax.set_ylabel("f(n)")
    ax.set_title("Paper 003 (ALP), Figure 2, from exactdp's estimator: bits "
                 + ",".join(map(str, FIG2_BITS)), fontsize=10)
    ax.legend(fontsize=8)
    return figure_bytes(fig, "png")


def sweep(beta: int, alphas: Sequence[int], rows: Sequence[int],
          progress: Callable[[str], None]) -> list[dict[str, Any]]:
    """One entry per ``(alpha, s)`` (and ``s = None``: no collisions): the exact MAE and bias
    of key 1's estimate over ``x_1, x_2`` uniform on ``[0, beta]``, ``m``, ``s m``."""
    from exactdp.sparse_vectors import exact as ex
    from exactdp.sparse_vectors.alp import ALP, ALPParams
    from exactdp.sparse_vectors.alp_error import estimate_law, x_error_law
    from exactdp.sparse_vectors.estimator import unary_estimate

    out: list[dict[str, Any]] = []
    for alpha in alphas:
        for s in rows:
            alp = ALP(ALPParams.from_paper(1, alpha, beta, s, 2, 4))
            mae = bias = Fraction(0)
            for x1 in range(beta + 1):
                for x2 in range(beta + 1):
                    x = {key: v for key, v in ((1, x1), (2, x2)) if v}
                    for e, w in x_error_law(estimate_law(alp, x, 1), alp, x1).items():
                        mae += abs(e) * w
                        bias += e * w
            n = (beta + 1) ** 2
            m = alp.params.columns
            out.append({"alpha": alpha, "s": s, "m": m, "matrix_bits": s * m,
                        "mae": mae / n, "bias": bias / n})
            progress(f"  alpha={alpha} s={s}: MAE {float(mae / n):.4f}")
        prm = ALPParams.from_paper(1, alpha, beta, 1, 1, 1)
        free = ex.e1_mae(prm.flip, prm.scale, beta, prm.columns, Fraction(0), unary_estimate)
        out.append({"alpha": alpha, "s": None, "m": prm.columns, "matrix_bits": None,
                    "mae": free, "bias": None})
    return out


def threshold_baseline(beta: int) -> Fraction:
    """The exact MAE of Threshold alone (ALP-full Algorithm 6, the baseline of the papers'
    introduction) at the same ``eps = 1`` on ``d = 4`` keys, ``x`` uniform on ``[0, beta]``:
    a key below the threshold is answered 0 (its error is ``x``)."""
    from exactdp.explore import explore
    from exactdp.sparse_vectors.threshold import ThresholdParams

    prm = ThresholdParams.for_epsilon(1, 4, beta)
    noise = prm.noise
    total = Fraction(0)
    for x in range(beta + 1):
        for v, w in explore(functools.partial(noise.sample_value, x)).items():
            total += w * (abs(v - x) if v >= prm.t else x)
    return total / (beta + 1)


def _sweep_picture(rows: list[dict[str, Any]], beta: int, thr: Fraction) -> bytes:
    from exactdp.plot.draw import IDEAL, figure_bytes, new_figure

    fig, (left, right) = new_figure(11, 4.5, 1, 2)
    alphas = sorted({r["alpha"] for r in rows})
    sizes = sorted({r["s"] for r in rows if r["s"] is not None})
    for s in sizes:
        pts = [r for r in rows if r["s"] == s]
        left.plot([r["alpha"] for r in pts], [float(r["mae"]) for r in pts], "-o",
                  label=f"ALP, s/k = {Fraction(s, 2)} (CW hashing, exact)")
        right.plot([r["alpha"] for r in pts], [r["matrix_bits"] for r in pts], "-o",
                   label=f"matrix bits s m, s/k = {Fraction(s, 2)}")
    free = [r for r in rows if r["s"] is None]
    left.plot([r["alpha"] for r in free], [float(r["mae"]) for r in free], "k--",
              label="ALP without collisions (exact)")
    left.axhline(1, color=IDEAL, linestyle=":", label="dense Laplace(1/eps): MAE 1/eps = 1")
    left.axhline(float(thr), color="0.4", linestyle="-.",
                 label=f"Threshold alone (d = 4, exact): MAE {float(thr):.3f}")
    right.plot([r["alpha"] for r in free], [r["m"] for r in free], "k--",
               label="reads per query m = ceil(beta eps/alpha)")
    right.set_yscale("log")
    left.set_xlabel("alpha")
    left.set_ylabel("mean absolute error")
    right.set_xlabel("alpha")
    left.set_title(f"ALP error vs alpha (eps = 1, k = 2, x uniform on [0, {beta}])", fontsize=10)
    right.set_title("space and access vs alpha", fontsize=10)
    left.legend(fontsize=7)
    right.legend(fontsize=7)
    del alphas
    return figure_bytes(fig, "png")


def write(outputs: Mapping[str, OutputPath], quick: bool,
          progress: Callable[[str], None]) -> Sequence[str]:
    beta, alphas, rows = ((6, (1, 2, 3, 6), (5, 10, 20)) if quick
                          else (12, (1, 2, 3, 4, 6, 8), (5, 10, 20, 40)))
    outputs["alp_figure1.png"].write_bytes(figure1())
    outputs["alp_figure2.png"].write_bytes(figure2())
    table = sweep(beta, alphas, rows, progress)
    thr = threshold_baseline(beta)
    outputs["alp_sweeps.png"].write_bytes(_sweep_picture(table, beta, thr))
    payload = {"figure": "ALP alpha and s sweeps (exact, small beta): eps = 1, k = 2, x_1, x_2 "
                         "uniform on [0, beta], estimate of key 1, Carter-Wegman hashing "
                         "(every seed); s = null is the collision-free law",
               "beta": beta, "baseline_dense_laplace_mae": 1,
               "baseline_threshold_alone_mae": thr, "rows": table}
    outputs["alp_sweeps.json"].write(json.dumps(exact_json(payload), indent=1) + "\n")
    best = min((r for r in table if r["s"] is not None), key=lambda r: r["mae"])
    return [(f"alp_figure1.png, alp_figure2.png (from embed and the estimator); alp_sweeps.png/"
            f".json: beta = {beta}, smallest exact MAE {float(best['mae']):.4f} at alpha = "
            f"{best['alpha']}, s = {best['s']}")]
