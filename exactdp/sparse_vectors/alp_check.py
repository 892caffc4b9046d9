"""The exact privacy check of ALP-projection, read off the implementation (notes/ALP.md §3.8).

ALP's output is ``(h, z~)``: the hash seeds are released, so the privacy ratio must hold for
EVERY seed (the seeds' own probability is the same under ``x`` and ``x'`` and cancels).  Given
the seeds, the check uses the implementation twice:

* :func:`explored_law` -- the law of the released bits, running :meth:`ALP.project` with
  fixed seeds under :func:`exactdp.explore.explore` (the per-cell randomized-response path:
  every coin branches with its exact weight).  Exponential in ``s m``; tiny cases only.
* :func:`pre_noise_law` -- the law of the pre-noise cell set ``z``, running the
  implementation's :func:`~exactdp.sparse_vectors.alp.scaled_units` (its ``k`` RandRound
  coins, explored) and :func:`~exactdp.sparse_vectors.alp.embed`: at most ``2^k`` paths.
  Its cell marginals ``pi_{a,b}`` give ``Pr[z~_{a,b} = 1] = p + (1 - 2p) pi_{a,b}``; the
  cells are independent (checked on every law: the joint law of ``z`` is the product of its
  marginals) and randomized response flips each cell independently (checked by the
  sampler-exactness row: the explored law of ``project`` equals the product law, TV = 0).

:func:`worst_ratio_over_family` then takes, for every ordered neighbouring pair of a small
domain, the worst ratio over all seeds of the family: the cells of column ``b`` depend only
on the seed ``h_b``, so the worst over seed tuples is the product over columns of the worst
over one seed (``|family| * m`` evaluations instead of ``|family|^m``).  The per-pair
maximum over outputs is the product over cells of ``max(u/v, (1-u)/(1-v))``; the output that
attains it is part of the witness.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.explore import explore
from exactdp.hashing import HashFamily, Seed, TableSeed
from exactdp.params import ResourceLimitError
from exactdp.randomness import RandomSource
from exactdp.sparse_vectors.alp import ALP, embed, scaled_units
from exactdp.sparse_vectors.alp_params import ALPParams

__all__ = [
    "FamilyWitness",
    "IndependenceError",
    "cell_marginals",
    "domain_size",
    "explored_law",
    "pre_noise_law",
    "worst_ratio_over_family",
]

Input = Mapping[int, int]


class IndependenceError(AssertionError):
    """The implementation's pre-noise cells were not independent (the product argument
    of the privacy proof would not apply): a bug, never a user error."""


def explored_law(alp: ALP, x: Input, seeds: Sequence[Seed]) -> dict[int, Fraction]:
    """The exact law of ``alp.project(x, seeds=seeds)``'s bits, explored on the per-cell
    path, as ``{bitmask: probability}`` with cell ``(a, b)`` at bit ``(b - 1) s + (a - 1)``
    (read through ``sketch.cell``)."""
    s, m = alp.params.rows, alp.params.columns
    if s * m > 20:
        raise ResourceLimitError(f"exploring s m = {s * m} cells branches 2^{s * m} ways "
                                 f"(at most 2^20 here)")
    cells = [(a, b, (b - 1) * s + (a - 1)) for b in range(1, m + 1) for a in range(1, s + 1)]

    def run(source: RandomSource) -> int:
        sketch = alp.project(dict(x), source=source, seeds=tuple(seeds), rr="cells")
        return sum(sketch.cell(a, b) << j for a, b, j in cells)

    return explore(run)


def pre_noise_law(params: ALPParams, hashes: HashFamily, x: Input,
                  seeds: Sequence[Seed]) -> dict[frozenset[tuple[int, int]], Fraction]:
    """The exact law of the set of cells the implementation sets to 1 before randomized
    response (its ``scaled_units`` explored, then its ``embed``)."""

    def run(source: RandomSource) -> frozenset[tuple[int, int]]:
        return embed(params, tuple(seeds), scaled_units(params, dict(x), source), hashes)

    return explore(run)


def cell_marginals(params: ALPParams, hashes: HashFamily, x: Input,
                   seeds: Sequence[Seed]) -> dict[tuple[int, int], Fraction]:
    """``pi_{a,b} = Pr[z_{a,b} = 1]`` for every cell, from :func:`pre_noise_law`, after
    checking that the joint law is the product of these marginals (independent cells)."""
    law = pre_noise_law(params, hashes, x, seeds)
    pi = {(a, b): Fraction(0) for b in range(1, params.columns + 1)
          for a in range(1, params.rows + 1)}
    for cells, w in law.items():
        for cell in cells:
            pi[cell] += w
    random_cells = [c for c, v in pi.items() if 0 < v < 1]
    if len(random_cells) > 1:
        for cells, w in law.items():
            prod = Fraction(1)
            for c in random_cells:
                prod *= pi[c] if c in cells else 1 - pi[c]
            if prod != w:
                raise IndependenceError(f"pre-noise cells of x = {dict(x)} are not "
                                        f"independent: Pr[{sorted(cells)}] = {w} != {prod}")
    return pi


@dataclass(frozen=True)
class FamilyWitness:
    """The worst ratio over a domain's ordered neighbouring pairs and every seed tuple."""

    ratio: Fraction
    numerator_input: dict[int, int]
    denominator_input: dict[int, int]
    seeds: tuple[Seed, ...]
    output: tuple[tuple[int, ...], ...]  # output[a-1][b-1] = z~_{a,b}
    p: Fraction
    q: Fraction
    pairs: int
    family_size: int

    def to_json(self) -> dict[str, Any]:
        return {"ratio": str(self.ratio), "numerator_input": _show(self.numerator_input),
                "denominator_input": _show(self.denominator_input),
                "seeds": [_seed(s) for s in self.seeds],
                "output_rows": ["".join(map(str, row)) for row in self.output],
                "p": str(self.p), "q": str(self.q)}


def _show(x: Mapping[int, int]) -> dict[str, str]:
    return {str(k): str(v) for k, v in sorted(x.items())}


def _seed(seed: Seed) -> Any:
    if isinstance(seed, TableSeed):
        return [str(v) for v in seed.table]
    return {"a": str(seed.a), "b": str(seed.b)}


def domain_size(n_inputs: int, pairs: int, family_size: int, params: ALPParams) -> int:
    """A rough count of the cell comparisons :func:`worst_ratio_over_family` makes."""
    return (pairs * params.columns * family_size + n_inputs * family_size) * params.rows


def _cellmax(u: Fraction, v: Fraction) -> tuple[Fraction, int]:
    up, down = u / v, (1 - u) / (1 - v)
    return (up, 1) if up >= down else (down, 0)


def worst_ratio_over_family(params: ALPParams, hashes: HashFamily,
                            pairs: Sequence[tuple[Input, Input]]) -> FamilyWitness:
    """The worst ``Pr[o | x, h] / Pr[o | x', h]`` over the given ordered pairs, every seed
    tuple ``h`` of ``hashes`` and every output ``o``, from the implementation's cell
    marginals (see the module docstring), with its witness."""
    seeds = list(hashes.seeds())
    s, m, p = params.rows, params.columns, params.flip
    marg: dict[tuple[tuple[int, int], ...], list[dict[tuple[int, int], Fraction]]] = {}

    def us(x: Input) -> list[dict[tuple[int, int], Fraction]]:
        key = tuple(sorted(x.items()))
        if key not in marg:
            marg[key] = [{c: p + (1 - 2 * p) * v
                          for c, v in cell_marginals(params, hashes, x, (sd,) * m).items()}
                         for sd in seeds]
        return marg[key]

    best: FamilyWitness | None = None
    for x, x2 in pairs:
        ux, vx = us(x), us(x2)
        ratio, chosen, out = Fraction(1), [], {}
        for b in range(1, m + 1):
            col_best, col_arg, col_bits = Fraction(-1), 0, {}
            for j in range(len(seeds)):
                f, bits = Fraction(1), {}
                for a in range(1, s + 1):
                    r, bit = _cellmax(ux[j][(a, b)], vx[j][(a, b)])
                    f *= r
                    bits[a] = bit
                if f > col_best:
                    col_best, col_arg, col_bits = f, j, bits
            ratio *= col_best
            chosen.append(col_arg)
            out.update({(a, b): bit for a, bit in col_bits.items()})
        if best is None or ratio > best.ratio:
            h = tuple(seeds[j] for j in chosen)
            prob_x = prob_x2 = Fraction(1)
            for b in range(1, m + 1):
                for a in range(1, s + 1):
                    u, v = ux[chosen[b - 1]][(a, b)], vx[chosen[b - 1]][(a, b)]
                    prob_x *= u if out[(a, b)] else 1 - u
                    prob_x2 *= v if out[(a, b)] else 1 - v
            rows = tuple(tuple(out[(a, b)] for b in range(1, m + 1)) for a in range(1, s + 1))
            best = FamilyWitness(ratio, dict(x), dict(x2), h, rows, prob_x, prob_x2, 0,
                                 len(seeds))
    if best is None:
        raise ResourceLimitError("worst_ratio_over_family: no neighbouring pair in the domain")
    return FamilyWitness(best.ratio, best.numerator_input, best.denominator_input,
                         best.seeds, best.output, best.p, best.q, len(pairs), len(seeds))
