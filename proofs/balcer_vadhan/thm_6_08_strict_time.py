"""Theorem 6.8 (iii), strict mode: SparseHistogram's operations do not depend on the data."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import ClaimReport
from exactdp.counting import InverseCDFSampler
from exactdp.histograms.data import Universe
from exactdp.histograms.sparse import SparseHistogram
from exactdp.proofs._strict_time import sparse_certificates, sparse_mechanisms, sparse_report

CLAIM = "Theorem 6.8 (iii) (strict time)"
STATEMENT = """SparseHistogram_{M,delta} (Algorithm 6.21) with strict=True (the default) makes the
same operations for every dataset D in X^n (n and |X| public): n noisy-count draws, 2n + 1
DistinctSample draws from [|X| - i]_+ with nothing excluded, and ApproxOrdSample over the
public m_0 = |X| - n (module docstring of exactdp.histograms.sparse).  Its ApproxBinSample
calls still depend on their coins (Proposition 6.17), never on D; padded_order_statistics
removes that too.  As printed (strict=False) the operations depend on |A| (the draws of
Algorithm A.3 come from [|X| - |A| - i]_+)."""
PROOF_IDEA = """Strict mode draws for the |A| non-empty bins and n - |A| empty ones through the
same inverse-CDF draw of domain d, samples 2n + 1 distinct elements of all of X and keeps
the first n + 1 outside A (a filter, no draws), and runs the order statistics on m_0.
Check: the operation trace of the sampling path (draw domains, recorded events, profiler-
seen calls of every CDF, certified-bound, ACE and rank operation) on the same fixed coins
(u = 1, u = d and seeded streams) is EQUAL for every dataset of a grid that varies |A| from
1 to n, every count profile and where A lies (elements the coins would draw, and not); on
|X| = 2n + 1 (smallest non-fallback), 2n (fallback to BasicHistogram) and 2^64.  The same
comparison must find the printed mode's traces DIFFERENT (the comparison has power here)."""



def _make(mech: InverseCDFSampler, universe: Universe, strict: bool,
          padded: bool) -> SparseHistogram:
    return SparseHistogram(mech, universe, Fraction(1, 10), strict, padded)


def check(full: bool) -> ClaimReport:
    mechs = sparse_mechanisms(full)
    certs, total = sparse_certificates(_make, mechs, lambda n: [2 * n, 2 * n + 1, 2**64],
                                       (False, True), full, "SparseHistogram", CLAIM)
    return sparse_report(CLAIM, certs, f"{', '.join(map(repr, mechs))}; |X| in {{2n, 2n+1, "
                         f"2^64}}; delta = 1/10; ApproxOrdSample plain and padded", full, total)
