"""The cost of ``exactdp account``'s exact figures: estimated before the work, and again
before the composition, refused past ``--max-seconds``, with progress on long runs.

The work has two parts.  First, for each noisy-count release of range ``[0, n]``, the exact
law of every count (``n + 1`` laws) and the privacy loss of every ordered pair of neighbouring
counts (``2 n`` losses): estimated up front by computing the laws of two middle counts and the loss of
their pair -- the same work on every count and pair, as the
laws have ``n + 1`` outcomes each -- and composing that pair's losses once (one combination
of the second part).  Second, every combination of the releases' distinct losses is
composed: once the distinct losses are known, their number times the measured time of one
combination is the estimate, checked before the composition starts.  The deadline of
``--max-seconds`` (processor time) stops whatever the estimates missed.
"""

from __future__ import annotations

import time
from typing import Any

from exactdp.cli._common import NS, duration, progress, refuse_if_slow

__all__ = ["AccountCost"]

#: Progress lines are printed when the composition is estimated above this (nanoseconds).
PROGRESS_NS = 5 * NS


class AccountCost:
    """The estimates, refusals and progress lines of one ``account`` run (limit in s)."""

    def __init__(self, releases: list[Any], limit: int) -> None:
        self.releases = releases
        self.limit = limit
        self.start = time.process_time_ns()
        self.combination_ns = 0

    def up_front(self) -> None:
        """Time one law, one pair loss and one combination; refuse the whole estimate past
        the limit before the laws of all counts are computed (the composition is timed
        only when its ratios stay under the accountant's cap)."""
        from exactdp.accounting.compose import compose
        from exactdp.accounting.loss import PrivacyLoss, law_of
        from exactdp.accounting.product import MAX_ATOMS
        from exactdp.accounting.releases import ratio_count_bound

        first_ns = 0
        parts = []
        for rel in self.releases:
            n = rel.mechanism.n
            c = n // 2 if n > 1 else 0
            t0 = time.process_time_ns()
            law0 = law_of(rel.mechanism, c)
            law1 = law_of(rel.mechanism, c + 1)
            t1 = time.process_time_ns()
            loss = PrivacyLoss.from_laws(law0, law1)
            hash(loss)  # the distinct losses are found by hashing them
            t2 = time.process_time_ns()
            first_ns += (n + 1) * max(1, (t1 - t0) // 2) + 2 * n * max(1, t2 - t1)
            parts.append((loss, rel.values))
        self._refuse(first_ns, "the laws of every count and the losses of every "
                               "neighbouring pair")
        if first_ns > PROGRESS_NS:
            progress(f"account: the exact laws of every count and the losses of every "
                     f"neighbouring pair (about {duration(first_ns)})")
        if ratio_count_bound(parts, MAX_ATOMS) > MAX_ATOMS:
            return  # the certified grid bounds take over; they are estimated on their own
        t0 = time.process_time_ns()
        compose(*(loss.power(k) for loss, k in parts))
        self.combination_ns = max(1, time.process_time_ns() - t0)
        self._refuse(first_ns + self.combination_ns,
                     "the laws, the pair losses and one composition")

    def before_compose(self, size: int) -> None:
        """The distinct losses are known: ``size`` combinations to compose exactly."""
        spent = time.process_time_ns() - self.start
        rest = size * self.combination_ns
        self._refuse(spent + rest, f"composing {size} combination(s) of the releases' "
                                   f"neighbouring pairs (after {duration(spent)} on the "
                                   f"laws)")
        if rest > PROGRESS_NS:
            progress(f"account: composing {size} combinations of neighbouring pairs "
                     f"exactly (about {duration(rest)})")

    def _refuse(self, ns: int, what: str) -> None:
        n = ", ".join(f"n = {r.mechanism.n} with {r.values} value(s)" for r in self.releases)
        refuse_if_slow(f"the exact figures ({what}; {n})", ns, self.limit,
                       "account for releases with smaller n or fewer values, or drop "
                       "--epsilon/--delta/--ratio for basic composition only")
