"""Projection matrices, OPORP plans and exact projections (paper 001, §1.1, Algorithm 4)."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations
from math import factorial

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactdp.explore import explore
from exactdp.params import DomainError, ParameterError, ParameterTypeError
from exactdp.projections import (
    OPORPPlan,
    column_max_abs,
    fisher_yates,
    l1_sensitivity,
    l2_sensitivity_sq,
    oporp,
    pad_to_multiple,
    project,
    sample_rademacher,
    sample_very_sparse,
    sign_with_tie,
)
from tests._sources import RecordingSource


@pytest.mark.parametrize("p", [1, 2, 3, 4])
def test_fisher_yates_gives_every_permutation_with_probability_one_over_p_factorial(p: int) -> None:
    law = explore(lambda s: fisher_yates(p, s))
    assert set(law) == set(permutations(range(p)))
    assert all(v == Fraction(1, factorial(p)) for v in law.values())


@pytest.mark.parametrize("p", [1, 2, 5, 9])
def test_fisher_yates_draws_p_minus_one_uniforms_of_fixed_domains(p: int) -> None:
    src = RecordingSource(p)
    perm = fisher_yates(p, src)
    assert sorted(perm) == list(range(p))
    assert src.sizes == list(range(p, 1, -1))


def test_rademacher_entries_are_fair_signs_one_uniform_2_each() -> None:
    law = explore(lambda s: sample_rademacher(1, 2, s))
    assert law == {((a, b),): Fraction(1, 4) for a in (-1, 1) for b in (-1, 1)}
    src = RecordingSource()
    W = sample_rademacher(3, 4, src)
    assert src.sizes == [2] * 12 and len(W) == 3 and all(len(r) == 4 for r in W)


@pytest.mark.parametrize("s", [1, 2, 3])
def test_very_sparse_entry_law(s: int) -> None:
    law = explore(lambda src: sample_very_sparse(1, 1, s, src)[0][0])
    expected = {-1: Fraction(1, 2 * s), 1: Fraction(1, 2 * s)}
    if s > 1:
        expected[0] = 1 - Fraction(1, s)
    assert law == dict(sorted(expected.items()))
    src = RecordingSource()
    sample_very_sparse(2, 3, s, src)
    assert src.sizes == [2 * s] * 6


def test_oporp_plan_sample_draws_and_law_over_plans() -> None:
    src = RecordingSource(3)
    plan = OPORPPlan.sample(4, 2, src)
    assert src.sizes == [4, 3, 2] + [2] * 4
    assert plan.p == 4 and plan.k == 2 and plan.bin_size == 2
    law = explore(lambda s: OPORPPlan.sample(3, 1, s))
    assert len(law) == 6 * 8 and all(v == Fraction(1, 48) for v in law.values())


def test_oporp_by_hand() -> None:
    plan = OPORPPlan((2, 0, 3, 1), (1, -1, -1, 1), 2)
    u = (5, 7, 11, 13)
    # bin 0: w0*u[2] + w1*u[0] = 11 - 5; bin 1: w2*u[3] + w3*u[1] = -13 + 7
    assert oporp(u, plan) == (6, -6)
    assert plan.bin_of == (0, 1, 0, 1) and plan.sign_of == (-1, 1, 1, -1)


@given(st.data())
def test_bin_of_and_sign_of_give_the_same_projection(data: st.DataObject) -> None:
    k = data.draw(st.integers(1, 4))
    p = k * data.draw(st.integers(1, 4))
    perm = tuple(data.draw(st.permutations(range(p))))
    w = tuple(data.draw(st.lists(st.sampled_from([-1, 1]), min_size=p, max_size=p)))
    u = data.draw(st.lists(st.integers(-9, 9), min_size=p, max_size=p))
    plan = OPORPPlan(perm, w, k)
    x = [0] * k
    for i, v in enumerate(u):
        x[plan.bin_of[i]] += plan.sign_of[i] * v
    assert oporp(u, plan) == tuple(x)


def test_project_is_w_transpose_u() -> None:
    W = ((1, -1), (0, 1), (-1, -1))
    assert project((2, 3, 5), W) == (2 - 5, -2 + 3 - 5)


def test_sensitivities_by_hand() -> None:
    W = ((1, -1, 0), (1, 1, 1), (0, 0, -1))
    assert l1_sensitivity(W, 2) == 6 and l2_sensitivity_sq(W, 2) == 12
    assert column_max_abs(((0, 1), (0, -1))) == (0, 1)
    R = sample_rademacher(5, 7, RecordingSource())
    assert l2_sensitivity_sq(R, 3) == 9 * 7 and l1_sensitivity(R, 3) == 21


def test_sign_with_tie_and_padding() -> None:
    assert [sign_with_tie(v) for v in (-3, 0, 4)] == [-1, 0, 1]
    assert pad_to_multiple((1, 2, 3), 2) == (1, 2, 3, 0)
    assert pad_to_multiple((1, 2), 2) == (1, 2)


@pytest.mark.parametrize("call, error", [
    (lambda: OPORPPlan((0, 0, 1), (1, 1, 1), 1), ParameterError),
    (lambda: OPORPPlan((0, 1, 2), (1, 2, 1), 1), ParameterError),
    (lambda: OPORPPlan((0, 1, 2), (1, 1, 1), 2), ParameterError),
    (lambda: OPORPPlan.sample(5, 2), ParameterError),
    (lambda: sample_rademacher(0, 2), ParameterError),
    (lambda: l1_sensitivity(((1,),), 0), DomainError),
    (lambda: l1_sensitivity(((1,), (1, 2)), 1), ParameterError),
    (lambda: project((1, 2.5), ((1,), (1,))), ParameterTypeError),
    (lambda: project((1, 2), ((1,),)), ParameterError),
    (lambda: oporp((True, 1), OPORPPlan((0, 1), (1, 1), 1)), ParameterTypeError),
])
def test_clear_errors(call: object, error: type) -> None:
    with pytest.raises(error):
        call()  # type: ignore[operator]
