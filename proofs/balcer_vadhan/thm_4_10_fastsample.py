"""Theorem 4.10: FastSample is (eps/2, 0)-DP, accurate, strict-time and monotone."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import (
    ENUMERATION_LIMIT,
    certify_ratio,
    check_strict_time,
    exact_accuracy,
    is_monotone_in_u,
    statistical_distance,
    worst_neighbour_ratio,
)
from exactdp.counting import InverseCDFSampler
from exactdp.proofs.balcer_vadhan._counting import (
    distributions,
    each_fast,
    fast_grid_text,
    geosample,
    trace_shape,
)

CLAIM = "Theorem 4.10"
STATEMENT = """FastSample_{n,eps,gamma} (Algorithm 4.11) is (i) (eps/2, 0)-DP for counting queries;
(ii) (a, beta)-accurate for every beta > gamma with a = ceil(2/eps~ ln(1/(beta - gamma)));
(iii) of running time O~(1/eps log^2 n + 1/eps log n log 1/gamma); (iv) its scaled CDF at 0
is computable in O~(1/eps log(n/gamma)); (v) non-decreasing in u."""
PROOF_IDEA = """(i) FastSample's CDF is gamma Unif([n]) + (1 - gamma) Z'' (Lemma 4.12 ii) where Z''
is within Pr[|Z - c| > t] <= (e^{eps/2}-1)/(e^{eps/2}+1) gamma/(1-gamma) 1/(n+1) of
GeoSample, so Lemma 3.2 applies with the (eps/2)-DP GeoSample as M.  (ii) mixing costs at
most gamma; truncation only moves mass onto c.  (iii)-(v) by construction.
Checks: worst neighbouring ratio read off the implementation, certified <= e^{eps/2} with a
rational lower bound on e^{eps/2}; Delta(Z''(c), GeoSample(c)) <= Pr[|Z-c| > t] exactly,
every c; exact smallest a <= the paper's a; identical traces for every c; monotonicity:
F_c non-decreasing, the F the search evaluates (search_cdf) equal to cdf on every (c, z),
and M(c, u) == z at both ends of every interval (F(z-1), F(z)] -- since the search uses u
only through comparisons F(mid) >= u, and no F value lies strictly inside such an
interval, M is constant on each interval, so this covers every u in [d]_+."""


def monotone_certificate(mech: InverseCDFSampler, claim: str) -> Certificate:
    """Non-decreasing in u, for every u in [d]_+, by the step argument (and enumeration
    when d is small)."""
    d, n = mech.d, mech.n
    bad: dict[str, object] = {}
    for c in range(n + 1):
        prev = 0
        for z in range(n + 1):
            f = mech.cdf(c, z)
            if mech.search_cdf(c, z) != f:
                bad = {"c": c, "z": z, "reason": "the search's F differs from cdf"}
                break
            if f < prev:
                bad = {"c": c, "z": z, "reason": "F decreases"}
                break
            if f > prev and not (mech(c, prev + 1) == z and mech(c, f) == z):
                bad = {"c": c, "z": z, "reason": "M not equal to z on (F(z-1), F(z)]"}
                break
            prev = f
        if bad:
            break
        if prev != d:
            bad = {"c": c, "reason": "F(n) != d"}
            break
    enumerated = d <= min(ENUMERATION_LIMIT, 1 << 16)
    if not bad and enumerated and not all(is_monotone_in_u(mech, c) for c in range(n + 1)):
        bad = {"reason": "enumeration found a decrease"}
    return Certificate(claim, repr(mech), {"n": n, "d_bits": d.bit_length()},
                       f"c in [0,{n}], every u in [1,d]" + (" (also enumerated)" if enumerated
                                                             else " (step argument)"),
                       None, "u -> M(c,u) non-decreasing", not bad, bad)


def _tail(mech_alpha: Fraction, t: int) -> Fraction:
    """Pr[|Z - c| > t] = 2 alpha^{t+1} / (1 + alpha) for Z ~ c + Geo (Theorem 4.10 i proof)."""
    return 2 * mech_alpha ** (t + 1) / (1 + mech_alpha)


def check_i(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    worst_margin: Fraction | None = None
    for mech in each_fast(full):
        dists = distributions(mech)
        w = worst_neighbour_ratio(dists)
        ok, bound = certify_ratio(w, mech.epsilon / 2)
        trunc = distributions(mech.truncated())
        geo = distributions(geosample(mech.n, mech.epsilon))
        tail = _tail(mech.alpha, mech.t)
        sd = max(statistical_distance(trunc[c], geo[c]) for c in range(mech.n + 1))
        sd_ok = sd <= tail
        if w.ratio is not None:
            margin = w.ratio / (1 + Fraction(1, 2**mech.k))
            worst_margin = margin if worst_margin is None else max(worst_margin, margin)
        certs.append(Certificate(
            "Theorem 4.10 (i)", repr(mech),
            {"n": mech.n, "epsilon": mech.epsilon, "gamma": mech.gamma, "t": mech.t},
            f"c in [0,{mech.n}], both directions", w.ratio, bound, ok and sd_ok,
            {"ratio_witness": w.to_json(), "max_sd_truncated_vs_geosample": sd,
             "tail_Pr[|Z-c|>t]": tail}))
    return ClaimReport(
        "Theorem 4.10 (i)", fast_grid_text(full),
        f"max ratio / (1+2^-k) = {brief(worst_margin) if worst_margin else '-'}; "
        "SD(Z'', GeoSample) <= tail on all",
        "ratio <= e^(eps/2) (certified); SD <= Pr[|Z-c|>t]", certs)


def check_ii(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    max_slack = 0
    for mech in each_fast(full):
        dists = distributions(mech)
        for beta in (Fraction(3, 4), Fraction(1, 10) + mech.gamma, 2 * mech.gamma,
                     Fraction(1, 10**6) + mech.gamma):
            if not mech.gamma < beta <= 1:
                continue
            exact = exact_accuracy(dists, beta)
            paper = mech.paper_accuracy(beta)
            max_slack = max(max_slack, paper - exact.a)
            certs.append(Certificate(
                "Theorem 4.10 (ii)", repr(mech), {"n": mech.n, "beta": beta},
                f"c in [0,{mech.n}]", exact.a, f"paper a = {paper}", exact.a <= paper,
                {"worst_c": exact.worst_count, "probability": exact.probability}))
    return ClaimReport("Theorem 4.10 (ii)", fast_grid_text(full) + ", 4 betas > gamma",
                       f"exact a <= paper a on all (max slack {max_slack})",
                       "a = ceil(2/eps~ ln 1/(beta-gamma))", certs)


def check_iii(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    for mech in each_fast(full):
        if mech.n > (32 if full else 8):
            continue
        cert = check_strict_time(mech)
        shape_ok, shape = trace_shape(mech)
        search_ok = all(mech.search_cdf(c, z) == mech.cdf(c, z)
                        for c in range(mech.n + 1) for z in range(mech.n + 1))
        certs.append(Certificate(
            "Theorem 4.10 (iii)", repr(mech), {"n": mech.n, "epsilon": mech.epsilon,
                                               "gamma": mech.gamma},
            cert.domain, cert.witness.get("trace_length"),
            "identical traces; 1 draw + ceil(log2(n+1)) rounds of one F each",
            cert.verdict and shape_ok and search_ok,
            {**cert.witness, "shape": shape, "search_cdf_equals_cdf": search_ok,
             "d_bits": mech.d.bit_length()}))
    return ClaimReport("Theorem 4.10 (iii)", f"{len(certs)} FastSample mechanisms, every c",
                       "trace identical for every c", "1 draw + ceil(log2(n+1)) F evaluations",
                       certs)


def check_iv(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    for mech in each_fast(full):
        dist0 = distributions(mech)[0]
        ok = all(mech.scaled_cdf_at_zero(z) == mech.d * sum(dist0[y] for y in range(z + 1))
                 for z in range(mech.n + 1))
        certs.append(Certificate("Theorem 4.10 (iv)", repr(mech), {"n": mech.n},
                                 f"z in [0,{mech.n}]", None, "F_M(z) == d Pr[M(0,U) <= z]", ok))
    return ClaimReport("Theorem 4.10 (iv)", fast_grid_text(full),
                       "scaled CDF at 0 equals d times the distribution read off M",
                       "Definition 4.3 exactly", certs)


def check_v(full: bool) -> ClaimReport:
    certs = [monotone_certificate(m, "Theorem 4.10 (v)") for m in each_fast(full)]
    return ClaimReport("Theorem 4.10 (v)", fast_grid_text(full),
                       "non-decreasing in u on every mechanism", "every u in [d]_+", certs)


CHECKS = [check_i, check_ii, check_iii, check_iv, check_v]
