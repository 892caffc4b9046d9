"""The strict-time discrete Gaussian's operations depend on neither the centre nor the output."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from exactdp.certificate import Certificate, ClaimReport
from exactdp.discrete_gaussian import DiscreteGaussian
from exactdp.proofs._strict_time import Comparison, coins, compare
from exactdp.trace import record

CLAIM = "Discrete Gaussian: strict time (one uniform(W), ceil(log2(2T + 2)) rounds)"
STATEMENT = """DiscreteGaussian(sigma^2, b).add(c, source) draws one u from [W]_+ (W fixed by sigma^2 and
b) and runs the inverse-CDF search of exactly ceil(log2(2T + 2)) rounds, one table look-up
each: the operation trace is the same for every centre c, every u and every output."""
PROOF_IDEA = """The operation trace (the draw's domain, the recorded search rounds, every profiler-seen
call of cdf/search) of add(c) is compared across centres 0, 1, -1, 10^9 and across coins
(u = 1, u = W, seeded streams: so across outputs too, both ends included) against ONE
reference trace, at sigma^2 in {1/2, 10^4, 10^6} (and 10^8 in the full grid).  Power: a
search that exits once the bracket holds one value (a correct output, fewer rounds for some
u) must show a different trace on the same comparison."""

QUICK = (Fraction(1, 2), Fraction(10**4), Fraction(10**6))
FULL = QUICK + (Fraction(5, 3), Fraction(10**8))
CENTRES = (0, 1, -1, 10**9)


def traces(g: Any) -> Comparison:
    inputs = [(f"c = {c}", lambda src, c=c: g.add(c, src)) for c in CENTRES]
    return compare(inputs, coins(False), across_coins=True)


class EarlyExit(DiscreteGaussian):
    """A sentinel: the same outputs, by a search that stops as soon as one value is left."""

    def search(self, u: int) -> int:
        table = self._table
        lo, hi = 0, len(table) - 1
        while lo < hi:
            record("cdf")
            mid = (lo + hi) >> 1
            if table[mid] >= u:
                hi = mid
            else:
                lo = mid + 1
        return lo


def check(full: bool) -> ClaimReport:
    certs = []
    for s2 in FULL if full else QUICK:
        g = DiscreteGaussian(s2)
        cmp = traces(g)
        rounds = (g.n + 1).bit_length()
        certs.append(Certificate(
            CLAIM, repr(g), {"sigma2": s2, "T": g.tail}, f"centres {list(CENTRES)} x coins "
            f"{list(coins(False))}", cmp.trace_length,
            f"one trace of 1 + {rounds} events for every centre and output",
            cmp.ok and cmp.trace_length == 1 + rounds,
            {"first_difference": cmp.mismatch} if cmp.mismatch else {}))
    sentinel = traces(EarlyExit(10**4))
    certs.append(Certificate(
        CLAIM + ": power", "EarlyExit(10^4) (outputs correct, rounds vary with u)",
        {"sigma2": 10**4}, "the same comparison", sentinel.trace_length,
        "the comparison sees the early exit", not sentinel.ok,
        {"first_difference": sentinel.mismatch}))
    return ClaimReport(CLAIM, f"sigma^2 in {[str(s) for s in (FULL if full else QUICK)]}",
                       f"traces of {certs[-2].worst} events, all equal",
                       "identical traces; the early-exit sentinel differs", certs)
