"""Adapters for python-dp and tmlt.core (exactdp.audit.peers); skipped without the libraries.

python-dp is in the ``[audit]`` extra; tmlt.core (``[audit-tmlt]``) pins numpy 1.26 and
sympy < 1.13, so its tests run only in an environment that has it.
"""

from __future__ import annotations

import builtins
from fractions import Fraction
from typing import Any

import pytest

from exactdp.audit import blackbox_audit
from exactdp.audit.peers import WindowSampler
from exactdp.cli import main
from exactdp.params import ParameterError


def _raising(c: int) -> int:
    raise RuntimeError("the library crashed")


def test_a_crashing_adapter_is_broken_never_a_violation(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    sampler = WindowSampler(_raising, (0, 3), Fraction(1), "raises")
    report = blackbox_audit(sampler, inputs=range(4), claimed_epsilon=1, draws=10)
    assert report.verdict == "broken"
    assert any("crashed" in f.message for f in report.findings)


def test_window_clamps_and_refuses_an_empty_window() -> None:
    sampler = WindowSampler(lambda c: c * 10 - 5, (0, 8), Fraction(1), "affine")
    assert [sampler(c) for c in range(3)] == [0, 5, 8]
    with pytest.raises(ParameterError, match="empty"):
        WindowSampler(lambda c: c, (3, 2), Fraction(1), "x")


def test_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.audit import peers

    real_import = builtins.__import__

    def no_libraries(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.split(".")[0] in ("pydp", "tmlt"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_libraries)
    with pytest.raises(ParameterError, match=r"exactdp\[audit\]"):
        peers.pydp_count(1)
    with pytest.raises(ParameterError, match=r"exactdp\[audit-tmlt\]"):
        peers.tmlt_geometric_sampler(2)


# --------------------------------------------------------------------------- python-dp

def test_pydp_parameters_must_be_exact_floats() -> None:
    pytest.importorskip("pydp")
    from exactdp.audit.peers import pydp_count, pydp_laplace

    with pytest.raises(ParameterError, match="binary float"):
        pydp_laplace("1/3")
    with pytest.raises(ParameterError, match="positive"):
        pydp_count(0)


def test_pydp_laplace_black_box_no_violation_detected() -> None:
    pytest.importorskip("pydp")
    from exactdp.audit.peers import pydp_laplace

    sampler = pydp_laplace(1, window=(0, 4))
    assert sampler.claimed_epsilon == 1 and sampler.reference is None
    report = blackbox_audit(sampler, inputs=range(5), claimed_epsilon=1, draws=2000,
                            time_limit=None)
    assert report.verdict == "no violation detected"
    # a claim of epsilon = 0 (output independent of the input) is refuted: the Laplace
    # noise at epsilon = 1 moves visibly with c on a 0..4 window
    refuted = blackbox_audit(sampler, inputs=range(5), claimed_epsilon=0, draws=2000,
                             time_limit=None)
    assert refuted.verdict == "violation"


def test_pydp_count_cli_exit_status() -> None:
    pytest.importorskip("pydp")
    status = main(["audit", "exactdp.audit.peers:pydp_count(epsilon=1, window=(0, 4))",
                   "--kind", "blackbox", "--claimed-epsilon", "1", "--inputs", "0..4",
                   "--draws", "1000", "--quiet"])
    assert status == 0
    status = main(["audit", "exactdp.audit.peers:pydp_count(epsilon=1, window=(0, 4))",
                   "--kind", "blackbox", "--claimed-epsilon", "0", "--inputs", "0..4",
                   "--draws", "1000", "--quiet"])
    assert status == 1


# --------------------------------------------------------------------------- tmlt.core

def test_tmlt_geometric_reference_is_the_documented_law() -> None:
    pytest.importorskip("tmlt.core")
    from exactdp.audit.peers import tmlt_geometric_sampler

    sampler = tmlt_geometric_sampler(2, window=(0, 4))
    assert sampler.claimed_epsilon == Fraction(1, 2)
    # the claim is tmlt's own: its privacy map at d_in = 1 (a sympy expression, exact)
    from tmlt.core.measurements.noise_mechanisms import AddGeometricNoise

    assert Fraction(str(AddGeometricNoise(alpha=2).privacy_function(1).expr)) == Fraction(1, 2)
    assert sampler.reference is not None
    law = sampler.reference(2)
    # independent: Pr[Z = z] = (1 - a)/(1 + a) a^|z|, a = e^(-1/2) ~ 0.6065306597126334
    a_lo, a_hi = Fraction(6065306597, 10**10), Fraction(6065306598, 10**10)
    centre = law[2]
    assert (1 - a_hi) / (1 + a_hi) <= centre.hi and centre.lo <= (1 - a_lo) / (1 + a_lo)
    total_lo = sum(box.lo for box in law.values())
    total_hi = sum(box.hi for box in law.values())
    assert total_lo <= 1 <= total_hi


def test_tmlt_geometric_black_box_fits_its_reference() -> None:
    pytest.importorskip("tmlt.core")
    from exactdp.audit.peers import tmlt_geometric_sampler

    sampler = tmlt_geometric_sampler(2, window=(0, 3))
    report = blackbox_audit(sampler, inputs=range(4), claimed_epsilon=Fraction(1, 2),
                            draws=1000, time_limit=None, reference=sampler.reference)
    assert report.verdict == "no violation detected"
    assert not report.fit_rejections


def test_tmlt_laplace_white_box_is_refused_not_misreported() -> None:
    pytest.importorskip("tmlt.core")
    from exactdp.audit import whitebox_audit
    from exactdp.audit.facades import FacadeRefusal
    from exactdp.audit.peers import tmlt_laplace

    mech = tmlt_laplace(2, window=(0, 3))
    # where python-flint cannot round the inverse CDF, tmlt draws 63 more bits: the
    # effect of the first draw is not piecewise constant, and the facade says so
    with pytest.raises(FacadeRefusal, match="black-box"):
        whitebox_audit(mech, inputs=range(2), claimed_epsilon=Fraction(1, 2), kind="source",
                       time_limit=None)


def test_tmlt_geometric_white_box_never_a_false_violation() -> None:
    pytest.importorskip("tmlt.core")
    from exactdp.audit import whitebox_audit
    from exactdp.audit.peers import tmlt_geometric

    mech = tmlt_geometric(2, window=(0, 3))
    assert mech.claimed_epsilon == Fraction(1, 2)
    # tmlt's Bernoulli(exp(-x)) loop never ends when every draw is j = 0 (a probability-0
    # path, the exploration's first): the audit cannot finish; it must not claim a violation
    report = whitebox_audit(mech, inputs=range(2), claimed_epsilon=Fraction(1, 2),
                            kind="source", max_runs=50, time_limit=2)
    assert report.verdict != "violation"


def test_floored_laplace_reference_encloses_the_integrals() -> None:
    import mpmath

    from exactdp.adapters import geometric_alpha
    from exactdp.audit.peers import FlooredLaplaceReference

    mpmath.mp.dps = 50
    b = Fraction(2)
    ref = FlooredLaplaceReference(0, 5, geometric_alpha(1 / b), "e^(-1/2)")

    def density(x: Any) -> Any:
        return mpmath.exp(-abs(x) / 2) / 4

    def mass(lo: Any, hi: Any) -> Any:  # split at 0, where the density has its kink
        cuts = [lo] + ([0] if lo < 0 < hi else []) + [hi]
        return sum(mpmath.quad(density, [cuts[i], cuts[i + 1]]) for i in range(len(cuts) - 1))

    tol = mpmath.mpf(10) ** -35
    for c in (-2, 0, 3, 5, 7):
        law = ref(c)
        assert sorted(law) == list(range(6))
        for k, box in law.items():
            lo = -mpmath.inf if k == 0 else k - c
            hi = mpmath.inf if k == 5 else k - c + 1
            value = mass(lo, hi)
            assert mpmath.mpf(box.lo.numerator) / box.lo.denominator <= value + tol
            assert value - tol <= mpmath.mpf(box.hi.numerator) / box.hi.denominator
            assert box.hi - box.lo < Fraction(1, 10**30)


def test_pydp_gaussian_carries_its_delta_claim() -> None:
    pytest.importorskip("pydp")
    from exactdp.audit.peers import pydp_gaussian

    sampler = pydp_gaussian(1, "1/1048576", window=(0, 4))
    assert sampler.claimed_delta == Fraction(1, 2**20)
    report = blackbox_audit(sampler, inputs=range(5), claimed_epsilon=1,
                            claimed_delta=sampler.claimed_delta, draws=2000, time_limit=None)
    assert report.verdict == "no violation detected"
    assert all(0 <= sampler(c) <= 4 for c in range(-3, 8))
