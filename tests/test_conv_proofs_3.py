"""Planted failures for the convolution rows on Theorem 1 / Corollary 1 over Z_N and on the
slips of Algorithms 1 and 2 and Lemma 3: each row passes unplanted and FAILS when the bug it
guards against is planted in the implementation."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from exactdp.certified import Interval
from exactdp.convolution import baselines, groups
from exactdp.proofs.convolution import conv_thm_01_circulant as thm1


def test_theorem_1_row_passes() -> None:
    assert thm1.check(False).verdict


def test_transposed_circulant_fails_theorem_1(monkeypatch: pytest.MonkeyPatch) -> None:
    def transposed(h):  # type: ignore[no-untyped-def]
        n = len(h)
        return [[h[(c - r) % n] for c in range(n)] for r in range(n)]

    monkeypatch.setattr(thm1, "circulant", transposed)
    cert = thm1.ring_certificate(5, random.Random(3))
    assert not cert.verdict and "H f_m" in cert.witness


def test_wrong_circular_convolution_fails_corollary_1(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = groups.circular_convolve
    monkeypatch.setattr(thm1, "circular_convolve", lambda h, x: orig(h, x[::-1]))
    cert = thm1.ring_certificate(5, random.Random(3))
    assert not cert.verdict and cert.witness["corollary_1"] is False


def test_wrong_pi_fails_certified_magnitudes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(baselines, "pi_interval",
                        lambda bits=80: Interval(Fraction(22, 7), Fraction(22, 7)))
    assert not thm1.magnitude_certificate([2, 1, 0, -1, 3, 1]).verdict


def test_printed_typos_row_passes_and_fails_on_a_wrong_reconstruction(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.convolution.mechanism import WalshFourierMechanism
    from exactdp.proofs.convolution import conv_alg_1_printed_typos as typos

    assert typos.check(False).verdict
    orig = WalshFourierMechanism.reconstruct
    monkeypatch.setattr(WalshFourierMechanism, "reconstruct",            # outputs 0, 1 swapped
                        lambda self, noisy: (lambda y: (y[1], y[0], *y[2:]))(orig(self, noisy)))
    assert not typos.unsorted_certificate().verdict
    assert not typos.printed_spectrum_certificate().verdict


def test_lemma_3_gap_fails_on_a_broken_transform(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.convolution import transforms
    from exactdp.proofs.convolution import conv_lemma_3_compressible as lemma3

    assert lemma3._gap_certificate(False).verdict
    orig = transforms.fwht
    monkeypatch.setattr(lemma3, "fwht", lambda v: [2 * a for a in orig(v)])   # unnormalised
    assert not lemma3._gap_certificate(False).verdict
