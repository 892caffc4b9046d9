"""Operation traces of a counting sampler, and the strict-time check on them.

A sampler meets the strict-time claim when the sequence of operations it performs does not
depend on its input ``c`` (Balcer & Vadhan's strict running time; their samplers make one draw
and then a fixed-round search, Theorem 4.7).  :func:`operation_trace` records that sequence for
one ``(c, u)`` by running the implementation on a fixed draw; :func:`check_strict_time`
compares the traces of every ``c`` at a set of draws.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from types import FrameType

from exactdp.certificate import Certificate
from exactdp.counting import InverseCDFSampler
from exactdp.params import DomainError, ParameterError
from exactdp.randomness import RandomSource, check_domain_size
from exactdp.trace import Event, record, recording

__all__ = ["TRACED_CALLS", "FixedSource", "check_strict_time", "operation_trace"]


class FixedSource(RandomSource):
    """Returns the given values of ``u`` in order (checked against each ``d``)."""

    def __init__(self, *values: int) -> None:
        self._values = list(values)

    def uniform(self, d: int) -> int:
        check_domain_size(d)
        if not self._values:
            raise DomainError("FixedSource ran out of values")
        u = self._values.pop(0)
        if not 1 <= u <= d:
            raise DomainError(f"FixedSource value {u} is outside [1, {d}]")
        return u


class _TracingSource(RandomSource):
    def __init__(self, inner: RandomSource) -> None:
        self.inner = inner

    def uniform(self, d: int) -> int:
        record("uniform", d)
        return self.inner.uniform(d)


#: Functions whose every call is part of an operation trace (by code name): the CDF
#: evaluations, whether or not the code under test reports them itself.
TRACED_CALLS = frozenset({"cdf", "search_cdf"})


def operation_trace(mech: InverseCDFSampler, c: int, u: int) -> tuple[Event, ...]:
    """The operations of ``mech.sample(c)`` when the draw returns ``u``, in order: draw
    domain sizes ``("uniform", d)``, the events the code records itself (``("cdf",)`` per
    search round), and every call of a function named in :data:`TRACED_CALLS`
    (``("call", name)``, seen through :func:`sys.setprofile`, so a loop that evaluates the
    CDF a data-dependent number of times shows even if it records nothing)."""

    def hook(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and frame.f_code.co_name in TRACED_CALLS:
            record("call", frame.f_code.co_name)

    with recording() as events:
        previous = sys.getprofile()
        sys.setprofile(hook)
        try:
            mech.sample(c, _TracingSource(FixedSource(u)))
        finally:
            sys.setprofile(previous)
    return tuple(events)


def _text(x: object) -> str:
    """``str(x)`` for a trace sample in a certificate; an int of more than 256 bits (``d``
    may have millions) is described by its size instead of printed."""
    if isinstance(x, int) and not isinstance(x, bool) and x.bit_length() > 256:
        return f"<an int of {x.bit_length()} bits>"
    return str(x)


def check_strict_time(mech: InverseCDFSampler, us: Iterable[int] | None = None) -> Certificate:
    """The strict-time claim: the trace of ``mech.sample`` is the same for every ``c`` --
    and, as checked here, for every ``u`` too (one reference trace for all ``(c, u)``; the
    paper's samplers meet this stronger form: one draw, then a fixed-round search).

    ``us``: the draws to try (default: all of ``[d]_+`` when ``d <= 256``, otherwise
    ``1, 2, d//2, d-1, d`` and the thresholds ``F_c(z)``, ``F_c(z)+1`` for ``c`` in
    ``{0, n//2, n}``, i.e. draws that land on every output at both ends and the middle).
    """
    d, n = mech.d, mech.n
    if us is None:
        if d <= 256:
            us = range(1, d + 1)
        else:
            pts = {1, 2, d // 2, d - 1, d}
            for c in sorted({0, n // 2, n}):
                for z in range(n + 1):
                    f = mech.cdf(c, z)
                    pts.update(v for v in (f, f + 1) if 1 <= v <= d)
            us = sorted(pts)
    us = list(us)
    if not us:
        raise ParameterError("check_strict_time: no values of u to try")
    reference = operation_trace(mech, 0, us[0])
    for u in us:
        for c in range(n + 1):
            tr = operation_trace(mech, c, u)
            if tr != reference:
                return Certificate(
                    "strict time", repr(mech), {"n": n}, f"c in [0,{n}], {len(us)} values of u",
                    None, "identical traces", False,
                    {"c": c, "u": u, "trace": [[_text(x) for x in e] for e in tr],
                     "reference": [[_text(x) for x in e] for e in reference]})
    return Certificate(
        "strict time", repr(mech), {"n": n}, f"c in [0,{n}], {len(us)} values of u",
        len(reference), "identical traces", True,
        {"trace_length": len(reference), "trace": [[_text(x) for x in e] for e in reference[:3]]})
