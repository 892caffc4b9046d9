"""Closed-form ("ideal") output laws of Li & Li's sign mechanisms, in exact rationals.

Paper 001 (Li & Li, "Differential Privacy with Random Projections and Sign Random
Projections").  Everything here is written from closed-form formulas,
independently of the sampling code in :mod:`exactdp.projections`; the checker
(:mod:`exactdp.projections.check`) explores the sampling code and compares the two.

Conventions: integer data ``u``, integer matrices ``W`` (``p x k``, row ``i`` =
coordinate ``i``), unscaled projections ``x_j = sum_i W[i][j] u_i``; the per-coordinate budget
is a rational base ``rho > 1`` (``rho <= e^{eps/k}`` for SignRP, ``e^eps`` for SignOPORP), keep
probability ``q_L = rho^L/(rho^L + 1)``, flip probability ``f_L = 1/(rho^L + 1)``; a zero
projection gives a fair coin (``q_0 = 1/2``), never a third symbol.

>>> keep_probability(Fraction(3, 2), 1), flip_probability(Fraction(3, 2), 2)
(Fraction(3, 5), Fraction(4, 13))
>>> p_plus_rademacher((1, 1, 1), 1)
Fraction(3, 4)
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from fractions import Fraction

from exactdp.params import DomainError, ParameterError

__all__ = [
    "Law",
    "collision_agreement",
    "debiased_collision",
    "flip_probability",
    "keep_probability",
    "oporp_projections",
    "p_plus_rademacher",
    "product_law",
    "projections",
    "rounded_flip_probability",
    "sign_bit_law",
    "sign_idp_law",
    "sign_rr_law",
    "sign_smooth_law",
    "smooth_factor",
    "smooth_level",
    "smooth_pair_ratio",
]

Law = dict[tuple[int, ...], Fraction]


def _base(rho: object) -> Fraction:
    if type(rho) is Fraction and rho > 1:
        return rho
    if isinstance(rho, bool) or not isinstance(rho, (int, Fraction)):
        raise ParameterError(f"rho = {rho!r:.40} must be an exact rational (int or Fraction)")
    r = Fraction(rho)
    if r <= 1:
        raise ParameterError(f"rho = {r} must be > 1 (a rational e^eps rounded down)")
    return r


def keep_probability(rho: object, level: int) -> Fraction:
    """``q_L = rho^L / (rho^L + 1)`` (Algorithms 7/8 with ``e^{eps'} -> rho``); ``q_0 = 1/2``.
    With ``rho = n/d``: ``n^L / (n^L + d^L)``."""
    r = _base(rho)
    if level < 0:
        r = r**level
        return r / (r + 1)
    num = r.numerator**level
    return Fraction(num, num + r.denominator**level)


def flip_probability(rho: object, level: int) -> Fraction:
    """``f_L = 1 - q_L = 1 / (rho^L + 1)``."""
    return 1 - keep_probability(rho, level)


def rounded_flip_probability(rho: object, level: int, grid: int) -> Fraction:
    """``f_L`` rounded UP to the grid ``{0, 1/grid, ...}`` (a rounding that breaks the privacy claim)."""
    f = flip_probability(rho, level)
    return Fraction(-((-f.numerator * grid) // f.denominator), grid)


def smooth_level(x: int, sensitivity: int, level_max: int | None = None) -> int:
    """``L = min(ceil(|x| / B), L_max)`` in integers (Algorithm 7 step 2 on the unscaled
    projection; Algorithm 8: ``B = beta``)."""
    if sensitivity <= 0:
        raise ParameterError(f"sensitivity B = {sensitivity} must be a positive integer")
    level = -(-abs(x) // sensitivity)
    return level if level_max is None else min(level, level_max)


def sign_bit_law(x: int, keep: Fraction) -> dict[int, Fraction]:
    """The law of one released bit in ``{-1, +1}``: ``sign(x)`` kept with probability
    ``keep``; a fair coin when ``x = 0`` (the tie policy)."""
    if x == 0:
        return {-1: Fraction(1, 2), 1: Fraction(1, 2)}
    s = 1 if x > 0 else -1
    return {s: keep, -s: 1 - keep}


def product_law(bits: Sequence[Mapping[int, Fraction]]) -> Law:
    """The joint law of independent bits (the k coins of the mechanisms are independent)."""
    # numerators and denominators multiplied as ints, one Fraction (one gcd) per output
    law: dict[tuple[int, ...], tuple[int, int]] = {(): (1, 1)}
    for bit in bits:
        factors = [(b, q.numerator, q.denominator) for b, q in bit.items() if q]
        law = {out + (b,): (n * qn, d * qd) for out, (n, d) in law.items()
               for b, qn, qd in factors}
    return {out: Fraction(n, d) for out, (n, d) in sorted(law.items())}


def projections(u: Sequence[int], W: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """``x = W^T u`` for a ``p x k`` integer matrix (no ``1/sqrt(k)``: post-processing)."""
    if len(W) != len(u):
        raise DomainError(f"u has length {len(u)}, W has {len(W)} rows")
    k = len(W[0]) if W else 0
    return tuple(sum(W[i][j] * u[i] for i in range(len(u))) for j in range(k))


def oporp_projections(u: Sequence[int], perm: Sequence[int], w: Sequence[int],
                      k: int) -> tuple[int, ...]:
    """OPORP (Algorithm 4): ``u_Pi[i] = u[perm[i]]``, ``k`` consecutive bins of ``p/k``
    positions, ``x_j = sum_{i in bin j} w[i] u_Pi[i]`` (no scaling)."""
    p = len(u)
    if sorted(perm) != list(range(p)) or len(w) != p or k <= 0 or p % k:
        raise DomainError(f"OPORP needs a permutation of 0..{p - 1}, {p} signs and k | p "
                          f"(perm = {tuple(perm)}, k = {k})")
    size = p // k
    return tuple(sum(w[i] * u[perm[i]] for i in range(j * size, (j + 1) * size))
                 for j in range(k))


def sign_rr_law(x: Sequence[int], rho: object) -> Law:
    """Algorithm 6 (``N+ = k``) and Algorithm 8 RR: every bit kept with ``rho/(rho+1)``."""
    keep = keep_probability(rho, 1)
    return product_law([sign_bit_law(v, keep) for v in x])


def sign_smooth_law(x: Sequence[int], sensitivities: Sequence[int], rho: object,
                    level_max: int | None = None) -> Law:
    """Algorithm 7 (``B_j = beta max_i |W_ij|``) / Algorithm 8 smooth (``B_j = beta``): bit
    ``j`` kept with ``q_{L_j}``, ``L_j = smooth_level(x_j, B_j, L_max)``.  A column with
    ``B_j = 0`` has ``x_j = 0`` for every input: a coin."""
    bits = []
    for v, b in zip(x, sensitivities, strict=True):
        level = 0 if b == 0 else smooth_level(v, b, level_max)
        bits.append(sign_bit_law(v, keep_probability(rho, level)))
    return product_law(bits)


def sign_idp_law(x: Sequence[int], noisy: Collection[int], rho: object) -> Law:
    """Algorithm 11 with FROZEN parameters: bits outside ``noisy`` (the set ``A`` computed at
    the reference vector) are ``sign(x_j)`` (a coin at 0), bits in ``A`` are kept with
    ``rho/(rho+1)`` (``rho = rho_{N+}``)."""
    keep = keep_probability(rho, 1)
    return product_law([sign_bit_law(v, keep if j in noisy else Fraction(1))
                        for j, v in enumerate(x)])


def smooth_factor(x: int, x2: int, sensitivity: int, rho: object,
                  level_max: int | None = None) -> Fraction:
    """``max_y Pr[bit = y | x] / Pr[bit = y | x2]`` for one smooth-flipping bit, from a
    case analysis (not from the laws): ``max(q_L/f_L', f_L/q_L')`` when the signs
    are non-zero and opposite (``= rho`` at ``L = L' = 1``); otherwise
    ``max(q_L/q_L', f_L/f_L')`` with ``q_0 = f_0 = 1/2``."""
    r = _base(rho)
    lv, lv2 = (smooth_level(v, sensitivity, level_max) for v in (x, x2))
    # q = k/(k + f), 1 - q = f/(k + f) with k = n^L, f = d^L (rho = n/d); likewise q2
    n, d = r.numerator, r.denominator
    k, f, k2, f2 = n**lv, d**lv, n**lv2, d**lv2
    scale_num, scale_den = k2 + f2, k + f
    if x * x2 < 0:  # Pr[bit = sign(x)] is q under x and 1 - q2 under x2
        # max(q / (1 - q2), (1 - q) / q2) = (k2 + f2)/(k + f) * max(k/f2, f/k2)
        top, bottom = (k, f2) if k * k2 >= f * f2 else (f, k2)
    else:
        # max(q / q2, (1 - q) / (1 - q2)) = (k2 + f2)/(k + f) * max(k/k2, f/f2)
        top, bottom = (k, k2) if k * f2 >= f * k2 else (f, f2)
    return Fraction(top * scale_num, bottom * scale_den)


def smooth_pair_ratio(x: Sequence[int], x2: Sequence[int], sensitivities: Sequence[int],
                      rho: object, level_max: int | None = None) -> Fraction:
    """The exact worst ratio of a pair: the product of the per-bit factors (independent
    bits)."""
    out = Fraction(1)
    for v, v2, b in zip(x, x2, sensitivities, strict=True):
        out *= Fraction(1) if b == 0 else smooth_factor(v, v2, b, rho, level_max)
    return out


def p_plus_rademacher(u: Sequence[int], beta: int) -> Fraction:
    """``P+_b(u) = Pr_w(|sum_i w_i u_i| <= beta)`` for Rademacher ``w`` (eq. 31 made exact): the
    mass of ``prod_i (z^{u_i} + z^{-u_i})/2`` on exponents in
    ``[-beta, beta]``."""
    law: dict[int, Fraction] = {0: Fraction(1)}
    for v in u:
        nxt: dict[int, Fraction] = {}
        for s, p in law.items():
            for t in (s + v, s - v):
                nxt[t] = nxt.get(t, Fraction(0)) + p / 2
        law = nxt
    return sum((p for s, p in law.items() if abs(s) <= beta), Fraction(0))


def collision_agreement(s1: Sequence[int], s2: Sequence[int], rho: object) -> Fraction:
    """``E[(1/k) sum_j 1{s~1_j = s~2_j}]`` when both sign vectors go through randomized
    response with keep probability ``q = rho/(rho+1)``: ``q^2 + (1-q)^2`` per agreeing
    coordinate, ``2q(1-q)`` per disagreeing one."""
    q = keep_probability(rho, 1)
    same, diff = q * q + (1 - q) * (1 - q), 2 * q * (1 - q)
    return sum((same if a == b else diff for a, b in zip(s1, s2, strict=True)),
               Fraction(0)) / len(s1)


def debiased_collision(fraction: Fraction, rho: object) -> Fraction:
    """Eq. (29) without the final ``pi``: ``P^_RR = (rho+1)^2/(rho-1)^2 F - 2 rho/(rho-1)^2``."""
    r = _base(rho)
    return (r + 1) ** 2 / (r - 1) ** 2 * fraction - 2 * r / (r - 1) ** 2
