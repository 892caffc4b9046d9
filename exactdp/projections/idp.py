"""Individual DP sign projections, calibrated at a reference vector and then FROZEN
(Li & Li, paper 001, Algorithms 10 and 11, Thm 6.2).

iDP (Def. 2.6) compares ``M(u)`` with ``M(u')`` for the neighbours ``u'`` of ONE given ``u``.
The proof of Thm 6.2 applies the SAME set ``A`` and the same ``eps'`` to ``u'``: the
mechanism's parameters are computed at ``u`` and frozen.  :meth:`IDPSignRPRR.calibrate`
does that and returns a mechanism whose parameters no longer depend on its input; running
``calibrate`` again at ``u'`` (the paper's pseudocode read literally) is NOT private: a bit
deterministic at ``u`` can be randomised at ``u'`` (an infinite ratio; the checker shows it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

from exactdp.params import ParameterError, ParameterTypeError, positive_int
from exactdp.projections.matrices import IntMatrix, column_max_abs, int_matrix
from exactdp.projections.project import project
from exactdp.projections.rr import Base, SmoothFlipper
from exactdp.projections.signs import check_beta
from exactdp.randomness import RandomSource, default_source

__all__ = ["IDPSignRPRR", "dyadic_root_base", "frozen_active", "noise_indicators", "release_rr"]


def noise_indicators(x: Sequence[int], W: IntMatrix, beta: int) -> frozenset[int]:
    """Algorithm 10 for any integer ``W`` (§5 P8): ``A = {j : |x_j| <= beta max_i |W_ij|}``,
    the projections whose sign some neighbour can change or zero (``<=``: a neighbour can
    reach 0, §5 P4)."""
    b = check_beta(beta)
    units = column_max_abs(W)
    if len(x) != len(units):
        raise ParameterError(f"x has {len(x)} projections; W has k = {len(units)} columns")
    return frozenset(j for j, (xj, m) in enumerate(zip(x, units)) if abs(xj) <= b * m)


def dyadic_root_base(total: Base, n: int, bits: int = 32) -> Base:
    """The largest ``rho_n = m/2^B`` (``B = bits``) with ``rho_n^n <= a/b`` (integer binary
    search on ``m``: ``m^n b <= a 2^(B n)``), so that ``n`` bits spend at most ``a/b``."""
    if not isinstance(total, Base):
        raise ParameterTypeError(f"total = {total!r:.60} must be a Base(a, b)")
    n, bits = positive_int(n, "n"), positive_int(bits, "bits")
    lo, hi = 1 << bits, total.a * (1 << bits) // total.b + 1  # rho_n in [1, a/b]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid**n * total.b <= total.a * (1 << (bits * n)):
            lo = mid
        else:
            hi = mid
    if lo == 1 << bits:
        raise ParameterError(f"(a/b)^(1/{n}) with a/b = {total.a}/{total.b} rounds down to 1 "
                             f"at {bits} bits; raise bits")
    return Base.of(Fraction(lo, 1 << bits))


def frozen_active(W: IntMatrix, active: Iterable[int], name: str, noise: object
                  ) -> frozenset[int]:
    """``active`` as a frozen set of projection indices of ``W`` (checked), the noise
    parameter ``name`` (value ``noise``) being None exactly when the set is empty."""
    out = frozenset(active)
    k = len(W[0])
    if not all(isinstance(j, int) and 0 <= j < k for j in out):
        raise ParameterError(f"active must be a set of projection indices in 0..{k - 1}")
    if (noise is None) != (not out):
        raise ParameterError(f"{name} must be None exactly when active is empty")
    return out


def release_rr(x: Sequence[int], active: frozenset[int], flipper: SmoothFlipper | None,
               source: RandomSource) -> tuple[int, ...]:
    """Algorithm 11's release with frozen parameters: randomized response (``flipper``, a
    coin for 0) on the projections in ``active``, ``sign(x_j)`` (``+1`` for 0) elsewhere."""
    out = []
    for j, xj in enumerate(x):
        if flipper is not None and j in active:
            out.append(flipper.sample(xj, 1, source))
        else:
            out.append(-1 if xj < 0 else 1)
    return tuple(out)


class FrozenRR:
    """What the frozen randomized-response releases (Algorithm 11 on SRP or on OPORP) share:
    the frozen set ``active`` and its per-bit ``base``."""

    active: frozenset[int]
    base: Base | None

    @property
    def privacy_ratio(self) -> Fraction:
        """``rho_|A|^|A|`` (1 when ``A`` is empty), at most ``total``."""
        return self.base.ratio ** len(self.active) if self.base else Fraction(1)

    @cached_property
    def _flipper(self) -> SmoothFlipper | None:
        return SmoothFlipper(self.base, 1) if self.base else None


@dataclass(frozen=True)
class IDPSignRPRR(FrozenRR):
    """iDP-SignRP-RR (Algorithm 11) with parameters frozen at a reference vector.

    ``active`` is the set ``A`` computed at the reference (Alg 10); ``base`` is
    ``rho_|A| <= (a/b)^(1/|A|)`` (``None`` when ``A`` is empty).  :meth:`sample` releases
    ``sign(x_j)`` (``+1`` for ``x_j = 0``) for ``j`` outside ``A`` and randomized response with
    ``base`` (coin for 0) inside ``A``: exactly ``|A|`` draws of ``uniform(lcm(2, a+b))``
    whatever the input.  Ratio at most ``rho_|A|^|A| <= a/b`` between the reference and each
    of its neighbours (Thm 6.2 with the parameters frozen).
    """

    W: IntMatrix
    beta: int
    active: frozenset[int]
    base: Base | None
    total: Base

    def __post_init__(self) -> None:
        object.__setattr__(self, "W", int_matrix(self.W))
        check_beta(self.beta)
        object.__setattr__(self, "active", frozen_active(self.W, self.active, "base",
                                                         self.base))

    @classmethod
    def calibrate(cls, u_ref: Sequence[int], W: IntMatrix, beta: int, total: Base,
                  bits: int = 32) -> IDPSignRPRR:
        """Compute ``A`` and ``rho_|A|`` at ``u_ref`` (Alg 10/11, steps 1-2) and freeze them."""
        mat = int_matrix(W)
        active = noise_indicators(project(u_ref, mat), mat, beta)
        base = dyadic_root_base(total, len(active), bits) if active else None
        return cls(mat, beta, active, base, total)

    def sample(self, u: Sequence[int], source: RandomSource | None = None) -> tuple[int, ...]:
        return release_rr(project(u, self.W), self.active, self._flipper,
                          default_source(source))

    __call__ = sample
