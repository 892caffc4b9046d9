"""Theorem 6.11's PureSparseHistogram parameters (beta_1, delta, s, gamma), as the public
constructor and the command line compute them, against Theorems 6.8 i / 6.10 i's hypotheses."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.counting import FastSample
from exactdp.histograms import release
from exactdp.histograms.data import Universe
from exactdp.histograms.sparse import PureSparseHistogram
from exactdp.params import ExactDPError, ResourceLimitError
from exactdp.proofs.balcer_vadhan._parameters import tally, tanh_half, truncation_hypothesis

CLAIM = "Theorem 6.11 (parameters)"
STATEMENT = """PureSparseHistogram_{M,eps,beta0/4} (Algorithm 6.9) with M = GeoSample_{n,eps} or
FastSample_{n,eps,gamma}, gamma = beta0/(8|X|) (Figure 5), runs SparseHistogram_{M,delta}
with delta = eps/3 beta_1 (1/(3|X|))^n, i.e. ApproxOrdSample with s = (n^2+2n)|X|/delta
(Algorithm 6.21), with probability 1 - beta_1."""
PROOF_IDEA = """On the instance PureSparseHistogram.theorem_6_11 builds (its own M, beta_1, delta,
SparseHistogram and s), for GeoSample and FastSample, |X| up to 2^128, beta0 down to 2^-20,
eps = 1/m up to m = 100 (full), n up to 1000 (full; much larger n is refused by
SPARSE_MAX_S_BITS):
(6.8 i) Proposition 6.19's distance m (n^2+2n)/s <= delta for every m <= |X| (m = |X| - |A|,
or |X| - n in strict mode): |X| (n^2+2n)/s <= delta exactly; and s >= |X| >= m
(Proposition 6.17/6.19 need s >= m); the SparseHistogram runs with PureSparse's delta.
(6.10 i) Lemma 3.2 (1) with gamma = beta_1 and min_h Pr[h] >= (1/(3|X|))^n:
delta <= (e^eps - 1)/(e^eps + 1) beta_1/(1 - beta_1) (1/(3|X|))^n, decided exactly with
delta (3|X|)^n compared to a rational LOWER bound of the right-hand side (Taylor enclosure
of e^eps; y -> (y-1)/(y+1) increasing), so a pass proves (1).
(6.10 hypotheses) beta_1 < 1 and beta_1 = beta0/4; M is (eps/2, 0)-DP: its eps <= eps, and
for FastSample Theorem 4.10 i's hypothesis (Lemma 3.2 (1) for its truncation) holds.
(accuracy) FastSample: 8 |X| gamma <= beta0 (Theorem 6.10 ii/iii at beta_2 = beta/4 need
FastSample's bound at beta/(4|X|) with beta/(4|X|) - gamma >= beta/(8|X|)); gamma as stated.
(CLI) exactdp.histograms.release.plan('pure-sparse', ...) builds the same M and beta_1."""


def grid(full: bool) -> list[tuple[int, int, int, int]]:
    """``(m, B, size, n)``: ``eps = 1/m``, ``beta0 = 1/B``."""
    if full:
        ms, bs = [1, 2, 10, 100], [2, 20, 2**20]
        sizes = [3, 5, 1000, 2**64, 2**128]
        ns = [1, 2, 10, 100, 1000]
    else:
        ms, bs = [1, 10], [2, 2**20]
        sizes = [5, 1000, 2**128]
        ns = [1, 2, 40]
    return [(m, b, x, n) for m in ms for b in bs for x in sizes for n in ns]


def _lemma_3_2(delta: Fraction, eps: Fraction, beta1: Fraction, size: int, n: int
               ) -> tuple[bool, Fraction]:
    """``delta (3|X|)^n <= tanh(eps/2) beta_1/(1 - beta_1)`` with tanh's lower bound; returns
    the verdict and ``lhs / rhs_lower``."""
    lhs = delta * (3 * size) ** n
    lo, _ = tanh_half(eps)
    rhs_lower = lo * beta1 / (1 - beta1)
    return lhs <= rhs_lower, lhs / rhs_lower


def check(full: bool) -> ClaimReport:
    pts = grid(full)
    bad: list[dict[str, object]] = []
    cli_bad: list[dict[str, object]] = []
    refused = cli_runs = 0
    worst: Fraction = Fraction(0)
    for m, big_b, size, n in pts:
        eps, beta0, universe = Fraction(1, m), Fraction(1, big_b), Universe(size)
        for counting in ("geosample", "fastsample"):
            try:
                alg = PureSparseHistogram.theorem_6_11(universe, n, eps, beta0, counting)
            except ResourceLimitError:
                refused += 1
                continue
            mech, b1, delta, sparse = alg.mechanism, alg.beta1, alg.delta, alg.sparse
            s = sparse.s
            h68 = (size * (n * n + 2 * n) <= delta * s and s >= size
                   and sparse.delta == delta and sparse.mechanism is mech)
            h610, share = _lemma_3_2(delta, eps, b1, size, n)
            worst = max(worst, share)
            dp = b1 < 1 and b1 == beta0 / 4 and getattr(mech, "epsilon", eps) <= eps
            acc = True
            if isinstance(mech, FastSample):
                dp = dp and truncation_hypothesis(mech).holds
                acc = 8 * size * mech.gamma <= beta0 and mech.gamma == beta0 / (8 * size)
            elif counting == "fastsample":
                acc = False
            if not (h68 and h610 and dp and acc):
                bad.append({"M": counting, "m": m, "beta0": beta0, "|X|": size, "n": n,
                            "6.8 i: |X|(n^2+2n)/s <= delta, s >= |X|": h68,
                            "Lemma 3.2 (1)": h610, "beta_1, M's privacy": dp,
                            "gamma (FastSample)": acc})
            if n <= 40 and m == 1:
                cli_runs += 1
                req = release.ReleaseRequest(universe, eps, beta0, None, counting)
                try:
                    p = release.plan("pure-sparse", req, n)
                    pm = p.mechanism
                    same = (type(pm) is type(mech) and pm.d == mech.d
                            and getattr(pm, "gamma", None) == getattr(mech, "gamma", None)
                            and p.parameters.get("beta_1") == b1)
                    err = ""
                except ExactDPError as exc:  # a refusal at the theorem's parameters fails
                    same, err = False, f"{type(exc).__name__}: {exc}"
                if not same:
                    cli_bad.append({"M": counting, "|X|": size, "n": n, "error": err})
    certs = [
        Certificate(CLAIM, "PureSparseHistogram.theorem_6_11", {"settings": 2 * len(pts),
                                                               "refused": refused},
                    "grid", len(bad), "Theorem 6.8 i and Lemma 3.2 (1) (certified), "
                    "beta_1, gamma and M's privacy", not bad, {"failed checks": tally(bad), "failures": bad[:10]}),
        Certificate(CLAIM, "exactdp.histograms.release.plan('pure-sparse', ...)",
                    {"runs": cli_runs}, "n <= 40, eps = 1", len(cli_bad),
                    "the planner builds the constructor's M and beta_1",
                    cli_runs > 0 and not cli_bad, {"failed checks": tally(cli_bad), "failures": cli_bad[:10]}),
    ]
    return ClaimReport(
        CLAIM, f"{len(pts)} settings x (GeoSample, FastSample): eps = 1/m, m <= "
        f"{max(p[0] for p in pts)}; beta0 >= 2^-20; |X| up to 2^128; n up to "
        f"{max(p[3] for p in pts)}; {refused} refused (s over SPARSE_MAX_S_BITS); the "
        f"command line's planner on {cli_runs}",
        f"{len(bad) + len(cli_bad)} failing; max delta / (certified lower bound of Lemma "
        f"3.2's RHS) = {brief(worst, 4)}",
        "|X|(n^2+2n)/s <= delta; delta <= tanh(eps/2) beta_1/(1-beta_1) (3|X|)^-n", certs)
