"""ALP-projection / ALP-estimator (papers 003 [S] and 000 [F]; notes ALP.md §1, §3, §6)."""

from __future__ import annotations

from fractions import Fraction
from itertools import accumulate, product
from math import ceil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp.sparse_vectors.alp as alp_mod
import exactdp.sparse_vectors.rr as rr_mod
from exactdp.explore import explore
from exactdp.hashing import CarterWegman, HashSeed, TableHash, TableSeed
from exactdp.params import (
    DomainError,
    FloatParameterError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
)
from exactdp.randomness import RandomSource
from exactdp.sparse_vectors import (
    ALP,
    ALPParams,
    ALPSketch,
    argmax_positions,
    embed,
    scaled_units,
    sparse_input,
    tight_bound,
    unary_estimate,
)
from exactdp.sparse_vectors.rr import (
    block_flips,
    pack_cells,
    respond_blocks,
    respond_cells,
    unpack_cells,
)
from tests._sources import RecordingSource

# --------------------------------------------------------------------------- sources


class Top(RandomSource):
    """Always ``u = d``: every coin ``uniform(den) <= num`` with ``num < den`` says no, so
    RandRound rounds down and randomized response flips nothing: the noiseless matrix."""

    def uniform(self, d: int) -> int:
        return d


def _product_law(n: int, p: Fraction) -> dict[bytes, Fraction]:
    law = {}
    for flips in product(b"01", repeat=n):
        ones = flips.count(0x31)
        law[bytes(flips)] = p**ones * (1 - p) ** (n - ones)
    return law


# --------------------------------------------------------------------------- T1, T1b, T2


FIG1_ROWS = (2, 3, 5, 3, 4, 4, 1, 2)
FIG1_CELLS = {(2, 1), (3, 2), (5, 3), (3, 4), (4, 5)}


def test_t1_figure1_embedding() -> None:
    """[S] Figure 1: s = 5, m = 8, y = 5, h_1..h_8(i) = 2,3,5,3,4,4,1,2."""
    params = ALPParams(Fraction(1), Fraction(1, 3), 8, 5, 1, 1)
    seeds = tuple(TableSeed((r,)) for r in FIG1_ROWS)
    assert embed(params, seeds, [(1, 5)], TableHash(1, 5)) == FIG1_CELLS


def test_t1_figure1_through_project_with_the_noiseless_source() -> None:
    params = ALPParams(Fraction(1), Fraction(1, 3), 8, 5, 1, 1)
    alp = ALP(params, TableHash(1, 5))
    seeds = tuple(TableSeed((r,)) for r in FIG1_ROWS)
    sketch = alp.project({1: 5}, Top(), seeds)
    ones = {(a, b) for a in range(1, 6) for b in range(1, 9) if sketch.cell(a, b)}
    assert ones == FIG1_CELLS
    assert sketch.column_bits(1) == (1, 1, 1, 1, 1, 0, 0, 0)
    assert sketch.estimate(1) == 5


def test_t1b_figure2_estimate() -> None:
    """[S] Figure 2: bits 1,1,1,0,1,0,0,1 -> f = 0,1,2,3,2,3,2,1,2, P = {3, 5}, y~ = 4."""
    bits = [1, 1, 1, 0, 1, 0, 0, 1]
    assert argmax_positions(bits) == (3, 5)
    assert unary_estimate(bits) == 4
    # OpenDP's unary-estimator test vectors.
    assert unary_estimate([1, 0, 0, 0, 1, 0, 0, 1]) == 1
    assert unary_estimate([0, 1, 1, 0, 0, 1, 0, 1]) == 3


def test_t1b_figure2_through_a_sketch() -> None:
    """A sketch whose column bits for key 1 are Figure 2's: estimate 4 y-units = 4/c."""
    params = ALPParams(Fraction(1, 3), Fraction(1, 5), 8, 5, 1, 1)
    seeds = tuple(TableSeed((r,)) for r in FIG1_ROWS)
    cells = bytearray(b"0" * 40)
    for b, (row, bit) in enumerate(zip(FIG1_ROWS, (1, 1, 1, 0, 1, 0, 0, 1), strict=True)):
        cells[b * 5 + row - 1] = 0x30 + bit
    sketch = ALPSketch(params, TableHash(1, 5), seeds, pack_cells(cells))
    assert sketch.column_bits(1) == (1, 1, 1, 0, 1, 0, 0, 1)
    assert sketch.estimate_units(1) == 4
    assert sketch.estimate(1) == 12


def test_t2_edge_cases() -> None:
    assert unary_estimate([]) == 0
    assert unary_estimate([0] * 7) == 0
    assert unary_estimate([1] * 7) == 7
    assert argmax_positions([1, 0, 1, 0]) == (1, 3)
    assert unary_estimate([1, 0, 1, 0]) == 2
    assert unary_estimate([0, 1]) == Fraction(1, 1)  # P = {0, 2}
    assert unary_estimate([0, 1, 0, 1, 1, 0, 0, 1]) == Fraction(5, 1)  # P = {5}
    assert argmax_positions([0, 1, 1, 0, 0, 1, 0, 1, 1]) == (3, 9)  # f = -1,0,1,0,-1,0,-1,0,1
    assert unary_estimate([1, 0, 0, 1]) == Fraction(1, 1)  # P = {1}
    assert unary_estimate([0, 1, 0, 1]) == Fraction(2, 1)  # P = {0, 2, 4}


@pytest.mark.parametrize("bad", [[2], [1, -1], [True], [1, 0.0]])
def test_unary_estimate_refuses_non_bits(bad: list[object]) -> None:
    with pytest.raises(DomainError, match="must be the int 0 or 1"):
        unary_estimate(bad)  # type: ignore[arg-type]


@given(st.lists(st.integers(0, 1), max_size=40))
@settings(max_examples=300, deadline=None)
def test_unary_estimate_matches_a_direct_reading(bits: list[int]) -> None:
    walk = [0, *accumulate(2 * b - 1 for b in bits)]
    top = max(walk)
    argmax = [n for n, f in enumerate(walk) if f == top]
    assert argmax_positions(bits) == tuple(argmax)
    assert unary_estimate(bits) == Fraction(sum(argmax), len(argmax))
    assert len({n % 2 for n in argmax}) == 1  # P8: f(n) = n mod 2, ties share parity
    assert 0 <= unary_estimate(bits) <= len(bits)


@given(st.integers(0, 30), st.integers(0, 30))
def test_noiseless_unary_code_is_read_back_exactly(y: int, pad: int) -> None:
    assert unary_estimate([1] * y + [0] * pad) == y


# --------------------------------------------------------------------------- parameters


def test_from_paper_formulas() -> None:
    p = ALPParams.from_paper(1, 3, 30, 50, 5, 100)
    assert (p.scale, p.flip, p.columns) == (Fraction(1, 3), Fraction(1, 5), 10)
    p = ALPParams.from_paper(1, 4, 87, 10, 1, 2**62)  # OpenDP's default alpha, beta = 87
    assert (p.scale, p.flip, p.columns) == (Fraction(1, 4), Fraction(1, 6), 22)
    p = ALPParams.from_paper("1/2", "7/2", "10", 5, 1, 4)
    assert (p.scale, p.flip, p.columns) == (Fraction(1, 7), Fraction(2, 11), 2)
    assert p.variant == "paper"


def test_unscaled_formulas() -> None:
    p = ALPParams.unscaled("1/2", "5/2", 5, 1, 4)
    assert (p.scale, p.flip, p.columns, p.variant) == (1, Fraction(2, 5), 3, "unscaled")


@given(st.fractions(min_value=Fraction(1, 50), max_value=10),
       st.fractions(min_value=Fraction(1, 50), max_value=10))
@settings(max_examples=200)
def test_epsilon_cert_is_exactly_epsilon_for_the_paper_and_unscaled(eps: Fraction,
                                                                    alpha: Fraction) -> None:
    """c (1 - 2p)/p = (eps/alpha)((alpha + 2) - 2) = eps exactly ([F] Lemma 4.12)."""
    paper = ALPParams.from_paper(eps, alpha, 5, 3, 1, 4)
    assert paper.epsilon_cert == eps
    assert paper.epsilon_cert == paper.scale * (1 - 2 * paper.flip) / paper.flip
    assert ALPParams.unscaled(eps, 5, 3, 1, 4).epsilon_cert == eps


@given(st.fractions(min_value=Fraction(101, 100), max_value=20), st.integers(1, 20))
@settings(max_examples=200)
def test_histogram_tight_p_formula(bound: Fraction, n: int) -> None:
    """Notes §3.2: p_T = c/(L - 1 + 2c), c = 1/n; one aligned piece of length c gives the
    ratio 1 + c(1 - 2p_T)/p_T = L exactly, and epsilon_cert = L - 1."""
    p = ALPParams.histogram_tight(bound, n, 40, 3, 1, 4)
    c = Fraction(1, n)
    assert p.scale == c and p.flip == c / (bound - 1 + 2 * c) and p.grid == 1
    assert 1 + c * (1 - 2 * p.flip) / p.flip == bound
    assert p.epsilon_cert == bound - 1
    assert p.columns == ceil(Fraction(40, n))


def test_histogram_tight_exact_worst_ratio_from_the_implementation() -> None:
    """The implementation's own law (explore, fixed seed, s = 1): over x = X vs X + 1 for
    every X in 0..4, the worst output ratio is exactly L."""
    L = Fraction(1359, 500)
    params = ALPParams.histogram_tight(L, 2, 4, 1, 1, 1)
    alp = ALP(params, CarterWegman(2, 1, 1))
    seeds = (HashSeed(1, 0),) * params.columns

    def law(X: int) -> dict[tuple[int, ...], Fraction]:
        return explore(lambda s: alp.project({1: X}, s, seeds).cell_values())

    worst = Fraction(0)
    for X in range(5):
        a, b = law(X), law(X + 1)
        worst = max(worst, *(a[o] / b[o] for o in a), *(b[o] / a[o] for o in b))
    assert worst == L


def test_tight_bound_is_a_certified_lower_bound() -> None:
    L = tight_bound(1)
    assert Fraction(2718281, 1000000) < L < Fraction(2718282, 1000000)
    assert L < Fraction(27182818284590453, 10**16)  # e < 2.7182818284590453


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"epsilon": 1.0}, FloatParameterError, "epsilon"),
    ({"alpha": 0}, ParameterError, "alpha"),
    ({"beta": "-1"}, ParameterError, "beta"),
    ({"rows": 0}, ParameterError, "rows"),
    ({"rows": 2.5}, FloatParameterError, "rows"),
    ({"sparsity": "1/2"}, ParameterError, "sparsity"),
    ({"universe": True}, ParameterTypeError, "universe"),
    ({"grid": 0}, ParameterError, "grid"),
])
def test_from_paper_refuses(kwargs: dict[str, object], error: type, match: str) -> None:
    args: dict[str, object] = {"epsilon": 1, "alpha": 3, "beta": 10, "rows": 5,
                               "sparsity": 1, "universe": 4}
    args.update(kwargs)
    with pytest.raises(error, match=match):
        ALPParams.from_paper(**args)  # type: ignore[arg-type]


def test_direct_params_refuse() -> None:
    with pytest.raises(ParameterError, match="flip"):
        ALPParams(Fraction(1), Fraction(0), 2, 2, 1, 2)
    with pytest.raises(ParameterError, match="flip"):
        ALPParams(Fraction(1), Fraction(3, 5), 2, 2, 1, 2)
    with pytest.raises(FloatParameterError, match="flip"):
        ALPParams(Fraction(1), 0.2, 2, 2, 1, 2)  # type: ignore[arg-type]
    with pytest.raises(FloatParameterError, match="scale"):
        ALPParams(0.5, Fraction(1, 3), 2, 2, 1, 2)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="scale"):
        ALPParams(Fraction(0), Fraction(1, 3), 2, 2, 1, 2)
    with pytest.raises(ParameterError, match="variant"):
        ALPParams(Fraction(1), Fraction(1, 3), 2, 2, 1, 2, 1, "fast")
    with pytest.raises(ResourceLimitError):
        ALPParams(Fraction(1), Fraction(1, 3), 2**16, 2**16, 1, 2)


def test_histogram_tight_refuses_grids_and_non_unit_scales() -> None:
    with pytest.raises(ParameterError, match="integer inputs"):
        ALPParams(Fraction(1, 2), Fraction(1, 4), 2, 2, 1, 2, 2, "histogram-tight")
    with pytest.raises(ParameterError, match="1/n"):
        ALPParams(Fraction(2, 3), Fraction(1, 4), 2, 2, 1, 2, 1, "histogram-tight")
    with pytest.raises(ParameterError, match="exceed 1"):
        ALPParams.histogram_tight(1, 1, 5, 3, 1, 4)
    with pytest.raises(FloatParameterError):
        ALPParams.histogram_tight(2.5, 1, 5, 3, 1, 4)


def test_draws_property() -> None:
    p = ALPParams.from_paper(1, 4, 87, 1000, 100, 2**62)
    assert p.draws == 2 * 22 + 100 + 1000 * 22


# --------------------------------------------------------------------------- input


PARAMS = ALPParams(Fraction(1, 2), Fraction(1, 3), 3, 4, 2, 10, 3)


@pytest.mark.parametrize(("x", "error", "match"), [
    ({1: 1.5}, ParameterTypeError, "grid units"),
    ({1: Fraction(1, 2)}, ParameterTypeError, "grid units"),
    ({1: True}, ParameterTypeError, "grid units"),
    ({1: -1}, DomainError, "negative"),
    ({0: 1}, DomainError, "outside"),
    ({11: 1}, DomainError, "outside"),
    ({"a": 1}, ParameterTypeError, "key"),
    ([(1, 1), (1, 2)], DomainError, "twice"),
    ({1: 1, 2: 1, 3: 1}, DomainError, "at most k = 2"),
    ("1,2", ParameterTypeError, "mapping"),
    ([(1, 2, 3)], ParameterTypeError, "pair"),
    (5, ParameterTypeError, "mapping"),
])
def test_sparse_input_refuses(x: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        sparse_input(PARAMS, x)


def test_sparse_input_pads_and_drops_zeros() -> None:
    assert sparse_input(PARAMS, {}) == ((0, 0), (0, 0))
    assert sparse_input(PARAMS, {4: 0, 5: 7, 6: 0, 7: 0}) == ((5, 7), (0, 0))
    assert sparse_input(PARAMS, [(3, 1), [9, 2]]) == ((3, 1), (9, 2))


def test_input_is_checked_before_any_draw() -> None:
    src = RecordingSource()
    with pytest.raises(DomainError):
        ALP(PARAMS).project({1: -1}, src)
    assert src.sizes == []


# --------------------------------------------------------------------------- rounding


@pytest.mark.parametrize("X", range(12))
def test_randround_is_exact_and_unbiased(X: int) -> None:
    """y = RandRound(X c / g), c = 2/3, g = 3, m = 3: the exact law from the implementation."""
    params = ALPParams(Fraction(2, 3), Fraction(1, 3), 3, 4, 1, 10, 3)
    law = explore(lambda s: scaled_units(params, {7: X}, s)[0][1])  # X = 0: a dummy
    r = Fraction(2 * X, 9)
    lo = r.numerator // r.denominator
    if r <= 3:
        expected = {lo: 1 - (r - lo)}
        if r != lo:
            expected[lo + 1] = r - lo
        assert law == expected
        assert sum(y * w for y, w in law.items()) == r  # unbiased
    else:
        assert law == {3: 1}  # clamped to m


def test_scaled_units_pads_with_dummies_that_draw_too() -> None:
    src = RecordingSource()
    assert scaled_units(PARAMS, {}, src) == ((0, 0), (0, 0))
    assert src.sizes == [6, 6]  # g * cd = 3 * 2, one coin per padded pair


# --------------------------------------------------------------------------- embedding


def test_embed_truncates_at_m_and_dummies_write_nothing() -> None:
    params = ALPParams(Fraction(1), Fraction(1, 3), 3, 3, 3, 4)
    seeds = (HashSeed(1, 0), HashSeed(2, 1), HashSeed(3, 2))
    fam = CarterWegman(5, 3, 4)
    with_dummies = embed(params, seeds, [(2, 9), (0, 0), (0, 0)], fam)
    assert with_dummies == embed(params, seeds, [(2, 9)], fam)
    assert with_dummies == {(fam.row(sd, 2), b) for b, sd in enumerate(seeds, start=1)}


def test_embed_or_combines_collisions() -> None:
    params = ALPParams(Fraction(1), Fraction(1, 3), 2, 2, 2, 2)
    seeds = (TableSeed((1, 1)), TableSeed((2, 2)))
    assert embed(params, seeds, [(1, 1), (2, 2)], TableHash(2, 2)) == {(1, 1), (2, 2)}


# --------------------------------------------------------------------------- RR paths


@pytest.mark.parametrize(("n", "p"), [(1, Fraction(1, 3)), (3, Fraction(1, 3)),
                                      (4, Fraction(2, 5)), (2, Fraction(1, 6)),
                                      (3, Fraction(5, 11)), (2, Fraction(7, 62))])
def test_block_decoding_has_the_product_law(n: int, p: Fraction) -> None:
    """Every u in [1, D^n] enumerated: flip patterns have exactly the product law."""
    D = p.denominator
    law: dict[bytes, Fraction] = {}
    for u in range(1, D**n + 1):
        f = block_flips(u, n, p)
        law[f] = law.get(f, Fraction(0)) + Fraction(1, D**n)
    assert law == _product_law(n, p)


@pytest.mark.parametrize("p", [Fraction(1, 3), Fraction(2, 5)])
def test_per_cell_path_has_the_product_law(p: Fraction) -> None:
    law = explore(lambda s: respond_cells(b"0000", p, s))
    assert law == {pack_cells(k): w for k, w in _product_law(4, p).items()}


def test_both_paths_same_law_across_several_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 2 cells (patched), 5 cells of z = 01101: the block path (explored: one
    uniform(3^2), uniform(3^2), uniform(3)) and the per-cell path have the same exact law."""
    monkeypatch.setattr(rr_mod, "BLOCK_CELLS", 2)
    z = b"01101"
    p = Fraction(1, 3)
    src_domains = RecordingSource()
    respond_blocks(z, p, src_domains)
    assert src_domains.sizes == [9, 9, 3]
    blocks = explore(lambda s: respond_blocks(z, p, s))
    cells = explore(lambda s: respond_cells(z, p, s))
    assert blocks == cells
    assert cells[pack_cells(z)] == Fraction(2, 3) ** 5


def test_project_law_is_the_same_on_both_paths() -> None:
    params = ALPParams(Fraction(1, 2), Fraction(2, 5), 2, 2, 2, 3)
    alp = ALP(params, CarterWegman(5, 2, 3))
    seeds = (HashSeed(1, 0), HashSeed(3, 4))
    x = {1: 3, 3: 1}
    cells = explore(lambda s: alp.project(x, s, seeds, rr="cells"))
    blocks = explore(lambda s: alp.project(x, s, seeds, rr="blocks"))
    assert cells == blocks and len(cells) > 1


def test_auto_path_rule() -> None:
    small = ALP(ALPParams(Fraction(1), Fraction(1, 3), 2, 2, 1, 3))
    big = ALP(ALPParams(Fraction(1), Fraction(1, 3), 8, 1024, 1, 3))
    wide = ALP(ALPParams(Fraction(1), Fraction(1, 67), 8, 1024, 1, 3))
    src = RecordingSource()
    from exactdp.explore import ExploringSource
    assert small.rr_path(src) == "cells"
    assert big.rr_path(src) == "blocks"
    assert big.rr_path(ExploringSource()) == "cells"
    assert wide.rr_path(src) == "cells"
    with pytest.raises(ParameterError, match="denominator"):
        wide.rr_path(src, "blocks")
    with pytest.raises(ParameterError, match="rr"):
        big.rr_path(src, "fast")


# --------------------------------------------------------------------------- T9 draws


sparse_inputs = st.dictionaries(st.integers(1, 50), st.integers(0, 40), max_size=4)


@given(sparse_inputs, st.integers(0, 2**32))
@settings(max_examples=150, deadline=None)
def test_t9_draw_count_and_domains_do_not_depend_on_the_input(x: dict[int, int],
                                                              seed: int) -> None:
    """Per-cell path: exactly 2m + k + s*m draws (params.draws), in the same sequence of
    domain sizes, for every input; blocks: 2m + k + ceil(s*m/8192)."""
    params = ALPParams.from_paper(1, 3, 12, 7, 4, 50)
    alp = ALP(params)
    src = RecordingSource(seed)
    alp.project(x, src, rr="cells")
    P = params.default_hashes().prime
    m, s, k = params.columns, params.rows, params.sparsity
    assert len(src.sizes) == params.draws == alp.draw_count() == 2 * m + k + s * m
    assert src.sizes == [P - 1, P] * m + [3] * k + [5] * (s * m)
    src = RecordingSource(seed)
    alp.project(x, src, rr="blocks")
    assert len(src.sizes) == alp.draw_count(rr="blocks") == 2 * m + k + 1
    assert src.sizes[-1] == 5 ** (s * m)
    src = RecordingSource(seed)
    alp.project(x, src, seeds=alp.draw_hashes(RecordingSource()), rr="cells")
    assert len(src.sizes) == alp.draw_count(seeds_drawn=False) == k + s * m


def test_t9_block_draw_count_at_scale() -> None:
    params = ALPParams.from_paper(1, 4, 87, 1000, 100, 2**62)
    alp = ALP(params, CarterWegman(2**89 - 1, 1000, 2**62))
    for x in ({}, {i: 10 * i for i in range(1, 101)}, {2**62: 10**9}):
        src = RecordingSource()
        sk = alp.project(x, src)
        assert len(src.sizes) == alp.draw_count(rr="blocks") == 44 + 100 + 3
        assert src.sizes[-3:] == [6**8192, 6**8192, 6 ** (22000 - 16384)]
        assert len(sk.bits) == 22000 // 8


def test_t9_counting_test_catches_a_planted_data_dependent_draw(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted bug: the dummies skip their rounding coin; the draw count then depends on x."""
    def skip_dummies(params: ALPParams, pairs: tuple[tuple[int, int], ...],
                     source: RandomSource) -> tuple[tuple[int, int], ...]:
        return tuple((k, alp_mod.rand_round(v * params.scale.numerator,
                                            params.scale.denominator * params.grid, source)
                      if k else 0) for k, v in pairs)
    monkeypatch.setattr(alp_mod, "_scaled", skip_dummies)
    alp = ALP(ALPParams.from_paper(1, 3, 12, 7, 4, 50))
    counts = set()
    for x in ({}, {1: 5}, {1: 5, 2: 6, 3: 7, 4: 8}):
        src = RecordingSource()
        alp.project(x, src, rr="cells")
        counts.add(len(src.sizes))
    assert len(counts) == 3


# --------------------------------------------------------------------------- sketch


def test_sketch_fast_and_generic_column_reads_agree() -> None:
    params = ALPParams.from_paper(1, 3, 30, 11, 3, 10)
    fam = CarterWegman(11, 11, 10)
    alp = ALP(params, fam)
    sk = alp.project({1: 9, 4: 30, 10: 2}, RecordingSource(5))
    for key in range(1, 11):
        generic = tuple(sk.cell(fam.row(sd, key), b)
                        for b, sd in enumerate(sk.seeds, start=1))
        assert sk.column_bits(key) == generic
        assert sk.estimate(key) == unary_estimate(generic) / params.scale
    assert len(sk.cell_values()) == params.cells


def test_sketch_validation() -> None:
    params = ALPParams(Fraction(1), Fraction(1, 3), 3, 3, 1, 4)
    fam = CarterWegman(5, 3, 4)
    seeds = (HashSeed(1, 0),) * 3
    one = ALPSketch(params, fam, seeds, b"\x00\x01")  # cell j = 8 = (b-1)*s + (a-1)
    assert one.cell(3, 3) == 1 and sum(one.cell_values()) == 1
    with pytest.raises(ParameterError, match="padding"):
        ALPSketch(params, fam, seeds, b"\x00\x02")
    with pytest.raises(ParameterError, match="bytes"):
        ALPSketch(params, fam, seeds, b"\x00")
    with pytest.raises(ParameterError, match="seeds"):
        ALPSketch(params, fam, seeds[:2], b"\x00\x00")
    with pytest.raises(DomainError):
        ALPSketch(params, fam, (HashSeed(0, 0),) * 3, b"\x00\x00")
    with pytest.raises(ParameterError, match="rows"):
        ALPSketch(params, CarterWegman(5, 2, 4), seeds, b"\x00\x00")
    sk = ALPSketch(params, fam, seeds, b"\x00\x00")
    with pytest.raises(DomainError):
        sk.cell(4, 1)
    with pytest.raises(DomainError):
        sk.estimate(5)
    with pytest.raises(ParameterTypeError):
        sk.estimate(1.0)  # type: ignore[arg-type]


@given(st.lists(st.integers(0, 1), min_size=1, max_size=70))
def test_pack_round_trip(cells: list[int]) -> None:
    chars = bytes(0x30 + c for c in cells)
    assert unpack_cells(pack_cells(chars), len(cells)) == tuple(cells)


def test_alp_refuses_mismatched_family_and_seeds() -> None:
    params = ALPParams(Fraction(1), Fraction(1, 3), 2, 3, 1, 4)
    with pytest.raises(ParameterError):
        ALP(params, CarterWegman(5, 2, 4))
    with pytest.raises(ParameterError):
        ALP(params, TableHash(3, 3))
    with pytest.raises(ParameterTypeError):
        ALP(params, "cw")  # type: ignore[arg-type]
    alp = ALP(params)
    with pytest.raises(ParameterError, match="need m = 2"):
        alp.project({1: 1}, RecordingSource(), seeds=[HashSeed(1, 0)])
    with pytest.raises(ParameterTypeError):
        alp.project({1: 1}, RecordingSource(), seeds=[TableSeed((1,)), TableSeed((1,))])
    with pytest.raises(ParameterTypeError):
        alp.project({1: 1}, 7)  # type: ignore[arg-type]


@given(st.dictionaries(st.integers(1, 6), st.integers(0, 60), max_size=3),
       st.sampled_from([Fraction(1, 3), Fraction(2, 5), Fraction(3, 1)]), st.integers(1, 3))
@settings(max_examples=150, deadline=None)
def test_noiseless_pipeline_reads_back_the_rounded_unary_code(x: dict[int, int], c: Fraction,
                                                              g: int) -> None:
    """With an injective table (no collisions) and the all-no source (RandRound rounds down,
    nothing flips), estimate_units(key) = min(floor(X c / g), m) and estimate = that / c."""
    params = ALPParams(c, Fraction(1, 3), 5, 6, 3, 6, g)
    alp = ALP(params, TableHash(6, 6))
    seeds = tuple(TableSeed(tuple(range(1, 7))) for _ in range(5))
    sk = alp.project(x, Top(), seeds)
    for key in range(1, 7):
        y = min(x.get(key, 0) * c.numerator // (c.denominator * g), 5)
        assert sk.estimate_units(key) == y
        assert sk.estimate(key) == y / c


def test_sketch_refuses_a_non_family() -> None:
    params = ALPParams(Fraction(1), Fraction(1, 3), 1, 1, 1, 1)
    with pytest.raises(ParameterTypeError, match="hash family"):
        ALPSketch(params, "cw", (HashSeed(1, 0),), b"\x00")  # type: ignore[arg-type]


@pytest.mark.parametrize("u", [0, 28, 2.0, True])
def test_block_flips_refuses_draws_outside_the_block_domain(u: object) -> None:
    with pytest.raises(ParameterError, match="block draw"):
        block_flips(u, 3, Fraction(1, 3))  # type: ignore[arg-type]
