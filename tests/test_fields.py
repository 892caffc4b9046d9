"""Tests for exactdp.histograms.fields: GF(2)[t] products, the van Lint fields, polynomials."""

from __future__ import annotations

import random
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactdp.histograms.fields import MAX_LEVEL, VanLintField, level_for_bits
from exactdp.histograms.gf2 import (
    clmul,
    clmul_bounded,
    clmul_kronecker,
    clmul_shift_xor,
    clmul_window,
    gf2_gcd,
    gf2_mod,
    gf2_square,
    rabin_irreducible,
)
from exactdp.params import DomainError, ParameterError, ParameterTypeError


def schoolbook(a: int, b: int) -> int:
    """Reference carry-less product: bit k is the parity of #{(i, j): i + j = k, a_i = b_j = 1}."""
    out = 0
    for i in range(a.bit_length()):
        for j in range(b.bit_length()):
            if a >> i & 1 and b >> j & 1:
                out ^= 1 << (i + j)
    return out


# --------------------------------------------------------------------------- GF(2)[t]

@given(st.integers(0, 2**200), st.integers(0, 2**200))
def test_carry_less_products_agree_with_schoolbook(a: int, b: int) -> None:
    ref = schoolbook(a, b)
    assert clmul_shift_xor(a, b) == ref
    assert clmul_kronecker(a, b) == ref
    assert clmul(a, b) == ref
    assert clmul_window(a, b, max(1, -(-b.bit_length() // 4))) == ref
    assert clmul_bounded(a, b, max(1, a.bit_length()), max(1, b.bit_length())) == ref


def test_kronecker_on_dense_operands_matches_shift_xor() -> None:
    rng = random.Random(7)
    for bits in (300, 2000, 5000):
        a, b = rng.getrandbits(bits), rng.getrandbits(bits)
        assert clmul_kronecker(a, b) == clmul_shift_xor(a, b)
        # A fixed slot width larger than needed gives the same product.
        assert clmul_kronecker(a, b, digits=5) == clmul_shift_xor(a, b)
        assert clmul_bounded(a, b, bits, bits) == clmul_shift_xor(a, b)


def test_kronecker_refuses_too_narrow_slots() -> None:
    a = (1 << 40) - 1  # 40 ones: sums reach 40 > 15
    with pytest.raises(ParameterError, match="cannot hold"):
        clmul_kronecker(a, a, digits=1)


def test_window_product_refuses_a_long_multiplier() -> None:
    with pytest.raises(ParameterError, match="nibbles"):
        clmul_window(3, 1 << 8, 2)


@given(st.integers(0, 2**300))
def test_square_is_the_product_with_itself(a: int) -> None:
    assert gf2_square(a) == schoolbook(a, a)


def test_gf2_mod_and_gcd_small_cases() -> None:
    # (t^2 + t + 1)(t + 1) = t^3 + 1; t^3 + 1 mod (t^2 + t + 1) = 0.
    assert gf2_mod(0b1001, 0b111) == 0
    assert gf2_mod(0b1000, 0b111) == 1  # t^3 = 1 mod t^2 + t + 1
    assert gf2_gcd(0b1001, 0b111) == 0b111
    assert gf2_gcd(0b1011, 0b111) == 1  # distinct irreducibles
    with pytest.raises(ParameterError):
        gf2_mod(5, 0)


@pytest.mark.parametrize(("poly", "irreducible"), [
    (0b11, True),            # t + 1
    (0b111, True),           # t^2 + t + 1
    (0b101, False),          # t^2 + 1 = (t + 1)^2
    (0b1011, True),          # t^3 + t + 1
    (0b10011, True),         # t^4 + t + 1
    (0b10101, False),        # t^4 + t^2 + 1 = (t^2 + t + 1)^2
    (0b11111, True),         # t^4 + t^3 + t^2 + t + 1 = Phi_5
    (0b1001001, True),       # t^6 + t^3 + 1 = Phi_9
    (0b1000001, False),      # t^6 + 1
    (0b100011011, True),     # AES: t^8 + t^4 + t^3 + t + 1
    (0b100011101, True),     # t^8 + t^4 + t^3 + t^2 + 1
    (0b100000001, False),    # t^8 + 1
])
def test_rabin_test_on_known_polynomials(poly: int, irreducible: bool) -> None:
    assert rabin_irreducible(poly) is irreducible


def test_rabin_test_agrees_with_brute_force_up_to_degree_8() -> None:
    def brute(f: int) -> bool:
        deg = f.bit_length() - 1
        return all(gf2_mod(f, g) != 0 for g in range(2, 1 << (deg // 2 + 1))
                   if 1 <= g.bit_length() - 1 <= deg // 2)

    for f in range(2, 1 << 9):
        assert rabin_irreducible(f) == brute(f), bin(f)


def test_level_for_bits() -> None:
    assert [level_for_bits(b) for b in (0, 1, 2, 3, 6, 7, 18, 19, 28710)] == \
        [0, 0, 0, 1, 1, 2, 2, 3, 9]
    with pytest.raises(ParameterTypeError):
        level_for_bits(2.0)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- the fields

def test_field_parameters() -> None:
    f = VanLintField(0)
    assert (f.degree, f.half, f.order, f.modulus) == (2, 1, 4, 0b111)
    f = VanLintField(2)
    assert (f.degree, f.half, f.order) == (18, 9, 2**18)
    assert f.modulus == (1 << 18) | (1 << 9) | 1
    assert f.modulus_text() == "t^18 + t^9 + 1"
    assert str(VanLintField(0)) == "GF(2^2) = GF(2)[t]/(t^2 + t + 1)"


@pytest.mark.parametrize("bad", [-1, MAX_LEVEL + 1])
def test_field_level_out_of_range(bad: int) -> None:
    with pytest.raises(ParameterError, match="level"):
        VanLintField(bad)


@pytest.mark.parametrize("bad", [True, 1.0, "1"])
def test_field_level_wrong_type(bad: object) -> None:
    with pytest.raises(ParameterTypeError):
        VanLintField(bad)  # type: ignore[arg-type]


def test_gf4_multiplication_table() -> None:
    # Elements 0, 1, t, t+1 as 0, 1, 2, 3; t^2 = t + 1 because t^2 + t + 1 = 0.
    f = VanLintField(0)
    expected = {(2, 2): 3, (2, 3): 1, (3, 3): 2}
    for (a, b), c in expected.items():
        assert f.mul(a, b) == c and f.mul(b, a) == c
    assert [f.inverse(a) for a in (1, 2, 3)] == [1, 3, 2]


@pytest.mark.parametrize("level", [0, 1])
def test_small_fields_are_fields_exhaustively(level: int) -> None:
    f = VanLintField(level)
    q = f.order
    elems = range(q)
    for a, b in product(elems, elems):
        assert f.mul(a, b) == f.mul(b, a)
        assert f.mul(a, b) < q
    rng = random.Random(level)
    for _ in range(300):
        a, b, c = (rng.randrange(q) for _ in range(3))
        assert f.mul(f.mul(a, b), c) == f.mul(a, f.mul(b, c))
        assert f.mul(a, b ^ c) == f.mul(a, b) ^ f.mul(a, c)
    for a in range(1, q):
        assert f.mul(a, f.inverse(a)) == 1
    # The multiplicative group is cyclic of order q - 1 (a field, not just a ring).
    orders = []
    for g in range(1, q):
        x, k = g, 1
        while x != 1:
            x, k = f.mul(x, g), k + 1
        orders.append(k)
    assert max(orders) == q - 1


@pytest.mark.parametrize("level", [2, 3, 4])
def test_field_identities_random(level: int) -> None:
    f = VanLintField(level)
    rng = random.Random(100 + level)
    for _ in range(30):
        a, b, c = (rng.randrange(f.order) for _ in range(3))
        assert f.mul(f.mul(a, b), c) == f.mul(a, f.mul(b, c))
        assert f.mul(a, b ^ c) == f.mul(a, b) ^ f.mul(a, c)
        assert f.square(a) == f.mul(a, a)
        assert f.reduce(schoolbook(a, b)) == gf2_mod(schoolbook(a, b), f.modulus)
        if a:
            assert f.mul(a, f.inverse(a)) == 1
            assert f.div(b, a) == f.mul(b, f.inverse(a))
    a = rng.randrange(1, f.order)
    assert f.power(a, f.order - 1) == 1  # Lagrange: a^(d0 - 1) = 1
    assert f.power(a, f.order - 2) == f.inverse(a)


def test_large_field_dense_products_and_inverse() -> None:
    f = VanLintField(7)  # m = 4374
    rng = random.Random(3)
    a, b = rng.randrange(1, f.order), rng.randrange(1, f.order)
    assert f.mul(a, b) == f.reduce(clmul_shift_xor(a, b))
    assert f.mul(a, f.inverse(a)) == 1
    vals = [rng.randrange(1, f.order) for _ in range(5)]
    assert f.batch_inverse(vals) == [f.inverse(v) for v in vals]
    assert f.batch_inverse([]) == []


def test_inverse_of_zero_and_negative_exponent() -> None:
    f = VanLintField(1)
    with pytest.raises(DomainError):
        f.inverse(0)
    with pytest.raises(ParameterError):
        f.power(3, -1)


def test_element_validation_and_bijection_t() -> None:
    f = VanLintField(1)
    assert f.element(63) == 63
    with pytest.raises(DomainError):
        f.element(64)
    with pytest.raises(DomainError):
        f.element(-1)
    with pytest.raises(ParameterTypeError):
        f.element(True)
    assert sorted(f.to_index(a) for a in range(64)) == list(range(1, 65))
    assert all(f.from_index(f.to_index(a)) == a for a in range(64))
    for bad in (0, 65):
        with pytest.raises(DomainError):
            f.from_index(bad)
    with pytest.raises(ParameterTypeError):
        f.from_index("1")  # type: ignore[arg-type]


def test_irreducibility_certificates() -> None:
    for level in range(MAX_LEVEL + 1):
        assert all(VanLintField(level).cyclotomic_certificate().values())
    for level in range(6):
        assert VanLintField(level).rabin_test()


@pytest.mark.slow
def test_rabin_test_levels_up_to_nine() -> None:
    for level in range(6, 10):
        assert VanLintField(level).rabin_test()


# --------------------------------------------------------------------------- polynomials

@pytest.mark.parametrize("level", [0, 1, 2, 9])
def test_horner_matches_sum_of_powers(level: int) -> None:
    f = VanLintField(level)
    rng = random.Random(level)
    coeffs = [rng.randrange(f.order) for _ in range(6)]
    for x in [0, 1, rng.randrange(f.order), rng.randrange(min(f.order, 2**64))]:
        naive = 0
        for i, c in enumerate(coeffs):
            naive ^= f.mul(c, f.power(x, i))
        assert f.evaluate(coeffs, x) == naive
    assert f.evaluate([], 5) == 0


def lagrange(f: VanLintField, nodes: list[int], values: list[int]) -> list[int]:
    """Reference interpolation: sum_k y_k prod_{j != k} (X - x_j) / (x_k - x_j)."""
    out = [0] * len(nodes)
    for k, (xk, yk) in enumerate(zip(nodes, values)):
        basis = [1]
        denom = 1
        for j, xj in enumerate(nodes):
            if j == k:
                continue
            basis = [(basis[i - 1] if i else 0) ^ (f.mul(basis[i], xj) if i < len(basis) else 0)
                     for i in range(len(basis) + 1)]
            denom = f.mul(denom, xk ^ xj)
        scale = f.div(yk, denom)
        out = [o ^ f.mul(scale, b) for o, b in zip(out, basis)]
    return out


@pytest.mark.parametrize("level", [0, 1, 2])
def test_interpolation_matches_lagrange(level: int) -> None:
    f = VanLintField(level)
    rng = random.Random(10 + level)
    for size in range(1, min(f.order, 7) + 1):
        nodes = rng.sample(range(f.order), size)
        values = [rng.randrange(f.order) for _ in range(size)]
        coeffs = f.interpolate(nodes, values)
        assert coeffs == lagrange(f, nodes, values)
        assert [f.evaluate(coeffs, x) for x in nodes] == values


def test_interpolation_large_field_small_nodes() -> None:
    f = VanLintField(9)
    rng = random.Random(11)
    nodes = [rng.randrange(2**64) for _ in range(6)]
    values = [rng.randrange(f.order) for _ in range(6)]
    coeffs = f.interpolate(nodes, values, node_bits=64)
    assert [f.evaluate(coeffs, x) for x in nodes] == values


def test_interpolation_with_dense_nodes() -> None:
    f = VanLintField(4)  # m = 162: dense nodes still go through 4-bit windows (<= 256 bits)
    rng = random.Random(12)
    nodes = [rng.randrange(f.order) for _ in range(5)]
    values = [rng.randrange(f.order) for _ in range(5)]
    coeffs = f.interpolate(nodes, values)
    assert [f.evaluate(coeffs, x) for x in nodes] == values
    g = VanLintField(5)  # m = 486 > 256 bits: full products instead of windows
    nodes = [rng.randrange(g.order) for _ in range(4)]
    values = [rng.randrange(g.order) for _ in range(4)]
    coeffs = g.interpolate(nodes, values)
    assert [g.evaluate(coeffs, x) for x in nodes] == values


def test_interpolation_errors() -> None:
    f = VanLintField(1)
    with pytest.raises(ParameterError, match="distinct"):
        f.interpolate([1, 1], [2, 3])
    with pytest.raises(ParameterError, match="values"):
        f.interpolate([1, 2], [2])
    with pytest.raises(ParameterError, match="node_bits"):
        f.interpolate([1, 9], [2, 3], node_bits=3)
    with pytest.raises(ParameterError, match="nodes"):
        f.newton_to_monomial([], [1, 2, 3])


def test_newton_basis_with_repeated_zero_nodes() -> None:
    # sum_k c_k prod_{j<k}(X - x_j) with nodes (5, 0, 0): c0 + c1 (X+5) + c2 (X+5) X
    #   + c3 (X+5) X^2, expanded by hand in characteristic 2.
    f = VanLintField(1)
    c = [7, 11, 13, 17]
    got = f.newton_to_monomial([5, 0, 0], c)
    want = [c[0] ^ f.mul(c[1], 5), c[1] ^ f.mul(c[2], 5), c[2] ^ f.mul(c[3], 5), c[3]]
    assert got == want
    assert f.newton_to_monomial([], []) == []


def test_mpz_and_int_paths_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    import exactdp.histograms.fields as fields_module

    f = VanLintField(7)  # m = 4374: the mpz path by default
    rng = random.Random(13)
    nodes = [rng.randrange(2**64) for _ in range(5)]
    values = [rng.randrange(f.order) for _ in range(5)]
    fast = f.interpolate(nodes, values, 64)
    fast_eval = f.evaluate(fast, nodes[0])
    monkeypatch.setattr(fields_module, "_MPZ_MIN_DEGREE", 10**9)
    plain = f.interpolate(nodes, values, 64)
    assert plain == fast and all(type(c) is int for c in fast)
    assert f.evaluate(plain, nodes[0]) == fast_eval == values[0]


def _product_by_muls(field_: VanLintField, factors: list[int]) -> int:
    out = 1
    for f in factors:
        out = field_.mul(out, field_.reduce(f))
    return out


def _product_cases() -> list[tuple[VanLintField, list[int], int]]:
    rng = random.Random(83)
    cases = []
    for level in (0, 1, 2):
        f = VanLintField(level)
        for count in range(5):
            for bits in (2, f.degree, 2 * f.degree):  # up to unreduced factors
                cases.append((f, [rng.randrange(1 << bits) for _ in range(count)], bits))
    return cases


def test_product_tree_with_zero_one_or_more_factors_is_the_product() -> None:
    for f, factors, bits in _product_cases():
        assert f._product(factors, bits) == _product_by_muls(f, factors)


def test_product_check_fails_when_a_single_factor_is_not_reduced(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tests._plant import plant
    plant(monkeypatch, VanLintField, "_product",
          "return self.reduce(factors[0]) if factors else 1",
          "return factors[0] if factors else 1")
    assert any(f._product(factors, bits) != _product_by_muls(f, factors)
               for f, factors, bits in _product_cases())
