"""Paper 001 (Li & Li, differentially private random projections): the analytic curves from
their formulas, exactly where they are exact.

* **Variance ratio (eq. 23, Thms 3.8-3.10)**, normalised data: ``Var_org = 2 s^2 + p s^4``
  (noise on the p raw coordinates) against ``Var_rp = 2 s^2 + k s^4 + 1/k`` (noise on k
  Rademacher projections) and ``Var_oporp = 2 s^2 + k s^4 + (1/k)(p - k)/(p - 1)`` (OPORP's
  fixed-length bins).  Exact rationals at rational ``sigma``.
* **l2 sensitivity per matrix type (Fig. 2)**, ``beta = 1``, scaled ``x = W^T u / sqrt(k)``
  (``sqrt(s)`` for very sparse): Rademacher ``Delta_2 = 1`` exactly (every row has norm
  ``sqrt(k)``); OPORP ``Delta_2 = 1`` (one bin moves); very sparse ``s``: ``Delta_2^2 = s M /
  k`` with ``M`` the largest row support, ``Bin(k, 1/s)`` per row, so ``Delta_2^2 <= s m / k``
  with probability ``>= 1 - delta`` over W for the least ``m`` with ``p Pr[Bin(k, 1/s) > m]
  <= delta`` (union bound, exact rational tail); Gaussian: Lemma 3.3's bound (a float
  formula, labelled).

With the ``[experiments]`` extra (scikit-learn), :func:`write` also runs the retrieval and SVM
experiments on scikit-learn's digits (:mod:`exactdp.plot.paper001_experiments`, shared with
``tests/benchmarks/proj_experiments.py``): the default sweep, or with ``quick`` the script's
``--quick`` sweep at ``k = 16`` only.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from math import comb
from typing import Any

from exactdp.files import OutputPath

__all__ = [
    "DELTA",
    "EXPERIMENT_FILES",
    "K_OVER_P",
    "PS",
    "SENS_KS",
    "SENS_PS",
    "SIGMAS",
    "SPARSITY",
    "TITLE",
    "estimate_ns",
    "figure",
    "files",
    "gaussian_bound",
    "ratio_rows",
    "sensitivity_rows",
    "sparse_support_bound",
    "tables",
    "variance_ratio",
    "write",
]

TITLE = "Li & Li, differentially private random projections (paper 001): analytic curves"
SIGMAS = [Fraction(1, 100), Fraction(1, 20), Fraction(1, 10), Fraction(1, 5), Fraction(1, 2),
          Fraction(1), Fraction(2), Fraction(5)]
PS = (1000, 10000)
K_OVER_P = (Fraction(1, 100), Fraction(1, 20), Fraction(1, 10), Fraction(1, 2))
SENS_PS = (100, 1000, 10**4, 10**5)
SENS_KS = (256, 512)
SPARSITY = (3, 10)
DELTA = Fraction(1, 10**6)


def variance_ratio(p: int, k: int, sigma: Fraction, oporp: bool = False) -> Fraction:
    """Eq. 23: ``R = Var_org / Var_rp`` (or ``/ Var_oporp``) at noise level ``sigma``."""
    s2 = sigma * sigma
    last = Fraction(1, k) * (Fraction(p - k, p - 1) if oporp else 1)
    return (2 * s2 + p * s2 * s2) / (2 * s2 + k * s2 * s2 + last)


def sparse_support_bound(k: int, s: int, p: int, delta: Fraction) -> int:
    """The least m with p Pr[Bin(k, 1/s) > m] <= delta (exact integers)."""
    den = s**k
    tail = den  # den * Pr[Bin > m], starting at m = -1
    for m in range(k + 1):
        tail -= comb(k, m) * (s - 1) ** (k - m)
        if p * tail <= delta * den:
            return m
    return k


def gaussian_bound(k: int, p: int, delta: Fraction) -> float:
    """Lemma 3.3 (float formula): Delta_2 <= sqrt(1 + 2 sqrt(log(p/d)/k) + 2 log(p/d)/k)."""
    lg = math.log(p / float(delta))
    return math.sqrt(1 + 2 * math.sqrt(lg / k) + 2 * lg / k)


def sensitivity_rows() -> list[dict[str, Any]]:
    """Fig. 2's sensitivities per matrix type for every ``k`` of SENS_KS, ``p`` of SENS_PS."""
    rows = []
    for k in SENS_KS:
        for p in SENS_PS:
            row: dict[str, Any] = {"k": k, "p": p, "Rademacher": "1", "OPORP": "1",
                                   "Gaussian (Lemma 3.3, float)": gaussian_bound(k, p, DELTA)}
            for s in SPARSITY:
                m = sparse_support_bound(k, s, p, DELTA)
                row[f"sparse s={s}: Delta_2^2"] = str(Fraction(s * m, k))
            rows.append(row)
    return rows


def ratio_rows() -> list[dict[str, Any]]:
    """Eq. 23 exactly at every ``sigma`` of SIGMAS, for each ``p`` and ``k = p * K_OVER_P``."""
    rows = []
    for p in PS:
        for kp in K_OVER_P:
            k = int(p * kp)
            rows.append({"p": p, "k": k,
                         "R": [str(variance_ratio(p, k, s)) for s in SIGMAS],
                         "R_oporp": [str(variance_ratio(p, k, s, True)) for s in SIGMAS]})
    return rows


def _num(q: str) -> str:
    v = float(Fraction(q))
    return f"{v:.4g}"


def tables() -> dict[str, Any]:
    """Both tables as Markdown and the exact values as JSON-ready dicts."""
    sens, ratios = sensitivity_rows(), ratio_rows()
    md = [("### Analytic: variance ratio R = Var_org / Var_rp (eq. 23; exact rationals, shown "
          "to 4 digits; OPORP's in brackets)\n"),
          "| p | k | " + " | ".join(f"sigma={s}" for s in SIGMAS) + " |",
          "|---|---|" + "---|" * len(SIGMAS)]
    for r in ratios:
        md.append(f"| {r['p']} | {r['k']} | " + " | ".join(
            f"{_num(a)} ({_num(b)})" for a, b in zip(r["R"], r["R_oporp"], strict=True))
            + " |")
    cols = ["Rademacher", "OPORP"] + [f"sparse s={s}: Delta_2^2" for s in SPARSITY] + [
        "Gaussian (Lemma 3.3, float)"]
    md += ["", ("### Analytic: l2 sensitivity per matrix type (beta = 1; bounds hold with "
               "probability >= 1 - 1e-6 over W; Rademacher and OPORP exactly)\n"),
           "| k | p | Delta_2 Rademacher | Delta_2 OPORP | "
           + " | ".join(f"Delta_2^2 sparse s={s} (exact bound)" for s in SPARSITY)
           + " | Delta_2 Gaussian (Lemma 3.3, float) |",
           "|---|---|" + "---|" * len(cols)]
    for r in sens:
        sq = [r[f"sparse s={s}: Delta_2^2"] for s in SPARSITY]
        md.append(f"| {r['k']} | {r['p']} | 1 | 1 | "
                  + " | ".join(f"{v} (Delta_2 {math.sqrt(float(Fraction(v))):.4f})" for v in sq)
                  + f" | {r['Gaussian (Lemma 3.3, float)']:.4f} |")
    return {"markdown": "\n".join(md) + "\n", "json": {"variance_ratio": ratios,
                                                       "sensitivity": sens}}


def figure() -> Any:
    """Left: eq. 23's ``R`` against ``sigma``; right: ``Delta_2`` against ``p`` per matrix."""
    from exactdp.plot.draw import new_figure

    fig, (a, b) = new_figure(15, 5.4, 1, 2)
    grid = [Fraction(10**i, 1000) for i in range(5)]
    grid = sorted({g * m for g in grid for m in (1, 2, 5)})
    colours = ("C0", "C1", "C2", "C3")
    for p, style in zip(PS, ("-", "--"), strict=True):
        for kp, colour in zip(K_OVER_P, colours, strict=True):
            k = int(p * kp)
            a.plot([float(s) for s in grid], [float(variance_ratio(p, k, s)) for s in grid],
                   style, color=colour, label=f"p = {p}, k = {k} (k/p = {kp})")
    a.axhline(1, color="0.3", linewidth=0.8, linestyle=":", label="R = 1 (no gain)")
    a.set_xscale("log")
    a.set_yscale("log")
    a.set_xlabel("sigma (noise standard deviation, normalised data)")
    a.set_ylabel("R = Var_org / Var_rp (eq. 23, exact)")
    a.set_title("Variance ratio, eq. 23 (Thms 3.8-3.10): noise on p raw coordinates\n"
                "vs on k Rademacher projections; R > 1: projecting first wins", fontsize=10)
    a.legend(fontsize=7, ncol=2)
    a.grid(True, alpha=0.3)
    ps = [10**e for e in range(1, 6)]
    b.plot(ps, [1.0] * len(ps), "k-", linewidth=2, label="Rademacher / OPORP, every k (exact 1)")
    for k, style in zip(SENS_KS, ("-", "--"), strict=True):
        for s, colour in zip(SPARSITY, ("C1", "C2"), strict=True):
            b.plot(ps, [math.sqrt(s * sparse_support_bound(k, s, p, DELTA) / k) for p in ps],
                   style, color=colour, marker="o", ms=4,
                   label=f"very sparse s = {s}, k = {k} (exact bound)")
        b.plot(ps, [gaussian_bound(k, p, DELTA) for p in ps], style, color="C4", marker="s",
               ms=3, label=f"Gaussian, k = {k} (Lemma 3.3, float)")
    b.set_xscale("log")
    b.set_xlabel("p (data dimension)")
    b.set_ylabel("Delta_2 (holds w.p. >= 1 - 1e-6 over W)")
    b.set_title("l2 sensitivity per projection matrix type (Fig. 2), beta = 1,\n"
                "x = W^T u / sqrt(k); delta = 1e-6 over the draw of W", fontsize=10)
    b.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1))
    b.grid(True, alpha=0.3)
    fig.suptitle("Paper 001 (Li & Li): analytic curves, computed from the formulas",
                 fontsize=11)
    return fig


#: The digits sweep's combined files (every method, every metric, the exact parameters;
#: written by the full run, with the ``[experiments]`` extra).
EXPERIMENT_FILES = ("proj_experiments.md", "proj_experiments.json", "proj_svm.png")


def _fig10(name: str) -> bool:  # noisy projections and raw data (the paper's DP-RP family)
    return "Sign" not in name


def _fig13(name: str) -> bool:  # SignOPORP-RR and -smooth beside DP-OPORP and raw data
    return name.startswith("SignOPORP") or name in (
        "SignRP-RR", "DP-OPORP-L", "DP-OPORP-G", "Raw-data-G", "float DP-OPORP-G")


def _fig15(name: str) -> bool:  # iDP-SignRP-RR beside eps-DP methods
    return name in ("iDP-SignRP-RR", "SignRP-RR", "DP-OPORP-G", "Raw-data-G")


#: The paper's digits figures: number -> (file stem, methods drawn, title's first lines).
DIGITS_FIGURES: dict[int, tuple[str, Callable[[str], bool], str]] = {
    10: ("proj_fig10_digits", _fig10,
         ("Paper 001 Fig. 10 (the paper: MNIST): retrieval with noisy projections and raw "
         "data on scikit-learn's digits")),
    13: ("proj_fig13_digits_signs", _fig13,
         ("Paper 001 Fig. 13 (the paper: MNIST): DP-SignOPORP-RR and -smooth (t = 1, 2, 4) "
         "beside DP-OPORP and raw data on scikit-learn's digits")),
    15: ("proj_fig15_idp", _fig15,
         ("Paper 001 Fig. 15 (the paper: MNIST): retrieval with iDP-SignRP-RR on "
         "scikit-learn's digits\niDP-SignRP-RR is eps-iDP per image, NOT eps-DP; beside it "
         "the eps-DP SignRP-RR, DP-OPORP-G and Raw-data-G")),
}


def _digits_files(n: int) -> tuple[str, str, str]:
    stem = DIGITS_FIGURES[n][0]
    return (f"{stem}.png", f"{stem}.md", f"{stem}.json")


def files(quick: bool) -> Sequence[str]:
    from exactdp.plot import paper001_experiments as exp
    from exactdp.plot import paper001_theory as theory

    analytic = ("proj_analytic.png", "proj_analytic.md", "proj_analytic.json",
                *(f for n in theory.available() for f in (theory.FILES[n], theory.JSONS[n])))
    if exp.missing_extra() is not None:
        return analytic
    from exactdp.plot import paper001_fig11 as fig11
    from exactdp.plot import paper001_sparse as sparse

    return (*analytic, *EXPERIMENT_FILES, *(f for n in DIGITS_FIGURES
                                           for f in _digits_files(n)),
            *fig11.FILES, *sparse.FILES)


#: ``--figure N``: the files that draw the paper's Figure N (2 and 3 share the analytic page;
#: 12, 14 and 16 share the sparse-data page, one panel row each).
FIGURE_FILES: dict[int, tuple[str, ...]] = {
    1: ("proj_fig01_sigma_star.png", "proj_fig01_sigma_star.json"),
    2: ("proj_analytic.png", "proj_analytic.md", "proj_analytic.json"),
    3: ("proj_analytic.png", "proj_analytic.md", "proj_analytic.json"),
    4: ("proj_fig04_p_plus.png", "proj_fig04_p_plus.json"),
    5: ("proj_fig05_n_plus.png", "proj_fig05_n_plus.json"),
    6: ("proj_fig06_flip.png", "proj_fig06_flip.json"),
    8: ("proj_fig08_p_plus_w.png", "proj_fig08_p_plus_w.json"),
    9: ("proj_fig09_levels.png", "proj_fig09_levels.json"),
    **{n: _digits_files(n) for n in DIGITS_FIGURES},
    **{n: ("proj_fig12_14_16_sparse.png", "proj_fig12_14_16_sparse.md",
           "proj_fig12_14_16_sparse.json") for n in (12, 14, 16)},
    11: ("proj_fig11_patches.png", "proj_fig11_patches.md", "proj_fig11_patches.json"),
}

#: Worker processes for the experiments' repetitions (``figures --workers``).
_WORKERS = [1]


def set_workers(n: int) -> None:
    """Run the experiments' repetitions in ``n`` forked processes (same rows for every n)."""
    _WORKERS[0] = n


def _digits_filter(names: Sequence[str]) -> Callable[[str], bool] | None:
    """The methods the requested digits files need (None: every method)."""
    if EXPERIMENT_FILES[0] in names:
        return None
    wanted = [DIGITS_FIGURES[n][1] for n in DIGITS_FIGURES if _digits_files(n)[0] in names]
    return lambda name: any(f(name) for f in wanted)


def _sweep(quick: bool) -> tuple[str, list[Fraction], list[int], int, str]:
    """The experiments' setting: the eps list (text and values), the ks, the repetitions
    and the command that reproduces them."""
    from exactdp.plot import paper001_experiments as exp

    eps = exp.EPS_QUICK if quick else exp.EPS_DEFAULT
    return (eps, [Fraction(e) for e in eps.split(",")],
            [exp.KS[0]] if quick else list(exp.KS), 1 if quick else exp.REPS,
            "exactdp figures --paper 001" + (" --quick" if quick else ""))


def estimate_ns(quick: bool, names: Sequence[str]) -> int:
    """Processor nanoseconds of the experiments among ``names`` (timed on a sample; the
    formula figures take seconds to a minute and are not counted)."""
    from exactdp.plot import paper001_experiments as exp

    _, eps, ks, reps, _ = _sweep(quick)
    total = 0
    if EXPERIMENT_FILES[0] in names or any(_digits_files(n)[0] in names
                                          for n in DIGITS_FIGURES):
        total += exp.estimate_ns(eps, ks, exp.T_VALUES, reps, only=_digits_filter(names))
    if "proj_fig11_patches.png" in names:
        total += exp.estimate_ns(eps, ks, (1,), reps, dataset="patches", dense_only=True)
    if "proj_fig12_14_16_sparse.png" in names:
        from exactdp.plot import paper001_sparse as sparse

        total += exp.estimate_ns(eps, ks, (1,), reps, dataset="sparse",
                                 only=lambda name: name not in sparse.LEFT_OUT)
    return total


def write(outputs: Mapping[str, OutputPath], quick: bool,
          progress: Callable[[str], None]) -> Sequence[str]:
    """The analytic picture and tables (fast), then the experiments on digits when the
    ``[experiments]`` extra is installed (else one line saying what is missing)."""
    from exactdp.certificate import exact_json
    from exactdp.plot import paper001_experiments as exp
    from exactdp.plot import paper001_theory as theory
    from exactdp.plot.draw import figure_bytes

    lines: list[str] = []
    if "proj_analytic.png" in outputs:
        progress("paper 001: variance ratios (eq. 23) and sensitivities per matrix type")
        tab = tables()
        outputs["proj_analytic.png"].write_bytes(figure_bytes(figure(), "png"))
        outputs["proj_analytic.md"].write(f"## {TITLE}\n\n{tab['markdown']}")
        outputs["proj_analytic.json"].write(json.dumps(exact_json({"figure": TITLE,
                                                                   **tab["json"]}), indent=1)
                                            + "\n")
        lines.append("proj_analytic.png/.md/.json: eq. 23 variance ratios (exact) and l2 "
                     "sensitivity per matrix type")
    lines += theory.write(outputs, quick, progress)
    if "proj_fig11_patches.png" in outputs:
        from exactdp.plot import paper001_fig11 as fig11

        _, eps, ks, reps, command = _sweep(quick)
        lines += fig11.write(outputs, eps, ks, reps, exp.SEED, command, progress,
                             _WORKERS[0])
    if "proj_fig12_14_16_sparse.png" in outputs:
        from exactdp.plot import paper001_sparse as sparse

        _, eps, ks, reps, command = _sweep(quick)
        lines += sparse.write(outputs, eps, ks, reps, exp.SEED, command, progress,
                              _WORKERS[0])
    if not any(n in outputs for n in (EXPERIMENT_FILES[0], *(_digits_files(f)[0]
                                                            for f in DIGITS_FIGURES))):
        missing = exp.missing_extra()  # files() found the extra missing, or not asked
        return [*lines, missing] if missing and "proj_analytic.png" in outputs else lines
    return [*lines, *_write_experiments(outputs, quick, progress)]


def _write_experiments(outputs: Mapping[str, OutputPath], quick: bool,
                       progress: Callable[[str], None]) -> list[str]:
    """The digits experiments (float metrics of exact releases, labelled; see
    :mod:`exactdp.plot.paper001_experiments`): one sweep of the methods the requested files
    need, then each figure's own picture, Markdown and JSON."""
    from exactdp.plot import paper001_experiments as exp
    from exactdp.plot import paper001_fig11 as fig11
    from exactdp.plot.draw import figure_bytes

    eps, eps_list, ks, reps, command = _sweep(quick)
    progress(f"paper 001: retrieval and SVM on digits, eps {eps}, k {ks}, {reps} "
             f"repetition(s)")
    res = exp.experiments(eps_list, ks, exp.T_VALUES, reps, exp.SEED, log=progress,
                          workers=_WORKERS[0], only=_digits_filter(list(outputs)))
    seconds = res.cpu_seconds
    setting = (f"eps {eps}, k {', '.join(map(str, ks))}, t "
               f"{', '.join(map(str, exp.T_VALUES))}, {reps} repetition(s), seed {exp.SEED}")
    lines = []
    if EXPERIMENT_FILES[0] in outputs:
        head = (f"## Li & Li on digits: retrieval and SVM against eps, every method\n\n"
                f"Command: `{command}` ({seconds:.0f} s CPU for the digits sweep; {setting})\n")
        outputs["proj_experiments.md"].write("\n".join([head, *exp.report(res)]))
        outputs["proj_experiments.json"].write(json.dumps(
            {"command": command, "seconds": seconds, "rows": res.rows,
             "no_privacy": res.refs}, indent=1) + "\n")
        outputs["proj_svm.png"].write_bytes(figure_bytes(exp.figure(res, "SVM"), "png"))
        lines.append(f"proj_experiments.md/.json, proj_svm.png: every method on digits "
                     f"(precision@10/@50, recall@100, linear-SVM accuracy; {seconds:.0f} s "
                     f"CPU)")
    for n, (stem, wanted, title) in DIGITS_FIGURES.items():
        png, md, js = _digits_files(n)
        if png not in outputs:
            continue
        rows = [r for r in res.rows if wanted(r["method"])]
        methods = list(dict.fromkeys(r["method"] for r in rows))
        outputs[png].write_bytes(figure_bytes(fig11.figure(res, methods, title), "png"))
        text = [f"## {title}\n\nCommand: `{command}` ({setting})\n"]
        for metric in fig11.METRICS:
            text.append(f"### {metric}\n\n" + exp.markdown(rows, res.refs, metric, eps_list))
        outputs[md].write("\n".join(text))
        outputs[js].write(json.dumps({"command": command, "figure": n, "rows": rows,
                                      "no_privacy": res.refs}, indent=1) + "\n")
        lines.append(f"{stem}.png/.md/.json: Figure {n}, precision@10/@50 and recall@100 "
                     f"on digits")
    return lines
