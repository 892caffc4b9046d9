"""exactdp.hashing: Carter–Wegman and table hashing for ALP (notes ALP.md §3.3)."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.explore import explore
from exactdp.hashing import (
    CarterWegman,
    HashSeed,
    TableHash,
    TableSeed,
    default_prime,
    family_from_description,
)
from exactdp.params import DomainError, ParameterError, ParameterTypeError, ResourceLimitError
from tests._sources import RecordingSource


def test_cw_refuses_a_composite_modulus() -> None:
    with pytest.raises(ParameterError, match="not a prime"):
        CarterWegman(15, 3)
    with pytest.raises(ParameterError, match="not a prime"):
        CarterWegman(2**89 + 1, 3)  # divisible by 3


def test_cw_needs_prime_above_universe_and_rows() -> None:
    with pytest.raises(ParameterError, match="exceed the universe"):
        CarterWegman(5, 3, universe=5)
    with pytest.raises(ParameterError, match=">= rows"):
        CarterWegman(5, 7, universe=4)
    assert CarterWegman(5, 5, universe=4).universe == 4
    assert CarterWegman(7, 3).universe == 6  # default d = P - 1


@pytest.mark.parametrize("bad", [0, -3])
def test_cw_refuses_bad_rows(bad: int) -> None:
    with pytest.raises(ParameterError, match="rows"):
        CarterWegman(5, bad)


@pytest.mark.parametrize("bad", [2.0, True, "3", None])
def test_cw_refuses_non_int_rows(bad: object) -> None:
    with pytest.raises(ParameterTypeError, match="rows"):
        CarterWegman(5, bad)  # type: ignore[arg-type]


def test_cw_refuses_non_int_prime_and_universe() -> None:
    with pytest.raises(ParameterTypeError, match="prime"):
        CarterWegman(5.0, 3)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="universe"):
        CarterWegman(5, 3, universe=0)


def test_cw_on_62_bit_keys_with_mersenne_prime() -> None:
    fam = CarterWegman(2**89 - 1, 10**6, 2**62)
    seed = HashSeed(2**88 + 12345, 2**80 + 7)
    key = 2**62
    assert fam.row(seed, key) == (seed.a * key + seed.b) % (2**89 - 1) % 10**6 + 1
    with pytest.raises(DomainError, match="outside"):
        fam.row(seed, 2**62 + 1)


@pytest.mark.parametrize("key", [0, -1, 7])
def test_cw_keys_must_lie_in_1_to_d(key: int) -> None:
    with pytest.raises(DomainError, match=r"outside \[1, d\]"):
        CarterWegman(7, 3, universe=6).row(HashSeed(1, 0), key)


def test_cw_row_refuses_bool_key_and_wrong_seed() -> None:
    fam = CarterWegman(7, 3)
    with pytest.raises(ParameterTypeError):
        fam.row(HashSeed(1, 0), True)
    with pytest.raises(ParameterTypeError, match="HashSeed"):
        fam.row(TableSeed((1,)), 1)


def test_cw_sample_makes_two_draws_of_the_documented_domains() -> None:
    fam = CarterWegman(11, 4)
    src = RecordingSource()
    seed = fam.sample(src)
    assert src.sizes == [10, 11]
    assert 1 <= seed.a <= 10 and 0 <= seed.b <= 10
    assert fam.seed_draws == 2


def test_cw_sample_law_is_uniform_over_all_seeds() -> None:
    fam = CarterWegman(5, 3)
    law = explore(fam.sample)
    assert set(law) == set(fam.seeds())
    assert len(law) == 5 * 4
    assert all(w == Fraction(1, 20) for w in law.values())


@pytest.mark.parametrize(("prime", "rows"), [(5, 3), (7, 3), (7, 2), (11, 4)])
def test_cw_is_universal(prime: int, rows: int) -> None:
    """Carter & Wegman: for distinct keys, Pr[h(i) = h(j)] <= 1/s, counted over every seed."""
    fam = CarterWegman(prime, rows)
    seeds = list(fam.seeds())
    for i, j in combinations(range(1, prime), 2):
        hits = sum(fam.row(sd, i) == fam.row(sd, j) for sd in seeds)
        assert Fraction(hits, len(seeds)) <= Fraction(1, rows)


def test_cw_seed_enumeration_is_refused_when_huge() -> None:
    with pytest.raises(ResourceLimitError):
        next(CarterWegman(2**61 - 1, 3).seeds())


def test_cw_check_seed() -> None:
    fam = CarterWegman(7, 3)
    assert fam.check_seed(HashSeed(6, 6)) == HashSeed(6, 6)
    for bad in (HashSeed(0, 1), HashSeed(7, 0), HashSeed(1, -1), HashSeed(1, 7)):
        with pytest.raises(DomainError):
            fam.check_seed(bad)
    with pytest.raises(ParameterTypeError):
        fam.check_seed((1, 2))


def test_default_prime_is_the_smallest_prime_above() -> None:
    assert default_prime(1) == 2
    for n in (2, 4, 10, 2**62, 2**64):
        p = default_prime(n)
        assert p > n and sympy.isprime(p)
        assert sympy.prevprime(p) <= n
    assert default_prime(4) == 5


def test_table_hash_law_and_draws() -> None:
    fam = TableHash(2, 3)
    src = RecordingSource()
    seed = fam.sample(src)
    assert src.sizes == [3, 3] and fam.seed_draws == 2
    assert fam.row(seed, 2) == seed.table[1]
    law = explore(fam.sample)
    assert len(law) == 9 and all(w == Fraction(1, 9) for w in law.values())
    assert set(law) == set(fam.seeds())


def test_table_hash_collision_probability_is_exactly_one_over_s() -> None:
    fam = TableHash(3, 4)
    seeds = list(fam.seeds())
    hits = sum(fam.row(sd, 1) == fam.row(sd, 3) for sd in seeds)
    assert Fraction(hits, len(seeds)) == Fraction(1, 4)


def test_table_hash_errors() -> None:
    with pytest.raises(ResourceLimitError):
        TableHash(2**20, 3)
    with pytest.raises(ParameterError):
        TableHash(0, 3)
    fam = TableHash(2, 3)
    with pytest.raises(DomainError):
        fam.row(TableSeed((1, 2)), 3)
    with pytest.raises(DomainError):
        fam.check_seed(TableSeed((1, 4)))
    with pytest.raises(DomainError):
        fam.check_seed(TableSeed((1,)))
    with pytest.raises(ParameterTypeError):
        fam.check_seed(HashSeed(1, 1))


@given(st.sampled_from([CarterWegman(7, 3), CarterWegman(2**89 - 1, 10, 2**62),
                        TableHash(4, 2)]))
@settings(max_examples=10, deadline=None)
def test_describe_round_trips(fam: CarterWegman | TableHash) -> None:
    assert family_from_description(fam.describe()) == fam


@pytest.mark.parametrize("desc", [
    {"family": "md5"},
    {"family": "table", "universe": 3},
    {"family": "carter-wegman", "prime": 8, "rows": 2, "universe": 7},
    {"family": "table", "universe": 3, "rows": 2, "extra": 1},
    [("family", "table")],
])
def test_bad_descriptions_are_typed_errors(desc: object) -> None:
    with pytest.raises((ParameterError, ParameterTypeError)):
        family_from_description(desc)  # type: ignore[arg-type]
