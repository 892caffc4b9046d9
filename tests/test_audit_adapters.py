"""Adapters for OpenDP and diffprivlib (optional extras: skipped when not installed).

What these audits honestly show is recorded here as tests, each finding checked
independently of the audit where possible (by calling the library directly at the
randomness values that the audit's witness names).
"""

from __future__ import annotations

import math
import secrets
import warnings
from fractions import Fraction

import pytest

from exactdp.adapters import ClampedGeometricReference, geometric_alpha
from exactdp.audit import blackbox_audit, whitebox_audit
from exactdp.certified import Interval, compare_exp
from exactdp.cli import main
from exactdp.params import ParameterError


def test_clamped_geometric_reference_encloses_the_exact_values() -> None:
    # with a rational alpha the enclosure must contain GeometricMechanism's exact pmf
    from exactdp.counting import GeometricMechanism

    alpha = Fraction(2, 3)
    ref = ClampedGeometricReference(0, 5, Interval(alpha - Fraction(1, 10**9),
                                                   alpha + Fraction(1, 10**9)), "2/3")
    exact = GeometricMechanism(5, alpha)
    for c in range(6):
        for z, box in ref(c).items():
            assert box.lo <= exact.pmf(c, z) <= box.hi
            assert box.hi - box.lo < Fraction(1, 10**8)


def test_geometric_alpha_contains_e_to_the_minus_rate() -> None:
    box = geometric_alpha(Fraction(1, 2))
    assert compare_exp(Fraction(-1, 2), box.lo) >= 0 >= compare_exp(Fraction(-1, 2), box.hi)


def test_missing_library_or_float_unfriendly_parameters() -> None:
    pytest.importorskip("opendp")
    from exactdp.adapters import opendp_geometric

    with pytest.raises(ParameterError, match="binary float"):
        opendp_geometric("1/3")


def test_diffprivlib_white_box_exact_finding() -> None:
    pytest.importorskip("diffprivlib")
    from exactdp.adapters import diffprivlib_geometric_truncated

    mech = diffprivlib_geometric_truncated(1, 0, 8)
    report = whitebox_audit(mech, inputs=range(9), claimed_epsilon=1)
    # What the exact audit shows (diffprivlib 0.6.6): its float arithmetic pushes the
    # worst ratio just above e^1, and random() == 0.5 makes randomise raise.
    assert report.worst is not None and report.worst.ratio is not None
    w = report.worst
    ratio = w.ratio
    assert ratio is not None
    assert compare_exp(Fraction(1), ratio) < 0 and report.verdict == "violation"
    assert ratio - Fraction(27182818284590, 10**13) < Fraction(1, 10**10)
    kinds = {f.kind for f in report.findings}
    assert "labelled_outcome" in kinds
    # independent check of the witness: call diffprivlib directly with injected random()
    from diffprivlib.mechanisms import GeometricTruncated

    class Fixed(secrets.SystemRandom):
        j = 0

        def random(self):  # type: ignore[no-untyped-def]
            return math.ldexp(self.j, -53)

    rng = Fixed()
    direct = GeometricTruncated(epsilon=1.0, lower=0, upper=8, random_state=rng)

    def out(c: int, j: int) -> object:
        rng.j = j
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return direct.randomise(c)
            except OverflowError:
                return "OverflowError"

    assert out(3, 1 << 52) == "OverflowError"
    # the block of j giving the witness outcome starts right after 2**52 and has exactly
    # Pr * 2**53 elements (its end is where the output changes)
    for c, p in ((w.numerator_input, w.p), (w.denominator_input, w.q)):
        count = p * (1 << 53)
        assert count.denominator == 1
        end = (1 << 52) + int(count)
        assert out(c, end) == w.outcome and out(c, end + 1) != w.outcome
        assert out(c, (1 << 52) + 1) == w.outcome


def test_diffprivlib_black_box_runs() -> None:
    pytest.importorskip("diffprivlib")
    from exactdp.adapters import diffprivlib_geometric_truncated_sampler

    sampler = diffprivlib_geometric_truncated_sampler(1, 0, 8)
    report = blackbox_audit(sampler, inputs=range(4), claimed_epsilon=1, draws=300,
                            alpha=Fraction(1, 10**6))
    # its excess over e^1 (about 4e-13) is far below what 300 draws can see
    assert report.verdict == "no violation detected", report.summary()
    assert report.fit_alpha == Fraction(1, 2 * 10**6)


@pytest.mark.parametrize("bounds", [None, (0, 8)])
def test_opendp_black_box(bounds: tuple[int, int] | None) -> None:
    pytest.importorskip("opendp")
    from exactdp.adapters import opendp_geometric

    mech = opendp_geometric(2, bounds=bounds)
    assert mech.library_epsilon == Fraction(1, 2) == mech.claimed_epsilon
    report = blackbox_audit(mech, inputs=range(9), claimed_epsilon=mech.claimed_epsilon,
                            draws=400, alpha=Fraction(1, 10**6))
    # OpenDP's randomness cannot be seeded from here: alpha = 1e-6 bounds the chance that
    # a correct OpenDP fails this test.  The verdict never claims privacy.
    assert report.verdict == "no violation detected", report.summary()
    assert "certified rational interval" in (report.reference or "")


def test_cli_runs_the_opendp_audit(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("opendp")
    code = main(["audit", "exactdp.adapters:opendp_geometric(scale=2, bounds=(0, 8))",
                 "--kind", "blackbox", "--claimed-epsilon", "1/2", "--inputs", "0..8",
                 "--draws", "300", "--alpha", "1/1000000", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    assert "reference probabilities at input 0" in out and "NO VIOLATION DETECTED" in out
