"""Analytic curves of paper 001 from their formulas (LILI.md §2, §4 Figs 2 and 3).

* **Variance ratio (eq. 23, Thm 3.8-3.10)**, normalised data: ``Var_org = 2 s^2 + p s^4`` (noise
  on the p raw coordinates) against ``Var_rp = 2 s^2 + k s^4 + 1/k`` (noise on k Rademacher
  projections) and ``Var_oporp = 2 s^2 + k s^4 + (1/k)(p - k)/(p - 1)`` (OPORP's fixed-length
  bins).  Exact rationals at rational ``sigma``.
* **l2 sensitivity per matrix type (Fig. 2)**, ``beta = 1``, scaled ``x = W^T u / sqrt(k)``
  (``sqrt(s)`` for very sparse): Rademacher ``Delta_2 = 1`` exactly (every row has norm
  ``sqrt(k)``); OPORP ``Delta_2 = 1`` (one bin moves); very sparse ``s``: ``Delta_2^2 = s M / k``
  with ``M`` the largest row support, ``Bin(k, 1/s)`` per row, so ``Delta_2^2 <= s m / k`` with
  probability ``>= 1 - delta`` over W for the least ``m`` with ``p Pr[Bin(k, 1/s) > m] <= delta``
  (union bound, exact rational tail); Gaussian: Lemma 3.3's bound (a float formula, labelled).
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

SIGMAS = [Fraction(1, 100), Fraction(1, 20), Fraction(1, 10), Fraction(1, 5), Fraction(1, 2),
          Fraction(1), Fraction(2), Fraction(5)]
PS = (1000, 10000)
K_OVER_P = (Fraction(1, 100), Fraction(1, 20), Fraction(1, 10), Fraction(1, 2))
SENS_PS = (100, 1000, 10**4, 10**5)
SENS_KS = (256, 512)
SPARSITY = (3, 10)
DELTA = Fraction(1, 10**6)


def variance_ratio(p: int, k: int, sigma: Fraction, oporp: bool = False) -> Fraction:
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
    sens, ratios = sensitivity_rows(), ratio_rows()
    md = [("### Analytic: variance ratio R = Var_org / Var_rp (eq. 23; exact rationals, shown "
          "to 4 digits; OPORP's in brackets)\n"),
          "| p | k | " + " | ".join(f"sigma={s}" for s in SIGMAS) + " |",
          "|---|---|" + "---|" * len(SIGMAS)]
    for r in ratios:
        md.append(f"| {r['p']} | {r['k']} | " + " | ".join(
            f"{_num(a)} ({_num(b)})" for a, b in zip(r["R"], r["R_oporp"])) + " |")
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


def plot(path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing (the [plot] extra): no picture", file=sys.stderr)
        return False
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    grid = [Fraction(10**i, 1000) for i in range(5)]
    grid = sorted({g * m for g in grid for m in (1, 2, 5)})
    for p in PS:
        for kp in K_OVER_P:
            k = int(p * kp)
            a.plot([float(s) for s in grid], [float(variance_ratio(p, k, s)) for s in grid],
                   label=f"p={p}, k={k}")
    a.set_xscale("log")
    a.set_yscale("log")
    a.set_xlabel("sigma")
    a.set_ylabel("R = Var_org / Var_rp (eq. 23)")
    a.legend(fontsize=6)
    a.grid(True, alpha=0.3)
    ps = [10**e for e in range(1, 6)]
    for k in SENS_KS:
        b.plot(ps, [1.0] * len(ps), "k-", label="Rademacher / OPORP (exact)" if k == 256 else None)
        for s in SPARSITY:
            b.plot(ps, [math.sqrt(s * sparse_support_bound(k, s, p, DELTA) / k) for p in ps],
                   marker="o", ms=3, label=f"sparse s={s}, k={k}")
        b.plot(ps, [gaussian_bound(k, p, DELTA) for p in ps], "--",
               label=f"Gaussian bound, k={k} (float)")
    b.set_xscale("log")
    b.set_xlabel("p")
    b.set_ylabel("Delta_2 (w.p. >= 1 - 1e-6 over W)")
    b.legend(fontsize=6)
    b.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
