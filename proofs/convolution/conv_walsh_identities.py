"""Convolution transforms: the Walsh identities behind paper 002 §5.4
(XOR convolution) and the exactness of the convolutions and rounded strategies used by the
convolution mechanisms."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import sympy

from exactdp.certificate import Certificate, ClaimReport
from exactdp.convolution import groups, transforms
from exactdp.proofs.convolution._conv import (
    direct_circular_convolve,
    direct_xor_convolve,
    mat_vec,
    walsh_matrix,
)

CLAIM = "Conv Walsh identities and exact convolutions (§5.4)"
STATEMENT = """W^2 = N I for the +-1 Walsh-Hadamard matrix W (N = 2^d); the fast transform fwht computes W v;
XOR convolution y_a = sum_b x_b h_(a XOR b) equals N^-1 W diag(W h) W x (paper 002 §5.4, the
analogue of Theorem 1 / Corollary 1 on Z_2^d) and circular convolution equals H x with the
circulant H (Definition 1, eq. 1), exactly, for every h, x of a grid; the Hartley matrix at
N = 4 is +-1 with T^T T = 4 I; the rounded real-Fourier strategy round_half_up(c Q) is rounded
exactly."""
PROOF_IDEA = """Against references written in proofs/convolution/_conv from the definitions (W by the entry formula
(-1)^popcount(a & b), convolutions by their double sums): the implementation's fwht on every
unit vector must give the columns of W and fwht(fwht(v)) = N v; xor_convolve, xor_circulant,
circular_convolve and circulant must equal the double sums on every (h, x) in {-1, 0, 1, 2}^2
(and {-1, 0, 1}^4 under --full) plus seeded random integer and Fraction vectors up to N = 16;
hartley4 must equal cos + sin at multiples of pi/2; real_fourier_rounded(N, c) must equal
sympy's exact floor(c sqrt(s) cos(2 pi t) + 1/2) entrywise (a different certified route)."""


def _fwht_certificate(full: bool) -> Certificate:
    ns = [1, 2, 4, 8, 16] + ([32, 64] if full else [])
    bad: list[str] = []
    for n in ns:
        w = walsh_matrix(n)
        if [list(r) for r in w] != transforms.walsh_matrix(n):
            bad.append(f"walsh_matrix({n})")
        for i in range(n):
            col = transforms.fwht([1 if k == i else 0 for k in range(n)])
            if col != [w[k][i] for k in range(n)]:
                bad.append(f"fwht(e_{i}), N={n}")
        rng = random.Random(n)
        for _ in range(5):
            v = [Fraction(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(n)]
            if transforms.fwht(transforms.fwht(v)) != [n * a for a in v]:
                bad.append(f"W^2 v != N v, N={n}")
            if transforms.fwht(v) != mat_vec(w, v):
                bad.append(f"fwht(v) != W v, N={n}")
    return Certificate(CLAIM, "fwht / walsh_matrix", {"N": ns}, "unit and random vectors",
                       len(bad), "fwht = W (entry formula); W W v = N v", not bad,
                       {"failures": bad[:5]})


def _pairs(full: bool) -> list[tuple[list[Fraction | int], list[Fraction | int]]]:
    out: list[tuple[list[Fraction | int], list[Fraction | int]]] = []
    for n, vals in [(2, (-1, 0, 1, 2))] + ([(4, (-1, 0, 1))] if full else []):
        vecs = [list(v) for v in itertools.product(vals, repeat=n)]
        out += [(h, x) for h in vecs for x in vecs]
    rng = random.Random(13)
    for n in (4, 8, 16):
        for _ in range(20 if full else 6):
            h: list[Fraction | int] = [Fraction(rng.randint(-20, 20), rng.randint(1, 5))
                                       for _ in range(n)]
            x: list[Fraction | int] = [rng.randint(-5, 5) for _ in range(n)]
            out.append((h, x))
    return out


def _convolution_certificate(full: bool) -> Certificate:
    bad: list[str] = []
    pairs = _pairs(full)
    for h, x in pairs:
        want_xor = direct_xor_convolve(h, x)
        want_circ = direct_circular_convolve(h, x)
        if [Fraction(v) for v in groups.xor_convolve(h, x)] != want_xor:
            bad.append(f"xor_convolve {h} {x}")
        if mat_vec(groups.xor_circulant(h), x) != want_xor:
            bad.append(f"xor_circulant {h}")
        if [Fraction(v) for v in groups.circular_convolve(h, x)] != want_circ:
            bad.append(f"circular_convolve {h} {x}")
        if mat_vec(groups.circulant(h), x) != want_circ:
            bad.append(f"circulant {h}")
        if len(bad) > 4:
            break
    return Certificate(CLAIM + ": convolutions", "xor_convolve, xor_circulant, circular_convolve,"
                       " circulant", {"pairs": len(pairs)}, "grid of (h, x)", len(bad),
                       "= the defining double sums", not bad, {"failures": bad[:5]})


def _hartley_certificate() -> Certificate:
    cas = [[int(sympy.cos(sympy.pi * k * m / 2) + sympy.sin(sympy.pi * k * m / 2))
            for m in range(4)] for k in range(4)]
    t = transforms.hartley4()
    gram = [[sum(t[i][k] * t[j][k] for k in range(4)) for j in range(4)] for i in range(4)]
    ok = t == cas and gram == [[4 if i == j else 0 for j in range(4)] for i in range(4)]
    return Certificate(CLAIM + ": Hartley", "hartley4", {"N": 4}, "16 entries", None,
                       "= cas(2 pi k n/4); T^T T = 4 I", ok, {"hartley4": t})


def _sympy_rounded(n: int, c: Fraction) -> list[list[int]]:
    """round_half_up(c Q) with sympy's exact floor (Q: rows 1/sqrt N, sqrt(2/N) cos, sin, and
    (-1)^m/sqrt N for even N)."""
    cc = sympy.Rational(c.numerator, c.denominator)
    half = sympy.Rational(1, 2)
    rows = [[1 / sympy.sqrt(n)] * n]
    for k in range(1, (n + 1) // 2):
        if 2 * k == n:
            break
        rows.append([sympy.sqrt(sympy.Rational(2, n)) * sympy.cos(2 * sympy.pi * k * m / n)
                     for m in range(n)])
        rows.append([sympy.sqrt(sympy.Rational(2, n)) * sympy.sin(2 * sympy.pi * k * m / n)
                     for m in range(n)])
    if n % 2 == 0:
        rows.append([(-1) ** m / sympy.sqrt(n) for m in range(n)])
    return [[int(sympy.floor(sympy.nsimplify(cc * v) + half)) for v in row] for row in rows]


def _rounding_certificate(full: bool) -> Certificate:
    grid = [(3, Fraction(3)), (5, Fraction(4)), (4, Fraction(2))]
    if full:
        grid += [(5, Fraction(8)), (6, Fraction(5, 2)), (8, Fraction(8)), (16, Fraction(2))]
    bad = []
    for n, c in grid:
        got = transforms.real_fourier_rounded(n, c)
        want = _sympy_rounded(n, c)
        if got != want:
            bad.append({"N": n, "c": c, "got": got, "sympy": want})
    z3 = transforms.real_fourier_rounded(3, 3)
    notes_z3 = [[2, 2, 2], [2, -1, -1], [0, 2, -2]]
    return Certificate(CLAIM + ": rounded real Fourier", "real_fourier_rounded",
                       {"grid": [(n, c) for n, c in grid]}, "every entry", len(bad),
                       "= sympy exact rounding; Z_3 at c = 3 = the hand-derived T",
                       not bad and z3 == notes_z3, {"mismatches": bad[:2], "Z3_c3": z3})


def check(full: bool) -> ClaimReport:
    certs = [_fwht_certificate(full), _convolution_certificate(full), _hartley_certificate(),
             _rounding_certificate(full)]
    return ClaimReport(CLAIM, "fwht N <= 16 (64 full); all (h, x) in {-1..2}^2 ({-1..1}^4 full) + "
                       "random Fraction vectors; Hartley; rounded Fourier N = 3, 4, 5",
                       f"{sum(not c.verdict for c in certs)} failing parts",
                       "W^2 = N I; fast = direct; exact rounding", certs)
