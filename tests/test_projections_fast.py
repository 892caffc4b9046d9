"""The batch path of DP-SignOPORP (exactdp/projections/fast.py, native kernel and pure
fallback) against the pure per-vector path: same uniforms in the same order, same bits."""

from __future__ import annotations

import random
from array import array
from math import gcd

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactdp.params import DomainError, ParameterError, ParameterTypeError
from exactdp.projections import Base, DPSignOPORP, OPORPPlan, fast
from exactdp.randomness import SeededSource, SystemSource
from tests._sources import RecordingSource

PLAN = OPORPPlan.sample(12, 3, SeededSource(3))


def vectors(n: int, p: int, c: int, seed: int) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    return [tuple(rng.randint(-c, c) for _ in range(p)) for _ in range(n)]


def flat(rows: list[tuple[int, ...]], code: str) -> array:
    return array(code, [v for row in rows for v in row])


@pytest.fixture(params=["native", "pure"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "native":
        if not fast.available():
            pytest.skip(f"native kernel: {fast.status()}")
    else:
        monkeypatch.setattr(fast, "_library", lambda: (None, "disabled in this test"))
    return str(request.param)


@pytest.mark.parametrize("base, l_max, beta, smooth", [
    (Base(3, 2), 4, 1, True), (Base(3, 2), 1, 2, False), (Base(19, 7), 5, 3, True),
    (Base(3, 2), 14, 1, True),  # D of more than 64 bits: two limbs in the kernel
])
@pytest.mark.parametrize("code, c", [("b", 3), ("h", 300), ("i", 70000)])
def test_batch_equals_repeated_sample(path: str, base: Base, l_max: int, beta: int,
                                      smooth: bool, code: str, c: int) -> None:
    mech = DPSignOPORP(PLAN, beta, base, l_max, smooth)
    rows = vectors(40, 12, c, 7) + [(0,) * 12]
    got = mech.sample_batch(flat(rows, code), SeededSource(11))
    src = SeededSource(11)
    assert got.tolist() == [list(mech.sample(u, src)) for u in rows]
    assert got.shape == (len(rows), 3)


def test_batch_with_the_system_source_releases_signs(path: str) -> None:
    mech = DPSignOPORP(PLAN, 1, Base(3, 2), 4)
    out = mech.sample_batch(flat(vectors(50, 12, 5, 1), "b"), SystemSource())
    assert {v for row in out.tolist() for v in row} <= {-1, 1}


def test_two_dimensional_numpy_input() -> None:
    np = pytest.importorskip("numpy")
    mech = DPSignOPORP(PLAN, 1, Base(3, 2), 4)
    rows = vectors(5, 12, 5, 2)
    got = mech.sample_batch(np.array(rows, dtype=np.int16), SeededSource(4))
    src = SeededSource(4)
    assert got.tolist() == [list(mech.sample(u, src)) for u in rows]
    with pytest.raises(ParameterError):
        mech.sample_batch(np.zeros((2, 6), dtype=np.int8), SeededSource(4))


def test_batch_draws_one_uniform_of_domain_d_per_bit_whatever_the_data(path: str) -> None:
    mech = DPSignOPORP(PLAN, 2, Base(3, 2), 4)
    for rows in (vectors(30, 12, 50, 3), [(0,) * 12] * 30):
        src = RecordingSource(1)
        mech.sample_batch(flat(rows, "h"), src)
        assert src.sizes == [mech.flipper.denominator] * (30 * 3)


class BadBatch(SeededSource):
    def uniform_many(self, d: int, k: int) -> list[int]:
        return [d + 1] * k


def test_a_bad_batch_of_draws_is_refused(path: str) -> None:
    with pytest.raises(DomainError):
        DPSignOPORP(PLAN, 1, Base(3, 2), 2).sample_batch(flat(vectors(2, 12, 3, 1), "b"),
                                                         BadBatch(1))


@pytest.mark.parametrize("data, error", [
    (array("d", [0.0] * 12), ParameterTypeError),
    (array("q", [0] * 12), ParameterTypeError),
    (array("b", [0] * 13), ParameterError),
    (array("b"), ParameterError),
    ([0] * 12, ParameterTypeError),
])
def test_batch_clear_errors(data: object, error: type) -> None:
    with pytest.raises(error):
        DPSignOPORP(PLAN, 1, Base(3, 2), 2).sample_batch(data, SeededSource(1))


@given(st.data())
def test_batch_equals_repeated_sample_for_any_plan(data: st.DataObject) -> None:
    k = data.draw(st.integers(1, 4))
    p = k * data.draw(st.integers(1, 4))
    plan = OPORPPlan(tuple(data.draw(st.permutations(range(p)))),
                     tuple(data.draw(st.lists(st.sampled_from([-1, 1]), min_size=p,
                                              max_size=p))), k)
    a = data.draw(st.integers(2, 30))
    b = data.draw(st.integers(1, a - 1).filter(lambda v: gcd(a, v) == 1))
    mech = DPSignOPORP(plan, data.draw(st.integers(1, 5)), Base(a, b),
                       data.draw(st.integers(1, 9)))
    rows = [tuple(data.draw(st.lists(st.integers(-100, 100), min_size=p, max_size=p)))
            for _ in range(data.draw(st.integers(1, 4)))]
    seed = data.draw(st.integers(0, 99))
    want = [list(mech.sample(u, src)) for src in [SeededSource(seed)] for u in rows]
    for lib in ((fast._library()[0], "native"), (None, "pure")):
        if lib[0] is None and lib[1] == "native":
            continue
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(fast, "_library", lambda lib=lib: lib)
            assert mech.sample_batch(flat(rows, "h"), SeededSource(seed)).tolist() == want
