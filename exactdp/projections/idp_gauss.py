"""iDP-SignRP-G and iDP-SignOPORP-G: Gaussian noise only on the fragile projections,
calibrated at a reference vector and then FROZEN (Li & Li, paper 001, Algorithm 9 with the
noise indicator of Algorithm 10; Theorem 6.1; Section 6's iDP-SignOPORP variant).

Algorithm 9: ``x = W^T u``; ``A = {j : |x_j| <= beta max_i |W_ij|}`` (Algorithm 10, any
integer ``W``); Gaussian noise calibrated to the l2 sensitivity of ``x_A`` (step 3, eq. 13
restricted to ``A``: ``Delta_2^2 = beta^2 max_i sum_{j in A} W_ij^2``, which is ``beta^2 |A|``
for ±1 rows); release ``sign(x_j)`` outside ``A`` and ``sign(x_j + G_j)`` inside it.  Theorem
6.1: ``(eps, delta)``-iDP at ``u`` when ``x_A + G`` is ``(eps, delta)``-DP at that sensitivity.

Exact stand-in: the noise is an exact discrete law (a discrete Gaussian table or the
strict-time :class:`~exactdp.discrete_gaussian.DiscreteGaussian`) chosen by a public
function of ``Delta_2^2`` (``noise_for``); the sign of ``x_j + G_j`` maps 0 to ``+1``
(a deterministic function of ``x_A + G``: post-processing).  As in
:mod:`exactdp.projections.idp`, the proof applies the reference's ``A`` and noise to every
neighbour, so the parameters are computed once by :meth:`IDPSignRPG.calibrate` and frozen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from exactdp.discrete_gaussian import DiscreteGaussian
from exactdp.noise_tables import NoiseTable
from exactdp.params import ParameterError, ParameterTypeError
from exactdp.projections.idp import frozen_active, noise_indicators
from exactdp.projections.matrices import IntMatrix, OPORPPlan, int_matrix
from exactdp.projections.project import oporp, project
from exactdp.projections.signs import check_beta
from exactdp.randomness import RandomSource, default_source

__all__ = ["IDPSignOPORPG", "IDPSignRPG", "active_l2_sensitivity_sq", "oporp_matrix"]

SignNoise = NoiseTable | DiscreteGaussian


def _sign_noise(noise: object) -> SignNoise:
    if not isinstance(noise, (NoiseTable, DiscreteGaussian)):
        raise ParameterTypeError(f"noise = {noise!r:.60} must be a NoiseTable or a "
                                 f"DiscreteGaussian")
    if isinstance(noise, NoiseTable) and noise.modulus:
        raise ParameterError(f"noise is folded mod {noise.modulus}: the sign of a residue "
                             f"is meaningless; use an unfolded table")
    return noise


def active_l2_sensitivity_sq(W: IntMatrix, beta: int, active: frozenset[int]) -> int:
    """``Delta_2^2`` of ``x_A`` (Algorithm 9 step 3 without ``1/sqrt(k)``):
    ``beta^2 max_i sum_{j in A} W_ij^2``; ``beta^2 |A|`` for ±1 rows, 0 when ``A`` is empty."""
    b = check_beta(beta)
    return b * b * max(sum(row[j] * row[j] for j in active) for row in int_matrix(W))


def oporp_matrix(plan: OPORPPlan, p: int) -> IntMatrix:
    """The ``p x k`` integer matrix of OPORP (Algorithm 4): ``x = M^T u`` with
    ``M[perm[i]][bin(i)] = w[i]``, so OPORP is the projection by ``M``."""
    if not isinstance(plan, OPORPPlan):
        raise ParameterTypeError(f"plan = {plan!r:.60} must be an OPORPPlan")
    if len(plan.perm) != p:
        raise ParameterError(f"the plan permutes {len(plan.perm)} coordinates, not p = {p}")
    size = p // plan.k
    rows = [[0] * plan.k for _ in range(p)]
    for i, src in enumerate(plan.perm):
        rows[src][i // size] = plan.w[i]
    return int_matrix(rows)


def _release(x: Sequence[int], active: frozenset[int], noise: SignNoise | None,
             source: RandomSource) -> tuple[int, ...]:
    out = []
    for j, xj in enumerate(x):
        v = noise.add(xj, source) if noise is not None and j in active else xj
        out.append(-1 if v < 0 else 1)
    return tuple(out)


@dataclass(frozen=True)
class IDPSignRPG:
    """iDP-SignRP-G (Algorithm 9) with parameters frozen at a reference vector.

    ``active`` is the set ``A`` of Algorithm 10 at the reference and ``noise`` the noise
    chosen for ``Delta_2^2 = active_l2_sensitivity_sq(W, beta, A)`` (``None`` when ``A`` is
    empty: the release is the deterministic SignRP).  :meth:`sample` makes exactly ``|A|``
    noise draws whatever the input.
    """

    W: IntMatrix
    beta: int
    active: frozenset[int]
    noise: SignNoise | None

    def __post_init__(self) -> None:
        object.__setattr__(self, "W", int_matrix(self.W))
        check_beta(self.beta)
        active = frozen_active(self.W, self.active, "noise", self.noise)
        if self.noise is not None:
            _sign_noise(self.noise)
        object.__setattr__(self, "active", active)

    @classmethod
    def calibrate(cls, u_ref: Sequence[int], W: IntMatrix, beta: int,
                  noise_for: Callable[[int], SignNoise]) -> IDPSignRPG:
        """Algorithm 9 steps 1-4 at ``u_ref``: ``A`` (Algorithm 10), ``Delta_2^2`` of ``x_A``
        and ``noise_for(Delta_2^2)``; frozen for every later input."""
        mat = int_matrix(W)
        active = noise_indicators(project(u_ref, mat), mat, beta)
        noise = _sign_noise(noise_for(active_l2_sensitivity_sq(mat, beta, active))) \
            if active else None
        return cls(mat, beta, active, noise)

    @property
    def sensitivity_sq(self) -> int:
        """``Delta_2^2`` of ``x_A`` (0 when ``A`` is empty)."""
        return active_l2_sensitivity_sq(self.W, self.beta, self.active) if self.active else 0

    def sample(self, u: Sequence[int], source: RandomSource | None = None) -> tuple[int, ...]:
        return _release(project(u, self.W), self.active, self.noise, default_source(source))

    __call__ = sample


@dataclass(frozen=True)
class IDPSignOPORPG:
    """iDP-SignOPORP-G (Section 6: Algorithm 9 with OPORP in place of the dense
    projection), frozen at a reference vector.  A bin's projection moves by at most
    ``beta`` (one coordinate, one bin), so ``A = {j : |x_j| <= beta}`` and ``Delta_2^2 =
    beta^2`` whatever ``|A|``: the OPORP matrix has one non-zero (±1) per row."""

    plan: OPORPPlan
    beta: int
    active: frozenset[int]
    noise: SignNoise | None

    def __post_init__(self) -> None:
        if not isinstance(self.plan, OPORPPlan):
            raise ParameterTypeError(f"plan = {self.plan!r:.60} must be an OPORPPlan")
        IDPSignRPG(oporp_matrix(self.plan, len(self.plan.perm)), self.beta, self.active,
                   self.noise)  # the same validation
        object.__setattr__(self, "active", frozenset(self.active))

    @classmethod
    def calibrate(cls, u_ref: Sequence[int], plan: OPORPPlan, beta: int,
                  noise_for: Callable[[int], SignNoise]) -> IDPSignOPORPG:
        inner = IDPSignRPG.calibrate(u_ref, oporp_matrix(plan, len(plan.perm)), beta,
                                     noise_for)
        return cls(plan, beta, inner.active, inner.noise)

    @property
    def sensitivity_sq(self) -> int:
        mat = oporp_matrix(self.plan, len(self.plan.perm))
        return active_l2_sensitivity_sq(mat, self.beta, self.active) if self.active else 0

    def sample(self, u: Sequence[int], source: RandomSource | None = None) -> tuple[int, ...]:
        return _release(oporp(u, self.plan), self.active, self.noise, default_source(source))

    __call__ = sample
