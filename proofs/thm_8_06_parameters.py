"""Theorem 8.6: CompactHistogram with FastSample and the parameters of the proof."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.certified import ceil_log2
from exactdp.counting import FastSample
from exactdp.histograms.accuracy import ceil_scaled_ln
from exactdp.histograms.compact import CompactHistogram
from exactdp.params import ResourceLimitError

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
(per query) and the simultaneous bound at beta in {beta0, 1/2}.  (The DP of FastSample itself is Theorem 4.10's row; Theorem 8.3's row
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
