"""Shared configurations of the ALP rows (paper 003).

Each configuration names the implementation's parameters (built through ``ALPParams``'s own
constructors, so a planted bug in them reaches the rows), the hash family (Carter-Wegman with
P = 5 as in the hand-derived table, or the implementation's default), and the small input domain:
every k-sparse vector over keys 1..d with entries X/g, X in [0, max_units].
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from exactdp.certificate import Certificate
from exactdp.explore import explore
from exactdp.hashing import CarterWegman, HashFamily
from exactdp.randomness import RandomSource
from exactdp.sparse_vectors import exact as ex
from exactdp.sparse_vectors.alp import ALP
from exactdp.sparse_vectors.alp_check import FamilyWitness, worst_ratio_over_family
from exactdp.sparse_vectors.alp_params import ALPParams
from exactdp.sparse_vectors.estimator import ALPSketch

__all__ = ["Config", "CountingBytes", "estimate_law", "family_worst", "gamma", "nonvacuous",
           "paper_configs", "reads_per_query"]


@dataclass(frozen=True)
class Config:
    name: str
    make: Callable[[], ALPParams]
    prime: int
    max_units: int
    expected: Fraction | None  # the hand-derived value (None: no claim)
    epsilon: Fraction

    def params(self) -> ALPParams:
        return self.make()

    def family(self, params: ALPParams) -> HashFamily:
        return CarterWegman(self.prime, params.rows, params.universe)

    def inputs(self, params: ALPParams) -> list[dict[int, int]]:
        return ex.sparse_inputs(params.universe, params.sparsity, self.max_units)

    def describe(self, params: ALPParams) -> dict[str, object]:
        return {"c": params.scale, "p": params.flip, "m": params.columns, "s": params.rows,
                "k": params.sparsity, "d": params.universe, "grid": params.grid,
                "max_x": Fraction(self.max_units, params.grid), "family": f"CW P={self.prime}"}


def paper_configs(full: bool) -> list[Config]:
    """The reference configurations C1-C4 (CW, P = 5), plus under ``full`` larger domains of the same kind."""
    one = Fraction(1)
    out = [
        Config("C1", lambda: ALPParams.from_paper(1, 1, 3, 3, 1, 4), 5, 3, Fraction(2), one),
        Config("C2", lambda: ALPParams.from_paper(1, 3, 3, 3, 1, 4), 5, 3, Fraction(2), one),
        Config("C3", lambda: ALPParams.from_paper(1, Fraction(1, 2), Fraction(3, 2), 3, 1, 3),
               5, 2, Fraction(9, 4), one),
        Config("C4", lambda: ALPParams.from_paper(1, 1, 2, 5, 2, 3, grid=2), 5, 2,
               Fraction(9, 4), one),
    ]
    if full:
        out += [
            Config("C1 eps=1/2", lambda: ALPParams.from_paper(Fraction(1, 2), Fraction(1, 2),
                                                              3, 3, 1, 4), 5, 3,
                   Fraction(3, 2), Fraction(1, 2)),
            Config("C3 d=4 k=2", lambda: ALPParams.from_paper(1, Fraction(1, 2),
                                                              Fraction(3, 2), 3, 2, 4),
                   5, 2, Fraction(9, 4), one),
            Config("grid 1/3", lambda: ALPParams.from_paper(1, 1, 2, 3, 1, 3, grid=3), 5, 4,
                   None, one),
        ]
    return out


def family_worst(cfg: Config, params: ALPParams | None = None,
                 radius: Fraction = Fraction(1)) -> tuple[ALPParams, FamilyWitness]:
    prm = cfg.params() if params is None else params
    pairs = list(ex.neighbour_pairs(cfg.inputs(prm), prm.grid, radius))
    return prm, worst_ratio_over_family(prm, cfg.family(prm), pairs)


@cache
def estimate_law(p: Fraction, m: int, y: int) -> dict[Fraction, Fraction]:
    """The exact law of the implementation's ``y~ - y`` for one key with true ``y`` units and
    no collisions: ALP.project (s = 1 row, k = d = 1, c = 1, p = ``p``, m columns; one fixed
    Carter-Wegman seed) explored on its per-cell path, then ``sketch.estimate_units(1)``."""
    prm = ALPParams(Fraction(1), p, m, 1, 1, 1)
    family = CarterWegman(2, 1, 1)
    alp = ALP(prm, family)
    seeds = (next(iter(family.seeds())),) * m

    def run(source: RandomSource) -> Fraction:
        return alp.project({1: y} if y else {}, source=source, seeds=seeds,
                           rr="cells").estimate_units(1) - y

    return explore(run)


def gamma(alpha: Fraction, rows: int, sparsity: int) -> Fraction:
    """The reconstructed ``gamma`` of ALP-full Lemma 4.15: ``p_eff = p + (1 - 2p) k/s =
    1/(gamma + 2)`` for ``p = 1/(alpha + 2)``, i.e. ``gamma = alpha (s - 2k)/(s + alpha k)``
    (positive exactly when ``s > 2k``)."""
    return alpha * (rows - 2 * sparsity) / (rows + alpha * sparsity)


def nonvacuous(claim: str, count: int, total: int, what: str) -> Certificate:
    """Fails an accuracy row whose grid never made its bound bite: ``count`` of ``total``
    bounds were non-trivial (``what`` says how); passes only when ``count > 0``."""
    return Certificate(claim + " (non-vacuous)", "the whole grid", {"bounds": total},
                       f"{total} bounds", count, f"> 0 bounds {what}", count > 0)


class CountingBytes(bytes):
    """Bytes that count the reads by index (the cells a query touches)."""

    reads = 0

    def __getitem__(self, index):  # type: ignore[no-untyped-def, override]
        type(self).reads += 1
        return super().__getitem__(index)


def reads_per_query(sketch: ALPSketch, key: int) -> int:
    """How many bytes of the packed matrix ``sketch.estimate(key)`` reads (one per cell,
    counted on a copy of the sketch whose bits count their reads)."""

    class Counter(CountingBytes):
        reads = 0

    counted = ALPSketch._built(sketch.params, sketch.hashes, sketch.seeds, Counter(sketch.bits))
    counted.estimate(key)
    return Counter.reads


def spec_estimate_law(params: ALPParams, prime: int, x: dict[int, int], key: int
                      ) -> dict[tuple[int, Fraction], Fraction]:
    """The law of ``(y_key, y~_key)`` from the specification alone (no implementation code):
    ``y_j = min(floor(r) + Bernoulli(frac r), m)`` for ``r = X_j c/g``, Carter-Wegman rows
    counted with :func:`exactdp.sparse_vectors.exact.cw_row` over all ``P(P-1)`` seeds of a
    column (the cell read by ``key`` is 1 iff some pair with ``y >= b`` lands in its row),
    randomized response ``p``, and :func:`exactdp.sparse_vectors.exact.unary_estimate` on
    every pattern.  The implementation's ``alp_error.estimate_law`` must equal it."""
    from itertools import product

    c, g, m, s, p = params.scale, params.grid, params.columns, params.rows, params.flip
    items = sorted(x.items())
    choices = []
    for _, big_x in items:
        r = big_x * c / g
        whole = r.numerator // r.denominator
        frac = r - whole
        choices.append([(min(whole, m), 1 - frac), (min(whole + 1, m), frac)])
    seeds = [(a, b) for a in range(1, prime) for b in range(prime)]
    estimates = [ex.unary_estimate([(w >> i) & 1 for i in range(m)]) for w in range(1 << m)]
    law: dict[tuple[int, Fraction], Fraction] = {}
    for pick in product(*choices):
        weight = Fraction(1)
        for _, w in pick:
            weight *= w
        if not weight:
            continue
        ys = {k: y for (k, _), (y, _) in zip(items, pick)}
        y_key = ys.get(key, 0)
        probs = [Fraction(1)]
        for col in range(1, m + 1):
            on = [k for k, y in ys.items() if y >= col]
            hit = sum(1 for a, b in seeds
                      if any(ex.cw_row(a, b, prime, s, k) == ex.cw_row(a, b, prime, s, key)
                             for k in on))
            u = p + (1 - 2 * p) * Fraction(hit, len(seeds))
            probs = [w * (1 - u) for w in probs] + [w * u for w in probs]
        for pattern, est in enumerate(estimates):
            if probs[pattern]:
                cell = (y_key, est)
                law[cell] = law.get(cell, Fraction(0)) + weight * probs[pattern]
    return law
