"""Theorems 5.5 and 5.6: StabilityHistogram is (eps, delta)-DP (exact hockey-stick)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import hockey_stick_eps
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms.basic import (
    StabilityHistogram,
    theorem_5_6_gamma,
    theorem_5_6_threshold,
)
from exactdp.histograms.data import Universe
from exactdp.proofs._histograms import (
    Distributions,
    canonical_datasets,
    neighbour_pairs,
    sample_noncanonical,
)

CLAIM = "Theorem 5.5"
STATEMENT = """Let M be (eps/2, 0)-DP for counting queries and b in [n].  StabilityHistogram_{M,b}
(Algorithm 5.4) is (eps, delta)-DP whenever delta >= 2 Pr[M(1, U) > b] (Theorem 5.5 i).
Theorem 5.6 i: with M = FastSample_{n,eps,gamma}, gamma = min(beta0/(2n), delta/4) and
b = 1 + ceil(9/(2 eps) ln(4/delta)), it is (eps, delta)-DP."""
PROOF_IDEA = """Only the (at most two) bins whose counts differ matter; each is (eps/2, delta/2)-close:
if both counts are >= 1 by M's privacy, and a bin with count 1 against count 0 is released
only when M(1, U) > b, probability <= delta/2.  Composition gives (eps, delta).
Checks (5.5 i): for every b in [0, n], delta_b = 2 Pr[M(1,U) > b] computed exactly from M's
integer CDF; the exact hockey-stick divergence sum_h max(0, P(h) - e^eps Q(h)) of the
implementation's explored output distributions, over every neighbouring pair both ways,
is at most delta_b (certified: evaluated at a rational L <= e^eps, which can only make it
larger).  Padded and unpadded releases have identical distributions.  (5.6 i): at the
theorem's parameters the hypothesis delta >= 2 Pr[M(1,U) > b] of 5.5 i is decided exactly
for realistic n (up to 10^6), eps, delta and beta0; on tiny n the theorem's b exceeds n
and the release is always empty (checked: point mass on the empty histogram); and at n above
b (n = 12 with eps = 1, delta = 1/2: b = 11), where the release is not empty, the exact
hockey-stick of the explored release laws over every neighbouring pair is at most delta."""


def _mechanisms(n: int, full: bool) -> list[InverseCDFSampler]:
    epss = [Fraction(1), Fraction(1, 2)] + ([Fraction(1, 4)] if full else [])
    out: list[InverseCDFSampler] = []
    for eps in epss:
        out.append(GeoSample(n, eps))
        out.append(FastSample(n, eps, Fraction(1, 2)))
        if full:
            out.append(FastSample(n, eps, Fraction(1, 100)))
    return out


def _sizes(n: int, full: bool) -> list[int]:
    """The universe sizes |X| checked for this n (quick: n = 3 only at |X| = 3)."""
    if full:
        return [2, 3, 4, 5]
    return [3] if n == 3 else [3, 4]


def _set_text(values: Iterable[Fraction | int]) -> str:
    items = sorted(set(values))
    return f"={items[0]}" if len(items) == 1 else " in {" + ", ".join(map(str, items)) + "}"


def _grid_text(certs: Sequence[Certificate]) -> str:
    """The grid as run, read off the certificates: |X| per n (n grouped by equal sets)
    and the epsilons."""
    sizes: dict[int, set[int]] = {}
    for c in certs:
        sizes.setdefault(c.parameters["n"], set()).add(c.parameters["|X|"])
    groups: dict[tuple[int, ...], list[int]] = {}
    for n, xs in sizes.items():
        groups.setdefault(tuple(sorted(xs)), []).append(n)
    parts = [f"n{_set_text(ns)}: |X|{_set_text(xs)}" for xs, ns in groups.items()]
    return "; ".join(parts) + f"; eps{_set_text(c.parameters['epsilon'] for c in certs)}"


def check_5_5(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    worst_share = Fraction(0)
    for n in (1, 2, 3):
        for mech in _mechanisms(n, full):
            for size in _sizes(n, full):
                universe = Universe(size)
                eps = getattr(mech, "epsilon", Fraction(0))
                for b in range(n + 1):
                    padded = StabilityHistogram(mech, universe, b, padded=True)
                    plain = StabilityHistogram(mech, universe, b, padded=False)
                    dists = Distributions(padded.release, universe)
                    plain_dists = Distributions(plain.release, universe)
                    delta_b = padded.certified_delta()
                    hs = Fraction(0)
                    for d, e in neighbour_pairs(n, size):
                        pd, pe = dists(d), dists(e)
                        hs = max(hs, hockey_stick_eps(pd, pe, eps).hi,
                                 hockey_stick_eps(pe, pd, eps).hi)
                    same = all(dists(d) == plain_dists(d) for d in canonical_datasets(n, size))
                    sym_bad = dists.symmetry_failures(
                        sample_noncanonical(n, size, 10**6 if full else 1))
                    if delta_b:
                        worst_share = max(worst_share, hs / delta_b)
                    certs.append(Certificate(
                        "Theorem 5.5 (i)", repr(padded), {"n": n, "epsilon": eps, "b": b,
                                                          "|X|": size},
                        "every neighbouring pair, both directions", hs,
                        f"<= 2 Pr[M(1,U) > b] = {delta_b}",
                        hs <= delta_b and same and not sym_bad,
                        {"delta_b": delta_b, "padded_equals_unpadded": same,
                         "symmetry_failures": sym_bad}))
    return ClaimReport(
        "Theorem 5.5 (i)",
        f"{_grid_text(certs)}; every b in [0,n], GeoSample and FastSample; all "
        f"neighbouring pairs", 
        f"max hockey-stick / (2 Pr[M(1,U) > b]) = {brief(worst_share)}",
        "hockey-stick at e^eps <= 2 Pr[M(1,U) > b]", certs)


def check_5_6(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    ns = [10, 100, 1000, 10**4, 10**6] if full else [10, 1000, 10**6]
    epss = [Fraction(1), Fraction(1, 10), Fraction(1, 100)] if full else [Fraction(1),
                                                                         Fraction(1, 10)]
    deltas = [Fraction(1, 10**3), Fraction(1, 10**6), Fraction(1, 10**9)]
    betas = [Fraction(1, 20), Fraction(1, 1000)]
    worst = Fraction(0)
    for n in ns:
        for eps in epss:
            for delta in deltas:
                for beta0 in betas:
                    gamma = theorem_5_6_gamma(beta0, delta, n)
                    b = theorem_5_6_threshold(eps, delta)
                    alg = StabilityHistogram(FastSample(n, eps, gamma), Universe(2**64), b)
                    need = alg.certified_delta()
                    worst = max(worst, need / delta)
                    # What the release prints and decides with: the integer decision and the
                    # dyadic upper bound must agree with the exact Fraction.
                    upper = alg.certified_delta_upper()
                    shown_ok = (alg.delta_at_most(delta) == (need <= delta)
                                and need <= upper <= need * (1 + Fraction(1, 2**64)))
                    certs.append(Certificate(
                        "Theorem 5.6 (i)", repr(alg), {"n": n, "epsilon": eps, "delta": delta,
                                                       "beta0": beta0, "gamma": gamma, "b": b},
                        "parameter condition of Theorem 5.5 i", need,
                        "2 Pr[M(1,U) > b] <= delta (decided and printed bounds agree)",
                        need <= delta and shown_ok, {"printed_upper_bound": upper}))
    # Tiny n: the theorem's b exceeds n, so the release is always empty.
    for n in (1, 2, 3):
        for eps in (Fraction(1), Fraction(1, 2)):
            alg = StabilityHistogram.theorem_5_6(Universe(4), n, eps, Fraction(1, 4),
                                                 Fraction(1, 2))
            dists = Distributions(alg.release, alg.universe)
            empty = all(dists(d) == {(): Fraction(1)} for d in canonical_datasets(n, 4))
            certs.append(Certificate(
                "Theorem 5.6 (i), tiny n", repr(alg), {"n": n, "epsilon": eps, "b":
                                                       alg.threshold},
                "|X| = 4, every dataset", None, "b >= n: always the empty histogram",
                empty and alg.threshold >= n, {}))
    # b < n: the release is not empty, and its exact law is (eps, delta)-DP at the theorem's
    # own parameters (eps = 1, beta0 = 1/2; delta = 1/2 gives b = 11, delta = 1/4 b = 14).
    released = _theorem_5_6_exhaustive(full, certs)
    return ClaimReport(
        "Theorem 5.6 (i)",
        f"n in {ns}, eps in {[str(e) for e in epss]}, delta in {{1e-3, 1e-6, 1e-9}}, "
        f"beta0 in {{1/20, 1/1000}}, |X| = 2^64; tiny n exhaustive (b >= n: empty); "
        f"b < n exhaustive: {_EXHAUSTIVE_TEXT[full]}; max Pr[non-empty] {brief(released)}",
        f"max 2 Pr[M(1,U) > b] / delta = {brief(worst)}",
        "2 Pr[M(1,U) > b] <= delta (then Theorem 5.5 i applies)", certs)


#: (n, |X|, delta) at eps = 1, beta0 = 1/2 where Theorem 5.6's b is below n.
_EXHAUSTIVE = {False: [(12, 2, Fraction(1, 2)), (15, 2, Fraction(1, 4))],
               True: [(12, 2, Fraction(1, 2)), (12, 3, Fraction(1, 2)), (16, 2, Fraction(1, 2)),
                      (16, 3, Fraction(1, 2)),
                      (15, 2, Fraction(1, 4))]}
_EXHAUSTIVE_TEXT = {full: ", ".join(f"n={n} |X|={x} delta={d}" for n, x, d in grid)
                    for full, grid in _EXHAUSTIVE.items()}


def _theorem_5_6_exhaustive(full: bool, certs: list[Certificate]) -> Fraction:
    """Theorem 5.6 (i) on every neighbouring pair where b < n: the exact hockey-stick of the
    explored laws of the unpadded release (the padded one has the same law, checked by
    Theorem 5.5 (i)'s row; its dummy draws would multiply the paths by (n + 1)^(n - |A|)) at
    e^eps (certified) against delta; returns the largest probability of a non-empty release
    seen (it must be > 0: else the grid is vacuous)."""
    eps, beta0 = Fraction(1), Fraction(1, 2)
    most = Fraction(0)
    for n, size, delta in _EXHAUSTIVE[full]:
        alg = StabilityHistogram.theorem_5_6(Universe(size), n, eps, delta, beta0, padded=False)
        dists = Distributions(alg.release, alg.universe)
        hs = Fraction(0)
        for d, e in neighbour_pairs(n, size):
            pd, pe = dists(d), dists(e)
            hs = max(hs, hockey_stick_eps(pd, pe, eps).hi, hockey_stick_eps(pe, pd, eps).hi)
        nonempty = max(1 - dists(d).get((), Fraction(0)) for d in canonical_datasets(n, size))
        most = max(most, nonempty)
        certs.append(Certificate(
            "Theorem 5.6 (i), b < n", repr(alg), {"n": n, "|X|": size, "epsilon": eps,
                                                  "delta": delta, "b": alg.threshold},
            "every neighbouring pair, both directions", hs,
            f"<= delta = {delta}, with b < n and Pr[non-empty] > 0",
            hs <= delta and alg.threshold < n and nonempty > 0,
            {"max_pr_nonempty": nonempty}))
    return most


CHECKS = [check_5_5, check_5_6]
