"""CyclicFourierMechanism's exact privacy (paper 002 eq. 1 / Algorithm 1 on Z_N with an integer
strategy)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.certified import compare_exp
from exactdp.checker import hockey_stick, statistical_distance, worst_ratio
from exactdp.convolution.cyclic import CyclicFourierMechanism
from exactdp.proofs.convolution._conv import (
    lemma_delta,
    lemma_pure_ratio,
    neighbour_pairs,
    walsh_matrix,
)
from exactdp.proofs.convolution._conv_mech import domain_of, explored_laws, reference_output_laws

CLAIM = "Conv cyclic Fourier mechanism: exact privacy"
STATEMENT = """CyclicFourierMechanism (circular convolution on Z_N, paper 002 eq. 1, with the
integer strategies: "real-fourier" = round(c Q) at a scale c, "walsh" at
N = 2^k, "hartley" at N = 4, "auto" = the smallest exact MSE bound at equal (eps, delta)) has
worst likelihood ratio exactly its privacy().pure_ratio = max_n prod_j r_j^|T_jn| and
hockey-stick divergence exactly privacy().delta(R) at every rational R; built from (eps,
delta), its ratios satisfy delta(R_lo) <= delta at a rational R_lo <= e^eps (certified), so it
is (eps, delta)-DP."""
PROOF_IDEA = """Tiny domains (Z_3, Z_4, Z_5; histograms ||x||_1 <= 1 or 2, box {0,1}^N): the
implementation's own release code (sample_with) is explored on every x; its law must equal the
product of clamped geometric laws of the kept rows (ranges from the enumerated domain) pushed
through G = H T^-1 computed here by Gauss-Jordan (TV = 0), with T checked against its definition
(Walsh entries (-1)^popcount(a&b), Hartley cas values).  Over every neighbouring pair (both
orders) the checker's worst ratio must equal max_n prod r_j^|T_jn| computed here and
privacy().pure_ratio; the largest hockey stick at each R of a grid must equal
privacy().delta(R) and the table delta of proofs/convolution/_conv.  For the (eps, delta) constructors
(a named strategy and "auto"), the explored hockey stick at the calibration's R_lo (certified
R_lo <= e^eps by compare_exp) must be <= delta, and auto's choice must have the least
mse_bound of the strategies calibrated separately here at the same (eps, delta)."""

F = Fraction
#: max_denominator of the calibrated cases (exploration enumerates every draw)
MAX_DEN = 4


def _hartley_definition() -> list[list[int]]:
    # cas(2 pi k n / 4) = cos + sin at the quarter turns m = k n mod 4: 1+0, 0+1, -1+0, 0-1
    cas = (1, 1, -1, -1)
    return [[cas[(k * n) % 4] for n in range(4)] for k in range(4)]


class Case:
    def __init__(self, name: str, h: list[int], kind: str, bound: int, grid: Sequence[Fraction],
                 *, strategy: str, ratios: list[Fraction] | None = None, scale: int = 32,
                 epsilon: Fraction | None = None, delta: Fraction | None = None) -> None:
        self.name, self.h, self.kind, self.bound = name, h, kind, bound
        self.grid, self.strategy, self.ratios, self.scale = list(grid), strategy, ratios, scale
        self.epsilon, self.delta = epsilon, delta

    def build(self) -> tuple[CyclicFourierMechanism, list[tuple[int, ...]]]:
        dom, elems = domain_of(self.kind, len(self.h), self.bound)
        if self.epsilon is None:
            ratios: Any = self.ratios
            if ratios is None:  # kept rows known after construction: fixed distinct ratios
                probe = CyclicFourierMechanism(self.h, dom, F(2), strategy=self.strategy,
                                               scale=self.scale)
                ratios = [F(2), F(3, 2), F(4, 3), F(5, 4), F(6, 5)][:len(probe.rows)]
            mech = CyclicFourierMechanism(self.h, dom, ratios, strategy=self.strategy,
                                          scale=self.scale)
        else:
            # small denominators keep the explored draws small (ratios still rounded DOWN)
            mech = CyclicFourierMechanism(self.h, dom, strategy=self.strategy, scale=self.scale,
                                          epsilon=self.epsilon, delta=self.delta,
                                          max_denominator=MAX_DEN)
        return mech, elems


def cases(full: bool) -> list[Case]:
    out = [
        Case("real-fourier Z_3 (c = 3), h=(2,1,0), ||x||_1 <= 1", [2, 1, 0], "histograms", 1,
             [F(1), F(2), F(5), F(10)], strategy="real-fourier", scale=3,
             ratios=[F(2), F(3, 2), F(5, 3)]),
        Case("walsh Z_4, h=(3,1,0,1), ||x||_1 <= 1", [3, 1, 0, 1], "histograms", 1,
             [F(1), F(3), F(6)], strategy="walsh"),
        Case("hartley Z_4, h=(2,1,0,-1), ||x||_1 <= 1", [2, 1, 0, -1], "histograms", 1,
             [F(1), F(2), F(4)], strategy="hartley"),
        Case("auto Z_4 (c = 2) at (eps, delta) = (1, 1/10), h=(3,1,0,1), ||x||_1 <= 1", [3, 1, 0, 1],
             "histograms", 1, [F(1), F(2)], strategy="auto", scale=2, epsilon=F(1),
             delta=F(1, 10)),
    ]
    if full:
        out += [
            Case("real-fourier Z_5 (c = 2), h=(3,1,0,0,1), ||x||_1 <= 1", [3, 1, 0, 0, 1],
                 "histograms", 1, [F(1), F(2), F(5), F(20)], strategy="real-fourier", scale=2,
                 ratios=[F(2), F(3, 2), F(5, 4), F(4, 3), F(7, 4)]),
            Case("real-fourier Z_3 (c = 3), h=(2,1,0), x in {0,1}^3", [2, 1, 0], "box", 1,
                 [F(1), F(3), F(10)], strategy="real-fourier", scale=3,
                 ratios=[F(3, 2), F(2), F(4, 3)]),
            Case("hartley Z_4, h=(2,1,0,-1), ||x||_1 <= 2", [2, 1, 0, -1], "histograms", 2,
                 [F(1), F(2), F(4)], strategy="hartley"),
            Case("real-fourier Z_3 (c = 3) at (eps, delta) = (1, 1/20), ||x||_1 <= 1",
                 [2, 1, 0], "histograms", 1, [F(1)], strategy="real-fourier", scale=3,
                 epsilon=F(1), delta=F(1, 20)),
            Case("auto Z_4 (c = 2) at (eps, delta) = (1/2, 1/100), h=(2,1,0,-1), ||x||_1 <= 1",
                 [2, 1, 0, -1], "histograms", 1, [F(1)], strategy="auto", scale=2, epsilon=F(1, 2),
                 delta=F(1, 100)),
        ]
    return out


def _definition_ok(case: Case, t: Sequence[Sequence[int]]) -> bool:
    """The strategy's T against its definition where it has a closed form."""
    name = getattr(case, "_chosen", case.strategy)
    if name == "walsh":
        return [list(r) for r in t] == [list(r) for r in walsh_matrix(len(t))]
    if name == "hartley":
        return [list(r) for r in t] == _hartley_definition()
    return True  # real-fourier rounding: the Walsh identities row compares it with sympy


def _auto_ok(case: Case, mech: CyclicFourierMechanism) -> tuple[bool, dict[str, Any]]:
    """auto's choice has the least mse_bound among the strategies calibrated here."""
    if case.strategy != "auto":
        return True, {}
    dom, _ = domain_of(case.kind, len(case.h), case.bound)
    mine: dict[str, Fraction] = {}
    n = len(case.h)
    names = ["real-fourier"] + (["walsh"] if n & (n - 1) == 0 else []) + \
        (["hartley"] if n == 4 else [])
    for name in names:
        m = CyclicFourierMechanism(case.h, dom, strategy=name, scale=case.scale,
                                   epsilon=case.epsilon, delta=case.delta,
                                   max_denominator=MAX_DEN)
        mine[name] = m.mse_bound()
    ok = mech.mse_bound() == min(mine.values()) and mine[mech.strategy_name] == mech.mse_bound()
    return ok, {"mse_bound_by_strategy": mine, "chosen": mech.strategy_name}


def case_certificate(case: Case) -> Certificate:
    mech, elems = case.build()
    chosen = mech.strategy_name
    case._chosen = chosen  # type: ignore[attr-defined]
    t = [list(r) for r in mech.strategy.T]
    hm = [list(r) for r in mech.strategy.H]
    kept, ratios_k = list(mech.rows), list(mech.ratios)
    h_ok = hm == [[case.h[(k - m) % len(case.h)] for m in range(len(case.h))]
                  for k in range(len(case.h))]
    def_ok = _definition_ok(case, t)
    tk = [t[j] for j in kept]
    laws = explored_laws(mech, elems)
    ref = reference_output_laws(t, hm, dict(zip(kept, ratios_k)), elems, elems)
    tv = max(statistical_distance(laws[x], ref[x]) for x in elems)
    pairs = neighbour_pairs(elems)
    ordered = [(x, laws[x], y, laws[y]) for x, y, _ in pairs] + \
              [(y, laws[y], x, laws[x]) for x, y, _ in pairs]
    w = worst_ratio(ordered)
    profile = mech.privacy()
    pure = lemma_pure_ratio(tk, ratios_k)
    pure_ok = w.ratio is not None and w.ratio == pure == profile.pure_ratio
    grid = list(case.grid) + [pure]
    witness: dict[str, Any] = {}
    guarantee_ok = True
    if mech.calibration is not None:
        cal = mech.calibration
        r_lo = cal.certificate.get("R_lo")
        if not isinstance(r_lo, Fraction):
            r_lo = None
        # certified R_lo <= e^eps (compare_exp(eps, R) = sign(e^eps - R))
        guarantee_ok = r_lo is not None and compare_exp(cal.epsilon, r_lo) >= 0
        if r_lo is not None:
            grid.append(r_lo)
        witness.update({"epsilon": cal.epsilon, "target_delta": cal.delta, "R_lo": r_lo,
                        "accounting_used": cal.accounting_used})
    deltas: dict[Fraction, Fraction] = {}
    delta_ok = True
    for big_r in grid:
        hs = max(max(hockey_stick(laws[x], laws[y], big_r), hockey_stick(laws[y], laws[x], big_r))
                 for x, y, _ in pairs)
        deltas[big_r] = hs
        delta_ok = delta_ok and hs == profile.delta(big_r) == lemma_delta(tk, ratios_k, big_r)
    if mech.calibration is not None and witness.get("R_lo") is not None:
        guarantee_ok = guarantee_ok and deltas[witness["R_lo"]] <= mech.calibration.delta
        witness["explored_delta_at_R_lo"] = deltas[witness["R_lo"]]
    auto_ok, auto_w = _auto_ok(case, mech)
    witness.update(auto_w)
    ok = h_ok and def_ok and tv == 0 and pure_ok and delta_ok and guarantee_ok and auto_ok
    return Certificate(
        CLAIM, f"{case.name}: strategy {chosen}, kept rows {kept}",
        {"ratios": ratios_k, "scale": case.scale, "strategy": case.strategy},
        f"{len(elems)} inputs, {len(pairs)} neighbouring pairs (both orders)", w.ratio,
        f"= max_n prod r_j^|T_jn| = {brief(pure)}; delta(R) = privacy().delta(R)"
        + ("; delta(R_lo) <= delta, R_lo <= e^eps" if mech.calibration is not None else ""),
        ok,
        {"TV_explored_vs_reference": tv, "pure_ratio": pure, "profile_pure_ratio":
         profile.pure_ratio, "worst_pair": w.to_json(), "T_definition_ok": def_ok,
         "H_is_circulant": h_ok, "delta": {brief(k): v for k, v in deltas.items()},
         **witness})


def check(full: bool) -> ClaimReport:
    certs = [case_certificate(c) for c in cases(full)]
    shown = "; ".join(f"{c.parameters['strategy']}->{c.mechanism.split('strategy ')[1].split(',')[0]}"
                      f" {brief(c.worst)}" for c in certs)  # type: ignore[arg-type]
    return ClaimReport(
        CLAIM, f"{len(certs)} cyclic mechanisms (Z_3, Z_4{', Z_5' if full else ''}; real-fourier, "
        "walsh, hartley, auto), every x of the domain explored, every neighbouring pair",
        f"worst ratios {shown}", "= privacy().pure_ratio; delta(R) exact; calibrated "
        "delta(R_lo) <= delta", certs)
