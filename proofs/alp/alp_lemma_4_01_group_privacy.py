"""ALP ALP-full Lemma 4.1 (group privacy of ALP1-projection, for fixed hash functions) and the
truncation above beta."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import RatioWitness, certify_ratio
from exactdp.hashing import CarterWegman
from exactdp.sparse_vectors import exact as ex
from exactdp.sparse_vectors.alp_check import worst_ratio_over_family
from exactdp.sparse_vectors.alp_params import ALPParams

CLAIM = "ALP Lemma 4.1 (group privacy)"
STATEMENT = """ALP-full Lemma 4.1, as used in the proof of Lemma 4.12: for EVERY pair x, x' (not
only
neighbours), every fixed hash seed and every output set S, Pr[M(x) in S] <= e^{eps_cert
||x - x'||_1} Pr[M(x') in S] with eps_cert = c (1 - 2p)/p (= eps for Algorithm 4)."""
PROOF_IDEA = """The ratio is a product over the pieces of y-space the change crosses of factors
1 + ((1-2p)/p) delta_j <= e^{((1-2p)/p) delta_j}, and sum delta_j = c ||x - x'||_1.  Check on
the implementation (cell laws from its explored RandRound coins and its embedding, every CW
seed, P = 5): all ordered pairs of the domain grouped by their l1 distance D; the worst ratio
at each D certified <= e^{eps D} (exactdp.checker.certify_ratio) for the eps the parameters
were made from, and eps_cert = c (1-2p)/p must equal that eps exactly (Algorithm 4's choice
c = eps/alpha, p = 1/(alpha+2) gives (eps/alpha) alpha = eps)."""

CLAIM_TRUNC = "ALP truncation above beta"
STATEMENT_TRUNC = """Entries are truncated at m = ceil(beta c) units: for pairs that differ only in
coordinates whose values both satisfy x c >= m (at or above beta), the output law is the same:
worst ratio exactly 1 for every seed (Lemma 4.14's max(0, x_i - beta) term)."""
PROOF_IDEA_TRUNC = """On the implementation as above: every ordered pair of the grid that differs only
in coordinates with both values >= m/c, over every CW seed: the worst ratio must be exactly 1.
Power: the pairs that cross below beta by one grid step must give a ratio > 1."""


EPSILON = Fraction(1)


def _configs(full: bool) -> list[tuple[str, ALPParams, int]]:
    """(name, parameters made with eps = EPSILON, largest X in grid units)."""
    out = [("alpha = eps = 1", ALPParams.from_paper(EPSILON, 1, 2, 2, 1, 3), 3),
           ("grid 1/2, k = 2", ALPParams.from_paper(EPSILON, 1, 1, 3, 2, 2, grid=2), 3)]
    if full:
        out += [("alpha = 1/2", ALPParams.from_paper(EPSILON, Fraction(1, 2), 1, 3, 1, 3), 3),
                ("alpha = 3, grid 1/3", ALPParams.from_paper(EPSILON, 3, 3, 2, 2, 2, grid=3),
                 6)]
    return out


def check_group(full: bool) -> ClaimReport:
    certs = []
    for name, prm, units in _configs(full):
        family = CarterWegman(5, prm.rows, prm.universe)
        inputs = ex.sparse_inputs(prm.universe, prm.sparsity, units)
        by_distance: dict[int, list[tuple[dict[int, int], dict[int, int]]]] = defaultdict(list)
        for x in inputs:
            for x2 in inputs:
                if x != x2:
                    by_distance[ex.l1_units(x, x2)].append((x, x2))
        marginals: dict[object, object] = {}  # one config: every input's marginals once
        for dist in sorted(by_distance):
            w = worst_ratio_over_family(prm, family, by_distance[dist], marginals)
            budget = EPSILON * Fraction(dist, prm.grid)
            ok, bound = certify_ratio(RatioWitness(w.ratio, w.numerator_input,
                                                   w.denominator_input, w.output, w.p, w.q),
                                      budget)
            certs.append(Certificate(CLAIM, f"{name}: ALP", {"c": prm.scale, "p": prm.flip,
                                                             "m": prm.columns, "s": prm.rows,
                                                             "||x - x'||_1": budget / EPSILON,
                                                             "eps_cert": prm.epsilon_cert},
                                     f"{w.pairs} ordered pairs at this distance, every seed",
                                     w.ratio, f"{bound}; eps_cert == eps = {EPSILON}",
                                     ok and prm.epsilon_cert == EPSILON,
                                     {"witness": w.to_json()}))
    return ClaimReport(CLAIM, f"{len(_configs(full))} domains, every pair grouped by l1 distance",
                       f"max ratio {brief(max(Fraction(c.worst) for c in certs))}",  # type: ignore[arg-type]
                       "<= e^{eps ||x - x'||_1} at every distance, eps_cert = eps", certs)


def check_truncation(full: bool) -> ClaimReport:
    certs = []
    for name, prm, _ in _configs(full):
        family = CarterWegman(5, prm.rows, prm.universe)
        # smallest grid value X with X c / g >= m, and a few above it
        top = -((-prm.columns * prm.grid) // prm.scale)
        top = int(top)
        above = [top + j for j in range(3)]
        pairs = [({1: a}, {1: b}) for a in above for b in above if a != b]
        if prm.sparsity > 1:
            pairs += [({1: a, 2: above[0]}, {1: b, 2: above[1]}) for a in above for b in above]
        w = worst_ratio_over_family(prm, family, pairs)
        below = worst_ratio_over_family(prm, family, [({1: top - 1}, {1: top})])
        certs.append(Certificate(CLAIM_TRUNC, f"{name}: ALP", {"m": prm.columns, "c": prm.scale,
                                                               "grid": prm.grid},
                                 f"{len(pairs)} pairs at or above beta, every seed", w.ratio,
                                 "== 1", w.ratio == 1))
        certs.append(Certificate(CLAIM_TRUNC + ": power", f"{name}: ALP", {"m": prm.columns},
                                 "one step crossing below beta", below.ratio, "> 1",
                                 below.ratio > 1))
    return ClaimReport(CLAIM_TRUNC, f"{len(certs) // 2} domains", "ratios "
                       + ", ".join(brief(Fraction(c.worst)) for c in certs),  # type: ignore[arg-type]
                       "1 above beta; > 1 crossing it", certs)


check_group.CLAIM = CLAIM  # type: ignore[attr-defined]
check_truncation.CLAIM = CLAIM_TRUNC  # type: ignore[attr-defined]
CHECKS = [check_group, check_truncation]
