"""DP-SignRP-RR (Algorithm 6) with N+ < k is not
(eps, delta)-DP for a fixed public W -- its delta is over the draw of W, so it holds only with
W drawn afresh and released; with N+ = k (Remark 4.1) it is pure for every W."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from itertools import product

from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import hockey_stick
from exactdp.neighbours import vectors
from exactdp.projections import exact as ex
from exactdp.projections.check import check_dp_over_family, explored_law
from exactdp.projections.rr import Base
from exactdp.projections.signs import DPSignRPRR
from exactdp.proofs.li_li._proj import BASE, RHO, cert, report, worst_text

CLAIM = "P1: Alg 6 with N+ < k fails for a fixed W; delta over a released W; N+ = k pure"
SLIP = ('DP-SignRP-RR (Algorithm 6) with N+ < k is not private for a fixed public W; its delta '
        'holds only averaged over a released random W.')
STATEMENT = """Li & Li Theorem 4.1: Algorithm 6 (eps' = eps/N+) is (eps, delta)-DP, delta bounding |S| > N+
over the Gaussian W.  For a FIXED public W the guarantee fails: reference instance p = k = 3,
u in {-1,0,1}^3 \\ {0}, beta = 1, per-bit base 3/2, N+ = 1 (claimed ratio 3/2): a fixed W
reaches 25/16 > 3/2 (and a fixed W's delta_W(3/2) reaches 29/1000).  Averaged over all 512 Rademacher W with W released, the exact
delta(3/2) is 59/8000 (pair (-1,-1,0)/(0,-1,0)).  With N+ = k and a per-bit base rho_c,
rho_c^3 <= 3/2 (rho_c = 8/7), the ratio is <= 3/2 for every W."""
PROOF_IDEA = """From the implementation's DPSignRPRR explored per (W, u): (a) fixed W: the checker's worst
ratio over every ordered one-coordinate pair exceeds claimed_ratio = 3/2 (paper side), for
a full-rank W (full rank: 25/16) and a rank-1 W (125/64, all three signs through
zero); (b) W released: check_dp_over_family sums Pr[W] delta_W(3/2) over all 512 W; the
reference pair and the pair the checker finds first must give 59/8000, equal to the same sum
over exactdp.projections.exact.sign_rr_law (closed form); full: the max over all pairs is
59/8000; (c) N+ = k, rho_c = 8/7: worst ratio <= 3/2 on the same W (full: all 512).
Full also records how many W reach 25/16 and 125/64 (none is <= 3/2)."""

FULL_RANK_W = ((-1, -1, -1), (-1, -1, 1), (-1, 1, -1))
RANK_ONE_W = ((-1, -1, -1),) * 3
NOTES_PAIRS = [((-1, -1, 0), (0, -1, 0)), ((-1, -1, 0), (-1, -1, -1))]
NOTES_DELTA = Fraction(59, 8000)
PRIVATE_BASE = Base(8, 7)


def relation():  # type: ignore[no-untyped-def]
    return vectors(3, -1, 1, 1, keep=any)


@cache
def mech(W: tuple[tuple[int, ...], ...], private: bool) -> DPSignRPRR:
    return DPSignRPRR(W, PRIVATE_BASE, None) if private else DPSignRPRR(W, BASE, 1)


@cache
def implementation_law(W: tuple[tuple[int, ...], ...], u: tuple[int, ...],
                       private: bool = False) -> dict[tuple[int, ...], Fraction]:
    return explored_law(mech(W, private).sample, u)


def fixed_w_certificate(W: tuple[tuple[int, ...], ...], private: bool) -> Certificate:
    rel = relation()
    laws = {u: implementation_law(W, u, private) for u in rel.points}
    rep = report(laws, rel, RHO)
    m = mech(W, private)
    bound = m.privacy_ratio if private else m.claimed_ratio
    closed_ok = all(laws[u] == ex.sign_rr_law(ex.projections(u, W), m.base.ratio)
                    for u in rel.points)
    if private:
        ok = closed_ok and rep.pure(Fraction(3, 2)) and bound <= Fraction(3, 2)
        text = f"<= rho_c^3 = {bound} <= 3/2"
    else:
        ok = closed_ok and rep.worst.ratio is not None and rep.worst.ratio > bound
        text = f"> claimed rho^(N+) = {bound}: the fixed-W claim FAILS"
    return cert(f"{CLAIM} ({'N+ = k, rho_c = 8/7' if private else 'N+ = 1'}, fixed W)",
                f"DPSignRPRR(W={W}, base={m.base.ratio}, n_plus={m.n_plus})",
                {"per_bit_base": m.base.ratio, "n_plus": m.n_plus, "beta": 1},
                f"{rep.pairs} ordered pairs of {rel.name}", worst_text(rep), text, ok,
                {"ratio_witness": rep.worst.to_json(),
                 "delta_W(3/2)": None if rep.delta is None else rep.delta.to_json()})


def family() -> list[tuple[tuple[tuple[int, ...], ...], Fraction]]:
    rows = list(product((-1, 1), repeat=3))
    return [(W, Fraction(1, 512)) for W in product(rows, repeat=3)]


def averaged_certificate(pairs: Sequence[tuple[tuple[int, ...], tuple[int, ...]]] | None
                         ) -> Certificate:
    fam = family()
    prs = list(relation().ordered_pairs()) if pairs is None else list(pairs)
    rep = check_dp_over_family(implementation_law, fam, prs, RHO)
    closed_by_x: dict[tuple[int, ...], dict[tuple[int, ...], Fraction]] = {}

    def closed_law(W: tuple[tuple[int, ...], ...], u: tuple[int, ...]
                   ) -> dict[tuple[int, ...], Fraction]:
        """sign_rr_law at x = W^T u, computed once per distinct x."""
        x = ex.projections(u, W)
        if x not in closed_by_x:
            closed_by_x[x] = ex.sign_rr_law(x, RHO)
        return closed_by_x[x]

    closed = check_dp_over_family(closed_law, fam, prs, RHO)
    per_pair = {}
    for a, b in NOTES_PAIRS:
        # the same sum the checker made for this pair (when it was among its pairs)
        found = rep.by_pair.get((a, b))
        per_pair[f"{a}/{b}"] = (found if found is not None else
                                sum((w * _hs(W, a, b) for W, w in fam), Fraction(0)))
    ok = (rep.averaged.delta == closed.averaged.delta == NOTES_DELTA
          and all(v == NOTES_DELTA for v in per_pair.values()))
    return cert(f"{CLAIM} (W released: delta averaged over 512 W)",
                "DPSignRPRR(W, base=3/2, n_plus=1), W uniform over {-1,1}^{3x3}, released",
                {"R": RHO, "family": 512},
                f"{len(prs)} ordered pairs" + (" (all of the domain)" if pairs is None
                                               else " (the hand-derived witnesses)"),
                rep.averaged.delta, f"= hand-derived {NOTES_DELTA} = closed-form sum", ok,
                {"averaged": rep.averaged.to_json(), "per_pair": per_pair,
                 "worst_fixed_W_ratio": worst_text_of(rep.conditional.ratio),
                 "worst_fixed_W_delta": rep.conditional_delta})


def _hs(W: tuple[tuple[int, ...], ...], a: tuple[int, ...], b: tuple[int, ...]) -> Fraction:
    return hockey_stick(implementation_law(W, a), implementation_law(W, b), RHO)


def worst_text_of(r: Fraction | None) -> Fraction | str:
    return "infinity" if r is None else r


def census() -> Certificate:
    """How many of the 512 W reach each fixed-W worst ratio (closed form; all > 3/2)."""
    rel = relation()
    counts: dict[Fraction, int] = {}
    for W, _ in family():
        laws = {u: ex.sign_rr_law(ex.projections(u, W), RHO) for u in rel.points}
        r = report(laws, rel).worst.ratio
        assert r is not None
        counts[r] = counts.get(r, 0) + 1
    ok = min(counts) > RHO
    return cert(f"{CLAIM} (census of fixed W)", "closed-form sign_rr_law, N+ = 1",
                {"per_bit_base": RHO}, "all 512 W x all ordered pairs", max(counts),
                "every W exceeds 3/2", ok, {"W_per_worst_ratio": counts})


def check(full: bool) -> ClaimReport:
    certs = [fixed_w_certificate(W, private) for W in (FULL_RANK_W, RANK_ONE_W)
             for private in (False, True)]
    certs.append(averaged_certificate(None if full else NOTES_PAIRS))
    if full:
        certs.append(census())
        certs += [fixed_w_certificate(W, True) for W, _ in family()]
    return ClaimReport(CLAIM, "p = k = 3, u in {-1,0,1}^3 \\ {0}, beta = 1, base 3/2, N+ = 1"
                       + ("; all 512 W" if full else "; 2 W, reference pairs"),
                       f"fixed W: {certs[0].worst}, {certs[2].worst} (N+ = k: {certs[1].worst},"
                       f" {certs[3].worst}); averaged delta(3/2) = {certs[4].worst}",
                       "fixed W > 3/2 (refuted); averaged delta = 59/8000; N+ = k <= 3/2",
                       certs)
