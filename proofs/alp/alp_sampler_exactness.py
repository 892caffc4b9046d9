"""ALP sampler exactness: the law of the implementation's ALP.project, explored on
its per-cell path for fixed seeds, IS the product law of the closed form (TV = 0)."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import statistical_distance
from exactdp.hashing import CarterWegman, TableHash
from exactdp.sparse_vectors import exact as ex
from exactdp.sparse_vectors.alp import ALP
from exactdp.sparse_vectors.alp_check import explored_law
from exactdp.sparse_vectors.alp_params import ALPParams

CLAIM = "ALP sampler exactness"
STATEMENT = """For fixed hash seeds h, ALP-projection's released bits have the law
prod_{cells} Bernoulli(p + (1 - 2p) pi_{a,b}), pi_{a,b} = 1 - prod_{i: h_b(i) = a}
(1 - Pr[b <= y_i]) with y_i = min(RandRound(x_i c), m): cells independent,
RandRound unbiased with one coin, OR on collisions, randomized response with p exactly."""
PROOF_IDEA = """exactdp.explore runs the implementation's ALP.project (per-cell path, fixed seeds) on
every branch of every coin and returns its exact law; exactdp.sparse_vectors.exact computes
the product law independently of alp.py from the hash rows h_b(key) (read from the family).
The statistical distance must be exactly 0 on every (seed tuple, input) of the grid:
colliding and separate keys, fractional and integer units, entries above beta (truncation),
Carter-Wegman and fully random (TableHash) families, s m <= 8 (quick) / 12 (full)."""


def _grid(full: bool) -> list[tuple[str, ALPParams, object, list[dict[int, int]]]]:
    f = Fraction
    out = [
        ("paper a=e=1", ALPParams.from_paper(1, 1, 2, 2, 2, 3), CarterWegman(5, 2, 3),
         [{1: 1, 2: 2}, {1: 3}, {}, {2: 1, 3: 1}]),
        ("paper a=1/2 grid 2", ALPParams.from_paper(1, f(1, 2), 1, 2, 2, 3, grid=2),
         CarterWegman(5, 2, 3), [{1: 1, 3: 3}, {2: 5}, {1: 2, 2: 1}]),
        ("alpha 3 (c = 1/3)", ALPParams.from_paper(1, 3, 6, 4, 2, 3), CarterWegman(5, 4, 3),
         [{1: 2, 2: 4}, {3: 7}]),
        ("unscaled TableHash", ALPParams.unscaled(f(1, 2), 2, 2, 2, 2), TableHash(2, 2),
         [{1: 1, 2: 1}, {1: 2}, {2: 5}]),
    ]
    if full:
        out.append(("paper 3x4", ALPParams.from_paper(1, 1, 4, 3, 2, 4), CarterWegman(5, 3, 4),
                    [{1: 1, 4: 3}, {2: 2, 3: 2}]))
    return out


def check(full: bool) -> ClaimReport:
    certs = []
    runs = 0
    for name, prm, family, inputs in _grid(full):
        alp = ALP(prm, family)  # type: ignore[arg-type]
        spec = ex.Spec.of(prm)
        seeds_all = list(family.seeds())  # type: ignore[attr-defined]
        stride = max(1, len(seeds_all) // (3 if full else 2))
        tuples = [tuple(seeds_all[(i * stride + j * 7) % len(seeds_all)]
                        for j in range(prm.columns)) for i in range(3 if full else 2)]
        tuples.append((seeds_all[0],) * prm.columns)  # the same seed in every column
        worst = Fraction(0)
        for seeds in tuples:
            for x in inputs:
                table = {k: tuple(family.row(sd, k) for sd in seeds)  # type: ignore[attr-defined]
                         for k in x}
                law = explored_law(alp, x, seeds)
                worst = max(worst, statistical_distance(law, ex.product_law(spec, table, x)))
                runs += 1
        certs.append(Certificate(CLAIM, f"{name}: {alp!r}", {"s": prm.rows, "m": prm.columns,
                                                             "k": prm.sparsity},
                                 f"{len(tuples)} seed tuples x {len(inputs)} inputs", worst,
                                 "TV = 0", worst == 0))
    return ClaimReport(CLAIM, f"{len(certs)} parameter sets, {runs} (seed tuple, input) laws",
                       f"max TV {max(Fraction(c.worst) for c in certs)}",  # type: ignore[arg-type]
                       "= 0 exactly", certs)
