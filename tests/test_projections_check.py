"""exactdp.projections.exact (closed forms) and exactdp.projections.check (the checker), on
hand-computed values (notes LILI.md §3.1) and small stand-in samplers written here."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactdp import neighbours as nb
from exactdp.params import ParameterError
from exactdp.projections import exact as ex
from exactdp.projections.check import (
    check_dp,
    check_dp_over_family,
    check_idp,
    delta_at_epsilon,
    explored_law,
)
from exactdp.randomness import RandomSource

R = Fraction(3, 2)


def test_keep_and_flip_by_hand() -> None:
    assert ex.keep_probability(R, 0) == Fraction(1, 2)
    assert ex.keep_probability(R, 1) == Fraction(3, 5)
    assert ex.flip_probability(R, 2) == Fraction(4, 13)          # 1/(9/4 + 1)
    assert ex.rounded_flip_probability(R, 1, 256) == Fraction(103, 256)   # 2/5 * 256 = 102.4


def test_notes_flip_ratio_sequence() -> None:
    """Notes §3.1: f_L/f_{L+1} at rho = 3/2 is 5/4, 13/10, 35/26, 97/70, 275/194."""
    got = [ex.flip_probability(R, L) / ex.flip_probability(R, L + 1) for L in range(5)]
    assert got == [Fraction(5, 4), Fraction(13, 10), Fraction(35, 26), Fraction(97, 70),
                   Fraction(275, 194)]


def test_notes_rounding_slip_p9() -> None:
    """Notes §5 P9: rounded to 2^-8, f'_10/f'_11 = 5/3 and f'_13/f'_14 = 2 (> 3/2)."""
    f = [ex.rounded_flip_probability(R, L, 256) for L in range(15)]
    assert f[10] / f[11] == Fraction(5, 3)
    assert f[13] / f[14] == 2


def test_smooth_level_is_integer_ceiling() -> None:
    assert [ex.smooth_level(x, 2) for x in (-5, -4, -1, 0, 1, 2, 3)] == [3, 2, 1, 0, 1, 1, 2]
    assert ex.smooth_level(9, 1, 4) == 4
    with pytest.raises(ParameterError):
        ex.smooth_level(1, 0)


def test_projections_by_hand() -> None:
    W = ((1, -1), (1, 1), (-1, 1))
    assert ex.projections((2, 0, 1), W) == (1, -1)
    # perm [2,0,3,1], w = [1,-1,-1,1], k = 2: bins (u2 - u0), (-u3 + u1)
    assert ex.oporp_projections((1, 2, 3, 4), (2, 0, 3, 1), (1, -1, -1, 1), 2) == (2, -2)


def test_sign_laws_by_hand() -> None:
    assert ex.sign_rr_law((0, 3), R) == {(-1, -1): Fraction(1, 5), (-1, 1): Fraction(3, 10),
                                         (1, -1): Fraction(1, 5), (1, 1): Fraction(3, 10)}
    assert ex.sign_idp_law((-2, 1), {1}, R) == {(-1, -1): Fraction(2, 5),
                                                 (-1, 1): Fraction(3, 5)}
    assert ex.sign_smooth_law((2,), (1,), R) == {(-1,): Fraction(4, 13), (1,): Fraction(9, 13)}


def test_p_plus_rademacher_notes_values() -> None:
    """Notes §3.1 "Exact P+ for Rademacher" (beta = 1)."""
    assert [ex.p_plus_rademacher((1,) * p, 1) for p in (2, 3, 4, 5, 9)] == [
        Fraction(1, 2), Fraction(3, 4), Fraction(3, 8), Fraction(5, 8), Fraction(63, 128)]


@given(st.lists(st.sampled_from((-1, 1)), min_size=1, max_size=4).flatmap(
    lambda s1: st.tuples(st.just(s1), st.lists(st.sampled_from((-1, 1)), min_size=len(s1),
                                               max_size=len(s1)))),
       st.integers(2, 9), st.integers(1, 5))
def test_debiased_collision_is_unbiased(pair: tuple[list[int], list[int]], a: int, b: int) -> None:
    s1, s2 = pair
    rho = Fraction(a + b, b)
    agree = Fraction(sum(x == y for x, y in zip(s1, s2)), len(s1))
    assert ex.debiased_collision(ex.collision_agreement(s1, s2, rho), rho) == agree


# ---------------------------------------------------------------- stand-in samplers


def _rr_signs(x: tuple[int, ...], rho: Fraction, source: RandomSource) -> tuple[int, ...]:
    """A small independent randomized response (stand-in for the real mechanism)."""
    out = []
    for v in x:
        s = 1 if v >= 0 else -1
        if v == 0:
            out.append(s if source.bernoulli(1, 2) else -s)
        else:
            out.append(s if source.bernoulli(rho.numerator, rho.numerator + rho.denominator)
                       else -s)
    return tuple(out)


def test_explored_standin_equals_closed_form() -> None:
    W = ((1, -1), (1, 1), (-1, 1))
    for u in product(range(-1, 2), repeat=3):
        law = explored_law(lambda v, src: _rr_signs(ex.projections(v, W), R, src), u)
        assert law == ex.sign_rr_law(ex.projections(u, W), R)


def test_check_dp_oporp_rr_beta1_is_five_quarters() -> None:
    """Notes §3.1 / claim 1: beta = 1 on the integer grid, a sign only moves through 0:
    worst ratio (rho + 1)/2 = 5/4, and delta(5/4) = 0, delta(1) = TV > 0."""
    perm, w = (2, 0, 3, 1), (1, -1, -1, 1)
    rel = nb.vectors(4, -1, 1, 1)
    law = lambda u: explored_law(
        lambda v, src: _rr_signs(ex.oporp_projections(v, perm, w, 2), R, src), u)
    rep = check_dp(law, rel, Fraction(5, 4))
    assert rep.worst.ratio == Fraction(5, 4)
    assert rep.delta is not None and rep.delta.delta == 0
    assert rep.pure(Fraction(5, 4)) and not rep.pure(Fraction(6, 5))
    assert rep.pairs == len(list(rel.ordered_pairs()))


def test_check_dp_reports_infinite_ratio_for_a_zero_symbol() -> None:
    def leaky(v: tuple[int, ...], src: RandomSource) -> tuple[int, ...]:
        return tuple(0 if x == 0 else s for x, s in zip(v, _rr_signs(v, R, src)))

    rep = check_dp(lambda u: explored_law(leaky, u), nb.vectors(1, -1, 1, 1))
    assert rep.worst.ratio is None and rep.worst.infinite


def test_check_idp_frozen_and_recalibrated() -> None:
    """A toy iDP mechanism on x in {0..3}: calibrated at u, it randomises iff u <= 1 (like
    Algorithm 10's |x| <= beta); frozen it is private, recalibrated it is not."""

    def calibrate(ref: int):  # type: ignore[no-untyped-def]
        noisy = ref <= 1

        def law(u: int) -> dict[int, Fraction]:
            keep = Fraction(3, 5) if noisy else Fraction(1)
            bit = 1 if u >= 1 else 0
            return {b: (keep if b == bit else 1 - keep) for b in (0, 1) if
                    (keep if b == bit else 1 - keep)}
        return law

    frozen = check_idp(calibrate, 2, [1, 3], R)
    assert frozen.worst.ratio == 1                     # both neighbours give bit 1 surely
    recal = check_idp(calibrate, 2, [1, 3], R, frozen=False)
    assert recal.worst.infinite                         # u' = 1 randomises, u = 2 does not
    assert recal.pairs == 4


def test_check_dp_over_family_by_hand() -> None:
    """Two equally likely members: member 0 leaks nothing, member 1 releases the input
    bit with keep 3/4.  delta_1(R) = 3/4 - R/4 per ordered pair; averaged: (3/4 - R/4)/2."""
    def law(m: int, u: int) -> dict[int, Fraction]:
        if m == 0:
            return {0: Fraction(1, 2), 1: Fraction(1, 2)}
        return {u: Fraction(3, 4), 1 - u: Fraction(1, 4)}

    rep = check_dp_over_family(law, [(0, Fraction(1, 2)), (1, Fraction(1, 2))],
                               nb.counts(1), R)
    assert rep.conditional.ratio == 3 and rep.conditional_member == 1
    assert rep.averaged.delta == (Fraction(3, 4) - R / 4) / 2 == Fraction(3, 16)
    assert rep.conditional_delta == Fraction(3, 8)
    with pytest.raises(ParameterError, match="sum"):
        check_dp_over_family(law, [(0, Fraction(1, 2))], nb.counts(1), R)


def test_checker_parameter_errors() -> None:
    with pytest.raises(ParameterError, match="exact rational"):
        check_dp(lambda u: {0: Fraction(1)}, nb.counts(1), 1.5)
    with pytest.raises(ParameterError, match="no neighbouring pair"):
        check_dp(lambda u: {0: Fraction(1)}, [])
    with pytest.raises(ParameterError, match="rho"):
        ex.keep_probability(1, 1)


def test_delta_at_epsilon_brackets_the_rational_values() -> None:
    """Two coins: P(0) = 3/4 vs 1/4.  delta(R) = max(0, 3/4 - R/4) (both orders give the
    same); e^(1/2) in (1.6487, 1.6488): delta in (0.3378, 0.3379)."""
    law = {0: {0: Fraction(3, 4), 1: Fraction(1, 4)}, 1: {0: Fraction(1, 4), 1: Fraction(3, 4)}}
    box, wit = delta_at_epsilon(law.__getitem__, nb.counts(1), Fraction(1, 2))
    assert Fraction(3, 4) - Fraction(16488, 10000) / 4 < box.lo <= box.hi
    assert box.hi < Fraction(3, 4) - Fraction(16487, 10000) / 4
    assert wit.delta == box.hi and (wit.numerator_input, wit.denominator_input) == (0, 1)


@given(st.integers(-7, 7), st.integers(-2, 2), st.integers(1, 3), st.integers(2, 6),
       st.integers(1, 4), st.one_of(st.none(), st.integers(1, 4)))
def test_smooth_factor_matches_the_bit_laws(x: int, d: int, unit: int, a: int, b: int,
                                            level_max: int | None) -> None:
    """The case analysis of notes §3.1 (smooth_factor) = the max over the two outputs of
    the ratio of the bit laws, for any pair of projections (even |L - L'| > 1)."""
    if a <= b:
        a, b = b + 1, a
    rho = Fraction(a, b)

    def bit(v: int) -> dict[int, Fraction]:
        level = ex.smooth_level(v, unit, level_max)
        return ex.sign_bit_law(v, ex.keep_probability(rho, level))

    p, q = bit(x), bit(x + d)
    assert ex.smooth_factor(x, x + d, unit, rho, level_max) == max(p[y] / q[y] for y in (-1, 1))
