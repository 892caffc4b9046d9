"""Paper 002 Theorem 4 ("[DRV10]" advanced composition) as printed is FALSE;
the correct DRV statement and the zCDP route hold on every grid point (exact privacy-loss laws
of the integer-strategy mechanisms)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import hockey_stick
from exactdp.convolution.accounting import PrivacyProfile, find_composition_violation
from exactdp.proofs.convolution._conv import (
    delta_from_law,
    exp_bounds,
    ln_bounds,
    loss_law,
    sqrt_bounds,
)

CLAIM = "Conv Theorem 4 as printed fails (P1); DRV and zCDP hold"
SLIP = ('Theorem 4 (advanced composition, cited as [DRV10]) is misquoted: as printed it promises '
        'a delta that the exact privacy profile exceeds.')
STATEMENT = """Paper 002 Theorem 4: (eps_i, 0)-DP mechanisms compose to (eps, delta)-DP for every delta > 0
and eps >= sqrt(2 ln(1/delta) sum eps_i^2).  False: 8 rows of ratio r = 4 (the
Walsh mechanism for h = e_0 on Z_2^3, every coefficient with ratio 4) at delta = 0.035: the
theorem promises eps = sqrt(16 ln(1/0.035)) ln 4 ~ 10.153 <= ln 2^15, but the exact
delta(R = 2^15) = (4/5)^8/2 = 32768/390625 ~ 0.0839 > 0.035.  The correct statements:
DRV eps' = sqrt(2L sum eps_i^2) + sum eps_i (e^eps_i - 1) and zCDP eps' = rho + 2 sqrt(rho L),
rho = sum eps_i^2/2 (L = ln(1/delta)) hold: exact delta(e^eps') <= delta."""
PROOF_IDEA = """P1: the exact delta(2^15) three ways that must agree -- the hockey-stick divergence of the
implementation's WalshFourierMechanism laws (explored, every neighbouring pair of
histograms(8, 1) both ways; quick: the pair 0, e_0), PrivacyProfile.delta (implementation, accounting.py) and the
loss law of proofs/convolution/_conv written from the §3.0 table -- and equal (4/5)^8/2; the
printed eps is enclosed from certified ln/sqrt bounds and must lie below 15 ln 2 (ln 2^15
lower end), so delta(e^eps) >= delta(2^15) > 0.035 (delta is non-increasing): a certified
counterexample (also found by accounting.find_composition_violation).  Corrected bounds: for
each grid point (ratios, shifts, delta) a certified LOWER bound eps_lo of the DRV / zCDP eps'
is computed here, R_lo <= e^eps_lo from certified exp, and the exact delta(R_lo) (here and in
the implementation, equal) must be <= delta; since delta(.) is non-increasing this proves
delta(e^eps') <= delta.  The implementation's certified intervals must overlap ours."""

P1_DELTA = Fraction(35, 1000)
P1_R = Fraction(2 ** 15)


def paper_eps_bounds(eps_rows: Sequence[tuple[Fraction, Fraction]], delta: Fraction
                     ) -> tuple[Fraction, Fraction]:
    """``sqrt(2 L sum eps_i^2)`` from per-row ``(eps_lo, eps_hi)`` bounds."""
    l_lo, l_hi = ln_bounds(1 / delta)
    s_lo = sum((a * a for a, _ in eps_rows), Fraction(0))
    s_hi = sum((b * b for _, b in eps_rows), Fraction(0))
    return sqrt_bounds(2 * l_lo * s_lo)[0], sqrt_bounds(2 * l_hi * s_hi)[1]


def corrected_eps_bounds(mode: str, eps_rows: Sequence[tuple[Fraction, Fraction, Fraction]],
                         delta: Fraction) -> tuple[Fraction, Fraction]:
    """DRV / zCDP eps' from rows ``(eps_lo, eps_hi, e^eps = ratio)`` (independent code)."""
    l_lo, l_hi = ln_bounds(1 / delta)
    s_lo = sum((a * a for a, _, _ in eps_rows), Fraction(0))
    s_hi = sum((b * b for _, b, _ in eps_rows), Fraction(0))
    if mode == "drv":
        base_lo, base_hi = sqrt_bounds(2 * l_lo * s_lo)[0], sqrt_bounds(2 * l_hi * s_hi)[1]
        extra_lo = sum((a * (r - 1) for a, _, r in eps_rows), Fraction(0))
        extra_hi = sum((b * (r - 1) for _, b, r in eps_rows), Fraction(0))
        return base_lo + extra_lo, base_hi + extra_hi
    rho_lo, rho_hi = s_lo / 2, s_hi / 2
    return (rho_lo + 2 * sqrt_bounds(rho_lo * l_lo)[0], rho_hi + 2 * sqrt_bounds(rho_hi * l_hi)[1])


def _rows_of_column(ratios: Sequence[Fraction], shifts: Sequence[Sequence[int]], n: int
                    ) -> list[tuple[Fraction, Fraction, Fraction]]:
    out = []
    for r, row in zip(ratios, shifts):
        if row[n]:
            rr = Fraction(r) ** abs(row[n])
            lo, hi = ln_bounds(rr)
            out.append((max(lo, Fraction(0)), hi, rr))
    return out


# ------------------------------------------------------------------ P1


def explored_p1_delta(full: bool) -> tuple[Fraction, int]:
    """(the largest hockey-stick divergence at R = 2^15 over every ordered neighbouring pair,
    number of pairs) from the implementation's explored WalshFourierMechanism laws."""
    from exactdp.proofs.convolution._conv_mech import explored_walsh_laws

    inputs = None if full else [(0,) * 8, (1,) + (0,) * 7]     # quick: one pair
    laws, pairs = explored_walsh_laws(h=[1, 0, 0, 0, 0, 0, 0, 0], ratios=[Fraction(4)] * 8,
                                      kind="histograms", bound=1, inputs=inputs)
    worst = Fraction(0)
    for x, y, _n in pairs:
        worst = max(worst, hockey_stick(laws[x], laws[y], P1_R),
                    hockey_stick(laws[y], laws[x], P1_R))
    return worst, len(pairs)


def _p1_certificates(with_explore: bool, full: bool = False) -> list[Certificate]:
    ratios = [Fraction(4)] * 8
    shifts = [[1] * 8 for _ in range(8)]
    expected = Fraction(4, 5) ** 8 / 2
    independent = delta_from_law(loss_law(ratios, [1] * 8), P1_R)
    profile = PrivacyProfile(ratios, shifts)
    impl = profile.delta(P1_R)
    ln4 = ln_bounds(Fraction(4))
    eps_lo, eps_hi = paper_eps_bounds([ln4] * 8, P1_DELTA)
    ln_r_lo = ln_bounds(P1_R)[0]
    impl_claim = profile.paper_unsound(P1_DELTA)
    violation = find_composition_violation(profile, P1_DELTA, "paper-unsound", ratio=P1_R)
    values: dict[str, Any] = {"closed_form": expected, "proofs/convolution/_conv": independent,
                              "PrivacyProfile.delta": impl}
    if with_explore:
        values["explored_mechanism"], values["pairs"] = explored_p1_delta(full)
    agree = all(v == expected for k, v in values.items() if k != "pairs")
    certified = eps_hi < ln_r_lo and expected > P1_DELTA
    overlap = impl_claim.lo <= eps_hi and eps_lo <= impl_claim.hi
    ok = agree and certified and overlap and violation is not None and violation.holds
    return [Certificate(
        CLAIM + ": P1 counterexample", "8 rows, ratio 4, shift 1 (Walsh h = e_0 on Z_2^3)",
        {"ratios": "4 x 8", "delta": P1_DELTA, "R": P1_R}, "every column / neighbouring pair",
        impl,
        f"Theorem 4 printed: eps in [{brief(eps_lo, 4)}, {brief(eps_hi, 4)}] < "
        f"{brief(ln_r_lo, 4)} <= ln 2^15, yet delta(2^15) = {impl} > {P1_DELTA}: refuted",
        ok, {**values, "paper_eps": [eps_lo, eps_hi], "ln_2^15_lower": ln_r_lo,
             "implementation_paper_eps": [impl_claim.lo, impl_claim.hi]})]


# ------------------------------------------------------------------ corrected bounds hold

GridPoint = tuple[str, list[Fraction], list[list[int]], Fraction]


def _grid(full: bool) -> list[GridPoint]:
    f = Fraction
    z3 = [[2, 2, 2], [2, -1, -1], [0, 2, -2]]
    w4 = [[1, 1, 1, 1], [1, -1, 1, -1], [1, 1, -1, -1], [1, -1, -1, 1]]
    pts: list[GridPoint] = []
    cases: list[tuple[str, list[Fraction], list[list[int]]]] = [
        ("8 x r=4", [f(4)] * 8, [[1] * 8 for _ in range(8)]),
        ("16 x r=2", [f(2)] * 16, [[1] for _ in range(16)]),
        ("40 x r=3/2", [f(3, 2)] * 40, [[1] for _ in range(40)]),
        ("Walsh N=4 mixed", [f(2), f(3, 2), f(4, 3), f(3)], w4),
        ("rounded Z_3", [f(2), f(3, 2), f(5, 3)], z3),
    ]
    if full:
        cases += [("100 x r=11/10", [f(11, 10)] * 100, [[1] for _ in range(100)]),
                  ("64 x r=5/4", [f(5, 4)] * 64, [[1] for _ in range(64)]),
                  ("rounded Z_3 x 2", [f(6, 5), f(7, 5), f(8, 5)], [[4, 4, 4], [5, -2, -2],
                                                                     [0, 4, -4]])]
    deltas = [f(1, 10), f(35, 1000), f(1, 1000), f(1, 10 ** 6)]
    for name, ratios, shifts in cases:
        for d in deltas:
            pts.append((name, ratios, shifts, d))
    return pts


def _signed_columns(shifts: Sequence[Sequence[int]]) -> list[int]:
    return list(range(len(shifts[0])))


def _grid_certificate(full: bool) -> tuple[list[Certificate], int]:
    certs: list[Certificate] = []
    paper_fails = 0
    # our loss law of column n (proofs/convolution/_conv) depends on the case only, not on delta or the
    # mode: computed once per (case, column) and read at every R_lo
    ours_by_column: dict[tuple[str, int], dict[Fraction, Fraction]] = {}
    for name, ratios, shifts, d in _grid(full):
        profile = PrivacyProfile.from_matrix(ratios, shifts)
        details: dict[str, Any] = {}
        ok = True
        for mode, impl_iv in (("drv", profile.drv(d)), ("zcdp", profile.zcdp(d))):
            # the bound is per neighbour (column): the claim is delta_n(e^eps'_n) <= delta
            worst_margin = None
            ours = []
            for n in _signed_columns(shifts):
                rows = _rows_of_column(ratios, shifts, n)
                lo, hi = corrected_eps_bounds(mode, rows, d)
                ours.append((lo, hi))
                r_lo = exp_bounds(lo)[0]
                law = ours_by_column.get((name, n))
                if law is None:
                    law = ours_by_column[name, n] = loss_law(ratios, [row[n] for row in shifts])
                mine = delta_from_law(law, r_lo)      # = lemma_delta(..., columns=[n])
                theirs = delta_from_law(dict(profile.loss_law(n)), r_lo)
                holds = mine <= d and theirs == mine
                ok = ok and holds
                margin = d - mine
                worst_margin = margin if worst_margin is None else min(worst_margin, margin)
            # the implementation's interval (max over columns) must overlap ours
            ours_lo, ours_hi = max(a for a, _ in ours), max(b for _, b in ours)
            overlap = impl_iv.lo <= ours_hi and ours_lo <= impl_iv.hi
            ok = ok and overlap
            details[mode] = {"eps": [ours_lo, ours_hi], "min slack delta - delta(R_lo)":
                             worst_margin, "implementation_overlaps": overlap}
        # Theorem 4 as printed at the same point: does it fail (certified)?
        viol = find_composition_violation(profile, d, "paper-unsound")
        if viol is not None and viol.holds:
            paper_fails += 1
            details["paper_unsound_violation"] = {"R": viol.ratio, "exact_delta": viol.exact_delta}
        certs.append(Certificate(CLAIM + ": corrected bounds", name,
                                 {"delta": d, "rows": len(ratios)}, "every column",
                                 None, "exact delta(R_lo) <= delta for DRV and zCDP", ok, details))
    return certs, paper_fails


def check(full: bool) -> ClaimReport:
    certs = _p1_certificates(with_explore=True, full=full)
    grid, paper_fails = _grid_certificate(full)
    certs += grid
    return ClaimReport(
        CLAIM, f"P1 (8 x r = 4, delta = 35/1000, explored Walsh N = 8); {len(grid)} grid points "
        f"(ratios x delta in 1/10 .. 10^-6)",
        f"delta(2^15) = {certs[0].worst} > 0.035 at eps_paper < ln 2^15; Theorem 4 printed "
        f"refuted at {paper_fails}/{len(grid)} grid points; DRV, zCDP hold at all",
        "printed Thm 4 false (certified); DRV, zCDP: exact delta <= delta", certs)

