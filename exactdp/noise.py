"""Shared noise and coins for the mechanisms beyond paper 004 (DESIGN.md, "noise and coins").

Every sampler here is a deterministic function of its ``uniform(d)`` draws (through
:meth:`RandomSource.bernoulli` or :meth:`RandomSource.uniform`), makes a number of draws that
depends only on its public parameters (strict time), and has an exact rational law, so that the
exploring source of :mod:`exactdp.explore` computes the law of any mechanism built from them.

* :func:`randomized_response` -- ``RandResponse(b, p)`` of Aumüller, Lebeda & Pagh (paper 003,
  §2): ``1 - b`` with probability exactly ``p``, one coin.
* :func:`rand_round` -- ``RandRound(num/den)`` (paper 003, §2): ``ceil`` with probability
  ``frac``, else ``floor``; one coin, even when ``den`` divides ``num``.
"""

from __future__ import annotations

from fractions import Fraction

from exactdp.params import DomainError, ParameterTypeError
from exactdp.randomness import RandomSource

__all__ = ["probability", "rand_round", "randomized_response"]


def probability(p: object, name: str = "p") -> Fraction:
    """``p`` as an exact probability in ``[0, 1]`` (a Fraction or int; floats are refused:
    a float probability is a rounded one, in a direction nobody chose)."""
    if isinstance(p, bool) or not isinstance(p, (int, Fraction)):
        raise ParameterTypeError(f"{name} = {p!r:.60} must be an int or a Fraction (an exact "
                                 f"probability; floats are refused)")
    q = Fraction(p)
    if not 0 <= q <= 1:
        raise DomainError(f"{name} = {q} must lie in [0, 1]")
    return q


def randomized_response(bit: int, p: Fraction, source: RandomSource) -> int:
    """``RandResponse(b, p)``: ``1 - b`` with probability exactly ``p``, else ``b``.

    One coin ``source.bernoulli(p.numerator, p.denominator)`` whatever ``b`` (strict time).
    ``p`` must already be validated (:func:`probability`); ``bit`` is 0 or 1.
    """
    flip = source.bernoulli(p.numerator, p.denominator)
    return bit ^ 1 if flip else bit


def rand_round(num: int, den: int, source: RandomSource) -> int:
    """``RandRound(num/den)`` for ints ``num >= 0``, ``den >= 1``: ``floor(num/den) + 1`` with
    probability exactly ``(num mod den)/den``, else ``floor(num/den)``.

    Unbiased (``E = num/den``) and within 1 of ``num/den``.  One coin
    ``bernoulli(num mod den, den)`` always, so the number of draws does not depend on whether
    the input is a multiple of ``den`` (strict time).
    """
    q, r = divmod(num, den)
    return q + 1 if source.bernoulli(r, den) else q
