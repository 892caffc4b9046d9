"""Parameter and input domains, checked at their boundaries.

The other rows feed the library valid inputs only, so a guard that is dropped, or whose
bound is off by one (a valid boundary value refused, an invalid one accepted), or whose
``or`` became ``and``, passes all of them.  This row feeds every guarded public entry point
of the privacy-critical modules an input just outside its domain and the boundary values
just inside it.  Tables: ``proofs/balcer_vadhan/_domains_core.py`` and ``proofs/balcer_vadhan/_domains_histograms.py``.
"""

from __future__ import annotations

from exactdp.certificate import ClaimReport
from exactdp.proofs.balcer_vadhan._domains import run_table
from exactdp.proofs.balcer_vadhan._domains_core import CHECKER, COUNTING, SOURCES
from exactdp.proofs.balcer_vadhan._domains_histograms import (
    BASIC_SPARSE,
    COMPACT,
    ORDER_STATISTICS,
    native_cases,
)

CLAIM = "Parameter and input domains"
STATEMENT = """Every guarded public entry point of counting, mixing, randomness, explore,
checker, certified and histograms/{basic, sparse, orderstats, compact} accepts exactly the
domain the paper (or the library) fixes: an input just outside it is refused with the typed
error (ParameterError, DomainError, ParameterTypeError, ResourceLimitError,
NondeterminismError, InvalidReleaseError: the exact class) whose message names the parameter
and the offending value or rule; the boundary values just inside it are accepted and give
the right result.  Domains: u in [d]_+ (Lemma 2.13), tables F_c(0..n) non-decreasing with
F_c(n) = d >= 1 and n >= 1, alpha in (0, 1) (Algorithm 4.5), gamma < 1 (Theorem 4.10: log 0
at gamma = 1), beta in (0, 1] and beta > gamma (Theorem 4.10 ii), Lemma 3.2's delta in
[0, 1), eps > 0, gamma in (0, 1), min_prob in (0, 1]; sources: d an int >= 1 and draws in
[1, d] (Section 2.4's oracle), bernoulli 0 <= num <= den; exploration limits and replays;
the checker's enumeration limits, outputs in [0, n] in order, beta in (0, 1], FixedSource's
values; certified logs of x >= 1 (x > 0 for ln); histograms: a Universe and a Dataset of the
mechanism's n, b >= 0 (Algorithm 5.4), n + 1 <= |X| (Algorithm 6.1), beta_1 < 1 and M at
most (eps/2, 0)-DP (Algorithm 6.9), m >= n + 1 and s >= m (Propositions 6.6, 6.17, 6.19),
F: [n] -> [d]_+ with F(n) = d, a in [s]^t with t >= 1 (Proposition 6.15), p in [q],
d0 >= 4d/3 (Lemma 8.4), d0 >= |X| (Algorithm 8.2) and d0 >= n + 1 in strict mode, at most n
prescribed values (Lemma 8.1 iv), n + 1 coefficients and x in [1, M] for a release; and each
resource limit (MAX_INTEGER_BITS, MAX_BASIC_BINS, KEEP_HEAVY_LIMIT, KH_PRIME_MAX_BITS,
SPARSE_MAX_S_BITS, MAX_LEVEL, the native path's 8 words) reached exactly is accepted, one
more refused."""
PROOF_IDEA = """Read off each guard in the code; for each, one input per clause of its
condition just outside (u = 0 and u = d + 1; True and a Fraction where an int is needed; a
string row first and last; delta = -1/100 and 1; ...) and the boundary values just inside
(u = 1 and u = d, num = 0 and num = den, c = n, |X| = n + 1, s = m, d0 = 4d/3, gamma = 1/2,
a limit met exactly, ...).  A refusal passes only with exactly the expected class and the
expected words in the message: a dropped guard usually lets a different error surface later
(a ZeroDivisionError, or another guard's ParameterError about an internal value), which
would otherwise pass for a refusal.  Accepted results are compared with values computed in
the tables independently: inverse CDFs by a scan, laws by differences of F, binomial CDFs by
the binomial sum, Algorithm 8.5's map by its definition, accuracies by counting a up, e and
ln 2 by decimal enclosures, exploration for exact laws.  Limits that would need gigabytes
to reach (MAX_BASIC_BINS = 2^22 bins, MAX_LEVEL = 10) are lowered for the duration of the
call: the guard reads the module constant when it runs, so its comparison is still checked
at the boundary.  Not covered here: params.py's own parsers (tests/test_params.py).  Note:
PureSparseHistogram.theorem_6_11 refuses beta0 = 1, which Theorem 6.11 (beta0 in N^-1)
allows; the row records the refusal as the library's documented choice."""


def check_counting(full: bool) -> ClaimReport:
    """counting.py and mixing.py: samplers, tables, the ideal mechanism, Lemma 3.2."""
    return run_table(CLAIM + ": counting", "counting.py, mixing.py", COUNTING)


def check_sources(full: bool) -> ClaimReport:
    """randomness.py and explore.py: the sources, the exploring source."""
    return run_table(CLAIM + ": sources", "randomness.py, explore.py", SOURCES)


def check_checker(full: bool) -> ClaimReport:
    """checker.py and certified.py."""
    return run_table(CLAIM + ": checker", "checker.py, certified.py", CHECKER)


def check_basic_sparse(full: bool) -> ClaimReport:
    """histograms/basic.py and sparse.py (Sections 5, 6.1)."""
    return run_table(CLAIM + ": basic and sparse histograms", "basic.py, sparse.py",
                     BASIC_SPARSE)


def check_order_statistics(full: bool) -> ClaimReport:
    """histograms/orderstats.py (Section 6.2)."""
    return run_table(CLAIM + ": order statistics", "orderstats.py", ORDER_STATISTICS)


def check_compact(full: bool) -> ClaimReport:
    """histograms/compact.py (Section 8)."""
    cases, note = native_cases()
    return run_table(CLAIM + ": compact histograms", f"compact.py ({note})", COMPACT + cases)


CHECKS = [check_counting, check_sources, check_checker, check_basic_sparse,
          check_order_statistics, check_compact]
