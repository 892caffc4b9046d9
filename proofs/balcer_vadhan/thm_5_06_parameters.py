"""Theorem 5.6's gamma and threshold b (and Figure 4's GeoSample b), as the constructors and
the command line compute them, against Theorem 5.5 (i)'s hypothesis."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from exactdp.certificate import Certificate, ClaimReport
from exactdp.certified import compare_exp
from exactdp.counting import FastSample, GeoSample
from exactdp.histograms import release
from exactdp.histograms.basic import StabilityHistogram
from exactdp.histograms.data import Universe
from exactdp.params import ExactDPError, ResourceLimitError
from exactdp.proofs.balcer_vadhan._parameters import (
    geometric_tail_at_most,
    tally,
    truncation_hypothesis,
)

CLAIM = "Theorem 5.6 (parameters)"
STATEMENT = """StabilityHistogram_{M,b} is (eps, delta)-DP whenever delta >= 2 Pr[M(1,U) > b]
(Theorem 5.5 i).  Theorem 5.6 takes M = FastSample_{n,eps,gamma}, gamma = min(beta0/(2n),
delta/4), b = 1 + ceil(9/(2eps) ln(4/delta)); Figure 4 takes M = GeoSample_{n,eps},
b = 1 + ceil(9/(2eps) ln(2/delta))."""
PROOF_IDEA = """On the algorithm the public constructors build (StabilityHistogram.theorem_5_6 and
.with_geosample: their own M, gamma and b):
(H1) Theorem 5.5 i's hypothesis 2 Pr[M(1,U) > b] <= delta.  Exactly from M's integer CDF,
2 (d - F_1(b)) <= delta d, whenever FastSample's d' has at most 2^15 bits (2^19 full).  For
every setting, by the closed form of Lemma 4.12: for b < n, Pr[FastSample(1,U) > b] = gamma
(n-b)/(n+1) + (1-gamma)(alpha^b - alpha^(t+1))/(1+alpha) <= gamma (n-b)/(n+1) + (1-gamma)
alpha^b/(1+alpha) (dropping alpha^(t+1) errs high), and Pr[GeoSample(1,U) > b] =
alpha^b/(1+alpha) (0 when b >= n); the comparison of alpha^b with a rational is decided
exactly (ceil_log_ratio on a target rounded up, which errs toward failing).
(H2) gamma <= delta/4 (the privacy proof spends delta/4 on the uniform part) and
2 n gamma <= beta0 (part iii's union bound at beta/n >= beta0/n needs beta/n - gamma >=
beta/(2n)); and Theorem 4.10 i's hypothesis on M (Lemma 3.2 (1) for its truncation).
(F) gamma = min(beta0/(2n), delta/4) and b - 1 = ceil(9/(2eps) ln(c/delta)) (c = 4, or 2
for GeoSample), the ceiling certified independently of the library's ceil_scaled_ln:
e^(2(b-2) eps/9) < c/delta <= e^(2(b-1) eps/9) by exactdp.certified.compare_exp.
(CLI) exactdp.histograms.release.plan('stability', ...) for n <= 1000 (quick: n = 40) must build the same
M and b (a refusal at the theorem's parameters is a failure).
Grid: eps = 1/m up to m = 1000, delta and beta0 down to 2^-40, n up to 10^9 (GeoSample
where its constructor accepts n: d has n(k+1) bits)."""

EXACT_BITS = {False: 1 << 15, True: 1 << 19}


def grid(full: bool) -> list[tuple[int, int, int, int]]:
    """``(m, D, B, n)``: ``eps = 1/m``, ``delta = 1/D``, ``beta0 = 1/B``."""
    if full:
        ms = [1, 2, 3, 5, 10, 33, 100, 1000]
        ds = [2, 10, 1000, 10**6, 10**9, 2**40]
        bs = [2, 20, 1000, 2**40]
        ns = [1, 2, 10, 40, 100, 1000, 10**4, 10**6, 10**9]
    else:
        ms = [1, 2, 10, 1000]
        ds = [10, 10**6, 2**40]
        bs = [20, 2**40]
        ns = [10, 40, 1000, 10**9]
    return [(m, d, b, n) for m in ms for d in ds for b in bs for n in ns]


@cache
def _ceiling_ok(b: int, m: int, c: int, big_d: int) -> bool:
    """``b - 1 = ceil(9m/2 ln(c D))``: ``e^(2(b-2)/(9m)) < c D <= e^(2(b-1)/(9m))``."""
    target = Fraction(c * big_d)
    upper = compare_exp(Fraction(2 * (b - 1), 9 * m), target) >= 0
    lower = b - 2 < 0 or compare_exp(Fraction(2 * (b - 2), 9 * m), target) < 0
    return upper and lower


def _exact_tail_ok(mech: FastSample | GeoSample, b: int, big_d: int) -> bool:
    """``2 Pr[M(1,U) > b] <= 1/D`` from M's integer CDF: ``2 (d - F_1(b)) D <= d``."""
    d = mech.d
    return 2 * (d - mech.cdf(1, b)) * big_d <= d


def _fast_bound_ok(mech: FastSample, b: int, delta: Fraction) -> bool:
    if b >= mech.n:
        return True
    g, n = mech.gamma, mech.n
    rest = delta / 2 - g * (n - b) / (n + 1)
    return geometric_tail_at_most(mech.k, b, 2 * rest / (1 - g))[0]


def check(full: bool) -> ClaimReport:
    pts = grid(full)
    bad: list[dict[str, object]] = []
    cli_bad: list[dict[str, object]] = []
    exact_runs = cli_runs = geo_refused = 0
    universe = Universe(2**64)
    for m, big_d, big_b, n in pts:
        eps, delta, beta0 = Fraction(1, m), Fraction(1, big_d), Fraction(1, big_b)
        fast_alg = StabilityHistogram.theorem_5_6(universe, n, eps, delta, beta0)
        fast, b = fast_alg.mechanism, fast_alg.threshold
        assert isinstance(fast, FastSample)
        gamma = fast.gamma
        h1 = _fast_bound_ok(fast, b, delta)
        if fast.t * (fast.k + 1) <= EXACT_BITS[full]:
            exact_runs += 1
            h1 = h1 and _exact_tail_ok(fast, b, big_d)
        h2 = 4 * gamma <= delta and 2 * n * gamma <= beta0 and truncation_hypothesis(fast).holds
        stated = gamma == min(beta0 / (2 * n), delta / 4) and _ceiling_ok(b, m, 4, big_d)
        if not (h1 and h2 and stated):
            bad.append({"M": "FastSample", "m": m, "delta": delta, "beta0": beta0, "n": n,
                        "b": b, "gamma": gamma, "H1 2Pr[M(1,U)>b] <= delta": h1,
                        "H2 gamma <= delta/4, 2n gamma <= beta0, Lemma 3.2 (1)": h2,
                        "gamma, b as stated": stated})
        try:
            geo_alg = StabilityHistogram.with_geosample(universe, n, eps, delta)
        except ResourceLimitError:  # GeoSample's d would exceed MAX_INTEGER_BITS
            geo_refused += 1
            continue
        geo, gb = geo_alg.mechanism, geo_alg.threshold
        assert isinstance(geo, GeoSample)
        g1 = gb >= n or geometric_tail_at_most(geo.k, gb, delta)[0]
        if n <= 64:
            g1 = g1 and _exact_tail_ok(geo, gb, big_d)
        g_stated = _ceiling_ok(gb, m, 2, big_d)
        if not (g1 and g_stated):
            bad.append({"M": "GeoSample", "m": m, "delta": delta, "n": n, "b": gb,
                        "H1 2Pr[M(1,U)>b] <= delta": g1, "b as stated": g_stated})
        if (n <= 1000 if full else n == 40) and m <= 10 and big_b == 20:
            for counting, alg in (("fastsample", fast_alg), ("geosample", geo_alg)):
                cli_runs += 1
                req = release.ReleaseRequest(universe, eps, beta0, delta, counting)
                try:
                    p = release.plan("stability", req, n)
                    pm, want = p.mechanism, alg.mechanism
                    same = (type(pm) is type(want) and pm.d == want.d
                            and getattr(pm, "gamma", None) == getattr(want, "gamma", None)
                            and p.parameters.get("threshold_b") == alg.threshold)
                    err = ""
                except ExactDPError as exc:  # a refusal at the theorem's parameters fails
                    same, err = False, f"{type(exc).__name__}: {exc}"
                if not same:
                    cli_bad.append({"counting": counting, "m": m, "delta": delta, "n": n,
                                    "error": err})
    certs = [
        Certificate(CLAIM, "StabilityHistogram.theorem_5_6 / .with_geosample",
                    {"settings": len(pts), "exact from M's CDF": exact_runs}, "grid",
                    len(bad), "H1: 2 Pr[M(1,U) > b] <= delta; H2; gamma and b as stated",
                    not bad, {"failed checks": tally(bad), "failures": bad[:10]}),
        Certificate(CLAIM, "exactdp.histograms.release.plan('stability', ...)",
                    {"runs": cli_runs}, "n <= 1000 (quick: 40), eps >= 1/10, beta0 = 1/20", len(cli_bad),
                    "the planner builds the constructors' M and b (and does not refuse)",
                    cli_runs > 0 and not cli_bad, {"failed checks": tally(cli_bad), "failures": cli_bad[:10]}),
    ]
    return ClaimReport(
        CLAIM, f"{len(pts)} settings x (FastSample, GeoSample): eps = 1/m, m <= "
        f"{max(p[0] for p in pts)}; delta, beta0 >= 2^-40; n up to 10^9; exact from the "
        f"integer CDF on {exact_runs}; the command line's planner on {cli_runs}; GeoSample "
        f"refused (d over MAX_INTEGER_BITS) on {geo_refused}",
        f"{len(bad) + len(cli_bad)} failing settings",
        "2 Pr[M(1,U) > b] <= delta (Theorem 5.5 i); gamma <= delta/4, 2n gamma <= beta0",
        certs)

