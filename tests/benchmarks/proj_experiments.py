"""Experiments of paper 001 (Li & Li) on scikit-learn's ``load_digits`` (LILI.md §4).

Plain script (not collected by pytest; needs the ``[experiments]`` and ``[plot]`` extras)::

    python tests/benchmarks/proj_experiments.py --out DIR              # the README tables
    python tests/benchmarks/proj_experiments.py --out DIR --quick      # seconds: 3 eps, 1 rep
    python tests/benchmarks/proj_experiments.py --out DIR --float-reference   # + float rows

Data: 1,797 digit images, 64 integer pixels in ``0..16`` (``C = 16``); neighbours change one
pixel of one image by at most ``beta = 16`` grid steps (the paper's ``beta = 1`` on ``[0, 1]``).
Every image (query, database, train and test alike) is privatised once per repetition, with a
fresh public projection (W or OPORP plan) per repetition, all from one seeded exactdp source
(reproducible; a seeded source is NOT for releases).

Methods (the issue's four; exact mechanisms of :mod:`exactdp.projections`, all pure eps-DP
under one-coordinate neighbours):

* ``SignOPORP-smooth t=T``: Algorithm 8, smooth flipping, ``t`` runs of ``k/t`` bins with a
  per-run base ``rho`` (``rho^t <= e^eps``, rounded down and certified);
* ``SignRP-RR``: Algorithm 6 with ``N+ = k`` (per-bit base ``rho^k <= e^eps``);
* ``DP-OPORP-L``: Algorithm 5, OPORP plus a clamped two-sided geometric (discrete Laplace)
  per bin, ratio ``r^-beta <= e^eps`` (one bin moves by at most ``beta``);
* ``Raw-data-L``: the baseline, the same geometric on each of the 64 pixels;
* ``float DP-OPORP-G`` / ``float Raw-data-G``: the paper's Gaussian calibration (Thm 3.5,
  ``delta = 1e-6``) in numpy floats, a labelled reference (exact discrete Gaussian tables of
  that width exceed :class:`exactdp.noise_tables.NoiseTable`'s limits).

Utility: precision at ``R`` of the true top-50 cosine neighbours (297 queries against a database
of 1,500; private vectors compared by cosine, sign vectors by agreements), and the test accuracy
of a linear SVM (1,000 train / 797 test, stratified) on the private features.  Analytic curves
(:mod:`exactdp.plot.paper001`, shared with ``exactdp figures --paper 001``): variance ratio
eq. 23 and sensitivities per matrix type.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import proj_data

from exactdp.plot import paper001

EPS_DEFAULT = "0.1,0.2,0.5,1,2,5,10,15,20"
DELTA = Fraction(1, 10**6)
BETA = 16
RS = (10, 50)

# A method: (x, eps, k, rep) -> (features of every image, "signs" | "cosine").
Method = Callable[[np.ndarray, Fraction, int, int], tuple[np.ndarray, str]]


def exact_methods(seed: int, t_values: tuple[int, ...]) -> dict[str, Method]:
    import proj_exact

    out: dict[str, Method] = {}
    for t in t_values:
        out[f"SignOPORP-smooth t={t}"] = proj_exact.sign_oporp_smooth(seed, BETA, t)
    out["SignRP-RR"] = proj_exact.sign_rp_rr(seed)
    out["DP-OPORP-L"] = proj_exact.dp_oporp(seed, BETA)
    out["Raw-data-L"] = proj_exact.raw_data(seed, BETA)
    return out


def _rng(seed: int, rep: int, k: int, name: str) -> np.random.Generator:
    return np.random.default_rng([seed, rep, k, sum(map(ord, name))])


def gaussian_references(seed: int) -> dict[str, Method]:
    """The paper's calibration (Gaussian noise, Thm 3.5, delta = 1e-6) in floats, labelled."""
    import proj_float as pf

    def oporp(x: np.ndarray, e: Fraction, k: int, r: int) -> tuple[np.ndarray, str]:
        return pf.dp_oporp(x, float(e), float(DELTA), k, BETA, _rng(seed, r, k, "oporp")), "cosine"

    def raw(x: np.ndarray, e: Fraction, k: int, r: int) -> tuple[np.ndarray, str]:
        return pf.raw_data(x, float(e), float(DELTA), BETA, _rng(seed, r, k, "raw")), "cosine"

    return {"float DP-OPORP-G": oporp, "float Raw-data-G": raw}


def float_methods(seed: int, t_values: tuple[int, ...]) -> dict[str, Method]:
    """The float numpy sign mechanisms (``--float-reference``), labelled."""
    import proj_float as pf

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


def evaluate(features: np.ndarray, kind: str, y: np.ndarray, sp: proj_data.Split,
             truth: np.ndarray, seed: int) -> dict[str, float]:
    sim = proj_data.similarity(features[sp.queries], features[sp.database], kind)
    prec = proj_data.precision_at(sim, truth, RS, seed)
    out = {f"P@{r}": v for r, v in prec.items()}
    out["SVM"] = proj_data.svm_accuracy(features, y, sp)
    return out


def run(methods: dict[str, Method], eps_list: list[Fraction], ks: list[int], reps: int,
        x: np.ndarray, y: np.ndarray, sp: proj_data.Split, truth: np.ndarray,
        log: Callable[[str], None]) -> list[dict[str, Any]]:
    rows = []
    for k in ks:
        for name, method in methods.items():
            if "Raw-data" in name and k != ks[0]:
                continue  # does not depend on k
            for eps in eps_list:
                start = time.perf_counter()
                scores: dict[str, list[float]] = {}
                for rep in range(reps):
                    feats, kind = method(x, eps, k, rep)
                    for key, v in evaluate(feats, kind, y, sp, truth, rep).items():
                        scores.setdefault(key, []).append(v)
                row = {"method": name, "k": None if "Raw-data" in name else k,
                       "eps": str(eps), "reps": reps, "seconds": time.perf_counter() - start}
                row.update({key: float(np.mean(v)) for key, v in scores.items()})
                rows.append(row)
                log(f"  k={k} {name} eps={eps}: " + ", ".join(
                    f"{key} {row[key]:.3f}" for key in scores) + f" ({row['seconds']:.1f} s)")
    return rows


def non_private(x: np.ndarray, y: np.ndarray, sp: proj_data.Split, truth: np.ndarray,
                ks: list[int], seed: int) -> list[dict[str, Any]]:
    """eps = infinity references: raw pixels and OPORP values without noise (one float numpy
    plan per k, labelled; sign vectors have no noiseless counterpart here: a zero projection
    is a coin in every private version)."""
    import proj_float as pf

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
    claim), against the exact pure-eps DP-OPORP-L and the paper's float DP-OPORP-G."""
    out = []
    for k in sorted({r["k"] for r in rows if r["k"] is not None}):
        for dense_name in ("DP-OPORP-L", "float DP-OPORP-G"):
            wins = []
            for e in eps_list:
                sign = [r[metric] for r in rows if r["method"].startswith("SignOPORP")
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


def parameters(eps_list: list[Fraction], ks: list[int], t_values: tuple[int, ...]) -> str:
    """The exact bases and noise ratios behind the rows, with the loss they really spend."""
    import proj_exact as pe

    cols = [f"SignOPORP t={t}: rho" for t in t_values] + [f"SignRP k={k}: rho" for k in ks]
    head = ("| eps | " + " | ".join(cols) + " | DP-OPORP-L / Raw-data-L: r |\n"
            + "|---|" + "---|" * (len(cols) + 1) + "\n")
    lines = []
    for e in eps_list:
        cells = []
        for power in [*t_values, *ks]:
            rho = pe.base(e, power)
            cells.append(f"{rho.a}/{rho.b} (eps {pe.achieved_eps(e, power):.6f})")
        r = pe.noise_ratio(e, BETA)
        spent = BETA * (math.log(r.denominator) - math.log(r.numerator))
        cells.append(f"{r.numerator}/{r.denominator} (eps {spent:.6f})")
        lines.append(f"| {e} | " + " | ".join(cells) + " |")
    return head + "\n".join(lines) + "\n"


def plot(rows: list[dict[str, Any]], refs: list[dict[str, Any]], metric: str, path: Path,
         ks: list[int]) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing (the [plot] extra): no picture", file=sys.stderr)
        return False
    fig, axes = plt.subplots(1, len(ks), figsize=(5 * len(ks), 4), squeeze=False)
    for ax, k in zip(axes[0], ks):
        for name in dict.fromkeys(r["method"] for r in rows):
            pts = [(float(Fraction(r["eps"])), r[metric]) for r in rows
                   if r["method"] == name and r["k"] in (k, None)]
            style = "--" if name.startswith("float") else "-"
            ax.plot(*zip(*pts), style, marker="o", ms=3, label=name)
        ax.set_xscale("log")
        ax.set_xlabel("eps")
        ax.set_ylabel(metric)
        ax.set_title(f"digits, k = {k}")
        ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_analytic(path: Path) -> bool:
    """:func:`exactdp.plot.paper001.figure` as a PNG (skipped without matplotlib)."""
    from exactdp.plot.draw import MissingPlotExtra, figure_bytes

    try:
        path.write_bytes(figure_bytes(paper001.figure(), "png"))
    except MissingPlotExtra:
        print("matplotlib missing (the [plot] extra): no picture", file=sys.stderr)
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="results directory (created if missing)")
    ap.add_argument("--eps", default=EPS_DEFAULT, help=f"comma-separated (default {EPS_DEFAULT})")
    ap.add_argument("--ks", default="16,32", help="comma-separated numbers of bins/bits")
    ap.add_argument("--t", default="1,2", help="SignOPORP repetitions t (comma-separated)")
    ap.add_argument("--reps", type=int, default=2, help="repetitions (new W/plan and noise)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--quick", action="store_true", help="eps 0.5,5,20, one repetition")
    ap.add_argument("--float-reference", action="store_true",
                    help="add the float numpy versions (labelled 'float', not exact)")
    ap.add_argument("--no-exact", action="store_true", help="float reference only (debugging)")
    args = ap.parse_args(argv)
    if args.quick:
        args.eps, args.reps = "0.5,5,20", 1
    eps_list = [Fraction(e) for e in args.eps.split(",")]
    ks = [int(k) for k in args.ks.split(",")]
    t_values = tuple(int(t) for t in args.t.split(","))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()

    x, y = proj_data.digits()
    sp = proj_data.split(y, seed=args.seed)
    truth = proj_data.true_neighbours(x, sp)
    methods: dict[str, Method] = {}
    if not args.no_exact:
        methods.update(exact_methods(args.seed, t_values))
    methods.update(gaussian_references(args.seed))
    if args.float_reference or args.no_exact:
        methods.update(float_methods(args.seed, t_values))
    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    rows = run(methods, eps_list, ks, args.reps, x, y, sp, truth, log)
    refs = non_private(x, y, sp, truth, ks, args.seed)
    analytic = paper001.tables()
    seconds = time.perf_counter() - start

    command = "python tests/benchmarks/proj_experiments.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    md = [f"Command: `{command}` ({seconds:.0f} s)\n"]
    for metric in ("P@10", "P@50", "SVM"):
        md.append(f"### {metric} on digits against eps\n\n"
                  + markdown(rows, refs, metric, eps_list))
        md.append("\n".join(f"- {v}" for v in verdict(rows, metric, eps_list)) + "\n")
        plot(rows, refs, metric, out / f"proj_{metric.replace('@', '_at_').lower()}.png", ks)
    md.append("### Exact parameters (rho^t <= e^eps per vector for SignOPORP, rho^k <= e^eps "
              "for SignRP, r^-beta <= e^eps for the geometric noise; certified, the eps "
              "really spent in brackets)\n\n" + parameters(eps_list, ks, t_values))
    md.append(analytic["markdown"])
    plot_analytic(out / "proj_analytic.png")
    (out / "proj_experiments.md").write_text("\n".join(md))
    (out / "proj_experiments.json").write_text(json.dumps(
        {"command": command, "seconds": seconds, "rows": rows, "no_privacy": refs,
         "analytic": analytic["json"]}, indent=1) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
