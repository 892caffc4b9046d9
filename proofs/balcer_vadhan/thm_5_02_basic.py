"""Theorem 5.2: BasicHistogram is (eps, 0)-DP, with independent bins, in strict time."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from itertools import product

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import certify_ratio, counting_distribution, worst_ratio
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms.basic import BasicHistogram
from exactdp.histograms.data import Dataset, Universe
from exactdp.proofs._histograms import (
    Distributions,
    all_datasets,
    canonical_datasets,
    neighbour_pairs,
    sample_noncanonical,
)
from exactdp.randomness import SeededSource
from exactdp.trace import recording

CLAIM = "Theorem 5.2"
STATEMENT = """Let M: [n] x [d]_+ -> [n] be (eps/2, 0)-DP for counting queries and A a fixed subset
of X.  Then BasicHistogram_{M,A} (Algorithm 5.1) (i) is (eps, 0)-DP; (ii)-(iii) releases
independent bins c~_x ~ M(c_x(D), U), whence its per-query and simultaneous accuracy; (iv)
runs in time O(n log n log|X|) + |A| O(log n log|X| + log d + Time(M))."""
PROOF_IDEA = """Neighbours differ in at most two counts, each by one; the bins are independent, so the
ratio of the probabilities of any output is a product of at most two per-bin ratios, each
at most e^{eps/2}.  Checks, on the implementation: the exact output distribution of
BasicHistogram (explored, every draw through the mechanism's inverse CDF) on every
neighbouring pair of datasets over tiny universes (up to relabelling, itself checked);
worst ratio certified <= e^eps, and for GeoSample EQUAL to (1 + 2^-k)^2 = e^{eps~};
the explored joint distribution equals the product of the mechanism's per-count
distributions read off M (independence, parts ii-iii); identical operation traces for all
datasets of a grid (part iv, strict time)."""


def _grid(full: bool) -> list[tuple[InverseCDFSampler, int, tuple[int, ...] | None]]:
    """(mechanism, |X|, A) with A None for A = X."""
    out: list[tuple[InverseCDFSampler, int, tuple[int, ...] | None]] = []
    epss = [Fraction(1), Fraction(1, 2), Fraction(1, 4)] if full else [Fraction(1),
                                                                        Fraction(1, 2)]
    ns = [1, 2, 3]
    sizes = [2, 3, 4, 5] if full else [2, 3, 4]
    for eps in epss:
        for n in ns:
            mechs: list[InverseCDFSampler] = [GeoSample(n, eps)]
            if full or eps == 1:
                mechs.append(FastSample(n, eps, Fraction(1, 2 if n < 3 else 10)))
            for mech in mechs:
                for size in sizes:
                    if size > 4 and n == 3 and not full:
                        continue
                    out.append((mech, size, None))
                out.append((mech, 5, (2, 4)))
    return out


def _grid_text(full: bool) -> str:
    return ("n in {1,2,3}, |X| in {2..5} (A = X) and A = {2,4} in [5]_+, eps in {1,1/2,1/4}, "
            "GeoSample and FastSample(gamma 1/2, 1/10); all neighbouring pairs"
            if full else
            "n in {1,2,3}, |X| in {2,3,4} (A = X) and A = {2,4} in [5]_+, eps in {1,1/2}, "
            "GeoSample (and FastSample at eps=1); all neighbouring pairs")


def _product_distribution(mech: InverseCDFSampler, elements: tuple[int, ...],
                          rows: tuple[int, ...]) -> dict[tuple[tuple[int, int], ...], Fraction]:
    per = {c: counting_distribution(mech, c) for c in range(mech.n + 1)}
    margins = [per[sum(1 for r in rows if r == x)] for x in elements]
    out: dict[tuple[tuple[int, int], ...], Fraction] = {}
    for values in product(*[[z for z, p in m.items() if p] for m in margins]):
        p = Fraction(1)
        for m, z in zip(margins, values):
            p *= m[z]
        out[tuple(zip(elements, values))] = p
    return out


def check_i(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    worst_seen = Fraction(0)
    for mech, size, chosen in _grid(full):
        universe = Universe(size)
        alg = BasicHistogram(mech, universe, chosen)
        dists = Distributions(alg.release, universe)
        n = mech.n
        # The bins the algorithm must release: A as asked for (not as the algorithm recorded
        # it, which would let a dropped element go unseen), or all of X.
        wanted = tuple(sorted(chosen)) if chosen is not None else tuple(range(1, size + 1))
        if chosen is not None:
            # A != X breaks the symmetry over X: explore every dataset directly.
            direct = {d: dists.direct(d) for d in all_datasets(n, size)}
            pairs = [(d, direct[d], e, direct[e]) for d in direct for e in direct
                     if _one_row_apart(d, e)]
            sym_bad: list[str] = []
            product_ok = all(direct[d] == _product_distribution(mech, wanted, d)
                             for d in direct)
        else:
            pairs = []
            for d, e in neighbour_pairs(n, size):
                pd, pe = dists(d), dists(e)
                pairs += [(d, pd, e, pe), (e, pe, d, pd)]
            sym_bad = dists.symmetry_failures(
                sample_noncanonical(n, size, 10**6 if full else 2))
            product_ok = all(dists(d) == _product_distribution(mech, wanted, d)
                             for d in canonical_datasets(n, size))
        w = worst_ratio(pairs)
        eps = getattr(mech, "epsilon", Fraction(0))
        ok, text = certify_ratio(w, eps)
        exact_ok = True
        if isinstance(mech, GeoSample) and len(wanted) >= 2:
            exact_ok = w.ratio == mech.privacy_ratio ** 2
        if w.ratio is not None:
            worst_seen = max(worst_seen, w.ratio)
        certs.append(Certificate(
            "Theorem 5.2 (i)-(iii)", repr(alg), {"n": n, "epsilon": eps, "|X|": size},
            f"{len(pairs)} ordered neighbouring pairs", w.ratio,
            "<= e^eps (GeoSample: == (1+2^-k)^2); joint == product of M's distributions",
            ok and exact_ok and product_ok and not sym_bad,
            {"ratio": w.to_json(), "certified": text, "product_of_margins": product_ok,
             "symmetry_failures": sym_bad}))
    return ClaimReport(
        "Theorem 5.2 (i)-(iii)", _grid_text(full),
        f"max ratio {brief(worst_seen)}; GeoSample ratio == (1+2^-k)^2 exactly; "
        f"bins independent with M's exact margins",
        "ratio <= e^eps (certified rational lower bound on e^eps)", certs)


def _one_row_apart(d: tuple[int, ...], e: tuple[int, ...]) -> bool:
    """Multisets of equal size that differ by replacing one row."""
    rest = list(e)
    unmatched = 0
    for x in d:
        if x in rest:
            rest.remove(x)
        else:
            unmatched += 1
    return unmatched == 1


def _trace(alg: BasicHistogram, rows: tuple[int, ...], seed: int) -> tuple[object, ...]:
    with recording() as events:
        alg.release(Dataset.of(alg.universe, rows), _TracedSeeded(seed))
    return tuple(events)


class _TracedSeeded(SeededSource):
    """A seeded source that records each uniform draw's domain (the strict-time trace)."""

    def uniform(self, d: int) -> int:
        from exactdp.trace import record

        record("uniform", d)
        return super().uniform(d)


def check_iv(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    cases: list[tuple[Callable[[], InverseCDFSampler], int]] = [
        (lambda: GeoSample(3, Fraction(1, 2)), 4), (lambda: FastSample(3, 1, Fraction(1, 10)), 5),
        (lambda: FastSample(6, Fraction(1, 3), Fraction(1, 100)), 8)]
    for make, size in cases:
        mech = make()
        alg = BasicHistogram(mech, Universe(size))
        datasets = all_datasets(mech.n, size)
        if not full:
            datasets = datasets[:: max(1, len(datasets) // 12)]
        seeds = range(3 if full else 1)
        bad: list[str] = []
        length = 0
        for seed in seeds:
            ref = _trace(alg, datasets[0], seed)
            length = len(ref)
            bad += [str(d) for d in datasets[1:] if _trace(alg, d, seed) != ref]
        certs.append(Certificate(
            "Theorem 5.2 (iv)", repr(alg), {"n": mech.n, "|X|": size},
            f"{len(datasets)} datasets x {len(seeds)} seeds", length,
            "identical operation traces", not bad, {"different": bad[:5]}))
    return ClaimReport(
        "Theorem 5.2 (iv)", "GeoSample/FastSample, n in {3, 6}, |X| in {4, 5, 8}, "
        + ("all datasets, 3 seeds" if full else "a spread of datasets, 1 seed"),
        "same trace for every dataset", "strict time: |A| draws, fixed search rounds", certs)


CHECKS = [check_i, check_iv]
