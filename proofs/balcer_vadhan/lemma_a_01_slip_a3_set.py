"""Algorithm A.3 as printed returns a set; Lemma A.1 and KH' need a uniformly random sequence."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from functools import partial
from itertools import permutations

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import counting_distributions, statistical_distance
from exactdp.counting import GeoSample
from exactdp.explore import explore
from exactdp.histograms import sparse
from exactdp.histograms.data import Universe
from exactdp.histograms.distinct import distinct_sample
from exactdp.histograms.sparse import KHPrime
from exactdp.proofs._histograms import Distributions
from exactdp.proofs.balcer_vadhan._accuracy import keep_heavy_reference

CLAIM = "Algorithm A.3 returns a set"
SLIP = ("Algorithm A.3 (DistinctSample) as printed collects its draws in a set S, while Lemma "
        "A.1 claims a uniformly random sequence of distinct elements -- and KH' (Algorithm 6.4) "
        "needs the order: q_0, ..., q_n receive the ordered counts Z_(m), ..., Z_(m-n).")
STATEMENT = """Lemma A.1: DistinctSample(A, r) outputs a uniformly random sequence of r distinct
elements of X minus A.  Algorithm A.3 as printed adds each draw to a set S and returns S."""
PROOF_IDEA = """KH' gives the j-th sampled element the j-th largest order statistic of the zero
bins; if the elements came as a set in a fixed (say increasing) order, the smallest element
would always get the largest noise, and the release would not be KeepHeavy's.  Checks: (1) the
implementation's distinct_sample, explored exactly, is uniform over the ordered sequences
(every permutation of every r-subset, probability 1/(m'(m'-1)...(m'-r+1))); (2) KH' run with
the set reading (the draws returned in increasing order -- a counterexample, patched in only
while the row explores it) differs from KeepHeavy's exact law computed from M's laws, while
the implementation's KH' equals it."""


@contextmanager
def _as_set() -> Iterator[None]:
    """``sparse.distinct_sample`` returning its elements in increasing order while the block
    runs (restored after): the set reading of Algorithm A.3."""
    found = sparse.distinct_sample

    def sorted_sample(*args: object) -> tuple[int, ...]:
        return tuple(sorted(found(*args)))  # type: ignore[arg-type]

    sparse.distinct_sample = sorted_sample  # type: ignore[assignment]
    try:
        yield
    finally:
        sparse.distinct_sample = found


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    for size, excluded, r in [(6, (2, 5), 3), (5, (), 2)] + ([(7, (1, 4, 7), 3)] if full else []):
        dist = explore(partial(distinct_sample, size, excluded, r))
        free = [x for x in range(1, size + 1) if x not in excluded]
        seqs = list(permutations(free, r))
        ok = dist == {seq: Fraction(1, len(seqs)) for seq in seqs}
        certs.append(Certificate(
            CLAIM + " (sequence)", f"distinct_sample({size}, {excluded}, {r})",
            {"|X|": size, "A": list(excluded), "r": r}, "explored law", len(dist),
            f"uniform over the {len(seqs)} ordered sequences", ok))
    worst = Fraction(0)
    for mech, size in [(GeoSample(1, 1), 3)] + ([(GeoSample(1, 1), 4)] if full else []):
        universe = Universe(size)
        rows = (1,) * mech.n
        reference = keep_heavy_reference(counting_distributions(mech), rows, size)
        alg = KHPrime(mech, universe, strict=False)
        implemented = Distributions(alg.release, universe).direct(rows)
        with _as_set():
            as_set = Distributions(alg.release, universe).direct(rows)
        gap = statistical_distance(as_set, reference)
        worst = max(worst, gap)
        certs.append(Certificate(
            CLAIM + " (KH')", repr(alg), {"n": mech.n, "|X|": size, "D": list(rows)},
            "explored release laws", gap,
            "implementation == KeepHeavy; the set reading differs", implemented == reference
            and gap > 0, {"set_reading_distance": gap}))
    return ClaimReport(
        CLAIM, "distinct_sample on (|X|, A, r) in (6, {2,5}, 3), (5, {}, 2); KH' with "
               "GeoSample(1, 1) on |X| = 3, D = [1]",
        f"sequences uniform; the set reading moves KH' {brief(worst)} away from KeepHeavy",
        "the slip exhibited: the order of the sample matters", certs)
