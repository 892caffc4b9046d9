"""Definitions 2.1-2.9 as the checker computes them: the checker checked against a brute force.

Every other row of ``exactdp verify`` trusts ``exactdp.checker``, ``exactdp.explore`` and
``exactdp.certified`` to compute laws, privacy-loss ratios, divergences, distances, accuracy
and operation traces.  This row checks those tools themselves, on every run of verify.
"""

from __future__ import annotations

from collections.abc import Callable

from exactdp.certificate import Certificate, ClaimReport
from exactdp.proofs.balcer_vadhan import _checker_props as props

CLAIM = "Definitions 2.1-2.9 (the checker)"
STATEMENT = """exactdp's checker computes, for a counting mechanism M(c, u): the law of M(c, U) by
enumeration and by threshold search (refusing what it sees is not monotone or leaves [0, n]);
the worst privacy-loss ratio Pr[M(c) = z] / Pr[M(c') = z] over ordered neighbours |c - c'| = 1
in BOTH directions, infinite where q = 0 < p (Definition 2.1); the hockey-stick divergence
sum_z max(0, P(z) - r Q(z)) (Definition 2.3) and its certified value at r = e^eps; the
statistical distance (Definition 2.9); the exact smallest accuracy a (Definition 4.2); whether
the operation trace is the same for every c in [0, n] and u in [d]_+ (strict time); the
exact law of a sampling program under the exploring source; certified enclosures of e^x."""
PROOF_IDEA = """Each quantity is recomputed from its definition by proofs/_brute_force.py (plain
Fractions, no exactdp import: laws by counting u, ratios by a double loop over ordered pairs,
distances by maxima over all events, accuracy by counting a up, e^x by Taylor sums with a
remainder bound) on a corpus of small toy mechanisms chosen to break a careless checker:
asymmetric ones (the forward and reverse ratios differ: 4 against 7/4), infinite-loss and
zero-mass outcomes, d = 1, n = 0, non-monotone ones, lying CDF hints, outputs outside [0, n],
and strict-time violations planted only at c = n, u = 1 or u = d.  One certificate per
property; tests/test_checker_mutants.py shows each property failing on planted single-point
bugs in the checker (a dropped direction, a skipped last input, < for <=, min for max, a wrong
branch weight, an upper bound rounded down)."""

#: (what is checked, the property) -- each raises when the checker disagrees.
PROPERTIES: list[tuple[str, Callable[[], None]]] = [
    ("laws of M(c, U): enumeration and threshold search, every c", props.prop_distributions),
    ("non-monotone mechanisms: refused with a true witness or consistent", props.prop_scrambled),
    ("a lying CDF hint does not change the law", props.prop_lying_hint),
    ("outputs outside [0, n] are refused", props.prop_leaving_range),
    ("worst neighbour ratio, both directions, infinite loss", props.prop_ratio),
    ("certify_ratio against e^eps (near ties)", props.prop_certify),
    ("statistical distance and hockey-stick divergence", props.prop_distances),
    ("hockey-stick at e^eps, certified interval", props.prop_hockey_stick_eps),
    ("exact smallest accuracy a", props.prop_accuracy),
    ("strict-time check: violations at c = n, u = 1, u = d found", props.prop_strict_time),
    ("operation traces recorded", props.prop_trace),
    ("exploring source: exact laws of sampling programs", props.prop_explore),
    ("certified enclosures of e^x and logarithms", props.prop_certified),
]


def check(full: bool) -> ClaimReport:
    certs = []
    for what, prop in PROPERTIES:
        try:
            prop()
            verdict, worst = True, "agrees with the brute force"
        except Exception as exc:  # noqa: BLE001 - any disagreement is this property's FAIL
            verdict, worst = False, f"{type(exc).__name__}: {str(exc)[:200]}"
        certs.append(Certificate(CLAIM, prop.__name__, {}, what, worst,
                                 "equal to the brute force", verdict))
    failed = [c.mechanism for c in certs if not c.verdict]
    return ClaimReport(
        CLAIM, f"{len(PROPERTIES)} properties over fixed corpora of toy mechanisms "
               f"({len(props.CORPUS)} monotone, {len(props.SCRAMBLED)} scrambled)",
        "all agree" if not failed else "disagree: " + ", ".join(failed),
        "every checker function equals its brute-force definition", certs)
