"""Planted bugs shared by the convolution row tests."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.convolution import rows


def weaker_row_noise(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every row samples with ratios 11/10 times those it states: noise weaker than claimed."""
    orig = rows.RowNoise.__init__

    def rounded_up(self: rows.RowNoise, ratios: list[Fraction], ranges: list[tuple[int, int]]
                   ) -> None:
        orig(self, [r * Fraction(11, 10) for r in ratios], ranges)
        self.ratios = tuple(ratios)

    monkeypatch.setattr(rows.RowNoise, "__init__", rounded_up)
