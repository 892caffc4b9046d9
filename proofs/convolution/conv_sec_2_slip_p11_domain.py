"""Paper 002 slip P11: the paper's domain moves between [0,1]^N, R^N, {0,1}^N and histograms; the
exact mechanism is private on integer counts and not on the [0,1]^N reading."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import partial
from itertools import product

from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import worst_ratio
from exactdp.convolution.domain import Domain
from exactdp.convolution.mechanism import WalshFourierMechanism
from exactdp.explore import explore
from exactdp.params import ExactDPError
from exactdp.proofs.convolution._conv import histograms, neighbour_pairs, walsh_matrix

CLAIM = "Conv Section 2 slip P11: the input domain"
SLIP = ("The paper's inputs are [0,1]^N (Definition 3 writes [0,1]^n), the MSE is a sup over R^N, "
        "the lower bound uses {0,1}^N and Section 5 histograms [n]^(2^d): on the [0,1]^N "
        "reading two l1-neighbours can differ by a fraction of a count, and an exact "
        "(discrete-noise) Algorithm 1 then has delta = 1.")
NOT_EXERCISABLE = {
    "The log-base mix of slip P11 (log base 2 in Theorem 14 and the lower bounds beside "
    "ln(1/delta) in Algorithm 1 and eq. 5)":
        "it changes constants inside O() and Omega() statements by 1/ln 2 only; the "
        "implementation reads Algorithm 1's ln(1/delta) and log2 N, and every row uses those.",
}
STATEMENT = """Section 2 and Definition 3: databases x in [0,1]^N, neighbours ||x - x'||_1 <= 1, MSE a sup
over x in R^N; Theorems 5-6 argue on {0,1}^N and Section 5 on histograms [n]^(2^d).  With
Algorithm 1's Laplace noise the readings differ by constants; for an exact implementation
(integer noise on integer coefficients) they do not: on [0,1]^N the neighbours 0 and
(1/2, 0, ..., 0) get disjoint output supports."""
PROOF_IDEA = """The implementation's WalshFourierMechanism (h = (3,1,1,0), ratios 2, 3/2, 5/4, 4/3,
histograms(4, 1)).  Fix (integer counts, the implementation's domain): the law of every input,
explored from its release code, has worst two-sided ratio over every neighbouring pair equal
to privacy().pure_ratio, and the mechanism refuses x = (1/2, 0, 0, 0) with a typed error.
Printed reading ([0,1]^N): Algorithm 1's additive release y = N^-1 W diag(lambda) (c + z) with
c = W x and z the rows' noise (the laws of the implementation's row samplers at centre 0;
the map is checked equal to the implementation's reconstruct on every integer noise vector
of the rows' ranges) on x = 0 and x' = (1/2, 0, 0, 0), l1 distance 1/2: the worst ratio
must be infinite (delta = 1)."""

H = [3, 1, 1, 0]
RATIOS = [Fraction(2), Fraction(3, 2), Fraction(5, 4), Fraction(4, 3)]


def mechanism() -> WalshFourierMechanism:
    return WalshFourierMechanism(H, Domain.histograms(len(H), 1), RATIOS)


def _additive_release(mech: WalshFourierMechanism, noisy: Sequence[Fraction]
                      ) -> tuple[Fraction, ...]:
    n = mech.N
    w = walsh_matrix(n)
    lam = mech.eigenvalues
    return tuple(sum((Fraction(w[j][k] * lam[j]) * noisy[i] for i, j in enumerate(mech.rows)),
                     Fraction(0)) / n for k in range(n))


def fractional_law(mech: WalshFourierMechanism, x: Sequence[Fraction]
                   ) -> dict[tuple[Fraction, ...], Fraction]:
    """Law of Algorithm 1's additive release at a real x (noise: the rows' samplers at 0)."""
    w = walsh_matrix(mech.N)
    coeffs = [sum((w[j][k] * x[k] for k in range(mech.N)), Fraction(0)) for j in mech.rows]
    noise = [explore(partial(s.sample_value, 0)) for s in mech.noise.samplers]
    law: dict[tuple[Fraction, ...], Fraction] = {}
    for draw in product(*(sorted(d.items()) for d in noise)):
        p = Fraction(1)
        for _, q in draw:
            p *= q
        y = _additive_release(mech, [c + z for c, (z, _) in zip(coeffs, draw)])
        law[y] = law.get(y, Fraction(0)) + p
    return law


def reconstruct_matches(mech: WalshFourierMechanism) -> bool:
    ranges = [range(lo, hi + 1) for lo, hi in mech.ranges]
    return all(mech.reconstruct(list(v)) == _additive_release(mech, [Fraction(a) for a in v])
               for v in product(*ranges))


def slip_certificate() -> Certificate:
    mech = mechanism()
    zero = (Fraction(0),) * mech.N
    half = (Fraction(1, 2),) + zero[1:]
    refused = False
    try:
        mech.sample_with(half, None)  # type: ignore[arg-type]
    except ExactDPError:
        refused = True
    printed = worst_ratio([(zero, fractional_law(mech, zero), half, fractional_law(mech, half)),
                           (half, fractional_law(mech, half), zero, fractional_law(mech, zero))])
    elems = histograms(mech.N, 1)
    laws = {x: explore(partial(mech.sample_with, x)) for x in elems}
    pairs = neighbour_pairs(elems)
    fixed = worst_ratio([(x, laws[x], y, laws[y]) for x, y, _ in pairs]
                        + [(y, laws[y], x, laws[x]) for x, y, _ in pairs]).ratio
    target = mech.privacy().pure_ratio
    ok = (refused and reconstruct_matches(mech) and printed.ratio is None
          and fixed is not None and fixed == target)
    return Certificate(CLAIM, repr(mech), {"h": H, "ratios": RATIOS},
                       "[0,1]^N pair 0, (1/2,0,0,0); histograms(4, 1) neighbours",
                       "inf" if printed.ratio is None else printed.ratio,
                       f"[0,1]^N reading: infinite ratio (delta = 1); integer counts: worst "
                       f"ratio {fixed} = pure_ratio {target}; (1/2,0,0,0) refused", ok,
                       {"outcome": printed.outcome, "integer_worst": fixed})


def check(full: bool) -> ClaimReport:
    certs = [slip_certificate()]
    return ClaimReport(CLAIM, "Walsh N = 4 on histograms(4, 1) and the pair 0, (1/2, 0, 0, 0)",
                       f"integer-count worst ratio {certs[0].witness['integer_worst']}",
                       "[0,1]^N reading: delta = 1; integer counts: private, fraction refused",
                       certs)
