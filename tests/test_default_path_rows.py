"""Rows that reach the sampler paths a release takes by default but the exhaustive grids
never reach: ALP's randomized response by blocks (the default from FAST_MIN_CELLS cells on;
the exploring source takes the per-cell path).  Each planted bug is caught by the block-path
row and missed by the per-cell row.  (FastSample's fallback searches: tests/
test_counting_fast_path.py.)"""

from __future__ import annotations

import pytest
from _plant import plant

from exactdp.proofs.alp import alp_sampler_block_path as blocks
from exactdp.proofs.alp import alp_sampler_exactness as cells
from exactdp.sparse_vectors import rr


def test_block_rows_pass() -> None:
    for check in blocks.CHECKS:
        report = check(False)
        assert report.certificates and report.verdict, report.worst


def test_block_cells_restored_after_the_row() -> None:
    blocks.check_law(False)
    assert rr.BLOCK_CELLS == 8192


@pytest.mark.parametrize(("old", "new"), [
    ("_ONE if e < a else _ZERO", "_ONE if e <= a else _ZERO"),
    ("_ONE if e < a else _ZERO", "_ONE if e >= a else _ZERO"),
])
def test_flip_table_mutation_fails_the_block_rows(monkeypatch: pytest.MonkeyPatch, old: str,
                                                  new: str) -> None:
    plant(monkeypatch, rr, "_flip_table", old, new)
    assert cells.check(False).verdict  # the per-cell row is blind to it
    law = blocks.check_law(False)
    assert not law.verdict and law.certificates
    assert any(c.worst > 0 for c in law.certificates)  # type: ignore[operator]
    decode = blocks.check_decode(False)
    assert not decode.verdict and decode.certificates


def test_digit_padding_mutation_fails_the_law_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """Short digit strings padded on the wrong side (only draws below D^(n-1) see it)."""
    plant(monkeypatch, rr, "block_flips", 'digits.rjust(n, b"0")', 'digits.ljust(n, b"0")')
    assert cells.check(False).verdict
    assert not blocks.check_law(False).verdict


@pytest.mark.parametrize(("old", "new"), [
    ("self.params.cells < FAST_MIN_CELLS", "self.params.cells <= FAST_MIN_CELLS"),
    ("return \"blocks\"\n", "return \"cells\"\n"),
])
def test_default_dispatch_moved_fails(monkeypatch: pytest.MonkeyPatch, old: str,
                                      new: str) -> None:
    """rr='auto' keeping the per-cell path where the block path is the default."""
    from exactdp.sparse_vectors.alp import ALP
    plant(monkeypatch, ALP, "rr_path", old, new)
    assert not blocks.check_decode(False).verdict
