"""Theorem 6.10 (iv), strict mode: PureSparseHistogram's operations do not depend on the data."""

from __future__ import annotations

from fractions import Fraction
from functools import partial

from exactdp.certificate import Certificate, ClaimReport
from exactdp.counting import InverseCDFSampler
from exactdp.histograms.data import Universe
from exactdp.histograms.sparse import PureSparseHistogram, uniform_sparse_histogram
from exactdp.proofs._strict_time import (
    coins,
    sparse_certificates,
    sparse_mechanisms,
    sparse_report,
    traced,
)

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


def _uniform_part(full: bool) -> Certificate:
    """Algorithm 6.9 step 2 (``uniform_sparse_histogram``): its docstring's time bound is
    exactly ``2n`` uniform draws, ``n`` from ``[|X|]_+`` then ``n`` from ``[n + 1]_+``."""
    wrong = []
    for n in range(1, 7 if full else 4):
        for size in (1, 2 * n, 2**64):
            for kind in coins(full):
                trace, _ = traced(partial(uniform_sparse_histogram, Universe(size), n), kind)
                draws = [e[1] for e in trace if e[0] == "uniform"]
                if draws != [size] * n + [n + 1] * n:
                    wrong.append({"n": n, "|X|": size, "coins": kind, "draws": len(draws)})
    return Certificate(CLAIM, "uniform_sparse_histogram", {}, "n <= 6, |X| in {1, 2n, 2^64}",
                       len(wrong), "draws = n of [|X|]_+ then n of [n + 1]_+", not wrong,
                       {"wrong": wrong[:5]})


def check(full: bool) -> ClaimReport:
    mechs = sparse_mechanisms(full)
    certs, total = sparse_certificates(_make, mechs, lambda n: [2 * n, 2 * n + 1, 2**64],
                                       (False, True), full, "PureSparseHistogram", CLAIM)
    certs.append(_uniform_part(full))
    return sparse_report(CLAIM, certs, f"{', '.join(map(repr, mechs))}; beta_1 = 1/4; |X| in "
                         f"{{2n, 2n+1, 2^64}}; ApproxOrdSample plain and padded", full, total)
