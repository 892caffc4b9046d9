"""Accuracy guarantees of the histogram algorithms (Figures 3, 4, 5) and the lower bounds
of Theorems 7.1 and 7.2, computed exactly with certified logarithms.

Every error bound in the figures has the form ``ceil(C * ln(x))`` with rational ``C``
(``2/eps`` for the ideal geometric mechanism, ``9/(2 eps)`` for GeoSample and FastSample,
because ``eps~ >= 4/9 eps``) and rational ``x``.  :func:`ceil_scaled_ln` decides that integer
exactly: ``ln x`` is enclosed in rational intervals (:func:`exactdp.certified.ln_interval`)
refined until both ends give the same ceiling, which always happens because ``C ln x`` is
irrational for rational ``x != 1`` (and 0 for ``x = 1``).

Definitions (Section 2.2.2): ``(a, beta)``-per-query accuracy bounds each bin's error with
probability ``1 - beta``; "on counts larger than t" restricts it to bins whose true count
exceeds ``t``; ``(a, beta)``-simultaneous accuracy bounds all bins at once.

Figures (``C = 9/(2 eps)`` except for the ideal geometric mechanism, ``C = 2/eps``):

* Figure 3, BasicHistogram over X, ``(eps, 0)``-DP: per-query ``ceil(C ln(1/beta))``
  (FastSample: ``ln(2/beta)``), simultaneous ``ceil(C ln(|X|/beta))`` (FastSample:
  ``ln(2|X|/beta)``, with ``gamma = beta0/(2|X|)``, ``beta >= beta0``).
* Figure 4, StabilityHistogram, ``(eps, delta)``-DP: threshold ``b``, per-query ``a`` on
  counts larger than ``t``, simultaneous error.
* Figure 5, PureSparseHistogram_{M,eps,beta/4}, ``(eps, 0)``-DP: per-query ``a`` on counts
  larger than ``t``, simultaneous error (FastSample with ``gamma = beta/(8|X|)``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

from exactdp.certificate import exact_json
from exactdp.certified import MAX_PRECISION_BITS, Interval, ln_interval
from exactdp.params import (
    ParameterError,
    ResourceLimitError,
    inverse_integer,
    positive_fraction,
    positive_int,
    to_fraction,
)

__all__ = [
    "MECHANISMS",
    "Guarantee",
    "LowerBound",
    "MechanismName",
    "ceil_scaled_ln",
    "decimal_string",
    "figure_3",
    "figure_4",
    "figure_5",
    "theorem_7_1_per_query",
    "theorem_7_1_simultaneous",
    "theorem_7_2_sparse",
]

MechanismName = Literal["GeometricMechanism", "GeoSample", "FastSample"]
MECHANISMS: tuple[MechanismName, ...] = ("GeometricMechanism", "GeoSample", "FastSample")


def _ceil(q: Fraction) -> int:
    return -((-q.numerator) // q.denominator)


def decimal_string(q: Fraction, digits: int = 3) -> str:
    """``q`` rounded toward zero to ``digits`` decimals, as text (display only).

    >>> decimal_string(Fraction(-7, 3))
    '-2.333'
    """
    sign = "-" if q < 0 else ""
    scaled = abs(q.numerator) * 10**digits // q.denominator
    whole, frac = divmod(scaled, 10**digits)
    return f"{sign}{whole}.{frac:0{digits}d}"


def ceil_scaled_ln(scale: object, x: object) -> int:
    """``ceil(scale * ln(x))`` for rationals ``scale > 0`` and ``x > 0``, exactly.

    >>> ceil_scaled_ln(Fraction(9, 2), 20)    # 4.5 ln 20 = 13.48...
    14
    >>> ceil_scaled_ln(2, Fraction(1, 2))     # 2 ln(1/2) = -1.386...
    -1
    """
    c = to_fraction(scale, "scale")
    v = to_fraction(x, "x")
    if c <= 0 or v <= 0:
        raise ParameterError(f"ceil_scaled_ln needs scale > 0 and x > 0, got {c}, {v}")
    if v == 1:
        return 0
    bits = 64 + c.numerator.bit_length()
    while bits <= MAX_PRECISION_BITS:
        box = ln_interval(v, bits)
        lo, hi = _ceil(c * box.lo), _ceil(c * box.hi)
        if lo == hi and c * box.lo != lo:  # c*lo exactly integer: ceiling not yet decided
            return lo
        bits *= 2
    raise ResourceLimitError(f"could not decide ceil({c} ln {v}) with {MAX_PRECISION_BITS} bits")


def _scale(mechanism: str, eps: Fraction) -> Fraction:
    if mechanism == "GeometricMechanism":
        return 2 / eps
    if mechanism in ("GeoSample", "FastSample"):
        return Fraction(9, 2) / eps
    raise ParameterError(f"mechanism = {mechanism!r} must be one of {', '.join(MECHANISMS)}")


def _beta(beta: object, name: str = "beta") -> Fraction:
    b = to_fraction(beta, name)
    if not 0 < b < 1:
        raise ParameterError(f"{name} = {b} must lie in (0, 1)")
    return b


@dataclass(frozen=True)
class Guarantee:
    """What the paper guarantees for one algorithm, mechanism and parameter setting.

    ``per_query`` is ``(a, beta)`` (on counts larger than ``per_query_threshold`` when that
    is not None); ``simultaneous`` is ``(a, beta)``; ``threshold_b`` is StabilityHistogram's
    ``b``.  ``source`` cites the theorem and figure.
    """

    algorithm: str
    mechanism: str
    privacy: str
    per_query: tuple[int, Fraction]
    simultaneous: tuple[int, Fraction]
    per_query_threshold: int | None = None
    threshold_b: int | None = None
    source: str = ""
    parameters: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "algorithm": self.algorithm, "mechanism": self.mechanism, "privacy": self.privacy,
            "per_query": {"error": str(self.per_query[0]), "beta": str(self.per_query[1]),
                          "on_counts_larger_than": (None if self.per_query_threshold is None
                                                    else str(self.per_query_threshold))},
            "simultaneous": {"error": str(self.simultaneous[0]),
                             "beta": str(self.simultaneous[1])},
            "source": self.source, "parameters": exact_json(self.parameters)}
        if self.threshold_b is not None:
            out["threshold_b"] = str(self.threshold_b)
        return out


def figure_3(mechanism: str, epsilon: object, beta: object, universe_size: int) -> Guarantee:
    """Figure 3 / Theorems 5.2, 5.3: BasicHistogram_{M,X}, ``(eps, 0)``-DP.

    For FastSample, ``gamma = beta0/(2|X|)`` (Theorem 5.3) and ``beta`` must be at least
    ``beta0``; pass ``beta = beta0`` for the guarantee at the parameters used.
    """
    eps = inverse_integer(epsilon, "epsilon")
    b = _beta(beta)
    size = positive_int(universe_size, "universe size")
    c = _scale(mechanism, eps)
    two = 2 if mechanism == "FastSample" else 1
    return Guarantee(
        "BasicHistogram", mechanism, f"({eps}, 0)-DP",
        (ceil_scaled_ln(c, two / b), b), (ceil_scaled_ln(c, two * size / b), b),
        source="Theorem 5.2/5.3, Figure 3",
        parameters={"epsilon": eps, "beta": b, "universe_size": size})


def figure_4(mechanism: str, epsilon: object, delta: object, beta: object,
             n: int) -> Guarantee:
    """Figure 4 / Theorems 5.5, 5.6: StabilityHistogram_{M,b}, ``(eps, delta)``-DP.

    For FastSample (Theorem 5.6) the per-query bound needs ``beta >= 2 gamma`` and the
    simultaneous one ``beta >= beta0``; pass ``beta = beta0``.
    """
    eps = inverse_integer(epsilon, "epsilon")
    dl = inverse_integer(delta, "delta", below_one=True)
    b = _beta(beta)
    n = positive_int(n, "n")
    c = _scale(mechanism, eps)
    if mechanism == "FastSample":
        thr, per, t, sim = 4 / dl, 2 / b, 8 / (b * dl), 8 * n / (b * dl)
    else:
        thr, per, t, sim = 2 / dl, 1 / b, 2 / (b * dl), 2 * n / (b * dl)
    return Guarantee(
        "StabilityHistogram", mechanism, f"({eps}, {dl})-DP",
        (ceil_scaled_ln(c, per), b), (2 + ceil_scaled_ln(c, sim), b),
        per_query_threshold=2 + ceil_scaled_ln(c, t),
        threshold_b=1 + ceil_scaled_ln(c, thr),
        source="Theorem 5.5/5.6, Figure 4",
        parameters={"epsilon": eps, "delta": dl, "beta": b, "n": n})


def figure_5(mechanism: str, epsilon: object, beta: object, universe_size: int) -> Guarantee:
    """Figure 5 / Theorem 6.11: PureSparseHistogram_{M,eps,beta/4}, ``(eps, 0)``-DP.

    GeoSample: ``a = ceil(C ln(4/beta))`` on counts larger than ``2 ceil(C ln(4|X|/beta))``,
    simultaneous ``2 ceil(C ln(2|X|/beta))``.  FastSample with ``gamma = beta/(8|X|)``:
    ``ln(8/beta)``, ``ln(8|X|/beta)``, ``ln(4|X|/beta)``.  Valid for every ``beta' >= beta``.
    """
    if mechanism not in ("GeoSample", "FastSample"):
        raise ParameterError(f"Figure 5 covers GeoSample and FastSample, not {mechanism!r}")
    eps = inverse_integer(epsilon, "epsilon")
    b = inverse_integer(beta, "beta")
    if b == 1:
        raise ParameterError("beta must be < 1 (beta_1 = beta/4 must be < 1 and accuracy "
                             "with failure probability 1 is void)")
    size = positive_int(universe_size, "universe size")
    c = _scale(mechanism, eps)
    f = 2 if mechanism == "FastSample" else 1
    return Guarantee(
        "PureSparseHistogram", mechanism, f"({eps}, 0)-DP",
        (ceil_scaled_ln(c, 4 * f / b), b),
        (2 * ceil_scaled_ln(c, 2 * f * size / b), b),
        per_query_threshold=2 * ceil_scaled_ln(c, 4 * f * size / b),
        source="Theorem 6.10/6.11, Figure 5",
        parameters={"epsilon": eps, "beta": b, "universe_size": size})


# --------------------------------------------------------------------------- lower bounds

Term = Callable[[int], Interval]


def _exact(q: Fraction) -> Term:
    return lambda bits: Interval(q, q)


def _log_term(scale: Fraction, x: Fraction) -> Term:
    """``scale * ln(x) - 1`` as an interval at the given precision."""
    def term(bits: int) -> Interval:
        if x == 1:
            return Interval(Fraction(-1), Fraction(-1))
        box = ln_interval(x, bits)
        lo, hi = scale * box.lo - 1, scale * box.hi - 1
        return Interval(min(lo, hi), max(lo, hi))
    return term


@dataclass(frozen=True)
class LowerBound:
    """A certified lower bound on the error ``a``: the real bound lies in ``interval``, and
    every algorithm meeting the hypotheses has ``a >= at_least`` (the least integer at or
    above the bound; errors of integer counts are integers)."""

    claim: str
    interval: Interval
    at_least: int
    parameters: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"claim": self.claim, "interval": [str(self.interval.lo), str(self.interval.hi)],
                "approx": decimal_string(self.interval.lo), "at_least": str(self.at_least),
                "parameters": exact_json(self.parameters)}


def _half_min(claim: str, terms: list[Term], parameters: dict[str, Any]) -> LowerBound:
    bits = 64
    while bits <= MAX_PRECISION_BITS:
        boxes = [t(bits) for t in terms]
        lo = min(b.lo for b in boxes) / 2
        hi = min(b.hi for b in boxes) / 2
        if _ceil(lo) == _ceil(hi) and (lo == hi or _ceil(lo) != lo):
            return LowerBound(claim, Interval(lo, hi), max(_ceil(lo), 0), parameters)
        bits *= 2
    raise ResourceLimitError(f"could not decide the lower bound of {claim}")


def _common(epsilon: object, beta: object, delta: object) -> tuple[Fraction, Fraction,
                                                                      Fraction]:
    eps = positive_fraction(epsilon, "epsilon")
    b = to_fraction(beta, "beta")
    if not 0 < b <= Fraction(1, 2):
        raise ParameterError(f"beta = {b} must lie in (0, 1/2] (Theorems 7.1, 7.2)")
    dl = to_fraction(delta, "delta")
    if dl < 0:
        raise ParameterError(f"delta = {dl} must be >= 0")
    return eps, b, dl


def _delta_terms(eps: Fraction, dl: Fraction) -> list[Term]:
    # delta = 0: the middle term of the min is +infinity and drops out.
    return [] if dl == 0 else [_log_term(1 / eps, eps / (4 * dl))]


def theorem_7_1_per_query(epsilon: object, beta: object, delta: object, n: int) -> LowerBound:
    """Theorem 7.1 i: any ``(eps, delta)``-DP histogram with ``(a, beta)``-per-query accuracy
    has ``a >= 1/2 min{ln(1/(4 beta))/eps - 1, ln(eps/(4 delta))/eps - 1, n}``."""
    eps, b, dl = _common(epsilon, beta, delta)
    n = positive_int(n, "n")
    terms = [_log_term(1 / eps, 1 / (4 * b)), *_delta_terms(eps, dl), _exact(Fraction(n))]
    return _half_min("Theorem 7.1 (i)", terms, {"epsilon": eps, "beta": b, "delta": dl, "n": n})


def theorem_7_1_simultaneous(epsilon: object, beta: object, delta: object, n: int,
                             universe_size: int) -> LowerBound:
    """Theorem 7.1 ii: with ``(a, beta)``-simultaneous accuracy,
    ``a >= 1/2 min{ln((|X|-1)/(4 beta))/eps - 1, ln(eps/(4 delta))/eps - 1, n}``."""
    eps, b, dl = _common(epsilon, beta, delta)
    n = positive_int(n, "n")
    size = positive_int(universe_size, "universe size")
    if size < 2:
        raise ParameterError("Theorem 7.1 ii needs |X| >= 2")
    terms = [_log_term(1 / eps, (size - 1) / (4 * b)), *_delta_terms(eps, dl),
             _exact(Fraction(n))]
    return _half_min("Theorem 7.1 (ii)", terms,
                     {"epsilon": eps, "beta": b, "delta": dl, "n": n, "universe_size": size})


def theorem_7_2_sparse(epsilon: object, beta: object, delta: object, n: int,
                       universe_size: int, n_prime: int | None = None) -> LowerBound:
    """Theorem 7.2: an ``(eps, delta)``-DP algorithm whose outputs have at most ``n'``
    nonzero bins and ``(a, beta)``-per-query accuracy has
    ``a >= 1/2 min{ln(|X|/(16 beta n'))/(2 eps) - 1, ln(eps/(4 delta))/eps - 1, n}``
    (default ``n' = n``, as for the sparse algorithms here)."""
    eps, b, dl = _common(epsilon, beta, delta)
    n = positive_int(n, "n")
    size = positive_int(universe_size, "universe size")
    npr = n if n_prime is None else positive_int(n_prime, "n'")
    terms = [_log_term(1 / (2 * eps), Fraction(size) / (16 * b * npr)),
             *_delta_terms(eps, dl), _exact(Fraction(n))]
    return _half_min("Theorem 7.2", terms, {"epsilon": eps, "beta": b, "delta": dl, "n": n,
                                            "universe_size": size, "n_prime": npr})
