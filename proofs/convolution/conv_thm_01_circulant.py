"""Paper 002 Theorem 1 (Gray) and Corollary 1 on Z_N, beyond the Walsh form: circulants are
diagonalised by the DFT, checked exactly in the group ring Z[z]/(z^N - 1) on the implementation's
circulant and circular convolution, and the implementation's certified |lambda_m| checked
against exact values."""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.convolution.baselines import cyclic_magnitudes
from exactdp.convolution.groups import circulant, circular_convolve
from exactdp.proofs.convolution._conv import sqrt_bounds

CLAIM = "Conv Theorem 1 circulant diagonalisation on Z_N"
STATEMENT = """Theorem 1 (Gray): the circulant H with first column h (Definition 1) has eigenvectors f_m
(column m of F^H, entries omega^(m k)/sqrt N, omega = e^(2 pi i/N)) with eigenvalues
lambda_m = sqrt N h^_m = sum_n h_n omega^(-m n).  Corollary 1: the DFT of y = h * x is
lambda o x^ (convolution theorem).  Both are identities in the group ring Z[z]/(z^N - 1)
evaluated at z = omega^m, so they hold for every m at once when they hold in the ring."""
PROOF_IDEA = """Group ring Z[z]/(z^N - 1), elements as coefficient vectors, products by the
defining double sum here.  For N = 2 .. 9 and seeded random integer h, x: with H the
implementation's circulant(h), sum_n H[k][n] z^(m n) must equal (sum_n h_n z^(-m n)) z^(m k)
for every row k and every m (Theorem 1 at z = omega), and the implementation's
circular_convolve(h, x) must have the generating polynomial h(z) x(z) mod z^N - 1
(Corollary 1 for every m).  Eigenvalues: the implementation's certified intervals for
|lambda_m| (cyclic_magnitudes, used for the paper's eq. 5) must contain the exact values
where cos(2 pi j/N) lies in Q or Q(sqrt 2) (N = 2, 3, 4, 6, 8: |lambda_m|^2 = sum_d a_d
cos(2 pi m d/N), a the cyclic autocorrelation), be narrower than 2^-40, and their squares and
fourth powers must contain N sum h_n^2 and N sum_d a_d^2 (Parseval, every N)."""

Ring = tuple[int, ...]


def _mul(a: Sequence[int], b: Sequence[int]) -> Ring:
    n = len(a)
    out = [0] * n
    for i, u in enumerate(a):
        if u:
            for j, v in enumerate(b):
                out[(i + j) % n] += u * v
    return tuple(out)


def _monomial(n: int, e: int, coeff: int = 1) -> Ring:
    out = [0] * n
    out[e % n] = coeff
    return tuple(out)


def _add(a: Sequence[int], b: Sequence[int]) -> Ring:
    return tuple(u + v for u, v in zip(a, b, strict=True))


def ring_certificate(n: int, rng: random.Random) -> Certificate:
    h = [rng.randint(-4, 6) for _ in range(n)]
    x = [rng.randint(0, 5) for _ in range(n)]
    big_h = circulant(h)
    zero = (0,) * n
    ok = True
    bad: dict[str, object] = {}
    for m in range(n):
        lam = zero
        for k in range(n):
            lam = _add(lam, _monomial(n, -m * k, h[k]))
        for k in range(n):
            left = zero
            for col in range(n):
                left = _add(left, _monomial(n, m * col, int(big_h[k][col])))
            right = _mul(lam, _monomial(n, m * k))
            if left != right and not bad:
                bad = {"m": m, "row": k, "H f_m": left, "lambda_m f_m": right}
            ok = ok and left == right
    cor = circular_convolve(h, x) == list(_mul(h, x))
    ok = ok and cor
    return Certificate(CLAIM + ": group ring", f"N = {n}", {"h": h, "x": x},
                       f"every m < {n}, every row", n, "H f_m = lambda_m f_m; h * x = h(z) x(z)",
                       ok, {**bad, "corollary_1": cor})


def _autocorrelation(h: Sequence[int]) -> list[int]:
    n = len(h)
    return [sum(h[j] * h[(j + d) % n] for j in range(n)) for d in range(n)]


#: cos(2 pi j/N) as a + b sqrt 2 (exact) where it lies in Q(sqrt 2)
_HALF = Fraction(1, 2)
_COS: dict[int, list[tuple[Fraction, Fraction]]] = {
    1: [(Fraction(1), Fraction(0))],
    2: [(Fraction(1), Fraction(0)), (Fraction(-1), Fraction(0))],
    3: [(Fraction(1), Fraction(0)), (-_HALF, Fraction(0)), (-_HALF, Fraction(0))],
    4: [(Fraction(v), Fraction(0)) for v in (1, 0, -1, 0)],
    6: [(Fraction(v), Fraction(0)) for v in (1, _HALF, -_HALF, -1, -_HALF, _HALF)],
    8: [(Fraction(1), Fraction(0)), (Fraction(0), _HALF), (Fraction(0), Fraction(0)),
        (Fraction(0), -_HALF), (Fraction(-1), Fraction(0)), (Fraction(0), -_HALF),
        (Fraction(0), Fraction(0)), (Fraction(0), _HALF)],
}


def magnitude_certificate(h: list[int]) -> Certificate:
    n = len(h)
    ivs = cyclic_magnitudes(h)
    a = _autocorrelation(h)
    s2_lo, s2_hi = sqrt_bounds(Fraction(2))
    ok = all(iv.hi - iv.lo < Fraction(1, 2 ** 40) for iv in ivs)
    contained = 0
    if n in _COS:
        table = _COS[n]
        for m, iv in enumerate(ivs):
            p = sum((a[d] * table[(m * d) % n][0] for d in range(n)), Fraction(0))
            q = sum((a[d] * table[(m * d) % n][1] for d in range(n)), Fraction(0))
            lo = p + q * (s2_lo if q >= 0 else s2_hi)        # |lambda_m|^2 = p + q sqrt 2
            hi = p + q * (s2_hi if q >= 0 else s2_lo)
            inside = max(iv.lo, Fraction(0)) ** 2 <= lo and hi <= iv.hi ** 2
            contained += inside
            ok = ok and inside
    parseval2 = n * sum(v * v for v in h)
    parseval4 = n * sum(v * v for v in a)
    sq_lo = sum((max(iv.lo, Fraction(0)) ** 2 for iv in ivs), Fraction(0))
    sq_hi = sum((iv.hi ** 2 for iv in ivs), Fraction(0))
    q_lo = sum((max(iv.lo, Fraction(0)) ** 4 for iv in ivs), Fraction(0))
    q_hi = sum((iv.hi ** 4 for iv in ivs), Fraction(0))
    ok = ok and sq_lo <= parseval2 <= sq_hi and q_lo <= parseval4 <= q_hi
    return Certificate(CLAIM + ": certified |lambda_m|", f"cyclic_magnitudes, N = {n}",
                       {"h": h}, "every m", contained,
                       "exact |lambda_m|^2 inside (N = 2, 3, 4, 6, 8); Parseval sums of "
                       "squares and fourth powers inside", ok,
                       {"parseval_2": parseval2, "parseval_4": parseval4,
                        "exact_values_inside": contained})


def check(full: bool) -> ClaimReport:
    rng = random.Random(1)
    ns = list(range(2, 13 if full else 10))
    certs = [ring_certificate(n, rng) for n in ns for _ in range(2 if full else 1)]
    sizes = (2, 3, 4, 5, 6, 7, 8, 16) if full else (2, 3, 4, 6, 8)
    mags = [[rng.randint(-3, 5) for _ in range(n)] for n in sizes]
    mags = [h if any(h) else [1] + h[1:] for h in mags]
    certs += [magnitude_certificate(h) for h in mags]
    inside = sum(int(c.worst) for c in certs if "certified" in c.claim)  # type: ignore[arg-type]
    return ClaimReport(CLAIM, f"group ring N = {ns[0]} .. {ns[-1]}; certified |lambda| on "
                       f"{len(mags)} filters", f"{inside} exact |lambda_m|^2 inside the "
                       f"intervals; width < {brief(Fraction(1, 2 ** 40))}",
                       "Theorem 1 and Corollary 1 exact in Z[z]/(z^N - 1); intervals certified",
                       certs)
