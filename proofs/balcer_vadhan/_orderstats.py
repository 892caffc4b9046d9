"""Shared grids and reference objects for the order-statistics proofs (Section 6.1-6.3,
Propositions 6.6, 6.15, 6.17, 6.19).

The references here are the *definitions* the claims compare against, never a second
implementation of the algorithms under test:

* :func:`naive_top_order_statistics` -- what "the top ``n + 1`` order statistics of ``m``
  i.i.d. draws with CDF ``F/d``" means, as sampling code: draw ``m`` values by inverse
  CDF, sort, keep the top ``n + 1``.  Its exact distribution comes from exploring it.
* :func:`binomial_min_pmf` -- ``min{Bin(m, p), t}`` from the binomial pmf (the ideal
  distribution of Proposition 6.17, closed form).
* :func:`exact_convolution_power` -- ``*^(i)(a)`` of Definition 6.12 by schoolbook
  convolution (independent of :mod:`exactdp.histograms.polymul`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction
from itertools import product
from math import comb

from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms.orderstats import FunctionDraw
from exactdp.randomness import RandomSource

CDFCase = tuple[str, tuple[int, ...], int]  # (label, (F(0), ..., F(n)), d)


def _from_mechanism(label: str, mech: InverseCDFSampler) -> CDFCase:
    return (label, tuple(mech.scaled_cdf_at_zero(z) for z in range(mech.n + 1)), mech.d)


def cdf_cases(n: int, full: bool) -> list[CDFCase]:
    """CDFs on ``[n]`` for the grids: the noise ``M(0, U)`` of GeoSample and FastSample
    (what KH' feeds OrdSample) and arbitrary non-decreasing ``F`` with ties, gaps and
    point masses (discrete features the [BV18] formula gets wrong)."""
    cases = [
        _from_mechanism(f"GeoSample({n}, 1) at 0", GeoSample(n, 1)),
        _from_mechanism(f"FastSample({n}, 1, 1/2) at 0", FastSample(n, 1, Fraction(1, 2))),
        ("uniform F(z) = z+1", tuple(range(1, n + 2)), n + 1),
        ("gap: 1/3 at 0, 2/3 at n", (1,) * n + (3,), 3),
    ]
    if full:
        cases += [
            _from_mechanism(f"GeoSample({n}, 1/2) at 0", GeoSample(n, Fraction(1, 2))),
            ("doubling F(z) = 2^(z+1) - 1", tuple((2 << z) - 1 for z in range(n + 1)),
             (2 << n) - 1),
            ("point mass at 0", (1,) * (n + 1), 1),
        ]
    return cases


def function_draw(values: Sequence[int], d: int) -> FunctionDraw:
    n = len(values) - 1
    return FunctionDraw(n, d, lambda z: 0 if z < 0 else values[min(z, n)])


def naive_top_order_statistics(values: Sequence[int], d: int, m: int,
                               source: RandomSource) -> tuple[int, ...]:
    """``(Z_(m), ..., Z_(m-n))``: ``m`` inverse-CDF draws, sorted, the top ``n + 1``."""
    draw = function_draw(values, d)
    zs = sorted((source.inverse_cdf(draw) for _ in range(m)), reverse=True)
    return tuple(zs[:len(values)])


def binomial_min_pmf(m: int, p: Fraction, t: int) -> dict[int, Fraction]:
    """The pmf of ``min{Bin(m, p), t}``: with ``p = a/b``, ``Pr[j] = C(m, j) a^j (b-a)^(m-j)
    / b^m``, summed as integers over the common denominator ``b^m`` (exact)."""
    p = Fraction(p)
    a, b = p.numerator, p.denominator
    tops: dict[int, int] = {}
    for j in range(m + 1):
        top = comb(m, j) * a**j * (b - a) ** (m - j)
        if top:
            k = min(j, t)
            tops[k] = tops.get(k, 0) + top
    den = b**m
    return {k: Fraction(top, den) for k, top in tops.items()}


def exact_convolution_power(a: Sequence[int], i: int) -> list[int]:
    """``*^(i)(a)`` truncated to ``len(a)`` entries (Definition 6.12), schoolbook."""
    t = len(a)
    out = list(a)
    for _ in range(i - 1):
        out = [sum(out[j] * a[k - j] for j in range(k + 1)) for k in range(t)]
    return out


def bounded_vectors(s: int, t: int) -> Iterator[tuple[int, ...]]:
    """Every ``a`` in ``[s]^t`` with ``||a||_1 <= s`` (Proposition 6.15's inputs)."""
    for a in product(range(s + 1), repeat=t):
        if sum(a) <= s:
            yield a
