"""Convolution negative controls: the four ways
to get exact private convolution wrong must be reported by the checker as an infinite or an
exceeded ratio."""

from __future__ import annotations

import functools
from collections.abc import Callable
from fractions import Fraction
from functools import partial
from typing import Any

import sympy

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import certify_ratio, worst_ratio
from exactdp.explore import explore
from exactdp.noise import ClampedGeometric
from exactdp.proofs.convolution._conv import neighbour_pairs
from exactdp.proofs.convolution._conv_mech import walsh_mechanism
from exactdp.randomness import RandomSource

CLAIM = "Conv negative controls (planted traps caught)"
STATEMENT = """(1) discrete noise on exact irrational (unrounded real-Fourier) coefficients
gives neighbours disjoint supports (delta = 1); (2) real noise on complex DFT coefficients
leaves the imaginary parts unprotected (P2); (3) a clamping range read from x leaks x; (4)
per-row ratios rounded UP exceed the target e^eps.  Each must be reported by the exact checker
as an infinite ratio (1-3) or a ratio certified above e^eps (4)."""
PROOF_IDEA = """Each trap is built from the implementation's own pieces (ClampedGeometric noise, the
WalshFourierMechanism) on a tiny domain and explored exactly; exactdp.checker.worst_ratio over
every ordered neighbouring pair of {0,1}^N must be infinite for (1)-(3), and for (4)
certify_ratio(worst, eps) must fail while the same mechanism with the ratio rounded DOWN
passes.  (1) Z_3 real Fourier sqrt(2/3) cos/sin rows, values in Q(sqrt 2, sqrt 3) kept exact
with sympy; (2) N = 4 unnormalised DFT (Gaussian integers), geometric noise on the real parts;
(3) Walsh N = 2 clamped to [c - 1, c + 1] around the true coefficient; (4) Walsh N = 2 at
eps_j = 1 with r = 3 > e (up) against r = 2718/1000 < e (down)."""

NOISE = ClampedGeometric(Fraction(1, 2), -2, 2, 0, 0)   # Z clamped to [-2, 2], centre 0


def _z(source: RandomSource) -> int:
    return NOISE.sample_value(0, source)


@functools.cache
def _fourier_values(x: tuple[int, ...]) -> tuple[Any, ...]:
    s23 = sympy.sqrt(sympy.Rational(2, 3))
    rows = [[1 / sympy.sqrt(3)] * 3,
            [s23 * sympy.cos(2 * sympy.pi * k / 3) for k in range(3)],
            [s23 * sympy.sin(2 * sympy.pi * k / 3) for k in range(3)]]
    return tuple(sympy.nsimplify(sum(a * b for a, b in zip(r, x))) for r in rows)


def irrational_fourier(x: tuple[int, ...], source: RandomSource) -> tuple[Any, ...]:
    """Trap 1: clamped geometric noise on the exact real Fourier coefficients of Z_3."""
    return tuple(v + _z(source) for v in _fourier_values(x))


def complex_real_noise(x: tuple[int, ...], source: RandomSource) -> tuple[Any, ...]:
    """Trap 2: lambda_k = sum_n x_n (-i)^(kn) (N = 4); noise on the real part only."""
    out = []
    for k in range(4):
        re = sum(x[n] * (1, 0, -1, 0)[k * n % 4] for n in range(4))
        im = sum(x[n] * (0, -1, 0, 1)[k * n % 4] for n in range(4))
        out.append((re + _z(source), im))
    return tuple(out)


def clamp_from_x(x: tuple[int, ...], source: RandomSource) -> tuple[int, ...]:
    """Trap 3: Walsh N = 2 coefficients clamped to [c - 1, c + 1] (range from the data)."""
    c = (x[0] + x[1], x[0] - x[1])
    return tuple(ClampedGeometric(Fraction(1, 2), v - 1, v + 1).sample_value(v, source)
                 for v in c)


def _worst(fn: Callable[[tuple[int, ...], RandomSource], Any], n: int) -> Any:
    elems = [tuple((i >> k) & 1 for k in range(n)) for i in range(2 ** n)]
    laws = {x: explore(partial(fn, x)) for x in elems}
    pairs = neighbour_pairs(elems)
    return worst_ratio([(a, laws[a], b, laws[b]) for a, b, _ in pairs]
                       + [(b, laws[b], a, laws[a]) for a, b, _ in pairs])


def _walsh_ratio(r: Fraction) -> Any:
    mech, elems = walsh_mechanism([1, 2], [r, r], "box", 1)
    laws = {x: explore(partial(mech.sample_with, x)) for x in elems}
    pairs = neighbour_pairs(elems)
    return worst_ratio([(a, laws[a], b, laws[b]) for a, b, _ in pairs]
                       + [(b, laws[b], a, laws[a]) for a, b, _ in pairs])


def check(full: bool) -> ClaimReport:
    certs = []
    for name, fn, n in (("(1) discrete noise on irrational real-Fourier Z_3", irrational_fourier, 3),
                        ("(2) real noise on complex DFT N=4 (P2)", complex_real_noise, 4),
                        ("(3) clamping range taken from x", clamp_from_x, 2)):
        w = _worst(fn, n)
        certs.append(Certificate(CLAIM, name, {"N": n}, f"{{0,1}}^{n}, every ordered pair",
                                 "infinity" if w.infinite else w.ratio, "infinite ratio",
                                 w.infinite, {"witness": w.to_json()}))
    eps = Fraction(2)                                   # two rows at eps_j = 1
    up, down = _walsh_ratio(Fraction(3)), _walsh_ratio(Fraction(2718, 1000))
    ok_up, text_up = certify_ratio(up, eps)
    ok_down, text_down = certify_ratio(down, eps)
    certs.append(Certificate(CLAIM, "(4) ratios rounded up: Walsh N=2, r = 3 > e", {"eps": eps},
                             "{0,1}^2, every ordered pair", up.ratio,
                             f"exceeded: {text_up}; rounded down: {text_down}",
                             (not ok_up) and ok_down))
    shown = ", ".join("inf" if c.worst == "infinity" else brief(Fraction(c.worst))  # type: ignore
                      for c in certs)
    return ClaimReport(CLAIM, "4 planted traps on {0,1}^N, N <= 4, explored exactly",
                       f"worst ratios {shown}", "infinite (1-3); > e^eps certified (4)", certs)
