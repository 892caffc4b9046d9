"""``exactdp check convolution --noise gaussian``: the explored laws of the release's own code
against the calibration's certified bound, with a reference built here from weights computed
one by one (weight_direct), and a planted narrower sampler that must be caught."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from exactdp.checker import hockey_stick
from exactdp.convolution import gaussian as conv_gaussian
from exactdp.discrete_gaussian import weight_direct
from tests._cli import run

# N = 4, h = (1,1,1,1): one kept Walsh row, the coefficient c = sum(x) in its public window
ARGS = ("check", "convolution", "--group", "xor", "--filter", "1,1,1,1", "--domain", "box:m=1",
        "--epsilon", "1", "--delta", "1/10", "--noise", "gaussian")


def _clamped(s2: Fraction, c: int, lo: int, hi: int) -> dict[int, Fraction]:
    half = []
    while (w := weight_direct(len(half), s2)) > 0:
        half.append(w)
    total = half[0] + 2 * sum(half[1:])
    law: dict[int, Fraction] = {}
    for z in range(-len(half) + 1, len(half)):
        v = min(max(c + z, lo), hi)
        law[v] = law.get(v, Fraction(0)) + Fraction(half[abs(z)], total)
    return law


def test_gaussian_check_passes_and_its_worst_pair_matches_a_direct_reference(
        capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, *ARGS, "--json")
    doc: dict[str, Any] = json.loads(out)
    assert rc == 0 and doc["verdict"] == "pass"
    (s2,) = (Fraction(v) for v in doc["sigma2"])
    at_r = doc["explored"]["delta_at_R_lo"]
    r_lo, worst = Fraction(at_r["R_lo"]), Fraction(at_r["worst"])
    assert at_r["within_bound"] and worst <= Fraction(at_r["certified_bound"])
    # the reference: c = sum(x) clamped to [0, 4]; the output is an injective image of it
    ref = _clamped(s2, sum(at_r["x"]), 0, 4), _clamped(s2, sum(at_r["x_prime"]), 0, 4)
    assert worst == hockey_stick(ref[0], ref[1], r_lo) > 0
    best_ref = max(hockey_stick(_clamped(s2, c, 0, 4), _clamped(s2, c2, 0, 4), r_lo)
                   for c in range(4) for c2 in (c, c + 1) if c != c2)
    assert worst == best_ref


def test_gaussian_check_text_names_the_bound(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, *ARGS)
    assert rc == 0 and "within the calibration's certified bound" in out
    assert "no pure ratio" in out and "discrete Gaussian sigma^2" in out


def test_a_sampler_narrower_than_its_calibration_fails(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    real = conv_gaussian.GaussianRowNoise

    def narrow(sigma2s: Any, ranges: Any, bits: int) -> Any:
        return real([s / 4 for s in sigma2s], ranges, bits)

    monkeypatch.setattr(conv_gaussian, "GaussianRowNoise", narrow)
    rc, out, _ = run(capsys, *ARGS, "--json")
    doc = json.loads(out)
    assert rc == 1 and doc["verdict"] == "FAIL"
    assert not doc["explored"]["delta_at_R_lo"]["within_bound"]


def test_options_of_the_geometric_noise_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, *ARGS, "--accounting", "zcdp")
    assert rc == 2 and out == "" and "--accounting zcdp applies to --noise geometric" in err


def test_tiny_delta_printed_in_scientific_notation():
    """A delta of a few 1e-12 is shown as such (nine fixed places printed it as
    [0.000000000, 0.000000001]); an exact zero as '= 0'."""
    from fractions import Fraction

    from exactdp.cli.convolution_check import _delta

    target = Fraction(1, 10**6)
    assert _delta(Fraction(3, 10**12), Fraction(4, 10**12), target) == \
        "in [3.000e-12, 4.000e-12]"
    assert _delta(Fraction(0), Fraction(0), target) == "= 0"
