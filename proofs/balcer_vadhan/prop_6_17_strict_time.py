"""Proposition 6.17, padded mode: ApproxBinSample's operations depend on (pad_t, rounds) only."""

from __future__ import annotations

from functools import partial

from exactdp.certificate import Certificate, ClaimReport
from exactdp.histograms.orderstats import approx_bin_sample, doubling_widths
from exactdp.proofs._strict_time import coins, compare, traced

CLAIM = "Proposition 6.17 (padded, strict time)"
STATEMENT = """ApproxBinSample_{s,t}(m, p, q) (Algorithm 6.18) run with padded=True, pad_t = T >= t
and exponent_rounds = R >= bitlen(m) makes the same operations for every m < 2^R, every
p/q, every s >= m, every t in [0, T] and every value of its draw u: one uniform draw from
[s]_+, every width t' < 2T computed with R ApproxConvExp rounds of both products, every l
tested (the module docstring of exactdp.histograms.orderstats)."""
PROOF_IDEA = """Padded mode fixes the widths by T, the ACE rounds by R (starting from the unit
(s, 0..0), so leading zero bits of m change nothing) and tests every l without exiting,
keeping the first hit.  Check: the operation trace (draw domain sizes, the events the code
records, and every call of the CDF, ACE, polynomial-product and certified-bound functions
seen by the profiler) of the sampling path, on fixed coins at both ends (u = 1, u = s) and
seeded ones, is ONE trace per (T, R) across the whole grid of m, p/q, s, t and coins --
except for the draw's domain size s, which is public and compared per s."""


def _grid(full: bool) -> list[tuple[int, int]]:
    """(pad_t, rounds)."""
    pads = [1, 2, 4] if full else [1, 3]
    rounds = [1, 2, 3, 5] if full else [2, 4]
    return [(pad, r) for pad in pads for r in rounds]


def _ms(rounds: int, full: bool) -> list[int]:
    top = (1 << rounds) - 1
    if full and rounds <= 3:
        return list(range(top + 1))
    return sorted({0, 1, 2, 3, top // 2, top // 2 + 1, top} & set(range(top + 1)))


_PQ = [(0, 1), (1, 1), (1, 2), (1, 3), (2, 3)]


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    total = 0
    for pad, rounds in _grid(full):
        ms = _ms(rounds, full)
        for s_extra in (0, 97):
            s = (1 << rounds) - 1 + s_extra  # s >= every m of the grid; the draw's domain
            inputs = [(f"m={m}, p/q={p}/{q}, t={t}",
                       partial(approx_bin_sample, m, p, q, s, t, padded=True, pad_t=pad,
                               exponent_rounds=rounds))
                      for m in ms for p, q in _PQ for t in range(pad + 1)]
            cmp = compare(inputs, coins(full), across_coins=True)
            total += cmp.runs
            # The schedule itself (Proposition 6.17's time bound): widths t' = 1, 2, 4, ...
            # below 2 pad_t, each testing ell in [t'/2, t'): as many tests as that, always.
            schedule = sum(w - w // 2 for w in doubling_widths(pad))
            trace, _ = traced(inputs[0][1], coins(full)[0])
            tests = sum(1 for e in trace if e[0] == "abs_test")
            certs.append(Certificate(
                CLAIM, "approx_bin_sample(padded=True)",
                {"pad_t": pad, "exponent_rounds": rounds, "s": s},
                f"m in {ms}, p/q in {[f'{p}/{q}' for p, q in _PQ]}, t in [0, {pad}], "
                f"{len(coins(full))} coin streams", cmp.trace_length,
                f"one operation trace for all inputs and coins, with {schedule} tests",
                cmp.ok and tests == schedule,
                {"tests_in_trace": tests, "tests_scheduled": schedule,
                 **({"first_difference": cmp.mismatch} if cmp.mismatch else {})}))
    every = "every m for rounds <= 3, else " if full else ""
    return ClaimReport(
        CLAIM, f"(pad_t, rounds) in {_grid(full)}; m < 2^rounds ({every}a spread), p/q in {{0, 1, 1/2, 1/3, 2/3}}, every t <= pad_t, "
        f"coins u = 1, u = s and seeded ({total} traced runs)",
        "one trace per (pad_t, rounds, s)" if all(c.verdict for c in certs)
        else "TRACES DIFFER (see certificates)",
        "identical operation traces", certs)
