"""Tests of exactdp.randomness: the uniform(d) sources (DESIGN.md rule 3)."""

from __future__ import annotations

import time
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactdp.explore import explore
from exactdp.params import DomainError, ParameterTypeError
from exactdp.randomness import (
    CallableSource,
    NotForReleaseWarning,
    RandomSource,
    SeededSource,
    SystemSource,
    check_domain_size,
    default_source,
)


def _constant(u: int) -> CallableSource:
    """A source whose every draw returns ``u``."""
    return CallableSource(lambda d: u)


def _seeded(seed: int | str | bytes = 0) -> SeededSource:
    with pytest.warns(NotForReleaseWarning):
        return SeededSource(seed)


# ---------------------------------------------------------------- uniform(d) range


@pytest.mark.parametrize("make", [SystemSource, _seeded])
def test_uniform_in_range_small(make: type[RandomSource]) -> None:
    src = make()
    for d in (1, 2, 3, 7, 10, 1000):
        draws = [src.uniform(d) for _ in range(300)]
        assert all(type(u) is int and 1 <= u <= d for u in draws)
    assert src.uniform(1) == 1


@pytest.mark.parametrize("make", [SystemSource, _seeded])
def test_uniform_hits_both_endpoints(make: type[RandomSource]) -> None:
    src = make()
    seen = {src.uniform(3) for _ in range(300)}
    assert seen == {1, 2, 3}  # probability of missing one: < 3 * (2/3)**300


@pytest.mark.parametrize("make", [SystemSource, _seeded])
def test_uniform_huge_domain_fast(make: type[RandomSource]) -> None:
    # d with three million bits: exact rejection sampling on d.bit_length() bits.
    d = 2**3_000_000 + 7
    src = make()
    start = time.process_time()
    draws = [src.uniform(d) for _ in range(3)]
    assert time.process_time() - start < 5
    for u in draws:
        assert 1 <= u <= d
    # Three draws all below 2**2_999_990 would have probability about 2**-30.
    assert any(u.bit_length() > 2_999_990 for u in draws)


@given(st.integers(min_value=1, max_value=2**200))
def test_system_source_any_d(d: int) -> None:
    u = SystemSource().uniform(d)
    assert 1 <= u <= d


def test_seeded_source_roughly_uniform() -> None:
    # Deterministic (fixed seed): a sanity check of the reduction, not a statistical claim.
    src = _seeded(12345)
    counts = Counter(src.uniform(6) for _ in range(6000))
    assert set(counts) == set(range(1, 7))
    assert all(800 <= counts[v] <= 1200 for v in range(1, 7))


# ---------------------------------------------------------------- seeded source


@given(st.one_of(st.integers(), st.text(max_size=10), st.binary(max_size=10)))
def test_seeded_source_deterministic_per_seed(seed: int | str | bytes) -> None:
    with pytest.warns(NotForReleaseWarning):
        a, b = SeededSource(seed), SeededSource(seed)
    ds = [1, 2, 10, 2**70 + 1, 5]
    assert [a.uniform(d) for d in ds] == [b.uniform(d) for d in ds]


def test_seeded_sources_differ_across_seeds() -> None:
    a, b = _seeded(1), _seeded(2)
    assert [a.uniform(2**64) for _ in range(4)] != [b.uniform(2**64) for _ in range(4)]


def test_seeded_source_warns_and_says_not_for_release() -> None:
    with pytest.warns(NotForReleaseWarning, match="never to release"):
        src = SeededSource(3)
    assert "NOT FOR RELEASES" in repr(src)


def test_not_for_release_warning_is_user_warning() -> None:
    assert issubclass(NotForReleaseWarning, UserWarning)


# ---------------------------------------------------------------- bad d


@pytest.mark.parametrize("make", [SystemSource, _seeded])
@pytest.mark.parametrize("d", [0, -1, -(2**100)])
def test_bad_domain_value(make: type[RandomSource], d: int) -> None:
    with pytest.raises(DomainError, match="d = "):
        make().uniform(d)


@pytest.mark.parametrize("make", [SystemSource, _seeded])
@pytest.mark.parametrize("d", [True, 2.0, "5", None, Fraction(4)])
def test_bad_domain_type(make: type[RandomSource], d: object) -> None:
    with pytest.raises(ParameterTypeError, match="d = "):
        make().uniform(d)  # type: ignore[arg-type]


def test_check_domain_size() -> None:
    assert check_domain_size(1) == 1
    assert check_domain_size(2**5000) == 2**5000
    with pytest.raises(DomainError):
        check_domain_size(0)


# ---------------------------------------------------------------- bernoulli


@given(st.integers(min_value=1, max_value=60), st.data())
def test_bernoulli_exact_under_exploration(den: int, data: st.DataObject) -> None:
    num = data.draw(st.integers(min_value=0, max_value=den))
    dist = explore(lambda s: s.bernoulli(num, den))
    expected = {True: Fraction(num, den), False: Fraction(den - num, den)}
    assert dist == {k: v for k, v in expected.items() if v}


@given(st.integers(min_value=1, max_value=40), st.data())
def test_default_bernoulli_counts_exactly_num_of_den(den: int, data: st.DataObject) -> None:
    # The base-class bernoulli reduces to one uniform(den) draw: over all den values of u,
    # exactly num of them give True.
    num = data.draw(st.integers(min_value=0, max_value=den))
    trues = sum(_constant(u).bernoulli(num, den) for u in range(1, den + 1))
    assert trues == num


def test_bernoulli_explored_through_uniform_when_not_overridden() -> None:
    # A subclass that only supplies uniform() still gets the exact distribution when
    # the default bernoulli is explored through it.
    class Plain(RandomSource):
        def __init__(self, inner: RandomSource) -> None:
            self.inner = inner

        def uniform(self, d: int) -> int:
            return self.inner.uniform(d)

    dist = explore(lambda s: Plain(s).bernoulli(2, 7))
    assert dist == {False: Fraction(5, 7), True: Fraction(2, 7)}


@pytest.mark.parametrize(("num", "den"), [(-1, 3), (4, 3)])
def test_bernoulli_bad_arguments(num: int, den: int) -> None:
    with pytest.raises(DomainError, match="bernoulli"):
        SystemSource().bernoulli(num, den)
    with pytest.raises(DomainError, match="bernoulli"):
        explore(lambda s: s.bernoulli(num, den))


# ---------------------------------------------------------------- inverse_cdf via uniform


class _TableDraw:
    """A finite CDF given as a table: F(z) = table[z]."""

    def __init__(self, table: list[int]) -> None:
        self.table = table
        self.n = len(table) - 1
        self.d = table[-1]

    def cdf(self, z: int) -> int:
        return self.table[z]

    def search(self, u: int) -> int:
        return min(z for z, f in enumerate(self.table) if f >= u)


def test_inverse_cdf_default_is_search_of_one_uniform_draw() -> None:
    draw = _TableDraw([2, 2, 7, 10])
    outs = [_constant(u).inverse_cdf(draw) for u in range(1, 11)]
    assert outs == [0, 0, 2, 2, 2, 2, 2, 3, 3, 3]


# ---------------------------------------------------------------- CallableSource, default


def test_callable_source_passes_values_through() -> None:
    seen: list[int] = []

    def fn(d: int) -> int:
        seen.append(d)
        return d

    src = CallableSource(fn)
    assert src.uniform(9) == 9
    assert seen == [9]


@pytest.mark.parametrize("bad", [0, 11, -1, True, 2.0, "3", None])
def test_callable_source_validates_returned_value(bad: object) -> None:
    src = CallableSource(lambda d: bad)  # type: ignore[arg-type, return-value]
    with pytest.raises(DomainError, match="outside"):
        src.uniform(10)


def test_callable_source_validates_d_before_calling() -> None:
    calls: list[int] = []
    src = CallableSource(lambda d: calls.append(d) or 1)  # type: ignore[func-returns-value]
    with pytest.raises(DomainError):
        src.uniform(0)
    assert calls == []


def test_default_source() -> None:
    assert isinstance(default_source(None), SystemSource)
    src = _seeded()
    assert default_source(src) is src


def test_base_source_requires_uniform() -> None:
    with pytest.raises(NotImplementedError):
        RandomSource().uniform(3)


# ---------------------------------------------------------------- uniform_many's rejections

def _rejection_batch(native: bool, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """``SystemSource().uniform_many(3, 4)`` on planted OS bytes, with ``uniform`` (the
    redraw) returning 3.  d = 3, so r has K + 63 = 65 bits: all-ones bits give r = 2^65 - 1
    >= 2^65 - 2 = floor(2^65 / 3) 3 (rejected; kept, it would read r mod 3 + 1 = 2), zero
    bits r = 0 (accepted: u = 1), and r = 2^65 - 5, the largest multiple of 3 below the
    bound (quotient exactly floor(2^65 / 3) - 1: accepted, u = 1)."""
    import secrets

    from exactdp import native_samplers

    if native and not native_samplers.available():
        pytest.skip("native sampler kernels not built")
    if not native:
        monkeypatch.setattr(native_samplers, "available", lambda: False)
    size = (native_samplers.limbs(3) + 1) * native_samplers.LIMB_BYTES
    raw = (b"\xff" * size + b"\0" * size + b"\xff" * size
           + ((1 << 65) - 5).to_bytes(size, "little"))
    monkeypatch.setattr(secrets, "token_bytes", lambda n: raw[:n])
    monkeypatch.setattr(SystemSource, "uniform", lambda self, d: 3)
    return list(SystemSource().uniform_many(3, 4))


@pytest.mark.parametrize("native", [True, False])
def test_uniform_many_redraws_exactly_the_rejected_draws(native: bool,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A draw whose ``K + 63`` bits fall in the rejected top ``2**(K+63) mod d`` values is
    replaced by ``uniform(d)`` and the accepted ones are kept (probability below 2^-62 per
    draw on real coins, so only planted bytes reach it, and no verify row does)."""
    assert _rejection_batch(native, monkeypatch) == [3, 1, 3, 1]


@pytest.mark.parametrize(("native", "old", "new"), [
    (True, "if not good)", "if good)"),  # the native path redraws the accepted draws
    (False, "if q <= m1 else", "if q < m1 else"),  # the Python path's bound one too low
    (False, "if q <= m1 else", "if q <= m1 + 1 else"),  # ... one too high: keeps r mod d
])
def test_uniform_many_planted_rejection_bugs_fail(native: bool, old: str, new: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from tests._plant import plant

    plant(monkeypatch, SystemSource, "uniform_many", old, new)
    assert _rejection_batch(native, monkeypatch) != [3, 1, 3, 1]
