"""More real targets: Google's ``python-dp`` (black-box) and Tumult's ``tmlt.core`` (both).

What each library's sampler calls, read from its source (python-dp 1.1.5, tmlt.core 0.20):

* **python-dp** (``import pydp``): every mechanism and algorithm is a pybind11 wrapper of
  Google's C++ differential-privacy library; the noise is drawn in C++ (``SecureURBG``,
  BoringSSL's ``RAND_bytes``), which Python cannot reach.  So only **black-box**:
  :func:`pydp_laplace` (``numerical_mechanisms.LaplaceMechanism(epsilon, sensitivity)
  .add_noise(c)``, which returns an int for an int ``c``), :func:`pydp_gaussian` (the same
  with ``GaussianMechanism``, an ``(epsilon, delta)`` claim) and :func:`pydp_count`
  (``algorithms.laplacian.Count(epsilon, dtype="int").quick_result([0] * c)``, a count of
  ``c`` records, neighbours differing by one record).
* **tmlt.core**: every sampler draws from ``tmlt.core.random.rng.prng()``, a
  ``numpy.random.Generator`` kept in the module global ``_core_privacy_prng`` (RDRAND, or
  ``os.urandom`` without it).  ``AddGeometricNoise(alpha)`` adds
  ``_sample_geometric_exp_slow(1/alpha) - _sample_geometric_exp_slow(1/alpha)`` (for
  ``alpha < 10``; Canonne--Kamath--Steinke's exact Bernoulli(exp(-x)) loops in Fractions), each
  uniform draw being ``RNGWrapper(prng()).randrange(m)`` =
  ``prng().integers(low=0, high=m, endpoint=False)``; ``AddLaplaceNoise(scale)`` draws
  63-bit words ``prng().integers(2**63)`` until python-flint's ``arb`` inverse CDF rounds
  to one float.  Python-visible, so **white-box**: :func:`tmlt_geometric` and
  :func:`tmlt_laplace` patch ``_core_privacy_prng`` with a numpy facade
  (:mod:`exactdp.audit.facades`) for the duration of each call, no edit to tmlt.  Measured
  limits: the geometric noise has unboundedly many draws, and the exploration's first path
  (every draw ``j = 0``) is a probability-0 infinite loop (``_sample_bernoulli(x/k)`` with
  ``m = 0 < numerator`` is 1 for every ``k``): the explorer cuts it off
  (``--max-draws-per-path``, or 3/4 of ``--time-limit``), then ends paths at random, heaviest
  first: verdict INCOMPLETE with the exact mass covered (measured: 1000 paths cover ~0.593
  per input with ``--max-draws-per-path 100``); the
  Laplace sampler is refused by the facade (where flint cannot round the inverse CDF to
  one float, tmlt draws 63 more bits: the effect of a draw is not piecewise constant).
  :func:`tmlt_geometric_sampler` and :func:`tmlt_laplace_sampler` are the same
  measurements black-box with tmlt's own randomness, against certified references.

Every output is clamped by the adapter to a ``window`` of integers (and the float Laplace
output floored first): post-processing, which cannot increase privacy loss, so a violation
found on the adapter's output is a violation of the library's.  Library parameters are
floats: exact dyadic values only (converted exactly, :func:`exactdp.adapters._exact_float`).
Install with ``pip install 'exactdp[audit]'`` (python-dp) and ``'exactdp[audit-tmlt]'``
(tmlt.core, which pins numpy 1.26 and sympy < 1.13: a separate environment).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from exactdp.adapters import ClampedGeometricReference, _dec, _exact_float, geometric_alpha
from exactdp.audit.facades import FacadeMechanism
from exactdp.certified import Interval
from exactdp.params import ParameterError, to_fraction

__all__ = ["FlooredLaplaceReference", "WindowSampler", "pydp_count", "pydp_gaussian",
           "pydp_laplace",
           "tmlt_geometric", "tmlt_geometric_sampler", "tmlt_laplace", "tmlt_laplace_sampler"]


def _missing(library: str, extra: str, exc: ImportError) -> ParameterError:
    return ParameterError(f"{library} is not installed ({exc}); install it with: "
                          f"pip install 'exactdp[{extra}]'")


def _window(window: tuple[int, int]) -> tuple[int, int]:
    lower, upper = int(window[0]), int(window[1])
    if lower > upper:
        raise ParameterError(f"window = ({lower}, {upper}) is empty (lower > upper)")
    return lower, upper


def _positive(value: object, name: str) -> Fraction:
    q = to_fraction(value, name)
    if q <= 0:
        raise ParameterError(f"{name} = {q} must be positive")
    return q


class WindowSampler:
    """A black-box sampler ``sampler(c) -> int``: ``draw(c)`` clamped to the window.

    Attributes read by :func:`~exactdp.audit.blackbox_audit`: ``outputs`` (the window),
    ``reference`` (None when the library's law has no closed form we can certify),
    ``claimed_epsilon`` (the library's own claim), ``description``.
    """

    def __init__(self, draw: Callable[[int], int], window: tuple[int, int],
                 claimed_epsilon: Fraction, description: str,
                 reference: ClampedGeometricReference | FlooredLaplaceReference | None = None
                 ) -> None:
        self.draw = draw
        self.lower, self.upper = _window(window)
        self.outputs = range(self.lower, self.upper + 1)
        self.claimed_epsilon = claimed_epsilon
        self.reference = reference
        self.description = description

    def __repr__(self) -> str:
        return self.description

    def __call__(self, c: int) -> int:
        return min(max(int(self.draw(int(c))), self.lower), self.upper)


class FlooredLaplaceReference:
    """Certified per-input law of ``floor(c + L)`` clamped to ``[lower, upper]``, ``L`` the
    Laplace law of density ``e**(-|x|/b) / (2b)``, with ``a = e**(-1/b)`` known to lie in
    ``alpha``.

    For an integer ``x``, ``F(x) = Pr[L < x]`` is ``a**(-x) / 2`` for ``x <= 0`` (increasing
    in ``a``) and ``1 - a**x / 2`` for ``x >= 0`` (decreasing); the cell ``[m, m+1)`` has
    ``a**j (1 - a) / 2`` with ``j = m`` for ``m >= 0`` and ``j = -m - 1`` below, enclosed
    factor by factor; the clamped ends are ``F(lower - c + 1)`` and ``1 - F(upper - c)``.
    """

    def __init__(self, lower: int, upper: int, alpha: Interval, what: str) -> None:
        self.lower, self.upper, self.alpha = lower, upper, alpha
        self.description = (f"floor(c + Laplace) clamped to [{lower}, {upper}], "
                            f"a = {what} in [{_dec(alpha.lo)}, {_dec(alpha.hi)}] "
                            f"(certified rational interval)")

    def _cdf(self, x: int) -> Interval:
        lo_a, hi_a = self.alpha.lo, self.alpha.hi
        if x <= 0:
            return Interval(lo_a ** -x / 2, hi_a ** -x / 2)
        return Interval(1 - hi_a**x / 2, 1 - lo_a**x / 2)

    def __call__(self, c: int) -> dict[int, Interval]:
        lo_a, hi_a = self.alpha.lo, self.alpha.hi
        out: dict[int, Interval] = {}
        for k in range(self.lower, self.upper + 1):
            if self.lower == self.upper:
                out[k] = Interval(Fraction(1), Fraction(1))
            elif k == self.lower:
                out[k] = self._cdf(k - c + 1)
            elif k == self.upper:
                tail = self._cdf(k - c)
                out[k] = Interval(1 - tail.hi, 1 - tail.lo)
            else:
                m = k - c
                j = m if m >= 0 else -m - 1
                out[k] = Interval(lo_a**j * (1 - hi_a) / 2, hi_a**j * (1 - lo_a) / 2)
        return out


# --------------------------------------------------------------------------- python-dp

def _pydp() -> Any:
    try:
        import pydp
    except ImportError as exc:
        raise _missing("python-dp", "audit", exc) from None
    return pydp


def pydp_laplace(epsilon: object, sensitivity: object = 1,
                 window: tuple[int, int] = (0, 8)) -> WindowSampler:
    """python-dp's ``LaplaceMechanism(epsilon, sensitivity).add_noise(c)`` on integers,
    black-box (C++ randomness); claimed ``epsilon`` for neighbours ``|c - c'| <= sensitivity``
    (audit with inputs one ``sensitivity`` apart).  No reference: Google's integer Laplace
    is a snapped, rounded double whose exact law is not published."""
    _pydp()
    from pydp.algorithms.numerical_mechanisms import LaplaceMechanism

    eps, sens = _positive(epsilon, "epsilon"), _positive(sensitivity, "sensitivity")
    mech = LaplaceMechanism(epsilon=_exact_float(eps, "epsilon"),  # float: pydp's epsilon
                            sensitivity=_exact_float(sens, "sensitivity"))  # float: exact
    lower, upper = _window(window)
    return WindowSampler(mech.add_noise, (lower, upper), eps,
                         f"python-dp LaplaceMechanism(epsilon={eps}, sensitivity={sens})"
                         f".add_noise(c), clamped to [{lower}, {upper}] [black-box, C++ RNG]")


def pydp_gaussian(epsilon: object, delta: object, sensitivity: object = 1,
                  window: tuple[int, int] = (0, 8)) -> WindowSampler:
    """python-dp's ``GaussianMechanism(epsilon, delta, sensitivity).add_noise(c)`` on
    integers, black-box (C++ randomness); its claim is ``(epsilon, delta)``-DP (audit with
    ``--claimed-delta``; ``claimed_delta`` is set on the sampler).  No reference."""
    _pydp()
    from pydp.algorithms.numerical_mechanisms import GaussianMechanism

    eps, sens = _positive(epsilon, "epsilon"), _positive(sensitivity, "sensitivity")
    dlt = _positive(delta, "delta")
    mech = GaussianMechanism(_exact_float(eps, "epsilon"),  # float: pydp's parameters, exact
                             _exact_float(dlt, "delta"), _exact_float(sens, "sensitivity"))
    lower, upper = _window(window)
    sampler = WindowSampler(mech.add_noise, (lower, upper), eps,
                            f"python-dp GaussianMechanism(epsilon={eps}, delta={dlt}, "
                            f"sensitivity={sens}).add_noise(c), clamped to [{lower}, {upper}] "
                            f"[black-box, C++ RNG]")
    sampler.claimed_delta = dlt  # type: ignore[attr-defined]
    return sampler


def pydp_count(epsilon: object, window: tuple[int, int] = (0, 8)) -> WindowSampler:
    """python-dp's ``Count(epsilon, dtype="int").quick_result`` on a dataset of ``c``
    records, black-box (a fresh ``Count`` per call, as its budget is spent by one result)."""
    _pydp()
    from pydp.algorithms.laplacian import Count

    eps = _positive(epsilon, "epsilon")
    f_eps = _exact_float(eps, "epsilon")  # float: pydp's epsilon, exact
    lower, upper = _window(window)

    def count(c: int) -> int:
        return Count(epsilon=f_eps, dtype="int").quick_result([0] * c)

    return WindowSampler(count, (lower, upper), eps,
                         f"python-dp Count(epsilon={eps}).quick_result(c records), clamped "
                         f"to [{lower}, {upper}] [black-box, C++ RNG]")


# --------------------------------------------------------------------------- tmlt.core

def _tmlt() -> tuple[Any, Any]:
    try:
        from tmlt.core.measurements import noise_mechanisms
        from tmlt.core.random import rng
    except ImportError as exc:
        raise _missing("tmlt.core", "audit-tmlt", exc) from None
    return noise_mechanisms, rng


def _geometric(alpha: object) -> tuple[Fraction, Any]:
    noise_mechanisms, _ = _tmlt()
    a = _positive(alpha, "alpha")
    _exact_float(a, "alpha")  # tmlt rounds alpha up to a float: refuse any it would change
    return a, noise_mechanisms.AddGeometricNoise(alpha=a)


def tmlt_geometric(alpha: object, window: tuple[int, int] = (0, 8)) -> FacadeMechanism:
    """tmlt.core's ``AddGeometricNoise(alpha)`` as shipped, white-box: ``f(c, source)``
    with ``tmlt.core.random.rng._core_privacy_prng`` patched by a numpy facade; claimed
    ``epsilon = 1/alpha`` (its ``privacy_function(1)``).  Output clamped to ``window``."""
    a, measurement = _geometric(alpha)
    return _tmlt_white_box(lambda c: measurement(int(c)), window, 1 / a,
                           f"tmlt.core AddGeometricNoise(alpha={a}), clamped")


def _tmlt_white_box(noise: Callable[[int], int], window: tuple[int, int], epsilon: Fraction,
                    what: str) -> FacadeMechanism:
    """``noise(c)`` clamped to ``window`` as ``f(c, source)``, with tmlt's module-global
    generator ``tmlt.core.random.rng._core_privacy_prng`` patched by a numpy facade for each
    call; claimed ``epsilon``."""
    _, rng = _tmlt()
    lower, upper = _window(window)

    def add_noise(c: int, facade: Any) -> int:
        return min(max(noise(c), lower), upper)

    mech = FacadeMechanism(
        add_noise, "numpy", patch_attributes=[(rng, "_core_privacy_prng")],
        description=f"{what} to [{lower}, {upper}] [white-box: tmlt.core.random.rng."
                    f"_core_privacy_prng patched with a numpy facade]")
    mech.claimed_epsilon = epsilon  # type: ignore[attr-defined]
    mech.outputs = range(lower, upper + 1)  # type: ignore[attr-defined]
    return mech


def tmlt_geometric_sampler(alpha: object, window: tuple[int, int] = (0, 8)) -> WindowSampler:
    """The same measurement black-box, with tmlt's own randomness, against the exact law
    ``c + Z``, ``Pr[Z = z] ∝ e**(-|z|/alpha)`` clamped to the window (certified intervals)."""
    a, measurement = _geometric(alpha)
    lower, upper = _window(window)
    reference = ClampedGeometricReference(lower, upper, geometric_alpha(1 / a),
                                          f"e^(-1/{a})")
    return WindowSampler(measurement, (lower, upper), 1 / a,
                         f"tmlt.core AddGeometricNoise(alpha={a}), clamped to [{lower}, "
                         f"{upper}] [black-box, tmlt's RDRAND/os.urandom generator]",
                         reference)


def _laplace(scale: object) -> tuple[Fraction, Any]:
    noise_mechanisms, _ = _tmlt()
    from tmlt.core.domains.numpy_domains import NumpyFloatDomain

    b = _positive(scale, "scale")
    _exact_float(b, "scale")  # tmlt rounds the scale up to a float: refuse any it would change
    return b, noise_mechanisms.AddLaplaceNoise(input_domain=NumpyFloatDomain(), scale=b)


def _floored(measurement: Any) -> Callable[[int], int]:
    def add_noise(c: int) -> int:
        return math.floor(measurement(_exact_float(Fraction(int(c)), "c")))  # float: input
    return add_noise


def tmlt_laplace(scale: object, window: tuple[int, int] = (0, 8)) -> FacadeMechanism:
    """tmlt.core's ``AddLaplaceNoise(scale)`` on ``float(c)`` as shipped, white-box
    (63-bit draws explored by their effect, :mod:`exactdp.audit.facades`), its float output
    floored and clamped to ``window``; claimed ``epsilon = 1/scale``.  The facade refuses it
    (measured): where python-flint cannot round the inverse CDF to one float, tmlt draws
    63 more bits, so the effect of a draw is not piecewise constant -- use
    :func:`tmlt_laplace_sampler`."""
    b, measurement = _laplace(scale)
    return _tmlt_white_box(_floored(measurement), window, 1 / b,
                           f"tmlt.core AddLaplaceNoise(scale={b}) on float(c), floored and "
                           f"clamped")


def tmlt_laplace_sampler(scale: object, window: tuple[int, int] = (0, 8)) -> WindowSampler:
    """``AddLaplaceNoise(scale)`` on ``float(c)``, floored and clamped, black-box with tmlt's
    own randomness, against :class:`FlooredLaplaceReference` with ``a = e**(-1/scale)``."""
    b, measurement = _laplace(scale)
    lower, upper = _window(window)
    reference = FlooredLaplaceReference(lower, upper, geometric_alpha(1 / b), f"e^(-1/{b})")
    return WindowSampler(_floored(measurement), (lower, upper), 1 / b,
                         f"tmlt.core AddLaplaceNoise(scale={b}) on float(c), floored and "
                         f"clamped to [{lower}, {upper}] [black-box, tmlt's RDRAND/os.urandom "
                         f"generator]", reference)
