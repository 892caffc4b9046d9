"""The split draw of ``u`` (exactdp.randomness.split_inverse_cdf): exact, used where it should
be, and its verify row fails on the bugs it exists to catch."""

from __future__ import annotations

import warnings
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp import randomness
from exactdp.cli.verify import run_check
from exactdp.histograms.orderstats import ApproxBinDraw, approx_bin_sample
from exactdp.proofs.balcer_vadhan import prop_6_17_split_draw
from exactdp.randomness import (
    SPLIT_TOP_BITS,
    CallableSource,
    RandomSource,
    SeededSource,
    split_inverse_cdf,
)
from tests.test_strict_time_rows import mutate


class _Step:
    """A monotone draw over ``[d]_+``: output ``min{z : cdf(z) >= u}`` for a step CDF;
    ``certified_search`` answers only on the ``u`` listed in ``known``."""

    lazy_low_bits = True

    def __init__(self, cuts: list[int], known: set[int]) -> None:
        self.cuts, self.known = cuts, known  # cuts: F(0) <= F(1) <= ... = d

    @property
    def n(self) -> int:
        return len(self.cuts) - 1

    @property
    def d(self) -> int:
        return self.cuts[-1]

    def cdf(self, z: int) -> int:
        return self.cuts[z]

    def search(self, u: int) -> int:
        return next(z for z, f in enumerate(self.cuts) if f >= u)

    def certified_search(self, u: int) -> int | None:
        return self.search(u) if u in self.known else None


def _law(draw: _Step, top: int) -> Counter[int]:
    """Weights ``(H + 1) B`` times the probabilities: every (a, b), rejected pairs dropped."""
    k = max(0, draw.d.bit_length() - top)
    out: Counter[int] = Counter()
    for a in range((draw.d >> k) + 1):
        for b in range(1 << k):
            values = iter([a + 1, b + 1])

            def uniform(d: int, values=values) -> int:
                return next(values)
            try:
                out[split_inverse_cdf(CallableSource(uniform), draw, top)] += 1
            except StopIteration:  # a third draw: the pair was rejected
                pass
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=5), st.integers(1, 4),
       st.sets(st.integers(1, 60)))
def test_split_law_is_the_inverse_cdf_law(steps: list[int], top: int, known: set[int]) -> None:
    """On any step CDF, whatever certified_search knows: Pr[z] = (F(z) - F(z-1))/d exactly."""
    cuts, total = [], 0
    for x in steps:
        total += x
        cuts.append(total)
    cuts[-1] += 1  # d >= 1
    draw = _Step(cuts, known)
    law = _law(draw, top)
    accepted = sum(law.values())
    assert accepted == draw.d  # one accepted pair per u
    for z in range(draw.n + 1):
        prev = cuts[z - 1] if z else 0
        assert Fraction(law[z], accepted) == Fraction(cuts[z] - prev, draw.d)


def test_row_passes() -> None:
    assert run_check(prop_6_17_split_draw.check, False).verdict


@pytest.mark.parametrize(("old", "new"), [
    # a block decided on its top end alone
    ("z == 0 or (z is not None", "z is not None or (z is not None"),
    # the partial last block never rejected
    ("if u <= d:", "if True:"),
    # b drawn from one value too few
    ("_checked_draw(source, 1 << k)", "_checked_draw(source, (1 << k) - 1)"),
])
def test_row_catches(monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    mutate(monkeypatch, split_inverse_cdf, old, new)
    assert not run_check(prop_6_17_split_draw.check, False).verdict


def test_large_s_draws_leading_bits_first() -> None:
    """At PureSparseHistogram's sizes (s of thousands of bits) the default inverse_cdf asks
    for uniform(H + 1) with H of SPLIT_TOP_BITS bits, almost never for the low bits, and
    returns what the full search returns at either end of the drawn block."""
    s = 3**3000 * 7
    k = s.bit_length() - SPLIT_TOP_BITS
    decided = 0
    for m, p, q in ((5, 1, 10**6), (3, 1, 2), (40, 1, 3)):
        for seed in range(4):
            asked: list[int] = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rng = SeededSource(seed)

            def uniform(d: int, asked: list[int] = asked, rng: RandomSource = rng) -> int:
                asked.append(d)
                return rng.uniform(d)
            z = approx_bin_sample(m, p, q, s, m + 1, CallableSource(uniform))
            assert asked[0] == (s >> k) + 1 and (s >> k).bit_length() == SPLIT_TOP_BITS
            if len(asked) == 1:  # decided: both ends of the block (replayed) give z
                decided += 1
                draw = ApproxBinDraw(m, p, q, s, m + 1)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    a = SeededSource(seed).uniform(asked[0]) - 1
                assert draw.search((a << k) + 1) == z == draw.search((a + 1) << k)
    assert decided == 12  # the low bits were never needed


def test_small_s_and_padded_draw_u_whole() -> None:
    """Below 2 SPLIT_TOP_BITS bits, and in padded mode at any size, one uniform(s)."""
    for s, padded in ((10**6, False), ((1 << 1024) - 1, False), (3**3000, True)):
        asked: list[int] = []

        def uniform(d: int, asked: list[int] = asked) -> int:
            asked.append(d)
            return 1
        if padded:
            draw = ApproxBinDraw(2, 1, 3, s, 1, padded=True)
            RandomSource.inverse_cdf(CallableSource(uniform), draw)
        else:
            approx_bin_sample(2, 1, 3, s, 3, CallableSource(uniform))
        assert asked == [s]


def test_split_top_bits_is_the_module_constant() -> None:
    assert randomness.SPLIT_TOP_BITS == 512
