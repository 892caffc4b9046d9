"""diffprivlib audited as shipped (issue 10 item 1 acceptance): ``randomise`` unmodified, its
``_rng`` patched with a secrets facade.  Compared with the hand adapter
(:class:`exactdp.adapters.DiffprivlibGeometricTruncated`, which injects ``j`` and reorders it
by hand) and with thresholds derived here from diffprivlib's float constants."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest

from exactdp.adapters import diffprivlib_geometric_truncated
from exactdp.audit import whitebox_audit
from exactdp.audit.shipped import diffprivlib_randomise

pytest.importorskip("diffprivlib")
np = pytest.importorskip("numpy")

TWO53 = 1 << 53


def _nonzero(dist: dict[Any, Fraction]) -> dict[Any, Fraction]:
    return {o: p for o, p in dist.items() if p}


def _audit(name: str, inputs: range, eps: object, outputs: Any, **kw: Any) -> Any:
    return whitebox_audit(diffprivlib_randomise(name, epsilon=eps, **kw), inputs=inputs,
                          claimed_epsilon=eps, kind="source", outputs=outputs)


def test_geometric_truncated_as_shipped_equals_the_hand_adapter() -> None:
    report = _audit("GeometricTruncated", range(9), 1, range(10), lower=0, upper=8,
                    error_outcome=9)
    hand = whitebox_audit(diffprivlib_geometric_truncated(1, 0, 8), inputs=range(9),
                          claimed_epsilon=1)
    for c in range(9):
        assert _nonzero(report.distributions[c]) == _nonzero(hand.distributions[c])
    assert report.worst is not None
    assert report.worst.ratio == Fraction(2001517169164, 736317017687)  # README's figure
    assert report.verdict == "violation"
    # random() == 1/2 (j = 2^52) makes diffprivlib take log(0): probability 2^-53
    assert report.distributions[0][9] == Fraction(1, TWO53)


def test_geometric_truncated_infinite_loss_at_eps_2() -> None:
    report = _audit("GeometricTruncated", range(21), 2, range(22), lower=0, upper=20,
                    error_outcome=21)
    assert report.distributions[1][19] == Fraction(1, TWO53)
    assert report.distributions[0].get(19, 0) == 0
    assert any(i.outcome == 19 and i.possible_on == 1 and i.impossible_on == 0
               for i in report.infinite)
    assert report.verdict == "violation"


def test_geometric_untruncated_infinite_loss_and_clamping() -> None:
    geo = _audit("Geometric", range(3), 1, None, error_outcome="log(0)")
    trunc = _audit("GeometricTruncated", range(3), 1, None, lower=0, upper=8,
                   error_outcome="log(0)")
    assert geo.worst is not None and geo.worst.ratio is None and geo.infinite
    assert geo.verdict == "violation"
    # GeometricTruncated is Geometric clamped to [0, 8] (diffprivlib's _truncate): the two
    # audits, of two code paths, must agree after clamping
    for c in range(3):
        clamped: dict[Any, Fraction] = {}
        for o, p in geo.distributions[c].items():
            k = o if isinstance(o, str) else min(max(o, 0), 8)
            clamped[k] = clamped.get(k, Fraction(0)) + p
        assert _nonzero(clamped) == _nonzero(trunc.distributions[c])


def test_binary_as_shipped_against_its_float_threshold() -> None:
    report = _audit("Binary", range(2), 1, range(2))
    e = float(np.exp(1.0))
    a = e + 1.0

    def flips(j: int) -> bool:  # unif_rv = random() * (exp(eps) + 1) > exp(eps) + 0.0
        return float(Fraction(j, TWO53) * Fraction(a)) > e  # float(Fraction) rounds exactly

    lo, hi = 0, TWO53 - 1  # flips is monotone in j: the first j that flips
    assert flips(hi) and not flips(lo)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if flips(mid) else (mid, hi)
    flipped = TWO53 - hi
    assert report.distributions[0] == {0: Fraction(TWO53 - flipped, TWO53),
                                       1: Fraction(flipped, TWO53)}
    ratio = Fraction(TWO53 - flipped, flipped)
    assert report.worst is not None and report.worst.ratio == ratio
    assert ratio > Fraction(math.exp(1))  # exceeds e^1: refuted
    assert report.verdict == "violation"
