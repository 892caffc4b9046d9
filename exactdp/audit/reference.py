"""Reference distributions an audit compares the mechanism with, validated exactly.

A reference gives, for each input, the probability of each outcome: exactly (a
:class:`~fractions.Fraction`) or as an :class:`~exactdp.certified.Interval` known to contain
it (for irrational probabilities such as ``e**(-1/scale)`` terms).  An exactdp mechanism
(:class:`~exactdp.counting.InverseCDFSampler`, :class:`~exactdp.counting.GeometricMechanism`)
is read off its own implementation or closed form.  A user's reference is checked before
use: exact probabilities in ``[0, 1]`` (a float is refused), exact ones summing to exactly
1, intervals whose ends enclose 1 -- a wrong reference would make every fit test wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from exactdp.audit.guard import Abort, Guard, check_observed, describe, show
from exactdp.certified import Interval
from exactdp.checker import counting_distribution, statistical_distance
from exactdp.counting import GeometricMechanism, InverseCDFSampler
from exactdp.params import ParameterError, ParameterTypeError, to_fraction

__all__ = ["RefDistribution", "Reference", "describe_reference", "interval_distance",
           "reference_distributions"]

#: A reference: exact probabilities, or intervals known to contain them.
RefDistribution = Mapping[Any, Fraction | Interval]
Reference = (InverseCDFSampler | GeometricMechanism | Callable[[Any], RefDistribution]
             | Mapping[Any, RefDistribution])


def interval_distance(p: Mapping[Any, Fraction], ref: RefDistribution) -> Fraction | Interval:
    """``Delta(P, R)`` exactly, or as an interval when ``R`` has interval entries."""
    if all(isinstance(v, Fraction) for v in ref.values()):
        return statistical_distance(p, {k: v for k, v in ref.items()
                                        if isinstance(v, Fraction)})
    zero = Fraction(0)
    lo = hi = zero
    for o in set(p) | set(ref):
        x = p.get(o, zero)
        r = ref.get(o, zero)
        r_lo, r_hi = (r.lo, r.hi) if isinstance(r, Interval) else (r, r)
        lo += max(zero, r_lo - x, x - r_hi)
        hi += max(abs(x - r_lo), abs(x - r_hi))
    return Interval(lo / 2, hi / 2)


def reference_distributions(reference: Reference, inputs: Sequence[Any],
                            time_limit: int | None = None) -> dict[Any, RefDistribution]:
    """The reference's distribution for each input (exact or interval-valued), validated.

    An :class:`InverseCDFSampler` is read off its implementation with the checker; a
    :class:`GeometricMechanism` gives its closed form; a mapping or callable gives
    whatever it holds for each input, which is checked (see the module docstring).  A
    reference that raises, hangs (``time_limit`` seconds per input) or holds anything
    else is a :class:`~exactdp.params.ParameterError` naming the input and outcome.
    """
    name = describe_reference(reference)
    out: dict[Any, RefDistribution] = {}
    guard = Guard(time_limit)
    for c in inputs:
        if isinstance(reference, InverseCDFSampler):
            out[c] = counting_distribution(reference, c)
            continue
        if isinstance(reference, GeometricMechanism):
            out[c] = dict(enumerate(reference.distribution(c)))
            continue
        try:
            if isinstance(reference, Mapping):
                if c not in reference:
                    raise ParameterError(f"reference {name}: no distribution for input {c!r}")
                raw = reference[c]
            else:
                raw = guard.call(reference, (c,), f"reference({c!r})", {"c": c})
        except Abort as abort:
            raise ParameterError(f"reference {name}: {abort.finding.message}") from None
        out[c] = _validated(raw, name, c)
    return out


def _validated(raw: object, name: str, c: Any) -> RefDistribution:
    where = f"reference {name} at input {c!r}"
    if not isinstance(raw, Mapping):
        raise ParameterTypeError(f"{where} is a {type(raw).__name__}, not a mapping "
                                 f"outcome -> probability")
    dist: dict[Any, Fraction | Interval] = {}
    lo_sum = hi_sum = Fraction(0)
    exact = True
    for o, p in raw.items():
        try:
            key = check_observed(o, None, f"{where}: an outcome", {})
        except Abort as abort:
            raise ParameterError(abort.finding.message) from None
        if isinstance(p, Interval):
            lo, hi = p.lo, p.hi
            exact = False
            value: Fraction | Interval = p
        else:
            value = lo = hi = to_fraction(p, f"{where}: Pr[{show(o, 30)}]")
        if not 0 <= lo <= hi <= 1:
            raise ParameterError(f"{where}: Pr[{show(o, 30)}] = {show(p, 60)} is not a "
                                 f"probability in [0, 1]")
        dist[key] = value
        lo_sum += lo
        hi_sum += hi
    if exact and lo_sum != 1:
        raise ParameterError(f"{where}: the probabilities sum to {show(lo_sum, 60)}, not "
                             f"exactly 1")
    if not exact and not lo_sum <= 1 <= hi_sum:
        raise ParameterError(f"{where}: the probability intervals sum to "
                             f"[{show(lo_sum, 40)}, {show(hi_sum, 40)}], which excludes 1")
    return dist


def describe_reference(reference: Reference) -> str:
    if isinstance(reference, (InverseCDFSampler, GeometricMechanism)):
        return repr(reference)
    return describe(reference)
