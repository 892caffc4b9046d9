"""Paper 001 (Li & Li): the retrieval and SVM experiments on scikit-learn's digits,
shared by ``exactdp figures --paper 001`` and ``tests/benchmarks/proj_experiments.py``.

Data: 1,797 digit images, 64 integer pixels in ``0..16`` (``C = 16``); neighbours change one
pixel of one image by at most ``beta = 16`` grid steps (the paper's ``beta = 1`` on ``[0, 1]``).
Every image (query, database, train and test alike) is privatised once per repetition, with a
fresh public projection (W or OPORP plan) per repetition, all from one seeded exactdp source
(reproducible; a seeded source is NOT for releases).

Methods (exact mechanisms of :mod:`exactdp.projections`; :mod:`exactdp.plot.paper001_exact`):

* ``SignOPORP-smooth t=T``: Algorithm 8, smooth flipping, ``t`` runs of ``k/t`` bins with a
  per-run base ``rho`` (``rho^t <= e^eps``, rounded down and certified); pure eps-DP;
* ``SignOPORP-RR t=T``: the same with plain randomized response (the paper's Figs 13-14);
* ``SignRP-RR``: Algorithm 6 with ``N+ = k`` (per-bit base ``rho^k <= e^eps``); pure eps-DP;
* ``iDP-SignRP-RR``: Algorithms 10/11, each image's mechanism calibrated at that image
  (the paper's Figs 15-16): eps-iDP per image, NOT eps-DP;
* ``DP-OPORP-L``: Algorithm 5, OPORP plus a clamped two-sided geometric (discrete Laplace)
  per bin, ratio ``r^-beta <= e^eps`` (one bin moves by at most ``beta``); pure eps-DP;
* ``Raw-data-L``: the baseline, the same geometric on each of the 64 pixels;
* ``DP-OPORP-G`` / ``Raw-data-G``: the paper's Gaussian mechanism (Algorithm 5, Thm 3.8) with
  the strict-time discrete Gaussian (:mod:`exactdp.discrete_gaussian`), ``sigma^2`` the
  smallest on a grid of step 1/64 whose ideal discrete Gaussian meets ``(eps, delta = 1e-6)``
  at shift ``beta`` (certified), the sampled law's own ``delta`` in the parameters table;
* ``float DP-OPORP-G`` / ``float Raw-data-G``: the paper's continuous Gaussian calibration
  (Thm 3.5, ``delta = 1e-6``) in numpy floats, a labelled REFERENCE
  (:mod:`exactdp.plot.paper001_float`).

Utility (float METRICS, :mod:`exactdp.plot.paper001_data`): precision and recall at ``R`` of
the true top-50 cosine neighbours (recall@R = hits/50, so recall@50 = precision@50) (297 queries against a database of 1,500; private vectors compared by
cosine, sign vectors by agreements), and the test accuracy of a linear SVM (1,000 train / 797
test, stratified) on the private features.  numpy, scipy and scikit-learn (the
``[experiments]`` extra) are imported inside the functions, never when exactdp is imported.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

from exactdp.plot import paper001_data as pdata

if TYPE_CHECKING:
    import numpy as np

__all__ = ["BETA", "DELTA", "EPS_DEFAULT", "EPS_QUICK", "KS", "METRICS", "REPS", "RS", "SEED",
           "T_VALUES", "Results", "estimate_ns", "evaluate", "exact_methods", "experiments", "figure",
           "float_methods", "gaussian_references", "markdown", "missing_extra", "non_private",
           "parameters", "report", "run", "verdict"]

EPS_DEFAULT = "0.1,0.2,0.5,1,2,5,10,15,20"
EPS_QUICK = "0.5,5,20"
KS = (16, 32)
T_VALUES = (1, 2, 4)
REPS = 10  # the paper's repetitions
SEED = 2024
DELTA = Fraction(1, 10**6)
BETA = 16
RS = (10, 50, 100)
#: Each metric and the picture drawn of it.
METRICS = {"P@10": "proj_p_at_10.png", "P@50": "proj_p_at_50.png",
           "R@100": "proj_r_at_100.png", "SVM": "proj_svm.png"}

# A method: (x, eps, k, rep) -> (features of every image, "signs" | "cosine").
Method = Callable[["np.ndarray", Fraction, int, int], tuple["np.ndarray", str]]


def missing_extra() -> str | None:
    """None when the ``[experiments]`` extra is installed, else one line saying what is
    missing and how to install it."""
    absent = [name for name, module in (("numpy", "numpy"), ("scipy", "scipy"),
                                        ("scikit-learn", "sklearn")) if find_spec(module) is None]
    if not absent:
        return None
    return (f"{', '.join(absent)} missing: the retrieval/SVM curves on digits need the "
            f"[experiments] extra: pip install 'exactdp[experiments]'")


def exact_methods(seed: int, t_values: tuple[int, ...]) -> dict[str, Method]:
    from exactdp.plot import paper001_exact as pe

    out: dict[str, Method] = {}
    for t in t_values:
        out[f"SignOPORP-smooth t={t}"] = pe.sign_oporp_smooth(seed, BETA, t)
    for t in t_values:
        out[f"SignOPORP-RR t={t}"] = pe.sign_oporp_rr(seed, BETA, t)
    out["SignRP-RR"] = pe.sign_rp_rr(seed)
    out["iDP-SignRP-RR"] = pe.idp_sign_rp(seed, BETA)
    out["DP-OPORP-L"] = pe.dp_oporp(seed, BETA)
    out["Raw-data-L"] = pe.raw_data(seed, BETA)
    out["DP-OPORP-G"] = pe.dp_oporp_gauss(seed, BETA, DELTA)
    out["Raw-data-G"] = pe.raw_data_gauss(seed, BETA, DELTA)
    return out


def _rng(seed: int, rep: int, k: int, name: str) -> np.random.Generator:
    import numpy as np

    return np.random.default_rng([seed, rep, k, sum(map(ord, name))])


def gaussian_references(seed: int) -> dict[str, Method]:
    """The paper's calibration (Gaussian noise, Thm 3.5, delta = 1e-6) in floats, labelled."""
    from exactdp.plot import paper001_float as pf

    def oporp(x: np.ndarray, e: Fraction, k: int, r: int) -> tuple[np.ndarray, str]:
        return pf.dp_oporp(x, float(e), float(DELTA), k, BETA, _rng(seed, r, k, "oporp")), "cosine"

    def raw(x: np.ndarray, e: Fraction, k: int, r: int) -> tuple[np.ndarray, str]:
        return pf.raw_data(x, float(e), float(DELTA), BETA, _rng(seed, r, k, "raw")), "cosine"

    return {"float DP-OPORP-G": oporp, "float Raw-data-G": raw}


def float_methods(seed: int, t_values: tuple[int, ...]) -> dict[str, Method]:
    """The float numpy sign mechanisms (``--float-reference``), labelled."""
    from exactdp.plot import paper001_float as pf

    def sign_oporp(t: int) -> Method:
        def method(x: np.ndarray, e: Fraction, k: int, r: int) -> tuple[np.ndarray, str]:
            rng = _rng(seed, r, k, f"sign-oporp-{t}")
            return pf.sign_oporp_smooth(x, float(e), k, t, BETA, rng), "signs"
        return method

    def sign_rp(x: np.ndarray, e: Fraction, k: int, r: int) -> tuple[np.ndarray, str]:
        return pf.sign_rp_rr(x, float(e), k, _rng(seed, r, k, "rp")), "signs"

    out = {f"float SignOPORP-smooth t={t}": sign_oporp(t) for t in t_values}
    out["float SignRP-RR"] = sign_rp
    return out


def evaluate(features: np.ndarray, kind: str, y: np.ndarray, sp: pdata.Split,
             truth: np.ndarray, seed: int) -> dict[str, float]:
    sim = pdata.similarity(features[sp.queries], features[sp.database], kind)
    prec = pdata.precision_at(sim, truth, RS, seed)
    out = {f"P@{r}": v for r, v in prec.items()}
    out.update({f"R@{r}": v * r / pdata.TOP for r, v in prec.items()})
    out["SVM"] = pdata.svm_accuracy(features, y, sp)
    return out


#: What the worker processes of :func:`run` read (set before they are forked).
_JOB: dict[str, Any] = {}


def _task(task: tuple[int, str, Fraction, int]) -> tuple[dict[str, float], float]:
    """One repetition of one (k, method, eps): its scores and its processor seconds."""
    k, name, eps, rep = task
    start = time.process_time()
    feats, kind = _JOB["methods"][name](_JOB["x"], eps, k, rep)
    scores = evaluate(feats, kind, _JOB["y"], _JOB["sp"], _JOB["truth"], rep)
    return scores, time.process_time() - start


def run(methods: dict[str, Method], eps_list: list[Fraction], ks: list[int], reps: int,
        x: np.ndarray, y: np.ndarray, sp: pdata.Split, truth: np.ndarray,
        log: Callable[[str], None], workers: int = 1) -> list[dict[str, Any]]:
    """Every (k, method, eps), ``reps`` repetitions each, averaged.  Each repetition draws
    from sources named by (seed, method, k, rep, eps) and ranks ties by ``rep``, so it is a
    function of its task alone: ``workers`` processes (forked) give the same rows as one
    (only the ``seconds``, the processor time summed over the repetitions, vary)."""
    cells = [(k, name, eps) for k in ks for name in methods
             if "Raw-data" not in name or k == ks[0] for eps in eps_list]
    tasks = [(k, name, eps, rep) for k, name, eps in cells for rep in range(reps)]
    _JOB.update(methods=methods, x=x, y=y, sp=sp, truth=truth)
    try:
        if workers > 1 and len(tasks) > 1:
            import multiprocessing

            with multiprocessing.get_context("fork").Pool(workers) as pool:
                results = iter(pool.imap(_task, tasks, chunksize=1))
                rows = _rows(cells, reps, results, log)
        else:
            rows = _rows(cells, reps, map(_task, tasks), log)
    finally:
        _JOB.clear()
    return rows


def _rows(cells: list[tuple[int, str, Fraction]], reps: int, results: Any,
          log: Callable[[str], None]) -> list[dict[str, Any]]:
    """The averaged row of each cell from its ``reps`` results (in task order)."""
    import numpy as np

    rows = []
    for k, name, eps in cells:
        scores: dict[str, list[float]] = {}
        seconds = 0.0
        for _ in range(reps):
            got, cpu = next(results)
            seconds += cpu
            for key, v in got.items():
                scores.setdefault(key, []).append(v)
        row = {"method": name, "k": None if "Raw-data" in name else k,
               "eps": str(eps), "reps": reps, "seconds": seconds}
        row.update({key: float(np.mean(v)) for key, v in scores.items()})
        rows.append(row)
        log(f"  k={k} {name} eps={eps}: " + ", ".join(
            f"{key} {row[key]:.3f}" for key in scores) + f" ({row['seconds']:.1f} s CPU)")
    return rows


def estimate_ns(eps_list: list[Fraction], ks: list[int], t_values: tuple[int, ...],
                reps: int, seed: int = SEED, sample: int = 30, dataset: str = "digits",
                dense_only: bool = False, only: Callable[[str], bool] | None = None) -> int:
    """Processor time the sweep :func:`experiments` would take, in nanoseconds: every method
    timed on ``sample`` and ``3 sample`` images at every k (one eps: a release's cost does not
    depend on eps), the cost per image and per call read off the two and scaled to all
    images, eps and repetitions; plus one evaluation timed and counted."""
    x, y = pdata.load(dataset)
    sp = pdata.split(y, seed=seed)
    truth = pdata.true_neighbours(x, sp)
    methods = {**exact_methods(seed, t_values), **gaussian_references(seed)}
    if dense_only:
        methods = {n: m for n, m in methods.items() if "Sign" not in n}
    if only is not None:
        methods = {n: m for n, m in methods.items() if only(n)}

    def cpu(method: Method, n: int, k: int) -> int:
        start = time.process_time_ns()
        method(x[:n], eps_list[0], k, 0)
        return time.process_time_ns() - start

    total = 0
    for k in ks:
        for name, method in methods.items():
            if "Raw-data" in name and k != ks[0]:
                continue
            small, big = cpu(method, sample, k), cpu(method, 3 * sample, k)
            per_image = max(big - small, 0) / (2 * sample)
            per_call = max(small - per_image * sample, 0)
            total += int((per_call + per_image * len(x)) * len(eps_list) * reps)
    feats, kind = next(iter(methods.values()))(x, eps_list[0], ks[0], 0)
    start = time.process_time_ns()
    evaluate(feats, kind, y, sp, truth, seed)
    runs = sum(1 for k in ks for name in methods if "Raw-data" not in name or k == ks[0])
    return total + (time.process_time_ns() - start) * runs * len(eps_list) * reps


def non_private(x: np.ndarray, y: np.ndarray, sp: pdata.Split, truth: np.ndarray,
                ks: list[int], seed: int) -> list[dict[str, Any]]:
    """eps = infinity references: raw pixels and OPORP values without noise (one float numpy
    plan per k, labelled; sign vectors have no noiseless counterpart here: a zero projection
    is a coin in every private version)."""
    import numpy as np

    from exactdp.plot import paper001_float as pf

    rows = [{"method": "no privacy: raw pixels", "k": None,
             **evaluate(x, "cosine", y, sp, truth, seed)}]
    for k in ks:
        proj = pf.oporp(x, k, np.random.default_rng([seed, k]))
        rows.append({"method": "no privacy: OPORP values", "k": k,
                     **evaluate(proj, "cosine", y, sp, truth, seed)})
    return rows


def _cell(v: float | None) -> str:
    return "" if v is None else f"{v:.3f}"


def markdown(rows: list[dict[str, Any]], refs: list[dict[str, Any]], metric: str,
             eps_list: list[Fraction]) -> str:
    head = f"| method | k | {' | '.join(str(e) for e in eps_list)} | no privacy |\n"
    head += "|---|---|" + "---|" * (len(eps_list) + 1) + "\n"
    lines = []
    seen: list[tuple[str, Any]] = []
    for r in rows:
        if (r["method"], r["k"]) not in seen:
            seen.append((r["method"], r["k"]))
    for name, k in seen:
        cells = {r["eps"]: r[metric] for r in rows if r["method"] == name and r["k"] == k}
        ref = _reference(refs, name, k, metric)
        lines.append(f"| {name} | {'' if k is None else k} | "
                     + " | ".join(_cell(cells.get(str(e))) for e in eps_list)
                     + f" | {_cell(ref)} |")
    return head + "\n".join(lines) + "\n"


def _reference(refs: list[dict[str, Any]], name: str, k: Any, metric: str) -> float | None:
    want = ("raw pixels" if "Raw" in name else None if "Sign" in name
            else "OPORP values" if "OPORP" in name else None)
    for r in refs:
        if want and r["method"].endswith(want) and (r["k"] == k or r["k"] is None):
            return float(r[metric])
    return None


def verdict(rows: list[dict[str, Any]], metric: str, eps_list: list[Fraction]) -> list[str]:
    """Where the best exact SignOPORP-smooth beats DP-OPORP at the same k (the headline
    claim), against the exact pure-eps DP-OPORP-L, the exact (eps, 1e-6) DP-OPORP-G and the
    paper's float DP-OPORP-G."""
    out = []
    for k in sorted({r["k"] for r in rows if r["k"] is not None}):
        for dense_name in ("DP-OPORP-L", "DP-OPORP-G", "float DP-OPORP-G"):
            wins = []
            for e in eps_list:
                sign = [r[metric] for r in rows if r["method"].startswith("SignOPORP-smooth")
                        and r["k"] == k and r["eps"] == str(e)]
                dense = [r[metric] for r in rows if r["method"] == dense_name and r["k"] == k
                         and r["eps"] == str(e)]
                if sign and dense:
                    wins.append(f"{e}: {'win' if max(sign) > dense[0] else 'loss'} "
                                f"({max(sign):.3f} vs {dense[0]:.3f})")
            if wins:
                out.append(f"k = {k}, {metric}, SignOPORP-smooth (best t) vs {dense_name}: "
                           + "; ".join(wins))
    return out


def ceil_decimal(x: Fraction, digits: int = 4) -> str:
    """``x > 0`` rounded UP to ``digits`` significant digits, in scientific notation (an
    upper bound stays an upper bound when printed)."""
    exp = len(str(x.numerator // x.denominator)) - 1 if x >= 1 else -len(
        str(x.denominator // x.numerator))
    while Fraction(10) ** exp > x:
        exp -= 1
    while Fraction(10) ** (exp + 1) <= x:
        exp += 1
    scaled = x / Fraction(10) ** (exp - digits + 1)
    m = -(-scaled.numerator // scaled.denominator)
    if m >= 10**digits:
        m, exp = m // 10, exp + 1  # only when m = 10^digits exactly: no loss
    text = str(m)
    return f"{text[0]}.{text[1:]}e{exp:+03d}"


def parameters(eps_list: list[Fraction], ks: list[int], t_values: tuple[int, ...]) -> str:
    """The exact bases and noise ratios behind the rows, with the loss they really spend."""
    from exactdp.plot import paper001_exact as pe

    cols = [f"SignOPORP t={t}: rho" for t in t_values] + [f"SignRP k={k}: rho" for k in ks]
    head = ("| eps | " + " | ".join(cols) + " | DP-OPORP-L / Raw-data-L: r "
            "| DP-OPORP-G / Raw-data-G: sigma^2 (sigma; delta of the law sampled <=) |\n"
            + "|---|" + "---|" * (len(cols) + 2) + "\n")
    lines = []
    for e in eps_list:
        cells = []
        for power in [*t_values, *ks]:
            rho = pe.base(e, power)
            cells.append(f"{rho.a}/{rho.b} (eps {pe.achieved_eps(e, power):.6f})")
        r = pe.noise_ratio(e, BETA)
        spent = BETA * (math.log(r.denominator) - math.log(r.numerator))
        cells.append(f"{r.numerator}/{r.denominator} (eps {spent:.6f})")
        g = pe.gaussian(e, DELTA, BETA)
        spent_delta = pe.gaussian_delta(e, DELTA, BETA)
        cells.append(f"{g.sigma2} ({math.sqrt(g.sigma2):.2f}; {ceil_decimal(spent_delta)})")
        lines.append(f"| {e} | " + " | ".join(cells) + " |")
    return head + "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Results:
    """One sweep: the private rows (one per method, k, eps) and the no-privacy references."""

    eps_list: list[Fraction]
    ks: list[int]
    t_values: tuple[int, ...]
    rows: list[dict[str, Any]]
    refs: list[dict[str, Any]]
    #: repetitions per point and the CPU seconds of the whole sweep (stated on the figures).
    reps: int = 1
    cpu_seconds: float = 0.0


def experiments(eps_list: list[Fraction], ks: list[int], t_values: tuple[int, ...], reps: int,
                seed: int, float_reference: bool = False, no_exact: bool = False,
                log: Callable[[str], None] = lambda line: None, dataset: str = "digits",
                dense_only: bool = False, workers: int = 1,
                only: Callable[[str], bool] | None = None) -> Results:
    """Run every method at every (k, eps) on digits: the exact ones unless ``no_exact``, the
    float Gaussian references always, the float sign mechanisms with ``float_reference``."""
    cpu = time.process_time()
    x, y = pdata.load(dataset)
    sp = pdata.split(y, seed=seed)
    truth = pdata.true_neighbours(x, sp)
    methods: dict[str, Method] = {}
    if not no_exact:
        methods.update(exact_methods(seed, t_values))
    methods.update(gaussian_references(seed))
    if float_reference or no_exact:
        methods.update(float_methods(seed, t_values))
    if dense_only:  # the paper's Figs 10-12: noisy projections and raw data, no signs
        methods = {n: m for n, m in methods.items() if "Sign" not in n}
    if only is not None:
        methods = {n: m for n, m in methods.items() if only(n)}
    rows = run(methods, eps_list, ks, reps, x, y, sp, truth, log, workers)
    refs = non_private(x, y, sp, truth, ks, seed)
    cpu = time.process_time() - cpu  # this process; the workers' time is in the rows
    if workers > 1:
        cpu += sum(r["seconds"] for r in rows)
    return Results(eps_list, ks, t_values, rows, refs, reps, cpu)


def report(res: Results) -> list[str]:
    """The Markdown sections: one table and verdict per metric, then the exact parameters."""
    md = []
    for metric in METRICS:
        md.append(f"### {metric} on digits against eps\n\n"
                  + markdown(res.rows, res.refs, metric, res.eps_list))
        md.append("\n".join(f"- {v}" for v in verdict(res.rows, metric, res.eps_list)) + "\n")
    md.append("### Exact parameters (rho^t <= e^eps per vector for SignOPORP, rho^k <= e^eps "
              "for SignRP, r^-beta <= e^eps for the geometric noise; certified, the eps "
              "really spent in brackets; the discrete Gaussian's sigma^2 meets (eps, 1e-6) "
              "at shift beta = 16 on the ideal law, and the delta of the law sampled, "
              "certified, is beside it)\n\n"
              + parameters(res.eps_list, res.ks, res.t_values))
    return md


#: metric -> (what it measures, the y axis label).
_TITLES = {"P@10": ("precision@10 of the true top-50 cosine neighbours", "precision@10"),
           "P@50": ("precision@50 of the true top-50 cosine neighbours", "precision@50"),
           "R@100": ("recall@100 of the true top-50 cosine neighbours", "recall@100"),
           "SVM": ("linear-SVM test accuracy on the private features", "SVM test accuracy")}


def require_matplotlib_colours(n: int) -> list[Any]:
    """``n`` distinct colours (matplotlib's tab20 map: the default cycle repeats after 10)."""
    from matplotlib import colormaps

    cmap = colormaps["tab20"]
    return [cmap(i % 20) for i in range(n)]


def figure(res: Results, metric: str) -> Any:
    """``metric`` against eps, one panel per k: exact mechanisms solid, float references
    dashed, the no-privacy value of raw pixels dotted."""
    from exactdp.plot.draw import new_figure

    fig, axes = new_figure(max(8, 5.5 * len(res.ks)), 6.2, 1, len(res.ks))
    axes = list(axes) if len(res.ks) > 1 else [axes]
    raw = _reference(res.refs, "Raw-data", None, metric)
    names = list(dict.fromkeys(r["method"] for r in res.rows))
    colours = require_matplotlib_colours(len(names))
    for ax, k in zip(axes, res.ks, strict=True):
        for colour, name in zip(colours, names, strict=True):
            pts = [(float(Fraction(r["eps"])), r[metric]) for r in res.rows
                   if r["method"] == name and r["k"] in (k, None)]
            style = "--" if name.startswith("float") else "-"
            ax.plot(*zip(*pts), style, marker="o", ms=3, label=name, color=colour)
        if raw is not None:
            ax.axhline(raw, color="black", linewidth=1.2, linestyle=":",
                       label=f"no privacy: raw pixels ({raw:.3f})")
        ax.set_xscale("log")
        ax.set_xlabel("eps (pure eps-DP per image; G rows: (eps, 1e-6))")
        ax.set_ylabel(_TITLES[metric][1])
        ax.set_ylim(0, 1.05)
        ax.set_title(f"digits, k = {k} (Raw-data rows do not depend on k)", fontsize=10)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.suptitle(f"Paper 001 (Li & Li) on scikit-learn's load_digits\n(the paper's MNIST, "
                 f"CIFAR and WEBSPAM are not bundled)\n{_TITLES[metric][0]} against eps\n"
                 f"{res.reps} repetition(s) per point (the paper: 10); sweep "
                 f"{res.cpu_seconds:.0f} s CPU\nsolid: exact exactdp mechanisms; dashed: "
                 "float references, not exact\niDP-SignRP-RR is eps-iDP per image, not eps-DP",
                 fontsize=9)
    return fig
