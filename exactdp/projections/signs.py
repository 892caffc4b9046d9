"""Private sign random projections (Li & Li, paper 001, Algorithms 6, 7 and 8).

Exact variants: integer data, integer ``W`` (or an OPORP plan),
unscaled integer projections, randomized response with a rational base ``rho = a/b``
(:mod:`exactdp.projections.rr`), a fair coin for a zero projection.  Every mechanism is a
frozen dataclass with public validated parameters; :meth:`sample` (also ``__call__``) makes
exactly one ``uniform(D)`` per output bit, in bit order, ``D`` fixed by the parameters.

Privacy (neighbours: one coordinate changes by at most ``beta``, Def. 2.3):

* :class:`DPSignRPRR` (Alg 6 with ``N+ = k``, Remark 4.1): ratio ``rho^k`` for a FIXED ``W``.
  ``n_plus < k`` is the paper's (eps, delta) claim, which holds only on average over a released
  Gaussian ``W`` (§5 P1): :attr:`claimed_ratio` records it for the checker to refute.
* :class:`DPSignRPSmooth` (Alg 7, unscaled ``L_j = ceil(|x_j|/(beta max_i |W_ij|))``, §5 P7):
  ratio at most ``rho^k``.
* :class:`DPSignOPORP` (Alg 8, RR and smooth): ratio at most ``rho`` (one bin moves); NOT
  under l1 neighbours (§5 P6).  :class:`DPSignOPORPRepeated`: ``t`` plans, ratio ``rho^t``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from math import prod

from exactdp.params import DomainError, ParameterError, ParameterTypeError, positive_int
from exactdp.projections.matrices import IntMatrix, OPORPPlan, column_max_abs, int_matrix
from exactdp.projections.project import oporp, project
from exactdp.projections.rr import Base, SmoothFlipper
from exactdp.randomness import RandomSource, default_source

__all__ = ["DPSignOPORP", "DPSignOPORPRepeated", "DPSignRPRR", "DPSignRPSmooth", "check_beta"]


def check_beta(beta: object) -> int:
    """``beta``: the neighbours' largest change of one coordinate, in grid steps (int >= 1)."""
    if isinstance(beta, bool) or not isinstance(beta, int):
        raise ParameterTypeError(f"beta = {beta!r:.60} must be an int >= 1 (grid steps)")
    if beta < 1:
        raise DomainError(f"beta = {beta} must be >= 1 (grid steps)")
    return beta


def _base(base: object) -> Base:
    if not isinstance(base, Base):
        raise ParameterTypeError(f"base = {base!r:.60} must be a Base(a, b) (rho = a/b; see "
                                 f"base_from_eps)")
    return base


def _release(flipper: SmoothFlipper, x: Sequence[int], units: Sequence[int],
             source: RandomSource) -> tuple[int, ...]:
    sample = flipper.sample
    return tuple([sample(xj, unit, source) for xj, unit in zip(x, units)])


@dataclass(frozen=True)
class DPSignRPRR:
    """DP-SignRP-RR (Algorithm 6): ``s~_j = sign(x_j)`` kept w.p. ``rho/(rho+1)``, flipped
    w.p. ``1/(rho+1)``, coin if ``x_j = 0``; ``x = W^T u``.  Pure ``rho^k`` for a fixed
    ``W`` (``N+ = k``).  One ``uniform(D)``, ``D = lcm(2, a + b)``, per bit."""

    W: IntMatrix
    base: Base
    n_plus: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "W", int_matrix(self.W))
        _base(self.base)
        if self.n_plus is not None:
            n = positive_int(self.n_plus, "n_plus")
            if n > self.k:
                raise ParameterError(f"n_plus = {n} must be <= k = {self.k}")
            object.__setattr__(self, "n_plus", n)

    @property
    def k(self) -> int:
        return len(self.W[0])

    @cached_property
    def flipper(self) -> SmoothFlipper:
        return SmoothFlipper(self.base, 1)

    @property
    def privacy_ratio(self) -> Fraction:
        """``rho^k``: the proven pure ratio for any fixed ``W``."""
        return self.base.ratio**self.k

    @property
    def claimed_ratio(self) -> Fraction:
        """``rho^(N+)``: the paper's claim (Thm 4.1), valid only over a random released W."""
        return self.base.ratio ** (self.n_plus or self.k)

    def sample(self, u: Sequence[int], source: RandomSource | None = None) -> tuple[int, ...]:
        return _release(self.flipper, project(u, self.W), (1,) * self.k, default_source(source))

    __call__ = sample


@dataclass(frozen=True)
class DPSignRPSmooth:
    """DP-SignRP-RR-smooth (Algorithm 7), unscaled: ``L_j = min(ceil(|x_j|/unit_j), L_max)``
    with ``unit_j = beta * max_i |W_ij|`` (the proof's version, §5 P7); keep w.p.
    ``a^L/(a^L+b^L)``.  Pure ratio at most ``rho^k`` (Thm 4.7).  One ``uniform(D)`` per bit."""

    W: IntMatrix
    beta: int
    base: Base
    l_max: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "W", int_matrix(self.W))
        check_beta(self.beta)
        SmoothFlipper(_base(self.base), self.l_max)

    @property
    def k(self) -> int:
        return len(self.W[0])

    @property
    def units(self) -> tuple[int, ...]:
        return tuple(self.beta * m for m in column_max_abs(self.W))

    @cached_property
    def flipper(self) -> SmoothFlipper:
        return SmoothFlipper(self.base, self.l_max)

    @property
    def privacy_ratio(self) -> Fraction:
        return self.base.ratio**self.k

    def sample(self, u: Sequence[int], source: RandomSource | None = None) -> tuple[int, ...]:
        return _release(self.flipper, project(u, self.W), self.units, default_source(source))

    __call__ = sample


@dataclass(frozen=True)
class DPSignOPORP:
    """DP-SignOPORP-RR (``smooth=False``) and DP-SignOPORP-RR-smooth (Algorithm 8).

    ``x = OPORP(u)``; smooth: ``L_j = min(ceil(|x_j|/beta), L_max)``, RR: ``L_j = 1`` for
    ``x_j != 0``; ``L_j = 0`` (a fair coin) for ``x_j = 0`` (the paper's "s~_j = 0" read as a
    coin, §5 P4).  Keep w.p. ``a^L/(a^L+b^L)``.  Pure ratio at most ``rho`` under
    one-coordinate neighbours (Thm 4.8); not under l1 neighbours (§5 P6).

    :meth:`sample` is the pure path; :meth:`sample_batch` releases many vectors at once
    (the native kernel when built, else the same computation in Python), with the same
    law and, for any source but :class:`~exactdp.randomness.SystemSource`, the same draws
    in the same order (hence the same outputs) as repeated :meth:`sample`.
    """

    plan: OPORPPlan
    beta: int
    base: Base
    l_max: int = 1
    smooth: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.plan, OPORPPlan):
            raise ParameterTypeError(f"plan = {self.plan!r:.60} must be an OPORPPlan")
        check_beta(self.beta)
        if not isinstance(self.smooth, bool):
            raise ParameterTypeError(f"smooth = {self.smooth!r:.60} must be a bool")
        if not self.smooth and self.l_max != 1:
            raise ParameterError(f"L_max = {self.l_max!r:.40}: the RR variant (smooth=False) "
                                 f"has levels 0 and 1 only; pass L_max = 1")
        # the validating flipper is the one :attr:`flipper` would build: keep it
        object.__setattr__(self, "flipper", SmoothFlipper(_base(self.base), self.l_max))

    @property
    def k(self) -> int:
        return self.plan.k

    @cached_property
    def flipper(self) -> SmoothFlipper:
        return SmoothFlipper(self.base, self.l_max)

    @property
    def privacy_ratio(self) -> Fraction:
        return self.base.ratio

    def sample(self, u: Sequence[int], source: RandomSource | None = None) -> tuple[int, ...]:
        return _release(self.flipper, oporp(u, self.plan), (self.beta,) * self.k,
                        default_source(source))

    __call__ = sample

    def sample_batch(self, data: object, source: RandomSource | None = None) -> memoryview:
        """Release ``n`` vectors given as one C-contiguous buffer of ``n * p`` integers of
        format ``b``, ``h`` or ``i`` (e.g. an ``array.array`` or a numpy int8/int16/int32
        array of shape ``(n, p)``): a ``memoryview`` of format ``b`` and shape ``(n, k)``
        with entries ``±1``.  See :mod:`exactdp.projections.fast`."""
        from exactdp.projections.fast import oporp_signs_batch

        return oporp_signs_batch(self, data, default_source(source))


@dataclass(frozen=True)
class DPSignOPORPRepeated:
    """Algorithm 8 repeated (end of §4.4): ``t`` independent plans of ``k/t`` bins each, the
    same base per run; outputs concatenated.  Basic composition: ratio ``rho^t``."""

    runs: tuple[DPSignOPORP, ...]

    def __post_init__(self) -> None:
        runs = tuple(self.runs)
        if not runs or not all(isinstance(r, DPSignOPORP) for r in runs):
            raise ParameterTypeError("runs must be a non-empty sequence of DPSignOPORP")
        if len({r.plan.p for r in runs}) != 1:
            raise ParameterError("every run must project the same dimension p")
        object.__setattr__(self, "runs", runs)

    @classmethod
    def sample_plans(cls, p: int, k: int, t: int, beta: int, base: Base, l_max: int = 1,
                     smooth: bool = True, source: RandomSource | None = None
                     ) -> DPSignOPORPRepeated:
        """``t`` plans of ``k/t`` bins (``t | k``) drawn one after the other."""
        t = positive_int(t, "t")
        if positive_int(k, "k") % t:
            raise ParameterError(f"t = {t} must divide k = {k}")
        src = default_source(source)
        return cls(tuple(DPSignOPORP(OPORPPlan.sample(p, k // t, src), beta, base, l_max,
                                     smooth) for _ in range(t)))

    @property
    def privacy_ratio(self) -> Fraction:
        return Fraction(prod(r.privacy_ratio for r in self.runs))

    def sample(self, u: Sequence[int], source: RandomSource | None = None) -> tuple[int, ...]:
        src = default_source(source)
        return tuple(bit for run in self.runs for bit in run.sample(u, src))

    __call__ = sample

    def sample_batch(self, data: object, source: RandomSource | None = None) -> memoryview:
        """Every row of ``data`` (as :meth:`DPSignOPORP.sample_batch`): run ``r``'s bits for
        all rows, then run ``r + 1``'s, concatenated per row into shape ``(n, k)``.  The same
        law as :meth:`sample` row by row (independent bits); the draws are made run by run,
        so a seeded source gives other bits than :meth:`sample` would."""
        src = default_source(source)
        parts = [run.sample_batch(data, src) for run in self.runs]
        n = parts[0].shape[0] if parts[0].shape else 0
        out = bytearray()
        rows = [part.tobytes() for part in parts]
        widths = [run.k for run in self.runs]
        for r in range(n):
            for raw, w in zip(rows, widths):
                out += raw[r * w:(r + 1) * w]
        return memoryview(bytes(out)).cast("b", (n, sum(widths)))

