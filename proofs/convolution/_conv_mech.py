"""The convolution rows' bridge to the implementation: exact laws of the mechanisms of
:mod:`exactdp.convolution.mechanism` by running their own sampling code under
:func:`exactdp.explore.explore`, and the independent side (proofs/convolution/_conv) pushed through an
independently computed reconstruction ``G = H T^-1``, for comparison."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import partial
from typing import Any

from exactdp.convolution.domain import Domain
from exactdp.convolution.mechanism import IntegerStrategyMechanism, WalshFourierMechanism
from exactdp.convolution.strategy import IntegerStrategy
from exactdp.explore import explore
from exactdp.proofs.convolution._conv import (
    Vector,
    box,
    histograms,
    joint_law,
    mat_mul,
    neighbour_pairs,
    public_range,
    walsh_matrix,
)

Law = dict[Any, Fraction]


def domain_of(kind: str, n: int, bound: int) -> tuple[Domain, list[Vector]]:
    """The implementation's Domain and the same domain enumerated here."""
    if kind == "histograms":
        return Domain.histograms(n, bound), histograms(n, bound)
    return Domain.box(n, bound), box(n, bound)


def explored_laws(mech: Any, inputs: Sequence[Vector]) -> dict[Vector, Law]:
    """``{x: exact law of mech.sample_with(x, .)}`` by exploration."""
    return {x: explore(partial(mech.sample_with, x)) for x in inputs}


def walsh_mechanism(h: Sequence[int], ratios: Sequence[Fraction], kind: str,
                    bound: int) -> tuple[WalshFourierMechanism, list[Vector]]:
    dom, elems = domain_of(kind, len(h), bound)
    return WalshFourierMechanism(list(h), dom, list(ratios)), elems


def explored_walsh_laws(h: Sequence[int], ratios: Sequence[Fraction], kind: str, bound: int,
                        inputs: Sequence[Vector] | None = None
                        ) -> tuple[dict[Vector, Law], list[tuple[Vector, Vector, int]]]:
    mech, elems = walsh_mechanism(h, ratios, kind, bound)
    xs = elems if inputs is None else list(inputs)
    laws = explored_laws(mech, xs)
    pairs = [p for p in neighbour_pairs(elems) if p[0] in laws and p[1] in laws]
    return laws, pairs


def strategy_mechanism(t: Sequence[Sequence[int]], h_matrix: Sequence[Sequence[Fraction | int]],
                       ratios: Sequence[Fraction], kind: str, bound: int
                       ) -> tuple[IntegerStrategyMechanism, list[Vector]]:
    dom, elems = domain_of(kind, len(t), bound)
    strat = IntegerStrategy([list(r) for r in t], [list(r) for r in h_matrix], "proof")
    return IntegerStrategyMechanism(strat, dom, list(ratios)), elems


def inverse(m: Sequence[Sequence[Fraction | int]]) -> list[list[Fraction]]:
    """Exact inverse by Gauss-Jordan (independent of strategy.bareiss_inverse)."""
    n = len(m)
    a = [[Fraction(v) for v in row] + [Fraction(int(i == j)) for j in range(n)]
         for i, row in enumerate(m)]
    for col in range(n):
        piv = next(r for r in range(col, n) if a[r][col] != 0)
        a[col], a[piv] = a[piv], a[col]
        p = a[col][col]
        a[col] = [v / p for v in a[col]]
        for r in range(n):
            if r != col and a[r][col]:
                f = a[r][col]
                a[r] = [v - f * w for v, w in zip(a[r], a[col])]
    return [row[n:] for row in a]


def reference_output_laws(t: Sequence[Sequence[int]], h_matrix: Sequence[Sequence[Fraction | int]],
                          ratios_by_row: dict[int, Fraction], inputs: Sequence[Vector],
                          domain: Sequence[Vector]) -> dict[Vector, Law]:
    """Independent side: the joint law of the kept rows' clamped values (public ranges from
    the enumerated domain), pushed through ``G = H T^-1`` computed here.  Rows not in
    ``ratios_by_row`` must have a zero column of G (checked)."""
    g = mat_mul(h_matrix, inverse(t))
    kept = sorted(ratios_by_row)
    for j in range(len(t)):
        if j not in ratios_by_row and any(g[k][j] for k in range(len(g))):
            raise AssertionError(f"row {j} has a non-zero column of G but no ratio")
    tk = [t[j] for j in kept]
    lo, hi = public_range(tk, domain)
    # y_k = sum_j g[k][j] c_j = (sum_j gi[k][j] c_j) / den with integers gi = den g (den the
    # lcm of the kept columns' denominators): the same exact values
    den = math.lcm(1, *(Fraction(g[k][j]).denominator for k in range(len(g)) for j in kept))
    gi = [[int(Fraction(g[k][j]) * den) for j in kept] for k in range(len(g))]
    out: dict[Vector, Law] = {}
    for x in inputs:
        law: Law = {}
        for c, p in joint_law(tk, [ratios_by_row[j] for j in kept], lo, hi, x).items():
            y = tuple(Fraction(sum(a * v for a, v in zip(row, c)), den) for row in gi)
            law[y] = law.get(y, Fraction(0)) + p
        out[x] = law
    return out


def walsh_h_matrix(h: Sequence[int]) -> list[list[int]]:
    """XOR-convolution matrix ``H[a][b] = h[a ^ b]`` (definition)."""
    n = len(h)
    return [[h[a ^ b] for b in range(n)] for a in range(n)]


def walsh_t(n: int) -> list[list[int]]:
    return [list(r) for r in walsh_matrix(n)]


def loss_law_of_pair(p: Law, q: Law) -> dict[Fraction | None, Fraction]:
    """``{P(o)/Q(o): P-probability}`` (None for an infinite ratio)."""
    out: dict[Fraction | None, Fraction] = {}
    for o, a in p.items():
        if a == 0:
            continue
        b = q.get(o, Fraction(0))
        key = None if b == 0 else a / b
        out[key] = out.get(key, Fraction(0)) + a
    return out
