"""More real targets: Google's ``python-dp`` (black-box) and Tumult's ``tmlt.core`` (both).

What each library's sampler calls, read from its source (python-dp 1.1.5, tmlt.core 0.20):

* **python-dp** (``import pydp``): every mechanism and algorithm is a pybind11 wrapper of
  Google's C++ differential-privacy library; the noise is drawn in C++ (``SecureURBG``,
  BoringSSL's ``RAND_bytes``), which Python cannot reach.  So only **black-box**:
  :func:`pydp_laplace` (``numerical_mechanisms.LaplaceMechanism(epsilon, sensitivity)
  .add_noise(c)``, which returns an int for an int ``c``) and :func:`pydp_count`
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
  (:mod:`exactdp.audit.facades`) for the duration of each call, no edit to tmlt.  Its
  geometric noise has unboundedly many draws (rejection loops): the exploration stops at
  its budget (``--max-paths``) with an "incomplete" verdict and the covered mass.
  :func:`tmlt_geometric_sampler` is the same measurement black-box with tmlt's own
  randomness, against the exact two-sided geometric reference.

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

from exactdp.adapters import ClampedGeometricReference, _exact_float, geometric_alpha
from exactdp.audit.facades import FacadeMechanism
from exactdp.params import ParameterError, to_fraction

__all__ = ["WindowSampler", "pydp_count", "pydp_laplace", "tmlt_geometric",
           "tmlt_geometric_sampler", "tmlt_laplace", "tmlt_laplace_sampler"]


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
                 reference: ClampedGeometricReference | None = None) -> None:
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
    _, rng = _tmlt()
    lower, upper = _window(window)

    def add_noise(c: int, facade: Any) -> int:
        return min(max(measurement(int(c)), lower), upper)

    mech = FacadeMechanism(
        add_noise, "numpy", patch_attributes=[(rng, "_core_privacy_prng")],
        description=f"tmlt.core AddGeometricNoise(alpha={a}), clamped to [{lower}, {upper}] "
                    f"[white-box: tmlt.core.random.rng._core_privacy_prng patched with a "
                    f"numpy facade]")
    mech.claimed_epsilon = 1 / a  # type: ignore[attr-defined]
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
    _, rng = _tmlt()
    lower, upper = _window(window)
    floored = _floored(measurement)

    def add_noise(c: int, facade: Any) -> int:
        return min(max(floored(c), lower), upper)

    mech = FacadeMechanism(
        add_noise, "numpy", patch_attributes=[(rng, "_core_privacy_prng")],
        description=f"tmlt.core AddLaplaceNoise(scale={b}) on float(c), floored and clamped "
                    f"to [{lower}, {upper}] [white-box: tmlt.core.random.rng."
                    f"_core_privacy_prng patched with a numpy facade]")
    mech.claimed_epsilon = 1 / b  # type: ignore[attr-defined]
    mech.outputs = range(lower, upper + 1)  # type: ignore[attr-defined]
    return mech


def tmlt_laplace_sampler(scale: object, window: tuple[int, int] = (0, 8)) -> WindowSampler:
    """``AddLaplaceNoise(scale)`` on ``float(c)``, floored and clamped, black-box with tmlt's
    own randomness (no reference: the privacy test only)."""
    b, measurement = _laplace(scale)
    lower, upper = _window(window)
    return WindowSampler(_floored(measurement), (lower, upper), 1 / b,
                         f"tmlt.core AddLaplaceNoise(scale={b}) on float(c), floored and "
                         f"clamped to [{lower}, {upper}] [black-box, tmlt's RDRAND/os.urandom "
                         f"generator]")
