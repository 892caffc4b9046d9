"""Paper 002 §5.3's named linear filters on the implementation: window sums, exponentially
decayed sums and the Hodrick-Prescott trend (exactdp.convolution.filters) computed by the
convolution mechanisms' own noise-free path, against their definitions."""

from __future__ import annotations

import random
from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.convolution.cyclic import CyclicFourierMechanism
from exactdp.convolution.domain import Domain
from exactdp.convolution.filters import decay, hodrick_prescott, window
from exactdp.convolution.linear import LinearConvolutionMechanism

CLAIM = "Conv Section 5.3 window, decay and Hodrick-Prescott filters"
STATEMENT = """Section 5.3: the window sum y_t = sum_{i<W} x_(t-i), the decayed sum y_t =
sum_{i<W} alpha^i x_(t-i) and the Hodrick-Prescott trend are linear filters, so Algorithm 1
releases them.  The window and decayed sums are linear convolutions (zero padded); the HP
trend tau = argmin sum (x_t - tau_t)^2 + lam sum (tau_(t+1) - 2 tau_t + tau_(t-1))^2 is a
convolution on the cycle Z_N, by the filter (I + lam D^T D)^-1 e_0.  The volatility filter is
not linear (see the volatility row)."""
PROOF_IDEA = """On seeded random series x: LinearConvolutionMechanism with window(W) and decay(alpha, W)
(W = 1 .. 5, alpha = 1/2, 2/3, 1): its noise-free output G (T pad(x)) must equal the defining
sums here (terms with t - i < 0 absent).  HP (lam = 1, 10, 1600; N = 5 .. 12): the
implementation's filter h, run through CyclicFourierMechanism's noise-free path, gives tau; tau
must satisfy the normal equations (I + lam D^T D) tau = x with D the circular second difference
built here (the objective is strictly convex, so this is the unique minimiser), and h must sum
to 1 and be symmetric."""


def _noise_free(mech: object, x: list[int]) -> list[Fraction]:
    m = mech
    c = m.coefficients(m.pad(x) if hasattr(m, "pad") else x)  # type: ignore[attr-defined]
    return list(m.reconstruct([c[j] for j in m.rows]))  # type: ignore[attr-defined]


def window_decay_certificate(full: bool) -> Certificate:
    rng = random.Random(531)
    ok = True
    cases = 0
    bad: dict[str, object] = {}
    for w in range(1, 6):
        for alpha in (Fraction(1, 2), Fraction(2, 3), Fraction(1)):
            for _ in range(2 if full else 1):
                n = rng.randint(2, 6)
                x = [rng.randint(0, 4) for _ in range(n)]
                for name, h, weight in (("window", window(w), lambda i: 1),
                                        ("decay", decay(alpha, w), lambda i, a=alpha: a ** i)):
                    mech = LinearConvolutionMechanism(h, Domain.box(n, 4), Fraction(2),
                                                      strategy="real-fourier", scale=8)
                    want = [sum((weight(i) * x[t - i] for i in range(w) if 0 <= t - i < n),
                                Fraction(0)) for t in range(n + w - 1)]
                    got = _noise_free(mech, x)
                    cases += 1
                    if got != want and not bad:
                        bad = {"filter": name, "W": w, "alpha": alpha, "x": x, "got": got,
                               "want": want}
                    ok = ok and got == want
    return Certificate(CLAIM + ": window and decay", "LinearConvolutionMechanism", {},
                       "seeded random x, W = 1..5", cases, "noise-free output = the defining "
                       "sums", ok, bad)


def hp_certificate(lam: Fraction, n: int, rng: random.Random) -> Certificate:
    h = hodrick_prescott(lam, n)
    x = [rng.randint(0, 9) for _ in range(n)]
    mech = CyclicFourierMechanism(h, Domain.box(n, 9), Fraction(2), strategy="real-fourier",
                                  scale=8)
    tau = _noise_free(mech, x)
    # D tau: (tau_(t+1) - 2 tau_t + tau_(t-1)); D^T D tau by applying D^T = D (symmetric stencil)
    def d(v: list[Fraction]) -> list[Fraction]:
        return [v[(t + 1) % n] - 2 * v[t] + v[(t - 1) % n] for t in range(n)]

    normal = [a + lam * b for a, b in zip(tau, d(d(tau)), strict=True)]
    ok = (normal == [Fraction(v) for v in x] and sum(h) == 1
          and all(h[k] == h[(n - k) % n] for k in range(n)))
    return Certificate(CLAIM + ": Hodrick-Prescott", f"hodrick_prescott({lam}, {n})",
                       {"lambda": lam, "N": n, "x": x}, "noise-free trend", n,
                       "(I + lam D^T D) tau = x exactly; h symmetric, sum 1", ok,
                       {} if ok else {"tau": tau, "normal": normal})


def check(full: bool) -> ClaimReport:
    rng = random.Random(5)
    certs = [window_decay_certificate(full)]
    sizes = range(5, 13) if full else (5, 6, 8)
    certs += [hp_certificate(lam, n, rng) for lam in (Fraction(1), Fraction(10), Fraction(1600))
              for n in sizes]
    return ClaimReport(CLAIM, f"{certs[0].worst} window/decay cases; HP at lambda = 1, 10, 1600, "
                       f"N = {', '.join(map(str, sizes))}", "all exact",
                       "defining sums; HP normal equations", certs)
