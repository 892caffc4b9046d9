"""iDP-SignOPORP-RR (Li & Li, paper 001, Section 6: Algorithm 11 with the OPORP of ``u`` in
place of ``W^T u``), calibrated at a reference vector and then frozen, as
:class:`exactdp.projections.idp.IDPSignRPRR` is.

A one-coordinate change by at most ``beta`` moves one bin of OPORP by at most ``beta``, so
Algorithm 10's set is ``A = {j : |x_j| <= beta}`` (the OPORP matrix has one ±1 per row), and
the release spends ``rho_|A|^|A| <= a/b`` between the reference and each neighbour
(Theorem 6.2's argument with the parameters frozen).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from exactdp.params import ParameterTypeError
from exactdp.projections.idp import FrozenRR, IDPSignRPRR, release_rr
from exactdp.projections.idp_gauss import oporp_matrix
from exactdp.projections.matrices import OPORPPlan
from exactdp.projections.project import oporp
from exactdp.projections.rr import Base
from exactdp.randomness import RandomSource, default_source

__all__ = ["IDPSignOPORPRR"]


@dataclass(frozen=True)
class IDPSignOPORPRR(FrozenRR):
    """iDP-SignOPORP-RR frozen at a reference vector: ``active`` is ``A`` computed there,
    ``base`` is ``rho_|A| <= (a/b)^(1/|A|)`` (``None`` when ``A`` is empty).  :meth:`sample`
    releases ``sign(x_j)`` (``+1`` for 0) outside ``A`` and randomized response with ``base``
    (a coin for 0) inside, ``x`` the OPORP of the input: exactly ``|A|`` draws whatever the
    input."""

    plan: OPORPPlan
    beta: int
    active: frozenset[int]
    base: Base | None
    total: Base

    def __post_init__(self) -> None:
        if not isinstance(self.plan, OPORPPlan):
            raise ParameterTypeError(f"plan = {self.plan!r:.60} must be an OPORPPlan")
        inner = IDPSignRPRR(oporp_matrix(self.plan, len(self.plan.perm)), self.beta,
                            self.active, self.base, self.total)  # the same validation
        object.__setattr__(self, "active", inner.active)

    @classmethod
    def calibrate(cls, u_ref: Sequence[int], plan: OPORPPlan, beta: int, total: Base,
                  bits: int = 32) -> IDPSignOPORPRR:
        """Compute ``A`` and ``rho_|A|`` at ``u_ref`` (Algorithms 10 and 11 on the OPORP of
        ``u_ref``) and freeze them."""
        if not isinstance(plan, OPORPPlan):
            raise ParameterTypeError(f"plan = {plan!r:.60} must be an OPORPPlan")
        inner = IDPSignRPRR.calibrate(u_ref, oporp_matrix(plan, len(plan.perm)), beta, total,
                                      bits)
        return cls(plan, beta, inner.active, inner.base, total)

    def sample(self, u: Sequence[int], source: RandomSource | None = None) -> tuple[int, ...]:
        return release_rr(oporp(u, self.plan), self.active, self._flipper,
                          default_source(source))

    __call__ = sample
