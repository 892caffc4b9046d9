"""Baselines and the paper's own MSE formulas, exactly or as certified intervals.

* :func:`input_perturbation_mse`: ``x + Z`` with per-coordinate two-sided geometric noise of ratio
  ``r <= e^ε`` (a neighbour moves one coordinate by 1), then ``H(x + Z)``:
  ``MSE = ||h||_2² · 2r/(r-1)²`` (``(1/N) E||H Z||² = Var · ||H||_F² / N``).
* :func:`output_perturbation_mse`: ``Hx + Z`` for integer ``h``; a neighbour moves output ``k``
  by ``|h_(k-n)|``.  Pure: ``r^||h||_1 <= e^ε``.  With ``δ``: ratios calibrated by the exact
  privacy profile of the shifts (``calibrate(..., shape="uniform", shifts=|H|)``).
  ``MSE = 2r/(r-1)²``.
* :func:`paper_mse_interval`: eq. (5), ``4 ln(1/δ) ||h^||_1² / (ε² N)`` with
  ``||h^||_1 = sum_m |λ_m| / sqrt N``, i.e. ``4 ln(1/δ) (sum |λ_m|)² / (ε² N²)``; ``|λ_m|`` exact
  (Walsh: :func:`walsh_magnitudes`) or certified intervals (cyclic: :func:`cyclic_magnitudes`,
  cosines by Taylor series with ``π`` from Machin's formula).
* :func:`algorithm2_mse`: Algorithm 2 (SpectralPartition) as printed (``x~_0 = x^_0 + Lap(η)``)
  and fixed (``Lap(η/√N)``, P7): ``MSE = 2 sum_i |h^_i|² b_i²``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from exactdp.certified import Interval
from exactdp.convolution.accounting import _ln_pos, sqrt_interval
from exactdp.convolution.calibration import calibrate, ratio_below_exp
from exactdp.params import ParameterError, epsilon_delta, positive_fraction, to_fraction

__all__ = [
    "algorithm2_mse",
    "cyclic_magnitudes",
    "geometric_variance",
    "input_perturbation_mse",
    "output_perturbation_mse",
    "paper_mse",
    "paper_mse_interval",
    "pi_interval",
    "walsh_magnitudes",
]


def geometric_variance(r: Fraction) -> Fraction:
    """Variance of the (unclamped) two-sided geometric with ratio ``r > 1``: ``2r/(r-1)²``."""
    r = Fraction(r)
    if r <= 1:
        raise ParameterError(f"ratio = {r} must be > 1")
    return 2 * r / (r - 1) ** 2


def _eps_delta(epsilon: object, delta: object | None) -> tuple[Fraction, Fraction | None]:
    if delta is None:
        return positive_fraction(epsilon, "epsilon"), None
    return epsilon_delta(epsilon, delta)


def input_perturbation_mse(h: Sequence[object], epsilon: object) -> tuple[Fraction, Fraction]:
    """``(r, MSE)``: input perturbation, pure ``ε`` (``δ`` does not help: one coordinate moves)."""
    e, _ = _eps_delta(epsilon, None)
    hs = [to_fraction(v, f"h[{i}]") for i, v in enumerate(h)]
    r, _ = ratio_below_exp(e)
    return r, sum((v * v for v in hs), Fraction(0)) * geometric_variance(r)


def output_perturbation_mse(h: Sequence[int], epsilon: object, delta: object | None = None,
                            group: str = "cyclic") -> tuple[Fraction, Fraction, str]:
    """``(r, MSE, accounting)``: output perturbation for integer ``h`` on ``Z_N`` (``"cyclic"``)
    or ``Z_2^d`` (``"xor"``).  Pure when ``delta`` is None (``r^||h||_1 <= e^ε``), otherwise
    calibrated by the exact profile (one ratio for all outputs)."""
    e, d = _eps_delta(epsilon, delta)
    hs = []
    for i, v in enumerate(h):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ParameterError(f"h[{i}] = {v!r} must be an int (output perturbation with "
                                 f"integer noise needs integer shifts)")
        hs.append(int(v))
    n = len(hs)
    l1 = sum(abs(v) for v in hs)
    if l1 == 0:
        raise ParameterError("h is zero: nothing to release")
    if d is None:
        r, _ = ratio_below_exp(e / l1)
        return r, geometric_variance(r), "pure"
    if group == "cyclic":
        shifts = [[abs(hs[(k - m) % n]) for m in range(n)] for k in range(n)]
    elif group == "xor":
        shifts = [[abs(hs[k ^ m]) for m in range(n)] for k in range(n)]
    else:
        raise ParameterError(f"group = {group!r} must be 'cyclic' or 'xor'")
    cal = calibrate([1] * n, e, d, shape="uniform", accounting="exact", shifts=shifts)
    r = cal.kept_ratios[0]
    return r, geometric_variance(r), cal.accounting_used


# ---------------------------------------------------------------------------------------------
# magnitudes |λ_m|


def walsh_magnitudes(h: Sequence[object]) -> list[Fraction]:
    """``|λ_j| = |(W h)_j|`` exactly (rational)."""
    hs = [to_fraction(v, f"h[{i}]") for i, v in enumerate(h)]
    n = len(hs)
    if n < 1 or n & (n - 1):
        raise ParameterError(f"len(h) = {n} must be a power of 2")
    from exactdp.convolution.transforms import fwht

    return [abs(Fraction(v)) for v in fwht(hs)]  # O(N log N): the fast transform, exact


def _atan_inv(k: int, bits: int) -> Interval:
    """``atan(1/k)`` for integer ``k >= 2``: alternating series, bracketed by partial sums."""
    x = Fraction(1, k)
    total, term, i = Fraction(0), x, 0
    while True:
        nxt = total + (-1) ** i * term / (2 * i + 1)
        if term / (2 * i + 1) * (1 << bits) < 1:
            return Interval(min(total, nxt), max(total, nxt))
        total = nxt
        term *= x * x
        i += 1


def pi_interval(bits: int = 80) -> Interval:
    """``π`` by Machin's formula ``16 atan(1/5) - 4 atan(1/239)``."""
    a, b = _atan_inv(5, bits + 6), _atan_inv(239, bits + 6)
    return Interval(16 * a.lo - 4 * b.hi, 16 * a.hi - 4 * b.lo)


def _cos_sin(theta: Interval, bits: int) -> tuple[Interval, Interval]:
    """Taylor enclosures of ``cos`` and ``sin`` on ``theta`` (|theta| <= 4), widened by the
    Lagrange remainder and by the Lipschitz constant 1 times the interval width."""
    mid = (theta.lo + theta.hi) / 2
    rad = (theta.hi - theta.lo) / 2
    c, s = Fraction(0), Fraction(0)
    term = Fraction(1)
    i = 0
    while True:
        if i % 4 == 0:
            c += term
        elif i % 4 == 1:
            s += term
        elif i % 4 == 2:
            c -= term
        else:
            s -= term
        i += 1
        term = term * mid / i
        if abs(term) * (1 << bits) < 1 and i > 8:  # tail <= 2|term| once i >= 2|mid|
            break
    err = abs(term) * 2 + rad
    return Interval(c - err, c + err), Interval(s - err, s + err)


def cyclic_magnitudes(h: Sequence[object], bits: int = 80) -> list[Interval]:
    """Certified intervals for ``|λ_m| = |sum_n h_n e^{-2πi mn/N}|`` (eigenvalues of the
    circulant), from interval cosines/sines of ``2π k/N`` reduced to ``[0, 2π)``."""
    hs = [to_fraction(v, f"h[{i}]") for i, v in enumerate(h)]
    n = len(hs)
    pi = pi_interval(bits + 16)
    trig = []
    for k in range(n):
        # theta = 2 pi k/N - pi in [-pi, pi): cos/sin of theta + pi = -cos, -sin
        theta = Interval(2 * pi.lo * k / n - pi.hi, 2 * pi.hi * k / n - pi.lo)
        c, s = _cos_sin(theta, bits + 16)
        trig.append((Interval(-c.hi, -c.lo), Interval(-s.hi, -s.lo)))
    out = []
    for m in range(n):
        re_lo = re_hi = im_lo = im_hi = Fraction(0)
        for t, v in enumerate(hs):
            c, s = trig[(m * t) % n]
            for acc, iv in ((0, c), (1, s)):
                lo, hi = (v * iv.lo, v * iv.hi) if v >= 0 else (v * iv.hi, v * iv.lo)
                if acc == 0:
                    re_lo, re_hi = re_lo + lo, re_hi + hi
                else:
                    im_lo, im_hi = im_lo + lo, im_hi + hi

        def sq(lo: Fraction, hi: Fraction) -> tuple[Fraction, Fraction]:
            if lo <= 0 <= hi:
                return Fraction(0), max(lo * lo, hi * hi)
            return min(lo * lo, hi * hi), max(lo * lo, hi * hi)

        a, b = sq(re_lo, re_hi), sq(im_lo, im_hi)
        out.append(Interval(sqrt_interval(a[0] + b[0], bits).lo,
                            sqrt_interval(a[1] + b[1], bits).hi))
    return out


def _as_intervals(magnitudes: Sequence[object]) -> list[Interval]:
    out = []
    for i, m in enumerate(magnitudes):
        if isinstance(m, Interval):
            out.append(m)
        else:
            q = abs(to_fraction(m, f"magnitudes[{i}]"))
            out.append(Interval(q, q))
    return out


def paper_mse_interval(magnitudes: Sequence[object], epsilon: object, delta: object,
                       bits: int = 64) -> Interval:
    """Eq. (5): ``4 ln(1/δ) (sum_m |λ_m|)² / (ε² N²)`` as a certified interval (``magnitudes``
    = ``|λ_m|``, Fractions or :class:`~exactdp.certified.Interval`)."""
    e, d = _eps_delta(epsilon, delta)
    assert d is not None
    mags = _as_intervals(magnitudes)
    n = len(mags)
    lo_sum = sum((m.lo for m in mags), Fraction(0))
    hi_sum = sum((m.hi for m in mags), Fraction(0))
    big_l = _ln_pos(1 / d, bits)
    den = e * e * n * n
    return Interval(4 * big_l.lo * lo_sum**2 / den, 4 * big_l.hi * hi_sum**2 / den)


def paper_mse(h: Sequence[object], epsilon: object, delta: object, group: str = "cyclic",
              bits: int = 64) -> Interval:
    """Eq. (5) for the filter ``h`` itself: ``|λ|`` exact on ``"xor"`` (:func:`walsh_magnitudes`),
    certified on ``"cyclic"`` (:func:`cyclic_magnitudes`)."""
    if group == "xor":
        return paper_mse_interval(walsh_magnitudes(h), epsilon, delta, bits)
    if group == "cyclic":
        return paper_mse_interval(cyclic_magnitudes(h, bits + 16), epsilon, delta, bits)
    raise ParameterError(f"group = {group!r} must be 'cyclic' or 'xor'")


def algorithm2_mse(magnitudes: Sequence[object], epsilon: object, delta: object,
                   printed: bool = True, bits: int = 64) -> Interval:
    """Algorithm 2's MSE ``2 sum_i |h^_i|² b_i²`` (``|h^_i|² = |λ_i|²/N``, indices ranked by
    ``|λ|`` decreasing): ``η² = 2 (1 + log2 N) ln(1/δ) / ε²``; rank 0 gets ``b = η``
    (``printed``) or ``η/√N`` (fixed, P7); ranks ``N/2^k .. N/2^(k-1) - 1`` get ``b² = η² 2^-k``.
    ``N`` must be a power of 2."""
    e, d = _eps_delta(epsilon, delta)
    assert d is not None
    mags = _as_intervals(magnitudes)
    n = len(mags)
    if n < 2 or n & (n - 1):
        raise ParameterError(f"Algorithm 2 needs N a power of 2 >= 2, got N = {n}")
    log_n = n.bit_length() - 1
    order = sorted(range(n), key=lambda j: (-mags[j].hi, -mags[j].lo, j))
    if any(mags[order[i]].lo < mags[order[i + 1]].hi and mags[order[i]] != mags[order[i + 1]]
           for i in range(n - 1)):
        raise ParameterError("the magnitudes' intervals overlap: the ranking is not certified; "
                             "increase bits")
    lo_total = hi_total = Fraction(0)
    for rank, j in enumerate(order):
        if rank == 0:
            w = Fraction(1) if printed else Fraction(1, n)
        else:
            k = n.bit_length() - rank.bit_length()
            w = Fraction(1, 2**k)
        lo_total += w * mags[j].lo ** 2 / n
        hi_total += w * mags[j].hi ** 2 / n
    big_l = _ln_pos(1 / d, bits)
    eta_lo = 2 * (1 + log_n) * big_l.lo / (e * e)
    eta_hi = 2 * (1 + log_n) * big_l.hi / (e * e)
    return Interval(2 * lo_total * eta_lo, 2 * hi_total * eta_hi)
