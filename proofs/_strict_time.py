"""Shared machinery of the strict-time rows.

The strict-time claim of a sampler: run on the same coins, two private inputs of the same
public size produce the same **operation trace** -- the same sequence of uniform draws with
the same domain sizes, and the same sequence of the costly operations.  A trace here is:

* ``("uniform", d)`` for every ``uniform(d)`` the code draws (an inverse-CDF draw and a
  Bernoulli coin go through ``uniform`` on the sampling path, as with the real sources);
* every event the library records itself (:mod:`exactdp.trace`: search rounds, ApproxConvExp
  rounds, polynomial products, DistinctSample searches ...);
* ``("call", name)`` for every call of a function whose name is in :data:`OPERATIONS`, seen
  through :func:`sys.setprofile` -- so a loop whose length depends on the data shows even
  where it records nothing (the CDF evaluations, the certified dyadic arithmetic of
  ApproxBinSample's shortcut, the order-statistic tree's rank queries, field operations).

Coins are fixed per run (:class:`Coins`): all-lowest (every draw returns 1), all-highest
(every draw returns ``d``) and seeded streams, so that both ends of every draw's range are
covered.  Nothing here uses the exploring source: the trace is that of the sampling path.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from types import FrameType
from typing import Any

from exactdp.certificate import Certificate, ClaimReport
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms.data import Dataset, Universe
from exactdp.randomness import RandomSource, check_domain_size
from exactdp.trace import Event, record, recording

#: Functions whose every call is an operation of the trace (by code name).
OPERATIONS = frozenset({
    # inverse-CDF evaluations (counting mechanisms, OrdSample, ApproxBinSample, M0)
    "cdf", "search_cdf", "scaled_cdf_at_zero", "max_preimage",
    # ApproxBinSample: certified dyadic bounds and the paper's loop
    "certified_output", "at", "dmul", "dscale", "dadd", "dpow", "prefix_sums",
    "approx_conv_exp", "truncated_square", "truncated_product", "floor_divide",
    # DistinctSample's order-statistic tree
    "rank", "insert",
    # CompactHistogram's field arithmetic (pure path)
    "mul", "square", "inverse", "batch_inverse", "_product", "newton_coefficients",
    "newton_to_monomial", "interpolate", "from_index", "embed",
})

Trace = tuple[Event, ...]


class Coins(RandomSource):
    """Fixed coins: ``"low"`` (every draw is 1), ``"high"`` (every draw is ``d``),
    ``"seed:K"`` (a :class:`random.Random` stream, integers only) or ``"u:K"`` (every draw
    is ``K``, which must lie in ``[d]_+``).  Not for releases."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._rng = random.Random(int(kind[5:])) if kind.startswith("seed:") else None
        self._fixed = int(kind[2:]) if kind.startswith("u:") else None
        if self._rng is None and self._fixed is None and kind not in ("low", "high"):
            raise ValueError(f"coins kind {kind!r} must be 'low', 'high', 'seed:K' or 'u:K'")

    def uniform(self, d: int) -> int:
        check_domain_size(d)
        record("uniform", d)
        if self._rng is not None:
            return self._rng.randrange(d) + 1
        if self._fixed is not None:
            if not 1 <= self._fixed <= d:
                raise ValueError(f"fixed coin {self._fixed} is outside [1, {d}]")
            return self._fixed
        return 1 if self.kind == "low" else d

    def __repr__(self) -> str:
        return f"Coins({self.kind!r})"


#: The coins of the quick grids: both ends and two seeded streams.
QUICK_COINS = ("low", "high", "seed:1", "seed:2")
FULL_COINS = QUICK_COINS + tuple(f"seed:{k}" for k in range(3, 9))


def coins(full: bool) -> tuple[str, ...]:
    return FULL_COINS if full else QUICK_COINS


def traced(fn: Callable[[RandomSource], Any], kind: str,
           operations: frozenset[str] = OPERATIONS,
           coins_class: type[Coins] = Coins) -> tuple[Trace, Any]:
    """``(trace, output)`` of ``fn(coins_class(kind))``."""

    def hook(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and frame.f_code.co_name in operations:
            record("call", frame.f_code.co_name)

    with recording() as events:
        previous = sys.getprofile()
        sys.setprofile(hook)
        try:
            out = fn(coins_class(kind))
        finally:
            sys.setprofile(previous)
    return tuple(events), out


@dataclass(frozen=True)
class Comparison:
    """Traces of several labelled inputs on the same coins, against the first one's."""

    runs: int
    trace_length: int
    mismatch: dict[str, Any] | None

    @property
    def ok(self) -> bool:
        return self.mismatch is None


def first_difference(a: Sequence[Event], b: Sequence[Event]) -> dict[str, Any]:
    """Where two traces part: the index and a few events of each from there."""
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return {"index": i, "lengths": [len(a), len(b)],
            "reference": [list(map(str, e)) for e in a[i:i + 3]],
            "this": [list(map(str, e)) for e in b[i:i + 3]]}


def compare(inputs: Iterable[tuple[str, Callable[[RandomSource], Any]]],
            kinds: Iterable[str],
            normalise: Callable[[Trace, Any], Trace] | None = None, *,
            across_coins: bool = False, coins_class: type[Coins] = Coins) -> Comparison:
    """Run every input on every coin kind; each kind's traces must all equal the first
    input's (with ``across_coins``: one reference for every kind, for claims that the trace
    does not depend on the coins either).  ``normalise(trace, output)`` may rewrite a trace
    first (to strip a dependence the docstring documents, after checking it).  At least two
    inputs are needed: a comparison of one input with itself proves nothing."""
    cases = list(inputs)
    if len(cases) < 2:
        raise ValueError("compare: at least two inputs are needed")
    runs, length = 0, 0
    reference: Trace | None = None
    ref_label = ""
    for kind in kinds:
        if not across_coins:
            reference = None
        for label, fn in cases:
            tr, out = traced(fn, kind, coins_class=coins_class)
            if normalise is not None:
                tr = normalise(tr, out)
            runs += 1
            if reference is None:
                reference, ref_label, length = tr, f"{label} on {kind}", max(length, len(tr))
            elif tr != reference:
                return Comparison(runs, length, {"coins": kind, "reference_input": ref_label,
                                                 "input": label,
                                                 **first_difference(reference, tr)})
    return Comparison(runs, length, None)


def partitions(n: int) -> list[tuple[int, ...]]:
    """The partitions of ``n`` (count profiles of a dataset of ``n`` rows), largest first."""
    out: list[tuple[int, ...]] = []

    def rec(left: int, top: int, acc: tuple[int, ...]) -> None:
        if left == 0:
            out.append(acc)
        for part in range(min(left, top), 0, -1):
            rec(left - part, part, acc + (part,))

    rec(n, n, ())
    return out


def datasets(n: int, size: int, full: bool) -> list[tuple[int, ...]]:
    """Datasets of ``n`` rows over ``[size]_+`` that differ in what strict time must hide:
    every count profile (so every ``|A|`` from 1 to ``n`` and every multiset of counts),
    placed on the smallest elements, on the largest, and alternating (elements that the
    all-lowest coins' draws would pick, and elements they would not)."""
    out: list[tuple[int, ...]] = []
    profiles = partitions(n)
    if not full and len(profiles) > 6:
        profiles = profiles[:3] + profiles[-3:]
    for profile in profiles:
        k = len(profile)
        placements = [list(range(1, k + 1)), list(range(size - k + 1, size + 1)),
                      [1 + (j * (size - 1)) // max(1, k - 1) for j in range(k)]]
        for elements in placements[:3 if full else 2] if k < size else placements[:1]:
            if len(set(elements)) < k:
                continue
            rows = tuple(x for x, c in zip(elements, profile) for _ in range(c))
            if rows not in out:
                out.append(rows)
    return out


def sparse_mechanisms(full: bool) -> list[InverseCDFSampler]:
    """The counting mechanisms the sparse strict-time rows (KH', Sparse, PureSparse) use."""
    out: list[InverseCDFSampler] = [GeoSample(2, 1), FastSample(3, 1, Fraction(1, 2))]
    if full:
        out += [GeoSample(3, Fraction(1, 2)), GeoSample(4, 1)]
    return out


def _release(alg: Any, universe: Universe, rows: tuple[int, ...], source: RandomSource) -> Any:
    return alg.release(Dataset.of(universe, rows), source)


def sparse_certificates(make: Callable[..., Any], mechanisms: Sequence[InverseCDFSampler],
                        sizes: Callable[[int], list[int]], paddings: Sequence[bool], full: bool,
                        label: str, claim: str) -> tuple[list[Certificate], int]:
    """Strict-mode certificates for the histogram built by ``make(mechanism, universe,
    strict, padded)`` on every mechanism, every universe size in ``sizes(n)`` and every
    ``padded`` in ``paddings``; on ``|X| = 2n + 1`` also a certificate that the printed mode
    (``strict=False``) has traces that DIFFER across the same datasets -- the comparison's
    power on this grid.  Returns the certificates and the number of traced runs."""
    certs: list[Certificate] = []
    total = 0
    for mech in mechanisms:
        n = mech.n
        for size in sizes(n):
            universe = Universe(size)
            data = datasets(n, size, full)
            for padded in paddings:
                alg = make(mech, universe, True, padded)
                inputs = [(str(rows), partial(_release, alg, universe, rows)) for rows in data]
                cmp = compare(inputs, coins(full))
                total += cmp.runs
                params: dict[str, Any] = {"n": n, "|X|": size, "strict": True}
                if len(paddings) > 1:
                    params["padded_order_statistics"] = padded
                certs.append(Certificate(
                    claim, repr(alg), params,
                    f"{len(data)} datasets x {len(coins(full))} coin streams",
                    cmp.trace_length, "identical operation traces for every dataset", cmp.ok,
                    {"first_difference": cmp.mismatch} if cmp.mismatch else {}))
            if size == 2 * n + 1:
                printed = make(mech, universe, False, False)
                inputs = [(str(rows), partial(_release, printed, universe, rows))
                          for rows in data]
                cmp = compare(inputs, coins(full)[:1])
                total += cmp.runs
                certs.append(Certificate(
                    claim + ": power", repr(printed), {"n": n, "|X|": size, "strict": False},
                    f"{len(data)} datasets", None,
                    f"as printed, {label}'s traces differ with |A| (the check can fail)",
                    not cmp.ok, {"first_difference": cmp.mismatch}))
    return certs, total


def sparse_report(claim: str, certs: list[Certificate], what: str, full: bool,
                  total: int) -> ClaimReport:
    """The row of :func:`sparse_certificates`."""
    strict = [c for c in certs if c.parameters.get("strict")]
    power = [c for c in certs if not c.parameters.get("strict")]
    return ClaimReport(
        claim, f"{what}; {'every' if full else 'a spread of'} count profile(s) of n rows placed "
        f"low and high{' and spread' if full else ''}; coins u = 1, u = d, seeded "
        f"({total} traced runs)",
        f"{sum(c.verdict for c in strict)}/{len(strict)} strict settings with one trace per "
        f"coin stream; printed mode differs with |A| on {sum(c.verdict for c in power)}/"
        f"{len(power)}", "identical operation traces across datasets of the same n", certs)
