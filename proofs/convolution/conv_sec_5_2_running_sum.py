"""Paper 002 §5.2 (running sums): the printed spectrum is wrong, and the MSE of
Algorithm 1 on running sums grows as log^2 N, not O(1).  Exact in the cyclotomic ring Z[zeta_2N]."""

from __future__ import annotations

from fractions import Fraction

from sympy import Poly, Symbol, cyclotomic_poly

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.proofs.convolution._conv import PI_HI, PI_LO, round_out, sin_bounds

CLAIM = "Conv §5.2 running sums (P6: printed spectrum and O(1) MSE wrong)"
SLIP = ("Section 5.2's spectrum of the running sum is wrong, and its MSE grows as log^2 N, not "
        'O(1).')
STATEMENT = """Paper 002 §5.2: for h = (1^N, 0^N) (length 2N, x padded with N zeros) 'an elementary computation
reveals that h^_1 = sqrt(N) and h^_i = O(N^-1/2) for all i > 1', so Algorithm 1 has MSE O(1).
Notes P6: in fact h^_0^2 = N/2, h^_m = 0 for even m != 0, and |h^_m|^2 = 1/(2N sin^2(pi m/2N))
for odd m; hence |h^_1|^2 ~ 2N/pi^2 (not N), N |h^_3|^2 grows linearly (not O(1)), and
Theorem 9's MSE (4L/eps^2) ||h^||_1^2/(2N) grows as ln^2 N/pi^2: Theta(log^2 N)."""
PROOF_IDEA = """lambda_m = sqrt(2N) h^_m = sum_{n<N} zeta^(mn), zeta = exp(-2 pi i/2N), lives in Z[zeta] =
Z[x]/Phi_2N(x) (Phi from sympy, reduction by integer polynomial division here): lambda_m
must reduce to 0 for even m != 0 and lambda_m conj(lambda_m) (2 - zeta^m - zeta^-m) to the
constant 4 for odd m (i.e. |h^_m|^2 = 4/(2N (2 - 2 cos(pi m/N))) = 1/(2N sin^2(pi m/2N))),
exactly, for every m and N <= 16 (full: <= 32).  Then ||h^||_1 = (N + S)/sqrt(2N),
S = sum_{odd m} csc(pi m/2N), so ||h^||_1^2/(2N) = (N + S)^2/(4N^2) is enclosed in rational
bounds (pi between convergents, sin by alternating Taylor bounds): the printed values must
lie outside the paper's claims (|h^_1|^2 in [2N/pi^2 .. ] < N; N |h^_3|^2 >= 2N^2/(9 pi^2)),
and the enclosures of ||h^||_1^2/(2N) must contain the hand-derived 3.47 (N = 16), 7.54 (256),
13.17 (4096, full)."""


def _phi(k: int) -> list[int]:
    """Coefficients of the cyclotomic polynomial Phi_k, lowest degree first."""
    x = Symbol("x")
    return [int(c) for c in reversed(Poly(cyclotomic_poly(k, x), x).all_coeffs())]


def _reduce(coeffs: dict[int, int], modulus: list[int]) -> list[int]:
    """``sum c_e x^e`` modulo the monic integer polynomial ``modulus``."""
    deg = len(modulus) - 1
    top = max(list(coeffs) + [0])
    a = [0] * (top + 1)
    for e, c in coeffs.items():
        a[e] += c
    for i in range(top, deg - 1, -1):
        c = a[i]
        if c:
            for j, m in enumerate(modulus):
                a[i - deg + j] -= c * m
    return a[:deg]


def ring_checks(n: int) -> tuple[bool, bool]:
    """(every even m != 0 has lambda_m = 0, every odd m has |lambda_m|^2 |1 - zeta^m|^2 = 4)."""
    period = 2 * n
    phi = _phi(period)
    even_ok = odd_ok = True
    for m in range(1, period):
        lam: dict[int, int] = {}
        for k in range(n):
            e = m * k % period
            lam[e] = lam.get(e, 0) + 1
        if m % 2 == 0:
            even_ok = even_ok and not any(_reduce(lam, phi))
            continue
        # |lambda|^2 * (2 - zeta^m - zeta^-m), exponents taken mod 2N (zeta^2N = 1)
        prod: dict[int, int] = {}
        for e1, c1 in lam.items():
            for e2, c2 in lam.items():
                for e3, c3 in ((0, 2), (m, -1), (period - m, -1)):
                    e = (e1 - e2 + e3) % period
                    prod[e] = prod.get(e, 0) + c1 * c2 * c3
        red = _reduce(prod, phi)
        odd_ok = odd_ok and red[0] == 4 and not any(red[1:])
    return even_ok, odd_ok


def csc_sum_bounds(n: int) -> tuple[Fraction, Fraction]:
    """Rational bounds on S = sum_{odd m < 2N} csc(pi m/2N) = 2 sum_{odd m < N} csc(...)."""
    lo = hi = Fraction(0)
    for m in range(1, n, 2):
        s_lo, s_hi = sin_bounds(PI_LO * m / (2 * n), PI_HI * m / (2 * n))
        a, b = round_out(1 / s_hi, 1 / s_lo)
        lo, hi = lo + a, hi + b
    if n == 1:   # m = 1 = N: csc(pi/2) = 1, counted once
        lo, hi = Fraction(1), Fraction(1)
        return lo, hi
    return 2 * lo, 2 * hi


#: Notes P6: ||h^||_1^2/(2N) at N = 16, 256, 4096, 65536 (two decimals).
NOTES_VALUES = {16: Fraction(347, 100), 256: Fraction(754, 100), 4096: Fraction(1317, 100)}


def _spectrum_certificate(n: int) -> Certificate:
    even_ok, odd_ok = ring_checks(n)
    h0_sq = Fraction(n * n, 2 * n)          # lambda_0 = N, h^_0 = N/sqrt(2N)
    ok = even_ok and odd_ok and h0_sq == Fraction(n, 2)
    return Certificate(CLAIM, f"h = (1^{n}, 0^{n}) in Z[zeta_{2 * n}]", {"N": n},
                       f"every m in [0, {2 * n})", h0_sq,
                       "h^_0^2 = N/2; lambda_m = 0 (even m); |lambda_m|^2 |1 - zeta^m|^2 = 4 "
                       "(odd m)", ok, {"even_zero": even_ok, "odd_closed_form": odd_ok})


def _growth_certificate(n: int) -> Certificate:
    s_lo, s_hi = csc_sum_bounds(n)
    val_lo = (n + s_lo) ** 2 / (4 * n * n)
    val_hi = (n + s_hi) ** 2 / (4 * n * n)
    # |h^_1|^2 = 1/(2N sin^2(pi/2N)) with sin^2 bounds; paper: = N
    b_lo, b_hi = sin_bounds(PI_LO / (2 * n), PI_HI / (2 * n))
    h1_lo, h1_hi = 1 / (2 * n * b_hi ** 2), 1 / (2 * n * b_lo ** 2)
    # N |h^_3|^2 = N/(2N sin^2(3 pi/2N)) >= N/(2N (3 pi/2N)^2) = 2N^2/(9 pi^2): paper O(1)
    h3_lo = Fraction(2 * n * n) / (9 * PI_HI ** 2)
    notes = NOTES_VALUES.get(n)
    within = notes is None or (val_lo - Fraction(1, 200) <= notes <= val_hi + Fraction(1, 200))
    ok = h1_hi < n and within and val_lo > 0
    return Certificate(
        CLAIM + ": growth", f"h = (1^{n}, 0^{n})", {"N": n},
        "certified enclosure", val_lo,
        f"||h^||_1^2/(2N) in [{brief(val_lo, 4)}, {brief(val_hi, 4)}]"
        + (f" (reference {brief(notes, 2)})" if notes is not None else "")
        + f"; |h^_1|^2 in [{brief(h1_lo, 3)}, {brief(h1_hi, 3)}] < N = {n} (paper: = N); "
        f"N |h^_3|^2 >= {brief(h3_lo, 3)} (paper: O(1))", ok,
        {"norm_sq_over_2N": [val_lo, val_hi], "h1_sq": [h1_lo, h1_hi], "N_h3_sq_lower": h3_lo})


def check(full: bool) -> ClaimReport:
    ring_ns = list(range(1, 33 if full else 17))
    growth_ns = [16, 64, 256] + ([1024, 4096] if full else [])
    certs = [_spectrum_certificate(n) for n in ring_ns]
    certs += [_growth_certificate(n) for n in growth_ns]
    growth = certs[len(ring_ns):]
    shown = ", ".join(f"N={c.parameters['N']}: {brief(Fraction(c.worst), 2)}"  # type: ignore
                      for c in growth)
    return ClaimReport(
        CLAIM, f"exact spectrum for N = 1..{ring_ns[-1]}; certified growth at N = "
        f"{', '.join(map(str, growth_ns))}",
        f"||h^||_1^2/(2N) >= {shown} (grows like ln^2 N/pi^2)",
        "h^_0^2 = N/2, even m zero, odd m closed form; the paper's h^_1 = sqrt N and O(1) fail",
        certs)
