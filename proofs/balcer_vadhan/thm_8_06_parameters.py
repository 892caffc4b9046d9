"""Theorem 8.6: CompactHistogram with FastSample and the parameters of the proof."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.certified import ceil_log2
from exactdp.counting import FastSample
from exactdp.histograms.accuracy import ceil_scaled_ln
from exactdp.histograms.compact import CompactHistogram
from exactdp.params import ResourceLimitError
from exactdp.proofs.balcer_vadhan._parameters import tally, truncation_hypothesis

CLAIM = "Theorem 8.6"
STATEMENT = """Let eps, beta0 in N^{-1}, M = FastSample_{n,eps',gamma} with eps' = 1/ceil(10/(9 eps)),
gamma = beta0/(2|X|), and M0 from Lemma 8.4 with d0 = 2^{2*3^l},
l = ceil(log3(ceil(log2 max{|X|, 30 d/eps})/2)).  Then CompactHistogram_{M,M0} is (i)
(eps, 0)-DP; (ii) (a, beta)-per-query accurate for beta >= 2 gamma with
a = ceil(5/eps ln(2/beta)); (iii) (a, beta)-accurate for beta >= beta0 with
a = ceil(5/eps ln(2|X|/beta)) -- stated as per-query, but Figure 6 and the proof (Theorem
8.3 iii) make it the simultaneous guarantee; (iv), (v) running times."""
PROOF_IDEA = """d0 >= 2^{ceil(log2 30d/eps)} >= 30 d / eps and d0 >= |X|.  Theorem 8.3 with eps1 =
eps' <= 9 eps/10 (FastSample is (eps'/2, 0)-DP, Theorem 4.10 i), eps2 = 2d/d0 and eps3 =
d/d0 (Lemma 8.4) gives eps' + 3d/d0 <= eps.  Accuracy: FastSample's a = ceil(2/eps~' ln(1/(beta
- gamma))) (Theorem 4.10 ii) is at most ceil(5/eps ln(2/beta)) when beta >= 2 gamma; M0 is at
least as accurate at 0 (Lemma 8.4 iii); the union bound over X gives (iii).
Checks, for every setting of the grid: eps' = 1/ceil(10m/9) (eps = 1/m) is computed here
from the theorem's text and must equal the epsilon of the FastSample the implementation
builds; the parameters it derives satisfy d0 >= |X|, d0 >= 30 d / eps with l the least such
level, and eps' + 3d/d0 <= eps exactly in rationals; FastSample's accuracy (computed with
certified logarithms) is at most the theorem's a at beta in {2 gamma, beta0, 1/10, 1/2}
(per query) and the simultaneous bound at beta in {beta0, 1/2}.  Second row (wide): the same
hypotheses plus d0 >= 4d/3 (Lemma 8.4), d0 >= n + 1 (strict interpolation) and Theorem 4.10
i's hypothesis on M, on CompactHistogram.theorem_8_6 and .with_geosample over eps = 1/m
(m <= 40), |X| up to 2^128, beta0 down to 2^-40, n up to 10^9, and at settings where
ceil(log2(30 d/eps)) sits 1-3 bits above a level boundary (d0 < 8 * 30 d/eps there, so a
smaller constant than 30 would pick too small a field).  (The DP of FastSample itself is Theorem 4.10's row; Theorem 8.3's row
checks the composition exactly on small fields.)"""


def _grid(full: bool) -> list[tuple[Fraction, Fraction, int, int]]:
    if full:
        epss = [Fraction(1, m) for m in (1, 2, 3, 5, 7, 9, 10, 15, 20)]
        betas = [Fraction(1, 2), Fraction(1, 20), Fraction(1, 2**20)]
        sizes = [1, 2, 1000, 2**32, 2**64]
        ns = [1, 10, 1000, 10**4]
    else:
        epss = [Fraction(1), Fraction(1, 3), Fraction(1, 10)]
        betas = [Fraction(1, 2), Fraction(1, 2**20)]
        sizes = [2, 2**64]
        ns = [1, 1000]
    return [(e, b, x, n) for e in epss for b in betas for x in sizes for n in ns]


def check(full: bool) -> ClaimReport:
    certs = []
    skipped = []
    min_budget_slack: Fraction | None = None
    max_a_ratio = Fraction(0)
    for eps, beta0, size, n in _grid(full):
        try:
            ch = CompactHistogram.theorem_8_6(size, n, eps, beta0)
        except ResourceLimitError:
            skipped.append(f"eps={eps}, |X|={size}, n={n}")
            continue
        mech = ch.mechanism
        assert isinstance(mech, FastSample)
        d, d0, level = mech.d, ch.field.order, ch.field.level
        m = eps.denominator
        # eps' = 1/ceil(10/(9 eps)) from the theorem's text: for eps = 1/m, 1/ceil(10m/9).
        eps_prime = Fraction(1, -(-10 * m // 9))
        gamma = mech.gamma
        bits = ceil_log2(max(size, 30 * d * m))
        minimal = level == 0 or 2 * 3 ** (level - 1) < bits
        budget = eps - mech.epsilon - Fraction(3 * d, d0)
        ok = (d0 >= size and d0 >= 30 * d * m and minimal and budget >= 0
              and mech.epsilon == eps_prime and gamma == beta0 / (2 * size)
              and eps_prime <= Fraction(9, 10) * eps)
        if min_budget_slack is None or budget / eps < min_budget_slack:
            min_budget_slack = budget / eps
        acc: dict[str, tuple[int, int]] = {}
        for beta in sorted(b for b in {2 * gamma, beta0, Fraction(1, 10), Fraction(1, 2)}
                           if 2 * gamma <= b <= 1):
            a_m = mech.paper_accuracy(beta)
            a_thm = ceil_scaled_ln(5 / eps, 2 / beta)
            ok = ok and a_m <= a_thm
            max_a_ratio = max(max_a_ratio, Fraction(a_m, max(a_thm, 1)))
            acc[f"per_query beta={beta}"] = (a_m, a_thm)
        for beta in sorted({beta0, Fraction(1, 2)}):
            a_m = mech.paper_accuracy(beta / size)
            a_thm = ceil_scaled_ln(5 / eps, 2 * size / beta)
            ok = ok and a_m <= a_thm
            acc[f"simultaneous beta={beta}"] = (a_m, a_thm)
        certs.append(Certificate(
            "Theorem 8.6", repr(ch.mechanism),
            {"epsilon": eps, "beta0": beta0, "universe": size, "n": n, "level": level},
            "parameters", budget, "eps - eps' - 3d/d0 >= 0; d0 >= |X|, 30d/eps; "
            "FastSample a <= theorem a", ok,
            {"d_bits": d.bit_length(), "d0_bits": ch.field.degree,
             "accuracy (FastSample a, theorem a)": {k: list(v) for k, v in acc.items()}}))
    grid = _grid(full)
    return ClaimReport(
        "Theorem 8.6 (i)-(iii)",
        f"{len(grid)} settings: eps in {sorted({str(g[0]) for g in grid})}, beta0 in "
        f"{sorted({str(g[1]) for g in grid})}, |X| in {sorted({g[2] for g in grid})}, "
        f"n in {sorted({g[3] for g in grid})}"
        + (f"; {len(skipped)} need a level > 10 (refused): {skipped}" if skipped else ""),
        f"min (eps - eps' - 3d/d0)/eps = {brief(min_budget_slack or Fraction(0))}; max "
        f"FastSample a / theorem a = {max_a_ratio}",
        "budget >= 0 (exact); FastSample's a <= ceil(5/eps ln(2/beta)), "
        "<= ceil(5/eps ln(2|X|/beta)) for the simultaneous bound", certs)


#: Settings ``(m, 1/beta0, |X|, n)`` where ``ceil(log2(30 d/eps))`` lies 1-3 bits above a
#: level boundary ``2 * 3^l`` (found by scanning ``beta0``): there ``d0`` is within a factor
#: 8 of ``30 d/eps``, so a smaller constant than 30 picks a smaller field and breaks
#: ``eps' + 3d/d0 <= eps``.  ``check_wide`` reports how close each one is.
TIGHT = [(10, 47, 2, 1), (10, 2, 2, 64), (4, 557074607, 1000, 2), (10, 190420296969, 2, 1)]


def _wide_grid(full: bool) -> list[tuple[int, int, int, int]]:
    if full:
        ms = [1, 2, 3, 4, 5, 9, 10, 11, 20, 40]
        bs = [2, 20, 2**20, 2**40]
        sizes = [1, 2, 1000, 2**64, 2**128]
        ns = [1, 2, 10, 64, 1000, 10**6, 10**9]
    else:
        ms, bs, sizes, ns = [1, 10, 40], [2, 2**40], [2, 2**128], [1, 1000, 10**9]
    return TIGHT + [(m, b, x, n) for m in ms for b in bs for x in sizes for n in ns]


def check_wide(full: bool) -> ClaimReport:
    """Theorem 8.6's hypotheses on CompactHistogram.theorem_8_6 and .with_geosample over a
    wide grid and at the level boundaries (TIGHT)."""
    pts = _wide_grid(full)
    bad: list[dict[str, object]] = []
    refused = 0
    closest_pair: tuple[int, int] | None = None
    for m, big_b, size, n in pts:
        eps, beta0 = Fraction(1, m), Fraction(1, big_b)
        for variant in ("theorem_8_6", "geosample"):
            # d alone would exceed the largest field (level 10): the constructor refuses, after
            # computing d; skip it here without building d (cheap: t and k only).
            probe = (FastSample(n, Fraction(1, -(-10 * m // 9)), beta0 / (2 * size))
                     if variant == "theorem_8_6" else None)
            k = ceil_log2(2 * -(-10 * m // 9))
            if (probe.t if probe else n) * (k + 1) > 2 * 3**10:
                refused += 1
                continue
            try:
                if variant == "theorem_8_6":
                    ch = CompactHistogram.theorem_8_6(size, n, eps, beta0)
                else:
                    ch = CompactHistogram.with_geosample(size, n, eps)
            except ResourceLimitError:
                refused += 1
                continue
            mech, d0 = ch.mechanism, ch.field.order
            d = mech.d
            e = -(-10 * m // 9)
            eps_prime = Fraction(1, e)
            # ratio = d0 / (30 d m), compared by cross-multiplication (exact, and without the
            # gcds of a Fraction of ~10^5-bit integers); the minimum becomes a Fraction once.
            ratio = (d0, 30 * d * m)
            if variant == "theorem_8_6" and (closest_pair is None or
                                             d0 * closest_pair[1] < closest_pair[0] * ratio[1]):
                closest_pair = ratio
            bits = ceil_log2(max(size, 30 * d * m))
            level = ch.field.level
            # eps' + 3d/d0 <= eps  <=>  1/e + 3d/d0 <= 1/m  <=>  m d0 + 3 d e m <= e d0
            ok = (d0 >= size and d0 >= ratio[1] and 3 * d0 >= 4 * d and d0 >= n + 1
                  and getattr(mech, "epsilon", None) == eps_prime
                  and m * d0 + 3 * d * e * m <= e * d0
                  and (level == 0 or 2 * 3 ** (level - 1) < bits))
            if isinstance(mech, FastSample):
                ok = (ok and mech.gamma == beta0 / (2 * size)
                      and truncation_hypothesis(mech).holds)
            if not ok:
                bad.append({"variant": variant, "m": m, "beta0": beta0, "|X|": size, "n": n,
                            "level": level, "d0 / (30 d/eps)": Fraction(*ratio),
                            "eps' + 3d/d0": getattr(mech, "epsilon", eps_prime) + Fraction(3 * d, d0)})
    closest = None if closest_pair is None else Fraction(*closest_pair)
    cert = Certificate(
        "Theorem 8.6", "CompactHistogram.theorem_8_6 / .with_geosample",
        {"settings": 2 * len(pts), "refused (level > 10)": refused}, "wide grid + TIGHT",
        len(bad), "d0 >= |X|, 30 d/eps, 4d/3, n+1; eps' + 3d/d0 <= eps; l least; "
        "eps', gamma as stated; Lemma 3.2 (1) for FastSample", not bad,
        {"failed checks": tally(bad), "failures": bad[:10], "min d0/(30 d/eps)": closest})
    return ClaimReport(
        "Theorem 8.6 (parameters, wide)",
        f"{len(pts)} settings x (FastSample, GeoSample): eps = 1/m, m <= "
        f"{max(p[0] for p in pts)}; |X| up to 2^128; n up to 10^9; {len(TIGHT)} level-boundary "
        f"settings; {refused} refused (level > 10)",
        f"{len(bad)} failing; min d0 / (30 d/eps) = {brief(closest or Fraction(0), 4)}",
        "eps' + 3d/d0 <= eps with d0 >= 30 d/eps, |X|", [cert])


CHECKS = [check, check_wide]
