"""The exact privacy check of ALP-projection, read off the implementation.

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

Within :func:`worst_ratio_over_family` the coins are explored once per input
(:func:`units_law`) and pushed through ``embed`` for each seed (:func:`pushed_law`; ``embed``
draws nothing, so this is :func:`pre_noise_law` -- equal on every seed, tests/
test_alp_check_fast.py), and all cell arithmetic is on integer numerators.

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
from math import lcm
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
    "pushed_law",
    "units_law",
    "worst_ratio_over_family",
]

Input = Mapping[int, int]


class IndependenceError(AssertionError):
    """The implementation's pre-noise cells were not independent (the product argument
    of the privacy proof would not apply): a bug, never a user error."""


def explored_law(alp: ALP, x: Input, seeds: Sequence[Seed]) -> dict[int, Fraction]:
    """The exact law of ``alp.project(x, seeds=seeds)``'s bits, explored on the per-cell
    path, as ``{bitmask: probability}`` with cell ``(a, b)`` at bit ``(b - 1) s + (a - 1)``:
    the released ``sketch.bits`` read as one little-endian int (``sketch.cell(a, b)`` is
    exactly that bit; the padding bits are 0)."""
    s, m = alp.params.rows, alp.params.columns
    if s * m > 20:
        raise ResourceLimitError(f"exploring s m = {s * m} cells branches 2^{s * m} ways "
                                 f"(at most 2^20 here)")
    seed_tuple = tuple(seeds)

    def run(source: RandomSource) -> int:
        sketch = alp.project(dict(x), source=source, seeds=seed_tuple, rr="cells")
        return int.from_bytes(sketch.bits, "little")

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
    return _marginals_of(params, x, pre_noise_law(params, hashes, x, seeds))


def units_law(params: ALPParams, x: Input) -> dict[tuple[tuple[int, int], ...], Fraction]:
    """The exact law of the implementation's :func:`~exactdp.sparse_vectors.alp.scaled_units`
    on ``x`` (its ``k`` RandRound coins, explored): the seed-free half of
    :func:`pre_noise_law`."""

    def run(source: RandomSource) -> tuple[tuple[int, int], ...]:
        return scaled_units(params, dict(x), source)

    return explore(run)


def pushed_law(params: ALPParams, hashes: HashFamily, seeds: Sequence[Seed],
               units: Mapping[tuple[tuple[int, int], ...], Fraction]
               ) -> dict[frozenset[tuple[int, int]], Fraction]:
    """:func:`pre_noise_law` from a :func:`units_law`: the implementation's ``embed`` draws
    nothing (it takes no source), so the law of ``embed(scaled_units(x))`` is the law of
    ``scaled_units(x)`` pushed through ``embed`` -- one exploration of the coins serves every
    seed tuple (equal to :func:`pre_noise_law` for every seed: tests/test_alp_proofs.py)."""
    law: dict[frozenset[tuple[int, int]], Fraction] = {}
    key = tuple(seeds)
    for ys, w in units.items():
        cells = embed(params, key, ys, hashes)
        law[cells] = law[cells] + w if cells in law else w
    return law


def _marginals_of(params: ALPParams, x: Input, law: Mapping[frozenset[tuple[int, int]],
                                                            Fraction]
                  ) -> dict[tuple[int, int], Fraction]:
    nums, den = _marginal_numerators(params, x, law)
    return {c: Fraction(v, den) for c, v in nums.items()}


def _marginal_numerators(params: ALPParams, x: Input,
                         law: Mapping[frozenset[tuple[int, int]], Fraction]
                         ) -> tuple[dict[tuple[int, int], int], int]:
    """``pi_{a,b} = nums[(a, b)] / den`` for every cell (``den``: the lcm of the law's
    denominators, so every sum is exact in integers), after checking that the joint law is
    the product of these marginals (independent cells): for every outcome,
    ``prod_c (pi_c or 1 - pi_c) = w`` as ``prod_c (num_c or den - num_c) * w_d =
    w_n * den^r`` over the ``r`` cells with ``0 < pi_c < 1``."""
    den = 1
    for w in law.values():
        den = lcm(den, w.denominator)
    weights = [(cells, w, w.numerator * (den // w.denominator)) for cells, w in law.items()]
    pi = {(a, b): 0 for b in range(1, params.columns + 1) for a in range(1, params.rows + 1)}
    for cells, _, wn in weights:
        for cell in cells:
            pi[cell] += wn
    random_cells = [c for c, v in pi.items() if 0 < v < den]
    if len(random_cells) > 1:
        scale = den ** len(random_cells)
        for cells, w, _ in weights:
            prod = 1
            for c in random_cells:
                prod *= pi[c] if c in cells else den - pi[c]
            if prod * w.denominator != w.numerator * scale:
                shown = Fraction(prod, scale)
                raise IndependenceError(f"pre-noise cells of x = {dict(x)} are not "
                                        f"independent: Pr[{sorted(cells)}] = {w} != {shown}")
    return pi, den


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
    """The reference per-cell maximum ``max(u/v, (1-u)/(1-v))`` and the output bit attaining
    it (1 on ties); :func:`worst_ratio_over_family` computes the same on integers."""
    up, down = u / v, (1 - u) / (1 - v)
    return (up, 1) if up >= down else (down, 0)


#: Per input: per seed, per column, per row the cell's ``(n1, n0, d)`` with
#: ``Pr[z~ = 1] = n1/d`` and ``Pr[z~ = 0] = n0/d`` (``d > 0``; not necessarily in lowest
#: terms).
_Cells = tuple[tuple[tuple[tuple[int, int, int], ...], ...], ...]


def worst_ratio_over_family(params: ALPParams, hashes: HashFamily,
                            pairs: Sequence[tuple[Input, Input]],
                            cache: dict[Any, Any] | None = None) -> FamilyWitness:
    """The worst ``Pr[o | x, h] / Pr[o | x', h]`` over the given ordered pairs, every seed
    tuple ``h`` of ``hashes`` and every output ``o``, from the implementation's cell
    marginals (see the module docstring), with its witness.

    ``cache``: an optional dict kept by the caller across calls with the SAME ``params`` and
    ``hashes`` (one check): the marginals of an input are computed once.  The per-cell
    maxima, products and comparisons are exact integer arithmetic on ``(n1, n0, d)`` (a
    rational ``u = n1/d``, ``1 - u = n0/d``): ``u/v >= (1-u)/(1-v)`` iff
    ``n1_u n0_v >= n0_u n1_v``, and ratios are compared by cross-multiplying positive
    denominators -- the same values, ties and choices as :func:`_cellmax` on Fractions."""
    seeds = list(hashes.seeds())
    s, m, p = params.rows, params.columns, params.flip
    marg: dict[Any, _Cells] = {} if cache is None else cache
    pn, pd = p.numerator, p.denominator
    one_minus = pd - 2 * pn  # (1 - 2p) pd

    def us(x: Input) -> _Cells:
        key = tuple(sorted(x.items()))
        got = marg.get(key)
        if got is None:
            units = units_law(params, x)
            ints = []
            for sd in seeds:
                law = pushed_law(params, hashes, (sd,) * m, units)
                pi, den = _marginal_numerators(params, x, law)
                # u = p + (1 - 2p) pi / den = (pn den + (pd - 2 pn) pi) / (pd den)
                d = pd * den
                cols = []
                for b in range(1, m + 1):
                    col = []
                    for a in range(1, s + 1):
                        n1 = pn * den + one_minus * pi[(a, b)]
                        col.append((n1, d - n1, d))
                    cols.append(tuple(col))
                ints.append(tuple(cols))
            got = marg[key] = tuple(ints)
        return got

    best: FamilyWitness | None = None
    best_n = best_d = 0
    nseeds = range(len(seeds))
    for x, x2 in pairs:
        ux, vx = us(x), us(x2)
        rn = rd = 1
        chosen: list[int] = []
        out: list[list[int]] = []
        for b in range(m):
            cn, cd, col_arg, col_bits = -1, 1, 0, []
            for j in nseeds:
                fn = fd = 1
                bits = []
                for (a1, a0, ad), (b1, b0, bd) in zip(ux[j][b], vx[j][b]):
                    if b1 == 0 or b0 == 0:
                        raise ZeroDivisionError(f"cell probability {b1}/{bd} of x' = "
                                                f"{dict(x2)} is 0 or 1")
                    if a1 * b0 >= a0 * b1:
                        fn *= a1 * bd
                        fd *= ad * b1
                        bits.append(1)
                    else:
                        fn *= a0 * bd
                        fd *= ad * b0
                        bits.append(0)
                if fn * cd > cn * fd:
                    cn, cd, col_arg, col_bits = fn, fd, j, bits
            rn *= cn
            rd *= cd
            chosen.append(col_arg)
            out.append(col_bits)
        if best is None or rn * best_d > best_n * rd:
            best_n, best_d = rn, rd
            h = tuple(seeds[j] for j in chosen)
            prob_x = prob_x2 = Fraction(1)
            for b in range(1, m + 1):
                for a in range(1, s + 1):
                    u1, u0, ud = ux[chosen[b - 1]][b - 1][a - 1]
                    v1, v0, vd = vx[chosen[b - 1]][b - 1][a - 1]
                    bit = out[b - 1][a - 1]
                    prob_x *= Fraction(u1 if bit else u0, ud)
                    prob_x2 *= Fraction(v1 if bit else v0, vd)
            rows = tuple(tuple(out[b - 1][a - 1] for b in range(1, m + 1))
                         for a in range(1, s + 1))
            best = FamilyWitness(Fraction(rn, rd), dict(x), dict(x2), h, rows, prob_x,
                                 prob_x2, 0, len(seeds))
    if best is None:
        raise ResourceLimitError("worst_ratio_over_family: no neighbouring pair in the domain")
    return FamilyWitness(best.ratio, best.numerator_input, best.denominator_input,
                         best.seeds, best.output, best.p, best.q, len(pairs), len(seeds))
