"""Theorem 6.11 (ii)-(iii) / Figure 5 where its bounds are below n: exact, from M's laws, at
n ~ 65."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from math import comb

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import Distribution, counting_distribution
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms.accuracy import figure_5
from exactdp.histograms.data import Universe
from exactdp.histograms.sparse import KeepHeavy, PureSparseHistogram
from exactdp.proofs._histograms import Distributions
from exactdp.proofs.balcer_vadhan._accuracy import ErrorLaws, error_laws, nonvacuous_certificate

CLAIM = "Theorem 6.11 (ii) at large n"
CLAIM_SIM = "Theorem 6.11 (iii) at large n"
STATEMENT = """Theorem 6.11 (ii) / Figure 5: PureSparseHistogram_{M,eps,beta0/4} with M =
GeoSample_{n,eps} has (a, beta)-per-query accuracy on counts larger than t for every beta >=
beta0, a = ceil(9/(2 eps) ln(4/beta)), t = 2 ceil(9/(2 eps) ln(4|X|/beta)) (FastSample with
gamma = beta/(8|X|): 8/beta and 8|X|/beta).  t < n needs n in the sixties at eps = 1, far
beyond exploring the release."""
PROOF_IDEA = """The proof of Theorem 6.10 gives, for every event G, Pr[PureSparse(D) in G] >=
(1 - beta1)(Pr[KeepHeavy(D) in G] - delta); the accuracy rows check that inequality exactly on
the explored release laws (small n).  Here n is the least with t < n and |X| = 2n + 1, so the
only counts above t are c_x = n: D puts every row on x.  KeepHeavy keeps x with noisy count v
iff at most n - 1 of the other |X| - 1 bins (i.i.d. M(0, U)) reach v, so
Pr[|h_x - n| <= a] = sum_{|v - n| <= a} Pr[M(n, U) = v] Pr[Bin(|X| - 1, Pr[M(0, U) >= v]) <= n
- 1] (a < n: a dropped bin errs by n).  Checks: that formula equals the per-bin law of the
implementation's KeepHeavy explored at small n (GeoSample and FastSample, several |X|); then,
at the large n, with M's laws read off the implementation (threshold search) and PureSparse's
own beta1 and delta, (1 - beta1)(Pr_KH[|h_x - n| <= a] - delta) >= 1 - beta at Figure 5's a --
a non-vacuous instance of the claim (t < n, a < n).  Theorem 6.11 (iii), Figure 5's
simultaneous (a_s, beta) with a_s < t < n, on the same D: every bin's error is at most a_s when
a_s < v = M(n, U) and every other bin's noise M(0, U) is at most a_s (then x is the strict
maximum, kept, with error n - v; a zero bin errs by its noisy count if kept and by 0 if
dropped), an event of probability L = Pr[a_s < v, n - v <= a_s] Pr[M(0, U) <= a_s]^(|X| - 1)
by independence of the bins.  L is checked against the explored KeepHeavy (Pr[max error <= a]
>= L for every a < n, at n <= 3), then (1 - beta1)(L - delta) >= 1 - beta at the large n.
Other datasets stay with the small-n rows."""


def _binomial_cdf(m: int, top: int, low: int, k_max: int) -> Fraction:
    """``Pr[Bin(m, top/low) <= k_max]`` exactly (integer terms, powers built incrementally)."""
    rest = low - top
    rest_powers = [1]
    for _ in range(m):
        rest_powers.append(rest_powers[-1] * rest)
    total, top_power = 0, 1
    for k in range(min(k_max, m) + 1):
        total += comb(m, k) * top_power * rest_powers[m - k]
        top_power *= top
    return Fraction(total, rest_powers[0] * low**m)


def _heavy_bin_law(m_n: Distribution, m_0: Distribution, n: int, size: int,
                   within: int | None = None) -> dict[int, Fraction]:
    """``Pr[|h_x - n| = e]`` for KeepHeavy on ``D = (x, ..., x)``, from M's laws at ``n`` and 0
    (with ``within = a < n``: only the errors ``e <= a``, all that ``Pr[error <= a]`` needs)."""
    others = size - 1
    tail = Fraction(0)
    at_least: dict[int, Fraction] = {}
    for v in range(n, -1, -1):
        tail += Fraction(m_0.get(v, 0))
        at_least[v] = tail
    law: dict[int, Fraction] = {}
    dropped = Fraction(0)
    for v, p in m_n.items():
        p = Fraction(p)
        if not p or (within is not None and abs(v - n) > within):
            continue
        q = at_least.get(v, Fraction(0))
        kept = _binomial_cdf(others, q.numerator, q.denominator, n - 1)
        law[abs(v - n)] = law.get(abs(v - n), Fraction(0)) + p * kept
        dropped += p * (1 - kept)
    if dropped and within is None:
        law[n] = law.get(n, Fraction(0)) + dropped
    return law


def simultaneous_lower(m_n: Distribution, m_0: Distribution, n: int, size: int,
                       a: int) -> Fraction:
    """A lower bound on ``Pr[max_y |h_y - c_y| <= a]`` for KeepHeavy on ``D = (x, ..., x)``
    (``n`` rows): x's noisy count ``v`` in ``(a, n]`` within ``a`` of ``n``, and every other
    bin's ``M(0, U)`` at most ``a`` (then x is the strict maximum and kept)."""
    p_x = sum((Fraction(p) for v, p in m_n.items() if a < v and n - v <= a), Fraction(0))
    f_0 = sum((Fraction(p) for w, p in m_0.items() if w <= a), Fraction(0))
    return p_x * f_0 ** (size - 1)


def _down(q: Fraction) -> Fraction:
    """``q`` rounded down to a multiple of 2^-64 (printable; the verdicts use ``q`` itself)."""
    return Fraction((q.numerator << 64) // q.denominator, 1 << 64)


def _validation(full: bool) -> list[tuple[InverseCDFSampler, int]]:
    out: list[tuple[InverseCDFSampler, int]] = [(GeoSample(3, 1), 4),
                                                (FastSample(2, 1, Fraction(1, 2)), 5)]
    if full:
        out += [(GeoSample(3, 1), 6), (GeoSample(4, 1), 5), (GeoSample(2, Fraction(1, 2)), 5)]
    return out


def _least_n(kind: str, beta: Fraction) -> int:
    """The least ``n`` with Figure 5's ``t`` below ``n`` at ``|X| = 2n + 1``, ``eps = 1``."""
    n = 1
    while True:
        t = figure_5(kind, 1, beta, 2 * n + 1).per_query_threshold
        assert t is not None
        if t < n:
            return n
        n += 1


def _large(full: bool) -> list[tuple[str, str, Fraction, Fraction]]:
    """(Figure 5 row, counting sampler, beta0, beta)."""
    half = Fraction(1, 2)
    out = [("GeoSample", "geosample", half, half), ("FastSample", "fastsample", half, half)]
    if full:
        quarter = Fraction(1, 4)
        out += [("GeoSample", "geosample", quarter, quarter),
                ("FastSample", "fastsample", quarter, quarter)]
    return out


def _explored_validation(full: bool) -> Iterator[tuple[InverseCDFSampler, int, KeepHeavy,
                                                       ErrorLaws]]:
    """Each validation point ``(M, |X|)`` with KeepHeavy on it and its error laws, explored
    at ``D = (1, ..., 1)``."""
    for mech, size in _validation(full):
        alg = KeepHeavy(mech, Universe(size))
        rows = (1,) * mech.n
        yield mech, size, alg, error_laws(Distributions(alg.release, alg.universe)(rows),
                                          rows, size)


def _large_points(full: bool) -> Iterator[tuple[str, Fraction, Fraction, int, int,
                                                PureSparseHistogram]]:
    """Each large-n point: ``(kind, beta0, beta, n, |X| = 2n + 1, the Theorem 6.11 release)``
    at the least n with a threshold below n."""
    for kind, counting, beta0, beta in _large(full):
        n = _least_n(kind, beta)
        size = 2 * n + 1
        yield (kind, beta0, beta, n, size,
               PureSparseHistogram.theorem_6_11(Universe(size), n, 1, beta0, counting))


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    for mech, size, alg, explored in _explored_validation(full):
        n = mech.n
        formula = _heavy_bin_law(counting_distribution(mech, n), counting_distribution(mech, 0),
                                 n, size)
        certs.append(Certificate(
            CLAIM + " (formula)", repr(alg), {"n": n, "|X|": size},
            "D = (1, ..., 1): the explored law of |h_1 - n|", None,
            "== the heavy-bin formula from M's laws", explored.per_bin[1] == formula,
            {"explored": explored.per_bin[1], "formula": formula}))
    bounds = biting = 0
    slack_min: Fraction | None = None
    for kind, beta0, beta, n, size, hist in _large_points(full):
        g = figure_5(kind, 1, beta, size)
        a, t = g.per_query[0], g.per_query_threshold
        assert t is not None
        mech = hist.mechanism
        assert a < n
        law = _heavy_bin_law(counting_distribution(mech, n), counting_distribution(mech, 0),
                             n, size, within=a)
        p_kh = sum((p for e, p in law.items() if e <= a), Fraction(0))
        guaranteed = (1 - hist.beta1) * (p_kh - hist.delta)
        slack = guaranteed - (1 - beta)
        slack_min = slack if slack_min is None else min(slack_min, slack)
        bounds += 1
        biting += t < n and a < n
        certs.append(Certificate(
            CLAIM, repr(hist), {"n": n, "|X|": size, "beta0": beta0, "beta": beta,
                               "beta_1": hist.beta1, "a": a, "t": t},
            f"D = ({n} rows of x): the only count above t = {t}", _down(slack),
            "(1 - beta1)(Pr_KH[|h_x - n| <= a] - delta) - (1 - beta) >= 0 (rounded down)",
            slack >= 0 and t == n - 1,  # t = n - 1: c_x = n is the only count above t
            {"Pr_KeepHeavy": brief(p_kh), "guaranteed": brief(guaranteed)}))
    certs.append(nonvacuous_certificate(CLAIM, biting, bounds, "with t < n and a < n"))
    return ClaimReport(
        CLAIM, "heavy-bin formula against KeepHeavy explored at n <= 3; Figure 5 (eps = 1) at "
        "the least n with t < n, |X| = 2n + 1: " + ", ".join(
            f"{k} beta0={b0} beta={b}" for k, _, b0, b in _large(full)),
        f"min guaranteed - (1 - beta) >= {brief(_down(slack_min or Fraction(0)))} ({biting} of "
        f"{bounds} "
        f"with t < n)", "Figure 5's per-query bound, via the inequality the small-n rows check",
        certs)


def check_simultaneous(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    for mech, size, alg, explored in _explored_validation(full):
        n = mech.n
        m_n, m_0 = counting_distribution(mech, n), counting_distribution(mech, 0)
        below = [(a, sum((p for e, p in explored.maximum.items() if e <= a), Fraction(0)),
                  simultaneous_lower(m_n, m_0, n, size, a)) for a in range(n)]
        certs.append(Certificate(
            CLAIM_SIM + " (formula)", repr(alg), {"n": n, "|X|": size},
            "D = (1, ..., 1): the explored law of max |h_y - c_y|", None,
            ">= the lower bound L at every a < n, and > 0 somewhere",
            all(p >= low for _, p, low in below) and any(low > 0 for _, _, low in below),
            {"explored_vs_lower": [(a, brief(p), brief(low)) for a, p, low in below]}))
    bounds = biting = 0
    slack_min: Fraction | None = None
    for kind, beta0, beta, n, size, hist in _large_points(full):
        a_s, b_s = figure_5(kind, 1, beta, size).simultaneous
        mech = hist.mechanism
        low = simultaneous_lower(counting_distribution(mech, n), counting_distribution(mech, 0),
                                 n, size, a_s)
        guaranteed = (1 - hist.beta1) * (low - hist.delta)
        slack = guaranteed - (1 - b_s)
        slack_min = slack if slack_min is None else min(slack_min, slack)
        bounds += 1
        biting += a_s < n
        certs.append(Certificate(
            CLAIM_SIM, repr(hist), {"n": n, "|X|": size, "beta0": beta0, "beta": b_s,
                                   "beta_1": hist.beta1, "a_sim": a_s},
            f"D = ({n} rows of x): every bin's error at most a = {a_s}", _down(slack),
            "(1 - beta1)(L - delta) - (1 - beta) >= 0 (rounded down)",
            slack >= 0 and a_s < n, {"L": brief(low), "guaranteed": brief(guaranteed)}))
    certs.append(nonvacuous_certificate(CLAIM_SIM, biting, bounds, "with a < n"))
    return ClaimReport(
        CLAIM_SIM, "lower bound L against KeepHeavy explored at n <= 3; Figure 5 (eps = 1) "
        "simultaneous at the least n with t < n, |X| = 2n + 1: " + ", ".join(
            f"{k} beta0={b0} beta={b}" for k, _, b0, b in _large(full)),
        f"min guaranteed - (1 - beta) >= {brief(_down(slack_min or Fraction(0)))} ({biting} of "
        f"{bounds} with a < n)",
        "Figure 5's simultaneous bound, via the inequality the small-n rows check", certs)


check.CLAIM = CLAIM  # type: ignore[attr-defined]
check_simultaneous.CLAIM = CLAIM_SIM  # type: ignore[attr-defined]
CHECKS = [check, check_simultaneous]
