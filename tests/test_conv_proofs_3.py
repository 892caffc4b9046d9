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

    def swapped(self, noisy):  # type: ignore[no-untyped-def]
        y = orig(self, noisy)
        return (y[1], y[0], *y[2:])                                      # outputs 0, 1 swapped

    monkeypatch.setattr(WalshFourierMechanism, "reconstruct", swapped)
    assert not typos.unsorted_certificate().verdict
    assert not typos.printed_spectrum_certificate().verdict


def test_lemma_3_gap_fails_on_a_broken_transform(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.convolution import transforms
    from exactdp.proofs.convolution import conv_lemma_3_compressible as lemma3

    assert lemma3._gap_certificate(False).verdict
    orig = transforms.fwht
    monkeypatch.setattr(lemma3, "fwht", lambda v: [2 * a for a in orig(v)])   # unnormalised
    assert not lemma3._gap_certificate(False).verdict


def test_tree_baseline_row_passes_and_catches_planted_bugs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.convolution import rows, tree
    from exactdp.proofs.convolution import conv_sec_5_2_tree_baseline as row

    assert row.check(False).verdict
    with monkeypatch.context() as m:                     # a node one count too short
        orig = tree.fenwick_matrix
        m.setattr(tree, "fenwick_matrix",          # node i = 4 loses its first count
                  lambda n: [[0 if (i, k) == (3, 0) else v for k, v in enumerate(r)]
                             for i, r in enumerate(orig(n))])
        assert not row.structure_certificate(4, random.Random(1)).verdict
    orig_init = rows.RowNoise.__init__

    def weaker(self, ratios, ranges):  # type: ignore[no-untyped-def]
        orig_init(self, [r * 2 for r in ratios], ranges)  # noise weaker than claimed
        self.ratios = tuple(ratios)

    monkeypatch.setattr(rows.RowNoise, "__init__", weaker)
    assert not row.release_certificate().verdict


def test_tree_mechanism_api() -> None:
    from exactdp.convolution.domain import Domain
    from exactdp.convolution.tree import fenwick_matrix, prefix_matrix, tree_mechanism
    from exactdp.params import ParameterError

    assert fenwick_matrix(4) == [[1, 0, 0, 0], [1, 1, 0, 0], [0, 0, 1, 0], [1, 1, 1, 1]]
    assert prefix_matrix(2) == [[1, 0], [1, 1]]
    with pytest.raises(ParameterError):
        tree_mechanism(4, Domain.box(3, 1), Fraction(2))


def test_p8_group_bound_fails_on_a_wrong_spectrum(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.convolution import mechanism
    from exactdp.proofs.convolution import conv_alg_2_spectral_partition as alg2

    h = [5, 3, 2, 1, 1, 0, 0, 0]
    assert alg2.group_bound_certificate(h).verdict
    orig = mechanism.fwht
    monkeypatch.setattr(mechanism, "fwht", lambda v: [*orig(v)[:-1], 7])
    assert not alg2.group_bound_certificate(h).verdict


def test_lemma_1_row_passes_and_catches_planted_bugs(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.convolution import lower_bounds, rows
    from exactdp.proofs.convolution import conv_lemma_01_projection as lemma1

    assert lemma1.check(False).verdict
    with monkeypatch.context() as m:                 # Theorem 5 with the printed index
        m.setattr(lemma1, "spec_lb", lambda sq: Fraction(0))
        assert not lemma1.index_certificate(8).verdict
    assert lower_bounds.spec_lb([16, 0, 0, 0]) > 0
    orig = rows.RowNoise.__init__

    def weaker(self, ratios, ranges):  # type: ignore[no-untyped-def]
        orig(self, [r * 2 for r in ratios], ranges)
        self.ratios = tuple(ratios)

    monkeypatch.setattr(rows.RowNoise, "__init__", weaker)
    assert not lemma1.projection_certificate().verdict


def test_conjunction_row_catches_planted_bugs(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.convolution import mechanism
    from exactdp.proofs.convolution import conv_thm_12_dnf_marginals as conj

    assert conj.conjunction_certificate(5, 5).verdict
    with monkeypatch.context() as m:
        orig = mechanism.unclamped_second_moment
        m.setattr(mechanism, "unclamped_second_moment", lambda r: 3 * orig(r))
        assert not conj.conjunction_certificate(5, 5).verdict
    orig_fwht = mechanism.fwht
    monkeypatch.setattr(mechanism, "fwht", lambda v: [*orig_fwht(v)[:-1], 1])
    assert not conj.conjunction_certificate(3, 1).verdict
