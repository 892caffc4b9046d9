"""The counting samplers' fast paths and batch API (issue 14): ``sample_many``, the native
kernels (``exactdp/_samplers_native.c``), GeoSample's PowerWalk, and the verify rows that prove
them equal to the reference search -- each row shown failing on a planted bug."""

from __future__ import annotations

import itertools
import os
import random
import secrets
from collections.abc import Iterator
from fractions import Fraction
from functools import partial
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_checker_mutants import planted

import exactdp.proofs.balcer_vadhan._counting as grid
from exactdp import fastsample, inverse_cdf, native_samplers
from exactdp.checker import counting_distribution
from exactdp.counting import FastSample, GeoSample, PowerWalk, inverse_cdf_search, search_rounds
from exactdp.explore import explore
from exactdp.params import DomainError, ParameterTypeError
from exactdp.proofs.balcer_vadhan import thm_4_07_fast_path, thm_4_10_fast_path
from exactdp.randomness import SeededSource, SystemSource, UniformBatch
from exactdp.trace import record, recording

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
    """search_cdf's window of S F' (the default Python search) breaks the row ..."""
    with planted(FastSample, "search_cdf", "return (z + 1) * d_prime + rest",
                 "return z * d_prime + rest"):
        assert thm_4_10_fast_path.check_equal(False).verdict is False


def test_python_power_search_bug_fails_the_fastsample_row(
        small_grids: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """... and, when the window would be too large, _gmp_cdf over the power table."""
    monkeypatch.setattr(fastsample, "NATIVE_TABLE_BYTES", 0)
    assert thm_4_10_fast_path.check_equal(False).verdict is True
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
    monkeypatch.setattr(inverse_cdf, "BATCH_CHUNK", 4)
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


# ------------------------------------------------------------------ the one-draw path


def _estimate_excess(r: int, d: int) -> int:
    """How far Knuth's first quotient estimate (top two limbs of ``r << s`` over the top limb of
    ``d << s``, capped at ``2**64 - 1``) exceeds ``floor(r / d)``: 0, 1 or 2 -- computed here from
    the textbook definition, to show that the boundary cases below reach the C refinement."""
    width = native_samplers.limbs(d)
    s = 64 * width - d.bit_length()
    big, dn = r << s, d << s
    top = big >> (64 * (width - 1))
    return min(top // (dn >> (64 * (width - 1))), 2**64 - 1) - big // dn


@needs_native
def test_native_division_corrects_estimates_two_too_large() -> None:
    # divisors whose lower limbs are large make the first estimate 2 too large (TAOCP 4.3.1)
    ones = 2**64 - 1
    divisors = [(2**63 << 128) + (ones << 64) + ones, (2**63 << 64) + ones,
                ((2**63 + 1) << 192) + (ones << 128) + 5, 3**100, 2**127 - 1, 2**64 + 1]
    excess = set()
    for d in divisors:
        bits = d.bit_length()
        m = (1 << (bits + 63)) // d
        rs = sorted({r for q in (0, 1, 2, m // 2, m - 1) for rem in (0, 1, d // 2, d - 2, d - 1)
                     if 0 <= (r := q * d + rem) < 1 << (bits + 63)})
        excess |= {_estimate_excess(r, d) for r in rs}
        width = native_samplers.limbs(d)
        us, ok = native_samplers.reduce(d, native_samplers.to_limbs(rs, width + 1), len(rs))
        for e, r in enumerate(rs):
            q, rem = divmod(r, d)
            assert bool(ok[e]) == (q < m), (d, r)
            got = int.from_bytes(us[e * width * 8:(e + 1) * width * 8], "little")
            assert got == rem + 1, (d, r)
    assert excess == {0, 1, 2}


class _Stream:
    """Deterministic 'OS' bytes: the same stream for the native and the Python path."""

    def __init__(self, seed: int, rejected_first: bool = False) -> None:
        self.rng = random.Random(seed)
        self.rejected_first = rejected_first

    def __call__(self, size: int) -> bytes:
        if self.rejected_first:  # all ones: r = 2**(K+63) - 1 >= floor(2**(K+63)/d) d
            self.rejected_first = False
            return b"\xff" * size
        return self.rng.randbytes(size)


def _draws(mech_args: tuple[int, Any, Any], counts: list[int], native: bool, seed: int,
           monkeypatch: pytest.MonkeyPatch, rejected_first: bool = False) -> list[int]:
    """``FastSample.sample(c)`` for each count, the OS bytes from one :class:`_Stream`."""
    with monkeypatch.context() as m:
        if not native:
            m.setattr(native_samplers, "available", lambda: False)
        stream = _Stream(seed, rejected_first)
        m.setattr(os, "urandom", stream)
        m.setattr(secrets, "token_bytes", stream)
        m.setattr(SystemSource, "uniform", lambda self, d: 1 + stream(8)[0] % 2)
        mech = FastSample(*mech_args)
        assert (mech._native is not None) == native
        return [mech.sample(c) for c in counts]


@needs_native
@pytest.mark.parametrize("args", [(4, Fraction(1, 2), Fraction(1, 10)),
                                  (41, 1, Fraction(1, 2)), (300, Fraction(1, 3), Fraction(1, 1000))],
                         ids=str)
def test_one_draw_path_makes_the_python_paths_draws(args: tuple[int, Any, Any],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    n = args[0]
    counts = [0, n, n // 2, 1, n - 1] * 8
    for rejected_first in (False, True):
        native = _draws(args, counts, True, 7, monkeypatch, rejected_first)
        python = _draws(args, counts, False, 7, monkeypatch, rejected_first)
        assert native == python
        assert all(0 <= z <= n for z in native) and len(set(native)) > 1


@needs_native
def test_one_draw_path_records_the_batch_event() -> None:
    mech = FastSample(41, 1, Fraction(1, 2))
    with recording() as one:
        mech.sample(3)
    with recording() as batch:
        mech.sample_many([3])
    assert one == batch == [("native_search", 1, search_rounds(41))]


@needs_native
def test_one_draw_refuses_bad_input() -> None:
    mech = FastSample(41, 1, Fraction(1, 2))
    table = mech._native
    assert table is not None
    with pytest.raises(ValueError, match="W \\+ 1 limbs"):
        table.sample_one(0, bytes(table.raw_bytes - 1))
    with pytest.raises(RuntimeError, match="code -2"):
        table.sample_one(42, bytes(table.raw_bytes))
    with pytest.raises(DomainError, match="c = 42"):
        mech.sample(42)
    with pytest.raises(ParameterTypeError, match="c = True"):
        mech.sample(True)  # type: ignore[arg-type]


@needs_native
def test_one_draw_bug_fails_the_fastsample_row(small_grids: None,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    original = native_samplers.SearchTable.sample_one

    def broken(self: native_samplers.SearchTable, c: int, raw: bytes) -> int:
        z = original(self, c, raw)
        return z + 1 if z == 2 else z  # one output value off by one

    monkeypatch.setattr(native_samplers.SearchTable, "sample_one", broken)
    assert thm_4_10_fast_path.check_equal(False).verdict is False


@needs_native
@pytest.mark.parametrize(("old", "new"), [
    ("heads.append(a)", "heads.append(a + 1)"),  # the rounds' heads
    ("rems.append(b << self.shift)", "rems.append((b + 1) << self.shift)"),  # the final test
])
def test_search_table_bug_fails_the_fastsample_row(small_grids: None, old: str, new: str) -> None:
    with planted(native_samplers.SearchTable, "__init__", old, new):
        assert thm_4_10_fast_path.check_equal(False).verdict is False


@needs_native
@pytest.mark.parametrize("args", [(4, Fraction(1, 2), Fraction(1, 10)), (41, 1, Fraction(1, 2))],
                         ids=str)
def test_native_search_at_every_switch_point(args: tuple[int, Any, Any]) -> None:
    # the C rounds depend on u through q = floor((u - 1) / d') only: they switch at every
    # u = k d' + 1; the final comparison at the F thresholds.  All of them, every c.
    mech = FastSample(*args)
    table = mech._native
    assert table is not None
    d_prime, d = mech.d_prime, mech.d
    us = sorted({u for k in range(d // d_prime + 1) for u in (k * d_prime, k * d_prime + 1)
                 if 1 <= u <= d})
    for c in range(mech.n + 1):
        want = [inverse_cdf_search(partial(mech.cdf, c), mech.n, u) for u in us]
        got = native_samplers.search(table, [c] * len(us), native_samplers.to_limbs(
            us, table.width))
        assert got == want, c


@needs_native
@given(st.integers(min_value=1, max_value=2**400), st.data())
@settings(max_examples=200, deadline=None)
def test_native_reduce_equals_divmod(d: int, data: st.DataObject) -> None:
    bits = d.bit_length()
    rs = data.draw(st.lists(st.integers(min_value=0, max_value=(1 << (bits + 63)) - 1),
                            min_size=1, max_size=8))
    m = (1 << (bits + 63)) // d
    width = native_samplers.limbs(d)
    us, ok = native_samplers.reduce(d, native_samplers.to_limbs(rs, width + 1), len(rs))
    for e, r in enumerate(rs):
        q, rem = divmod(r, d)
        assert bool(ok[e]) == (q < m)
        assert int.from_bytes(us[e * width * 8:(e + 1) * width * 8], "little") == rem + 1


def test_a_subclass_with_its_own_cdf_is_sampled_by_inverting_that_cdf() -> None:
    """The fast paths compute GeoSample's / FastSample's own F; a subclass that changes
    ``cdf`` (as the planted float-CDF bug of tests/planted_bugs.py does) must still be the
    inverse of its ``cdf``, on every path: M(c, u) = min{z : cdf(c, z) >= u}."""
    from exactdp.counting import FastSample, GeoSample

    for base in (GeoSample(12, 1), FastSample(12, 1, Fraction(1, 4))):
        class Shifted(type(base)):  # type: ignore[misc, valid-type]
            def cdf(self, c: int, z: int) -> int:  # F moved one step: a different sampler
                return super().cdf(c, min(z + 1, self.n))

        bug = Shifted(*((12, 1) if isinstance(base, GeoSample) else (12, 1, Fraction(1, 4))))
        d = bug.d
        for c in (0, 5, 12):
            for u in {1, 2, d // 3, d // 2, d - 1, d}:
                want = next(z for z in range(bug.n + 1) if bug.cdf(c, z) >= u)
                assert bug(c, u) == want
                assert bug.search_many([c], [u]) == [want]


# The fallback searches (no window: _gmp_cdf; no power table: cdf with powers on demand) only
# run where a table would exceed its budget (n near 10**6); the row forces them itself, on the
# quick grid as it is, so these mutations are caught without any monkeypatched budget.

@pytest.mark.parametrize(("owner", "name", "old", "new"), [
    (FastSample, "_gmp_cdf", "if z < c - t:", "if z <= c - t:"),
    (FastSample, "_gmp_cdf", "if z < c:", "if z <= c:"),
    (FastSample, "_truncated_at",
     "return ((self._base**i if table is None else table[i]) << (-k * j)) - self._tail",
     "return ((self._base**(i + 1) if table is None else table[i]) << (-k * j)) - self._tail"),
])
def test_fallback_search_mutation_fails_the_quick_row(owner: Any, name: str, old: str,
                                                      new: str) -> None:
    assert fastsample.NATIVE_TABLE_BYTES == 1 << 26  # the real budget: nothing forced here
    with planted(owner, name, old, new):
        report = thm_4_10_fast_path.check_equal(False)
        assert report.verdict is False
        bad = [c.witness for c in report.certificates if not c.verdict]
        assert bad and all("fallback" in str(w["path"]) for w in bad)
