"""The linear filters paper 002 names (§5.3), as exact filters ``h`` for the convolution
mechanisms.

* :func:`window` -- the moving sum over the last ``W`` counts, ``h = 1^W``;
* :func:`decay` -- the exponentially decayed sum ``sum_{i<W} alpha^i x_(t-i)``, truncated at
  ``W`` terms, ``alpha`` rational in ``(0, 1]``;
* :func:`hodrick_prescott` -- the Hodrick-Prescott trend ``tau = argmin sum (x_t - tau_t)^2 +
  lam sum (tau_(t+1) - 2 tau_t + tau_(t-1))^2`` on the cycle ``Z_N`` (indices mod ``N``): the
  trend is ``(I + lam D^T D)^-1 x`` with ``D`` the circular second difference, a circulant, so
  it is circular convolution by the exact rational filter ``h = (I + lam D^T D)^-1 e_0``.  (On a
  finite line the HP trend has boundary rows and is not a convolution; the infinite-sample
  filter has irrational weights.  The circular filter is the exact convolution form.)

The volatility filter of §5.3 (``(1/W) sum |x_(t-i) - xbar_t|``) is not linear in ``x``; it is
two releases (the mean, then a window over ``|x - xbar|``, whose per-count change is up to
``2 (W - 1)/W``, not 1), so it is not offered as a filter.

:func:`named_filter` reads ``window:W``, ``decay:ALPHA:W`` and ``hp:LAMBDA`` (the command line's
``--filter``).
"""

from __future__ import annotations

from fractions import Fraction

from exactdp.params import ParameterError, ResourceLimitError, positive_int, to_fraction

__all__ = ["MAX_HP_N", "decay", "hodrick_prescott", "named_filter", "window"]

#: hodrick_prescott solves an N x N exact system (O(N^3) rational operations)
MAX_HP_N = 256


def window(w: object) -> list[int]:
    """``h = 1^W``: ``y_t = x_t + ... + x_(t-W+1)``."""
    return [1] * positive_int(w, "W")


def decay(alpha: object, w: object) -> list[Fraction]:
    """``h_i = alpha^i`` for ``i < W`` (``0 < alpha <= 1``, exact)."""
    a = to_fraction(alpha, "alpha")
    if not 0 < a <= 1:
        raise ParameterError(f"alpha = {a} must lie in (0, 1]")
    return [a ** i for i in range(positive_int(w, "W"))]


def hodrick_prescott(lam: object, n: object) -> list[Fraction]:
    """The circular HP trend filter on ``Z_N`` (``N >= 5``): ``h = (I + lam D^T D)^-1 e_0``,
    ``D^T D`` the circulant with stencil ``(1, -4, 6, -4, 1)``; exact (Gauss-Jordan over
    Fractions).  ``h`` is symmetric (``h_k = h_(N-k)``) and sums to 1 (a constant series is its
    own trend)."""
    big_l = to_fraction(lam, "lambda")
    if big_l < 0:
        raise ParameterError(f"lambda = {big_l} must be >= 0")
    size = positive_int(n, "N")
    if size < 5:
        raise ParameterError(f"N = {size}: the circular second difference needs N >= 5")
    if size > MAX_HP_N:
        raise ResourceLimitError(f"N = {size}: the exact HP filter solves an N x N system; at "
                                 f"most N = {MAX_HP_N}")
    stencil = {0: 6, 1: -4, -1: -4, 2: 1, -2: 1}
    a = [[Fraction(int(i == j)) for j in range(size)] + [Fraction(int(i == 0))]
         for i in range(size)]
    for i in range(size):
        for d, v in stencil.items():
            a[i][(i + d) % size] += big_l * v
    for col in range(size):  # the matrix is symmetric positive definite: no zero pivot
        piv = a[col][col]
        row = [v / piv for v in a[col]]
        a[col] = row
        for r in range(size):
            if r != col and a[r][col]:
                f = a[r][col]
                a[r] = [u - f * v for u, v in zip(a[r], row, strict=True)]
    return [a[i][size] for i in range(size)]


def named_filter(text: str, n: int | None = None) -> list[Fraction] | None:
    """``window:W``, ``decay:ALPHA:W`` or ``hp:LAMBDA`` (needs ``n``, the series length) as a
    filter; ``None`` if ``text`` is not a named filter."""
    name, _, rest = text.partition(":")
    if name not in ("window", "decay", "hp") or not rest:
        return None
    parts = rest.split(":")
    if name == "window" and len(parts) == 1:
        return [Fraction(v) for v in window(parts[0])]
    if name == "decay" and len(parts) == 2:
        return decay(parts[0], parts[1])
    if name == "hp" and len(parts) == 1:
        if n is None:
            raise ParameterError("--filter hp:LAMBDA takes its length from the input; it is "
                                 "available where the input is read (exactdp convolve)")
        return hodrick_prescott(parts[0], n)
    raise ParameterError(f"--filter {text!r}: named filters are window:W, decay:ALPHA:W and "
                         f"hp:LAMBDA")
