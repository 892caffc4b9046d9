"""The Lemma 2.13 (real sources) rows of ``exactdp verify``, and planted bugs they catch.

The exploring source replaces ``uniform``, ``bernoulli`` and ``inverse_cdf``, so the rows of
``proofs/balcer_vadhan/lemma_2_13_sources.py`` are the only verify rows that run the code a release runs
(``RandomSource.bernoulli``, ``RandomSource.inverse_cdf`` with each draw's ``search``,
``SystemSource``/``SeededSource.uniform``).  Each bug below is planted with
``test_checker_mutants.planted`` (a copy of the real function with one snippet replaced)
and the row it targets must then report FAIL.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import pytest
from test_checker_mutants import planted

from exactdp import fastsample, inverse_cdf, native_samplers, randomness
from exactdp.certificate import ClaimReport
from exactdp.histograms import compact, empty_bin, orderstats
from exactdp.proofs import checks_of, discover
from exactdp.proofs.balcer_vadhan import lemma_2_13_sources as rows
from exactdp.randomness import RandomSource, SystemSource

RS = RandomSource
ROW = {"bernoulli": rows.check_bernoulli, "inverse_cdf": rows.check_inverse_cdf,
       "uniform": rows.check_uniform}

#: (id, owner, function, old, new, the row that must fail)
PLANTED: list[tuple[str, Any, str, str, str, str]] = [
    ("bernoulli-lt-for-le", RS, "bernoulli", "_checked_draw(self, den) <= num",
     "_checked_draw(self, den) < num", "bernoulli"),
    ("bernoulli-wrong-domain", RS, "bernoulli", "_checked_draw(self, den) <= num",
     "_checked_draw(self, den + 1) <= num", "bernoulli"),
    ("bernoulli-accepts-num-above-den", randomness, "check_bernoulli",
     "if not 0 <= num <= den or", "if not 0 <= num <= den + 1 or", "bernoulli"),
    ("checked-draw-accepts-zero", randomness, "_checked_draw", "not 1 <= u <= d",
     "not 0 <= u <= d", "bernoulli"),
    ("inverse-cdf-shifted-u", RS, "inverse_cdf", "draw.search(_checked_draw(self, draw.d))",
     "draw.search(max(1, _checked_draw(self, draw.d) - 1))", "inverse_cdf"),
    ("search-gt-for-ge", inverse_cdf, "inverse_cdf_search", "if cdf(mid) >= u:",
     "if cdf(mid) > u:", "inverse_cdf"),
    ("search-one-round-short", inverse_cdf, "inverse_cdf_search", "range(n.bit_length())",
     "range(n.bit_length() - 1)", "inverse_cdf"),
    ("fastsample-search-cdf-base", fastsample.FastSample, "search_cdf",
     "return (z + 1) * d_prime + rest", "return z * d_prime + rest", "inverse_cdf"),
    ("fastsample-gmp-cdf-base", fastsample.FastSample, "_gmp_cdf",
     "base = (z + 1) * d_prime", "base = z * d_prime", "inverse_cdf"),
    ("fastsample-native-table-base", native_samplers.SearchTable, "__init__",
     "(j + t + n + 1) * d_prime", "(j + t + n) * d_prime", "inverse_cdf"),
    ("scaled-draw-floor-for-ceil", empty_bin._ScaledDraw, "search",
     "gmpy2.c_div(u, self.factor)", "gmpy2.f_div(u, self.factor) + 1", "inverse_cdf"),
    # (the rows' fields have d0 <= 2^256: f's plain-int branch since 19d2ca7)
    ("empty-bin-f-floor", compact.EmptyBinSampler, "f", "return -((r - u0) // self.q)",
     "return (u0 - r) // self.q or 1", "inverse_cdf"),
    ("binomial-search-cap-short", orderstats.BinomialDraw, "search",
     "inverse_cdf_search(self.cdf, self.cap, u)",
     "inverse_cdf_search(self.cdf, max(self.cap - 1, 0), u)", "inverse_cdf"),
    ("approx-bin-loop-gt-for-ge", orderstats.ApproxBinDraw, "search",
     "_le, itertools.repeat(u), sums[low:width]",  # the test sums[l] >= u (u <= sums[l])
     "(lambda a, b: a < b), itertools.repeat(u), sums[low:width]",  # ... as sums[l] > u
     "inverse_cdf"),
    ("system-off-by-one", SystemSource, "uniform", "secrets.randbelow(check_domain_size(d)) + 1",
     "secrets.randbelow(check_domain_size(d)) + 2", "uniform"),
    ("system-range-one-too-wide", SystemSource, "uniform",
     "secrets.randbelow(check_domain_size(d)) + 1",
     "secrets.randbelow(check_domain_size(d) + 1) + 1", "uniform"),
    ("system-range-one-too-narrow", SystemSource, "uniform",
     "secrets.randbelow(check_domain_size(d)) + 1",
     "secrets.randbelow(max(check_domain_size(d) - 1, 1)) + 1", "uniform"),
    ("seeded-range-one-too-wide", randomness.SeededSource, "uniform",
     "self._rng.randrange(check_domain_size(d)) + 1",
     "self._rng.randrange(check_domain_size(d) + 1) + 1", "uniform"),
    ("seeded-starts-at-two", randomness.SeededSource, "uniform",
     "self._rng.randrange(check_domain_size(d)) + 1",
     "self._rng.randrange(1, check_domain_size(d) + 1) + 1", "uniform"),
    ("bytes-accept-d", randomness.ByteSource, "uniform", "if r < d:", "if r <= d:", "uniform"),
    ("bytes-one-bit-short", randomness.ByteSource, "uniform", "(1 << k) - 1", "(1 << (k - 1)) - 1",
     "uniform"),
    ("domain-accepts-zero", randomness, "check_domain_size", "if d < 1:", "if d < 0:",
     "uniform"),
    ("domain-accepts-bool", randomness, "check_domain_size",
     "if isinstance(d, bool) or not isinstance(d, int):", "if not isinstance(d, int):",
     "uniform"),
    ("callable-accepts-zero", randomness.CallableSource, "uniform", "not 1 <= u <= d",
     "not 0 <= u <= d", "uniform"),
]


def test_rows_pass_on_the_real_sources() -> None:
    for name, check in ROW.items():
        report = check(False)
        assert isinstance(report, ClaimReport) and report.certificates
        assert report.verdict, (name, [c.witness for c in report.certificates
                                       if not c.verdict])


@pytest.mark.parametrize(("owner", "name", "old", "new", "row"), [p[1:] for p in PLANTED],
                         ids=[p[0] for p in PLANTED])
def test_planted_bug_fails_its_row(owner: Any, name: str, old: str, new: str,
                                   row: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # FastSample searches natively when the kernels are built: a bug in the Python search's
    # F is planted with them off, a bug in the native table only with them on.
    if owner is fastsample.FastSample:
        monkeypatch.setattr(native_samplers, "available", lambda: False)
    if name == "_gmp_cdf":  # the power-table search runs only when the window has no room
        monkeypatch.setattr(fastsample, "NATIVE_TABLE_BYTES", 0)
    if owner is native_samplers.SearchTable and not native_samplers.available():
        pytest.skip(f"native sampler kernels: {native_samplers.status()}")
    with planted(owner, name, old, new):
        report = ROW[row](False)
    assert report.verdict is False
    assert any(not c.verdict and c.witness for c in report.certificates)


def test_rows_are_discovered_first_and_touch_no_global_generator() -> None:
    names = [m.__name__.split(".")[-1] for m in discover()]
    i = names.index("lemma_2_13_sources")  # Section 2 first, in paper order
    assert [n for n in names[:i] if not n.split("_")[1] in ("1", "2")] == []
    assert all(n.split("_")[1] not in ("1", "2") for n in names[i + 1:]), names
    assert checks_of(rows) == [rows.check_bernoulli, rows.check_inverse_cdf,
                               rows.check_uniform]
    before = secrets._sysrand  # type: ignore[attr-defined]
    rows.check_uniform(False)
    assert secrets._sysrand is before  # type: ignore[attr-defined]
    draws = {SystemSource().uniform(2**64) for _ in range(4)}
    assert len(draws) == 4  # still the OS generator (a repeat has probability < 2**-59)


def test_uniform_row_sees_a_biased_reduction() -> None:
    # A modulo reduction of 6 bits onto [1, d] is biased for d = 3 (64 = 21 * 3 + 1): the
    # enumeration of getrandbits must show it, through the real secrets.randbelow path.
    def biased(self: SystemSource, d: int) -> int:
        return secrets.randbelow(64) % randomness.check_domain_size(d) + 1

    original: Callable[..., int] = SystemSource.uniform
    SystemSource.uniform = biased  # type: ignore[method-assign]
    try:
        report = rows.check_uniform(False)
    finally:
        SystemSource.uniform = original  # type: ignore[method-assign]
    failed = [c for c in report.certificates if not c.verdict]
    assert [c.mechanism for c in failed] == ["SystemSource"]
