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

from exactdp.explore import explore
from exactdp.hashing import CarterWegman, HashFamily
from exactdp.randomness import RandomSource
from exactdp.sparse_vectors import exact as ex
from exactdp.sparse_vectors.alp import ALP
from exactdp.sparse_vectors.alp_check import FamilyWitness, worst_ratio_over_family
from exactdp.sparse_vectors.alp_params import ALPParams

__all__ = ["Config", "estimate_law", "family_worst", "paper_configs"]


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
