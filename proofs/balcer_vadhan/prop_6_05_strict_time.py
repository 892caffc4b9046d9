"""Algorithm 6.4 (KH'), strict mode: its operations do not depend on the data."""

from __future__ import annotations

from exactdp.certificate import ClaimReport
from exactdp.counting import InverseCDFSampler
from exactdp.histograms.data import Universe
from exactdp.histograms.sparse import KHPrime
from exactdp.proofs._strict_time import sparse_certificates, sparse_mechanisms, sparse_report

CLAIM = "Proposition 6.5: KH' (strict time)"
STATEMENT = """KH'_M (Algorithm 6.4) with strict=True (the default) makes the same operations for
every dataset D in X^n (n and |X| public): n noisy-count draws of domain d, 2n + 1
DistinctSample draws from [|X| - i]_+ with nothing excluded, and OrdSample (Algorithm 6.7,
exact binomials) over the public m_0 = |X| - n.  As printed (strict=False) the operations
depend on |A|: OrdSample's binomial domains are powers of F(v) with m = |X \\ A| trials,
and Algorithm A.3 draws from [|X| - |A| - i]_+."""
PROOF_IDEA = """As for Theorem 6.8 (iii) (strict time), with the exact OrdSample, whose draw
domains (den^trials) expose m itself -- so a strict mode that passed the private
m = |X \\ A| would show at once.  Check: the operation trace of the sampling path on fixed
coins (u = 1, u = d, seeded) is EQUAL for every dataset of a grid varying |A|, the count
profile and where A lies, on |X| in {2n, 2n + 1, 20}; the printed mode's traces must
DIFFER on the same datasets (the comparison's power)."""



def _make(mech: InverseCDFSampler, universe: Universe, strict: bool, padded: bool) -> KHPrime:
    return KHPrime(mech, universe, strict)


def check(full: bool) -> ClaimReport:
    mechs = sparse_mechanisms(full)
    certs, total = sparse_certificates(_make, mechs, lambda n: [2 * n, 2 * n + 1, 20],
                                       (False,), full, "KH'", CLAIM)
    return sparse_report(CLAIM, certs, f"{', '.join(map(repr, mechs))}; |X| in {{2n, 2n+1, "
                         f"20}}", full, total)
