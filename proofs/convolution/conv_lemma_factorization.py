"""The integral factorization lemma: exact privacy of the integer-strategy
mechanisms that make paper 002's Algorithm 1 exact -- explored joint laws of the implementation
against the lemma's data-independent privacy-loss law."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import hockey_stick, statistical_distance, worst_ratio
from exactdp.convolution.groups import circulant
from exactdp.convolution.transforms import real_fourier_rounded
from exactdp.proofs.convolution._conv import (
    lemma_delta,
    lemma_pure_ratio,
    loss_law,
    neighbour_pairs,
)
from exactdp.proofs.convolution._conv_mech import (
    explored_laws,
    loss_law_of_pair,
    reference_output_laws,
    strategy_mechanism,
    walsh_h_matrix,
    walsh_mechanism,
    walsh_t,
)

CLAIM = "Conv integral factorization lemma (exact PLD)"
STATEMENT = """For an integer strategy T, a finite public domain D, public ranges
[lo_j, hi_j] = [min, max] of t_j . x over D and independent clamped two-sided geometric noise
with rational ratios r_j > 1, the privacy-loss law of M(x) against x' = x + e_n is the product
over rows of the (|T_jn| + 1)-point laws of the table (values r_j^(Delta - 2i)); hence (a) it
does not depend on x, (b) the worst ratio is exactly max_n prod_j r_j^|T_jn|, (c) delta(R) =
max_n E[(1 - R e^-L)_+] is rational for rational R.  With T = W this is paper 002's
Algorithm 1 on Z_2^d (§5.4) made exact; with T = round(c Q) it covers circular Z_N."""
PROOF_IDEA = """For each case the implementation's mechanism (WalshFourierMechanism, or
IntegerStrategyMechanism with the implementation's rounded real-Fourier T) is explored on every
x of the domain (its own release code, exact law of the output y).  Independently
(proofs/convolution/_conv, proofs/convolution/_conv_mech): the product of clamped geometric laws of the kept rows,
pushed through G = H T^-1 computed by Gauss-Jordan here, must equal it (TV = 0).  Then, over
every ordered neighbouring pair: the checker's worst ratio must equal max_n prod r_j^|T_jn|
(computed here) and PrivacyProfile.pure_ratio; the likelihood-ratio law of every pair must
equal the lemma's table product for its column (so it is the same for every x); the largest
hockey-stick divergence at each R of a grid must equal PrivacyProfile.delta(R) and the
table's delta(R).  The hand-derived numbers (Hadamard N = 4: 12, 37/70, 38/105, 41/210, 2/35, 0;
rounded Z_3: 50/3, 173/300, 211/600, 1/10) are reproduced as part of the grid."""

F = Fraction


class Case:
    def __init__(self, name: str, t: list[list[int]], h_matrix: list[list[Any]], mech: Any,
                 elems: list[tuple[int, ...]], grid: Sequence[Fraction],
                 notes: dict[Fraction, Fraction] | None = None,
                 notes_pure: Fraction | None = None) -> None:
        self.name, self.t, self.h_matrix, self.mech, self.elems = name, t, h_matrix, mech, elems
        self.grid, self.notes, self.notes_pure = list(grid), notes or {}, notes_pure


def walsh_case(name: str, h: list[int], ratios: list[Fraction], kind: str, bound: int,
               grid: Sequence[Fraction], **kw: Any) -> Case:
    mech, elems = walsh_mechanism(h, ratios, kind, bound)
    return Case(name, walsh_t(len(h)), walsh_h_matrix(h), mech, elems, grid, **kw)


def strategy_case(name: str, t: list[list[int]], h: list[int], ratios: list[Fraction], kind: str,
                  bound: int, grid: Sequence[Fraction], **kw: Any) -> Case:
    hm = circulant(h)
    mech, elems = strategy_mechanism(t, hm, ratios, kind, bound)
    return Case(name, t, hm, mech, elems, grid, **kw)


def cases(full: bool) -> list[Case]:
    z3 = real_fourier_rounded(3, 3)
    z5 = real_fourier_rounded(5, 2)
    # the notes' cases are on x in {0,1}^N (full); the law of the loss is the same on the
    # smaller ||x||_1 <= 1 (quick): the lemma's (a), checked here pair by pair
    kind = "box" if full else "histograms"
    dom4, dom3 = ("x in {0,1}^4", "x in {0,1}^3") if full else ("||x||_1 <= 1",) * 2
    out = [
        walsh_case("Walsh N=2, h=(1,2), box m=2", [1, 2], [F(2), F(3, 2)], "box", 2,
                   [F(1), F(3, 2), F(2), F(3)]),
        walsh_case(f"Walsh N=4 (Hadamard), h=(3,1,1,0), {dom4}", [3, 1, 1, 0],
                   [F(2), F(3, 2), F(4, 3), F(3)], kind, 1,
                   [F(1), F(2), F(4), F(8), F(16), F(6)],
                   notes={F(1): F(37, 70), F(2): F(38, 105), F(4): F(41, 210), F(8): F(2, 35),
                          F(16): F(0)}, notes_pure=F(12)),
        strategy_case(f"rounded Z_3 (c = 3), h=(2,1,0), {dom3}", z3, [2, 1, 0],
                      [F(2), F(3, 2), F(5, 3)], kind, 1, [F(1), F(3), F(10), F(5)],
                      notes={F(1): F(173, 300), F(3): F(211, 600), F(10): F(1, 10)},
                      notes_pure=F(50, 3)),
        strategy_case("rounded Z_5 (c = 2), h=(3,1,0,0,1), ||x||_1 <= 1", z5, [3, 1, 0, 0, 1],
                      [F(2), F(3, 2), F(5, 4), F(4, 3), F(7, 4)], "histograms", 1,
                      [F(1), F(2), F(5), F(20)]),
    ]
    if full:
        out += [
            walsh_case("Walsh N=4, h=(3,1,1,0), ||x||_1 <= 2", [3, 1, 1, 0],
                       [F(5, 4), F(2), F(3), F(6, 5)], "histograms", 2, [F(1), F(2), F(5)]),
            walsh_case("Walsh N=8, h=(1,1,0,...), ||x||_1 <= 1 (kept rows only)",
                       [1, 1, 0, 0, 0, 0, 0, 0], [F(2), F(3, 2), F(4, 3), F(5, 4)],
                       "histograms", 1, [F(1), F(2), F(4), F(12)]),
            strategy_case("rounded Z_5 (c = 2), h=(3,1,0,0,1), x in {0,1}^5", z5,
                          [3, 1, 0, 0, 1], [F(2)] * 5, "box", 1, [F(1), F(4), F(16)]),
        ]
    return out


def case_certificate(case: Case) -> Certificate:
    mech = case.mech
    kept = list(mech.rows)
    ratios = list(mech.ratios)
    tk = [case.t[j] for j in kept]
    laws = explored_laws(mech, case.elems)
    ref = reference_output_laws(case.t, case.h_matrix, dict(zip(kept, ratios)), case.elems,
                                case.elems)
    tv = max(statistical_distance(laws[x], ref[x]) for x in case.elems)
    pairs = neighbour_pairs(case.elems)
    ordered = [(x, laws[x], y, laws[y]) for x, y, _ in pairs] + \
              [(y, laws[y], x, laws[x]) for x, y, _ in pairs]
    w = worst_ratio(ordered)
    profile = mech.privacy()
    pure_mine = lemma_pure_ratio(tk, ratios)
    pure_ok = w.ratio is not None and w.ratio == pure_mine == profile.pure_ratio
    # (a) the likelihood-ratio law of every ordered pair is the table product for its column
    pld_ok = True
    for x, y, n in pairs:
        want = loss_law(ratios, [row[n] for row in tk])
        for p, q in ((laws[x], laws[y]), (laws[y], laws[x])):
            got = loss_law_of_pair(p, q)
            pld_ok = pld_ok and got == {k: v for k, v in want.items() if v}
    # (c) delta(R) on the grid
    deltas: dict[Fraction, Fraction] = {}
    delta_ok = True
    for big_r in case.grid + [pure_mine]:
        hs = max(max(hockey_stick(laws[x], laws[y], big_r), hockey_stick(laws[y], laws[x], big_r))
                 for x, y, _ in pairs)
        deltas[big_r] = hs
        delta_ok = delta_ok and hs == profile.delta(big_r) == lemma_delta(tk, ratios, big_r)
        if big_r in case.notes:
            delta_ok = delta_ok and hs == case.notes[big_r]
    notes_ok = case.notes_pure is None or case.notes_pure == pure_mine
    ok = tv == 0 and pure_ok and pld_ok and delta_ok and notes_ok
    return Certificate(
        CLAIM, f"{case.name}: {mech!r}", {"ratios": ratios, "kept_rows": kept},
        f"{len(case.elems)} inputs, {len(pairs)} neighbouring pairs (both orders)",
        w.ratio,
        f"worst ratio = max_n prod r_j^|T_jn| = {brief(pure_mine)}; PLD = table for every "
        f"pair; delta(R) = PrivacyProfile.delta(R)", ok,
        {"TV_explored_vs_reference": tv, "pure_ratio": pure_mine,
         "worst_pair": w.to_json(), "pld_equal_table_every_pair": pld_ok,
         "delta": {brief(k): v for k, v in deltas.items()}, "notes_values_match": notes_ok})


def check(full: bool) -> ClaimReport:
    certs = [case_certificate(c) for c in cases(full)]
    shown = "; ".join(f"{c.mechanism.split(':')[0].split(',')[0]} {brief(c.worst)}"  # type: ignore
                      for c in certs)
    return ClaimReport(
        CLAIM, f"{len(certs)} mechanisms (Walsh N = 2, 4{', 8' if full else ''}; rounded Z_3, "
        f"Z_5), every x of the domain explored, every neighbouring pair",
        f"worst ratios {shown}", "= max_n prod r_j^|T_jn|; PLD data-independent; delta(R) "
        "exact", certs)
