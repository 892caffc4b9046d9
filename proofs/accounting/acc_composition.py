"""Exact composition of privacy-loss distributions equals the explored joint law."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from functools import partial
from itertools import pairwise
from typing import Any

from exactdp.accounting import PrivacyLoss, compose
from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import hockey_stick
from exactdp.counting import InverseCDFSampler
from exactdp.explore import explore
from exactdp.fastsample import FastSample
from exactdp.geosample import GeoSample
from exactdp.noise import ClampedGeometric
from exactdp.randomness import RandomSource

F = Fraction

CLAIM = "Accounting: composed privacy loss = loss of the explored joint law"
STATEMENT = """For releases M_1, ..., M_k run independently on neighbouring inputs a and b,
compose(PrivacyLoss.of(M_1, a, b), ..., PrivacyLoss.of(M_k, a, b)) equals
PrivacyLoss.from_laws(P, Q) for the joint laws P, Q of (M_1(a), ..., M_k(a)) and
(M_1(b), ..., M_k(b)): the same ratios with the same P- and Q-masses, including the masses of
infinite ratio; and its delta_at_ratio(R) equals the hockey-stick divergence
sum_o max(0, P(o) - R Q(o)) of the joint laws at every R tried."""
PROOF_IDEA = """The k releases are run one after the other inside one function of a random
source, and that function is explored (every path of every draw, exact weights): the joint
laws P, Q come from the code, not from the product formula the composition uses.  Compared:
the composed loss (lattice polynomial products, the binomial form for repeated two-ratio
releases, the atom-by-atom product for ratios on no common lattice) against the loss of the
explored joint laws, atom by atom; and delta_at_ratio against exactdp.checker.hockey_stick
of the joint laws at 0, every ratio of the joint law, the midpoints between them, and twice
the largest.  Grid: GeoSample three times (a lattice), GeoSample with a clamped geometric of
the squared ratio (two related bases), FastSample twice (two ratios: the binomial form, or
five: atoms), and a mix with randomized response that has an impossible outcome (infinite
ratios)."""


def _rr(x: int, source: RandomSource) -> int:
    """Randomized response that never says 2 on input 0 (an infinite ratio against 1)."""
    u = source.uniform(4)
    if x == 0:
        return 0 if u > 1 else 1
    return (0, 1, 2, 2)[u - 1]


def _run(mech: Any, x: int, source: RandomSource) -> Hashable:
    if isinstance(mech, InverseCDFSampler):
        return mech.sample(x, source)
    return mech(x, source)  # type: ignore[no-any-return]


def joint_law(mechs: Sequence[Any], x: int) -> dict[Any, Fraction]:
    """The explored law of ``(M_1(x), ..., M_k(x))`` run on one exploring source."""
    def run(source: RandomSource) -> tuple[Hashable, ...]:
        return tuple(_run(m, x, source) for m in mechs)
    return explore(run)


Case = tuple[str, Callable[[], list[Any]], list[tuple[int, int]]]


def cases(full: bool) -> list[Case]:
    geo = GeoSample(3, F(1, 2))
    quick: list[Case] = [
        ("GeoSample(3, 1/2) x 3", lambda: [geo] * 3, [(1, 2), (3, 2)]),
        ("GeoSample(3, 1/2) + ClampedGeometric(16/25, 0, 3)",
         lambda: [geo, ClampedGeometric(F(16, 25), 0, 3)], [(0, 1)]),
        ("FastSample(1, 1/2, 1/10) x 2", lambda: [FastSample(1, F(1, 2), F(1, 10))] * 2,
         [(0, 1)]),
        ("FastSample(2, 1/2, 1/10) x 2", lambda: [FastSample(2, F(1, 2), F(1, 10))] * 2,
         [(0, 1)]),
        ("GeoSample(2, 1/2) + randomized response (impossible outcome)",
         lambda: [GeoSample(2, F(1, 2)), _rr], [(0, 1), (1, 0)]),
        ("randomized response x 2 (impossible outcomes; two objects: the pairwise product)",
         lambda: [_rr, partial(_rr)], [(1, 0)]),
    ]
    if not full:
        return quick
    return quick + [
        ("GeoSample(4, 1/2) x 4", lambda: [GeoSample(4, F(1, 2))] * 4, [(0, 1), (2, 1)]),
        ("FastSample(3, 1/2, 1/10) x 2", lambda: [FastSample(3, F(1, 2), F(1, 10))] * 2,
         [(0, 1), (1, 2)]),
        ("GeoSample(2, 1/2) + GeoSample(2, 1/3) + ClampedGeometric(1/2, 0, 2)",
         lambda: [GeoSample(2, F(1, 2)), GeoSample(2, F(1, 3)), ClampedGeometric(F(1, 2), 0, 2)],
         [(0, 1), (1, 2)]),
    ]


def ratios_to_try(p: dict[Any, Fraction], q: dict[Any, Fraction]) -> list[Fraction]:
    vals = sorted({p[o] / q[o] for o in p if p[o] and q.get(o)})
    mids = [(a + b) / 2 for a, b in pairwise(vals)]
    return [F(0), *vals, *mids, 2 * vals[-1]] if vals else [F(0), F(1)]


def _composed(mechs: list[Any], a: int, b: int) -> PrivacyLoss:
    # one loss object per distinct mechanism, passed as often as it runs (power path)
    losses: dict[int, PrivacyLoss] = {}
    for m in mechs:
        if id(m) not in losses:
            losses[id(m)] = PrivacyLoss.of(m, a, b)
    return compose(*(losses[id(m)] for m in mechs))


def _diff(got: PrivacyLoss, want: PrivacyLoss) -> dict[str, Any] | None:
    if got == want:
        return None
    g, w = list(got.atoms()), list(want.atoms())
    for x, y in zip(g, w):
        if x != y:
            return {"composed atom": [str(v) for v in x], "joint-law atom": [str(v) for v in y]}
    return {"composed ratios": len(g), "joint-law ratios": len(w),
            "composed P(inf)": str(got.infinite_mass),
            "joint-law P(inf)": str(want.infinite_mass)}


def check_loss(full: bool) -> ClaimReport:
    certs, bad_total = [], 0
    for label, build, pairs in cases(full):
        mechs = build()
        for a, b in pairs:
            want = PrivacyLoss.from_laws(joint_law(mechs, a), joint_law(mechs, b))
            diff = _diff(_composed(mechs, a, b), want)
            bad_total += diff is not None
            certs.append(Certificate(CLAIM, label, {"a": a, "b": b},
                                     f"{len(want)} finite ratios, P(inf) = "
                                     f"{want.infinite_mass}",
                                     0 if diff is None else 1,
                                     "composed loss == loss of the explored joint law",
                                     diff is None, diff or {}))
    return ClaimReport(CLAIM, f"{len(certs)} (releases, pair) cases",
                       f"{bad_total} cases differ", "0 (equal atom by atom)", certs)


HS_CLAIM = "Accounting: delta_at_ratio = hockey-stick divergence of the explored joint laws"


def check_hockey_stick(full: bool) -> ClaimReport:
    certs, tried, bad_total = [], 0, 0
    for label, build, pairs in cases(full):
        mechs = build()
        for a, b in pairs:
            p, q = joint_law(mechs, a), joint_law(mechs, b)
            loss = _composed(mechs, a, b)
            wrong = []
            rs = ratios_to_try(p, q)
            for r in rs:
                got, want = loss.delta_at_ratio(r), hockey_stick(p, q, r)
                if got != want:
                    wrong.append({"R": str(r), "delta_at_ratio": str(got),
                                  "hockey-stick": str(want)})
            tried += len(rs)
            bad_total += len(wrong)
            certs.append(Certificate(HS_CLAIM, label, {"a": a, "b": b},
                                     f"{len(rs)} ratios R", len(wrong),
                                     "delta_at_ratio(R) == sum_o max(0, P(o) - R Q(o))",
                                     not wrong, {"wrong": wrong[:3]} if wrong else {}))
    return ClaimReport(HS_CLAIM, f"{len(certs)} cases, {tried} ratios",
                       f"{bad_total} ratios differ", "0 (exactly equal)", certs)


check_loss.CLAIM = CLAIM  # type: ignore[attr-defined]
check_hockey_stick.CLAIM = HS_CLAIM  # type: ignore[attr-defined]
CHECKS = [check_loss, check_hockey_stick]
