"""The closed forms of exactdp.sparse_vectors.exact (notes/ALP.md §2, §3.8, §4, §6 T1b-T7).

Expected values come from the notes (computed there with separate prototypes) or from hand
derivations written out below, never from the module under test."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product

import pytest

from exactdp.params import DomainError, ParameterError, ResourceLimitError
from exactdp.sparse_vectors import exact as ex


def cw_maps(prime: int, rows: int, universe: int) -> list[dict[int, int]]:
    return [{k: ((a * k + b) % prime) % rows + 1 for k in range(1, universe + 1)}
            for a in range(1, prime) for b in range(prime)]


def worst(spec: ex.Spec, universe: int, k: int, max_units: int) -> F:
    maps = cw_maps(5, spec.rows, universe)
    return max(ex.worst_over_column_maps(spec, maps, x, x2)[0]
               for x, x2 in ex.neighbour_pairs(ex.sparse_inputs(universe, k, max_units),
                                               spec.grid))


# --------------------------------------------------------------------------- estimator

@pytest.mark.parametrize("bits, expected", [
    ((1, 1, 1, 0, 1, 0, 0, 1), F(4)),            # notes T1b, Figure 2: P = {3, 5}
    ((1, 0, 0, 0, 1, 0, 0, 1), F(1)),            # OpenDP's vectors (notes T1b)
    ((0, 1, 1, 0, 0, 1, 0, 1), F(3)),
    ((0, 0, 0), F(0)), ((1, 1, 1), F(3)),        # T2: all zeros, all ones
    ((0, 1), F(1)),                              # walk 0,-1,0: argmax {0, 2}
    ((0, 1, 0, 0, 1, 1), F(8, 3)),               # walk 0,-1,0,-1,-2,-1,0: {0, 2, 6}
])
def test_unary_estimate_worked_examples(bits: tuple[int, ...], expected: F) -> None:
    assert ex.unary_estimate(bits) == expected


def test_expected_error_t6_values() -> None:
    # notes §6 T6
    assert ex.expected_error(F(1, 3), 4, 2)[0] == F(8, 9)
    assert ex.expected_error(F(1, 3), 4, 0) == (F(32, 27), F(32, 27))
    assert ex.expected_error(F(1, 3), 4, 4) == (F(32, 27), F(-32, 27))
    assert ex.expected_error(F(1, 5), 3, 1)[0] == F(62, 125)
    assert ex.expected_error(F(1, 5), 6, 3) == (F(37208, 46875), F(0))


def test_error_law_m1_by_hand() -> None:
    # m = 1, y = 0: bit 1 w.p. p gives walk max at n = 1 (estimate 1), else estimate 0.
    p = F(1, 5)
    assert ex.error_law(p, 1, 0) == {F(0): 1 - p, F(1): p}
    # y = 1: bit 0 w.p. p -> estimate 0 (error -1)
    assert ex.error_law(p, 1, 1) == {F(-1): p, F(0): 1 - p}


def test_eq1_and_tail_bounds_closed_forms() -> None:
    p = F(1, 3)  # eps = 1 unscaled: (8 eps + 8)/eps^2 = 16 (notes §1.3)
    assert ex.eq1_bound(p) == 16
    assert ex.tail_bound(F(1, 3), F(3)) == 2 / F(1, 3) * F(8, 9) ** 2
    assert ex.tail_bound(F(1, 3), F(1, 2)) == 6 * F(8, 9)


def test_eq1_and_tail_hold_small_m() -> None:
    for p in (F(1, 3), F(1, 5), F(2, 5)):
        for m in range(6):
            for y in range(m + 1):
                assert ex.expected_error(p, m, y)[0] <= ex.eq1_bound(p)
                for t2 in range(1, 2 * m + 2):
                    t = F(t2, 2)
                    assert ex.tail_probability(p, m, y, t) <= ex.tail_bound(p, t)


def test_e1_exact_small_row() -> None:
    # notes §4 E1-exact, beta = 15, m = 5, collision probability 1/10
    assert ex.e1_mae(F(1, 5), F(1, 3), 15, 5, F(1, 10)) == F(3412933017, 1250000000)


@pytest.mark.slow
def test_e1_exact_large_rows() -> None:
    assert ex.e1_mae(F(1, 5), F(1, 3), 30, 10, F(1, 10)) == \
        F(727237725275516121, 189208984375000000)
    assert ex.e1_mae(F(1, 5), F(1, 3), 30, 10) == F(4885473556, 1513671875)


# --------------------------------------------------------------------------- the law

def test_cell_probabilities_by_hand() -> None:
    spec = ex.Spec(F(1, 2), F(1, 4), 2, 2)  # c = 1/2: X = 3 -> r = 3/2, y in {1, 2}
    table = {1: (1, 2), 2: (1, 1)}
    cells = ex.cell_probabilities(spec, table, {1: 3})
    q, p = F(3, 4), F(1, 4)
    mid = p + F(1, 2) * F(1, 2)
    assert cells == {(1, 1): q, (2, 1): p, (1, 2): p, (2, 2): mid}
    # key 2 (X = 1: r = 1/2) shares cell (1, 1) with key 1, whose bit there is certain
    both = ex.cell_probabilities(spec, table, {1: 3, 2: 1})
    assert both[(1, 1)] == q and both[(1, 2)] == p
    law = ex.product_law(spec, table, {1: 3})
    assert sum(law.values()) == 1 and len(law) == 16
    # output with only cell (1, 1) set: q * (1 - p) * (1 - p) * (1 - mid)
    assert law[1 << ex.cell_index(1, 1, 2)] == q * (1 - p) * (1 - p) * (1 - mid)


def test_pair_ratio_equals_brute_force() -> None:
    for spec in (ex.Spec(F(1), F(1, 3), 2, 2), ex.Spec(F(1, 2), F(2, 5), 2, 3, 2),
                 ex.Spec(F(2), F(1, 5), 3, 2)):
        inputs = ex.sparse_inputs(3, 2, 2)
        tables = list(product(range(1, spec.rows + 1), repeat=3 * spec.columns))
        for rows in tables[::max(1, len(tables) // 12)]:  # colliding and separate keys
            table = {k: rows[(k - 1) * spec.columns:k * spec.columns] for k in (1, 2, 3)}
            for x, x2 in list(ex.neighbour_pairs(inputs, spec.grid))[::7]:
                r, o = ex.pair_ratio(spec, table, x, x2)
                assert (r, ex.product_law(spec, table, x)[o]
                        / ex.product_law(spec, table, x2)[o]) == (r, r)
                assert ex.brute_force_ratio(spec, table, x, x2)[0] == r


def test_column_factorisation_matches_pair_ratio() -> None:
    spec = ex.Spec(F(1), F(1, 3), 2, 2)
    maps = cw_maps(5, 2, 3)
    x, x2 = {1: 1, 2: 2}, {1: 2, 2: 2}
    r, choice = ex.worst_over_column_maps(spec, maps, x, x2)
    table = {k: tuple(maps[j][k] for j in choice) for k in (1, 2, 3)}
    assert ex.pair_ratio(spec, table, x, x2)[0] == r
    assert r == max(ex.pair_ratio(spec, {k: (m1[k], m2[k]) for k in (1, 2, 3)}, x, x2)[0]
                    for m1 in maps for m2 in maps)


# --------------------------------------------------------------------------- notes §3.8

def test_notes_table_c1_to_c4_c8_c9() -> None:
    assert worst(ex.Spec(F(1), F(1, 3), 3, 3), 4, 1, 3) == 2                 # C1
    assert worst(ex.Spec(F(1, 3), F(1, 5), 1, 3), 4, 1, 3) == 2              # C2
    assert worst(ex.Spec(F(2), F(2, 5), 3, 3), 3, 1, 2) == F(9, 4)           # C3
    assert worst(ex.Spec(F(1), F(1, 3), 2, 5, 2), 3, 2, 2) == F(9, 4)        # C4
    assert worst(ex.Spec(F(1), F(1, 4), 3, 3), 4, 1, 3) == 3                 # C8
    big_l = F(2718, 1000)                                                    # C9
    assert worst(ex.Spec(F(1), 1 / (big_l + 1), 2, 5, 2), 3, 2, 2) == ((big_l + 1) / 2) ** 2


@pytest.mark.parametrize("big_l", [F(2718, 1000), F(1359, 500)])
def test_notes_c10_tight_is_exactly_l(big_l: F) -> None:
    for n in (1, 2):
        c = F(1, n)
        assert worst(ex.Spec(c, c / (big_l - 1 + 2 * c), 2, 3), 3, 1, 2 * n) == big_l


def test_epsilon_cert() -> None:
    assert ex.Spec(F(1, 3), F(1, 5), 1, 3).epsilon_cert == 1   # c (1 - 2p)/p = 1/3 * 3
    assert ex.Spec(F(2), F(2, 5), 1, 3).epsilon_cert == 1


# --------------------------------------------------------------------------- domains, errors

def test_sparse_inputs_and_neighbours() -> None:
    ins = ex.sparse_inputs(3, 2, 2)
    assert len(ins) == 1 + 3 * 2 + 3 * 4
    pairs = list(ex.neighbour_pairs(ex.sparse_inputs(2, 1, 2), 1))
    assert ({1: 1}, {}) in pairs and ({}, {1: 1}) in pairs and ({1: 2}, {1: 1}) in pairs
    assert ({1: 1}, {2: 1}) not in pairs  # l1 distance 2
    assert ex.l1_units({1: 1}, {2: 1}) == 2
    assert ex.cw_row(2, 3, 5, 3, 4) == (2 * 4 + 3) % 5 % 3 + 1


def test_errors_are_typed() -> None:
    with pytest.raises(ParameterError):
        ex.Spec(F(1), F(3, 5), 1, 1)
    with pytest.raises(ParameterError):
        ex.Spec(F(0), F(1, 3), 1, 1)
    with pytest.raises(ParameterError):
        ex.Spec(F(1), F(1, 3), 0, 1)
    with pytest.raises(DomainError):
        ex.bit_probability(ex.Spec(F(1), F(1, 3), 1, 1), -1, 1)
    with pytest.raises(DomainError):
        ex.cell_probabilities(ex.Spec(F(1), F(1, 3), 1, 2), {1: (3,)}, {1: 1})
    with pytest.raises(ResourceLimitError):
        ex.product_law(ex.Spec(F(1), F(1, 3), 4, 5), {}, {})
    with pytest.raises(DomainError):
        ex.error_law(F(1, 3), 2, 3)
