"""Paper 001 (Li & Li): the figures that are formulas, regenerated one PNG each.

* **Figure 1**: Theorem 3.5's optimal sigma* against eps (several Delta_2) and against
  Delta_2 (several eps), delta = 10^-6, each point a certified bracket of the root of eq. 14
  (:func:`exactdp.normal_cdf.sigma_star`; ``sigma*`` scales linearly in ``Delta_2``).
* **Figure 4**: ``P(r, p)`` of eq. 26 (Lemma 4.3) against ``r`` for several ``p``: certified
  brackets (:func:`exactdp.projections.p_plus_gaussian.p_plus_gaussian`, Riemann-Stieltjes
  sums of certified normal cdfs), drawn as bands.
* **Figure 5**: Proposition 4.5's bound ``N+`` against ``||u||`` for several ``beta``
  (``p = 1024``, ``k = 512``, ``delta = 10^-6``): the certified upper end
  (:func:`exactdp.projections.nplus.n_plus_bound` at the upper end of ``P(beta/||u||, p)``),
  the value a mechanism would use.
* **Figure 6**: the smooth, local and global flipping probabilities of one sign (``k = 1``,
  ``eps = 1``), exactly: exactdp's rational base ``rho <= e`` and its SmoothFlipper.
* **Figure 8**: eq. 30's ``P+`` against ``p`` for five distributions of ``w``, exact for the
  very sparse ``s = 1, 3, 10``, simulated for Gaussian and uniform ``w``, beside eqs. 31 and
  32 as certified brackets (:mod:`exactdp.plot.paper001_wlaws`).
* **Figure 9**: the distribution of the levels ``L_j`` of Algorithm 7 for the five ``w``:
  EXACT for ``s = 1, 3, 10`` (the law over the draw of ``w`` for one fixed data vector, not a
  512-sample histogram), simulated for Gaussian and uniform ``w``; for Rademacher ``w`` also
  the printed level of the scaled projection ``W^T u/sqrt(k)``, ``k = 512``; data: one seeded
  vector of ``{-4..4}^p`` (``[-1, 1]`` in steps of 1/4), ``beta = 1`` = 4 steps;
  ``p = 100, 1000``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from math import comb, isqrt
from typing import Any

from exactdp.files import OutputPath

__all__ = ["FILES", "JSONS", "available", "fig1_values", "fig4_values", "fig5_values", "fig6_values",
           "fig9_values", "level_law", "write"]

FILES = {1: "proj_fig01_sigma_star.png", 4: "proj_fig04_p_plus.png",
         5: "proj_fig05_n_plus.png", 6: "proj_fig06_flip.png", 8: "proj_fig08_p_plus_w.png",
         9: "proj_fig09_levels.png"}
#: Each figure's exact (or labelled float) values, beside its picture.
JSONS = {n: name.replace(".png", ".json") for n, name in FILES.items()}
DELTA = Fraction(1, 10**6)
FIG1_EPS = (Fraction(1, 10), Fraction(1, 5), Fraction(1, 2), Fraction(1), Fraction(2),
            Fraction(5), Fraction(10), Fraction(20))
FIG1_EPS_QUICK = (Fraction(1, 2), Fraction(5))
FIG1_SHIFTS = (Fraction(1, 2), Fraction(1), Fraction(2), Fraction(5))


def available() -> list[int]:
    """The figures drawable here (all: exact arithmetic only)."""
    return sorted(FILES)


def fig1_values(eps_list: Sequence[Fraction], step_bits: int = 8) -> list[dict[str, Any]]:
    """sigma*(eps, Delta_2 = 1) bracketed (exact rationals) per eps."""
    from exactdp.normal_cdf import sigma_star

    out = []
    for e in eps_list:
        box = sigma_star(e, DELTA, Fraction(1), step_bits, 64)
        out.append({"eps": e, "lo": box.lo, "hi": box.hi})
    return out


def fig4_values(ps: Sequence[int], rs: Sequence[Fraction], step: Fraction = Fraction(1, 32)
                ) -> dict[int, list[tuple[Fraction, Fraction]]]:
    """Certified ``[lo, hi]`` of eq. 26 at each ``r``, per ``p``."""
    from exactdp.projections.p_plus_gaussian import p_plus_gaussian

    out = {}
    for p in ps:
        boxes = [p_plus_gaussian(r, p, step) for r in rs]
        out[p] = [(b.lo, b.hi) for b in boxes]
    return out


def fig5_values(betas: Sequence[Fraction], norms: Sequence[Fraction], p: int = 1024,
                k: int = 512) -> dict[Fraction, list[Fraction | None]]:
    """The certified upper end of Proposition 4.5's N+ at ``||u|| >= beta``."""
    from exactdp.projections.nplus import n_plus_bound
    from exactdp.projections.p_plus_gaussian import p_plus_gaussian

    out: dict[Fraction, list[Fraction | None]] = {}
    for b in betas:
        out[b] = [min(n_plus_bound(p_plus_gaussian(b / n, p).hi, k, DELTA), Fraction(k))
                  if n >= b else None for n in norms]
    return out


def fig6_values(units: int = 64, top: int = 5) -> dict[str, Any]:
    """Exact flip probabilities at |x| = 0..top*beta in grid steps (beta = ``units``)."""
    from exactdp.projections.rr import SmoothFlipper, base_from_eps

    base = base_from_eps(Fraction(1), 1)
    smooth = SmoothFlipper(base, top + 1)
    xs = list(range(top * units + 1))
    rr_flip = 1 - base.keep(1)
    return {"base": f"{base.a}/{base.b}", "units": units, "x": xs,
            "smooth": [1 - smooth.keep_probability(x, units) for x in xs],
            "local": [rr_flip if x < units else Fraction(0) for x in xs],
            "global": [rr_flip for _ in xs]}


def data_vector(p: int, c: int = 4, seed: int = 2024) -> list[int]:
    """One seeded data vector in {-c..c}^p (exactdp's seeded source)."""
    import warnings

    from exactdp.randomness import SeededSource

    with warnings.catch_warnings():  # a figure's fixed data, not a release
        warnings.simplefilter("ignore")
        src = SeededSource(f"paper001-fig9-{p}-{seed}".encode())
    return [src.uniform(2 * c + 1) - 1 - c for _ in range(p)]


def level_law(u: Sequence[int], beta: int, k: int) -> dict[str, dict[int, Fraction]]:
    """The exact law of the level of one Rademacher projection x = w^T u: the proof's
    L = ceil(|x|/beta) and the printed L' = ceil(|x|/(beta sqrt(k))) (the least L' with
    x^2 <= L'^2 beta^2 k).  x = sum_v v (2 B_v - m_v), B_v ~ Bin(m_v, 1/2), m_v the number
    of coordinates with |u_i| = v: integer counts over 2^p."""
    mult: dict[int, int] = {}
    for ui in u:
        if ui:
            mult[abs(ui)] = mult.get(abs(ui), 0) + 1
    counts = {0: 1}
    for v, m in mult.items():
        step = {v * (2 * b - m): comb(m, b) for b in range(m + 1)}
        nxt: dict[int, int] = {}
        for x, c in counts.items():
            for dx, c2 in step.items():
                nxt[x + dx] = nxt.get(x + dx, 0) + c * c2
        counts = nxt
    total = sum(counts.values())
    proof: dict[int, Fraction] = {}
    printed: dict[int, Fraction] = {}
    for x, c in counts.items():
        lv = -(-abs(x) // beta)
        proof[lv] = proof.get(lv, Fraction(0)) + Fraction(c, total)
        lp = isqrt(x * x // (beta * beta * k))
        while lp * lp * beta * beta * k < x * x:
            lp += 1
        printed[lp] = printed.get(lp, Fraction(0)) + Fraction(c, total)
    return {"proof": dict(sorted(proof.items())), "printed": dict(sorted(printed.items()))}


def fig9_values(ps: Sequence[int], c: int = 4, k: int = 512) -> dict[int, dict[str, Any]]:
    return {p: level_law(data_vector(p, c), c, k) for p in ps}


def _fig1(vals: list[dict[str, Any]]) -> Any:
    from exactdp.plot.draw import new_figure

    fig, (a, b) = new_figure(13, 5, 1, 2)
    eps = [float(v["eps"]) for v in vals]
    for d in FIG1_SHIFTS:
        a.plot(eps, [float(v["hi"] * d) for v in vals], marker="o", ms=3,
               label=f"Delta_2 = {d}")
    a.set_xscale("log")
    a.set_yscale("log")
    a.set_xlabel("eps")
    a.set_ylabel("sigma* (eq. 14)")
    a.set_title("Fig. 1 left: optimal Gaussian sigma* vs eps, delta = 1e-6\n"
                "certified bracket of the root (width 2^-8 Delta_2), exact arithmetic",
                fontsize=10)
    a.legend(fontsize=8)
    a.grid(True, alpha=0.3)
    shifts = [Fraction(1, 10) * i for i in range(1, 51)]
    for v in vals:
        b.plot([float(s) for s in shifts], [float(v["hi"] * s) for s in shifts],
               label=f"eps = {v['eps']}")
    b.set_xlabel("Delta_2")
    b.set_ylabel("sigma* (eq. 14)")
    b.set_title("Fig. 1 right: sigma* vs Delta_2 (sigma* is linear in Delta_2)", fontsize=10)
    b.legend(fontsize=8)
    b.grid(True, alpha=0.3)
    return fig


def _fig4(rs: Sequence[Fraction], vals: Mapping[int, list[tuple[Fraction, Fraction]]]) -> Any:
    from exactdp.plot.draw import new_figure

    fig, a = new_figure(7.5, 5)
    xs = [float(r) for r in rs]
    for i, (p, boxes) in enumerate(vals.items()):
        lo, hi = [float(b[0]) for b in boxes], [float(b[1]) for b in boxes]
        a.fill_between(xs, lo, hi, alpha=0.35, color=f"C{i}")
        a.plot(xs, hi, color=f"C{i}", linewidth=1, label=f"p = {p} (upper end; band: bracket)")
    a.set_xlabel("r")
    a.set_ylabel("P(r, p) (eq. 26)")
    a.set_title("Fig. 4: P(r, p) of Lemma 4.3 against r\n"
                "certified brackets (bands), exact arithmetic; p = 1 equals Pr(|X| > |Y|)",
                fontsize=10)
    a.legend(fontsize=8)
    a.grid(True, alpha=0.3)
    return fig


def _fig5(norms: Sequence[Fraction], vals: Mapping[Fraction, list[Fraction | None]]) -> Any:
    from exactdp.plot.draw import new_figure

    fig, a = new_figure(7.5, 5)
    for b, ys in vals.items():
        pts = [(float(n), float(y)) for n, y in zip(norms, ys, strict=True) if y is not None]
        a.plot([n for n, _ in pts], [y for _, y in pts], marker="o", ms=3, label=f"beta = {b}")
    a.set_xscale("log")
    a.set_xlabel("||u|| (data norm)")
    a.set_ylabel("N+ bound (Prop. 4.5), k = 512")
    a.set_title("Fig. 5: N+(||u||, delta, k, p), p = 1024, k = 512, delta = 1e-6\n"
                "certified upper end (exact arithmetic; F = upper end of P(beta/||u||, p))",
                fontsize=10)
    a.legend(fontsize=8)
    a.grid(True, alpha=0.3)
    return fig


def _fig6(v: Mapping[str, Any]) -> Any:
    from exactdp.plot.draw import new_figure

    fig, a = new_figure(7.5, 5)
    xs = [x / v["units"] for x in v["x"]]
    a.step(xs[1:], [float(f) for f in v["smooth"][1:]], where="pre",
           label="smooth flipping (Alg. 7), L = ceil(|x|/beta)")
    a.plot([0], [float(v["smooth"][0])], "o", color="C0", label="x = 0: a fair coin (L = 0)")
    a.step(xs, [float(f) for f in v["local"]], where="pre", linestyle="--",
           label="local flipping (RR only where |x| < beta)")
    a.plot(xs, [float(f) for f in v["global"]], ":", color="k", label="global upper bound (RR)")
    a.set_xlabel("|x| / (beta max_i |W_ij|)")
    a.set_ylabel("flip probability")
    a.set_title(f"Fig. 6: flipping probabilities, eps = 1, k = 1 (exact: rho = {v['base']}"
                f" <= e,\nexactdp's certified rational base; flip = b^L/(a^L + b^L))",
                fontsize=10)
    a.legend(fontsize=8)
    a.grid(True, alpha=0.3)
    return fig


def _fig9(vals: Mapping[int, Mapping[str, Mapping[int, Fraction]]],
          five: Mapping[int, Mapping[str, Mapping[int, Any]]], draws: int) -> Any:
    from exactdp.plot.draw import new_figure
    from exactdp.plot.paper001_wlaws import figure9_panel

    fig, axes = new_figure(6.8 * len(vals), 5.6, 1, len(vals))
    axes = axes if len(vals) > 1 else [axes]
    for a, (p, law) in zip(axes, vals.items(), strict=True):
        printed = law["printed"]
        a.bar(list(printed), [float(q) for q in printed.values()], width=0.6, alpha=0.25,
              color="0.4", label="Rademacher, printed L of W^T u/sqrt(k), k = 512 (exact)")
        figure9_panel(a, five[p], draws)
        a.set_yscale("log")
        a.set_ylim(1e-4, 1.1)
        a.set_xlabel("L_j = ceil(|w^T u| / (beta max_i |w_i|))")
        a.set_ylabel("proportion of projections with this level")
        a.set_title(f"p = {p}: law of L_j; exact for very sparse w (s = 1 Rademacher, 3, 10),"
                    f"\nsimulated for Gaussian / uniform w; one seeded u in [-1, 1]^p (steps "
                    f"1/4), beta = 1", fontsize=9)
        a.legend(fontsize=7)
        a.grid(True, alpha=0.3)
    fig.suptitle("Paper 001 Fig. 9: levels of Algorithm 7 for five distributions of w "
                 "(larger L: fewer flips)", fontsize=10)
    return fig


def write(outputs: Mapping[str, OutputPath], quick: bool,
          progress: Callable[[str], None]) -> list[str]:
    """The figures among :data:`FILES` present in ``outputs``, each with its values as JSON."""
    from exactdp.certificate import exact_json
    from exactdp.plot.draw import figure_bytes

    lines: list[str] = []

    def save(n: int, values: object, what: str) -> None:
        outputs[JSONS[n]].write(json.dumps(exact_json({"figure": n, "values": values}),
                                           indent=1) + "\n")
        lines.append(f"{FILES[n]}, {JSONS[n]}: {what}")

    if FILES[1] in outputs:
        progress("paper 001 Fig. 1: sigma* of eq. 14 (certified bisection)")
        v1 = fig1_values(FIG1_EPS_QUICK if quick else FIG1_EPS)
        outputs[FILES[1]].write_bytes(figure_bytes(_fig1(v1), "png"))
        save(1, v1, "sigma* (eq. 14) vs eps and Delta_2, certified brackets")
    rs = [Fraction(i, 20) for i in range(21)]
    if FILES[4] in outputs:
        progress("paper 001 Fig. 4: P(r, p) (certified brackets)")
        ps = (1, 10, 100) if quick else (1, 10, 100, 1000, 10000)
        v4 = fig4_values(ps, rs)
        outputs[FILES[4]].write_bytes(figure_bytes(_fig4(rs, v4), "png"))
        save(4, {"r": rs, **{str(p): y for p, y in v4.items()}},
             "P(r, p) of eq. 26 (certified brackets)")
    if FILES[5] in outputs:
        progress("paper 001 Fig. 5: N+ bound (certified)")
        norms = [Fraction(n) for n in ((1, 2, 5, 10, 20, 50, 100) if quick else (
            1, Fraction(3, 2), 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100))]
        betas = ((Fraction(1, 2), Fraction(1)) if quick else
                 (Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(2)))
        v5 = fig5_values(betas, norms)
        outputs[FILES[5]].write_bytes(figure_bytes(_fig5(norms, v5), "png"))
        save(5, {"norms": norms, **{str(b): y for b, y in v5.items()}},
             "N+ bound of Prop. 4.5 (certified upper end)")
    if FILES[6] in outputs:
        v6 = fig6_values()
        outputs[FILES[6]].write_bytes(figure_bytes(_fig6(v6), "png"))
        save(6, v6, "smooth / local / global flip probabilities (exact)")
    if FILES[8] in outputs:
        from exactdp.plot import paper001_wlaws as wl

        draws8 = 5000 if quick else 100_000
        v8 = wl.fig8_values(wl.FIG8_PS_QUICK if quick else wl.FIG8_PS, draws8,
                            progress=progress)
        outputs[FILES[8]].write_bytes(figure_bytes(wl.figure8(v8), "png"))
        save(8, v8, "P+ of eq. 30 for five w (exact for s = 1, 3, 10; simulated Gaussian "
                    "and uniform) beside eqs. 31, 32 (certified)")
    if FILES[9] in outputs:
        from exactdp.plot import paper001_wlaws as wl

        progress("paper 001 Fig. 9: law of L_j for five w")
        ps9 = (100,) if quick else (100, 1000)
        draws9 = 5000 if quick else 100_000
        v9 = fig9_values(ps9)
        five = wl.fig9_values({p: data_vector(p) for p in ps9}, 4, draws9)
        outputs[FILES[9]].write_bytes(figure_bytes(_fig9(v9, five, draws9), "png"))
        save(9, {"rademacher_proof_vs_printed": {str(p): v for p, v in v9.items()},
                 "five_w": {str(p): v for p, v in five.items()}, "draws": draws9},
             "law of Alg. 7's levels for five w (exact for s = 1, 3, 10; simulated "
             "Gaussian and uniform), and Rademacher's proof's vs printed level")
    return lines
