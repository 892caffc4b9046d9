"""The counting samplers' fast paths and batch API (issue 14): ``sample_many``, the native
kernels (``exactdp/_samplers_native.c``), GeoSample's PowerWalk, and the verify rows that prove
them equal to the reference search -- each row shown failing on a planted bug."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_checker_mutants import planted

import proofs._counting as grid
from exactdp import counting, native_samplers
from exactdp.checker import counting_distribution
from exactdp.counting import FastSample, GeoSample, PowerWalk, inverse_cdf_search
from exactdp.explore import explore
from exactdp.params import DomainError, ParameterTypeError
from exactdp.randomness import SeededSource, SystemSource, UniformBatch
from exactdp.trace import record
from proofs import thm_4_07_fast_path, thm_4_10_fast_path

needs_native = pytest.mark.skipif(not native_samplers.available(),
                                  reason=f"native kernels: {native_samplers.status()}")


@pytest.fixture(autouse=True)
def fresh_caches() -> Iterator[None]:
    """Mechanisms cache their native tables: build them anew under each planted bug."""
    grid.geosample.cache_clear()
    grid.fastsample.cache_clear()
    yield
    grid.geosample.cache_clear()
    grid.fastsample.cache_clear()


@pytest.fixture
def small_grids(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grid, "geo_grid", lambda full: [(3, Fraction(1)), (6, Fraction(1, 3)),
                                                        (40, Fraction(1, 2))])
    # n = 41 > t = 40: every branch of F' and of the C tests (below, inside, above the window)
    monkeypatch.setattr(grid, "fast_grid", lambda full: [(4, Fraction(1, 2), Fraction(1, 10)),
                                                         (41, Fraction(1), Fraction(1, 2))])
    monkeypatch.setattr(thm_4_07_fast_path, "_large", lambda full: [])


def test_rows_pass_on_small_grids(small_grids: None) -> None:
    for check in (*thm_4_07_fast_path.CHECKS, *thm_4_10_fast_path.CHECKS):
        report = check(False)
        assert report.certificates and report.verdict, report.worst


@needs_native
def test_native_table_bug_fails_the_fastsample_row(small_grids: None) -> None:
    with planted(native_samplers.SearchTable, "__init__", "(j + t + n + 1) * d_prime",
                 "(j + t + n) * d_prime"):
        assert thm_4_10_fast_path.check_equal(False).verdict is False


@needs_native
@pytest.mark.parametrize("kernel", ["search", "sample"])
def test_native_output_bug_fails_the_fastsample_row(small_grids: None, kernel: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    original = getattr(native_samplers, kernel)

    def broken(*args: Any) -> list[int]:
        out = original(*args)
        return [z + 1 if z == 2 else z for z in out]  # one output value off by one

    monkeypatch.setattr(native_samplers, kernel, broken)
    assert thm_4_10_fast_path.check_equal(False).verdict is False


@needs_native
def test_reduction_bug_fails_the_fastsample_row(small_grids: None) -> None:
    with planted(native_samplers, "_reducer", "m1 = (1 << (bits + 63)) // d - 1",
                 "m1 = (1 << (bits + 63)) // d"):
        assert thm_4_10_fast_path.check_equal(False).verdict is False


def test_python_search_bug_fails_the_fastsample_row(small_grids: None) -> None:
    with planted(FastSample, "_gmp_cdf", "base = (z + 1) * d_prime", "base = z * d_prime"):
        assert thm_4_10_fast_path.check_equal(False).verdict is False


@pytest.mark.parametrize(("old", "new"), [
    ("power = self.power * base ** (e - self.exponent)",
     "power = self.power * base ** (e - self.exponent) + 1"),
    ("power = gmpy2.divexact(self.power, base ** (self.exponent - e))",
     "power = gmpy2.divexact(self.power, base ** (self.exponent - e + 1)) * base"),
])
def test_power_walk_bug_fails_the_geosample_row(small_grids: None, old: str, new: str) -> None:
    with planted(PowerWalk, "search_cdf", old, new):
        assert thm_4_07_fast_path.check_equal(False).verdict is False


@pytest.mark.parametrize(("row", "owner"), [(thm_4_10_fast_path, FastSample),
                                            (thm_4_07_fast_path, GeoSample)])
def test_count_dependent_batch_fails_the_trace_row(small_grids: None, row: Any, owner: Any,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    original = owner.search_many

    def leaky(self: Any, counts: list[int], us: Any) -> list[int]:
        if counts and counts[0] == 0:
            record("cdf")  # one extra operation when the first count is 0
        return original(self, counts, us)  # type: ignore[no-any-return]

    monkeypatch.setattr(owner, "search_many", leaky)
    assert row.check_batch_time(False).verdict is False


# ------------------------------------------------------------------ the batch API


@pytest.mark.parametrize("mech", [GeoSample(4, Fraction(1, 2)), FastSample(3, 1, Fraction(1, 10)),
                                  FastSample(41, 1, Fraction(1, 2))], ids=repr)
def test_sample_many_law_is_the_product_of_the_single_laws(mech: Any) -> None:
    counts = [0, mech.n // 2, mech.n] if mech.n < 10 else [mech.n // 2, mech.n]
    law = explore(lambda s: tuple(mech.sample_many(counts, s)))
    singles = [counting_distribution(mech, c) for c in counts]
    for zs in itertools.product(range(mech.n + 1), repeat=len(counts)):
        p = Fraction(1)
        for single, z in zip(singles, zs, strict=True):
            p *= single.get(z, Fraction(0))
        assert law.get(zs, Fraction(0)) == p


@pytest.mark.parametrize("mech", [GeoSample(9, Fraction(1, 3)), FastSample(9, 1, Fraction(1, 7))],
                         ids=repr)
def test_sample_many_makes_the_draws_of_sample_calls(mech: Any) -> None:
    counts = [0, 3, 9, 9, 1] * 3
    assert mech.sample_many(counts, SeededSource(5)) == \
        [mech.sample(c, src) for src in [SeededSource(5)] for c in counts]


def test_sample_many_refuses_bad_counts() -> None:
    mech = FastSample(5, 1, Fraction(1, 2))
    assert mech.sample_many([], SystemSource()) == []
    with pytest.raises(DomainError, match="c = 6"):
        mech.sample_many([0, 6])
    with pytest.raises(ParameterTypeError, match="c = True"):
        mech.sample_many([True])
    with pytest.raises(ParameterTypeError, match="counts"):
        mech.sample_many("012")  # type: ignore[arg-type]


def test_sample_many_chunks_keep_every_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(counting, "BATCH_CHUNK", 4)
    mech = GeoSample(6, 1)
    counts = list(range(7)) * 2
    out = mech.sample_many(counts, SeededSource(3))
    assert out == [mech.sample(c, src) for src in [SeededSource(3)] for c in counts]


@given(st.integers(min_value=1, max_value=2**200), st.integers(min_value=0, max_value=40))
@settings(max_examples=60, deadline=None)
def test_system_uniform_many_in_range(d: int, k: int) -> None:
    us = SystemSource().uniform_many(d, k)
    assert len(us) == k and all(1 <= u <= d for u in us)


def test_system_uniform_many_python_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native_samplers, "available", lambda: False)
    us = SystemSource().uniform_many(3**50, 50)
    assert isinstance(us, list) and all(1 <= u <= 3**50 for u in us)
    mech = FastSample(41, 1, Fraction(1, 2))
    assert all(0 <= z <= 41 for z in mech.sample_many([0, 20, 41] * 5, SystemSource()))


@needs_native
def test_native_reduce_matches_divmod_at_the_boundaries() -> None:
    for d in (1, 2, 3, 2**63, 2**64 - 1, 2**64, 2**64 + 1, 3**100, 2**127 - 1):
        bits = d.bit_length()
        m = (1 << (bits + 63)) // d
        top = 1 << (bits + 63)
        rs = [r for r in (0, 1, d - 1, d, m * d - 1, m * d, top - 1) if r < top]
        width = native_samplers.limbs(d)
        # bits from K + 63 on are ignored: set them in the top limb of the last value
        raw = bytearray(native_samplers.to_limbs(rs, width + 1))
        raw[-1] |= 0x80
        us, ok = native_samplers.reduce(d, bytes(raw), len(rs))
        for e, r in enumerate(rs):
            q, rem = divmod(r, d)
            assert bool(ok[e]) == (q < m)
            if q < m:
                assert int.from_bytes(us[e * width * 8:(e + 1) * width * 8], "little") == rem + 1


@needs_native
@given(st.data())
@settings(max_examples=40, deadline=None)
def test_native_search_equals_reference(data: st.DataObject) -> None:
    n = data.draw(st.sampled_from([1, 2, 7, 41, 100, 300]))
    mech = FastSample(n, data.draw(st.sampled_from([1, Fraction(1, 3)])),
                      data.draw(st.sampled_from([Fraction(1, 2), Fraction(1, 1000)])))
    c = data.draw(st.integers(min_value=0, max_value=n))
    u = data.draw(st.integers(min_value=1, max_value=mech.d))
    assert mech(c, u) == inverse_cdf_search(lambda z: mech.cdf(c, z), n, u)


def test_uniform_batch_reads_back_its_numbers() -> None:
    values = [1, 2**64 + 5, 3**40]
    batch = UniformBatch(3**40, native_samplers.to_limbs(values, 2), 2)
    assert list(batch) == values and batch[-1] == 3**40 and batch[0:2] == values[:2]
    with pytest.raises(IndexError):
        batch[3]
    with pytest.raises(DomainError):
        UniformBatch(2**200, bytes(16), 2)
