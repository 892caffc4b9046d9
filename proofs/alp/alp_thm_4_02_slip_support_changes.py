"""ALP-short Theorem 4.2's delta is per changed support coordinate: a neighbouring change that
makes several keys appear at once costs 1 - (1 - q)^j, not q."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import hockey_stick
from exactdp.explore import explore
from exactdp.sparse_vectors.approx import ApproxThresholdParams, KorolovaThreshold

CLAIM = "ALP Theorem 4.2 delta counts support changes"
SLIP = ("Theorem 4.2's delta = Pr[a new key survives the threshold] is stated per neighbouring "
        "pair, but an l1-neighbour can make up to 2k keys appear at once (2k keys at 1/(2k) "
        "each), and each of them may survive.")
STATEMENT = """ALP-short Theorem 4.2 with Korolova et al.'s threshold: (eps, delta)-DP with delta =
q = Pr[a new key survives] (= r^(t-1)/(1+r) exactly for the implementation).  Under the
paper's l1-neighbours, x = 0 and x' with j keys at 1/j each are neighbours and j keys can
appear at once; the divergence is then 1 - (1 - q)^j > q for j >= 2, so delta must be
multiplied by the number of keys whose support changes (<= 2k), as 1 - (1 - q)^j <= j q.
The implementation takes integer histograms under adding or removing one row, where at most
one key appears; the row computes the j-keys-appear divergence on it with the keys at value 1
(the integer grid's smallest value, which survives with probability exactly q)."""
PROOF_IDEA = """KorolovaThreshold.release explored (k = 3 padded pairs, eps = 1, delta = 1/10, so r =
1/2, t = 4, q = 1/12) on x = 0 and on x' with j = 2, 3 keys at 1: the hockey-stick divergence of
x' against x at the group ratio (1/r)^j (every output of x' that releases a key has
probability 0 under x, so any ratio gives the same)
must exceed q (the paper's delta FAILS) and equal 1 - (1 - q)^j <= j q exactly (the fix)."""

EPS, DELTA, D, K, HI = Fraction(1), Fraction(1, 10), 3, 3, 4


def check(full: bool) -> ClaimReport:
    prm = ApproxThresholdParams.for_epsilon_delta(EPS, DELTA, D, HI, K)
    alg = KorolovaThreshold(prm)
    q = prm.r ** (prm.t - 1) / (1 + prm.r)

    def law(x: dict[int, int]) -> dict[tuple[tuple[int, int], ...], Fraction]:
        return explore(lambda src: tuple(sorted(alg.release(x, src).items())))

    empty = law({})
    certs = []
    for j in (2, 3):
        new = law({key: 1 for key in range(1, j + 1)})
        delta = hockey_stick(new, empty, (1 / prm.r) ** j)
        want = 1 - (1 - q) ** j
        certs.append(Certificate(CLAIM, repr(alg), {"j": j, "t": prm.t, "r": prm.r, "q": q},
                                 f"x = 0 vs {j} keys at 1", delta,
                                 f"> q = {q} (the per-pair delta FAILS); == 1 - (1-q)^{j} = "
                                 f"{want} <= {j} q",
                                 delta > q and delta == want and want <= j * q,
                                 {"paper_delta": q}))
    return ClaimReport(CLAIM, f"eps = 1, delta = 1/10 (t = {prm.t}, q = {q}), j = 2, 3 new keys",
                       "divergence " + ", ".join(brief(Fraction(c.worst)) for c in certs),  # type: ignore[arg-type]
                       f"> q = {q}; = 1 - (1-q)^j <= j q", certs)
