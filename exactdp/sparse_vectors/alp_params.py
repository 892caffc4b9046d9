"""The public parameters of ALP-projection, exact.

Aumüller, Lebeda & Pagh, "Differentially Private Sparse Vectors with Low Error, Optimal Space,
and Fast Access": ALP-short = paper 003 (short version), ALP-full = paper 000 (full-version
fragment).
ALP-projection (ALP-short Algorithm 1 = ALP-full Algorithm 4; ALP-full Algorithm 2 is the case
``eps = 1``)
rounds ``y_i = RandRound(x_i * c)``, writes the unary code of ``min(y_i, m)`` into an ``s x m``
bit matrix through ``m`` hash functions, and flips every cell with probability ``p``.

Everything here is an exact rational (floats are refused by :func:`exactdp.params.to_fraction`):

* ``scale`` = ``c`` (the paper's ``eps/alpha``), ``flip`` = ``p`` (the paper's
  ``1/(alpha+2)``), ``columns`` = ``m`` (the paper's ``ceil(beta*eps/alpha)``), ``rows`` = ``s``,
  ``sparsity`` = ``k``, ``universe`` = ``d`` (keys ``1..d``), ``grid`` = ``g`` (inputs
  ``x = X/g`` with ``X`` a non-negative int), ``variant``.
* :attr:`ALPParams.epsilon_cert` = ``c (1 - 2p) / p``: for every fixed hash seed and all
  ``x, x'`` in the grid, ``Pr[M(x) in S] <= e^{eps_cert ||x - x'||_1} Pr[M(x') in S]``
  (ALP-full Lemma 4.1 scaled as in Lemma 4.12).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.certified import exp_interval
from exactdp.hashing import CarterWegman, default_prime
from exactdp.params import ParameterError, ResourceLimitError, positive_int, to_fraction

__all__ = ["MAX_CELLS", "VARIANTS", "ALPParams", "tight_bound"]

VARIANTS = ("paper", "unscaled", "histogram-tight")
#: The largest matrix ``s * m`` accepted (one byte per cell is built while projecting).
MAX_CELLS = 1 << 31


def _positive(value: object, name: str) -> Fraction:
    q = to_fraction(value, name)
    if q <= 0:
        raise ParameterError(f"{name} = {q} must be positive")
    return q


def _ceil(q: Fraction) -> int:
    return -((-q.numerator) // q.denominator)


def tight_bound(epsilon: object, bits: int = 32) -> Fraction:
    """A rational ``L <= e^epsilon`` (the lower end of :func:`exactdp.certified.exp_interval`
    at ``bits`` bits: certified, rounded down) for :meth:`ALPParams.histogram_tight`."""
    eps = _positive(epsilon, "epsilon")
    return exp_interval(eps, positive_int(bits, "bits")).lo


@dataclass(frozen=True)
class ALPParams:
    """Exact public parameters of ALP-projection (ALP-short Alg. 1 = ALP-full Alg. 4).

    Preconditions (typed :mod:`exactdp.params` errors otherwise): ``scale > 0`` and
    ``0 < flip <= 1/2`` exact rationals (int, Fraction, or a string such as ``'1/5'``; floats
    refused); ``columns, rows, sparsity, universe, grid`` positive ints; ``rows * columns <=
    MAX_CELLS``; ``variant`` one of :data:`VARIANTS`; the ``histogram-tight`` variant needs
    ``grid = 1`` (integer inputs only: on grid-1/2 inputs its ratio exceeds
    ``e^eps``) and ``scale = 1/n``.
    """

    scale: Fraction
    flip: Fraction
    columns: int
    rows: int
    sparsity: int
    universe: int
    grid: int = 1
    variant: str = "paper"

    def __post_init__(self) -> None:
        c = _positive(self.scale, "scale")
        p = to_fraction(self.flip, "flip")
        if not 0 < p <= Fraction(1, 2):
            raise ParameterError(f"flip = {p} must lie in (0, 1/2] (randomized response "
                                 f"probability p; p = 0 is not private)")
        ints = {name: positive_int(getattr(self, name), name)
                for name in ("columns", "rows", "sparsity", "universe", "grid")}
        if self.variant not in VARIANTS:
            raise ParameterError(f"variant = {self.variant!r:.40} must be one of {VARIANTS}")
        if ints["rows"] * ints["columns"] > MAX_CELLS:
            raise ResourceLimitError(f"rows * columns = {ints['rows'] * ints['columns']} "
                                     f"exceeds {MAX_CELLS} cells")
        if self.variant == "histogram-tight":
            if ints["grid"] != 1:
                raise ParameterError(f"grid = {ints['grid']}: the histogram-tight variant is "
                                     f"private only on integer inputs (grid must be 1)")
            if c.numerator != 1:
                raise ParameterError(f"scale = {c}: the histogram-tight variant needs "
                                     f"scale = 1/n for a positive integer n")
        object.__setattr__(self, "scale", c)
        object.__setattr__(self, "flip", p)
        for name, v in ints.items():
            object.__setattr__(self, name, v)

    @classmethod
    def from_paper(cls, epsilon: object, alpha: object, beta: object, rows: object,
                   sparsity: object, universe: object, grid: object = 1) -> ALPParams:
        """ALP-full Algorithm 4 / ALP-short Algorithm 1: ``c = eps/alpha``, ``p = 1/(alpha + 2)``,
        ``m = ceil(beta * eps / alpha)`` (so ``epsilon_cert = eps`` exactly)."""
        eps = _positive(epsilon, "epsilon")
        a = _positive(alpha, "alpha")
        b = _positive(beta, "beta")
        return cls(eps / a, 1 / (a + 2), _ceil(b * eps / a), rows, sparsity, universe,  # type: ignore[arg-type]
                   grid, "paper")  # type: ignore[arg-type]

    @classmethod
    def unscaled(cls, epsilon: object, beta: object, rows: object, sparsity: object,
                 universe: object, grid: object = 1) -> ALPParams:
        """ALP-full §4.3 remark: no scaling, ``c = 1``, ``p = 1/(eps + 2)``, ``m = ceil(beta)``
        (``epsilon_cert = eps``; expected error ``O(1/eps^2)``)."""
        eps = _positive(epsilon, "epsilon")
        b = _positive(beta, "beta")
        return cls(Fraction(1), 1 / (eps + 2), _ceil(b), rows, sparsity, universe,  # type: ignore[arg-type]
                   grid, "unscaled")  # type: ignore[arg-type]

    @classmethod
    def histogram_tight(cls, bound: object, n: object, beta: object, rows: object,
                        sparsity: object, universe: object) -> ALPParams:
        """The histogram-tight variant (not in the paper): integer inputs, ``c = 1/n``,
        ``p_T = c / (L - 1 + 2c)`` with ``L = bound > 1`` (a rational ``<= e^eps``, e.g.
        :func:`tight_bound`), ``m = ceil(beta * c)``, grid 1.  Then ``(1 - 2p_T)/p_T * c =
        L - 1``, so a ``+-1`` change of one integer entry moves one aligned piece of length
        ``c`` and the exact worst ratio is ``1 + (L - 1) = L``."""
        L = to_fraction(bound, "bound")
        if L <= 1:
            raise ParameterError(f"bound = {L} must exceed 1 (the target worst ratio L <= "
                                 f"e^eps)")
        c = Fraction(1, positive_int(n, "n"))
        b = _positive(beta, "beta")
        return cls(c, c / (L - 1 + 2 * c), _ceil(b * c), rows, sparsity, universe,  # type: ignore[arg-type]
                   1, "histogram-tight")  # type: ignore[arg-type]

    @property
    def epsilon_cert(self) -> Fraction:
        """``c (1 - 2p) / p``: the certified ratio bound is ``e^{eps_cert ||x - x'||_1}`` for
        every fixed seed (ALP-full Lemmas 4.1 and 4.12)."""
        return self.scale * (1 - 2 * self.flip) / self.flip

    def spend(self, requested: object = None) -> Any:
        """What one sketch spends (:class:`exactdp.spend.Spend`): ``eps_cert`` for l1
        neighbours ``||x - x'||_1 <= 1`` (``= eps`` exactly for :meth:`from_paper` and
        :meth:`unscaled`); for ``histogram-tight``, ``ln L`` with ``L = 1 + eps_cert``, the
        exact worst ratio on its neighbours (integer vectors differing by 1 in one key)."""
        from exactdp.spend import Spend

        asked = None if requested is None else to_fraction(requested, "requested")
        composition = "the whole sketch: every cell and hash function of one draw"
        if self.variant == "histogram-tight":
            ratio = 1 + self.epsilon_cert
            return Spend(Fraction(1), ratio, requested=asked, composition=composition,
                         meaning=f"ALP (histogram-tight, not in the paper): the ratio is at "
                                 f"most L = {ratio} <= e^eps for integer vectors differing by "
                                 f"1 in one key")
        return Spend(self.epsilon_cert, requested=asked, composition=composition,
                     meaning="the paper's eps (ALP, Lemmas 4.1 and 4.12): eps_cert = "
                             "c(1 - 2p)/p for l1 neighbours ||x - x'||_1 <= 1")

    @property
    def cells(self) -> int:
        """``s * m``."""
        return self.rows * self.columns

    @property
    def draws(self) -> int:
        """Uniform draws of one projection with Carter–Wegman seeds drawn and per-cell
        randomized response: ``2m + k + s*m``, for every input."""
        return 2 * self.columns + self.sparsity + self.cells

    def default_hashes(self) -> CarterWegman:
        """Carter–Wegman over the smallest prime ``P > max(d, s)`` (rows ``s``, keys ``1..d``)."""
        return CarterWegman(default_prime(max(self.universe, self.rows)), self.rows,
                            self.universe)
