"""Theorem 5.3's gamma = beta0/(2|X|), as the constructor and the command line compute it."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.counting import FastSample
from exactdp.histograms import release
from exactdp.histograms.basic import BasicHistogram, theorem_5_3_gamma
from exactdp.histograms.data import Universe
from exactdp.params import ExactDPError
from exactdp.proofs.balcer_vadhan._parameters import tally, truncation_hypothesis

CLAIM = "Theorem 5.3 (parameters)"
STATEMENT = """BasicHistogram_{M,X} with M = FastSample_{n,eps,gamma}, gamma = beta0/(2|X|), is
(eps, 0)-DP, (ceil(9/(2eps) ln(2/beta)), beta)-per-query accurate for beta >= 2 gamma and
(ceil(9/(2eps) ln(2|X|/beta)), beta)-simultaneously accurate for beta >= beta0."""
PROOF_IDEA = """Privacy needs M (eps/2, 0)-DP: Theorem 4.10 i, whose hypothesis (Lemma 3.2's condition
(1) for FastSample's truncation, see the Theorem 4.10 (parameters) row) is decided again
here on the mechanism built with this gamma.  The simultaneous bound is a union bound over
X of FastSample's per-query bound at beta/|X| (Theorem 4.10 ii: ceil(2/eps~ ln(1/(beta/|X| -
gamma)))), which is at most ceil(9/(2eps) ln(2|X|/beta)) exactly when beta/|X| - gamma >=
beta/(2|X|): for every beta >= beta0 that is the hypothesis 2 gamma |X| <= beta0, checked
exactly.  The parameters are those of theorem_5_3_gamma (what BasicHistogram.theorem_5_3 and
the command line's planner call), over |X| up to 2^128, beta0 down to 2^-40, n up to 10^9
and eps = 1/m up to m = 1000; for |X| <= 1000 also BasicHistogram.theorem_5_3 itself and
the planner of `exactdp histogram --algorithm basic` (exactdp.histograms.release.plan),
whose mechanism must be the same FastSample.  gamma is also compared with the statement's
beta0/(2|X|)."""


def grid(full: bool) -> list[tuple[int, int, int, int]]:
    """``(m, b, size, n)``: ``eps = 1/m``, ``beta0 = 1/b``."""
    if full:
        ms, bs = [1, 2, 3, 10, 100, 1000], [2, 3, 20, 2**20, 2**40]
        sizes = [1, 2, 3, 1000, 2**22, 2**32, 2**64, 2**128]
        ns = [1, 2, 33, 1000, 10**6, 10**9]
    else:
        ms, bs = [1, 10, 1000], [2, 20, 2**40]
        sizes = [1, 3, 1000, 2**64, 2**128]
        ns = [1, 33, 10**9]
    return [(m, b, x, n) for m in ms for b in bs for x in sizes for n in ns]


def check(full: bool) -> ClaimReport:
    pts = grid(full)
    bad: list[dict[str, object]] = []
    cli_bad: list[dict[str, object]] = []
    cli_runs = 0
    min_margin: Fraction | None = None
    for m, b, size, n in pts:
        eps, beta0, universe = Fraction(1, m), Fraction(1, b), Universe(size)
        gamma = theorem_5_3_gamma(beta0, universe)
        mech = FastSample(n, eps, gamma)
        tr = truncation_hypothesis(mech)
        union = 2 * gamma * size <= beta0
        stated = gamma == beta0 / (2 * size)
        same = True
        if size <= 1000 and n <= 1000:
            alg = BasicHistogram.theorem_5_3(universe, n, eps, beta0)
            built = alg.mechanism
            same = (isinstance(built, FastSample) and built.gamma == gamma
                    and built.t == mech.t and built.epsilon == eps)
            cli_runs += 1
            req = release.ReleaseRequest(universe, eps, beta0, None, "fastsample")
            try:
                p = release.plan("basic", req, n)
                pm = p.mechanism
                cli_ok = (isinstance(pm, FastSample) and pm.gamma == gamma
                          and p.parameters.get("gamma") == gamma and pm.t == mech.t
                          and 2 * pm.gamma * size <= beta0 and truncation_hypothesis(pm).holds)
                err = ""
            except ExactDPError as exc:  # a refusal at the theorem's parameters is a failure
                cli_ok, err = False, f"{type(exc).__name__}: {exc}"
            if not cli_ok:
                cli_bad.append({"m": m, "beta0": beta0, "|X|": size, "n": n, "error": err})
        if min_margin is None or tr.margin < min_margin:
            min_margin = tr.margin
        if not (tr.holds and union and stated and same):
            bad.append({"m": m, "beta0": beta0, "|X|": size, "n": n, "gamma": gamma,
                        "2 gamma |X| <= beta0": union, "Lemma 3.2 (1) for FastSample": tr.holds,
                        "gamma = beta0/(2|X|)": stated, "theorem_5_3 builds the same M": same})
    certs = [
        Certificate(CLAIM, "FastSample(n, eps, theorem_5_3_gamma(beta0, X))",
                    {"settings": len(pts)}, "grid", len(bad),
                    "2 gamma |X| <= beta0; Lemma 3.2 (1) for M; gamma as stated", not bad,
                    {"failed checks": tally(bad), "failures": bad[:10]}),
        Certificate(CLAIM, "exactdp.histograms.release.plan('basic', ...)",
                    {"runs": cli_runs}, "|X| <= 1000, n <= 1000", len(cli_bad),
                    "the planner's M has the theorem's gamma and satisfies the hypotheses",
                    cli_runs > 0 and not cli_bad, {"failed checks": tally(cli_bad), "failures": cli_bad[:10]}),
    ]
    return ClaimReport(
        CLAIM, f"{len(pts)} settings: eps = 1/m, m <= 1000; beta0 >= 2^-40; |X| up to 2^128; "
        f"n up to 10^9; the command line's planner on {cli_runs}",
        f"{len(bad) + len(cli_bad)} failing; min FastSample (t+1)/(least t+1) >= "
        f"{brief(min_margin or Fraction(0), 4)}",
        "2 gamma |X| <= beta0 and Theorem 4.10 i's hypothesis on M", certs)
