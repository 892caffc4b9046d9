"""GeoSample's search evaluations on gmpy2 integers (Balcer & Vadhan, Algorithm 4.8 step 2).

:class:`PowerWalk` computes ``F_c(z)`` at the points one binary search of
:class:`~exactdp.counting.GeoSample` visits, each round's power from the previous round's
late in the search -- for mechanisms whose table of ``F`` values (``GeoSample._table``) would
exceed ``GEO_TABLE_BITS``; smaller ones read ``F`` off that table.  Split out of :mod:`exactdp.counting` (which re-exports both names);
``proofs/balcer_vadhan/thm_4_07_fast_path.py`` proves its values equal ``GeoSample.cdf`` on every path of
the verify grids.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import gmpy2

if TYPE_CHECKING:
    from exactdp.counting import GeoSample

__all__ = ["GEO_STEP_BITS", "PowerWalk"]

#: GeoSample's search computes the power ``(2**k + 1)**e`` of a round from the previous
#: round's by one product or exact quotient once the search interval has at most about
#: ``2**GEO_STEP_BITS`` points (a product by a small power is cheaper than a new power).
GEO_STEP_BITS = 11


class PowerWalk:
    """GeoSample's ``F_c(z)`` at the points one search visits, on gmpy2 integers.

    For ``z`` in ``[0, n)`` put ``a = c - z`` (``z < c``) or ``a = z - c + 1`` (``z >= c``):
    then ``F_c(z) = 2**(k a) (2**k + 1)**(n - a)`` or ``d`` minus that (Algorithm 4.8 step 2).
    Evaluation ``r`` (1-based) of a walk computes the power ``(2**k + 1)**(n - a)`` afresh for
    ``r <= fresh`` and otherwise from the previous evaluation's power by one product with
    (or one exact quotient by) ``(2**k + 1)**|delta|``, where ``delta`` is the change of
    exponent: the late rounds of a binary search move by little, so this replaces a power of
    ``n log2(2**k + 1)`` bits by a product with a small one.  ``fresh = max(1,
    n.bit_length() - GEO_STEP_BITS)`` depends only on ``n``: which rounds take which route is
    public.  The values are exactly :meth:`GeoSample.cdf`'s (checked on every path of the
    verify grids by ``proofs/balcer_vadhan/thm_4_07_fast_path.py``).  The mechanism's ``n``, ``k``,
    ``2**k + 1`` and ``d`` are read once per walk (one search), not once per evaluation.
    """

    __slots__ = ("base", "c", "calls", "d", "exponent", "fresh", "k", "mech", "n", "power")

    def __init__(self, mech: GeoSample, c: int) -> None:
        self.mech, self.c = mech, c
        self.base, self.d = mech._gmp
        self.n, self.k = mech.n, mech.k
        self.fresh = max(1, self.n.bit_length() - GEO_STEP_BITS)
        self.calls = 0
        self.exponent = -1
        self.power: Any = None

    def search_cdf(self, z: int) -> Any:
        """``F_c(z)`` for ``z`` in ``[0, n]`` (one evaluation of the search)."""
        self.calls += 1
        n = self.n
        if z >= n:
            return self.d
        c, base = self.c, self.base
        a = c - z if z < c else z - c + 1
        e = n - a
        if self.calls <= self.fresh:
            power = base**e
        elif e >= self.exponent:
            power = self.power * base ** (e - self.exponent)
        else:
            power = gmpy2.divexact(self.power, base ** (self.exponent - e))
        self.exponent, self.power = e, power
        low = power << (self.k * a)
        return low if z < c else self.d - low
