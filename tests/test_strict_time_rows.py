"""The strict-time and certified-bound rows fail on the bugs they exist to catch.

Each test plants one single-point bug the way a mutation tool would -- by editing one
expression in the library function's source and swapping the function's code object in
place (so every caller, however it imported the function, runs the mutant) -- and asserts
that the row's verdict is False.  A guard in :func:`mutate` fails the test if the expression
to replace is not found, so a refactoring cannot turn these tests into no-ops.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

from exactdp import certified, checker, dyadic
from exactdp.cli.verify import run_check
from exactdp.counting import InverseCDFSampler
from exactdp.histograms import binomial_bounds, compact, orderstats, sparse
from exactdp.histograms.compact import CompactHistogram
from exactdp.proofs.balcer_vadhan import (
    def_2_01_certified_exp_ln,
    prop_6_05_strict_time,
    prop_6_17_certified_shortcut,
    prop_6_17_strict_time,
    prop_6_19_strict_time,
    thm_4_07_strict_time,
    thm_6_08_strict_time,
    thm_6_10_strict_time,
    thm_8_03_strict_time,
)


def mutate(monkeypatch: pytest.MonkeyPatch, fn: Callable[..., Any], old: str, new: str) -> None:
    """Replace the one occurrence of ``old`` by ``new`` in ``fn``'s source and install the
    mutant's code in ``fn`` itself (undone by ``monkeypatch`` after the test)."""
    source = textwrap.dedent(inspect.getsource(fn))
    assert source.count(old) == 1, f"{old!r} occurs {source.count(old)} times in {fn.__name__}"
    namespace: dict[str, Any] = {}
    exec(compile(source.replace(old, new), inspect.getfile(fn), "exec"),  # noqa: S102
         fn.__globals__, namespace)
    monkeypatch.setattr(fn, "__code__", namespace[fn.__name__].__code__)


def method(cls: type, name: str) -> Callable[..., Any]:
    fn = cls.__dict__[name]
    assert inspect.isfunction(fn)
    return fn


# --------------------------------------------------------------------------- honest rows


@pytest.mark.parametrize("module", [
    prop_6_17_strict_time, prop_6_19_strict_time, thm_6_08_strict_time, prop_6_05_strict_time,
    thm_6_10_strict_time, thm_8_03_strict_time, thm_4_07_strict_time, def_2_01_certified_exp_ln,
    prop_6_17_certified_shortcut])
def test_rows_pass_on_the_library(module: Any) -> None:
    report = module.check(False)
    assert report.verdict, [c.to_json() for c in report.certificates if not c.verdict][:2]


# --------------------------------------------------------------------------- ApproxOrdSample


def test_padded_round_count_from_m_fails_the_approx_ord_sample_row(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The timing leak of issue 16: rounds from the private m instead of the public max_m."""
    mutate(monkeypatch, orderstats.approx_ord_sample, "rounds = bound.bit_length()",
           "rounds = m.bit_length()")
    report = prop_6_19_strict_time.check(False)
    assert not report.verdict
    bad = [c for c in report.certificates if not c.verdict]
    assert bad and "first_difference" in bad[0].witness


def test_padded_width_count_from_t_fails_the_approx_bin_sample_row(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Padded ApproxBinSample computing only the widths its own t needs (t is data: the
    number of order statistics still to place)."""
    mutate(monkeypatch, method(orderstats.ApproxBinDraw, "__init__"),
           "doubling_widths(t if pad_t is None else pad_t)", "doubling_widths(t)")
    assert not prop_6_17_strict_time.check(False).verdict


# --------------------------------------------------------------------------- KH', Sparse, Pure


def test_strict_draws_excluding_a_fail_the_sparse_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Strict mode drawing its distinct elements from X minus A, as the printed Algorithm A.3
    call does: domains |X| - |A| - i."""
    mutate(monkeypatch, method(sparse._CandidateHistogram, "release"),
           "distinct_sample(size, (), 2 * n + 1, src)",
           "distinct_sample(size, support, 2 * n + 1 - k, src)")
    for module in (thm_6_08_strict_time, thm_6_10_strict_time, prop_6_05_strict_time):
        assert not module.check(False).verdict, module.__name__


def test_strict_draws_excluding_a_as_printed_fail_the_rows(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The same with 2n + 1 draws: on |X| = 2n + 1 it cannot even run -- a FAIL row too."""
    mutate(monkeypatch, method(sparse._CandidateHistogram, "release"),
           "distinct_sample(size, (), 2 * n + 1, src)",
           "distinct_sample(size, support, 2 * n + 1, src)")
    assert not run_check(thm_6_08_strict_time.check, False).verdict


def test_strict_order_statistics_over_private_m_fail_the_rows(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Order statistics of m = |X| - |A| (the number of distinct elements) in strict mode."""
    mutate(monkeypatch, method(sparse._CandidateHistogram, "release"),
           "top = self._order_statistics(size - n, src)",
           "top = self._order_statistics(size - k, src)")
    for module in (thm_6_08_strict_time, thm_6_10_strict_time, prop_6_05_strict_time):
        assert not module.check(False).verdict, module.__name__


def test_strict_noise_only_for_a_fails_the_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """|A| noisy-count draws instead of n (the printed step 2 inside strict mode)."""
    mutate(monkeypatch, method(sparse._CandidateHistogram, "release"),
           "support + [0] * (n - k)", "support")
    for module in (thm_6_08_strict_time, prop_6_05_strict_time):
        assert not run_check(module.check, False).verdict, module.__name__


# --------------------------------------------------------------------------- CompactHistogram


def test_padding_drawn_directly_fails_the_compact_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """An 'optimisation' with the same output law: a padding point's u_x is uniform on
    [d0]_+, so draw it at once -- but then the number of draws reveals |A|."""
    mutate(monkeypatch, method(CompactHistogram, "_point_value"),
           "elif count is None:\n        v = ",
           "elif count is None:\n        return self.field.from_index("
           "source.uniform(self.empty.d0))\n        v = ")
    assert not thm_8_03_strict_time.check(False).verdict


def test_wrong_conditional_domain_fails_the_compact_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """u_x drawn from a domain one too small: the documented dependence is checked too."""
    mutate(monkeypatch, method(compact.EmptyBinSampler, "sample_preimage"),
           "uniform(hi - lo + 1)", "uniform(max(1, hi - lo))")
    report = thm_8_03_strict_time.check(False)
    assert not report.verdict
    assert any("wrong_domains" in c.witness for c in report.certificates)


# --------------------------------------------------------------------------- counting samplers


def test_checker_skipping_c_equals_n_fails_the_counting_row(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 16: check_strict_time comparing c in [0, n) only passed every row."""
    mutate(monkeypatch, checker.check_strict_time, "for c in range(n + 1):",
           "for c in range(n):")
    report = thm_4_07_strict_time.check(False)
    assert not report.verdict
    bad = [c for c in report.certificates if not c.verdict]
    assert all(c.parameters["leak"] == "c = n" for c in bad)


def test_checker_skipping_u_equals_d_fails_the_counting_row(
        monkeypatch: pytest.MonkeyPatch) -> None:
    mutate(monkeypatch, checker.check_strict_time, "us = range(1, d + 1)", "us = range(1, d)")
    assert not thm_4_07_strict_time.check(False).verdict


def test_sampler_leaking_at_c_equals_n_fails_the_counting_row(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A search that evaluates F once more at the last count only."""
    mutate(monkeypatch, method(InverseCDFSampler, "__call__"),
           "return self._search(c, u)",
           "if c == self.n:\n        self.search_cdf(c, 0)\n    return self._search(c, u)")
    report = thm_4_07_strict_time.check(False)
    assert not report.verdict
    samplers = [c for c in report.certificates if "leak" not in c.parameters]
    assert any(not c.verdict and "first_difference" in c.witness for c in samplers)


# --------------------------------------------------------------------------- certified bounds


@pytest.mark.parametrize(("fn", "old", "new"), [
    # the upper end of every rational enclosure rounded down instead of up
    (certified._scaled_out, "hi_n = -((-hi_num << bits) // hi_den)",
     "hi_n = (hi_num << bits) // hi_den"),
    # e^x's Taylor remainder forgotten: the "upper" bound is a partial sum, below e^x
    (certified._exp_pos, "_scaled_out(s, den, s * factor + tail_num, tail_den, work)",
     "_scaled_out(s, den, s, den, work)"),
    # ln's atanh remainder forgotten
    (certified._atanh_n, "s * k * d2 + power * m, den * k * d2", "s, den"),
    # the audit's binomial tails: upper bounds rounded down
    (dyadic.dnorm, "mant = -((-mant) >> extra) if up else mant >> extra", "mant = mant >> extra"),
])
def test_certified_bound_rounded_the_wrong_way_fails_the_exp_ln_row(
        monkeypatch: pytest.MonkeyPatch, fn: Callable[..., Any], old: str, new: str) -> None:
    mutate(monkeypatch, fn, old, new)
    certified.clear_caches()  # the memo tables must neither hide the bug nor keep its values
    try:
        assert not run_check(def_2_01_certified_exp_ln.check, False).verdict
    finally:
        monkeypatch.undo()
        certified.clear_caches()


@pytest.mark.parametrize(("fn", "old", "new"), [
    # ApproxBinSample's dyadic upper bounds rounded down
    (dyadic.dnorm, "mant = -((-mant) >> extra) if up else mant >> extra",
     "mant = mant >> extra"),
    # ... and in the powers (1 - pi)^m, where dpow rounds without calling dnorm
    (dyadic.dpow, "b_mant = -((-b_mant) >> extra) if up else b_mant >> extra",
     "b_mant = b_mant >> extra"),
    # the upper end of the enclosure of p'/s rounded down (so the lower CDF bound is high)
    (method(orderstats.BinomialCDFBounds, "_start"), "p_hi = p_lo + (rest > 0)",
     "p_hi = p_lo"),
    # a certified miss where s hi_l = u (the loop hits there)
    (binomial_bounds.times_lt, "return _floor_times(x, gmpy2.mpz(s)) < u",
     "return _floor_times(x, gmpy2.mpz(s)) <= u"),
    # the leading-bit tests (s > 2^400) without the +1 that bounds the bits of s dropped
    (binomial_bounds.times_lt, "_dyadic_vs((s_top + 1) * mant, exp, u_top) <= 0",
     "_dyadic_vs(s_top * mant, exp, u_top) <= 0"),
    # ... or with the bits of u dropped below 2^k taken as zero on the other side
    (binomial_bounds.times_lt, "_dyadic_vs(s_top * mant, exp, u_top + 1) >= 0",
     "_dyadic_vs(s_top * mant, exp, u_top) >= 0"),
    # the cheap hit at l = 0 from 1 - (m - 1) p/q, above P_0
    (method(orderstats.BinomialCDFBounds, "certified_zero"), "m * p_up", "(m - 1) * p_up"),
    # ... or with 2^320 p/q rounded down
    (method(orderstats.BinomialCDFBounds, "certified_zero"),
     "p_up = -((-p_top << _PI_BITS) // (q >> cut))", "p_up = (p_top << _PI_BITS) // (q >> cut)"),
])
def test_certified_bound_rounded_the_wrong_way_fails_the_shortcut_row(
        monkeypatch: pytest.MonkeyPatch, fn: Callable[..., Any], old: str, new: str) -> None:
    mutate(monkeypatch, fn, old, new)
    assert not run_check(prop_6_17_certified_shortcut.check, False).verdict


def test_the_exp_oracle_brackets_e() -> None:
    """The row's own oracle, against digits of e and e^-1 known independently."""
    lo, hi = def_2_01_certified_exp_ln.exp_enclosure(Fraction(1), 60)
    assert Fraction(2718281828459045, 10**15) < lo <= hi < Fraction(2718281828459046, 10**15)
    lo, hi = def_2_01_certified_exp_ln.exp_enclosure(Fraction(-1), 60)
    assert Fraction(367879441171442, 10**15) < lo <= hi < Fraction(367879441171443, 10**15)
    assert def_2_01_certified_exp_ln.exp_enclosure(Fraction(0), 10) == (1, 1)


def test_uniform_sparse_histogram_extra_draw_fails_the_row(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """n + 1 count draws instead of n (same output law, still data-independent): the
    documented schedule of exactly 2n draws is broken, and the row says so."""
    import inspect
    import textwrap

    from exactdp.histograms import sparse
    from exactdp.proofs.balcer_vadhan import thm_6_10_strict_time

    source = textwrap.dedent(inspect.getsource(sparse.uniform_sparse_histogram))
    old = "cs = [src.uniform(n + 1) - 1 for _ in range(n)]"
    assert source.count(old) == 1
    namespace = dict(vars(sparse))
    exec("from __future__ import annotations\n"  # noqa: S102 - the planted mutant
         + source.replace(old, old.replace("range(n)", "range(n + 1)")), namespace)
    monkeypatch.setattr(thm_6_10_strict_time, "uniform_sparse_histogram",
                        namespace["uniform_sparse_histogram"])
    assert not thm_6_10_strict_time.check(False).verdict
