"""The domains row (``proofs/balcer_vadhan/def_2_04_domains.py``) fails on planted guard bugs.

Each planted bug is one of the mutation classes the row exists for, made in the library's
own guard line by :func:`_plant.plant`: a dropped refusal, a bound off by one (a valid
boundary value refused, or an invalid one accepted), ``or`` read as ``and``, a resource
limit off by one.  The row's part that covers the module must FAIL, naming the entry point.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest
from _plant import plant

from exactdp import certified, checker, counting, explore, mixing, randomness
from exactdp.certificate import ClaimReport
from exactdp.histograms import basic, compact, orderstats, sparse
from exactdp.proofs.balcer_vadhan import _domains
from exactdp.proofs.balcer_vadhan import def_2_04_domains as row


def test_the_row_passes_and_is_quick() -> None:
    for check in row.CHECKS:
        report = check(False)
        assert report.verdict, [c.witness for c in report.certificates if not c.verdict]
        assert report.certificates


#: (id, owner, function, old, new, the part of the row that must fail, the entry it names)
PLANTED: list[tuple[str, type | ModuleType, str, str, str, Callable[[bool], ClaimReport],
                    str]] = [
    ("bernoulli refuses num = 0", randomness, "check_bernoulli",
     "if not 0 <= num <= den or", "if not 0 < num <= den or", row.check_sources,
     "RandomSource.bernoulli"),
    ("explore's bernoulli unchecked", explore.ExploringSource, "bernoulli",
     "check_bernoulli(num, den)", "pass", row.check_sources, "ExploringSource.bernoulli"),
    ("a one-row table accepted", counting.TabulatedMechanism, "__init__",
     "if len(rows) < 2:", "if len(rows) < 1:", row.check_counting, "TabulatedMechanism"),
    ("Lemma 3.2's validation with and for or", mixing, "lemma_3_2_condition",
     "eps <= 0 or not", "eps <= 0 and not", row.check_counting, "lemma_3_2_condition"),
    ("FastSample accepts gamma = 1", counting.FastSample, "__init__",
     "if self.gamma == 1:", "if self.gamma == 0:", row.check_counting, "FastSample"),
    ("enumeration refuses d = limit", checker, "enumerate_distribution",
     "if d > limit:", "if d >= limit:", row.check_checker, "enumerate_distribution"),
    ("ceil_log_ratio refuses x = 1", certified, "ceil_log_ratio",
     "x < 1 or", "x < 2 or", row.check_checker, "ceil_log_ratio"),
    ("StabilityHistogram refuses b = 0", basic.StabilityHistogram, "__init__",
     "threshold < 0", "threshold <= 0", row.check_basic_sparse, "StabilityHistogram"),
    ("KeepHeavy accepts |X| = n", sparse.KeepHeavy, "__init__",
     "universe.size < mechanism.n + 1", "universe.size < mechanism.n", row.check_basic_sparse,
     "KeepHeavy"),
    ("KH' limit off by one", sparse.KHPrime, "__init__",
     "if bits > KH_PRIME_MAX_BITS:", "if bits >= KH_PRIME_MAX_BITS:", row.check_basic_sparse,
     "KHPrime"),
    ("OrdSample accepts m = n", orderstats, "_check_m", "if m < n + 1:", "if m < n:",
     row.check_order_statistics, "ord_sample"),
    ("BinomialDraw accepts den = 0", orderstats.BinomialDraw, "__post_init__",
     "and self.den >= 1", "and self.den >= 0", row.check_order_statistics, "BinomialDraw"),
    ("Lemma 8.4 refuses d0 = 4d/3", compact.EmptyBinSampler, "__init__",
     "if 3 * self.d0 < 4 * d:", "if 3 * self.d0 <= 4 * d:", row.check_compact,
     "EmptyBinSampler"),
    ("evaluate accepts x = M + 1", compact.CompactRelease, "evaluate",
     "if not 1 <= x <= self.universe_size:", "if not 1 <= x <= self.universe_size + 1:",
     row.check_compact, "CompactRelease.evaluate"),
]


@pytest.mark.parametrize(("owner", "name", "old", "new", "part", "entry"),
                         [p[1:] for p in PLANTED], ids=[p[0] for p in PLANTED])
def test_the_row_fails_on_a_planted_guard_bug(
        monkeypatch: pytest.MonkeyPatch, owner: type | ModuleType, name: str, old: str,
        new: str, part: Callable[[bool], ClaimReport], entry: str) -> None:
    plant(monkeypatch, owner, name, old, new)
    report = part(False)
    assert not report.verdict
    failing = [c.mechanism for c in report.certificates if not c.verdict]
    assert entry in failing, failing


def test_a_boundary_value_accepted_into_an_endless_loop_fails_the_row(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``ceil_log_ratio`` accepting ``base = 1`` refines ``ln 1 = 0`` towards 2^20 bits for
    minutes: the case's time limit turns that into a FAIL row instead of a hang."""
    monkeypatch.setattr(_domains, "CASE_SECONDS", 1)
    plant(monkeypatch, certified, "ceil_log_ratio", "base <= 1", "base < 1")
    report = row.check_checker(False)
    assert not report.verdict
    got = [f["got"] for c in report.certificates for f in c.witness["failures"]]
    assert any("did not finish within 1 s" in g for g in got), got


def _without_native(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.histograms import native
    monkeypatch.setattr(native, "_library", lambda: (None, "not built (test)"))


def test_the_compact_part_passes_without_the_native_kernel_and_says_so(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine without a C compiler runs the pure path: the row checks that path (a
    request for ``'native'`` refused with the kernel's status, ``'auto'`` falling back) and
    says the native boundary was not exercised, instead of a false FAIL."""
    _without_native(monkeypatch)
    report = row.check_compact(False)
    assert report.verdict, [c.witness for c in report.certificates if not c.verdict]
    assert "not built: its 8-word boundary not exercised" in report.grid


def test_without_the_kernel_a_silent_pure_fallback_for_native_fails(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: ``arithmetic = 'native'`` without the kernel quietly runs the pure path."""
    _without_native(monkeypatch)
    plant(monkeypatch, compact, "_use_native", "if arithmetic == \"native\":",
          "if False:")
    report = row.check_compact(False)
    assert not report.verdict
    assert "CompactHistogram" in [c.mechanism for c in report.certificates if not c.verdict]


def test_without_the_kernel_auto_claiming_native_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: ``uses_native`` true although no kernel is loaded."""
    _without_native(monkeypatch)
    plant(monkeypatch, compact, "_use_native", "if native.supports(sub_degree):",
          "if True:")
    report = row.check_compact(False)
    assert not report.verdict
