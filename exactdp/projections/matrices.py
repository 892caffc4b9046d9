"""Integer projection matrices and OPORP plans (Li & Li, paper 001, §1.1, §3.4, Algorithm 4).

Every draw goes through ``source.uniform(d)`` on ``[d]_+ = {1..d}``, a number of
draws fixed by the shape: ``p * k`` for a matrix, ``p - 1`` for a permutation plus ``p`` for
OPORP's ±1 vector.  The paper's constant factors ``sqrt(s)`` and ``1/sqrt(k)`` are dropped
(public constants: post-processing), so every projection is an exact integer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from exactdp.params import DomainError, ParameterError, ParameterTypeError, positive_int
from exactdp.randomness import RandomSource, default_source

__all__ = [
    "IntMatrix",
    "OPORPPlan",
    "column_max_abs",
    "fisher_yates",
    "int_matrix",
    "l1_sensitivity",
    "l2_sensitivity_sq",
    "pad_to_multiple",
    "sample_rademacher",
    "sample_uniform_entries",
    "sample_very_sparse",
]

#: ``W[i][j]``: ``p`` rows (input coordinates) of ``k`` integer entries (projections).
IntMatrix = tuple[tuple[int, ...], ...]


def _positive(value: object, name: str) -> int:
    """:func:`~exactdp.params.positive_int`, answering a plain ``int >= 1`` directly."""
    return value if type(value) is int and value >= 1 else positive_int(value, name)


def _int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterTypeError(f"{name} = {value!r:.60} must be an int")
    return value


#: the last few matrices this module built, by identity: a tuple of int tuples it returned is
#: immutable and already valid, so handing it back in (as every mechanism's calibration and
#: ``__post_init__`` do) skips the per-entry checks; a strong reference keeps each id unique
_BUILT: dict[int, IntMatrix] = {}
_BUILT_MAX = 8


def int_matrix(rows: Sequence[Sequence[int]], name: str = "W") -> IntMatrix:
    """``rows`` validated as a non-empty ``p x k`` integer matrix (all rows of one length)."""
    if _BUILT.get(id(rows)) is rows:
        return rows  # type: ignore[return-value]  # the very tuple built and checked below
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence) or not rows:
        raise ParameterTypeError(f"{name} must be a non-empty sequence of rows of ints")
    out = []
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not isinstance(row, Sequence):
            raise ParameterTypeError(f"{name}[{i}] = {row!r:.60} must be a sequence of ints")
        out.append(tuple(_int(v, f"{name}[{i}][{j}]") for j, v in enumerate(row)))
    k = len(out[0])
    if k == 0 or any(len(r) != k for r in out):
        raise ParameterError(f"{name} must have rows of one positive length k (got lengths "
                             f"{sorted({len(r) for r in out})})")
    mat = tuple(out)
    if len(_BUILT) >= _BUILT_MAX:
        del _BUILT[next(iter(_BUILT))]
    _BUILT[id(mat)] = mat
    return mat


def sample_rademacher(p: int, k: int, source: RandomSource | None = None) -> IntMatrix:
    """A ``p x k`` Rademacher (symmetric Bernoulli, ``s = 1``) matrix: entries ``±1``, each
    from one ``uniform(2)`` (1 -> -1, 2 -> +1); ``p * k`` draws in row-major order."""
    p, k = positive_int(p, "p"), positive_int(k, "k")
    src = default_source(source)
    return tuple(tuple(2 * src.uniform(2) - 3 for _ in range(k)) for _ in range(p))


def sample_uniform_entries(p: int, k: int, m: int, source: RandomSource | None = None
                           ) -> IntMatrix:
    """A ``p x k`` matrix with entries uniform on ``{-m..m}``, the integer stand-in for the
    paper's uniform projections (``sqrt(3) unif[-1, 1]``, Section 1.1): each entry from one
    ``uniform(2m + 1)`` (``d -> d - m - 1``); ``p * k`` draws.  Second moment ``m(m+1)/3``
    and fourth moment ``m(m+1)(3m^2+3m-1)/15``, so ``E w^4 / (E w^2)^2`` tends to the
    continuous uniform's ``9/5`` as ``m`` grows."""
    p, k, m = positive_int(p, "p"), positive_int(k, "k"), positive_int(m, "m")
    src = default_source(source)
    return tuple(tuple(src.uniform(2 * m + 1) - m - 1 for _ in range(k)) for _ in range(p))


def sample_very_sparse(p: int, k: int, s: int, source: RandomSource | None = None) -> IntMatrix:
    """A ``p x k`` very sparse matrix (eq. 7/18 without the factor ``sqrt(s)``): each entry
    ``-1`` w.p. ``1/(2s)``, ``+1`` w.p. ``1/(2s)``, else ``0``, from one ``uniform(2s)``
    (1 -> -1, 2 -> +1, else 0).  ``s = 1`` is Rademacher.  ``p * k`` draws."""
    p, k, s = positive_int(p, "p"), positive_int(k, "k"), positive_int(s, "s")
    src = default_source(source)
    table = {1: -1, 2: 1}
    return tuple(tuple(table.get(src.uniform(2 * s), 0) for _ in range(k)) for _ in range(p))


def fisher_yates(p: int, source: RandomSource | None = None) -> tuple[int, ...]:
    """A uniform permutation of ``0..p-1`` (Fisher-Yates): for ``i = p-1`` down to ``1``,
    swap position ``i`` with ``uniform(i + 1) - 1``.  Exactly ``p - 1`` draws, domains
    ``p, p-1, ..., 2``; each of the ``p!`` permutations has probability exactly ``1/p!``."""
    p = _positive(p, "p")
    src = default_source(source)
    perm = list(range(p))
    for i in range(p - 1, 0, -1):
        j = src.uniform(i + 1) - 1
        perm[i], perm[j] = perm[j], perm[i]
    return tuple(perm)


def pad_to_multiple(u: Sequence[int], k: int) -> tuple[int, ...]:
    """``u`` followed by zeros up to the next multiple of ``k`` (OPORP's bins need ``k | p``;
    zero coordinates change no projection)."""
    k = positive_int(k, "k")
    vec = tuple(_int(v, f"u[{i}]") for i, v in enumerate(u))
    return vec + (0,) * (-len(vec) % k)


@dataclass(frozen=True)
class OPORPPlan:
    """OPORP's public randomness (Algorithm 4): a permutation ``perm`` of ``0..p-1``, a ±1
    vector ``w`` of length ``p`` and ``k`` consecutive bins of ``p/k`` positions.

    Projection ``j`` is ``x_j = sum_{t in bin j} w[t] * u[perm[t]]`` (no ``1/sqrt(k)``).
    ``bin_of[i]`` and ``sign_of[i]`` give, for an input coordinate ``i``, its bin and the
    ``±1`` it is multiplied by (so each coordinate moves exactly one bin by ``±`` its change).
    """

    perm: tuple[int, ...]
    w: tuple[int, ...]
    k: int

    def __post_init__(self) -> None:
        perm = tuple(_int(v, "perm[i]") for v in self.perm)
        p = len(perm)
        if p == 0 or sorted(perm) != list(range(p)):
            raise ParameterError(f"perm must be a permutation of 0..p-1 (got {perm!r:.80})")
        w = tuple(_int(v, "w[i]") for v in self.w)
        if len(w) != p or any(v not in (-1, 1) for v in w):
            raise ParameterError(f"w must be a vector of p = {p} entries in {{-1, 1}}")
        k = _positive(self.k, "k")
        if p % k:
            raise ParameterError(f"k = {k} must divide p = {p} (fixed-length bins); pad the "
                                 f"data with pad_to_multiple(u, k)")
        object.__setattr__(self, "perm", perm)
        object.__setattr__(self, "w", w)
        object.__setattr__(self, "k", k)

    @property
    def p(self) -> int:
        return len(self.perm)

    @property
    def bin_size(self) -> int:
        return self.p // self.k

    @property
    def bin_of(self) -> tuple[int, ...]:
        out = [0] * self.p
        for t, i in enumerate(self.perm):
            out[i] = t // self.bin_size
        return tuple(out)

    @property
    def sign_of(self) -> tuple[int, ...]:
        out = [0] * self.p
        for t, i in enumerate(self.perm):
            out[i] = self.w[t]
        return tuple(out)

    @classmethod
    def sample(cls, p: int, k: int, source: RandomSource | None = None) -> OPORPPlan:
        """Fisher-Yates ``perm`` (``p - 1`` draws) then Rademacher ``w`` (``p`` draws of
        ``uniform(2)``)."""
        p, k = _positive(p, "p"), _positive(k, "k")
        if p % k:
            raise ParameterError(f"k = {k} must divide p = {p}; pad the data with "
                                 f"pad_to_multiple(u, k)")
        src = default_source(source)
        perm = fisher_yates(p, src)
        w = tuple(2 * src.uniform(2) - 3 for _ in range(p))
        return cls(perm, w, k)


def column_max_abs(W: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """``max_i |W_ij|`` for each column ``j``: the per-projection sensitivity unit of
    Algorithm 7 (0 for an all-zero column, whose projection is always 0)."""
    mat = int_matrix(W)
    return tuple(max(abs(row[j]) for row in mat) for j in range(len(mat[0])))


def _beta(beta: object) -> int:
    b = _int(beta, "beta")
    if b < 1:
        raise DomainError(f"beta = {b} must be a positive integer (grid steps)")
    return b


def l1_sensitivity(W: Sequence[Sequence[int]], beta: int) -> int:
    """``Delta_1 = beta * max_i ||W[i, :]||_1`` (eq. 12 without ``1/sqrt(k)``): the largest
    l1 change of ``W^T u`` when one coordinate moves by at most ``beta``."""
    b = _beta(beta)
    return b * max(sum(abs(v) for v in row) for row in int_matrix(W))


def l2_sensitivity_sq(W: Sequence[Sequence[int]], beta: int) -> int:
    """``Delta_2^2 = beta^2 * max_i ||W[i, :]||_2^2`` (eq. 13 squared, no ``1/sqrt(k)``;
    exact, no square root).  Rademacher: ``beta^2 k``."""
    b = _beta(beta)
    return b * b * max(sum(v * v for v in row) for row in int_matrix(W))
