"""The per-call fast paths of the compact histogram (issue 14) against their reference paths.

Each fast path computes the same exact value as a reference kept beside it: EmptyBinSampler's
``f`` / ``max_preimage`` on plain ints (small ``d0``) and on gmpy2 (large ``d0``);
``VanLintField.mul`` written out against ``reduce(clmul(a, b))``; ``gf2_square``'s byte
spreading against the base-4 reading; ``VanLintField.evaluate`` written out (windows, or rows of
products in GF(4) and GF(64)) against the sum of powers; the native glue's one-word
packing against the byte packing; M0's memo of the intervals ``S_v`` against their
recomputation; the native glue's argtypes-free entry points against the pure
path; the explorer's memo of the release's draws (their ``explore_key``)
against explorations that read every draw's CDF on every path.  Each check is also shown failing on a planted bug.
"""

from __future__ import annotations

import ctypes
import random
from collections.abc import Callable
from fractions import Fraction

import gmpy2
import pytest

from exactdp.counting import GeoSample, TabulatedMechanism
from exactdp.explore import explore
from exactdp.histograms import compact, empty_bin, fields, gf2, native
from exactdp.histograms.compact import CompactHistogram, EmptyBinSampler
from exactdp.histograms.data import Dataset
from exactdp.histograms.fields import VanLintField
from exactdp.histograms.gf2 import clmul, gf2_square
from exactdp.params import DomainError
from exactdp.proofs.balcer_vadhan import thm_8_03_compact
from exactdp.trace import recording
from tests._plant import plant

RR3 = TabulatedMechanism([[2, 3], [1, 3]])  # n = 1, d = 3


# --------------------------------------------------------------------------- M0's f


def _probes(sampler: EmptyBinSampler) -> list[int]:
    """``u0`` at both ends of f's pieces and of a few blocks, and the ends of ``[d0]_+``."""
    q, r, d0 = sampler.q, sampler.r, sampler.d0
    edge = r * (q + 1)
    out = {1, 2, d0 - 1, d0, q, q + 1, q + 2, edge - 1, edge, edge + 1, edge + q,
           edge + q + 1, d0 - q, d0 - q + 1}
    return sorted(u for u in out if 1 <= u <= d0)


def _by_gmpy2(sampler: EmptyBinSampler, u0: int) -> tuple[int, int]:
    """``(f(u0), max_preimage(f(u0)))`` computed the gmpy2 way, the reference for large d0."""
    q, r = gmpy2.mpz(sampler.q), sampler.r
    if r != 0 and u0 <= r * (q + 1):
        u = int(gmpy2.c_div(u0, q + 1))
    else:
        u = int(gmpy2.c_div(u0 - r, q))
    return u, int((q + 1) * u) if r != 0 and u <= r else int(q * u + r)


def _branches_disagree(sampler: EmptyBinSampler) -> list[int]:
    """The probes where f or max_preimage differ between the int and the gmpy2 branch."""
    bad = []
    for flag in (True, False):
        sampler._int_division = flag
        for u0 in _probes(sampler):
            u = sampler.f(u0)
            if (u, sampler.max_preimage(u)) != _by_gmpy2(sampler, u0):
                bad.append(u0)
    return bad


@pytest.mark.parametrize("level", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("mech", [GeoSample(1, 1), GeoSample(2, Fraction(1, 2)), RR3])
def test_f_int_and_gmpy2_branches_agree(level: int, mech: object) -> None:
    sampler = EmptyBinSampler(mech, VanLintField(level).order)  # type: ignore[arg-type]
    assert sampler._int_division == (sampler.d0.bit_length() <= empty_bin._INT_DIVISION_BITS)
    assert _branches_disagree(sampler) == []


def test_f_branch_check_fails_on_a_planted_bug() -> None:
    sampler = EmptyBinSampler(GeoSample(2, 1), VanLintField(5).order)
    sampler._first += sampler.q + 1  # f's first piece one block too long (both branches)
    assert _branches_disagree(sampler) != []


def _divmod_mismatches() -> list[int]:
    """Levels whose sampler's (q, r) differ from Python's divmod(d0, d)."""
    mech = GeoSample(3, Fraction(1, 3))
    return [level for level in range(2, 11)
            if (s := EmptyBinSampler(mech, VanLintField(level).order)) and
            (s.q, s.r) != divmod(s.d0, mech.d)]


def test_q_and_r_by_gmp_equal_divmod() -> None:
    assert _divmod_mismatches() == []


def test_q_and_r_check_fails_on_a_planted_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(empty_bin.gmpy2, "f_divmod", lambda a, b: (a // b, a % b + 1))
    assert _divmod_mismatches() == list(range(5, 11))  # the GMP branch: d0 > 2^256


def test_f_every_u0_matches_the_definition_on_small_fields() -> None:
    for d in range(1, 8):
        for d0 in range(-(-4 * d // 3), 4 * d + 4):
            row = list(range(1, d)) + [d] if d > 1 else [1, 1]
            sampler = EmptyBinSampler(TabulatedMechanism([row] * len(row)), d0)
            for u0 in range(1, d0 + 1):
                assert (sampler.f(u0), sampler.max_preimage(sampler.f(u0))) == _by_gmpy2(
                    sampler, u0)


def _preimage_mismatches(sampler: EmptyBinSampler) -> list[int]:
    """The v whose memoised interval differs from a recomputation (memo off), asked twice
    (the second answer comes from the memo)."""
    reference = EmptyBinSampler(sampler.mechanism, sampler.d0)
    reference._preimages = None
    bad = []
    for v in list(range(sampler.n + 1)) * 2:
        try:
            want = reference.preimage(v)
        except DomainError:  # S_v empty: the memo must refuse it too
            with pytest.raises(DomainError):
                sampler.preimage(v)
            continue
        if sampler.preimage(v) != want:
            bad.append(v)
    return bad


@pytest.mark.parametrize("mech", [GeoSample(1, 1), GeoSample(3, Fraction(1, 2)), RR3,
                                  TabulatedMechanism([[1, 1, 3]] * 3)])
def test_preimage_memo_equals_the_recomputation(mech: object) -> None:
    for level in (1, 2, 3):
        d0 = VanLintField(level).order
        if 3 * d0 >= 4 * mech.d:  # type: ignore[attr-defined]
            sampler = EmptyBinSampler(mech, d0)  # type: ignore[arg-type]
            assert sampler._preimages is not None
            assert _preimage_mismatches(sampler) == []
    assert EmptyBinSampler(GeoSample(1, 1), VanLintField(5).order)._preimages is None


def test_preimage_memo_check_fails_on_a_planted_bug() -> None:
    sampler = EmptyBinSampler(GeoSample(2, 1), VanLintField(1).order)
    sampler._preimages[1] = (1, 2)  # type: ignore[index]
    assert _preimage_mismatches(sampler) == [1, 1]


# --------------------------------------------------------------------------- field product


def _mul_mismatches(field: VanLintField, pairs: list[tuple[int, int]]) -> int:
    return sum(field.mul(a, b) != field.reduce(clmul(a, b)) for a, b in pairs)


def _pairs(field: VanLintField, count: int) -> list[tuple[int, int]]:
    rng = random.Random(field.level)
    top = field.order - 1
    out = [(0, 0), (1, top), (top, top), (top, 1 << (field.degree - 1))]
    out += [(rng.randrange(field.order), rng.randrange(field.order)) for _ in range(count)]
    return out


@pytest.mark.parametrize("level", [0, 1, 2, 3, 4, 5, 6])
def test_mul_equals_reduce_of_clmul(level: int) -> None:
    # level 6 (1458 bits): random elements are dense, so the Kronecker branch runs too.
    field = VanLintField(level)
    assert _mul_mismatches(field, _pairs(field, 40)) == 0


def test_mul_check_fails_on_a_planted_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    field = VanLintField(2)
    original = VanLintField.mul

    def one_fold_only(self: VanLintField, a: int, b: int) -> int:
        c = clmul(a, b)
        h = c >> self.degree
        return (c & self._mask) ^ h ^ (h << self.half)  # a second fold may be needed

    assert original(field, 3, 5) == field.reduce(clmul(3, 5))
    monkeypatch.setattr(VanLintField, "mul", one_fold_only)
    assert _mul_mismatches(field, _pairs(field, 40)) > 0


def _square_mismatches(bits: int) -> int:
    rng = random.Random(bits)
    values = [(1 << bits) - 1, 1 << (bits - 1)] + [rng.getrandbits(bits) for _ in range(10)]
    return sum(gf2_square(a) != int(format(a, "b"), 4) for a in values)


@pytest.mark.parametrize("bits", [511, 512, 513, 1458, 13122])
def test_gf2_square_byte_spreading_equals_base_4_reading(bits: int) -> None:
    assert _square_mismatches(bits) == 0
    assert gf2_square(gmpy2.mpz(5) << bits) == int(format(5 << bits, "b"), 4)


def test_gf2_square_check_fails_on_a_planted_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gf2, "_SPREAD_HIGH", gf2._SPREAD_LOW)  # high nibble lost
    assert _square_mismatches(1458) > 0


def _horner_mismatches(level: int) -> int:
    """Evaluations differing from ``sum c_i x**i`` by :meth:`VanLintField.mul`/``power``."""
    f = VanLintField(level)
    rng = random.Random(level)
    bad = 0
    for _ in range(5):
        coeffs = [rng.randrange(f.order) for _ in range(5)]
        for x in (1, 15, 16, rng.randrange(min(f.order, 2**64))):
            naive = 0
            for i, c in enumerate(coeffs):
                naive ^= f.mul(c, f.power(x, i))
            bad += f.evaluate(coeffs, x) != naive
    return bad


@pytest.mark.parametrize("level", [0, 1, 2, 3, 6, 7])
def test_evaluate_written_out_matches_the_sum_of_powers(level: int) -> None:
    # levels 0, 1: the rows of products; 2-6: windows; 7: the gmpy2 accumulator
    assert _horner_mismatches(level) == 0


def test_evaluate_check_fails_on_a_planted_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    window = fields._window
    monkeypatch.setattr(fields, "_window",
                        lambda a: window(a)[:15] + (0,))  # the multiple a * 15 lost
    assert _horner_mismatches(3) > 0


def test_evaluate_rows_check_fails_on_a_planted_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    products = fields._products_by
    monkeypatch.setattr(fields, "_products_by",
                        lambda level, x: products(level, x)[:-1] + (0,))  # top * x lost
    assert _horner_mismatches(1) > 0


def test_evaluate_rows_are_the_products_of_mul() -> None:
    for level in (0, 1):
        f = VanLintField(level)
        for x in range(f.order):
            assert fields._products_by(level, x) == tuple(f.mul(a, x) for a in range(f.order))
        # a coefficient outside the field takes the window path, as before: 1 + reduce(top)
        assert f.evaluate([1, f.order], 1) == f.reduce(f.order) ^ 1


def _interpolation_mismatches(level: int) -> int:
    """Nodes where the interpolated polynomial, evaluated naively (mul and power only),
    misses its value: newton_coefficients' written-out window products checked."""
    f = VanLintField(level)
    rng = random.Random(level + 100)
    bad = 0
    for count in (2, 3, 5):
        nodes = rng.sample(range(1, min(f.order, 1 << 12)), count)
        values = [rng.randrange(f.order) for _ in range(count)]
        coeffs = f.interpolate(nodes, values)
        for x, v in zip(nodes, values):
            naive = 0
            for i, c in enumerate(coeffs):
                naive ^= f.mul(c, f.power(x, i))
            bad += naive != v
    return bad


@pytest.mark.parametrize("level", [1, 2, 3, 7])
def test_newton_written_out_interpolates(level: int) -> None:
    assert _interpolation_mismatches(level) == 0


def test_newton_check_fails_on_a_planted_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    # the written-out window product of p_{<k}(x_k) reads 3 bits of each nibble of y
    plant(monkeypatch, VanLintField, "newton_coefficients",
          "c = (c << 4) ^ table[(y >> s) & 15]", "c = (c << 4) ^ table[(y >> s) & 7]")
    assert _interpolation_mismatches(3) > 0


# --------------------------------------------------------------------------- native glue


def _by_bytes(values: list[int], bits: int) -> bytes:
    width = 8 * -(-bits // 64)
    return b"".join(v.to_bytes(width, "little") for v in values)


@pytest.mark.parametrize("bits", [1, 6, 18, 54, 64, 65, 162])
def test_words_and_ints_match_the_byte_packing(bits: int) -> None:
    rng = random.Random(bits)
    values = [0, (1 << bits) - 1] + [rng.randrange(1 << bits) for _ in range(20)]
    packed = native._words(values, bits)
    assert bytes(packed) == _by_bytes(values, bits)
    assert native._ints(packed, len(values), bits) == values


def test_words_refuses_ints_outside_the_words() -> None:
    for bad in ([-1], [1 << 64], [3, -2]):
        with pytest.raises(OverflowError):
            native._words(bad, 6)


def test_word_packing_check_fails_on_a_planted_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    import ctypes

    def big_endian(values: list[int], bits: int) -> ctypes.Array[ctypes.c_uint64]:
        data = b"".join(v.to_bytes(8, "big") for v in values)
        return (ctypes.c_uint64 * len(values)).from_buffer_copy(data)

    monkeypatch.setattr(native, "_words", big_endian)
    values = [1, 2, 3]
    assert bytes(native._words(values, 6)) != _by_bytes(values, 6)


needs_native = pytest.mark.skipif(not native.available(), reason="native path not built")


def _entry_mismatches() -> int:
    """Interpolations and table evaluations through the argtypes-free entry points that
    differ from the pure path (VanLintField.interpolate / evaluate)."""
    bad = 0
    for level, k, count in ((1, 1, 5), (4, 2, 7), (5, 4, 6)):
        rng = random.Random(level + k + count)
        field = VanLintField(level)
        nodes = rng.sample(range(min(1 << (2 * 3**k), 1 << 20)), count)
        values = [rng.randrange(field.order) for _ in range(count)]
        coeffs = native.interpolate(field.degree, 2 * 3**k, nodes, values)
        bad += coeffs != field.interpolate([field.embed(e, k) for e in nodes], values)
        table = native.CoordinateTable(field.degree, 2 * 3**k, coeffs)
        bad += sum(table.evaluate(e) != field.evaluate(coeffs, field.embed(e, k))
                   for e in nodes[:3])
    return bad


@needs_native
def test_argtypes_free_entry_points_match_the_pure_path() -> None:
    assert _entry_mismatches() == 0


@needs_native
def test_entry_point_check_fails_on_a_planted_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = native._entry

    def one_short(name: str) -> Callable[..., int]:
        def call(m: int, mk: int, count: ctypes.c_long, *rest: object) -> int:
            return entry(name)(m, mk, ctypes.c_long(count.value - 1), *rest)  # N - 1 elements
        return call

    monkeypatch.setattr(native, "_entry", one_short)
    assert _entry_mismatches() > 0


# --------------------------------------------------------------------------- explore_key


def _law(rows: tuple[int, ...], arithmetic: str = "pure", *,
         memo: bool = True) -> dict[object, Fraction]:
    """The explored release law (one histogram for every path).  ``memo=False``: explored
    while an operation trace is recorded, when the exploring source memoises no draw's
    options (its documented rule) -- the reference that reads every CDF on every path."""
    ch = CompactHistogram(4, RR3, 0, arithmetic=arithmetic)
    data = Dataset.of(ch.universe, rows)
    if memo:
        return explore(lambda src: ch.release(data, src).coefficients)
    with recording():
        return explore(lambda src: ch.release(data, src).coefficients)


def test_scaled_draw_keys_name_the_law() -> None:
    ch = CompactHistogram(4, GeoSample(2, 1), 1)
    f = ch.empty.d0
    one, two = (empty_bin._ScaledDraw(ch.mechanism.draw(c), f, ch._common) for c in (1, 2))
    assert one.explore_key == empty_bin._ScaledDraw(ch.mechanism.draw(1), f, 5).explore_key
    assert len({one.explore_key, two.explore_key, ch._m0_draw.explore_key}) == 3


@pytest.mark.parametrize("arithmetic", ["pure", "auto"])
@pytest.mark.parametrize("rows", [(1,), (3,)])
def test_explore_key_gives_the_law_without_memo(arithmetic: str, rows: tuple[int, ...]) -> None:
    keyed = _law(rows, arithmetic)
    assert sum(keyed.values()) == 1
    assert keyed == _law(rows, arithmetic, memo=False)


def test_explore_key_check_fails_on_a_planted_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    # one key for every law: M(c, .) read off M0's options (or the reverse)
    plant(monkeypatch, empty_bin._ScaledDraw, "__init__",
          "self.explore_key: tuple[object, ...] = (",
          "self.explore_key: tuple[object, ...] = ('one',) or (")
    assert _law((1,)) != _law((1,), memo=False)


def test_explore_key_check_fails_when_the_count_is_left_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # M(c, .) keyed without c: the second count of a dataset reads the first one's options
    mech = TabulatedMechanism([[1, 2, 3, 3], [2, 3, 3, 3], [1, 1, 3, 3], [1, 2, 3, 3]])
    data = Dataset.of(4, (1, 1, 2))  # counts 2 and 1

    def law(memo: bool) -> dict[object, Fraction]:
        # a new histogram each time: its draws (kept per count) are built under the plant
        ch = CompactHistogram(4, mech, 0, arithmetic="pure")  # n = 3, d = 3, GF(4): 256 paths
        if memo:
            return explore(lambda src: ch.release(data, src).coefficients)
        with recording():
            return explore(lambda src: ch.release(data, src).coefficients)

    assert law(True) == law(False)
    plant(monkeypatch, empty_bin._ScaledDraw, "__init__",
          "(inner.mechanism, inner.c, factor)", "(inner.mechanism, factor)")
    assert law(True) != law(False)


class _Forgetful(dict):  # type: ignore[type-arg]
    """A draw cache that keeps nothing: every point builds its draw afresh."""

    def __setitem__(self, key: object, value: object) -> None:
        pass


def _count_draw_laws() -> tuple[dict[object, Fraction], dict[object, Fraction]]:
    """The release law of a dataset with counts 2 and 1, with the per-count draws kept
    (explored twice: the second exploration reads them back) and with none kept."""
    mech = TabulatedMechanism([[1, 2, 3, 3], [2, 3, 3, 3], [1, 1, 3, 3], [1, 2, 3, 3]])
    data = Dataset.of(4, (1, 1, 2))
    kept = CompactHistogram(4, mech, 0, arithmetic="pure")
    explore(lambda src: kept.release(data, src).coefficients)
    law = explore(lambda src: kept.release(data, src).coefficients)
    fresh = CompactHistogram(4, mech, 0, arithmetic="pure")
    fresh._count_draws = _Forgetful()
    return law, explore(lambda src: fresh.release(data, src).coefficients)


def test_count_draws_kept_per_count_give_the_same_law() -> None:
    kept, fresh = _count_draw_laws()
    assert sum(kept.values()) == 1
    assert kept == fresh


def test_count_draws_check_fails_when_one_draw_serves_every_count(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the first count's draw read back for every count
    plant(monkeypatch, CompactHistogram, "_point_value",
          "draw = self._count_draws.get(count)",
          "draw = next(iter(self._count_draws.values()), None)")
    kept, fresh = _count_draw_laws()
    assert kept != fresh


# --------------------------------------------------------------------------- Theorem 8.3 rows


def _sum_mismatches(exact_sum: Callable[[dict[int, int]], Fraction]) -> int:
    rng = random.Random(83)
    bad = 0
    for _ in range(200):
        parts = {rng.randrange(1, 5000): rng.randrange(0, 10**6) for _ in range(rng.randrange(6))}
        bad += exact_sum(parts) != sum((Fraction(v, k) for k, v in parts.items()), Fraction(0))
    return bad


def test_exact_sum_equals_fraction_additions() -> None:
    assert _sum_mismatches(thm_8_03_compact._exact_sum) == 0


def test_exact_sum_check_fails_on_a_planted_bug() -> None:
    def no_lcm(parts: dict[int, int]) -> Fraction:  # adds numerators over the last den
        return Fraction(sum(parts.values()), max(parts, default=1))

    assert _sum_mismatches(no_lcm) > 0


def test_theorem_8_3_ii_reads_the_histogram_laws_and_fails_on_a_planted_evaluate(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows (ii)/(iii) read each dataset's law of released histograms once: they pass on the
    library (GF(4) part of the grid) and (ii) fails when evaluate pins h_1 to 0."""
    for name in ("_CACHE", "_HISTOGRAMS", "_LAWS"):
        monkeypatch.setattr(thm_8_03_compact, name, {})
    monkeypatch.setattr(thm_8_03_compact, "dp_grid", lambda full: [(0, 4, "toy:RR3"),
                                                                    (0, 3, "toy:U3")])
    assert thm_8_03_compact.check_ii(False).verdict
    assert thm_8_03_compact.check_iii(False).verdict
    original = compact.CompactRelease.evaluate
    monkeypatch.setattr(compact.CompactRelease, "evaluate",
                        lambda self, x: 0 if x == 1 else original(self, x))
    for name in ("_HISTOGRAMS", "_LAWS"):  # the release laws stay: evaluate reads them anew
        monkeypatch.setattr(thm_8_03_compact, name, {})
    assert not thm_8_03_compact.check_ii(False).verdict


# --------------------------------------------------------------------------- M(0, u) kept per u

def _m0_against_m(d0: int) -> tuple[list[int], list[int]]:
    """``M0(u0)`` for every ``u0`` (the sampler's own ``__call__``, keeping ``M(0, u)``) and
    ``M(0, f(u0))`` by fresh calls of ``M``."""
    mech = GeoSample(1, Fraction(1, 2))
    sampler = EmptyBinSampler(mech, d0)
    assert sampler._at_zero is not None  # small d: kept
    got = [sampler(u0) for u0 in range(1, d0 + 1)]
    return got, [mech(0, sampler.f(u0)) for u0 in range(1, d0 + 1)]


def test_m0_with_m_kept_per_u_is_m_at_f() -> None:
    for d0 in (64, 1000):
        got, want = _m0_against_m(d0)
        assert got == want
        assert len(set(got)) > 1  # more than one output: a mixed-up key would show


def test_m0_kept_values_check_fails_on_a_wrong_key(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, EmptyBinSampler, "__call__",
          "z = memo[u] = self.mechanism(0, u)", "z = memo[u + 1] = self.mechanism(0, u)")
    assert any(got != want for got, want in (_m0_against_m(d0) for d0 in (64, 1000)))


def test_m0_keeps_nothing_for_a_large_d() -> None:
    d = empty_bin._M_AT_ZERO_MAX_D + 1
    big = TabulatedMechanism([[d // 2, d], [1, d]])  # n = 1
    assert EmptyBinSampler(big, 2 * d)._at_zero is None
    assert EmptyBinSampler(big, 2 * d)(2 * d) == big(0, d)


def _search_reads_m() -> bool:
    """Whether ``search`` (the draws' path, part of the strict-time trace) runs ``M`` even
    where ``__call__`` has a value kept (here a poisoned one)."""
    mech = GeoSample(1, Fraction(1, 2))
    sampler = EmptyBinSampler(mech, 64)
    assert sampler._at_zero is not None
    for u0 in range(1, 65):
        sampler(u0)
        sampler._at_zero[sampler.f(u0)] = 7  # not an output of M (n = 1)
    return all(sampler.search(u0) == mech(0, sampler.f(u0)) for u0 in range(1, 65))


def test_m0_search_runs_m_every_time() -> None:
    assert _search_reads_m()


def test_m0_search_check_fails_when_search_reads_the_kept_values(
        monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, EmptyBinSampler, "search",
          "return self.mechanism(0, self.f(u0))", "return self(u0)")
    assert not _search_reads_m()
