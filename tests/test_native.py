"""The native path of CompactHistogram's arithmetic (``_gf2native.c``) against the pure one.

The two compute the same objects by different algorithms: the native interpolation works
coordinate-wise over the subfield ``K`` with a subproduct tree, the pure one in Newton form
over the whole field; the native evaluation sums ``table[i] x^i`` over ``K``'s coordinates,
the pure one runs Horner in the whole field.  Agreement is exact equality of field elements.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.histograms import native
from exactdp.histograms.compact import CompactHistogram, CompactRelease
from exactdp.histograms.data import Dataset
from exactdp.histograms.fields import VanLintField
from exactdp.params import DomainError, ParameterError, ResourceLimitError
from exactdp.randomness import SeededSource

needs_native = pytest.mark.skipif(not native.available(),
                                  reason=f"native path unavailable: {native.status()}")


def _pure_interpolate(level: int, k: int, nodes: list[int], values: list[int]) -> list[int]:
    field = VanLintField(level)
    return field.interpolate([field.embed(e, k) for e in nodes], values)


@needs_native
@pytest.mark.parametrize(("level", "k", "count"), [
    (0, 0, 1), (0, 0, 4), (1, 0, 4), (1, 1, 1), (1, 1, 40), (2, 0, 3), (2, 1, 30), (2, 2, 64),
    (3, 1, 50), (4, 4, 30), (5, 4, 25), (5, 5, 10), (6, 4, 12), (9, 4, 6),
])
def test_interpolation_matches_the_pure_path(level: int, k: int, count: int) -> None:
    rng = random.Random(level * 100 + k * 10 + count)
    field = VanLintField(level)
    nodes = rng.sample(range(min(1 << (2 * 3**k), 1 << 20)), count)
    values = [rng.randrange(field.order) for _ in range(count)]
    coefficients = native.interpolate(field.degree, 2 * 3**k, nodes, values)
    assert coefficients == _pure_interpolate(level, k, nodes, values)


@needs_native
@settings(max_examples=60, deadline=None)
@given(st.data())
def test_interpolation_hypothesis(data: st.DataObject) -> None:
    level = data.draw(st.integers(0, 3), label="level")
    k = data.draw(st.integers(0, level), label="k")
    size = 1 << (2 * 3**k)
    nodes = data.draw(st.lists(st.integers(0, min(size, 1 << 30) - 1), min_size=1,
                               max_size=min(size, 40), unique=True), label="nodes")
    field = VanLintField(level)
    values = data.draw(st.lists(st.integers(0, field.order - 1), min_size=len(nodes),
                                max_size=len(nodes)), label="values")
    assert native.interpolate(field.degree, 2 * 3**k, nodes, values) == \
        _pure_interpolate(level, k, nodes, values)


@needs_native
def test_large_interpolation_reproduces_the_values() -> None:
    """N = 300 over GF(2^39366) with nodes in GF(2^162) (past the Karatsuba threshold at
    every tree level that matters): the pure evaluation of the result at every node gives
    back the prescribed value."""
    rng = random.Random(3)
    field = VanLintField(9)
    nodes = rng.sample(range(1 << 62), 300)
    values = [rng.randrange(field.order) for _ in nodes]
    coefficients = native.interpolate(field.degree, 162, nodes, values)
    for i in rng.sample(range(300), 5):
        assert field.evaluate(coefficients, field.embed(nodes[i], 4)) == values[i]


@needs_native
@pytest.mark.parametrize(("level", "k"), [(0, 0), (1, 0), (2, 1), (4, 4), (5, 4), (9, 4)])
def test_table_evaluation_matches_horner(level: int, k: int) -> None:
    rng = random.Random(level + 7 * k)
    field = VanLintField(level)
    coefficients = [rng.randrange(field.order) for _ in range(rng.randrange(1, 30))]
    table = native.CoordinateTable(field.degree, 2 * 3**k, coefficients)
    for _ in range(6):
        e = rng.randrange(1 << (2 * 3**k))
        assert table.evaluate(e) == field.evaluate(coefficients, field.embed(e, k))


@needs_native
def test_release_is_the_same_on_both_paths() -> None:
    """Theorem 8.6's construction over |X| = 2^64 (GF(2^39366), nodes in GF(2^162)): the
    same seed gives the same coefficients, and the same counts through either evaluation."""
    rows = [5, 5, 2**63 + 11, 17, 2**64]
    data = Dataset.of(2**64, rows)
    out = {}
    for arithmetic in ("native", "pure"):
        ch = CompactHistogram.theorem_8_6(2**64, len(rows), Fraction(1, 10), Fraction(1, 2**20),
                                          arithmetic=arithmetic)
        out[arithmetic] = ch.release(data, SeededSource(11))
    assert out["native"].coefficients == out["pure"].coefficients
    assert out["native"].sublevel == 4
    for x in (5, 17, 2**64, 123456789):
        assert out["native"].evaluate(x) == out["pure"].evaluate(x)


@needs_native
def test_loaded_release_evaluates_natively() -> None:
    ch = CompactHistogram.with_geosample(2**20, 3, 1)
    rel = ch.release(Dataset.of(2**20, [1, 7, 7]), SeededSource(2))
    back = CompactRelease.loads(rel.dumps())
    pure = CompactRelease.loads(rel.dumps())
    object.__setattr__(pure, "arithmetic", "pure")
    assert [back.evaluate(x) for x in (1, 7, 99)] == [pure.evaluate(x) for x in (1, 7, 99)]


def test_native_request_fails_clearly_when_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native, "_library", lambda: (None, "not built (test)"))
    with pytest.raises(ParameterError, match="not built \\(test\\)"):
        CompactHistogram.with_geosample(16, 2, 1, arithmetic="native")
    ch = CompactHistogram.with_geosample(16, 2, 1)   # auto: falls back to the pure path
    assert ch.release(Dataset.of(16, [3, 3]), SeededSource(1)).evaluate(3) in range(3)


def test_unknown_arithmetic_is_rejected() -> None:
    with pytest.raises(ParameterError, match="arithmetic"):
        CompactHistogram.with_geosample(16, 2, 1, arithmetic="fast")


def test_status_is_one_line() -> None:
    assert native.status() and "\n" not in native.status()


def _clear_proof_caches() -> None:
    from exactdp.proofs.balcer_vadhan import _compact, thm_8_03_compact
    _compact.histogram.cache_clear()
    _compact.release_distribution.cache_clear()
    thm_8_03_compact._CACHE.clear()


@needs_native
def test_theorem_8_3_row_fails_when_the_native_path_is_wrong(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The verify row compares the native release law with the pure one: a native
    interpolation that flips one bit of the constant term makes it fail."""
    from exactdp.proofs.balcer_vadhan import thm_8_03_compact
    real = native.interpolate

    def broken(degree: int, sub_degree: int, nodes: list[int], values: list[int]) -> list[int]:
        out = real(degree, sub_degree, nodes, values)
        return [out[0] ^ 1, *out[1:]]

    _clear_proof_caches()
    try:
        assert thm_8_03_compact.check_i(False).verdict
        _clear_proof_caches()
        monkeypatch.setattr(native, "interpolate", broken)
        assert not thm_8_03_compact.check_i(False).verdict
    finally:
        _clear_proof_caches()


def test_memory_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native, "MAX_BYTES", 1 << 20)
    with pytest.raises(ResourceLimitError, match="MiB"):
        native.interpolate(39366, 162, list(range(200)), [1] * 200)


@needs_native
def test_bad_interpolation_input_is_rejected() -> None:
    with pytest.raises(ParameterError, match="distinct"):
        native.interpolate(18, 6, [1, 1], [0, 0])
    with pytest.raises(ParameterError, match="as many"):
        native.interpolate(18, 6, [1, 2], [0])
    with pytest.raises(DomainError, match="node"):
        native.interpolate(18, 6, [64], [0])
    with pytest.raises(DomainError, match="value"):
        native.interpolate(18, 6, [3], [1 << 18])
    with pytest.raises(DomainError, match="GF\\(2\\^6\\)"):
        native.CoordinateTable(18, 6, [1, 2]).evaluate(64)


def test_nodes_row_fails_for_a_wrong_inclusion(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lemma 8.1 (nodes) checks that embed is a field homomorphism: bit q -> bit q s + 1
    (injective, additive, not multiplicative) makes it fail."""
    from exactdp.proofs.balcer_vadhan import lemma_8_01_family
    assert lemma_8_01_family.check_nodes(False).verdict
    real = VanLintField.embed

    def shifted(self: VanLintField, e: int, sublevel: int) -> int:
        return real(self, e, sublevel) << 1 if sublevel < self.level else e

    monkeypatch.setattr(VanLintField, "embed", shifted)
    assert not lemma_8_01_family.check_nodes(False).verdict
