"""Many vectors at once through the exact mechanisms of paper 001 (Li & Li), for the
experiments: the same draws in the same order as one ``sample`` call per vector, hence the
same releases (tests/test_paper001_batch.py compares both, value for value).

What is batched is the work around the draws, never the law:

* projections (``W^T u`` and OPORP's bins) are integer sums computed by numpy in int64 (the
  data is bounded by ``C = 16`` and ``p`` is small, so no sum comes near 2^63; checked);
* additive noise draws one ``source.uniform(D)`` per released value, in row-major order as
  :func:`exactdp.projections.rp.add_noise` does, and finds ``min{z : F(z) >= u}`` by
  :func:`bisect.bisect_left` on the noise's exact integer CDF, tabulated once per noise
  (the discrete Gaussian's cumulative weights; the clamped geometric's CDF depends on the
  centre ``c`` only through ``lo + z - c``, so one table over every offset serves all
  centres), instead of a search that recomputes big powers per round;
* the sign releases call the library's own flippers (:class:`exactdp.projections.rr.
  SmoothFlipper`) on the batch-computed projections, and iDP-SignRP-RR builds the frozen
  :class:`~exactdp.projections.idp.IDPSignRPRR` of each vector from its active set (the
  set :meth:`~exactdp.projections.idp.IDPSignRPRR.calibrate` computes, read off the batch
  projection).

numpy (the ``[experiments]`` extra) is imported inside the functions.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import accumulate
from typing import TYPE_CHECKING

from exactdp.discrete_gaussian import DiscreteGaussian
from exactdp.noise import ClampedGeometric
from exactdp.params import DomainError, ParameterTypeError
from exactdp.projections.idp import IDPSignRPRR, dyadic_root_base
from exactdp.projections.matrices import IntMatrix, OPORPPlan, column_max_abs, int_matrix
from exactdp.projections.rr import Base, SmoothFlipper
from exactdp.randomness import RandomSource, SeededSource

if TYPE_CHECKING:
    import numpy as np

__all__ = ["add_noise_rows", "geometric_table", "idp_sign_rp_rows", "oporp_rows", "rp_rows",
           "sign_rows"]

_LIMIT = 1 << 62


def _int64(x: np.ndarray) -> np.ndarray:
    import numpy as np

    return np.ascontiguousarray(x, dtype=np.int64)


def _bounded(out: np.ndarray, x: np.ndarray, width: int) -> np.ndarray:
    """``out`` after checking that no sum of ``width`` products of entries of ``x`` with
    ``±1`` could have passed 2^62 (so the int64 sums are the exact integers)."""
    if int(abs(x).max(initial=0)) * width >= _LIMIT:
        raise DomainError("data too large for the int64 batch projection; use the "
                          "mechanisms' own sample()")
    return out


def oporp_rows(x: np.ndarray, plan: OPORPPlan) -> np.ndarray:
    """OPORP (Algorithm 4) of every row: ``x_j = sum_{t in bin j} w[t] u[perm[t]]``."""
    import numpy as np

    xi = _int64(x)
    permuted = xi[:, list(plan.perm)] * np.array(plan.w, dtype=np.int64)
    out = permuted.reshape(len(xi), plan.k, plan.bin_size).sum(axis=2)
    return _bounded(out, xi, plan.p)


def rp_rows(x: np.ndarray, W: IntMatrix) -> np.ndarray:
    """``W^T u`` of every row (entries of ``W`` in ``{-1, 0, 1}``)."""
    import numpy as np

    xi = _int64(x)
    w = np.array(W, dtype=np.int64)
    if int(abs(w).max(initial=0)) > 1:
        raise DomainError("rp_rows: entries of W must be in {-1, 0, 1}")
    return _bounded(xi @ w, xi, len(W))


@lru_cache(maxsize=64)
def _gauss_table(noise: DiscreteGaussian) -> tuple[int, ...]:
    half = noise.half_weights
    return tuple(accumulate((*half[:0:-1], *half)))


#: geometric tables by the noise's parameters (ratio, lo, hi, centre range): a noise built
#: again with the same parameters (every repetition) reuses its table
_GEOMETRIC: dict[tuple[object, ...], tuple[int, int, tuple[int, ...]]] = {}


def geometric_table(noise: ClampedGeometric) -> tuple[int, int, tuple[int, ...]]:
    """``(jmin, n, G)`` with ``G[j - jmin] = F_c(z)`` for every ``j = lo + z - c``, ``z`` in
    ``[0, n)``, ``c`` in the centre range: read off :meth:`ClampedGeometric.cdf` itself."""
    lo, c_lo, c_hi, n = noise.lo, noise.centre_lo, noise.centre_hi, noise.n
    key = (noise.ratio, lo, noise.hi, c_lo, c_hi)
    if key not in _GEOMETRIC:
        jmin, jmax = lo - c_hi, lo + n - 1 - c_lo
        table = []
        for j in range(jmin, jmax + 1):
            c = c_hi if j - lo + c_hi < n else c_lo
            table.append(noise.cdf(c, j - lo + c))
        if len(_GEOMETRIC) >= 8:
            del _GEOMETRIC[next(iter(_GEOMETRIC))]
        _GEOMETRIC[key] = (jmin, n, tuple(table))
    return _GEOMETRIC[key]


def add_noise_rows(values: np.ndarray, noise: DiscreteGaussian | ClampedGeometric,
                   source: RandomSource) -> np.ndarray:
    """:func:`exactdp.projections.rp.add_noise` of every row of ``values`` (one
    ``source.uniform(D)`` per value, row-major): ``c + Z`` for a discrete Gaussian, the
    clamped ``clamp(c + eta)`` for a clamped geometric (centres checked in its range)."""
    import numpy as np

    flat = _int64(values).ravel().tolist()
    uniform = _uniform(source)
    d = noise.d
    if isinstance(noise, DiscreteGaussian):
        cum, t = _gauss_table(noise), noise.tail
        out = [c + bisect_left(cum, _draw(uniform, d)) - t for c in flat]
    elif isinstance(noise, ClampedGeometric):
        if flat and not noise.centre_lo <= min(flat) <= max(flat) <= noise.centre_hi:
            raise DomainError(f"centres outside the public range [{noise.centre_lo}, "
                              f"{noise.centre_hi}]")
        jmin, n, table = geometric_table(noise)
        lo = noise.lo
        out = []
        for c in flat:
            i0 = lo - c - jmin
            out.append(lo + bisect_left(table, _draw(uniform, d), i0, i0 + n) - i0)
    else:
        raise ParameterTypeError(f"noise = {noise!r:.60}: a DiscreteGaussian or a "
                                 f"ClampedGeometric")
    return np.array(out, dtype=np.int64).reshape(values.shape)


def _uniform(source: RandomSource) -> Callable[[int], int]:
    """``source.uniform``; for a :class:`~exactdp.randomness.SeededSource` the very
    computation its ``uniform`` makes (``randrange(d) + 1`` of its generator), without the
    per-call domain check (``d`` is the noise's own ``D >= 1``)."""
    if type(source) is SeededSource:
        randrange = source._rng.randrange

        def seeded(d: int) -> int:
            return randrange(d) + 1
        return seeded
    return source.uniform


def _draw(uniform: object, d: int) -> int:
    u = uniform(d)  # type: ignore[operator]
    if type(u) is not int or not 1 <= u <= d:
        raise DomainError(f"uniform({d}) returned {u!r:.60}, outside [1, {d}]")
    return u


def sign_rows(values: np.ndarray, flipper: SmoothFlipper, unit: int, source: RandomSource
              ) -> np.ndarray:
    """The released signs of every row of projections ``values`` (the library's
    ``flipper.sample`` per bit, row-major, one ``uniform(D)`` each)."""
    import numpy as np

    sample = flipper.sample
    return np.array([sample(v, unit, source) for v in _int64(values).ravel().tolist()],
                    dtype=np.int64).reshape(values.shape)


def idp_sign_rp_rows(x: np.ndarray, W: IntMatrix, beta: int, total: Base,
                     source: RandomSource) -> np.ndarray:
    """iDP-SignRP-RR (Algorithms 10/11) of every row, each calibrated at itself: the frozen
    :class:`IDPSignRPRR` with ``A = {j : |x_j| <= beta max_i |W_ij|}`` and
    ``rho_|A|`` (as :meth:`IDPSignRPRR.calibrate`), releasing that row."""
    import numpy as np

    mat = int_matrix(W)
    units = np.array(column_max_abs(mat), dtype=np.int64) * beta
    proj = rp_rows(x, mat)
    bases: dict[int, Base | None] = {}
    rows: list[Sequence[int]] = []
    for row, xr in zip(_int64(x).tolist(), proj, strict=True):
        active = frozenset(np.flatnonzero(np.abs(xr) <= units).tolist())
        if len(active) not in bases:
            bases[len(active)] = dyadic_root_base(total, len(active)) if active else None
        rows.append(IDPSignRPRR(mat, beta, active, bases[len(active)], total).sample(
            tuple(row), source))
    return np.array(rows, dtype=np.int64)
