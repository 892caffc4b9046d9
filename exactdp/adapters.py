"""Adapters: other libraries' geometric mechanisms, ready for :mod:`exactdp.audit`.

FLOATS LIVE HERE, AND ONLY HERE.  The audited libraries take float parameters and (for
diffprivlib) consume float randomness, so this module converts exact rationals to floats
to call them.  Every conversion is exact (parameters must be dyadic rationals, checked) and
marked ``# float:``; no float ever reaches a probability, a bound or a verdict, which are
computed by :mod:`exactdp.audit` from integers and rationals.

* :func:`opendp_geometric` -- OpenDP's ``then_geometric(scale, bounds)``, black-box (its
  randomness comes from Rust's OS-backed RNG, which cannot be reached from Python).
  Reference: ``c + Z`` with ``Pr[Z = z] ∝ alpha**|z|``, ``alpha = e**(-1/scale)``, clamped
  to ``[lower, upper]`` -- with ``bounds`` that is OpenDP's own output range; without, the
  adapter clamps to a ``window`` itself (post-processing, which cannot increase privacy
  loss, so a violation found on the clamped output is a violation of the original).
  ``alpha`` is irrational: the reference probabilities are certified rational intervals.
  With ``bounds``, OpenDP samples with a success probability ``1 - e**(-1/scale)``
  rounded *down* to an f64 (its "conservative" rounding), so its real ``alpha`` exceeds
  ``e**(-1/scale)`` by a few units of 2**-53; the reference interval is widened by
  ``2**-40`` on both sides to contain it (far below what any sample can resolve).
* :func:`diffprivlib_geometric_truncated` -- diffprivlib's ``GeometricTruncated``,
  **white-box**: its only randomness is one ``random()`` call on a
  ``secrets.SystemRandom``, which returns ``j / 2**53`` for ``j`` uniform on
  ``[0, 2**53)``.  The adapter injects ``j`` and presents the mechanism as
  ``f(c, u)`` with ``d = 2**53``, reordering ``u -> j`` so that ``f`` is non-decreasing in
  ``u`` (diffprivlib's map ``j -> output`` falls on ``[0, 2**52)`` and rises on
  ``[2**52, 2**53)``); the exact white-box audit then gives the distribution diffprivlib
  *really* has, float rounding included.  ``j = 2**52`` (``random() == 0.5``) makes
  diffprivlib take ``log(0)`` and raise ``OverflowError``; the adapter maps that to the
  extra outcome ``upper + 1`` (labelled in :attr:`DiffprivlibGeometricTruncated.labels`)
  so that the audit can report its exact probability instead of stopping.
* :func:`diffprivlib_geometric_truncated_sampler` -- the same, black-box, with
  diffprivlib's default randomness.

Install the libraries with ``pip install 'exactdp[audit]'``; each factory raises
:class:`~exactdp.params.ParameterError` with that hint when its library is missing.
"""

from __future__ import annotations

import math
import secrets
import warnings
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from exactdp.certified import Interval, exp_interval
from exactdp.params import ParameterError, positive_int, to_fraction

__all__ = [
    "ClampedGeometricReference",
    "DiffprivlibGeometricTruncated",
    "OpenDPGeometric",
    "diffprivlib_geometric_truncated",
    "diffprivlib_geometric_truncated_sampler",
    "geometric_alpha",
    "opendp_geometric",
]

#: How far the reference ``alpha`` interval is widened around ``e**(-1/scale)`` for
#: OpenDP's f64-rounded success probability.
OPENDP_ALPHA_SLACK = Fraction(1, 1 << 40)


def _exact_float(q: Fraction, name: str) -> Any:
    """``q`` as a float, refusing any ``q`` that a float cannot hold exactly."""
    den = q.denominator
    if den & (den - 1) or abs(q.numerator).bit_length() > 53 or den.bit_length() > 1000:
        raise ParameterError(f"{name} = {q} is not exactly representable as a binary float; "
                             f"the audited library takes floats, so pass a dyadic value "
                             f"such as 2, 1/2 or 3/4")
    value = float(q)  # float: exact, checked above
    if Fraction(value) != q:  # pragma: no cover - guarded by the check above
        raise ParameterError(f"{name} = {q} did not convert exactly")
    return value


def geometric_alpha(rate: Fraction, slack: Fraction = Fraction(0)) -> Interval:
    """An interval containing ``e**(-rate)`` (widened by ``slack`` on both sides)."""
    box = exp_interval(-rate, 128)
    return Interval(max(box.lo - slack, Fraction(0)), min(box.hi + slack, Fraction(1)))


class ClampedGeometricReference:
    """Certified per-input reference of ``c + Z`` clamped to ``[lower, upper]``,
    ``Pr[Z = z] = (1-a)/(1+a) a**|z|`` with ``a`` known to lie in ``alpha``.

    Each probability is enclosed using the monotonicity of its factors in ``a``:
    ``a**j/(1+a)`` (the clamped ends) is increasing for ``j >= 1`` and decreasing for
    ``j = 0``; ``(1-a)/(1+a)`` is decreasing and ``a**j`` increasing.  ``extra`` outcomes
    (e.g. an error marker) get probability exactly 0.  Inputs outside the range are
    clamped into it first (as OpenDP's ``bounds`` do).
    """

    def __init__(self, lower: int, upper: int, alpha: Interval, what: str,
                 extra: tuple[int, ...] = ()) -> None:
        self.lower, self.upper, self.alpha, self.extra = lower, upper, alpha, extra
        self.description = (f"c + two-sided geometric clamped to [{lower}, {upper}], "
                            f"alpha = {what} in [{_dec(alpha.lo)}, {_dec(alpha.hi)}] "
                            f"(certified rational interval)")

    def _end(self, j: int) -> Interval:
        lo_a, hi_a = self.alpha.lo, self.alpha.hi
        if j == 0:
            return Interval(1 / (1 + hi_a), 1 / (1 + lo_a))
        return Interval(lo_a**j / (1 + lo_a), hi_a**j / (1 + hi_a))

    def __call__(self, c: int) -> dict[int, Interval]:
        lower, upper = self.lower, self.upper
        lo_a, hi_a = self.alpha.lo, self.alpha.hi
        cc = min(max(c, lower), upper)
        out: dict[int, Interval] = {}
        for z in range(lower, upper + 1):
            if lower == upper:
                out[z] = Interval(Fraction(1), Fraction(1))
            elif z == lower:
                out[z] = self._end(cc - lower)
            elif z == upper:
                out[z] = self._end(upper - cc)
            else:
                j = abs(z - cc)
                out[z] = Interval((1 - hi_a) / (1 + hi_a) * lo_a**j,
                                  (1 - lo_a) / (1 + lo_a) * hi_a**j)
        for z in self.extra:
            out[z] = Interval(Fraction(0), Fraction(0))
        return out


def _dec(q: Fraction, digits: int = 20) -> str:
    """``q`` in [0, 1] truncated to ``digits`` decimals, for reading (JSON stays exact)."""
    scaled = q.numerator * 10**digits // q.denominator
    text = str(scaled).rjust(digits + 1, "0")
    return f"{text[:-digits]}.{text[-digits:]}"


def _missing(library: str, exc: ImportError) -> ParameterError:
    return ParameterError(f"{library} is not installed ({exc}); install the optional audit "
                          f"extras with: pip install 'exactdp[audit]'")


class OpenDPGeometric:
    """OpenDP's geometric mechanism as a black-box sampler ``sampler(c) -> int``.

    Attributes used by :func:`exactdp.audit.blackbox_audit`: ``reference`` (certified
    intervals), ``outputs``, ``batch(c, k)`` (OpenDP's vector form: ``k`` independent
    draws in one call) and ``description``.  ``claimed_epsilon = 1/scale`` is OpenDP's
    pure-DP claim for sensitivity 1; ``library_epsilon`` is what OpenDP's own privacy map
    returns for ``d_in = 1`` (an f64, converted exactly).
    """

    def __init__(self, scale: object, bounds: tuple[int, int] | None = None,
                 window: tuple[int, int] = (0, 8)) -> None:
        try:
            import opendp.prelude as dp
        except ImportError as exc:
            raise _missing("opendp", exc) from None
        self.scale = to_fraction(scale, "scale")
        if self.scale <= 0:
            raise ParameterError(f"scale = {self.scale} must be positive")
        self.bounds = None if bounds is None else (int(bounds[0]), int(bounds[1]))
        lower, upper = self.bounds if self.bounds is not None else (int(window[0]), int(window[1]))
        if lower > upper:
            raise ParameterError(f"bounds/window ({lower}, {upper}) are empty")
        self.lower, self.upper = lower, upper
        self.outputs = range(lower, upper + 1)
        dp.enable_features("contrib")
        f_scale = _exact_float(self.scale, "scale")  # float: OpenDP's scale is an f64
        atom = (dp.atom_domain(T=int), dp.absolute_distance(T=int))
        vector = (dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int))
        self._scalar = atom >> dp.m.then_geometric(scale=f_scale, bounds=self.bounds)
        self._vector = vector >> dp.m.then_geometric(scale=f_scale, bounds=self.bounds)
        self.claimed_epsilon = 1 / self.scale
        self.library_epsilon = Fraction(self._scalar.map(1))  # float -> exact rational
        slack = OPENDP_ALPHA_SLACK if self.bounds is not None else Fraction(0)
        self.alpha = geometric_alpha(1 / self.scale, slack)
        self.reference = ClampedGeometricReference(
            lower, upper, self.alpha, f"e^(-1/{self.scale})"
            + (" widened by 2^-40 for OpenDP's f64 rounding" if self.bounds else ""))
        how = f"bounds={self.bounds}" if self.bounds is not None else \
            f"no bounds, output clamped to the window [{lower}, {upper}] by the adapter"
        self.description = f"opendp then_geometric(scale={self.scale}, {how})"

    def _clamp(self, v: int) -> int:
        return min(max(int(v), self.lower), self.upper)

    def __call__(self, c: int) -> int:
        return self._clamp(self._scalar(int(c)))

    def batch(self, c: int, k: int) -> list[int]:
        return [self._clamp(v) for v in self._vector([int(c)] * k)]


def opendp_geometric(scale: object, bounds: tuple[int, int] | None = None,
                     window: tuple[int, int] = (0, 8)) -> OpenDPGeometric:
    """``OpenDPGeometric(scale, bounds, window)`` (a factory for the CLI)."""
    return OpenDPGeometric(scale, bounds, window)


class _InjectedRandom(secrets.SystemRandom):
    """A ``secrets.SystemRandom`` (so diffprivlib accepts it) whose ``random()`` returns
    ``j / 2**53`` for the ``j`` set by the adapter -- exactly the values the real
    ``SystemRandom.random()`` produces, each with probability ``2**-53``."""

    j = 0

    def random(self) -> Any:
        return math.ldexp(self.j, -53)  # float: exact, j < 2**53


_HALF = 1 << 52
_D = 1 << 53


def _u_to_j(u: int) -> int:
    """The monotone reordering of ``[2**53]_+`` onto diffprivlib's ``j`` values.

    ``u`` in ``[1, 2**52]`` -> ``j = 2**52 - u`` (``random()`` just below 1/2 first: the
    most negative noise); ``u`` in ``[2**52 + 1, 2**53]`` -> ``j = 2**53 + 2**52 - u``
    (no noise first, then growing positive noise; ``u = 2**53`` is ``random() = 1/2``).
    A bijection, so ``f(c, U)`` has diffprivlib's distribution for ``U`` uniform.
    """
    return _HALF - u if u <= _HALF else _D + _HALF - u


class DiffprivlibGeometricTruncated:
    """diffprivlib's ``GeometricTruncated`` as a white-box counting mechanism ``f(c, u)``.

    ``d = 2**53``; ``monotone = True`` is *declared* from the derivation in the module
    docstring (diffprivlib's ``floor(log(.)/scale)`` is monotone in ``random()`` up to
    the monotonicity of the platform's float ``log``), and spot-checked by the audit.
    Outputs ``lower .. upper + 1``, where ``upper + 1`` means "raised OverflowError".
    """

    monotone = True
    d = _D

    def __init__(self, epsilon: object, lower: int, upper: int, sensitivity: int = 1) -> None:
        try:
            from diffprivlib.mechanisms import GeometricTruncated
        except ImportError as exc:
            raise _missing("diffprivlib", exc) from None
        self.epsilon = to_fraction(epsilon, "epsilon")
        self.sensitivity = positive_int(sensitivity, "sensitivity")
        self.lower, self.upper = int(lower), int(upper)
        if self.lower >= self.upper:
            raise ParameterError(f"need lower < upper, got {lower}, {upper}")
        self._rng = _InjectedRandom()
        self.mechanism = GeometricTruncated(
            epsilon=_exact_float(self.epsilon, "epsilon"),  # float: diffprivlib's epsilon
            sensitivity=self.sensitivity, lower=self.lower, upper=self.upper,
            random_state=self._rng)
        self.error_outcome = self.upper + 1
        self.labels = {self.error_outcome: "randomise raised OverflowError (random() == 0.5)"}
        self.outputs = range(self.lower, self.upper + 2)
        self.claimed_epsilon = self.epsilon
        self.alpha = geometric_alpha(self.epsilon / self.sensitivity)
        self.reference = ClampedGeometricReference(
            self.lower, self.upper, self.alpha, f"e^(-{self.epsilon / self.sensitivity})",
            extra=(self.error_outcome,))
        self.description = (f"diffprivlib GeometricTruncated(epsilon={self.epsilon}, "
                            f"sensitivity={self.sensitivity}, lower={self.lower}, "
                            f"upper={self.upper}) [white-box: random() injected]")

    def __repr__(self) -> str:
        return self.description

    def __call__(self, c: int, u: int) -> int:
        if isinstance(u, bool) or not isinstance(u, int) or not 1 <= u <= _D:
            raise ParameterError(f"u = {u!r} must be an int in [1, 2**53]")
        self._rng.j = _u_to_j(u)
        try:
            import numpy as np
            with warnings.catch_warnings(), np.errstate(divide="ignore"):
                warnings.simplefilter("ignore", RuntimeWarning)
                return int(self.mechanism.randomise(int(c)))
        except OverflowError:
            return self.error_outcome


def diffprivlib_geometric_truncated(epsilon: object, lower: int, upper: int,
                                    sensitivity: int = 1) -> DiffprivlibGeometricTruncated:
    """``DiffprivlibGeometricTruncated(...)`` (a factory for the CLI)."""
    return DiffprivlibGeometricTruncated(epsilon, lower, upper, sensitivity)


class _DiffprivlibSampler:
    def __init__(self, epsilon: object, lower: int, upper: int, sensitivity: int) -> None:
        wb = DiffprivlibGeometricTruncated(epsilon, lower, upper, sensitivity)
        from diffprivlib.mechanisms import GeometricTruncated
        self.mechanism = GeometricTruncated(
            epsilon=_exact_float(wb.epsilon, "epsilon"),  # float: diffprivlib's epsilon
            sensitivity=wb.sensitivity, lower=wb.lower, upper=wb.upper)
        self.reference = wb.reference
        self.outputs = wb.outputs
        self.error_outcome = wb.error_outcome
        self.claimed_epsilon = wb.epsilon
        self.description = (f"diffprivlib GeometricTruncated(epsilon={wb.epsilon}, "
                            f"sensitivity={wb.sensitivity}, lower={wb.lower}, upper={wb.upper}) "
                            f"[black-box, its default secrets.SystemRandom]")

    def __call__(self, c: int) -> int:
        try:
            return int(self.mechanism.randomise(int(c)))
        except OverflowError:
            return self.error_outcome


def diffprivlib_geometric_truncated_sampler(epsilon: object, lower: int, upper: int,
                                            sensitivity: int = 1) -> Callable[[int], int]:
    """diffprivlib's ``GeometricTruncated`` as a black-box sampler with its own randomness."""
    return _DiffprivlibSampler(epsilon, lower, upper, sensitivity)
