"""Remark before Proposition 6.6: the [BV18] conditional-CDF sampler is wrong for discrete F."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import partial

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import statistical_distance
from exactdp.explore import explore
from exactdp.histograms.orderstats import FunctionDraw
from exactdp.proofs.balcer_vadhan._orderstats import cdf_cases, naive_top_order_statistics
from exactdp.randomness import RandomSource

CLAIM = "Prop 6.6 remark: BV18 sampler is wrong for discrete F"
SLIP = ("The conference version's order-statistic sampler (the conditional CDF quoted before "
        "Proposition 6.6) is wrong for discrete distributions; the full version's Algorithm 6.7 "
        'replaces it.')
STATEMENT = """The conference version [BV18] sampled the order statistics one at a time from
F_{Z_(m-k) | Z_(m-k+1) = v, ..., Z_(m) = v_m}(z) = (F(z)/F(v))^(m-k) for z <= v (1 above),
starting from Pr[Z_(m) <= z] = (F(z)/d)^m.  The paper (before Proposition 6.6) says this
only holds for continuous distributions."""
PROOF_IDEA = """Given Z_(m-k+1) = v, the remaining m - k draws are i.i.d. conditioned on
being <= v only when no tie at v is possible; for discrete F ties at v have positive
probability and the conditional law depends on how many draws equal v.  Check: the
counterexample sampler below (code, explored exactly) against the naive order statistics
(m draws, sorted; explored exactly).  Pass = the difference is exhibited exactly: the
first coordinate Z_(m) agrees (that step is right) and the joint law differs, on the
smallest case n = 1, m = 2, F uniform on {0, 1} (true Pr[(1, 1)] = 1/4, BV18 gives 3/8),
and on the grid."""


def bv18_order_statistics_sampler(values: Sequence[int], d: int, m: int,
                                  source: RandomSource) -> tuple[int, ...]:
    """COUNTEREXAMPLE -- the [BV18] sampler, wrong for discrete ``F``; not library API.

    ``Z_(m)`` from CDF ``(F(z)/d)^m``; then for ``k = 1..n``, ``Z_(m-k)`` given
    ``Z_(m-k+1) = v`` from CDF ``(F(z)/F(v))^(m-k)`` on ``[0, v]`` (integer CDF
    ``F(z)^(m-k)`` over ``F(v)^(m-k)``).
    """
    n = len(values) - 1
    out: list[int] = []
    v = n
    for k in range(n + 1):
        e = m - k
        draw = FunctionDraw(v, values[v] ** e, partial(_power_cdf, values, v, e))
        v = source.inverse_cdf(draw)
        out.append(v)
    return tuple(out)


def _power_cdf(values: Sequence[int], top: int, e: int, z: int) -> int:
    return 0 if z < 0 else values[min(z, top)] ** e


def _first(dist: dict[tuple[int, ...], Fraction]) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for k, w in dist.items():
        out[k[0]] = out.get(k[0], Fraction(0)) + w
    return out


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    grid = [(1, 2), (1, 3), (2, 3), (2, 4)] + ([(2, 5), (3, 4), (3, 5)] if full else [])
    worst = Fraction(0)
    differing = 0
    for n, m in grid:
        for label, values, d in cdf_cases(n, full):
            wrong = explore(partial(bv18_order_statistics_sampler, values, d, m))
            true = explore(partial(naive_top_order_statistics, values, d, m))
            gap = statistical_distance(wrong, true)
            worst = max(worst, gap)
            differing += gap > 0
            first_ok = _first(wrong) == _first(true)
            certs.append(Certificate(
                CLAIM, "BV18 conditional-CDF sampler (counterexample)",
                {"F": label, "n": n, "m": m}, "joint law of the top n+1 order statistics",
                gap, "Z_(m) marginal equal; joint law may differ", first_ok,
                {} if gap == 0 else {"first differing outcome": next(
                    str(k) for k in true if wrong.get(k, Fraction(0)) != true[k])}))
    # The designated witness: n = 1, m = 2, F uniform on {0, 1}.
    values = (1, 2)
    wrong = explore(partial(bv18_order_statistics_sampler, values, 2, 2))
    true = explore(partial(naive_top_order_statistics, values, 2, 2))
    shown = wrong[(1, 1)] == Fraction(3, 8) and true[(1, 1)] == Fraction(1, 4)
    certs.append(Certificate(
        CLAIM, "BV18 conditional-CDF sampler (counterexample)", {"F": "uniform", "n": 1, "m": 2},
        "outcome (Z_(2), Z_(1)) = (1, 1)", wrong[(1, 1)] - true[(1, 1)],
        "BV18 3/8 vs true 1/4", shown and differing > 0,
        {"BV18": str(wrong[(1, 1)]), "true": str(true[(1, 1)])}))
    return ClaimReport(
        CLAIM, f"{len(certs) - 1} cases (n <= {3 if full else 2}, m <= {5 if full else 4}) "
        "of the Prop 6.6 CDFs", f"differs on {differing}/{len(certs) - 1} cases, max distance "
        f"{brief(worst)}", "difference exhibited exactly (Z_(m) marginal agrees)", certs)
