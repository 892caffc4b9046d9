"""Private random projections with exact discrete noise (Li & Li, paper 001, Algorithms 2, 3,
5 and the raw-data baseline of Thm 3.8).

Integer projections plus integer noise, one noise draw per released coordinate:

* a folded discrete Laplace (:func:`exactdp.noise_tables.discrete_laplace_folded`) or a clamped
  one (:class:`exactdp.noise.ClampedGeometric`): pure DP, ratio ``r^(-Delta_1)``;
* a discrete Gaussian table (:func:`exactdp.noise_tables.discrete_gaussian_table`), the exact
  stand-in for the paper's "G-OPT" calibration: ``(eps, delta)`` with the table's exact delta
  certified by the checker (one coordinate moves for OPORP and raw data, so
  :func:`exactdp.noise_tables.delta_1d` at shift ``beta`` is the whole story there);
* the strict-time discrete Gaussian at any practical scale
  (:class:`exactdp.discrete_gaussian.DiscreteGaussian`), the paper's Gaussian mechanism
  (Algorithms 3 and 5) with an exactly known law: ``(eps, delta)`` at shift ``beta`` from its
  law (one coordinate moves for OPORP and raw data; for DP-RP with ±1 ``W`` the ``k``
  coordinates move by ``±beta`` each: the ``k``-fold composition of that loss).

Neighbours: one coordinate moves by at most ``beta``.  Sensitivities (exact, no ``1/sqrt(k)``):
:class:`DPRP` ``Delta_1 = beta max_i ||W_i||_1``, ``Delta_2^2 = beta^2 max_i ||W_i||_2^2``;
:class:`DPOPORP` and :class:`RawData`: one released coordinate moves by at most ``beta``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from exactdp.discrete_gaussian import DiscreteGaussian
from exactdp.noise import ClampedGeometric
from exactdp.noise_tables import NoiseTable
from exactdp.params import ParameterTypeError, positive_int
from exactdp.projections.matrices import (
    IntMatrix,
    OPORPPlan,
    int_matrix,
    l1_sensitivity,
    l2_sensitivity_sq,
)
from exactdp.projections.project import int_vector, oporp, project
from exactdp.projections.signs import check_beta
from exactdp.randomness import RandomSource, default_source

__all__ = ["DPOPORP", "DPRP", "RawData", "add_noise"]

Noise = NoiseTable | ClampedGeometric | DiscreteGaussian


def _noise(noise: object) -> Noise:
    if not isinstance(noise, (NoiseTable, ClampedGeometric, DiscreteGaussian)):
        raise ParameterTypeError(f"noise = {noise!r:.60} must be a NoiseTable, a "
                                 f"ClampedGeometric or a DiscreteGaussian")
    return noise


def add_noise(x: Sequence[int], noise: Noise, source: RandomSource) -> tuple[int, ...]:
    """``x_j + Z_j`` for independent ``Z_j`` (one draw each, in order): a table adds (mod M
    when folded), and so does a DiscreteGaussian; a ClampedGeometric releases
    ``clamp(x_j + eta)`` (``x_j`` must lie in its public centre range)."""
    if isinstance(noise, (NoiseTable, DiscreteGaussian)):
        return tuple(noise.add(xj, source) for xj in x)
    return tuple(noise.sample_value(xj, source) for xj in x)


@dataclass(frozen=True)
class DPRP:
    """DP-RP with integer ``W`` (Algorithm 3 with ±1 ``W``; Algorithm 2 with a Laplace):
    ``W^T u + Z``."""

    W: IntMatrix
    beta: int
    noise: Noise

    def __post_init__(self) -> None:
        object.__setattr__(self, "W", int_matrix(self.W))
        check_beta(self.beta)
        _noise(self.noise)

    @property
    def l1_sensitivity(self) -> int:
        return l1_sensitivity(self.W, self.beta)

    @property
    def l2_sensitivity_sq(self) -> int:
        return l2_sensitivity_sq(self.W, self.beta)

    def sample(self, u: Sequence[int], source: RandomSource | None = None) -> tuple[int, ...]:
        return add_noise(project(u, self.W), self.noise, default_source(source))

    __call__ = sample


@dataclass(frozen=True)
class DPOPORP:
    """DP-OPORP (Algorithm 5): ``OPORP(u) + Z``; one bin moves by at most ``beta``."""

    plan: OPORPPlan
    beta: int
    noise: Noise

    def __post_init__(self) -> None:
        if not isinstance(self.plan, OPORPPlan):
            raise ParameterTypeError(f"plan = {self.plan!r:.60} must be an OPORPPlan")
        check_beta(self.beta)
        _noise(self.noise)

    def sample(self, u: Sequence[int], source: RandomSource | None = None) -> tuple[int, ...]:
        return add_noise(oporp(u, self.plan), self.noise, default_source(source))

    __call__ = sample


@dataclass(frozen=True)
class RawData:
    """The raw-data baseline (Thm 3.8): ``u + Z`` coordinate-wise (dense output)."""

    p: int
    beta: int
    noise: Noise

    def __post_init__(self) -> None:
        positive_int(self.p, "p")
        check_beta(self.beta)
        _noise(self.noise)

    def sample(self, u: Sequence[int], source: RandomSource | None = None) -> tuple[int, ...]:
        return add_noise(int_vector(u, self.p), self.noise, default_source(source))

    __call__ = sample
