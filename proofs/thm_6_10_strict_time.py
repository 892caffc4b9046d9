"""Theorem 6.10 (iv), strict mode: PureSparseHistogram's operations do not depend on the data."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import ClaimReport
from exactdp.counting import InverseCDFSampler
from exactdp.histograms.data import Universe
from exactdp.histograms.sparse import PureSparseHistogram
from proofs._strict_time import sparse_certificates, sparse_mechanisms, sparse_report

CLAIM = "Theorem 6.10 (iv) (strict time)"
STATEMENT = """PureSparseHistogram_{M,eps,beta_1} (Algorithm 6.9) with strict=True (the default)
makes the same operations for every dataset D in X^n (n and |X| public): one coin
Bernoulli(1 - beta_1), then either SparseHistogram in strict mode (Theorem 6.8 (iii)
(strict time)) or the uniform sparse histogram's 2n draws from [|X|]_+ and [n + 1]_+ --
the branch depends on the coin only.  As printed (strict=False) the SparseHistogram branch's
operations depend on |A|."""
PROOF_IDEA = """The coin and the uniform branch never look at D; the SparseHistogram branch is
checked as in Theorem 6.8 (iii) (strict time), here with PureSparse's own s, which has
about n log2(3|X|) bits.  Check: the operation trace of the sampling path on fixed coins
(u = 1 takes the SparseHistogram branch, u = d the uniform branch, seeded streams both) is
EQUAL for every dataset of a grid varying |A|, the count profile and where A lies, on |X| in
{2n, 2n + 1, 2^64}, with ApproxOrdSample plain and padded; and the printed mode's traces
must DIFFER on the same datasets (the comparison's power)."""



def _make(mech: InverseCDFSampler, universe: Universe, strict: bool,
          padded: bool) -> PureSparseHistogram:
    eps = getattr(mech, "epsilon", Fraction(1))
    return PureSparseHistogram(mech, universe, eps, Fraction(1, 4), strict, padded)


def check(full: bool) -> ClaimReport:
    mechs = sparse_mechanisms(full)
    certs, total = sparse_certificates(_make, mechs, lambda n: [2 * n, 2 * n + 1, 2**64],
                                       (False, True), full, "PureSparseHistogram", CLAIM)
    return sparse_report(CLAIM, certs, f"{', '.join(map(repr, mechs))}; beta_1 = 1/4; |X| in "
                         f"{{2n, 2n+1, 2^64}}; ApproxOrdSample plain and padded", full, total)
