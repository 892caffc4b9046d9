"""ALP's privacy needs the scale c and the flip probability p exactly: a binary64 scale that
rounds c up, or a float Bernoulli whose comparison makes the flip probability p_eff < p, breaks
eps-DP at a neighbouring pair one grid step apart."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import ceil

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.hashing import CarterWegman
from exactdp.proofs.li_li._ieee import double
from exactdp.sparse_vectors.alp import ALP
from exactdp.sparse_vectors.alp_check import explored_law
from exactdp.sparse_vectors.alp_params import ALPParams

CLAIM = "ALP privacy needs exact c and p (float scale, float Bernoulli)"
SLIP = ("ALP's proof bounds the ratio by e^{c (1 - 2p)/p ||x - x'||_1} with c (1 - 2p)/p = eps "
        "exactly; a binary64 scale eps/alpha rounded up (eps = 1/10) or a float Bernoulli "
        "'flip iff random() >= 1 - p' (flip probability below p at alpha = 3) makes that "
        "exponent exceed eps, and a pair one fine grid step apart has ratio above e^{eps dist}.")
STATEMENT = """ALP-full Algorithm 4 / Lemma 4.1 on real inputs x in R^d_+ (the implementation's grid
g: x = X/g): Pr[M(x) = z | h] <= e^{eps ||x - x'||_1} Pr[M(x') = z | h], proved with the
per-unit factor c (1 - 2p)/p = eps for c = eps/alpha and p = 1/(alpha + 2).  A floating-point
reading keeps the structure but changes the numbers: (a) c_f = fl(eps/alpha) > c for
eps = 1/10, alpha = 1 (fl(0.1) > 1/10); (c) flip iff U >= fl(1 - p) for U = k/2^53 uniform
(random()), whose flip probability (2^53 - ceil(2^53 fl(1 - p)))/2^53 is below p = 1/5 at
alpha = 3, eps = 1."""
PROOF_IDEA = """The implementation's ALP (s = m = 1, one key of d = 2, Carter-Wegman P = 3, grid
g = 2^64) run on the exact rationals of the float values (c_f, or p_eff computed here from
the binary64 emulation of proofs/li_li/_ieee) and on the paper's exact c, p: the law of the
released bit explored at x = 0 and x = 1/g (l1 distance 1/g, t = eps/g).  With
1 + t + t^2/2 <= e^t <= 1 + t + t^2 (0 < t <= 1): the exact parameters' worst two-sided ratio
must be <= 1 + t + t^2/2 (certified <= e^t) and epsilon_cert = eps; the float readings' must
be > 1 + t + t^2 (certified > e^t) with epsilon_cert > eps."""

GRID = 2 ** 64


def float_flip(p: Fraction) -> Fraction:
    """Pr[U >= fl(1 - p)] for U = k/2^53, k uniform on [0, 2^53): the flip probability of
    'flip iff random() >= 1 - p' in binary64."""
    q = double(1 - p)
    return Fraction(2 ** 53 - ceil(q * 2 ** 53), 2 ** 53)


def worst_ratio_one_step(params: ALPParams) -> Fraction:
    alp = ALP(params, CarterWegman(3, 1, 2))
    seeds = (next(iter(alp.hashes.seeds())),)
    l0 = explored_law(alp, {}, seeds)
    l1 = explored_law(alp, {1: 1}, seeds)
    return max(max(l1[o] / l0[o], l0[o] / l1[o]) for o in l0)


def _params(scale: Fraction, flip: Fraction, columns: int = 1) -> ALPParams:
    return ALPParams(scale, flip, columns, 1, 1, 2, GRID, "paper")


Case = tuple[str, Fraction, Callable[[], ALPParams], Callable[[], ALPParams]]


def cases() -> list[Case]:
    tenth, one = Fraction(1, 10), Fraction(1)
    return [
        ("(a) binary64 scale fl(eps/alpha), eps = 1/10, alpha = 1", tenth,
         lambda: _params(tenth, Fraction(1, 3)),
         lambda: _params(double(tenth), Fraction(1, 3))),
        ("(c) float Bernoulli 'random() >= 1 - p', eps = 1, alpha = 3", one,
         lambda: _params(Fraction(1, 3), Fraction(1, 5)),
         lambda: _params(Fraction(1, 3), float_flip(Fraction(1, 5)))),
    ]


def case_certificate(case: Case) -> Certificate:
    name, eps, exact, floated = case
    t = eps / GRID
    lower, upper = 1 + t + t * t / 2, 1 + t + t * t      # lower <= e^t <= upper
    good, bad = exact(), floated()
    r_good, r_bad = worst_ratio_one_step(good), worst_ratio_one_step(bad)
    ok = (good.epsilon_cert == eps and r_good <= lower
          and bad.epsilon_cert > eps and r_bad > upper)
    return Certificate(CLAIM + ": " + name, "ALP(paper), s = m = 1, grid 2^64",
                       {"eps": eps, "exact": (good.scale, good.flip),
                        "float": (bad.scale, bad.flip)},
                       "x = 0 and x = 1/g (one key)", (r_bad - 1) / t,
                       f"exact c, p: ratio <= 1 + t + t^2/2 <= e^t; float: ratio - 1 = "
                       f"{brief((r_bad - 1) / t, 20)} t > t + t^2 (> e^t - 1)", ok,
                       {"exact_ratio_minus_1_over_t": (r_good - 1) / t,
                        "float_epsilon_cert": bad.epsilon_cert})


def check(full: bool) -> ClaimReport:
    certs = [case_certificate(c) for c in cases()]
    return ClaimReport(CLAIM, "two float readings of ALP's parameters, grid 2^64",
                       "float readings exceed e^{eps dist} by about 1e-17 relative",
                       "exact c, p within e^{eps dist}; float c or p above it", certs)
