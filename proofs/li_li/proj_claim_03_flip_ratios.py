"""Li & Li §4.3 / Theorem 4.7's per-bit ratios: the smooth flipping probabilities of the
implementation satisfy the closed forms."""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise

from exactdp.certificate import Certificate, ClaimReport
from exactdp.neighbours import vectors
from exactdp.projections import exact as ex
from exactdp.projections.check import check_dp, explored_law
from exactdp.projections.rr import Base, SmoothFlipper
from exactdp.proofs.li_li._proj import cert, worst_text

CLAIM = "Li & Li smooth flipping: f_L/f_{L+1} < rho increasing, q ratios (closed forms)"
STATEMENT = """For the smooth scheme with base rho: f_L / f_{L+1} = (rho^{L+1}+1)/(rho^L+1) < rho, strictly
increasing in L (-> rho), and q_{L+1}/q_L = rho (rho^L+1)/(rho^{L+1}+1); with L capped at
L_max the worst ratio between neighbouring projections x, x +- 1 (unit 1) is
f_{L_max-1}/f_{L_max} < rho, and (rho+1)/2 through zero (smoothness
spends almost all of the budget even far from the sign boundary)."""
PROOF_IDEA = """From the implementation: SmoothFlipper(rho, L_max).sample(x, 1, source) explored for every x
in [-(L_max+2), L_max+2]: Pr[flip] must equal b^L/(a^L+b^L) at L = min(|x|, L_max) (1/2 at
0); the identities above are checked on these explored probabilities (not on the closed
form); the checker's worst ratio over neighbouring x must equal max((rho+1)/2,
(rho^{L_max}+1)/(rho^{L_max-1}+1)).  Bases 3/2, 2, 5/4, 7/3; L_max = 8 (full: 14)."""

BASES = (Fraction(3, 2), Fraction(2), Fraction(5, 4), Fraction(7, 3))


def base_certificate(rho: Fraction, l_max: int) -> Certificate:
    flipper = SmoothFlipper(Base.of(rho), l_max)
    span = l_max + 2
    rel = vectors(1, -span, span, 1)
    laws = {u: explored_law(lambda v, src: (flipper.sample(v[0], 1, src),), u)
            for u in rel.points}
    flips = [laws[(x,)].get((-1,), Fraction(0)) for x in range(1, l_max + 1)]
    zero_ok = laws[(0,)] == {(-1,): Fraction(1, 2), (1,): Fraction(1, 2)}
    closed_ok = all(f == ex.flip_probability(rho, level)
                    for level, f in enumerate(flips, start=1))
    capped_ok = all(laws[(x,)] == laws[(l_max,)] for x in range(l_max, span + 1))
    steps = [flips[i] / flips[i + 1] for i in range(l_max - 1)]
    step_ok = all(s == (rho ** (i + 2) + 1) / (rho ** (i + 1) + 1) and s < rho
                  for i, s in enumerate(steps))
    increasing = all(a < b for a, b in pairwise(steps))
    keeps = [1 - f for f in flips]
    keep_ok = all(keeps[i + 1] / keeps[i] == rho * (rho ** (i + 1) + 1) / (rho ** (i + 2) + 1)
                  for i in range(l_max - 1))
    rep = check_dp(laws.__getitem__, rel)
    want = max((rho + 1) / 2, (rho ** l_max + 1) / (rho ** (l_max - 1) + 1))
    ok = (zero_ok and closed_ok and capped_ok and step_ok and increasing and keep_ok
          and rep.worst.ratio == want and want < rho)
    return cert(f"{CLAIM} (rho = {rho})", f"SmoothFlipper(rho={rho}, L_max={l_max}), unit 1",
                {"rho": rho, "L_max": l_max},
                f"x in [-{span}, {span}], neighbours x ~ x+-1", worst_text(rep),
                f"= max((rho+1)/2, f_(L_max-1)/f_(L_max)) = {want} < rho", ok,
                {"ratio_witness": rep.worst.to_json(), "flip_ratios": steps,
                 "checks": {"coin_at_0": zero_ok, "closed_form": closed_ok,
                            "cap": capped_ok, "step_identity": step_ok,
                            "increasing": increasing, "keep_identity": keep_ok}})


def check(full: bool) -> ClaimReport:
    l_max = 14 if full else 8
    certs = [base_certificate(rho, l_max) for rho in BASES]
    return ClaimReport(CLAIM, f"rho in {{3/2, 2, 5/4, 7/3}}, L_max = {l_max}",
                       "worst neighbouring ratios " + ", ".join(str(c.worst) for c in certs),
                       "= f_(L_max-1)/f_(L_max) < rho", certs)
