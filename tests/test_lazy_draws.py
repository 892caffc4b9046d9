"""Lazy draws of FastSample: the row, its planted bugs, the driver, the fixed-bits mode."""

from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp import lazy_draws, native_samplers
from exactdp.fastsample import FastSample
from exactdp.proofs import run_check
from exactdp.proofs.balcer_vadhan import thm_4_07_lazy_draw, thm_4_10_lazy_draw
from exactdp.randomness import ByteSource
from tests.test_strict_time_rows import mutate

ROOT = Path(__file__).resolve().parents[1]
needs_kernel = pytest.mark.skipif(not native_samplers.lazy_available(),
                                  reason="the lazy kernel is not built")


def test_row_passes() -> None:
    assert run_check(thm_4_10_lazy_draw.check, False).verdict


@pytest.mark.parametrize(("fn", "old", "new"), [
    # E one bit short: floor((z + 1) d' / B) underestimated by more than the band allows
    (lazy_draws.plan, "<< 64) >> k", "<< 63) >> k"),
    # Q(j) rounded up instead of down
    (lazy_draws.plan, "tuple(v >> k for v in window)", "tuple((v >> k) + 1 for v in window)"),
    # the top of the window (F' = d') forgotten
    (lazy_draws.plan, "(scale * d_prime) >> k", "0"),
    # the band of the twin one block too narrow
    (lazy_draws.decide, "p.lower(c, lo) >= a + 1", "p.lower(c, lo) >= a"),
    # the last, partial block decided like the others
    (lazy_draws.decide, "if a < p.top and", "if a <= p.top and"),
    # b drawn from one value too few
    (lazy_draws.finish, "source.uniform(1 << p.shift)", "source.uniform((1 << p.shift) - 1)"),
    # the partial last block never restarted
    (lazy_draws.finish, "if u <= p.d:", "if True:"),
])
def test_row_catches(monkeypatch: pytest.MonkeyPatch, fn, old: str, new: str) -> None:
    mutate(monkeypatch, fn, old, new)
    assert not run_check(thm_4_10_lazy_draw.check, False).verdict


class _Bytes(ByteSource):
    """Planted bytes, then planted uniform answers; records what is read."""

    def __init__(self, raw: bytes, answers: list[int]) -> None:
        self.raw, self.answers, self.read, self.asked = raw, answers, [], []

    def random_bytes(self, k: int) -> bytes:
        self.read.append(k)
        out, self.raw = self.raw[:k], self.raw[k:]
        assert len(out) == k
        return out

    def uniform(self, d: int) -> int:
        self.asked.append(d)
        return min(self.answers.pop(0), d)


MECH = FastSample(100, Fraction(1, 10), Fraction(1, 2**40))


@needs_kernel
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 100), st.integers(0, 2**127), st.integers(1, 2**64))
def test_sample_lazy_is_the_search_of_the_planted_block(c: int, a: int, b: int) -> None:
    """With the raw bytes encoding the block a (r = a is accepted: q = 0), the output is
    the search at a B + b + 1 for the planted b, whether or not b is read."""
    p, tab = MECH._lazy
    a %= p.top + 1
    b = b % (1 << p.shift) + 1
    src = _Bytes(a.to_bytes(tab.raw_bytes, "little"), [b, 1])
    (z,) = lazy_draws.sample_lazy(MECH, p, tab, [c], src)
    u = (a << p.shift) + b
    assert z == (MECH(c, u) if u <= MECH.d else MECH(c, 1))
    assert src.read == [tab.raw_bytes]


@needs_kernel
def test_a_rejected_block_is_a_fresh_full_draw() -> None:
    p, tab = MECH._lazy
    bits = (p.top + 1).bit_length() + 63
    r = (1 << bits) - 1  # above the largest multiple of H + 1: rejected
    src = _Bytes(r.to_bytes(tab.raw_bytes, "little"), [12345])
    assert lazy_draws.sample_lazy(MECH, p, tab, [7], src) == [MECH(7, 12345)]
    assert src.asked == [MECH.d]


@needs_kernel
def test_bytes_read_per_draw_lazy_and_fixed() -> None:
    mech = FastSample(100, Fraction(1, 10), Fraction(1, 2**40))

    class Counting(ByteSource):
        def __init__(self) -> None:
            self.total = 0

        def random_bytes(self, k: int) -> bytes:
            self.total += k
            return os.urandom(k)

    lazy = Counting()
    mech.sample_many([0, 50, 100] * 100, lazy)
    assert lazy.total == 300 * 24  # 3 limbs per draw (undecided: probability < 2^-117)
    mech.lazy_bits = False
    full = Counting()
    mech.sample_many([0, 50, 100] * 100, full)
    assert full.total == 300 * (native_samplers.limbs(mech.d) + 1) * 8


def test_without_the_kernel_the_full_draws_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native_samplers, "lazy_available", lambda: False)
    mech = FastSample(100, Fraction(1, 10), Fraction(1, 2**40))
    assert mech.lazy_draws() is None
    assert all(0 <= z <= 100 for z in mech.sample_many([3] * 50))
    assert 0 <= mech.sample(3) <= 100


def test_pure_python_fallback_in_a_fresh_process() -> None:
    code = ("from exactdp.fastsample import FastSample\n"
            "m = FastSample(20, '1/2', '1/1000')\n"
            "assert m.lazy_draws() is None\n"
            "print(all(0 <= z <= 20 for z in m.sample_many([5] * 20)), 0 <= m.sample(5) <= 20)")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False, text=True,
                         capture_output=True, env={**os.environ, "EXACTDP_NATIVE": "0"},
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "True"]


# ----------------------------------------------------------------------------- GeoSample

def test_geo_row_passes() -> None:
    assert run_check(thm_4_07_lazy_draw.check, False).verdict


@pytest.mark.parametrize(("fn", "old", "new"), [
    # the upper bound of a power rounded down
    (lazy_draws._trim, "((hi - 1) >> drop) + 1", "hi >> drop"),
    # d - X bounded without the remainder r of d
    (lazy_draws.geo_bounds, "p.top - xhi - 1, p.top - xlo", "p.top - xhi, p.top - xlo"),
    # a threshold inside the block's top end taken as above it
    (lazy_draws.geo_decide, "flo >= block + 1", "flo >= block"),
    # ... or below its bottom end
    (lazy_draws.geo_decide, "fhi <= block - 1", "fhi <= block"),
    # the rounds of the search changed (one round less)
    (lazy_draws.geo_decide, "range(p.n.bit_length())", "range(p.n.bit_length() - 1)"),
])
def test_geo_row_catches(monkeypatch: pytest.MonkeyPatch, fn, old: str, new: str) -> None:
    mutate(monkeypatch, fn, old, new)
    assert not run_check(thm_4_07_lazy_draw.check, False).verdict


def test_geosample_lazy_only_with_plain_byte_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    """At n = 500 (d of more than 1024 bits) the OS source and the keystream take the split draw; a
    seeded source keeps its full draws (its outputs stay reproducible as before)."""
    from exactdp.counting import GeoSample
    from exactdp.keystream import KeystreamSource
    from exactdp.randomness import SeededSource, SystemSource

    geo = GeoSample(500, "1/2")
    assert geo._geo_plan is not None
    from exactdp import keystream

    seen: list[object] = []
    real = lazy_draws.geo_decide
    monkeypatch.setattr(lazy_draws, "geo_decide", lambda *a: seen.append(a) or real(*a))
    sources = [None, SystemSource()] + ([KeystreamSource()] if keystream.available() else [])
    for src in sources:
        assert 0 <= geo.sample(250, src) <= 500
    assert len(seen) >= len(sources)
    seen.clear()
    with pytest.warns(Warning):
        seeded = SeededSource(1)
    assert 0 <= geo.sample(250, seeded) <= 500
    assert seen == []
    geo.lazy_bits = False
    assert 0 <= geo.sample(250) <= 500 and seen == []


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 500), st.integers(0, 2**190))
def test_geo_decide_at_full_size(c: int, block: int) -> None:
    """GeoSample(500, 1/2) at the releases' plan (192 leading bits, 256-bit powers): a
    decided block has the search's output at both ends."""
    from exactdp.counting import GeoSample

    geo = GeoSample(500, "1/2")
    p = geo._geo_plan
    block %= p.top + 1
    z = lazy_draws.geo_decide(p, c, block)
    if z is not None:
        big_b = 1 << p.shift
        assert geo(c, block * big_b + 1) == z == geo(c, min((block + 1) * big_b, geo.d))
