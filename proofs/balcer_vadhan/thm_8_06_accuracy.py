"""Theorem 8.6 (ii)-(iii): CompactHistogram's exact accuracy at the theorem's parameters."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import counting_distributions
from exactdp.counting import FastSample
from exactdp.histograms.accuracy import ceil_scaled_ln
from exactdp.histograms.compact import CompactHistogram
from exactdp.proofs._histograms import canonical_datasets
from exactdp.proofs.balcer_vadhan._accuracy import (
    counting_error_laws,
    nonvacuous_certificate,
    smallest_error,
)
from exactdp.proofs.balcer_vadhan._compact import m0_distribution

CLAIM = "Theorem 8.6 (accuracy)"
STATEMENT = """Theorem 8.6 (ii)-(iii): CompactHistogram_{M,M0} with M = FastSample_{n,eps',gamma},
eps' = 1/ceil(10/(9 eps)), gamma = beta0/(2|X|) and Lemma 8.4's M0 has (a, beta)-per-query
accuracy with a = ceil(5/eps ln(2/beta)) for beta >= 2 gamma, and (Figure 6; stated as
per-query in (iii)) (a, beta)-simultaneous accuracy with a = ceil(5/eps ln(2|X|/beta)) for
beta >= beta0."""
PROOF_IDEA = """Theorem 8.3 (ii)-(iii): h_x ~ M(c_x, U) for x in A and h_x ~ M0(U0) off A, and any
n + 1 of the h_x are independent (Lemma 8.1 ii).  Theorem 8.3's rows check, on small fields,
that the explored release has exactly these marginals; here the parameters are the
theorem's (d0 of hundreds of bits: the release cannot be explored), so the laws are read
off the implementation's M (thresholds) and M0 (Lemma 8.4's sampler, block argument with
calls at both ends of every block).  Checks: the exact smallest per-query error
max(max_{c >= 1} a(M(c)), a(M0)) at several beta, and, for |X| <= n + 1 (all bins
independent), the exact smallest simultaneous error max_D of the product law, against the
closed forms.  At n = 30 the bounds are far below n: even uniform noise on [n] would
fail them, so a release that is private through too much noise fails."""

BETAS = [Fraction(3, 4), Fraction(1, 2), Fraction(1, 4), Fraction(1, 10)]


def _grid(full: bool) -> list[tuple[int, int, Fraction, Fraction]]:
    """(|X|, n, eps, beta0)."""
    out = [(2, 30, Fraction(1), Fraction(1, 2)), (3, 3, Fraction(1), Fraction(1, 4))]
    if full:
        out += [(3, 12, Fraction(1), Fraction(1, 2)), (2, 40, Fraction(1, 2), Fraction(1, 2)),
                (4, 4, Fraction(1), Fraction(1, 10))]
    return out


def _simultaneous(laws_m: list[dict[int, Fraction]], law_0: dict[int, Fraction],
                  rows: tuple[int, ...], size: int, beta: Fraction) -> int:
    """Smallest ``a`` with ``prod_x Pr[err_x <= a] >= 1 - beta`` (independent bins)."""
    counts = Counter(rows)
    n = len(laws_m) - 1
    for a in range(n + 1):
        p = Fraction(1)
        for x in range(1, size + 1):
            c = counts.get(x, 0)
            law = laws_m[c] if c else law_0
            p *= sum((w for e, w in law.items() if e <= a), Fraction(0))
        if p >= 1 - beta:
            return a
    raise AssertionError("an error law of total mass below 1")


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    nonvacuous, bounds = 0, 0
    for size, n, eps, beta0 in _grid(full):
        ch = CompactHistogram.theorem_8_6(size, n, eps, beta0)
        mech = ch.mechanism
        assert isinstance(mech, FastSample)
        gamma = beta0 / (2 * size)  # the theorem's gamma (not read back from the mechanism)
        laws_m = counting_error_laws(counting_distributions(mech))
        reading = m0_distribution(ch.empty)
        law_0 = counting_error_laws([reading.dist])[0]  # M0's value is its error at c = 0
        datasets = canonical_datasets(n, size)
        ok = reading.monotone
        witness: dict[str, object] = {"m0_read_by": "enumeration" if reading.enumerated
                                      else "block argument"}
        for beta in BETAS:
            per = max([smallest_error(law, beta) for law in laws_m[1:]]
                      + [smallest_error(law_0, beta)])
            if beta >= 2 * gamma:
                bound = ceil_scaled_ln(5 / eps, 2 / beta)
                ok = ok and per <= bound
                bounds += 1
                nonvacuous += bound < n
                witness[f"per-query at {beta}"] = [per, bound]
            if beta >= beta0 and size <= n + 1:
                sim = max(_simultaneous(laws_m, law_0, d, size, beta) for d in datasets)
                bound = ceil_scaled_ln(5 / eps, 2 * size / beta)
                ok = ok and sim <= bound
                bounds += 1
                nonvacuous += bound < n
                witness[f"simultaneous at {beta}"] = [sim, bound]
        certs.append(Certificate(
            "Theorem 8.6 (ii)-(iii)", repr(ch),
            {"|X|": size, "n": n, "epsilon": eps, "beta0": beta0, "gamma": gamma,
             "d0_bits": ch.field.degree},
            f"c in [0, {n}] and M0; {len(datasets)} datasets up to relabelling", None,
            "exact smallest error <= ceil(5/eps ln(2/beta)), simultaneous <= "
            "ceil(5/eps ln(2|X|/beta))", ok, witness))
    certs.append(nonvacuous_certificate("Theorem 8.6 (ii)-(iii)", nonvacuous, bounds,
                                        "below n"))
    return ClaimReport(
        "Theorem 8.6 (ii)-(iii)",
        "Theorem 8.6's parameters: (|X|, n, eps, beta0) in "
        + ", ".join(f"({s}, {n}, {e}, {b})" for s, n, e, b in _grid(full))
        + "; beta in {3/4, 1/2, 1/4, 1/10} where the theorem applies",
        f"exact smallest errors <= the closed forms ({nonvacuous} of {bounds} bounds below n)",
        "a = ceil(5/eps ln(2/beta)) per query, ceil(5/eps ln(2|X|/beta)) simultaneous", certs)
