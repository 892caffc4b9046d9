"""The exact numbers behind every picture: pmfs, privacy losses and accuracies, as Fractions.

Nothing here is simulated or drawn.  A counting mechanism's law is read off the
implementation by the checker (:func:`exactdp.checker.counting_distribution`: thresholds or
enumeration of ``u`` in ``[d]_+``); the ideal law beside it is the paper's closed form
(Theorem 4.7 i for GeoSample, Lemma 4.12 for ``Z'`` clamped and FastSample).  The privacy
loss of an outcome ``o`` between inputs ``a`` and ``b`` is ``ln(P_a(o) / P_b(o))``, kept as the
exact ratio with a certified enclosure of its logarithm (:func:`exactdp.certified.ln_interval`);
the drawing code (:mod:`exactdp.plot.draw`) is the only place a float appears.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from exactdp.certified import Interval, ln_interval
from exactdp.checker import Method, counting_distribution, exact_accuracy, worst_neighbour_ratio
from exactdp.claims import Claim
from exactdp.params import ParameterError, ParameterTypeError, to_fraction

__all__ = [
    "AccuracyRow",
    "LossBar",
    "LossData",
    "PmfData",
    "accuracy_rows",
    "claimed_epsilon",
    "ideal_law",
    "loss_bars",
    "mechanism_title",
    "pmf_data",
    "privacy_loss_data",
]

LossKind = Literal["finite", "+inf", "-inf", "undefined"]

#: Default failure probabilities of :func:`accuracy_rows` (``beta = 1/m``, as the paper needs).
DEFAULT_BETAS: tuple[Fraction, ...] = tuple(Fraction(1, m) for m in
                                            (2, 3, 4, 5, 8, 10, 20, 50, 100, 1000, 10000))


def _sampler(mech: object) -> Any:
    if not callable(mech) or not all(hasattr(mech, a) for a in ("n", "d", "cdf")):
        raise ParameterTypeError(f"mechanism = {mech!r} must be a counting mechanism M(c, u) "
                                 f"with n, d and cdf, such as GeoSample or FastSample")
    return mech


def mechanism_title(mech: object) -> str:
    """The mechanism and its parameters in words, for titles: ``GeoSample (Algorithm 4.8),
    n = 8, eps = 1/2 (k = 2)``."""
    from exactdp.counting import FastSample, GeoSample, TruncatedGeoSample

    if isinstance(mech, GeoSample):
        return f"GeoSample (Algorithm 4.8), n = {mech.n}, eps = {mech.epsilon} (k = {mech.k})"
    if isinstance(mech, FastSample):
        return (f"FastSample (Algorithm 4.11), n = {mech.n}, eps = {mech.epsilon}, "
                f"gamma = {mech.gamma} (k = {mech.k}, t = {mech.t})")
    if isinstance(mech, TruncatedGeoSample):
        f = mech.fast
        return (f"Z' clamped to [0, {f.n}] (Lemma 4.12 i), eps = {f.epsilon} "
                f"(k = {f.k}, t = {f.t})")
    return repr(mech)


def ideal_law(mech: object, c: int) -> dict[int, Fraction] | None:
    """The paper's closed-form law at ``c`` (not derived from ``F``), or None if the paper
    gives none: Theorem 4.7 i (GeoSample), Lemma 4.12 ii (FastSample), Lemma 4.12 i
    (``Z'`` clamped, :class:`~exactdp.counting.TruncatedGeoSample`), or the mechanism's own
    ``law(c)`` (:class:`~exactdp.noise.ClampedGeometric`)."""
    from exactdp.counting import TruncatedGeoSample

    if isinstance(mech, TruncatedGeoSample):
        return mech.fast.ideal_truncated(c)
    for name in ("ideal_distribution", "law"):
        fn = getattr(mech, name, None)
        if fn is not None:
            return dict(fn(c))
    return None


@dataclass(frozen=True)
class PmfData:
    """``Pr[M(c, U) = z]`` for ``z`` in ``[0, n]`` from the implementation, and the ideal law."""

    title: str
    count: int
    outcomes: tuple[int, ...]
    exact: tuple[Fraction, ...]
    ideal: tuple[Fraction, ...] | None

    @property
    def distance(self) -> Fraction | None:
        """Statistical distance between the implementation's law and the ideal one."""
        if self.ideal is None:
            return None
        return sum((abs(p - q) for p, q in zip(self.exact, self.ideal, strict=True)),
                   Fraction(0)) / 2


def pmf_data(mech: object, count: int, method: Method = "auto") -> PmfData:
    """The exact pmf of ``mech`` at ``count`` read off the implementation by the checker,
    beside :func:`ideal_law`."""
    m = _sampler(mech)
    law = counting_distribution(m, count, method)
    outcomes = tuple(range(m.n + 1))
    ideal = ideal_law(m, count)
    return PmfData(mechanism_title(m), count, outcomes, tuple(law[z] for z in outcomes),
                   None if ideal is None else tuple(ideal.get(z, Fraction(0))
                                                    for z in outcomes))


@dataclass(frozen=True)
class LossBar:
    """One outcome's privacy loss ``ln(p / q)`` with ``p = P_a(o)``, ``q = P_b(o)``.

    ``kind``: ``"finite"`` (``p, q > 0``), ``"+inf"`` (``p > 0 = q``: the outcome proves the
    input was ``a``), ``"-inf"`` (``p = 0 < q``), ``"undefined"`` (both 0).
    """

    outcome: Any
    p: Fraction
    q: Fraction

    @property
    def kind(self) -> LossKind:
        if self.p > 0:
            return "finite" if self.q > 0 else "+inf"
        return "-inf" if self.q > 0 else "undefined"

    @property
    def ratio(self) -> Fraction | None:
        """``p / q`` when both are positive, else None."""
        return self.p / self.q if self.kind == "finite" else None

    def ln(self, bits: int = 64) -> Interval | None:
        """A certified interval of width about ``2**-bits`` containing ``ln(p / q)``."""
        r = self.ratio
        return None if r is None else ln_interval(r, bits)


def loss_bars(p: Mapping[Any, Fraction], q: Mapping[Any, Fraction],
              outcomes: Sequence[Any] | None = None) -> tuple[LossBar, ...]:
    """:class:`LossBar` for every outcome of ``p`` or ``q`` (in ``outcomes`` order if given,
    else sorted when the outcomes sort, else in order of appearance)."""
    zero = Fraction(0)
    if outcomes is None:
        keys = list(dict.fromkeys([*p, *q]))
        try:
            keys = sorted(keys)
        except TypeError:
            pass
        outcomes = keys
    return tuple(LossBar(o, Fraction(p.get(o, zero)), Fraction(q.get(o, zero)))
                 for o in outcomes)


@dataclass(frozen=True)
class LossData:
    """The privacy loss per outcome for the pair ``(a, b)`` and the claimed epsilon."""

    title: str
    a: Any
    b: Any
    bars: tuple[LossBar, ...]
    claimed_epsilon: Claim | None

    @property
    def worst(self) -> LossBar:
        """The bar with the largest loss (an infinite one first)."""
        inf = [b for b in self.bars if b.kind == "+inf"]
        if inf:
            return inf[0]
        finite = [b for b in self.bars if b.kind == "finite"]
        if not finite:
            raise ParameterError("no outcome has positive probability under both inputs")
        return max(finite, key=lambda b: b.ratio or 0)


def claimed_epsilon(mech: object) -> Fraction | None:
    """The paper's pure-DP claim for one released value, as ``ln`` of the ratio bound:
    ``eps/2`` for GeoSample (Theorem 4.7 i; exactly ``eps~/2 <= eps/2``) and FastSample
    (Theorem 4.10 i); None where the paper claims none (``Z'`` clamped is not DP)."""
    from exactdp.counting import FastSample, GeoSample

    if isinstance(mech, (GeoSample, FastSample)):
        return mech.epsilon / 2
    return None


def privacy_loss_data(mech: object, claimed: object = None, pair: tuple[int, int] | None = None,
                      method: Method = "auto") -> LossData:
    """The privacy loss ``ln(Pr[M(a) = z] / Pr[M(b) = z])`` per outcome ``z`` for the worst
    neighbouring pair ``(a, b)`` (``|a - b| = 1``, the pair and direction of
    :func:`exactdp.checker.worst_neighbour_ratio` over every count) or the given ``pair``.
    ``claimed`` defaults to :func:`claimed_epsilon`.  Costs ``n + 1`` exact laws (the
    worst pair needs all of them)."""
    m = _sampler(mech)
    eps = claimed_epsilon(m) if claimed is None else to_fraction(claimed, "claimed epsilon")
    if pair is None:
        dists = [counting_distribution(m, c, method) for c in range(m.n + 1)]
        w = worst_neighbour_ratio(dists)
        a, b = w.numerator_input, w.denominator_input
        p, q = dists[a], dists[b]
    else:
        a, b = pair
        p, q = counting_distribution(m, a, method), counting_distribution(m, b, method)
    return LossData(mechanism_title(m), a, b, loss_bars(p, q, range(m.n + 1)), eps)


@dataclass(frozen=True)
class AccuracyRow:
    """At failure probability ``beta``: the exact smallest ``a`` with
    ``Pr[|M(c) - c| <= a] >= 1 - beta`` for every ``c`` (Definition 4.2), and the paper's
    closed-form ``a`` (Theorem 4.7 i / 4.10 ii; None where it does not apply)."""

    beta: Fraction
    exact_a: int
    paper_a: int | None
    worst_count: int
    probability: Fraction


def accuracy_rows(mech: object, betas: Sequence[object] | None = None,
                  method: Method = "auto") -> tuple[AccuracyRow, ...]:
    """:class:`AccuracyRow` for each ``beta`` (default :data:`DEFAULT_BETAS`), from the
    ``n + 1`` exact laws of the implementation."""
    m = _sampler(mech)
    bs = DEFAULT_BETAS if betas is None else tuple(to_fraction(b, "beta") for b in betas)
    if not bs:
        raise ParameterError("accuracy_rows: give at least one beta")
    dists = [counting_distribution(m, c, method) for c in range(m.n + 1)]
    rows = []
    for beta in bs:
        if not 0 < beta < 1:
            raise ParameterError(f"beta = {beta} must lie strictly between 0 and 1")
        res = exact_accuracy(dists, beta)
        paper = getattr(m, "paper_accuracy", None)
        paper_a = None
        if paper is not None and beta > getattr(m, "gamma", 0):
            paper_a = paper(beta)
        rows.append(AccuracyRow(beta, res.a, paper_a, res.worst_count, res.probability))
    return tuple(rows)
