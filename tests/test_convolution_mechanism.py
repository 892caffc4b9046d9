"""The exact convolution mechanisms (paper 002 Algorithm 1 on Z_2^d; notes §3.0, §3.7).

Laws come from running the mechanisms' own sampling code under exactdp.explore; expected
values are computed here from the definitions (direct sums, the two-sided geometric pmf typed
from the notes), never taken from the code under test.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from itertools import product
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.convolution import (
    Domain,
    IntegerStrategy,
    IntegerStrategyMechanism,
    WalshFourierMechanism,
    walsh_matrix,
    xor_circulant,
)
from exactdp.convolution.rows import RowNoise, TabulatedClampedGeometric
from exactdp.counting import inverse_cdf_search
from exactdp.explore import explore
from exactdp.noise import ClampedGeometric
from exactdp.params import (
    DomainError,
    FloatParameterError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
)
from exactdp.trace import recording
from tests._sources import RecordingSource


def sign(a: int, b: int) -> int:
    return -1 if bin(a & b).count("1") % 2 else 1  # noqa: FURB161 (independent of the code)


def xor_direct(h: Sequence[Fraction], x: Sequence[int]) -> list[Fraction]:
    n = len(h)
    return [sum((Fraction(h[a ^ b]) * x[b] for b in range(n)), Fraction(0)) for a in range(n)]


def geometric_clamped_law(r: Fraction, c: int, lo: int, hi: int) -> dict[int, Fraction]:
    """clamp_[lo,hi](c + Z), Pr[Z = z] = ((r-1)/(r+1)) r^-|z| (notes §3.0), lo <= c <= hi.

    Tails by hand: Pr[Z >= k] = sum_{z >= k} ((r-1)/(r+1)) r^-z = r^(1-k)/(r+1) for k >= 1, and
    Pr[Z <= 0] = 1 - Pr[Z >= 1] = r/(r+1); Z is symmetric."""
    if lo == hi:
        return {lo: Fraction(1)}

    def tail(k: int) -> Fraction:  # Pr[Z >= k] for k >= 0
        return r / (r + 1) if k == 0 else r ** (1 - k) / (r + 1)

    law = {v: (r - 1) / (r + 1) / r ** abs(v - c) for v in range(lo + 1, hi)}
    law[lo] = tail(c - lo)
    law[hi] = tail(hi - c)
    assert sum(law.values()) == 1
    return law


def walsh_expected_law(h: Sequence[Fraction], x: Sequence[int], ratios: dict[int, Fraction],
                       ranges: dict[int, tuple[int, int]]) -> dict[tuple[Fraction, ...], Fraction]:
    """The law of y = N^-1 W (lambda o c~) with independent clamped geometric c~_j."""
    n = len(h)
    lam = [sum((sign(j, m) * Fraction(h[m]) for m in range(n)), Fraction(0)) for j in range(n)]
    c = [sum(sign(j, m) * x[m] for m in range(n)) for j in range(n)]
    rows = [j for j in range(n) if lam[j] != 0]
    laws = [geometric_clamped_law(ratios[j], c[j], *ranges[j]) for j in rows]
    out: dict[tuple[Fraction, ...], Fraction] = {}
    for combo in product(*(sorted(lw.items()) for lw in laws)):
        p = Fraction(1)
        noisy = [0] * n
        for j, (v, q) in zip(rows, combo, strict=True):
            p *= q
            noisy[j] = v
        y = tuple(sum((sign(k, j) * lam[j] * noisy[j] for j in range(n)), Fraction(0)) / n
                  for k in range(n))
        out[y] = out.get(y, Fraction(0)) + p
    return out


# ------------------------------------------------------------------ Walsh: exact law


def test_walsh_law_is_the_product_of_clamped_geometrics() -> None:
    h = [Fraction(1), Fraction(1, 2), Fraction(0), Fraction(-1)]
    ratios = {0: Fraction(2), 1: Fraction(3), 2: Fraction(3, 2), 3: Fraction(5, 4)}
    dom = Domain.histograms(4, 2)
    mech = WalshFourierMechanism(h, dom, ratios=ratios)
    assert mech.rows == (0, 1, 2, 3)
    ranges = {0: (0, 2), 1: (-2, 2), 2: (-2, 2), 3: (-2, 2)}
    for x in ([0, 0, 0, 0], [1, 0, 1, 0], [0, 0, 0, 2], [1, 1, 0, 0]):
        law = explore(lambda s, x=x: mech.sample_with(x, s))
        assert law == walsh_expected_law(h, x, ratios, ranges)


def test_walsh_skips_zero_eigenvalues_without_drawing() -> None:
    # h = [1, 1, 0, 0]: lambda = W h = (2, 0, 2, 0)
    mech = WalshFourierMechanism([1, 1, 0, 0], Domain.histograms(4, 2), ratios=[2, 3])
    assert mech.rows == (0, 2) and mech.draws == 2
    assert mech.eigenvalues == (2, 0, 2, 0)
    law = explore(lambda s: mech.sample_with([1, 0, 1, 0], s))
    assert law == walsh_expected_law([Fraction(1), Fraction(1), Fraction(0), Fraction(0)],
                                     [1, 0, 1, 0], {0: Fraction(2), 2: Fraction(3)},
                                     {0: (0, 2), 2: (-2, 2)})


def test_walsh_mse_exact_and_bound() -> None:
    h = [1, 1, 0, 0]
    mech = WalshFourierMechanism(h, Domain.histograms(4, 2), ratios=[2, 3])
    # notes §3.7 bound by hand: N^-2 (2^2 * 2*2/1 + 2^2 * 2*3/4) = (16 + 6)/16
    assert mech.mse_bound() == Fraction(11, 8)
    assert mech.unclamped_mse() == Fraction(11, 8)
    hf = [Fraction(v) for v in h]
    for x in ([0, 0, 0, 0], [1, 0, 1, 0], [2, 0, 0, 0], [0, 1, 0, 1]):
        law = explore(lambda s, x=x: mech.sample_with(x, s))
        target = xor_direct(hf, x)
        explored = sum((p * sum((a - b) ** 2 for a, b in zip(y, target, strict=True))
                        for y, p in law.items()), Fraction(0)) / 4
        assert mech.mse(x) == explored
        assert explored < mech.mse_bound()  # clamping only lowers the Walsh MSE


def test_walsh_mse_approaches_bound_on_a_wide_range() -> None:
    # in the middle of a wide public range clamping is rare: mse close to (below) the bound
    mech = WalshFourierMechanism([1, 0], Domain.box(2, 200), ratios=2)
    mse, bound = mech.mse([100, 100]), mech.mse_bound()
    assert mse < bound and bound - mse < Fraction(1, 10**20)


def test_walsh_worst_ratio_is_the_product_of_ratios() -> None:
    # brute force over every neighbour pair of box(4, 1): max P(y)/P'(y) = prod r_j (notes §3.7)
    h = [Fraction(2), Fraction(1), Fraction(0), Fraction(0)]  # lambda = (3, 1, 3, 1)
    ratios = [Fraction(2), Fraction(3, 2), Fraction(4, 3), Fraction(3)]
    dom = Domain.box(4, 1)
    mech = WalshFourierMechanism(h, dom, ratios=ratios)
    laws = {x: explore(lambda s, x=x: mech.sample_with(list(x), s)) for x in dom.elements()}
    worst = Fraction(0)
    for x in dom.elements():
        for _, y in dom.neighbours(x):
            p, q = laws[x], laws[y]
            assert set(p) == set(q)  # same support: never an infinite ratio
            worst = max(worst, max(max(p[o] / q[o], q[o] / p[o]) for o in p))
    assert worst == 2 * Fraction(3, 2) * Fraction(4, 3) * 3


def test_walsh_equals_generic_strategy_with_t_equal_w() -> None:
    rng = random.Random(5)
    for n in (1, 2, 4, 8):
        h = [Fraction(rng.randint(-3, 3), rng.randint(1, 3)) for _ in range(n)]
        if not any(h):
            h[0] = Fraction(1)
        dom = Domain.histograms(n, 3)
        walsh = WalshFourierMechanism(h, dom, ratios=Fraction(3, 2))
        generic = IntegerStrategyMechanism(IntegerStrategy(walsh_matrix(n), xor_circulant(h)),
                                           dom, ratios=Fraction(3, 2))
        assert walsh.rows == generic.rows
        assert walsh.ranges == generic.ranges
        assert walsh.mse_bound() == generic.mse_bound()
        for _ in range(20):
            x = [0] * n
            for _ in range(rng.randint(0, 3)):
                x[rng.randrange(n)] += 1
            us = [rng.randint(1, d) for d in walsh.draw_sizes]
            assert walsh(x, us) == generic(x, us)
            assert walsh.mse(x) == generic.mse(x)
            assert walsh.convolve(x) == xor_direct(h, x)


# ------------------------------------------------------------------ integer strategies


def test_rounded_fourier_z3_worst_ratio_of_the_notes() -> None:
    # notes §3.0: T = round(3Q) on Z_3, alpha = (1/2, 2/3, 3/5): worst ratio 50/3
    t = [[2, 2, 2], [2, -1, -1], [0, 2, -2]]
    h = [1, 1, 0]
    hmat = [[h[(k - m) % 3] for m in range(3)] for k in range(3)]
    mech = IntegerStrategyMechanism(IntegerStrategy(t, hmat), Domain.box(3, 1),
                                    ratios=[2, Fraction(3, 2), Fraction(5, 3)])
    assert mech.rows == (0, 1, 2)
    dom = mech.domain
    laws = {x: explore(lambda s, x=x: mech.sample_with(list(x), s)) for x in dom.elements()}
    worst = max(max(max(laws[x][o] / laws[y][o], laws[y][o] / laws[x][o]) for o in laws[x])
                for x in dom.elements() for _, y in dom.neighbours(x))
    assert worst == Fraction(50, 3)
    # exact MSE with the general G^T G form equals the explored one
    for x in dom.elements():
        target = [sum(hmat[k][m] * x[m] for m in range(3)) for k in range(3)]
        law = laws[x]
        explored = sum((p * sum((a - b) ** 2 for a, b in zip(y, target, strict=True))
                        for y, p in law.items()), Fraction(0)) / 3
        assert mech.mse(list(x)) == explored <= mech.mse_bound()


def test_integer_strategy_g_and_dropped_rows() -> None:
    # H = circulant([1, 1, 0, 0]) has eigenvalue 0 at the Nyquist frequency: with the Hartley
    # strategy (cas rows) the row k = 2 = (1,-1,1,-1) has G e_2 = 0 and is dropped
    from exactdp.convolution import circulant, hartley4

    hmat = circulant([1, 1, 0, 0])
    s = IntegerStrategy(hartley4(), hmat, "hartley")
    assert s.kept == (0, 1, 3)
    # G T = H exactly (recomputed here from the exposed G)
    for k in range(4):
        for m in range(4):
            assert sum(s.G(k, j) * s.T[j][m] for j in range(4)) == hmat[k][m]
    assert s.shifts() == [[1] * 4] * 3
    with pytest.raises(ParameterError, match="singular"):
        IntegerStrategy([[1, 2], [2, 4]], [[1, 0], [0, 1]])
    with pytest.raises(ParameterTypeError, match="int"):
        IntegerStrategy([[1, 0.5], [0, 1]], [[1, 0], [0, 1]])


@given(st.data())
@settings(max_examples=15)
def test_integer_strategy_inverse_random(data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 5))
    t = data.draw(st.lists(st.lists(st.integers(-4, 4), min_size=n, max_size=n),
                           min_size=n, max_size=n))
    hmat = data.draw(st.lists(st.lists(st.fractions(-3, 3, max_denominator=4), min_size=n,
                                       max_size=n), min_size=n, max_size=n))
    try:
        s = IntegerStrategy(t, hmat)
    except ParameterError:
        # singular: check by an independent determinant (Leibniz expansion)
        from itertools import permutations

        def perm_sign(p: tuple[int, ...]) -> int:
            inv = sum(1 for i in range(n) for j in range(i + 1, n) if p[i] > p[j])
            return -1 if inv % 2 else 1

        det = sum(perm_sign(p) * __import__("math").prod(t[i][p[i]] for i in range(n))
                  for p in permutations(range(n)))
        assert det == 0
        return
    for k in range(n):
        for m in range(n):
            assert sum(s.G(k, j) * t[j][m] for j in range(n)) == hmat[k][m]


# ------------------------------------------------------------------ strict time





def test_walsh_draws_and_schedule_do_not_depend_on_x() -> None:
    h = [3, 0, 1, 0, 0, 2, 0, 0]
    dom = Domain.histograms(8, 2)
    mech = WalshFourierMechanism(h, dom, ratios=Fraction(5, 4))
    sizes, traces = set(), set()
    for i, x in enumerate(dom.elements()):
        src = RecordingSource(i)
        with recording() as events:
            mech.release(list(x), src)
        sizes.add(tuple(src.sizes))
        traces.add(tuple(events))
    assert sizes == {mech.draw_sizes} and len(mech.draw_sizes) == len(mech.rows)
    assert len(traces) == 1
    (trace,) = traces
    assert trace.count(("fwht-round", 8)) == 2 * 3
    rounds = sum(r.bit_length() for r in (hi - lo for lo, hi in mech.ranges))
    assert trace.count(("cdf",)) == rounds


def test_integer_strategy_draws_do_not_depend_on_x() -> None:
    from exactdp.convolution import circulant, real_fourier_rounded

    dom = Domain.box(5, 1)
    mech = IntegerStrategyMechanism(IntegerStrategy(real_fourier_rounded(5, 4),
                                                    circulant([1, 2, 0, 0, 1])), dom, ratios=3)
    seen = set()
    for i, x in enumerate(dom.elements()):
        src = RecordingSource(i)
        with recording() as events:
            mech.release(list(x), src)
        seen.add((tuple(src.sizes), tuple(events)))
    assert len(seen) == 1


# ------------------------------------------------------------------ shared samplers


def test_tabulated_sampler_has_the_same_integers() -> None:
    for r, lo, hi in ((Fraction(2, 3), -3, 3), (Fraction(1, 2), 0, 5), (Fraction(7, 9), -4, 2),
                      (Fraction(1, 3), 0, 1), (Fraction(5637, 5711), -9, 9)):
        plain, tab = ClampedGeometric(r, lo, hi), TabulatedClampedGeometric(r, lo, hi)
        assert plain.d == tab.d
        a, b, n = r.numerator, r.denominator, hi - lo
        assert [int(v) for v in tab._table] == [a**k * b**(n - k) for k in range(n + 1)]
        for c in range(lo, hi + 1):
            for z in range(hi - lo + 1):
                assert tab.search_cdf(c, z) == plain.cdf(c, z)
            for u in range(1, plain.d + 1, max(1, plain.d // 200)):
                ref = inverse_cdf_search(lambda z, c=c, m=plain: m.cdf(c, z), plain.n, u)
                assert tab(c, u) == plain(c, u) == ref


def test_tabulated_sampler_refuses_empty_range_and_huge_tables() -> None:
    with pytest.raises(ParameterError, match="hi > lo"):
        TabulatedClampedGeometric(Fraction(1, 2), 3, 3)
    with pytest.raises(ResourceLimitError, match="TABLE_BITS"):
        TabulatedClampedGeometric(Fraction(9999, 10000), -5000, 5000)


def test_rows_share_samplers_by_key_and_draw_class_by_class() -> None:
    mech = WalshFourierMechanism([1] * 16, Domain.histograms(16, 4),
                                 ratios=Fraction(3, 2))
    assert mech.rows == (0,)
    mech = WalshFourierMechanism([1] + [0] * 15, Domain.histograms(16, 4), ratios=Fraction(3, 2))
    assert len(mech.rows) == 16 and mech.noise.distinct == 2
    assert mech.noise.samplers[1] is mech.noise.samplers[15]
    assert mech.noise.tabulated == (True, True)        # 8 * draws * rounds >= n = 4, 8
    # one row over a wide range: 8 * 1 * 11 rounds < n = 2000, the plain sampler draws
    assert RowNoise([Fraction(2)], [(-1000, 1000)]).tabulated == (False,)
    assert RowNoise([Fraction(2)] * 23, [(-1000, 1000)] * 23).tabulated == (True,)
    assert isinstance(mech.noise.fast_sampler(1), TabulatedClampedGeometric)
    # interleaved classes: rows of ratio 2 at even positions, 3/2 at odd ones
    noise = RowNoise([Fraction(2), Fraction(3, 2)] * 3, [(-4, 4)] * 6)
    assert noise.draw_order == (0, 2, 4, 1, 3, 5)
    values: list[int] = []
    src = RecordingSource(3)
    draw = src.uniform
    src.uniform = lambda d: values.append(draw(d)) or values[-1]  # type: ignore[method-assign]
    out = noise.draw([0, 1, -1, 2, 4, -4], src)
    assert src.sizes == list(noise.draw_sizes)
    assert noise.draw_sizes == (ClampedGeometric(Fraction(1, 2), -4, 4).d,) * 3 + (
        ClampedGeometric(Fraction(2, 3), -4, 4).d,) * 3
    # apply takes the u in draw order and returns the rows in row order
    assert noise.apply([0, 1, -1, 2, 4, -4], values) == out


def _table_vs_fractions(plant: bool = False) -> list[bool]:
    """Per mechanism: whether a release's output table (Walsh and integer-strategy
    mechanisms) gives exactly ``reconstruct``'s Fractions for drawn values anywhere in the
    rows' ranges (both ends included), for integer and fractional ``h``; with ``plant``, the
    table is read one entry off."""
    rnd = random.Random(9)
    cases = [([1, 0, 0, 0, 0, 0, 0, 0], Domain.histograms(8, 1), Fraction(4)),
             ([3, 1, 1, 0, 0, 2, 0, 1], Domain.histograms(8, 2), Fraction(3, 2)),
             ([Fraction(1, 2), Fraction(-1, 3), 0, 1], Domain.box(4, 2), Fraction(2)),
             ([2, -1, 0, 5], Domain.histograms(4, 3), Fraction(5, 4))]
    from exactdp.convolution import real_fourier_rounded
    from exactdp.convolution.groups import circulant
    mechs: list[Any] = [WalshFourierMechanism(h, dom, r) for h, dom, r in cases]
    mechs += [IntegerStrategyMechanism(IntegerStrategy(real_fourier_rounded(5, 2),
                                                       circulant([3, 1, 0, 0, 1])),
                                       Domain.histograms(5, 2), Fraction(2)),
              IntegerStrategyMechanism(IntegerStrategy(walsh_matrix(4), xor_circulant(
                  [Fraction(1, 3), 2, 0, -1])), Domain.box(4, 1), Fraction(3, 2))]
    same = []
    for mech in mechs:
        assert mech._y_table is not None
        if plant:  # the table read one entry off (an offset bug)
            mech._y_table = mech._y_table[1:] + mech._y_table[-1:]
        for t in range(300):
            noisy = [lo if t % 3 == 0 else hi if t % 3 == 1 else rnd.randint(lo, hi)
                     for lo, hi in mech.ranges]
            if mech._reconstruct_drawn(noisy) != mech.reconstruct(noisy):
                same.append(False)
                break
        else:
            same.append(True)
    return same


def test_walsh_output_table_equals_reconstruct() -> None:
    assert all(_table_vs_fractions())
    wide = WalshFourierMechanism([1] * 8, Domain.histograms(8, 400), Fraction(2))
    assert wide._y_table is None          # B = 8 * 400 > Y_TABLE_BOUND: Fractions built
    noisy = [hi for _, hi in wide.ranges]
    assert wide._reconstruct_drawn(noisy) == wide.reconstruct(noisy)


def test_walsh_output_table_comparison_catches_a_planted_entry() -> None:
    assert not any(_table_vs_fractions(plant=True))


def _kept_vs_fresh(monkeypatch: pytest.MonkeyPatch, plant: bool = False) -> bool:
    """Whether RowNoise with its small tables kept from construction gives the same outputs
    as with a fresh table per release (KEEP_TABLE_BITS below every table), on every centre
    vector of a grid and a spread of u per draw (``apply``), and the same exploration law."""
    from exactdp.convolution import rows as rows_mod
    cases = [([Fraction(2), Fraction(3, 2)] * 3, [(-4, 4)] * 6),
             ([Fraction(4)] * 8, [(0, 1)] + [(-1, 1)] * 7),
             ([Fraction(7, 5)] * 5, [(-3, 3)] * 5), ([Fraction(4)] * 3, [(-1, 1)] * 3)]
    rnd = random.Random(5)
    for ratios, ranges in cases:
        kept = RowNoise(ratios, ranges)
        assert any(t is not None for t in kept._kept)
        if plant:  # one entry of one kept table off by one
            table = next(t for t in kept._kept if t is not None)._table  # type: ignore[union-attr]
            table[1] += 1
        with monkeypatch.context() as m:
            m.setattr(rows_mod, "KEEP_TABLE_BITS", -1)
            fresh = RowNoise(ratios, ranges)
        assert all(t is None for t in fresh._kept)
        sizes = kept.draw_sizes
        for _ in range(60):
            cs = [rnd.randint(lo, hi) for lo, hi in ranges]
            us = [rnd.choice([1, d, rnd.randint(1, d)]) for d in sizes]
            if kept.apply(cs, us) != fresh.apply(cs, us):
                return False
        if len(ranges) > 3:
            continue  # exploration below only for the small case (3^3 paths)
        low = [lo for lo, _ in ranges]
        if explore(lambda src, n=kept, c=low: tuple(n.draw(c, src))) != explore(
                lambda src, n=fresh, c=low: tuple(n.draw(c, src))):
            return False
    return True


def test_small_tables_kept_from_construction_give_the_fresh_tables_outputs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert _kept_vs_fresh(monkeypatch)
    noise = RowNoise([Fraction(2)] * 4, [(-4, 4)] * 4)
    assert noise.fast_sampler(0) is noise.fast_sampler(0)            # kept: one object
    big = RowNoise([Fraction(2)] * 23, [(-1000, 1000)] * 23)           # 2001 x ~2000 bits
    assert big._kept == (None,) and big.fast_sampler(0) is not big.fast_sampler(0)


def test_kept_vs_fresh_comparison_catches_a_planted_table_bug(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert not _kept_vs_fresh(monkeypatch, plant=True)


# ------------------------------------------------------------------ parameters


def test_ratio_forms_and_refusals() -> None:
    dom = Domain.histograms(4, 1)
    h = [1, 1, 0, 0]  # rows (0, 2)
    a = WalshFourierMechanism(h, dom, ratios={0: 2, 2: "3/2"})
    b = WalshFourierMechanism(h, dom, ratios=[2, Fraction(3, 2)])
    assert a.ratios == b.ratios == (Fraction(2), Fraction(3, 2))
    with pytest.raises(ParameterError, match="one per kept row"):
        WalshFourierMechanism(h, dom, ratios=[2, 2, 2])
    with pytest.raises(ParameterError, match="not kept"):
        WalshFourierMechanism(h, dom, ratios={0: 2, 1: 2, 2: 2})
    with pytest.raises(ParameterError, match="> 1"):
        WalshFourierMechanism(h, dom, ratios=1)
    with pytest.raises(FloatParameterError):
        WalshFourierMechanism(h, dom, ratios=1.5)
    with pytest.raises(ParameterError, match="required"):
        WalshFourierMechanism(h, dom)
    with pytest.raises(ParameterError, match="N = 8"):
        WalshFourierMechanism(h, Domain.histograms(8, 1), ratios=2)
    with pytest.raises(ParameterError, match="2\\^d"):
        WalshFourierMechanism([1, 1, 1], Domain.histograms(3, 1), ratios=2)
    with pytest.raises(ParameterTypeError, match="Domain"):
        WalshFourierMechanism(h, "histograms", ratios=2)  # type: ignore[arg-type]
    with pytest.raises(DomainError, match="n = 1"):
        a.release([1, 1, 0, 0])
    with pytest.raises(ParameterError, match="one u in \\[1, D\\] per kept row"):
        a([0, 0, 0, 0], [1])
    with pytest.raises(DomainError):
        a([0, 0, 0, 0], [0, 1])
    with pytest.raises(ParameterTypeError):
        a.release([0, 0, 0, 0], source=7)  # type: ignore[arg-type]


@given(st.data())
@settings(max_examples=20)
def test_walsh_deterministic_map_by_direct_sums(data: st.DataObject) -> None:
    """M(x, u) = N^-1 W (lambda o c~) with c~_j = lo_j + ClampedGeometric(1/r_j)(c_j, u_j),
    every transform written here as a direct sum."""
    d = data.draw(st.integers(0, 3))
    n = 1 << d
    h = data.draw(st.lists(st.fractions(-4, 4, max_denominator=5), min_size=n, max_size=n))
    bound = data.draw(st.integers(0, 4))
    x = [0] * n
    for k in data.draw(st.lists(st.integers(0, n - 1), max_size=bound)):
        x[k] += 1
    lam = [sum((sign(j, m) * h[m] for m in range(n)), Fraction(0)) for j in range(n)]
    rows = [j for j in range(n) if lam[j] != 0]
    ratio = data.draw(st.fractions(Fraction(11, 10), 5, max_denominator=10))
    mech = WalshFourierMechanism(h, Domain.histograms(n, bound), ratios=ratio)
    if not rows:  # h = 0: nothing to release, no draw, y = 0 exactly
        rel = mech.release(x)
        assert rel.draws == 0 and rel.y == (Fraction(0),) * n
        return
    assert list(mech.rows) == rows
    noisy = [0] * n
    us = []
    for j in rows:
        lo, hi = (0, bound) if j == 0 else (-bound, bound)
        sampler = ClampedGeometric(1 / ratio, lo, hi)
        u = data.draw(st.integers(1, sampler.d))
        us.append(u)
        noisy[j] = lo + sampler(sum(sign(j, m) * x[m] for m in range(n)), u)
    expected = tuple(sum((sign(k, j) * lam[j] * noisy[j] for j in range(n)), Fraction(0)) / n
                     for k in range(n))
    assert mech(x, us) == expected


def test_release_record() -> None:
    mech = WalshFourierMechanism([2, 1, 0, 0], Domain.histograms(4, 3), ratios=2)
    rel = mech.release([1, 2, 0, 0], timed=True)
    assert rel.rows == mech.rows == (0, 1, 2, 3) and rel.draws == 4
    assert all(lo <= c <= hi for c, (lo, hi) in zip(rel.coefficients, mech.ranges, strict=True))
    assert set(rel.seconds) == {"transform", "noise", "reconstruction"}
    assert len(rel.y) == 4 and all(isinstance(v, Fraction) for v in rel.y)


def test_walsh_grouped_mse_bound_equals_the_row_by_row_sum():
    # WalshFourierMechanism.mse_bound sums per distinct (|lambda|, r); the base class row by row
    from exactdp.convolution.mechanism import _FactorizationMechanism

    rng = random.Random(7)
    for _ in range(5):
        h = [rng.choice([0, 1, 2, -1, Fraction(1, 3)]) for _ in range(16)]
        h[0] = 1
        mech = WalshFourierMechanism(h, Domain.histograms(16, 5), Fraction(3, 2))
        ratios = {j: rng.choice([Fraction(3, 2), Fraction(2), Fraction(7, 5)]) for j in mech.rows}
        mech = WalshFourierMechanism(h, Domain.histograms(16, 5), ratios)
        assert mech.mse_bound() == _FactorizationMechanism.mse_bound(mech)
        by_hand = sum((Fraction(mech.eigenvalues[j]) ** 2 * 2 * r / (r - 1) ** 2
                       for j, r in ratios.items()), Fraction(0)) / 256
        assert mech.mse_bound() == by_hand
