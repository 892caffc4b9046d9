"""ALP-short Theorem 1.1's (eps, delta) space: O(k log(d+u)) bits holds only for delta >=
1/poly(d+u); the construction of Theorem 4.2 needs O(k (log(d+u) + log(1/delta)))."""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.proofs.alp.alp_thm_4_01_space_access import _approx, _log2_floor

CLAIM = "ALP Theorem 1.1 (eps, delta) space needs log(1/delta)"
SLIP = ("Theorem 1.1 gives O(k log(d+u)) bits for delta > 0, but the Theorem 4.2 "
        "construction stores m = Theta(log(1/delta)) columns, so its space grows with "
        "k log(1/delta) at fixed d, k, u.")
STATEMENT = """ALP-short Theorem 1.1 (informal): for delta > 0 an (eps, delta)-DP representation in
O(k log(d+u)) bits with access time log(1/delta).  Theorem 4.2 (the construction): O(k (log(d+u)
+ log(1/delta))) bits.  At d = 2^8, k = 8, u = 2^10, s = 10k, alpha = 3, eps = 1 split in
halves, the implementation's releases at delta = 2^-10, 2^-40, 2^-160 (2^-320 in --full) have
bits / (k floor(log2(d+u))) growing without a bound in d, k, u (past the constant 8 that the
pure Theorem 4.1 row meets), while bits <= 8 k (floor(log2(d+u)) + log2(1/delta)) holds at
every delta.  The max-error half of the slip (O(log(1/delta)/eps) expected maximum error,
impossible below the order log(d)/eps for the keys answered by the sketch) is not exercised:
it needs the joint law of d estimates."""
PROOF_IDEA = """The releases and their bit counts are those of the Theorems 4.1/4.2 space row
(ApproxThresholdALP.from_paper projected from a seeded source; the bits counted from the
released objects).  The row passes when the Theorem 1.1 form with the constant 8 FAILS at the
smallest delta, the Theorem 4.2 form holds everywhere, and the number of columns m grows
strictly as delta falls (it is ceil(t_delta eps2/alpha), t_delta the least integer with
r^(t-1)/(1+r) <= delta)."""

D = 1 << 8


def check(full: bool) -> ClaimReport:
    exps = [10, 40, 160] + ([320] if full else [])
    k = D.bit_length() - 1
    log_d_u = _log2_floor(Fraction(D + (1 << 10)))
    rows = []
    for e in exps:
        cert, row = _approx(D, e)
        rows.append((e, cert, row))
    ratios = [Fraction(row["bits"], k * log_d_u) for _, _, row in rows]
    ms = [row["m"] for _, _, row in rows]
    thm42 = all(c.verdict for _, c, _ in rows)
    grows = all(a < b for a, b in pairwise(ms))
    fails_11 = ratios[-1] > 8
    params = {"d": D, "k": k, "u": 1 << 10}
    certs = [
        Certificate(CLAIM + " (Theorem 1.1: bits <= 8 k log2(d+u))", "ApproxThresholdALP",
                    params, f"delta = 2^-{exps[-1]}", ratios[-1],
                    "> 8: the delta-free bound FAILS", fails_11,
                    {"bits_per_k_log2(d+u)": {f"2^-{e}": r for e, r in zip(exps, ratios,
                                                                             strict=True)}}),
        Certificate(CLAIM + " (Theorem 4.2: + 8 k log2(1/delta))", "ApproxThresholdALP",
                    params, ", ".join(f"2^-{e}" for e in exps), max(ratios),
                    "every release within 8 k (log2(d+u) + log2(1/delta)); m increasing",
                    thm42 and grows, {"m": ms})]
    return ClaimReport(CLAIM, f"d = 2^8, k = 8, delta = {', '.join(f'2^-{e}' for e in exps)}",
                       "bits/(k log2(d+u)) " + ", ".join(brief(r, 2) for r in ratios)
                       + f"; m {ms}", "> 8 at the smallest delta; Theorem 4.2's form holds",
                       certs)
