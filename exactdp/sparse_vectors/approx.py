"""The ``(eps, delta)`` combination of ALP-short Theorem 4.2 (Aumüller, Lebeda & Pagh), exact.

ALP-short §4 / Theorem 4.2 replace Threshold by the variant of Korolova et al.: noise only on the
**non-zero** coordinates and a threshold ``t_delta = Theta(log(1/delta)/eps)``; ALP then runs with
``beta = t_delta`` (no pseudocode in the seeds).

The neighbour relation implemented here: **integer vectors (histograms) under adding or removing
one row**, i.e. one coordinate moves by 1 (``||x - x'||_1 = 1`` on integer inputs).  Then at most
one coordinate changes support, from 0 to 1 (under real l1 neighbours up to ``2k``
coordinates could change support at once; that relation is not implemented).

Exact guarantee (checked on the explored laws in ``proofs/alp/alp_thm_4_02_approx.py``).  With
``q = Pr[a new key of value 1 survives] = Pr[1 + eta >= t] = r^(t-1)/(1 + r)``:

* a pair that keeps the support: every output's ratio is at most ``1/r`` (the geometric);
* a pair where key ``i`` appears (``x_i = 0``, ``x'_i = 1``): the outputs releasing ``i`` have
  probability ``q`` under ``x'`` and 0 under ``x``, which puts exactly ``q`` into the
  hockey-stick divergence of ``x'`` against ``x``; every other output has probability
  ``1 - q`` times as large under ``x'``.  Against ``x'``, ``x``'s divergence at any ratio
  ``L >= 1`` is ``max(0, 1 - L (1 - q)) <= q``: the factor ``1/(1 - q)``, which can exceed
  ``1/r`` when ``q > 1 - r``, is absorbed by the same ``q``.

So for every neighbouring pair and every set ``S``: ``Pr[M(x) in S] <= (1/r) Pr[M(x') in S] +
q``, and ``delta = q`` is exact (attained).
:meth:`ApproxThresholdParams.for_epsilon_delta` takes ``r = 1/(1 + eps)`` and the smallest
integer ``t >= 1`` with ``q <= delta``.  Under replacing one row (``l1 = 2``: one key up, another
down) the same reasoning gives ``(1/r^2, q)``; the proof row checks that too.

Strict time: the input is padded to exactly ``k`` pairs (dummies ``(0, 0)`` draw noise that is
discarded), so ``k`` noise draws whatever the support is.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

from exactdp.hashing import HashFamily, Seed
from exactdp.noise import ClampedGeometric, geometric_ratio
from exactdp.params import (
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    epsilon_delta,
    positive_fraction,
)
from exactdp.randomness import RandomSource, default_source
from exactdp.sparse_vectors.alp import ALP, ALPParams, sparse_input
from exactdp.sparse_vectors.combined import ThresholdALPSketch
from exactdp.sparse_vectors.threshold import MAX_THRESHOLD, ThresholdParams, threshold_input

__all__ = ["ApproxThresholdALP", "ApproxThresholdParams", "KorolovaThreshold",
           "approx_threshold"]


def approx_threshold(r: Fraction, delta: Fraction) -> int:
    """``t_delta``: the smallest integer ``t >= 1`` with ``q = r^(t-1)/(1 + r) <= delta`` (a key
    of value 1 survives with probability ``q``; the Laplace version is ``t = 1 +
    ln(1/(2 delta))/eps``)."""
    r = geometric_ratio(r, "r")
    bound = positive_fraction(delta, "delta")
    q = 1 / (1 + r)
    for t in range(1, MAX_THRESHOLD + 1):
        if q <= bound:
            return t
        q *= r
    raise ResourceLimitError(f"no t <= {MAX_THRESHOLD} has r^(t-1)/(1+r) <= {bound}")


@dataclass(frozen=True)
class ApproxThresholdParams:
    """Public parameters of the Korolova-style threshold: ratio ``r``, threshold ``t >= 1``,
    bound ``hi >= t`` on entries, universe ``d`` and sparsity ``k`` (inputs padded to ``k``)."""

    r: Fraction
    t: int
    hi: int
    d: int
    sparsity: int

    def __post_init__(self) -> None:
        # ThresholdParams validates r, t, hi, d with the same rules
        view = ThresholdParams(self.r, self.t, self.hi, self.d)
        object.__setattr__(self, "r", view.r)
        k = self.sparsity
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ParameterError(f"sparsity = {k!r:.40} must be an int >= 1")

    @classmethod
    def for_epsilon_delta(cls, eps: object, delta: object, universe: object, hi: object,
                          sparsity: object) -> ApproxThresholdParams:
        """``r = 1/(1 + eps)`` and :func:`approx_threshold` (``t_delta``)."""
        e, dl = epsilon_delta(eps, delta, "eps")
        r = 1 / (1 + e)
        for name, v in (("universe", universe), ("hi", hi), ("sparsity", sparsity)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise ParameterTypeError(f"{name} = {v!r:.60} must be an int")
        return cls(r, approx_threshold(r, dl), hi, universe, sparsity)  # type: ignore[arg-type]

    @property
    def threshold_view(self) -> ThresholdParams:
        """``(r, t, hi, d)`` as :class:`ThresholdParams` (what a released sketch records)."""
        return ThresholdParams(self.r, self.t, self.hi, self.d)

    @property
    def survival(self) -> Fraction:
        """``q = r^(t-1)/(1 + r)``: the probability that a key of value 1 is released."""
        return self.r ** (self.t - 1) / (1 + self.r)

    @property
    def delta(self) -> Fraction:
        """The exact ``delta`` for the add/remove-one-row relation: ``q`` (attained)."""
        return self.survival

    @property
    def privacy_ratio(self) -> Fraction:
        """``1/r``: the ratio that goes with :attr:`delta` (the module docstring)."""
        return 1 / self.r

    @cached_property
    def noise(self) -> ClampedGeometric:
        return ClampedGeometric(self.r, self.t - 1, self.hi, 0, self.hi)


class KorolovaThreshold:
    """Noise only on the support (Korolova et al., as ALP-short Theorem 4.2 uses): for each of the
    ``k`` padded pairs ``(key, X)`` one draw ``v = clamp_[t-1, hi](X + eta)``; release
    ``{key: v : X > 0, v >= t}``.  Dummies draw (centre 0) and are discarded.

    Guarantee: ``(ln(privacy_ratio), delta)``-DP under adding/removing one row of an integer
    histogram (the module docstring).  Time: exactly ``k`` draws ``uniform(D)``.
    """

    def __init__(self, params: ApproxThresholdParams) -> None:
        if not isinstance(params, ApproxThresholdParams):
            raise ParameterTypeError(f"params = {params!r:.60} must be ApproxThresholdParams")
        self.params = params

    def __repr__(self) -> str:
        return f"KorolovaThreshold({self.params!r})"

    def release(self, x: object, source: RandomSource | None = None) -> dict[int, int]:
        p = self.params
        values = threshold_input(x, p.d, p.hi)
        support = sorted((key, v) for key, v in values.items() if v)
        if len(support) > p.sparsity:
            raise ParameterError(f"x has {len(support)} non-zero entries; at most k = "
                                 f"{p.sparsity} are allowed (sparsity)")
        padded = support + [(0, 0)] * (p.sparsity - len(support))
        src = default_source(source)
        out: dict[int, int] = {}
        for key, v in padded:
            noisy = p.noise.sample_value(v, src)
            if key and noisy >= p.t:
                out[key] = noisy
        return out


class ApproxThresholdALP:
    """ALP-short Theorem 4.2: :class:`KorolovaThreshold` (``eps1``, ``delta``) and ALP-projection
    with ``beta = t_delta`` (``eps2``); estimates as ALP-full Algorithm 8
    (:meth:`ThresholdALPSketch.estimate`).  Guarantee under add/remove of one row (integer
    inputs): ratio ``privacy_ratio * e^{eps_cert}`` with the same exact ``delta = q``
    (checked in ``proofs/alp/alp_thm_4_02_approx.py``).  Access time ``m = ceil(t_delta eps2/alpha)``
    reads: ``O(log(1/delta))``.  Time: ``k`` noise draws, then ALP's draws (strict)."""

    def __init__(self, threshold: ApproxThresholdParams, alp: ALPParams,
                 hashes: HashFamily | None = None) -> None:
        if not isinstance(alp, ALPParams):
            raise ParameterTypeError(f"alp = {alp!r:.60} must be ALPParams")
        self.threshold = KorolovaThreshold(threshold)
        if threshold.d != alp.universe or threshold.sparsity != alp.sparsity:
            raise ParameterError("the threshold and ALP must share the universe d and the "
                                 "sparsity k")
        if alp.grid != 1:
            raise ParameterError(f"grid = {alp.grid}: integer inputs only (grid 1)")
        self.alp = ALP(alp, hashes)

    @classmethod
    def from_paper(cls, eps1: object, eps2: object, delta: object, alpha: object,
                   rows: object, sparsity: object, universe: object, hi: object,
                   hashes: HashFamily | None = None) -> ApproxThresholdALP:
        thr = ApproxThresholdParams.for_epsilon_delta(eps1, delta, universe, hi, sparsity)
        alp = ALPParams.from_paper(eps2, alpha, thr.t, rows, sparsity, thr.d)
        return cls(thr, alp, hashes)

    def __repr__(self) -> str:
        return f"ApproxThresholdALP({self.threshold.params!r}, {self.alp.params!r})"

    @property
    def delta(self) -> Fraction:
        return self.threshold.params.delta

    def project(self, x: object, source: RandomSource | None = None,
                seeds: tuple[Seed, ...] | None = None, *, rr: str = "auto"
                ) -> ThresholdALPSketch:
        sparse_input(self.alp.params, x)
        p = self.threshold.params
        threshold_input(x, p.d, p.hi)
        src = default_source(source)
        released = self.threshold.release(x, src)
        sketch = self.alp.project(x, src, seeds, rr=rr)
        return ThresholdALPSketch(p.threshold_view, tuple(sorted(released.items())), sketch)
