"""Threshold ALP (ALP-full Algorithms 7 and 8; ALP-short §4, Theorem 4.1), exact and strict-time.

ALP-full Algorithm 7 (Threshold ALP-projection), parameters ``alpha, eps1, eps2 > 0``, ``s > 2k``:

1. ``t = ln(d/2)/eps1``;
2. ``v~ = Threshold_{eps1, t}(x)`` (ALP-full Algorithm 6; :mod:`exactdp.sparse_vectors.threshold`);
3. ``(h, z~) = ALP-projection_{alpha, eps2, beta, s}(x, h)`` with ``m = ceil(beta eps2/alpha)``
   (printed with ``beta``, which is not a parameter of Algorithm 7: ``beta := t``);
4. release ``v~, h, z~``.

ALP-full Algorithm 8 (Threshold ALP-estimator): ``x~_i = v~_i`` if ``v~_i != 0``, otherwise
ALP-estimator ``(z~, h, i)``.

Exact version: Threshold with the clamped rational-ratio geometric and the minimal integer
``t`` (:class:`~exactdp.sparse_vectors.threshold.ThresholdParams`), ALP with exact
parameters (:class:`~exactdp.sparse_vectors.alp.ALPParams`, ``beta = t``).  ALP-full Lemma 5.3:
the two parts use independent coins, so by basic composition the worst ratio is at most the
product of the parts' worst ratios, ``(1/r) * e^{eps_cert}`` (checked exactly, and equal to the
product on a worked configuration, in ``proofs/alp/alp_lemma_5_03_threshold_alp.py``).
Integer inputs only (``grid = 1``): Threshold's noise is in the input's units.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from exactdp.hashing import HashFamily, Seed
from exactdp.params import DomainError, ParameterError, ParameterTypeError
from exactdp.randomness import RandomSource, default_source
from exactdp.sparse_vectors.alp import ALP, ALPParams, ALPSketch, sparse_input
from exactdp.sparse_vectors.threshold import Threshold, ThresholdParams, threshold_input

__all__ = ["ThresholdALP", "ThresholdALPSketch"]


@dataclass(frozen=True)
class ThresholdALPSketch:
    """The release of ALP-full Algorithm 7: the thresholded values ``v~`` (sorted ``(key, value)``
    pairs, every value in ``[t, hi]``) and the ALP sketch ``(h, z~)``."""

    threshold: ThresholdParams
    released: tuple[tuple[int, int], ...]
    sketch: ALPSketch

    def __post_init__(self) -> None:
        if not isinstance(self.threshold, ThresholdParams):
            raise ParameterTypeError("threshold must be ThresholdParams")
        if not isinstance(self.sketch, ALPSketch):
            raise ParameterTypeError("sketch must be an ALPSketch")
        if self.sketch.params.universe != self.threshold.d:
            raise ParameterError(f"the sketch's universe {self.sketch.params.universe} differs "
                                 f"from the threshold's d = {self.threshold.d}")
        prev = 0
        for pair in self.released:
            key, value = pair
            if not prev < key <= self.threshold.d:
                raise DomainError(f"released keys must be increasing in [1, d]; got {key}")
            if not self.threshold.t <= value <= self.threshold.hi:
                raise DomainError(f"released value {value} of key {key} is outside "
                                  f"[t, hi] = [{self.threshold.t}, {self.threshold.hi}]")
            prev = key

    def value(self, key: int) -> int:
        """``v~_key`` (0 when the key was not released)."""
        return dict(self.released).get(key, 0)

    def estimate(self, key: int) -> Fraction:
        """ALP-full Algorithm 8: ``v~_key`` if it is non-zero, else the ALP estimate
        (:meth:`ALPSketch.estimate`, which validates ``key``).  Reads ``m`` cells then."""
        v = self.value(key)
        if v:
            return Fraction(v)
        return self.sketch.estimate(key)


class ThresholdALP:
    """ALP-full Algorithm 7 with exact parts (see the module docstring).

    Preconditions: ``threshold.d == alp.universe``, ``alp.grid == 1``; ``x`` a k-sparse
    mapping/sequence of ``(key, X)`` pairs with int values in ``[0, hi]`` (both parts'
    validations run before any draw).
    Privacy: for integer ``x, x'`` with ``||x - x'||_1 <= 1`` and every seed tuple ``h``, the
    ratio is at most ``(1/r) e^{eps_cert}`` (ALP-full Lemma 5.3); with
    :meth:`from_paper` that is ``(1 + eps1) e^{eps2} <= e^{eps1 + eps2}``.
    Time: ``d`` noise draws (Threshold), then ALP's :meth:`ALP.draw_count` draws: independent
    of ``x`` (strict time).
    """

    def __init__(self, threshold: ThresholdParams, alp: ALPParams,
                 hashes: HashFamily | None = None) -> None:
        if not isinstance(threshold, ThresholdParams):
            raise ParameterTypeError(f"threshold = {threshold!r:.60} must be ThresholdParams")
        if not isinstance(alp, ALPParams):
            raise ParameterTypeError(f"alp = {alp!r:.60} must be ALPParams")
        if threshold.d != alp.universe:
            raise ParameterError(f"threshold d = {threshold.d} and ALP universe = "
                                 f"{alp.universe} must be equal")
        if alp.grid != 1:
            raise ParameterError(f"grid = {alp.grid}: Threshold ALP takes integer inputs "
                                 f"(grid 1)")
        self.threshold = Threshold(threshold)
        self.alp = ALP(alp, hashes)

    @classmethod
    def from_paper(cls, eps1: object, eps2: object, alpha: object, rows: object,
                   sparsity: object, universe: object, hi: object,
                   hashes: HashFamily | None = None) -> ThresholdALP:
        """Algorithm 7's parameters: ``ThresholdParams.for_epsilon(eps1, d, hi)`` (``r = 1/(1 +
        eps1)``, minimal ``t``) and ``ALPParams.from_paper(eps2, alpha, beta=t, ...)``, so
        ``m = ceil(t eps2/alpha)``."""
        thr = ThresholdParams.for_epsilon(eps1, universe, hi)
        alp = ALPParams.from_paper(eps2, alpha, thr.t, rows, sparsity, thr.d)
        return cls(thr, alp, hashes)

    def __repr__(self) -> str:
        return f"ThresholdALP({self.threshold.params!r}, {self.alp.params!r})"

    @property
    def privacy_ratio_bound(self) -> tuple[Fraction, Fraction]:
        """``(1/r, eps_cert)``: the ratio is at most ``(1/r) * e^{eps_cert}`` per unit of l1."""
        return self.threshold.params.privacy_ratio, self.alp.params.epsilon_cert

    def project(self, x: object, source: RandomSource | None = None,
                seeds: tuple[Seed, ...] | None = None, *, rr: str = "auto"
                ) -> ThresholdALPSketch:
        """``(v~, h, z~)``: Threshold on all ``d`` keys, then ALP-projection (seeds drawn
        first unless given)."""
        sparse_input(self.alp.params, x)
        threshold_input(x, self.threshold.params.d, self.threshold.params.hi)
        src = default_source(source)
        released = self.threshold.release(x, src)
        sketch = self.alp.project(x, src, seeds, rr=rr)
        return ThresholdALPSketch(self.threshold.params, tuple(sorted(released.items())),
                                  sketch)
