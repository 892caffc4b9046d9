"""Proposition 6.5: KH' is identically distributed to KeepHeavy."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import statistical_distance
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms.data import Universe
from exactdp.histograms.sparse import KeepHeavy, KHPrime
from exactdp.proofs._histograms import (
    Distributions,
    all_datasets,
    canonical_datasets,
    sample_noncanonical,
)

CLAIM = "Proposition 6.5"
STATEMENT = """KH'_M(D) (Algorithm 6.4: BasicHistogram over A = supp(D), n + 1 uniformly random
distinct empty elements carrying the top n + 1 order statistics of the m = |X \\ A| empty
bins' noise, then the bins heavier than the (n+1)-th heaviest) is identically distributed
to KeepHeavy_M(D) (Algorithm 6.1: noise on every bin of X, then the same selection)."""
PROOF_IDEA = """The empty bins' noisy counts are i.i.d., so the n + 1 heaviest of them, with ties
broken uniformly, are a uniformly random sequence of distinct empty elements carrying the
top n + 1 order statistics; no bin outside these and A can be strictly heavier than the
(n+1)-th heaviest.  Check: the exact output distributions of the two implementations
(explored, KH' with the exact OrdSample of Algorithm 6.7 and DistinctSample of Algorithm
A.3) are EQUAL, dataset by dataset, in both KH' modes: as printed (strict=False) and the
strict-time mode (strict=True: n noisy draws, 2n+1 distinct draws filtered, order
statistics of |X| - n empty bins merged with n - |A| single draws)."""


def _grid(full: bool) -> list[tuple[InverseCDFSampler, int, bool]]:
    """(mechanism, |X|, strict)."""
    out: list[tuple[InverseCDFSampler, int, bool]] = []
    mechs: dict[int, list[InverseCDFSampler]] = {1: [GeoSample(1, 1), FastSample(1, 1, Fraction(1, 2)),
                 GeoSample(1, Fraction(1, 2))],
             2: [GeoSample(2, 1), FastSample(2, Fraction(1, 2), Fraction(1, 10))],
             3: [GeoSample(3, 1)]}
    for mech in mechs[1]:
        for size in ([3, 4, 5] if full else [3, 4]):
            out += [(mech, size, False), (mech, size, True)]
    for mech in mechs[2]:
        for size in ([5, 6] if full else [5]):
            out.append((mech, size, False))
            if size == 5 and (full or isinstance(mech, GeoSample)):
                out.append((mech, size, True))
    if full:
        out += [(m, 7, False) for m in mechs[3]]
    return out


def _grid_text(full: bool) -> str:
    if full:
        return ("n=1: |X| in {3,4,5}, both modes; n=2: |X| in {5,6} as printed, |X|=5 strict; "
                "n=3: |X|=7 as printed; GeoSample and FastSample; every dataset (n <= 2), "
                "canonical datasets and one other (n = 3)")
    return ("n=1: |X| in {3,4}, both modes, every dataset; n=2: |X|=5 as printed (and strict "
            "for GeoSample), canonical datasets and one other; GeoSample and FastSample")


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    worst = Fraction(0)
    for mech, size, strict in _grid(full):
        universe = Universe(size)
        ref = Distributions(KeepHeavy(mech, universe).release, universe)
        alg = KHPrime(mech, universe, strict=strict)
        dists = Distributions(alg.release, universe)
        if mech.n == 1 or (full and mech.n == 2):
            datasets = all_datasets(mech.n, size)
        else:
            datasets = canonical_datasets(mech.n, size) + sample_noncanonical(mech.n, size, 1)
        bad: list[str] = []
        own = Fraction(0)  # this certificate's largest distance
        for d in datasets:
            p, q = ref.direct(d), dists.direct(d)
            if p != q:
                gap = statistical_distance(p, q)
                own = max(own, gap)
                bad.append(f"{d}: distance {gap}")
        worst = max(worst, own)
        certs.append(Certificate(
            "Proposition 6.5", repr(alg), {"n": mech.n, "|X|": size, "strict": strict},
            f"{len(datasets)} datasets", own,
            "KH'(D) == KeepHeavy(D) exactly", not bad, {"mismatches": bad[:5]}))
    identical = all(c.verdict for c in certs)
    return ClaimReport("Proposition 6.5", _grid_text(full),
                       "identical on every dataset" if identical else f"max distance {worst}",
                       "statistical distance exactly 0", certs)
