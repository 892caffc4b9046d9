"""Exact accuracy of histogram releases (Definitions 2.5-2.7), for the accuracy rows.

A release's accuracy is read off its exact output distribution, explored from the
implementation (:class:`exactdp.proofs._histograms.Distributions`).  For a dataset ``D`` and an
element ``x``, the error ``|h_x - c_x(D)|`` (``h_x = 0`` for an element a sparse release
does not list) has an exact law; the *smallest error at beta* is the least ``a`` with
``Pr[error <= a] >= 1 - beta``.  Then

* (a, beta)-per-query accuracy (Definition 2.5) holds exactly for ``a >=`` the maximum of the
  smallest errors over every ``D`` and ``x`` (Definition 2.7: only ``x`` with ``c_x > t``);
* (a, beta)-simultaneous accuracy (Definition 2.6) holds exactly for ``a >=`` the maximum
  over ``D`` of the smallest error of ``max_x |h_x - c_x|``.

Errors are invariant under relabelling ``X`` (relabel ``D`` and ``h`` together), so the
canonical datasets of :mod:`exactdp.proofs._histograms` cover every dataset; the symmetry itself is
checked by the privacy rows (and on a sample here).

Everything here is written independently of the algorithms' code: the error laws are
computed from the released bins, and :func:`keep_heavy_reference` (Algorithm 6.1 as a
product of ``M``'s laws followed by keeping the heaviest bins) is a second, separate
computation of KeepHeavy's exact law from ``M``'s per-count distributions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from math import gcd
from typing import TypeVar

from exactdp.certificate import Certificate
from exactdp.checker import Distribution
from exactdp.counting import TabulatedMechanism
from exactdp.proofs._histograms import Bins, Dist, Distributions, Rows

ErrorLaw = dict[int, Fraction]
K = TypeVar("K")


def smallest_error(law: Mapping[int, Fraction], beta: Fraction) -> int:
    """The least ``a >= 0`` with ``Pr[error <= a] >= 1 - beta`` (``law``: error -> mass)."""
    need = 1 - beta
    total = Fraction(0)
    for err in sorted(law):
        total += law[err]
        if total >= need:
            return err
    raise ValueError(f"error law of total mass {total} never reaches 1 - beta = {need}")


def _exact_sums(groups: Mapping[K, Sequence[Fraction]]) -> dict[K, Fraction]:
    """``{key: sum(values)}`` exactly: each sum over the least common denominator of its
    terms (one gcd per distinct denominator, one reduction) instead of one ``Fraction``
    addition, with its gcd, per term -- the same values."""
    out: dict[K, Fraction] = {}
    for key, values in groups.items():
        parts: dict[int, int] = {}
        for p in values:
            parts[p.denominator] = parts.get(p.denominator, 0) + p.numerator
        top, low = 0, 1
        for den, num in parts.items():
            g = gcd(low, den)
            m = den // g
            top = top * m + num * (low // g)
            low *= m
        out[key] = Fraction(top, low)
    return out


def counting_error_laws(dists: Sequence[Distribution]) -> list[ErrorLaw]:
    """``[law of |M(c, U) - c| for c in [n]]`` from ``M``'s per-count distributions."""
    out: list[ErrorLaw] = []
    for c, dist in enumerate(dists):
        terms: dict[int, list[Fraction]] = {}
        for z, p in dist.items():
            if p:
                terms.setdefault(abs(z - c), []).append(Fraction(p))
        out.append(_exact_sums(terms))
    return out


def counting_accuracy(dists: Sequence[Distribution], beta: Fraction) -> int:
    """``a_M(beta)``: the least ``a`` with ``Pr[|M(c,U) - c| <= a] >= 1 - beta`` for every
    ``c`` in ``[n]`` (Definition 4.2), from ``M``'s exact distributions."""
    return max(smallest_error(law, beta) for law in counting_error_laws(dists))


def simultaneous_success(dists: Sequence[Distribution], rows: Rows, size: int,
                         a: int) -> Fraction:
    """``prod_x Pr[|M(c_x, U) - c_x| <= a]``: the probability that BasicHistogram over all of
    ``X`` (independent bins, Theorem 5.2 ii-iii) is within ``a`` on every bin of ``D``."""
    return _simultaneous_success(counting_error_laws(dists), rows, size, a)


def _simultaneous_success(laws: Sequence[ErrorLaw], rows: Rows, size: int,
                          a: int) -> Fraction:
    """:func:`simultaneous_success` from the error laws of ``M`` (``laws[c]``)."""
    counts = Counter(rows)
    out = Fraction(1)
    for x in range(1, size + 1):
        law = laws[counts.get(x, 0)]
        out *= sum((p for e, p in law.items() if e <= a), Fraction(0))
    return out


def basic_simultaneous_accuracy(dists: Sequence[Distribution], datasets: Sequence[Rows],
                                size: int, beta: Fraction) -> int:
    """The exact smallest simultaneous error of BasicHistogram_{M,X} at ``beta`` over these
    datasets, from ``M``'s laws and independence (not from BasicHistogram's code).  ``M``'s
    error laws are computed once (they do not depend on the dataset)."""
    n = len(dists) - 1
    laws = counting_error_laws(dists)
    worst = 0
    for rows in datasets:
        a = 0
        while a < n and _simultaneous_success(laws, rows, size, a) < 1 - beta:
            a += 1
        worst = max(worst, a)
    return worst


@dataclass(frozen=True)
class ErrorLaws:
    """The exact error laws of one release on one dataset."""

    rows: Rows
    counts: dict[int, int]
    per_bin: dict[int, ErrorLaw]   # x -> law of |h_x - c_x|
    maximum: ErrorLaw              # law of max_x |h_x - c_x|


def error_laws(dist: Mapping[Bins, Fraction], rows: Rows, size: int) -> ErrorLaws:
    """Per-bin and simultaneous error laws of a release law ``dist`` on dataset ``rows``."""
    counts = dict(Counter(rows))
    per: dict[int, dict[int, list[Fraction]]] = {x: {} for x in range(1, size + 1)}
    worst: dict[int, list[Fraction]] = {}
    for h, p in dist.items():
        released = dict(h)
        top = 0
        for x in range(1, size + 1):
            e = abs(released.get(x, 0) - counts.get(x, 0))
            per[x].setdefault(e, []).append(p)
            top = max(top, e)
        worst.setdefault(top, []).append(p)
    return ErrorLaws(rows, counts, {x: _exact_sums(terms) for x, terms in per.items()},
                     _exact_sums(worst))


@dataclass(frozen=True)
class Smallest:
    """A smallest error and where it is attained (``x`` None for the simultaneous one)."""

    a: int | None            # None: no bin qualified (the claim is vacuous there)
    rows: Rows | None = None
    x: int | None = None


class AccuracyStudy:
    """Exact error laws of one release over a list of datasets (canonical ones: errors are
    relabelling-invariant)."""

    def __init__(self, dists: Distributions, datasets: Sequence[Rows]) -> None:
        self.size = dists.universe.size
        self.laws = [error_laws(dists(rows), rows, self.size) for rows in datasets]

    def per_query(self, beta: Fraction, above: int = -1) -> Smallest:
        """The exact smallest ``a`` of (a, beta)-per-query accuracy on counts ``> above``."""
        best = Smallest(None)
        for law in self.laws:
            for x, per in law.per_bin.items():
                if law.counts.get(x, 0) <= above:
                    continue
                a = smallest_error(per, beta)
                if best.a is None or a > best.a:
                    best = Smallest(a, law.rows, x)
        return best

    def simultaneous(self, beta: Fraction) -> Smallest:
        """The exact smallest ``a`` of (a, beta)-simultaneous accuracy."""
        best = Smallest(None)
        for law in self.laws:
            a = smallest_error(law.maximum, beta)
            if best.a is None or a > best.a:
                best = Smallest(a, law.rows)
        return best


def keep_heavy_reference(dists: Sequence[Distribution], rows: Rows, size: int) -> Dist:
    """KeepHeavy_M(D)'s exact law (Algorithm 6.1), computed here from ``M``'s per-count laws:
    independent noisy counts ``M(c_x, U)`` for every ``x`` in ``X`` (Theorem 5.2), then the
    bins strictly heavier than the ``(n+1)``-th heaviest noisy count.  Needs ``|X| >= n+1``."""
    n = len(dists) - 1
    counts = Counter(rows)
    laws = [[(z, p) for z, p in dists[counts.get(x, 0)].items() if p]
            for x in range(1, size + 1)]
    out: Dist = {}
    for choice in product(*laws):
        p = Fraction(1)
        for _, q in choice:
            p *= q
        values = [z for z, _ in choice]
        cut = sorted(values, reverse=True)[n]
        h = tuple((x, v) for x, v in enumerate(values, 1) if v > cut)
        out[h] = out.get(h, Fraction(0)) + p
    return out



def _at_most(law: Mapping[int, Fraction], a: int) -> Fraction:
    return sum((p for e, p in law.items() if e <= a), Fraction(0))


@dataclass(frozen=True)
class Dominance:
    """Result of :func:`dominance`: the smallest slack ``Pr_alg[E] - lower(E)`` over every
    checked event ``E`` and where it occurs (negative: the claimed inequality fails)."""

    slack: Fraction
    where: str
    events: int


def dominance(alg: Sequence[ErrorLaws], ref: Sequence[ErrorLaws], n: int, scale: Fraction,
              shift: Fraction) -> Dominance:
    """Check ``Pr_alg[E] >= scale * (Pr_ref[E] - shift)`` for every event
    ``E = {|h_x - c_x| <= a}`` (every dataset, every ``x``, every ``a`` in ``[0, n]``) and
    ``E = {max_x |h_x - c_x| <= a}``.  ``alg`` and ``ref`` list the same datasets."""
    worst: tuple[Fraction, str] | None = None
    events = 0
    for la, lr in zip(alg, ref):
        if la.rows != lr.rows:
            raise ValueError(f"dataset mismatch: {la.rows} vs {lr.rows}")
        pairs = [(f"x={x}", la.per_bin[x], lr.per_bin[x]) for x in la.per_bin]
        pairs.append(("max over x", la.maximum, lr.maximum))
        for name, pa, pr in pairs:
            for a in range(n + 1):
                events += 1
                slack = _at_most(pa, a) - scale * (_at_most(pr, a) - shift)
                if worst is None or slack < worst[0]:
                    worst = (slack, f"D={list(la.rows)}, {name}, a={a}")
    assert worst is not None
    return Dominance(worst[0], worst[1], events)


def guaranteed_error(ref: ErrorLaw, n: int, scale: Fraction, shift: Fraction,
                     beta: Fraction) -> int | None:
    """The least ``a`` with ``scale * (Pr_ref[error <= a] - shift) >= 1 - beta``: the error
    the dominance inequality guarantees at ``beta`` (None if no ``a <= n`` does)."""
    for a in range(n + 1):
        if scale * (_at_most(ref, a) - shift) >= 1 - beta:
            return a
    return None


def nonvacuous_certificate(claim: str, nonvacuous: int, total: int, what: str) -> Certificate:
    """The certificate that fails an accuracy row whose grid never made its bound bite:
    ``nonvacuous`` of ``total`` bounds on the grid were non-trivial (``what`` says how: below
    ``n``, with a count above the threshold, ...); the row passes only if it is > 0."""
    return Certificate(claim + " (non-vacuous)", "the whole grid", {"bounds": total},
                       f"{total} bounds", nonvacuous, f"> 0 bounds {what}", nonvacuous > 0)


def low_noise(n: int, d: int) -> TabulatedMechanism:
    """A counting mechanism with little noise: ``M(c, U)`` is ``c - 1`` and ``c + 1`` with
    probability ``1/d`` each and ``c`` otherwise, clamped to ``[n]`` (the clamped mass stays
    at ``c``), as an integer CDF table over ``[d]_+``.  It is not private for any ``eps <= 1``
    (``c + 2`` has mass 0 from ``c`` and ``1/d`` from ``c + 1``), which the accuracy parts of
    Theorems 6.2, 6.8 and 6.10 do not need: their proofs use only BasicHistogram's accuracy
    ``(a1, a2)``.  With it those bounds are below ``n`` on grids small enough to explore
    (GeoSample at ``eps <= 1`` needs ``n`` in the tens before ``2 a2 < n``)."""
    rows = []
    for c in range(n + 1):
        mass = [0] * (n + 1)
        for z, w in ((c - 1, 1), (c, d - 2), (c + 1, 1)):
            mass[z if 0 <= z <= n else c] += w
        row, total = [], 0
        for w in mass:
            total += w
            row.append(total)
        rows.append(row)
    return TabulatedMechanism(rows)


def describe(mech: object) -> str:
    """``repr(mech)``, shortened for :func:`low_noise` tables."""
    if isinstance(mech, TabulatedMechanism):
        return f"low-noise M (n={mech.n}, d={mech.d})"
    return repr(mech)
