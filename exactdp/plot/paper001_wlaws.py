"""Paper 001 (Li & Li), Figures 8 and 9: how the law of one projection ``w^T u`` depends on the
distribution of ``w`` (Section 4.3), exactly where ``w`` takes finitely many values.

For the very sparse distribution (eq. 18) with ``s = 1`` (Rademacher), ``3`` and ``10`` the
entries are ``w_i in {-1, 0, +1}`` with probabilities ``1/(2s), 1 - 1/s, 1/(2s)`` (the scale
``sqrt(s)`` cancels in both quantities drawn), so on integer data ``u`` the law of ``S = w^T u``
is a polynomial: the product over ``i`` of ``x^-u_i + 2(s - 1) + x^u_i`` over ``(2s)^p``.
:func:`sum_counts` multiplies these polynomials exactly by Kronecker substitution (each
polynomial evaluated at ``x = 2^B`` as one gmpy2 integer, ``B`` wider than any coefficient,
then the coefficients read back), so ``p = 1000`` takes well under a second.  From it:

* :func:`p_plus_exact` -- eq. 30's ``P+ = Pr(beta max_i |w_i| >= |w^T u|)``: when some
  ``w_i != 0`` the maximum is 1 and the event is ``|S| <= beta``; when every ``w_i = 0``
  both sides are 0 and the event holds, with ``S = 0`` too, so ``P+ = Pr(|S| <= beta)``;
* :func:`level_law_exact` -- the law of Algorithm 7's level ``L = ceil(|w^T u| / (beta
  max_i |w_i|))`` (``L = 0`` when ``w^T u = 0``, whatever ``w``).

The Gaussian and uniform ``w`` have no finite law: :func:`simulate` draws them with numpy
(float, labelled "simulated", the number of draws stated), and eq. 31 (``2 Phi(beta/||u||) -
1``) and eq. 32 (Lemma 4.3's integral at ``r = beta/||u||``) are certified rational brackets
(:mod:`exactdp.normal_cdf`, :mod:`exactdp.projections.p_plus_gaussian`; ``||u||`` bracketed
by integer square roots).

Data as in the paper, ``u`` uniform on ``[-1, 1]^p``, on the grid of step ``1/c``: one seeded
vector of ``{-c..c}^p`` per ``p``; ``beta = 1`` is ``c`` grid steps.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from math import isqrt
from typing import TYPE_CHECKING, Any

import gmpy2

from exactdp.certified import Interval
from exactdp.params import ParameterError, positive_int

if TYPE_CHECKING:
    import numpy as np

__all__ = ["FIG8_BETAS", "FIG8_C", "FIG8_PS", "FIG8_PS_QUICK", "SPARSE", "data_vector", "eq31",
           "eq32", "fig8_values", "fig9_values", "figure8", "figure9_panel", "level_law_exact",
           "p_plus_exact", "simulate", "sum_counts"]

#: The very sparse distributions drawn exactly (s = 1 is Rademacher).
SPARSE = (1, 3, 10)
#: Grid of the data: u in {-c..c}^p / c, so beta = 1 and 0.1 are whole steps.
FIG8_C = 10
FIG8_BETAS = (Fraction(1), Fraction(1, 10))
FIG8_PS = (10, 20, 50, 100, 200, 500, 1000)
FIG8_PS_QUICK = (10, 50, 100)


def data_vector(p: int, c: int, seed: str) -> list[int]:
    """One seeded vector of ``{-c..c}^p`` (exactdp's seeded source: a figure's fixed data)."""
    from exactdp.randomness import SeededSource

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        src = SeededSource(f"paper001-{seed}-{p}-{c}".encode())
    return [src.uniform(2 * c + 1) - 1 - c for _ in range(p)]


def sum_counts(u: Sequence[int], s: int) -> tuple[dict[int, int], int]:
    """``(counts, total)``: ``Pr(w^T u = t) = counts[t] / total`` exactly, for ``w_i`` i.i.d.
    ``-1, 0, +1`` with weights ``1, 2(s - 1), 1`` (eq. 18's very sparse law; ``s = 1``:
    Rademacher).  ``total = (2s)^(number of non-zero u_i)``: a zero coordinate changes no sum."""
    s = positive_int(s, "s")
    mult: dict[int, int] = {}
    for v in u:
        if type(v) is not int:
            raise ParameterError(f"u must hold ints (got {v!r:.40})")
        if v:
            mult[abs(v)] = mult.get(abs(v), 0) + 1
    n = sum(mult.values())
    if n == 0:
        return {0: 1}, 1
    # Each coefficient is at most (2s)^n: B bits per slot (a multiple of 8, read as bytes).
    bits = ((2 * s) ** n).bit_length() + 1
    bits += -bits % 8
    one = gmpy2.mpz(1)
    product = one
    for v, m in mult.items():  # (1 + 2(s-1) x^v + x^2v)^m, x = 2^B
        factor = one + (2 * (s - 1)) * (one << (bits * v)) + (one << (2 * bits * v))
        product *= factor**m
    half = sum(v * m for v, m in mult.items())  # x^-half shifts the exponents to sums
    raw = int(product).to_bytes((2 * half + 1) * bits // 8, "little")
    width = bits // 8
    counts = {}
    for j in range(2 * half + 1):
        c = int.from_bytes(raw[j * width:(j + 1) * width], "little")
        if c:
            counts[j - half] = c
    return counts, (2 * s) ** n


def p_plus_exact(u: Sequence[int], beta: int, s: int) -> Fraction:
    """Eq. 30 exactly for eq. 18's very sparse ``w`` (``s = 1``: Rademacher): ``Pr(|w^T u| <=
    beta)``, ``beta`` in grid steps (see the module docstring for the all-zero ``w``)."""
    counts, total = sum_counts(u, s)
    return Fraction(sum(c for t, c in counts.items() if abs(t) <= beta), total)


def level_law_exact(u: Sequence[int], beta: int, s: int) -> dict[int, Fraction]:
    """The exact law of Algorithm 7's ``L = ceil(|w^T u| / (beta max_i |w_i|))`` for eq. 18's
    ``w``: ``max |w_i| = 1`` whenever ``w^T u != 0``, so ``L = ceil(|S| / beta)``."""
    counts, total = sum_counts(u, s)
    law: dict[int, int] = {}
    for t, c in counts.items():
        level = -(-abs(t) // beta)
        law[level] = law.get(level, 0) + c
    return {lv: Fraction(c, total) for lv, c in sorted(law.items())}


def _norm_box(u: Sequence[int], c: int, bits: int = 40) -> Interval:
    """``||u / c||`` bracketed by rationals ``2^-bits`` apart (integer square roots)."""
    sq = sum(v * v for v in u) << (2 * bits)
    r = isqrt(sq)
    return Interval(Fraction(r, c << bits), Fraction(r + (r * r < sq), c << bits))


def eq31(u: Sequence[int], c: int, beta: Fraction) -> Interval:
    """Eq. 31's normal approximation ``2 Phi(beta/||u||) - 1``, certified bracket."""
    from exactdp.normal_cdf import phi_interval

    norm = _norm_box(u, c)
    box = phi_interval(Interval(beta / norm.hi, beta / norm.lo), 64)
    return Interval(2 * box.lo - 1, 2 * box.hi - 1)


def eq32(u: Sequence[int], c: int, beta: Fraction, step: Fraction = Fraction(1, 16)
         ) -> Interval:
    """Eq. 32 (Lemma 4.3 at ``r = beta/||u||``, the Gaussian ``w``'s upper bound), certified:
    ``P(r, p)`` increases in ``r``, so the brackets at the ends of ``r``'s bracket."""
    from exactdp.projections.p_plus_gaussian import p_plus_gaussian

    norm = _norm_box(u, c)
    r_lo, r_hi = min(beta / norm.hi, Fraction(1)), min(beta / norm.lo, Fraction(1))
    return Interval(p_plus_gaussian(r_lo, len(u), step).lo,
                    p_plus_gaussian(r_hi, len(u), step).hi)


def _draw_w(kind: str, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    if kind == "Gaussian":
        return rng.standard_normal(shape)
    if kind == "uniform":
        return rng.uniform(-1.0, 1.0, shape)
    raise ParameterError(f"w distribution {kind!r}: Gaussian or uniform")


def simulate(u: Sequence[int], c: int, kind: str, draws: int, seed: int,
             beta: Fraction | None = None, chunk: int = 4096) -> Any:
    """Float simulation (numpy) for Gaussian or uniform ``w``: with ``beta``, the fraction of
    ``draws`` columns with ``beta max|w_i| >= |w^T u|`` (eq. 30); without, the levels
    ``L = ceil(|w^T u| / max|w_i|)`` in units of ``beta = 1`` are returned as an array."""
    import numpy as np

    rng = np.random.default_rng([seed, len(u), sum(map(ord, kind))])
    vec = np.asarray(u, dtype=np.float64) / c
    hits, levels = 0, []
    done = 0
    while done < draws:
        m = min(chunk, draws - done)
        w = _draw_w(kind, (m, len(u)), rng)
        x = np.abs(w @ vec)
        top = np.abs(w).max(axis=1)
        if beta is not None:
            hits += int(np.count_nonzero(float(beta) * top >= x))
        else:
            levels.append(np.ceil(x / top).astype(np.int64))
        done += m
    return hits / draws if beta is not None else np.concatenate(levels)


def fig8_values(ps: Sequence[int], draws: int, seed: int = 2024,
                progress: Callable[[str], None] = lambda m: None) -> dict[str, Any]:
    """Per ``beta`` of :data:`FIG8_BETAS` and ``p``: exact eq. 30 for ``s = 1, 3, 10``, the
    simulated fraction for Gaussian and uniform ``w`` and the brackets of eqs. 31 and 32."""
    out: dict[str, Any] = {"c": FIG8_C, "draws": draws, "p": list(ps), "beta": {}}
    vecs = {p: data_vector(p, FIG8_C, "fig8") for p in ps}
    for beta in FIG8_BETAS:
        steps = int(beta * FIG8_C)
        progress(f"paper 001 Fig. 8: beta = {beta}")
        row: dict[str, list[Any]] = {f"s={s} (exact)": [p_plus_exact(vecs[p], steps, s)
                                                       for p in ps] for s in SPARSE}
        for kind in ("Gaussian", "uniform"):
            row[f"{kind} (simulated)"] = [simulate(vecs[p], FIG8_C, kind, draws, seed, beta)
                                          for p in ps]
        row["eq. 31"] = [eq31(vecs[p], FIG8_C, beta) for p in ps]
        row["eq. 32"] = [eq32(vecs[p], FIG8_C, beta) for p in ps]
        out["beta"][str(beta)] = row
    return out


def fig9_values(vectors: Mapping[int, Sequence[int]], c: int, draws: int, seed: int = 2024
                ) -> dict[int, dict[str, dict[int, Any]]]:
    """Per ``p`` (the data vector ``vectors[p]`` in ``{-c..c}^p``): the exact law of ``L`` for
    ``s = 1, 3, 10`` and the simulated proportions for Gaussian and uniform ``w`` (``beta =
    1`` = ``c`` steps)."""
    import numpy as np

    out: dict[int, dict[str, dict[int, Any]]] = {}
    for p, u in vectors.items():
        laws: dict[str, dict[int, Any]] = {f"s={s} (exact)": level_law_exact(u, c, s)
                                           for s in SPARSE}
        for kind in ("Gaussian", "uniform"):
            lv = simulate(u, c, kind, draws, seed)
            values, counts = np.unique(lv, return_counts=True)
            laws[f"{kind} (simulated)"] = {int(v): int(n) / draws
                                           for v, n in zip(values, counts, strict=True)}
        out[p] = laws
    return out


_STYLE = {"s=1 (exact)": ("C0", "-", "o"), "s=3 (exact)": ("C2", "-", "^"),
          "s=10 (exact)": ("C4", "-", "v"), "Gaussian (simulated)": ("C3", "--", "s"),
          "uniform (simulated)": ("C1", "--", "D")}


def figure8(v: Mapping[str, Any]) -> Any:
    """One panel per ``beta``: eq. 30 against ``p`` for the five ``w``, with eqs. 31, 32."""
    from exactdp.plot.draw import new_figure

    betas = list(v["beta"])
    fig, axes = new_figure(6.8 * len(betas), 5.6, 1, len(betas))
    axes = axes if len(betas) > 1 else [axes]
    ps = v["p"]
    for a, beta in zip(axes, betas, strict=True):
        row = v["beta"][beta]
        for name, (colour, style, marker) in _STYLE.items():
            a.plot(ps, [float(q) for q in row[name]], style, color=colour, marker=marker,
                   ms=4, label=("very sparse " if "s=" in name and "s=1 " not in name else
                                "Rademacher " if "s=1 " in name else "") + name)
        for name, style in (("eq. 31", "k--"), ("eq. 32", "k:")):
            a.plot(ps, [float(b.hi) for b in row[name]], style, linewidth=1.3,
                   label=f"{name} (certified bracket, upper end)"
                         + (": normal approx. of Rademacher" if name == "eq. 31"
                            else ": Gaussian w's bound"))
        a.set_xscale("log")
        a.set_yscale("log")
        a.set_xlabel("p (data dimension)")
        a.set_ylabel("P+ = Pr(beta max|w_i| >= |w^T u|)  (eq. 30)")
        grid = int(Fraction(beta) * v["c"]) == 1
        a.set_title(f"beta = {beta}: exact for s = 1, 3, 10 (integer counts);\n"
                    f"Gaussian and uniform w simulated ({v['draws']} draws of w, floats)"
                    + ("\nbeta is one grid step: a Rademacher sum has the parity of sum u_i,"
                       "\nso only S = 0 or only S = +-1 step counts (the zigzag)" if grid
                       else ""), fontsize=9)
        a.grid(True, alpha=0.3, which="both")
        a.legend(fontsize=7)
    fig.suptitle(f"Paper 001 Fig. 8: P+ for five distributions of w; one seeded u per p, "
                 f"uniform on [-1, 1]^p in steps of 1/{v['c']}", fontsize=10)
    return fig


def figure9_panel(a: Any, laws: Mapping[str, Mapping[int, Any]], draws: int) -> None:
    """Fig. 9's proportions of each level ``L`` for the five ``w`` on one axis."""
    top = 0
    for law in laws.values():  # 99.9 % of each law shown
        mass = Fraction(0)
        for lv, q in law.items():
            mass += Fraction(q)
            if mass >= Fraction(999, 1000):
                top = max(top, lv)
                break
    for name, (colour, style, marker) in _STYLE.items():
        law = laws[name]
        xs = [lv for lv in law if lv <= top + 1]
        a.plot(xs, [float(law[lv]) for lv in xs], style, color=colour, marker=marker, ms=3,
               label=name.replace("(simulated)", f"(simulated, {draws} columns)"))
    a.set_xlim(-0.5, top + 1.5)
