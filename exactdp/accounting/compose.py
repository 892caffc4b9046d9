"""Exact composition of privacy-loss distributions.

Releases ``M_1, ..., M_k`` run with independent randomness on the same pair of inputs give
the product laws ``P = P_1 x ... x P_k`` and ``Q = Q_1 x ... x Q_k``; the ratio of a joint
outcome is the product of the ratios, and its P-mass (Q-mass) the product of the masses.  So
the composed loss is the "product" of the losses, computed exactly:

* on a common lattice (ratios ``offset * base**i``; two bases one a power of the other, or
  both powers of a common root, are put on the finer one) the P- and Q-numerator lists are
  multiplied as polynomials (:func:`exactdp.histograms.polymul.truncated_product`: one
  big-integer product each), ``k`` equal releases by repeated squaring;
* otherwise atom by atom, refused past ``MAX_ATOMS`` distinct ratios
  (:class:`~exactdp.params.ResourceLimitError`).

The masses of infinite ratio compose as ``1 - (1 - a)(1 - b)`` (a joint outcome has ``Q = 0``
when either part has), likewise the Q-masses where ``P = 0``.

>>> from fractions import Fraction as F
>>> rr = PrivacyLoss.from_laws({0: F(3, 4), 1: F(1, 4)}, {0: F(1, 4), 1: F(3, 4)})
>>> two = compose(rr, rr)
>>> [(str(v), str(p)) for v, p, _ in two.atoms()]
[('1/9', '1/16'), ('1', '3/8'), ('9', '9/16')]
>>> two.delta_at_ratio(3) == F(9, 16) * (1 - F(3, 9))
True
"""

from __future__ import annotations

from exactdp.accounting.loss import PrivacyLoss, check_loss
from exactdp.accounting.product import MAX_ATOMS, compose_all, power_of

__all__ = ["MAX_ATOMS", "compose", "power"]


def compose(*losses: PrivacyLoss) -> PrivacyLoss:
    """The exact privacy loss of independent releases with the given losses (the same
    pair of neighbouring inputs in every one).  The same object passed ``m`` times is
    composed by :func:`power`."""
    return compose_all([check_loss(x, f"losses[{j}]") for j, x in enumerate(losses)])


def power(loss: PrivacyLoss, k: int) -> PrivacyLoss:
    """The exact privacy loss of ``k >= 1`` independent runs of one release (repeated
    squaring: ``O(log k)`` products)."""
    return power_of(check_loss(loss, "loss"), k)
