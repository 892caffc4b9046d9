"""Lemma 8.1 (iv) takes B inside X with |B| = n + 1, which needs |X| >= n + 1."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from functools import partial
from itertools import combinations_with_replacement

from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import counting_distribution
from exactdp.counting import TabulatedMechanism
from exactdp.explore import explore
from exactdp.histograms.compact import CompactHistogram
from exactdp.histograms.data import Dataset
from exactdp.proofs.balcer_vadhan._compact import m0_distribution
from exactdp.randomness import RandomSource

CLAIM = "Lemma 8.1 (iv) with |X| < n + 1"
SLIP = ("Lemma 8.1 (iv) samples h by fixing n + 1 points B inside X (|B| = n + 1), which needs "
        "|X| >= n + 1; the hypotheses only give d0 >= |X|, and any n + 1 distinct field points "
        "(some outside X) do the job.")
STATEMENT = """Lemma 8.1 (iv): to sample h uniformly from {g in G_{M0}(X) : g_x = v_x for x in
A}, take B with A subset of B subset of X and |B| = n + 1, draw u_x ~ S_{v_x} on A and
u_x uniform on B minus A, and interpolate.  Theorem 8.3 only assumes d0 >= |X|."""
PROOF_IDEA = """With |X| <= n there is no such B inside X, but the proof only uses that the n + 1
points are distinct field points: a polynomial of degree <= n is determined by its values on
any n + 1 distinct points, and its values there can be set independently.  The implementation
takes B = A plus the smallest field points outside A, in or out of X.  Check on GF(4) (d0 = 4)
with n = 3 and |X| = 2 < n + 1 (a toy M with d = 3, a different law for each count, so
d0 >= 4d/3):
the explored law of the released polynomial, on every dataset of X^n, has h_x ~ M(c_x, U) for
x in A, h_x ~ M0(U0) off A (M0's law read off the implementation's sampler), and h_1, h_2
independent -- what Theorem 8.3 (ii)-(iii) need -- although no B of n + 1 points lies in X."""

#: n = 3, d = 3 (so that d0 = 4 >= 4d/3): M(0, U) uniform on {0, 1, 2} (M0's support covers
#: every value M takes) and a different law for every count c >= 1.
_TABLE = ((1, 2, 3, 3), (0, 2, 3, 3), (0, 1, 3, 3), (0, 0, 3, 3))


def _coefficients(ch: CompactHistogram, data: Dataset, source: RandomSource) -> tuple[int, ...]:
    return ch.release(data, source).coefficients


def check(full: bool) -> ClaimReport:
    mech = TabulatedMechanism(_TABLE)
    size, n = 2, mech.n
    ch = CompactHistogram(size, mech, 0)
    m0 = dict(m0_distribution(ch.empty).dist)
    certs: list[Certificate] = []
    for rows in combinations_with_replacement(range(1, size + 1), n):
        data = Dataset.of(size, rows)
        counts = Counter(rows)
        dist = explore(partial(_coefficients, ch, data))
        joint: dict[tuple[int, int], Fraction] = {}
        for coeffs, w in dist.items():
            release = ch._wrap(coeffs)
            key = (release.evaluate(1), release.evaluate(2))
            joint[key] = joint.get(key, Fraction(0)) + w
        marginals = []
        for i in range(2):
            law: dict[int, Fraction] = {}
            for key, w in joint.items():
                law[key[i]] = law.get(key[i], Fraction(0)) + w
            marginals.append(law)
        want = [dict(counting_distribution(mech, counts[x])) if counts.get(x) else m0
                for x in (1, 2)]
        clean = [{z: p for z, p in w.items() if p} for w in want]
        independent = all(joint.get((a, b), Fraction(0)) == pa * pb
                          for a, pa in marginals[0].items() for b, pb in marginals[1].items())
        ok = marginals == clean and independent and size < n + 1
        certs.append(Certificate(
            CLAIM, repr(ch), {"n": n, "|X|": size, "d0": ch.field.order, "D": list(rows)},
            "the explored law of the released polynomial, read at x = 1, 2", None,
            "h_x ~ M(c_x) on A, ~ M0 off A, independent; |X| < n + 1", ok,
            {"marginals": [{str(k): str(v) for k, v in m.items()} for m in marginals]}))
    return ClaimReport(
        CLAIM, "GF(4), n = 3, |X| = 2, a toy M with d = 3 (a law per count); every dataset",
        f"{sum(c.verdict for c in certs)}/{len(certs)} datasets with the marginals and "
        f"independence Theorem 8.3 needs, with no n + 1 points inside X",
        "the slip exhibited: Lemma 8.1 (iv)'s sampling works with B outside X", certs)
