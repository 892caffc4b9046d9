"""The cost of ``exactdp account``'s exact figures: estimated before the work, and again
before the composition, refused past ``--max-seconds``, with progress on long runs.

The work has two parts.  First, for each noisy-count release of range ``[0, n]``, the exact
law of every count (``n + 1`` laws) and the privacy loss of every ordered pair of neighbouring
counts (``2 n`` losses): estimated up front by computing the law of count 0, the law of
count 1 and the loss of the pair ``(0, 1)`` -- the same work on every count and pair, as the
laws have ``n + 1`` outcomes each -- and composing that pair's losses once (one combination
of the second part).  Second, every combination of the releases' distinct losses is
composed: once the distinct losses are known, their number times the measured time of one
combination is the estimate, checked before the composition starts.  The deadline of
``--max-seconds`` (processor time) stops whatever the estimates missed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from exactdp.cli._common import NS, progress, refuse_if_slow

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
        self._every = 0
        self._size = 0

    def up_front(self) -> None:
        """Time one law, one pair loss and one combination; refuse the whole estimate past
        the limit before the laws of all counts are computed, and a composition whose
        number of distinct ratios would pass the accountant's cap before it is tried."""
        from exactdp.accounting.compose import compose
        from exactdp.accounting.loss import PrivacyLoss, law_of

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
            self._ratios(rel, loss)
            parts.append((loss, rel.values))
        self._refuse(first_ns, "the laws of every count and the losses of every "
                               "neighbouring pair")
        if first_ns > PROGRESS_NS:
            progress(f"account: the exact laws of every count and the losses of every "
                     f"neighbouring pair (about {max(1, first_ns // NS)} s)")
        t0 = time.process_time_ns()
        compose(*(loss.power(k) for loss, k in parts))
        self.combination_ns = max(1, time.process_time_ns() - t0)
        self._refuse(first_ns + self.combination_ns,
                     "the laws, the pair losses and one composition")

    @staticmethod
    def _ratios(rel: Any, loss: Any) -> None:
        """Refuse ``k`` values of a loss whose ``m`` ratios are on no common lattice when
        the ``k``-fold composition may have more distinct ratios than the accountant
        keeps: up to ``C(m + k - 1, k)``, one per multiset of ``k`` ratios (FastSample's
        reach that bound)."""
        from math import comb

        from exactdp.accounting.product import MAX_ATOMS
        from exactdp.params import ResourceLimitError

        m, k = len(loss), rel.values
        if k < 2 or loss.on_lattice or m < 2:
            return
        # comb grows fast: stop as soon as the cap is passed
        bound = comb(m + k - 1, min(k, m - 1)) if k < 64 or m < 64 else MAX_ATOMS + 1
        if bound > MAX_ATOMS:
            raise ResourceLimitError(
                f"{rel.path}: {k} values of a count whose neighbouring pairs' privacy loss "
                f"has {m} ratios on no common lattice compose to up to {_digits(bound)} "
                f"distinct ratios, over the {MAX_ATOMS} the accountant keeps exactly; "
                f"account for fewer values at once (nothing was run)")

    def before_compose(self, size: int) -> None:
        """The distinct losses are known: ``size`` combinations to compose."""
        spent = time.process_time_ns() - self.start
        rest = size * self.combination_ns
        self._refuse(spent + rest, f"composing {size} combination(s) of the releases' "
                                   f"neighbouring pairs (after {spent * 10 // NS / 10} s on "
                                   f"the laws)")
        self._size = size
        if rest > PROGRESS_NS:
            self._every = max(1, size * (2 * NS) // rest)  # a line about every 2 s
            progress(f"account: composing {size} combinations of neighbouring pairs "
                     f"exactly (about {max(1, rest // NS)} s)")

    def on_combination(self, i: int) -> None:
        if self._every and (i % self._every == 0 or i == self._size):
            progress(f"account: {i} of {self._size} combinations composed")

    def _refuse(self, ns: int, what: str) -> None:
        n = ", ".join(f"n = {r.mechanism.n} with {r.values} value(s)" for r in self.releases)
        refuse_if_slow(f"the exact figures ({what}; {n})", ns, self.limit,
                       "account for releases with smaller n or fewer values, or drop "
                       "--epsilon/--delta/--ratio for basic composition only")

    def hooks(self) -> tuple[Callable[[int], None], Callable[[int], None]]:
        return self.before_compose, self.on_combination


def _digits(x: int) -> str:
    text = str(x)
    return text if len(text) <= 12 else f"about 10^{len(text) - 1}"
