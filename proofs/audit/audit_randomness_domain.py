"""The white-box audit's guard on the randomness domain stops a run exactly when the product
of its draws' domain sizes exceeds the declared size ``[d]_+``, never earlier and never later."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import prod
from typing import Any

from exactdp.audit import whitebox_audit
from exactdp.audit.guard import Abort
from exactdp.audit.per_input import GuardedSource
from exactdp.certificate import Certificate, ClaimReport
from exactdp.randomness import CallableSource, RandomSource

CLAIM = "Audit randomness-domain guard: refuses a path exactly when its draws exceed [d]_+"
STATEMENT = """A mechanism f(c, source) audited white-box with a declared randomness domain of
size d (randomness_size, --randomness-size) may draw, along any path, from domains d_1, d_2,
... only while d_1 d_2 ... d_i <= d: the guard (GuardedSource) lets draw i through iff that
product is at most d, and otherwise stops the audit at draw i with the finding
"randomness_domain" (verdict broken) -- for uniform(d_i), bernoulli(num, d_i),
inverse_cdf(draw with d = d_i) and uniform_many alike."""
PROOF_IDEA = """Brute force on the guard itself: sequences of draw sizes (small, 1s, a 2^53 and
10^6, four 2s...) in each draw method, against limits at every prefix product and one
below and above it (the boundary where a halved or doubled guard differs), and no limit;
the draw the guard stops at (or none) must be the first i whose prefix product exceeds the
limit.  End to end, whitebox_audit on a mechanism drawing uniform(6) then uniform(7):
randomness_size 42 passes, 41 is broken with the finding randomness_domain."""


@dataclass(frozen=True)
class _Draw:
    """An inverse-CDF draw over ``[d]_+`` with two outputs (enough to be charged)."""

    d: int
    n: int = 1

    def cdf(self, z: int) -> int:
        return self.d if z >= 1 else self.d // 2

    def search(self, u: int) -> int:
        return 0 if u <= self.d // 2 else 1


Method = Callable[[RandomSource, int], Any]
METHODS: dict[str, Method] = {
    "uniform": lambda s, d: s.uniform(d),
    "bernoulli": lambda s, d: s.bernoulli(1, d),
    "inverse_cdf": lambda s, d: s.inverse_cdf(_Draw(d)),
    "uniform_many": lambda s, d: s.uniform_many(d, 1),
}
QUICK_SIZES: tuple[tuple[int, ...], ...] = ((2,), (6, 7), (2, 2, 2, 2), (1, 1, 5),
                                            (10**6, 3), (1 << 53, 1 << 11))
FULL_SIZES = QUICK_SIZES + ((3, 1, 3, 1, 3), (7, 11, 13, 17, 19), ((1 << 64) + 1, 2))


def stopped_at(sizes: Sequence[int], limit: int | None, method: Method) -> int | None:
    """The index of the draw the guard stops (None: every draw went through)."""
    src = GuardedSource(CallableSource(lambda d: 1), limit, 0)
    for i, d in enumerate(sizes):
        try:
            method(src, d)
        except Abort as stop:
            if stop.finding.kind != "randomness_domain":
                raise
            return i
    return None


def first_over(sizes: Sequence[int], limit: int | None) -> int | None:
    """Brute force: the first ``i`` with ``d_1 ... d_i > limit``."""
    if limit is None:
        return None
    return next((i for i in range(len(sizes)) if prod(sizes[:i + 1]) > limit), None)


def guard_certificate(full: bool) -> Certificate:
    wrong = []
    cases = stopping = 0
    for sizes in FULL_SIZES if full else QUICK_SIZES:
        limits: set[int | None] = {None, 1}
        for i in range(len(sizes)):
            p = prod(sizes[:i + 1])
            limits |= {p - 1, p, p + 1}
        for name, method in METHODS.items():
            for limit in sorted(limits, key=lambda v: -1 if v is None else v):
                got, want = stopped_at(sizes, limit, method), first_over(sizes, limit)
                cases += 1
                stopping += want is not None
                if got != want:
                    wrong.append({"sizes": list(sizes), "limit": limit, "method": name,
                                  "stopped_at": got, "should_stop_at": want})
    return Certificate(f"{CLAIM} (the guard)", "GuardedSource", {"cases": cases},
                       f"{cases} (draw sizes, limit, method) cases, {stopping} of them past "
                       f"the limit", len(wrong), "0 cases stop at another draw", not wrong,
                       {"wrong": wrong[:6]})


def _six_then_seven(c: int, source: RandomSource) -> int:
    return (source.uniform(6) + source.uniform(7) + c) % 2


def audit_certificate() -> Certificate:
    verdicts = {}
    kinds = {}
    for size in (41, 42, 43):
        rep = whitebox_audit(_six_then_seven, inputs=range(2), claimed_epsilon=1,
                             kind="source", randomness_size=size,
                             time_limit=None,  # no wall-clock limit: load must not matter
                             hash_seed_check=False)  # the guard alone, in this process
        verdicts[size] = rep.verdict
        kinds[size] = [f.kind for f in rep.findings]
    ok = (verdicts[41] == "broken" and "randomness_domain" in kinds[41]
          and all(verdicts[s] != "broken" and "randomness_domain" not in kinds[s]
                  for s in (42, 43)))
    return Certificate(f"{CLAIM} (whitebox_audit)", "uniform(6) then uniform(7)",
                       {"randomness_size": [41, 42, 43]}, "inputs 0, 1; 42 paths each",
                       str(verdicts), "41 broken (randomness_domain); 42, 43 not", ok,
                       {"verdicts": verdicts, "findings": kinds})


def check(full: bool) -> ClaimReport:
    certs = [guard_certificate(full), audit_certificate()]
    return ClaimReport(CLAIM, certs[0].domain + "; an audit at d = 41, 42, 43",
                       f"{certs[0].worst} cases wrong; audit {certs[1].worst}",
                       "stop exactly past the product", certs)
