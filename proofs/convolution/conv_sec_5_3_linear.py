"""Paper 002 §5.3: linear convolution by zero padding, on the implementation
(LinearConvolutionMechanism): exact identity, release law, and privacy over the real inputs."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import hockey_stick, statistical_distance, worst_ratio
from exactdp.convolution.domain import Domain
from exactdp.convolution.linear import LinearConvolutionMechanism, linear_convolve
from exactdp.proofs.convolution._conv import (
    direct_circular_convolve,
    histograms,
    lemma_delta,
    lemma_pure_ratio,
    neighbour_pairs,
)
from exactdp.proofs.convolution._conv_mech import explored_laws, reference_output_laws

CLAIM = "Conv Section 5.3 linear convolution by zero padding"
STATEMENT = """Section 5.3: linear (non-circular) convolution y_k = sum_{i+j=k} x_i h_j (x of length n,
h of length m, k = 0 .. n+m-2) is circular convolution on Z_N after padding x and h with
zeros to N = n + m - 1, so Algorithm 1 on Z_N releases it.  The release is post-processing of
the circular mechanism restricted to padded inputs, so its privacy is that mechanism's over
the n real coordinates: worst ratio max_{n' < n} prod_j r_j^|T_jn'|, delta(R) the exact
profile over those columns."""
PROOF_IDEA = """Identity: on seeded random integer h, x (n, m = 1 .. 7), the mechanism's noise-free
path G (T pad(x)) (its own coefficients and reconstruction) and its padded circular
convolution (the direct sum here) must equal the linear convolution by its defining double
sum here, entry by entry.  Release: LinearConvolutionMechanism on histograms(n, 1)
(n = 2, m = 2, N = 3, real-fourier at scale 3, fixed ratios) explored on every input: its law
must equal the clamped geometric rows' product pushed through G = H T^-1 computed here
(TV = 0) on the padded input, with the public ranges from the padded domain; over every
neighbouring pair of the REAL domain (both orders) the worst ratio must equal
max over the n real columns of prod r_j^|T_jn| (computed here) and privacy().pure_ratio, and
the largest hockey stick at each R of a grid must equal privacy().delta(R)."""

F = Fraction


def _linear(h: list[int], x: list[int]) -> list[int]:
    """The defining double sum (independent of the implementation)."""
    out = [0] * (len(h) + len(x) - 1)
    for k in range(len(out)):
        out[k] = sum(x[i] * h[k - i] for i in range(len(x)) if 0 <= k - i < len(h))
    return out


def identity_certificate(full: bool) -> Certificate:
    rng = random.Random(53)
    trials = 0
    ok = True
    first_bad: dict[str, Any] = {}
    for _ in range(30 if full else 10):
        n, m = rng.randint(1, 7), rng.randint(1, 7)
        h = [rng.randint(-3, 5) for _ in range(m)]
        if not any(h):
            h[0] = 1
        x = [rng.randint(0, 3) for _ in range(n)]
        mech = LinearConvolutionMechanism(h, Domain.box(n, 3), F(2), strategy="real-fourier",
                                          scale=8)
        big = n + m - 1
        c = mech.coefficients(mech.pad(x))
        noise_free = list(mech.reconstruct([c[j] for j in mech.rows]))
        padded = direct_circular_convolve(h + [0] * (big - m), x + [0] * (big - n))
        want = _linear(h, x)
        good = (mech.N == big and noise_free == want and padded == want
                and linear_convolve(h, x) == want and mech.convolve(x) == want)
        trials += 1
        if not good and not first_bad:
            first_bad = {"h": h, "x": x, "noise_free": noise_free, "linear": want}
        ok = ok and good
    return Certificate(CLAIM + ": identity", "LinearConvolutionMechanism (real-fourier, c = 8)",
                       {"trials": trials}, "seeded random h, x with n, m in 1..7", trials,
                       "G T pad(x) = padded circular = linear convolution, exactly", ok,
                       first_bad)


def release_certificate(h: list[int], n: int, ratios: list[Fraction],
                        grid: list[Fraction]) -> Certificate:
    dom = Domain.histograms(n, 1)
    mech = LinearConvolutionMechanism(h, dom, ratios, strategy="real-fourier", scale=3)
    big = mech.N
    elems = histograms(n, 1)
    padded_elems = histograms(big, 1)
    t = [list(r) for r in mech.strategy.T]
    hm = [list(r) for r in mech.strategy.H]
    kept, rk = list(mech.rows), list(mech.ratios)
    laws = explored_laws(mech, elems)
    ref = reference_output_laws(t, hm, dict(zip(kept, rk)),
                                [x + (0,) * (big - n) for x in elems], padded_elems)
    tv = max(statistical_distance(laws[x], ref[x + (0,) * (big - n)]) for x in elems)
    pairs = neighbour_pairs(elems)
    ordered = [(x, laws[x], y, laws[y]) for x, y, _ in pairs] + \
              [(y, laws[y], x, laws[x]) for x, y, _ in pairs]
    w = worst_ratio(ordered)
    real_t = [[t[j][k] for k in range(n)] for j in kept]
    pure = lemma_pure_ratio(real_t, rk)
    profile = mech.privacy()
    pure_ok = w.ratio is not None and w.ratio == pure == profile.pure_ratio
    deltas = {}
    delta_ok = True
    for big_r in grid + [pure]:
        hs = max(max(hockey_stick(laws[x], laws[y], big_r), hockey_stick(laws[y], laws[x], big_r))
                 for x, y, _ in pairs)
        deltas[brief(big_r)] = hs
        delta_ok = delta_ok and hs == profile.delta(big_r) == lemma_delta(real_t, rk, big_r)
    ok = tv == 0 and pure_ok and delta_ok
    return Certificate(CLAIM + ": release", repr(mech), {"h": h, "ratios": rk},
                       f"histograms({n}, 1) padded to N = {big}, {len(pairs)} pairs",
                       w.ratio, f"= max over real columns prod r_j^|T_jn| = {brief(pure)}; "
                       "delta(R) = privacy().delta(R); TV to the reference = 0", ok,
                       {"TV": tv, "pure_ratio": pure, "profile_pure_ratio": profile.pure_ratio,
                        "delta": deltas})


def check(full: bool) -> ClaimReport:
    certs = [identity_certificate(full),
             release_certificate([2, 1], 2, [F(2), F(3, 2), F(5, 3)], [F(1), F(2), F(5)])]
    if full:
        certs.append(release_certificate([1, 1, 1], 2, [F(2), F(3, 2), F(5, 3), F(4, 3)],
                                         [F(1), F(3), F(10)]))
    return ClaimReport(CLAIM, f"{certs[0].worst} random (h, x); {len(certs) - 1} padded "
                       "release(s) explored on every input of the real domain",
                       f"worst ratio {brief(Fraction(certs[1].worst))}",  # type: ignore[arg-type]
                       "identity exact; worst ratio = privacy().pure_ratio; delta(R) exact",
                       certs)
