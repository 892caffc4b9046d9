"""The exact mechanisms of :mod:`exactdp.projections` as experiment methods (paper 001).

Each factory returns ``method(x, eps, k, rep) -> (features, kind)`` releasing every row of the
integer matrix ``x`` once, with exactdp's seeded source (reproducible; NOT for releases):
one source for the public projection (W / OPORP plans) and one for the noise, both named by
``(seed, method, k, rep)`` so that runs are repeatable and methods do not share draws.
Parameters are exact: ``eps`` a Fraction, the rational base rounded DOWN and certified
(:func:`base`: ``rho = a/2^20`` with ``rho^k <= e^eps`` proved by
:func:`exactdp.certified.compare_exp`: a dyadic base on a fixed grid, so that every eps of the
sweep uses the same denominator; ``base_from_eps`` would pick the best base with any denominator
up to a bound),
the geometric noise's ratio rounded UP and certified (:func:`noise_ratio`).  The floats here
(``math.exp`` guesses, :func:`achieved_eps`) are starting points and table labels, never the
parameters: those are exact and certified.  numpy (the ``[experiments]`` extra) is imported
inside the functions.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING, Any

from exactdp.certified import compare_exp
from exactdp.discrete_gaussian import DiscreteGaussian, calibrate_sigma2
from exactdp.noise import ClampedGeometric
from exactdp.plot import paper001_batch as batch
from exactdp.projections.matrices import OPORPPlan, int_matrix, sample_rademacher
from exactdp.projections.rp import DPOPORP, RawData
from exactdp.projections.rr import Base, largest_l_max
from exactdp.projections.signs import DPSignOPORP, DPSignRPRR
from exactdp.randomness import SeededSource

if TYPE_CHECKING:
    import numpy as np

__all__ = ["BASE_BITS", "D_BITS", "achieved_eps", "base", "dp_oporp", "dp_oporp_gauss",
           "gaussian", "gaussian_delta", "geometric", "noise_ratio", "raw_data", "raw_data_gauss",
           "sign_oporp_smooth", "sign_rp_rr", "source"]

#: The base's denominator 2^BASE_BITS: per-bit budgets down to 0.1/32 lose < 0.1 % to rounding.
BASE_BITS = 20
#: Largest common denominator D of the smooth flipper, in bits (a public cap on L).
D_BITS = 2048


def source(*name: Any) -> SeededSource:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SeededSource("/".join(str(v) for v in name))


@cache
def base(eps: Fraction, k: int) -> Base:
    """The largest ``a/2^20`` with ``(a/2^20)^k <= e^eps``: a float guess, then certified
    exact steps (``compare_exp(eps, rho^k) > 0`` proves ``rho^k < e^eps``)."""
    den = 1 << BASE_BITS
    a = math.floor(math.exp(float(eps) / k) * den) + 2
    while compare_exp(eps, Fraction(a, den) ** k) <= 0:  # rho^k >= e^eps: too big
        a -= 1
    while compare_exp(eps, Fraction(a + 1, den) ** k) > 0:  # a + 1 still fits
        a += 1
    return Base.of(Fraction(a, den))


def achieved_eps(eps: Fraction, k: int) -> float:
    """``k ln rho`` (float, for the tables): the loss the rounded-down base really spends."""
    rho = base(eps, k)
    return k * (math.log(rho.a) - math.log(rho.b))


def _release(mech: Any, x: np.ndarray, src: SeededSource) -> np.ndarray:
    """Every row of ``x`` through ``mech``: the same draws in the same order, hence the same
    releases, as ``mech.sample(row, src)`` row after row (:mod:`exactdp.plot.paper001_batch`;
    tests/test_paper001_batch.py compares the two)."""
    import numpy as np

    if isinstance(mech, DPSignOPORP):
        data = np.ascontiguousarray(x, dtype=np.int32)
        return np.asarray(mech.sample_batch(data, src), dtype=np.int64)
    if isinstance(mech, DPSignRPRR):
        return batch.sign_rows(batch.rp_rows(x, mech.W), mech.flipper, 1, src)
    if isinstance(mech, DPOPORP) and isinstance(mech.noise, (ClampedGeometric,
                                                               DiscreteGaussian)):
        return batch.add_noise_rows(batch.oporp_rows(x, mech.plan), mech.noise, src)
    if isinstance(mech, RawData) and isinstance(mech.noise, (ClampedGeometric,
                                                             DiscreteGaussian)):
        return batch.add_noise_rows(x, mech.noise, src)
    return np.array([mech.sample(tuple(int(v) for v in row), src) for row in x],
                    dtype=np.int64)


def sign_oporp_smooth(seed: int, beta: int, t: int):  # type: ignore[no-untyped-def]
    """Algorithm 8 smooth, ``t`` runs of ``k/t`` bins, base ``rho_t^t <= e^eps`` each run.
    ``L_max`` = the largest possible level (``C * bin size / beta``, C = 16) unless ``D``
    would pass :data:`D_BITS` bits (then the public cap ``largest_l_max``)."""
    def method(x: np.ndarray, eps: Fraction, k: int, rep: int) -> tuple[np.ndarray, str]:
        rho = base(eps, t)
        bins = k // t
        top = -(-int(x.max()) * (x.shape[1] // bins) // beta)
        l_max = max(1, min(top, largest_l_max(rho, D_BITS)))
        plans = source(seed, "sign-oporp", t, k, rep, "plan")
        noise = source(seed, "sign-oporp", t, k, rep, eps, "noise")
        import numpy as np

        runs = [DPSignOPORP(OPORPPlan.sample(x.shape[1], bins, plans), beta, rho, l_max)
                for _ in range(t)]
        return np.concatenate([_release(r, x, noise) for r in runs], axis=1), "signs"
    return method


def sign_oporp_rr(seed: int, beta: int, t: int):  # type: ignore[no-untyped-def]
    """Algorithm 8 with plain randomized response (DP-SignOPORP-RR): ``t`` runs of ``k/t``
    bins, base ``rho_t^t <= e^eps`` each run, a coin for an empty bin."""
    def method(x: np.ndarray, eps: Fraction, k: int, rep: int) -> tuple[np.ndarray, str]:
        rho = base(eps, t)
        bins = k // t
        plans = source(seed, "sign-oporp-rr", t, k, rep, "plan")
        noise = source(seed, "sign-oporp-rr", t, k, rep, eps, "noise")
        import numpy as np

        runs = [DPSignOPORP(OPORPPlan.sample(x.shape[1], bins, plans), beta, rho, 1, False)
                for _ in range(t)]
        return np.concatenate([_release(r, x, noise) for r in runs], axis=1), "signs"
    return method


def idp_sign_rp(seed: int, beta: int):  # type: ignore[no-untyped-def]
    """iDP-SignRP-RR (Algorithms 10/11): Rademacher ``W``; each image's mechanism calibrated
    at that image (frozen, Theorem 6.2): eps-iDP per image, NOT eps-DP."""
    def method(x: np.ndarray, eps: Fraction, k: int, rep: int) -> tuple[np.ndarray, str]:
        w = int_matrix(sample_rademacher(x.shape[1], k,
                                         source(seed, "idp-sign-rp", k, rep, "plan")))
        total = base(eps, 1)
        src = source(seed, "idp-sign-rp", k, rep, eps, "noise")
        return batch.idp_sign_rp_rows(x, w, beta, total, src), "signs"
    return method


def sign_rp_rr(seed: int):  # type: ignore[no-untyped-def]
    """Algorithm 6 with ``N+ = k`` (pure): Rademacher ``W``, base ``rho^k <= e^eps``."""
    def method(x: np.ndarray, eps: Fraction, k: int, rep: int) -> tuple[np.ndarray, str]:
        w = sample_rademacher(x.shape[1], k, source(seed, "sign-rp", k, rep, "plan"))
        mech = DPSignRPRR(w, base(eps, k))
        return _release(mech, x, source(seed, "sign-rp", k, rep, eps, "noise")), "signs"
    return method


def noise_ratio(eps: Fraction, beta: int) -> Fraction:
    """The smallest ``r = c/2^B`` with ``r^beta >= e^-eps`` (ratio rounded UP: more noise;
    ``2^B >= 100/(1 - r)`` keeps the rounding under about 1 % of the budget), certified."""
    one_minus = -math.expm1(-float(eps) / beta)
    den = 1 << max(8, math.ceil(math.log2(100 / one_minus)))
    c = math.ceil(math.exp(-float(eps) / beta) * den) - 2
    while compare_exp(-eps, Fraction(c, den) ** beta) > 0:  # r^beta < e^-eps: too small
        c += 1
    while compare_exp(-eps, Fraction(c - 1, den) ** beta) <= 0:  # c - 1 still enough
        c -= 1
    return Fraction(c, den)


def geometric(eps: Fraction, beta: int, lo: int, hi: int) -> ClampedGeometric:
    """Two-sided geometric of ratio :func:`noise_ratio` for centres in ``[lo, hi]``, clamped
    to ``[lo - m, hi + m]`` with ``r^m <= e^-12`` (clamping is post-processing: the pure ratio
    ``r^-beta <= e^eps`` is unchanged; it only lumps a mass below ``e^-12`` at the ends)."""
    r = noise_ratio(eps, beta)
    m = math.ceil(12 / -math.log(float(r)))
    return ClampedGeometric(r, lo - m, hi + m, lo, hi)


def dp_oporp(seed: int, beta: int):  # type: ignore[no-untyped-def]
    """Algorithm 5 with pure eps: OPORP plus a clamped two-sided geometric (discrete Laplace)
    per bin, ratio ``r^-beta <= e^eps`` (one bin moves by at most ``beta``)."""
    def method(x: np.ndarray, eps: Fraction, k: int, rep: int) -> tuple[np.ndarray, str]:
        plan = OPORPPlan.sample(x.shape[1], k, source(seed, "dp-oporp", k, rep, "plan"))
        top = int(x.max()) * (x.shape[1] // k)
        mech = DPOPORP(plan, beta, geometric(eps, beta, -top, top))
        return _release(mech, x, source(seed, "dp-oporp", k, rep, eps, "noise")), "cosine"
    return method


def raw_data(seed: int, beta: int):  # type: ignore[no-untyped-def]
    """The raw-data baseline with pure eps: the same geometric on each of the p pixels."""
    def method(x: np.ndarray, eps: Fraction, k: int, rep: int) -> tuple[np.ndarray, str]:
        mech = RawData(x.shape[1], beta, geometric(eps, beta, 0, int(x.max())))
        return _release(mech, x, source(seed, "raw", rep, eps, "noise")), "cosine"
    return method


@cache
def gaussian(eps: Fraction, delta: Fraction, beta: int) -> DiscreteGaussian:
    """The strict-time discrete Gaussian of the smallest ``sigma^2`` on the grid ``m/64`` whose
    ideal law meets ``(eps, delta)`` at shift ``beta`` (:func:`calibrate_sigma2`, certified;
    the exact calibration standing in for the paper's Thm 3.5 ``sigma*``).  The sampled law's
    own ``delta`` is stated beside the results (:mod:`exactdp.plot.paper001_experiments`)."""
    return DiscreteGaussian(calibrate_sigma2(eps, delta, beta))


def gaussian_delta(eps: Fraction, delta: Fraction, beta: int) -> Fraction:
    """The upper end of a certified interval containing the ``delta(eps)`` of the law that
    :func:`gaussian` samples, at shift ``beta``, worse of the two directions
    (:func:`exactdp.checker.hockey_stick_eps` on :meth:`DiscreteGaussian.law`)."""
    from exactdp.checker import hockey_stick_eps

    p = gaussian(eps, delta, beta).law()
    q = {x + beta: v for x, v in p.items()}
    return max(hockey_stick_eps(p, q, eps).hi, hockey_stick_eps(q, p, eps).hi)


def dp_oporp_gauss(seed: int, beta: int, delta: Fraction):  # type: ignore[no-untyped-def]
    """Algorithm 5 as the paper runs it: OPORP plus the discrete Gaussian per bin, (eps, delta)
    at shift ``beta`` (one bin moves by at most ``beta``)."""
    def method(x: np.ndarray, eps: Fraction, k: int, rep: int) -> tuple[np.ndarray, str]:
        plan = OPORPPlan.sample(x.shape[1], k, source(seed, "dp-oporp-g", k, rep, "plan"))
        mech = DPOPORP(plan, beta, gaussian(eps, delta, beta))
        return _release(mech, x, source(seed, "dp-oporp-g", k, rep, eps, "noise")), "cosine"
    return method


def raw_data_gauss(seed: int, beta: int, delta: Fraction):  # type: ignore[no-untyped-def]
    """The raw-data baseline (Thm 3.8) with the discrete Gaussian on each of the p pixels."""
    def method(x: np.ndarray, eps: Fraction, k: int, rep: int) -> tuple[np.ndarray, str]:
        mech = RawData(x.shape[1], beta, gaussian(eps, delta, beta))
        return _release(mech, x, source(seed, "raw-g", rep, eps, "noise")), "cosine"
    return method
