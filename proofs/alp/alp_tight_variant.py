"""ALP histogram-tight variant (not in the paper): on integer inputs the exact
worst ratio is exactly L <= e^eps."""

from __future__ import annotations

from fractions import Fraction
from functools import partial

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import RatioWitness, certify_ratio
from exactdp.proofs.alp._alp import Config, family_worst
from exactdp.sparse_vectors.alp_params import ALPParams, tight_bound

CLAIM = "ALP histogram-tight variant"
STATEMENT = """Not in the paper: with c = 1/n and p_T = c/(L - 1 + 2c) for a rational L <= e^eps, ALP on
INTEGER inputs (grid 1) has exact worst ratio L: every +-1 change of one entry moves one
aligned piece of length c, factor 1 + ((1 - 2p_T)/p_T) c = L.  C10: L = 2718/1000 and
1359/500 give exactly L; with L = ALPParams' certified lower bound tight_bound(eps) the ratio
is that bound and <= e^eps."""
PROOF_IDEA = """Computed on the implementation as in the Lemma 4.12 row (every CW seed, P = 5, every
ordered neighbouring pair of integer k-sparse inputs): the exact worst ratio must EQUAL L
and be certified <= e^eps.  A p_T rounded the wrong way (an upper bound of e^eps used for L)
makes the ratio exceed e^eps and fails this row (tests/test_alp_proofs.py)."""


def configs(full: bool) -> list[tuple[Config, Fraction]]:
    one = Fraction(1)
    out: list[tuple[Config, Fraction]] = []
    ns = (1, 2, 3) if full else (1, 2)
    bounds = [Fraction(2718, 1000), Fraction(1359, 500)]
    for big_l in bounds:
        for n in ns:
            out.append((Config(f"C10 L={big_l} n={n}", partial(ALPParams.histogram_tight,
                                                               big_l, n, 3, 3, 1, 4),
                               5, 3 * n, big_l, one), big_l))
    for eps in ((one, Fraction(1, 2)) if full else (one,)):
        big_l = tight_bound(eps)
        out.append((Config(f"L = tight_bound({eps})",
                           partial(ALPParams.histogram_tight, big_l, 1, 2, 3, 2, 3),
                           5, 2, big_l, eps), big_l))
    return out


def check(full: bool) -> ClaimReport:
    certs = []
    for cfg, big_l in configs(full):
        prm, w = family_worst(cfg)
        ok, bound = certify_ratio(RatioWitness(w.ratio, w.numerator_input,
                                               w.denominator_input, w.output, w.p, w.q),
                                  cfg.epsilon)
        certs.append(Certificate(
            CLAIM, f"{cfg.name}: ALP({prm.variant})", cfg.describe(prm),
            f"{w.pairs} ordered integer neighbouring pairs x every seed tuple", w.ratio,
            f"== L = {brief(big_l)}; {bound}", ok and w.ratio == big_l,
            {"witness": w.to_json()}))
    return ClaimReport(CLAIM, f"{len(certs)} configurations (L in 2718/1000, 1359/500, "
                       f"tight_bound(eps); n = 1..{3 if full else 2}), every CW seed (P = 5)",
                       ", ".join(brief(Fraction(c.worst)) for c in certs),  # type: ignore[arg-type]
                       "worst ratio == L <= e^eps", certs)
