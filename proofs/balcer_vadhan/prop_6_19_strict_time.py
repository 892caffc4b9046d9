"""Proposition 6.19, padded mode: ApproxOrdSample's operations hide m behind a public bound."""

from __future__ import annotations

from functools import partial

from exactdp.certificate import Certificate, ClaimReport
from exactdp.histograms import orderstats
from exactdp.proofs._strict_time import coins, compare
from exactdp.proofs.balcer_vadhan._orderstats import cdf_cases
from exactdp.randomness import RandomSource

CLAIM = "Proposition 6.19 (padded, strict time)"
STATEMENT = """ApproxOrdSample_F(m, s) (Algorithm 6.20) run with padded=True and a public bound
max_m >= m makes the same operations for every m in [n + 1, max_m], every F and every
value of its draws: n ApproxBinSample calls, each padded to pad_t = n + 1 with
bitlen(max_m) ApproxConvExp rounds (the docstring of approx_ord_sample: "operation trace a
function of (n, bitlen(max_m)) only").  In KH'-style callers m = |X \\ A| is private and
max_m = |X| public, so the running time does not reveal |A|."""
PROOF_IDEA = """Each call is ApproxBinSample in padded mode, whose operations depend on
(pad_t, exponent_rounds) only (Proposition 6.17 (padded) row); pad_t = n + 1 and
exponent_rounds = bitlen(max_m) are public.  Check: the operation trace of the sampling
path (draw domains, recorded events, profiler-seen calls of F, ACE, polynomial products and
certified bounds) on fixed coins (u = 1, u = s, seeded) is ONE trace across every m of the
grid -- including m of smaller bit length than max_m, which is what catches a round count
computed from m -- every CDF F of the grid and every coin stream."""


def _grid(full: bool) -> list[tuple[int, int]]:
    """(n, max_m)."""
    if full:
        return [(n, mm) for n in (1, 2, 3, 4) for mm in (2 * n + 3, 16, 17, 200)]
    return [(1, 9), (2, 16), (3, 40)]


def _ms(n: int, max_m: int) -> list[int]:
    """m in [n + 1, max_m] at every bit length, both ends of each."""
    out = {n + 1, max_m}
    for j in range(1, max_m.bit_length() + 1):
        out.update(v for v in ((1 << (j - 1)), (1 << j) - 1) if n + 1 <= v <= max_m)
    return sorted(out)


def _run(values: tuple[int, ...], n: int, d: int, m: int, s: int, max_m: int,
         source: RandomSource) -> tuple[int, ...]:
    # Through the module attribute: the row checks whatever approx_ord_sample is now.
    return orderstats.approx_ord_sample(values.__getitem__, n, d, m, s, source, True,
                                        max_m=max_m)


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    total = 0
    for n, max_m in _grid(full):
        ms = _ms(n, max_m)
        cases = cdf_cases(n, full)
        for s in (max_m, 10 * max_m * (n * n + 2 * n)):
            inputs = [(f"m={m}, F={label}", partial(_run, values, n, d, m, s, max_m))
                      for m in ms for label, values, d in cases]
            cmp = compare(inputs, coins(full), across_coins=True)
            total += cmp.runs
            certs.append(Certificate(
                CLAIM, "approx_ord_sample(padded=True, max_m)", {"n": n, "max_m": max_m, "s": s},
                f"m in {ms}, {len(cases)} CDFs, {len(coins(full))} coin streams",
                cmp.trace_length, "one operation trace for all m, F and coins", cmp.ok,
                {"first_difference": cmp.mismatch} if cmp.mismatch else {}))
    return ClaimReport(
        CLAIM, f"(n, max_m) in {_grid(full)}, m in [n+1, max_m] at every bit length, "
        f"s in {{max_m, 10 max_m (n^2+2n)}}, GeoSample/FastSample/uniform/gap CDFs, coins "
        f"u = 1, u = s and seeded ({total} traced runs)",
        "one trace per (n, max_m, s)" if all(c.verdict for c in certs)
        else "TRACES DIFFER (see certificates)",
        "identical operation traces", certs)
