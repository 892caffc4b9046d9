"""Threshold (Aumüller, Lebeda & Pagh: ALP-full Algorithm 6 = ALP-short Algorithm 3; Cormode et
al.),
exact and in strict time, and a large-universe route through paper 004's pure sparse histograms.

ALP-full Algorithm 6 adds ``Lap(1/eps)`` to **every** coordinate ``i`` in ``[d]`` and keeps
``v_i = x_i + eta_i`` when ``v_i >= t`` (both papers print "if y_i >= t": a slip for ``v_i``).  It
is ``eps``-DP as post-processing of the Laplace mechanism on all ``d``
coordinates (ALP-full Lemma 5.1, lost in the garbled text; cited by Lemma 5.3), and with
``t = ln(d/2)/eps`` a zero survives with probability ``1/d`` (ALP-full Lemma 5.2).

Exact replacements:

* the Laplace noise becomes the two-sided geometric of a rational ratio ``r``
  (:class:`exactdp.noise.ClampedGeometric`); on integer inputs the worst ratio of neighbouring
  inputs (one coordinate moved by 1) is exactly ``1/r``.  :meth:`ThresholdParams.for_epsilon`
  takes ``r = 1/(1 + eps1)``: ratio ``1 + eps1 <= e^eps1``, privacy loss ``ln(1 + eps1)``;
* the output is clamped to ``{t - 1, t, ..., hi}`` (post-processing): ``t - 1`` stands for
  "below the threshold" (dropped), ``hi`` is the public bound on the entries (values above it
  are reported as ``hi``).  One ``uniform(D)`` per coordinate, ``D`` fixed by ``(r, t, hi)``;
* ``t = ln(d/2)/eps1`` is irrational; :func:`minimal_threshold` takes the smallest integer
  ``t >= 1`` with ``r^t/(1 + r) <= 1/d`` (= the probability that a zero survives), decided
  exactly.  ``t >= 1`` keeps "released" and "non-zero" the same event.

:class:`Threshold` is the dense, ``O(d)``-time algorithm.  The usual sparse simulation of the
false positives (sample how many zeros survive, then where) is not strict-time and is **not**
implemented.  For universes too large to loop over, :class:`PureSparseThreshold` runs paper
004's PureSparseHistogram (Algorithm 6.9) with this noise; its docstring says exactly what
changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

from exactdp.histograms.data import Dataset, Universe
from exactdp.histograms.sparse import PureSparseHistogram
from exactdp.noise import ClampedGeometric, geometric_ratio
from exactdp.params import (
    DomainError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    inverse_integer,
    positive_fraction,
    positive_int,
)
from exactdp.randomness import RandomSource, default_source

__all__ = [
    "DENSE_LIMIT",
    "PureSparseThreshold",
    "Threshold",
    "ThresholdParams",
    "minimal_threshold",
    "threshold_input",
]

#: The dense Threshold draws noise for every key of ``[d]``: refused above this many keys.
DENSE_LIMIT = 1 << 20

#: :func:`minimal_threshold` gives up beyond this many candidate thresholds (r very near 1).
MAX_THRESHOLD = 1 << 20


def minimal_threshold(r: Fraction, universe: int) -> int:
    """The smallest integer ``t >= 1`` with ``r^t/(1 + r) <= 1/d`` (``d = universe``).

    ``r^t/(1 + r) = Pr[eta >= t]`` is the probability that a zero coordinate survives; the
    paper's ``t = ln(d/2)/eps`` makes the Laplace tail exactly ``1/d`` (ALP-full Lemma 5.2).  With
    ``r = a/b`` the test is the integer inequality ``d a^t b <= b^t (a + b)``.
    """
    r = geometric_ratio(r, "r")
    d = positive_int(universe, "universe")
    a, b = r.numerator, r.denominator
    at, bt = a, b
    for t in range(1, MAX_THRESHOLD + 1):
        if d * at * b <= bt * (a + b):
            return t
        at, bt = at * a, bt * b
    raise ResourceLimitError(f"no threshold t <= {MAX_THRESHOLD} has r^t/(1+r) <= 1/{d} at "
                             f"r = {r}: r is too close to 1")


@dataclass(frozen=True)
class ThresholdParams:
    """Public parameters of Threshold: ratio ``r`` in ``(0, 1)``, threshold ``t >= 1``, the
    public bound ``hi >= t`` on entries (top of the clamped output range) and the universe
    size ``d`` (keys ``1..d``).  Privacy does not depend on ``t`` (it is public)."""

    r: Fraction
    t: int
    hi: int
    d: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "r", geometric_ratio(self.r, "r"))
        for name in ("t", "hi", "d"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ParameterTypeError(f"{name} = {value!r:.60} must be an int")
        if self.t < 1:
            raise ParameterError(f"t = {self.t} must be >= 1 (t <= 0 would release zeros and "
                                 f"make 'released' differ from 'non-zero')")
        if self.hi < self.t:
            raise ParameterError(f"hi = {self.hi} must be >= t = {self.t}: with hi < t "
                                 f"nothing could ever be released")
        if self.d < 1:
            raise ParameterError(f"d = {self.d} must be >= 1")

    @classmethod
    def for_epsilon(cls, eps1: object, universe: object, hi: object,
                    ratio: object = None) -> ThresholdParams:
        """``r = 1/(1 + eps1)`` (worst ratio exactly ``1 + eps1 <= e^eps1``; or ``ratio`` if
        given, which must then be ``>= 1/(1 + eps1)``: a larger ``r`` is more noise, safe) and
        the minimal ``t`` (:func:`minimal_threshold`)."""
        eps = positive_fraction(eps1, "eps1")
        base = 1 / (1 + eps)
        r = base if ratio is None else geometric_ratio(ratio, "ratio")
        if r < base:
            raise ParameterError(f"ratio = {r} is below 1/(1 + eps1) = {base}: its worst ratio "
                                 f"1/r = {1 / r} would exceed 1 + eps1 (round r up, not down)")
        return cls.for_ratio(r, universe, hi)

    @classmethod
    def for_ratio(cls, r: object, universe: object, hi: object) -> ThresholdParams:
        """Ratio ``r`` as given and the minimal ``t`` for ``d = universe``."""
        q = geometric_ratio(r, "r")
        d = positive_int(universe, "universe")
        if isinstance(hi, bool) or not isinstance(hi, int):
            raise ParameterTypeError(f"hi = {hi!r:.60} must be an int")
        return cls(q, minimal_threshold(q, d), hi, d)

    @property
    def privacy_ratio(self) -> Fraction:
        """``1/r``: the exact worst ratio over integer inputs at l1 distance 1 (Lemma 5.1)."""
        return 1 / self.r

    @property
    def false_positive(self) -> Fraction:
        """``Pr[a zero coordinate is released] = Pr[eta >= t] = r^t/(1 + r)`` (ALP-full Lemma 5.2)."""
        return self.r ** self.t / (1 + self.r)

    @property
    def expected_false_positives(self) -> Fraction:
        """``(d - nnz) r^t/(1 + r) <= d r^t/(1 + r) <= 1``; this is the bound ``d r^t/(1+r)``."""
        return self.d * self.false_positive

    @cached_property
    def noise(self) -> ClampedGeometric:
        """``clamp_[t-1, hi](x + eta)`` for centres ``x`` in ``[0, hi]``."""
        return ClampedGeometric(self.r, self.t - 1, self.hi, 0, self.hi)

    @property
    def draws(self) -> int:
        """Uniform draws of one release: one per key of ``[d]``, whatever ``x``."""
        return self.d


def threshold_input(x: object, d: int, hi: int) -> dict[int, int]:
    """``x`` as ``{key: X}``: a mapping or a sequence of ``(key, X)`` pairs with distinct int
    keys in ``[1, d]`` and int values in ``[0, hi]`` (absent keys are 0)."""
    if isinstance(x, Mapping):
        pairs: Sequence[object] = list(x.items())
    elif isinstance(x, Sequence) and not isinstance(x, (str, bytes)):
        pairs = x
    else:
        raise ParameterTypeError(f"x = {x!r:.60} must be a mapping {{key: value}} or a "
                                 f"sequence of (key, value) pairs")
    out: dict[int, int] = {}
    for item in pairs:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise ParameterTypeError(f"x: {item!r:.60} is not a (key, value) pair")
        key, value = item
        for name, v in (("key", key), ("value", value)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise ParameterTypeError(f"x: {name} {v!r:.60} must be an int")
        if not 1 <= key <= d:
            raise DomainError(f"x: key {key} is outside [1, d] = [1, {d}]")
        if key in out:
            raise DomainError(f"x: key {key} appears twice")
        if not 0 <= value <= hi:
            raise DomainError(f"x: value {value} of key {key} is outside [0, hi] = [0, {hi}] "
                              f"(hi is the public bound on the entries)")
        out[key] = value
    return out


class Threshold:
    """ALP-full Algorithm 6 with exact noise: ``v_i = clamp_[t-1, hi](x_i + eta_i)`` for **every**
    ``i`` in ``[d]``, ``eta_i`` i.i.d. two-sided geometric of ratio ``r``; release
    ``{i: v_i : v_i >= t}``.

    Preconditions: ``x`` non-negative integers ``<= hi`` on keys ``1..d``
    (:func:`threshold_input`).  Privacy: for integer ``x, x'`` with ``||x - x'||_1 <= 1`` every
    output's probability changes by a factor at most ``1/r`` (exactly ``1/r`` is attained;
    ``proofs/alp/alp_lemma_5_01_threshold.py``), so ``ln(1/r)``-DP; with ``r = 1/(1 + eps1)`` that is
    ``ln(1 + eps1) <= eps1``.  Output law: independent coordinates, ``Pr[i released with value
    v] = (1-r)/(1+r) r^|v - x_i|`` for ``t <= v < hi``, the tail above at ``hi``.
    Time: exactly ``d`` draws ``uniform(D)`` with ``D = params.noise.d``, each followed by a
    search of ``(hi - t + 1).bit_length()`` rounds (strict time; ``O(d)``).
    """

    def __init__(self, params: ThresholdParams) -> None:
        if not isinstance(params, ThresholdParams):
            raise ParameterTypeError(f"params = {params!r:.60} must be ThresholdParams")
        if params.d > DENSE_LIMIT:
            raise ResourceLimitError(
                f"Threshold adds noise to all d = {params.d} keys (limit {DENSE_LIMIT}); for "
                f"larger universes use PureSparseThreshold (paper 004's pure sparse route)")
        self.params = params

    def __repr__(self) -> str:
        return f"Threshold({self.params!r})"

    def release(self, x: object, source: RandomSource | None = None) -> dict[int, int]:
        p = self.params
        values = threshold_input(x, p.d, p.hi)
        src = default_source(source)
        noise = p.noise
        out: dict[int, int] = {}
        for key in range(1, p.d + 1):
            v = noise.sample_value(values.get(key, 0), src)
            if v >= p.t:
                out[key] = v
        return out


class PureSparseThreshold:
    """Threshold for universes too large to loop over (``d = 2^64``): paper 004's
    PureSparseHistogram (Algorithm 6.9, Theorem 6.10) with the counting mechanism
    ``M = ClampedGeometric(r, 0, n)``, ``r = 1/(1 + eps/2)`` (``ln(1/r) <= eps/2``, as Theorem
    6.10 asks of ``M``; for ``eps = 1/m``, ``r = 2m/(2m + 1)``, never more noise than GeoSample's
    ``2^k/(2^k + 1)``), then Threshold's own step 2 as post-processing: keep the released bins
    whose noisy count is ``>= t`` (default :func:`minimal_threshold` ``(r, d)``).  Strict time
    in ``log d`` (the module docstring of :mod:`exactdp.histograms.sparse`), no false-positive
    simulation.

    What changes against :class:`Threshold` (checked exactly on small universes in
    ``proofs/alp/alp_lemma_5_01_threshold.py``):

    * **input**: a histogram of a dataset of exactly ``n`` rows over ``[d]`` (entries sum to
      the public ``n``, so ``hi = n``), not any vector with entries ``<= hi``; ``t <= n`` is
      required (else nothing could be released: ``n`` must be about ``log(d)/eps`` or more);
    * **neighbours and guarantee**: datasets differing in one row (two coordinates move by 1,
      ``||x - x'||_1 = 2`` with ``n`` fixed): ``(eps, 0)``-DP with ``eps`` in ``N^{-1}``
      (Theorem 6.10 i; the threshold is post-processing).  Adding or removing a row changes
      ``n``, which is public: not covered (ALP's neighbours, l1 <= 1, are add/remove);
    * **which entries survive**: noisy count ``>= t`` **and** strictly above the ``(n+1)``-th
      largest noisy count over all of ``[d]`` (KeepHeavy, Algorithm 6.1).  With the same noise
      this is Threshold's output (``hi = n``) except on the event that at least ``n + 1``
      coordinates reach ``t``, so the statistical distance between KeepHeavy-then-``t`` and the
      dense Threshold is at most ``Pr[Threshold releases >= n + 1 keys]`` (checked exactly);
      without the ``t`` step KeepHeavy releases about ``n`` bins, mostly empty ones;
    * **output law**: with probability ``1 - beta_1`` SparseHistogram (within statistical
      distance ``delta = eps/3 beta_1 (1/(3d))^n`` of KeepHeavy, Theorem 6.8 i), otherwise a
      uniformly random sparse histogram, both then thresholded at ``t``; below ``d = 2n + 1``
      BasicHistogram over ``[d]`` (footnote 6), thresholded at ``t``: exactly Threshold's law.
    """

    def __init__(self, n: object, universe: object, epsilon: object, beta1: object,
                 t: object = None, strict: bool = True) -> None:
        self.n = positive_int(n, "n")
        self.universe = universe if isinstance(universe, Universe) else Universe(
            positive_int(universe, "universe"))
        self.epsilon = inverse_integer(epsilon, "epsilon")
        self.ratio = 1 / (1 + self.epsilon / 2)
        self.t = (minimal_threshold(self.ratio, self.universe.size) if t is None
                  else positive_int(t, "t"))
        if self.t > self.n:
            raise ParameterError(f"t = {self.t} exceeds n = {self.n}: no noisy count (at most "
                                 f"n) could reach it; use more rows, a larger epsilon or a "
                                 f"smaller t")
        self.mechanism = ClampedGeometric(self.ratio, 0, self.n)
        self.histogram = PureSparseHistogram(self.mechanism, self.universe, self.epsilon,
                                             beta1, strict=strict)

    def __repr__(self) -> str:
        return (f"PureSparseThreshold(n={self.n}, |X|={self.universe.size}, "
                f"epsilon={self.epsilon}, beta_1={self.histogram.beta1}, t={self.t})")

    def release(self, dataset: Dataset, source: RandomSource | None = None) -> dict[int, int]:
        """``{key: noisy count}`` of the released bins with noisy count ``>= t``."""
        return {k: c for k, c in self.histogram.release(dataset, source).bins if c >= self.t}
