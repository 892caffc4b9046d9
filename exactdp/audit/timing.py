"""The timing verdict of an exploring white-box audit: judged on what an observer sees.

An observer of a mechanism sees its output and how long it ran.  Each explored path of a
mechanism drawing from a facade or an exactdp source has a *trace*: the sequence of its
draws (domain sizes), the operation count of the audited code (the loop iterations and
calls among the bytecode instructions it executed), and its calls of sleep/clock/output functions (:mod:`exactdp.audit.bytecode`).  The timing
verdict is the privacy claim itself, checked exactly on the joint law of (output, trace)
per input: TIMING is reported only when that joint law breaks the claim.  A trace that is
a function of the output (sparse vector halting after ``c`` answers) adds nothing to the
output and passes; a trace that varies with the input beyond the output (a loop over the
input, ``sleep(0.05 * c)``, a CDF walk returning early) is caught with its witness: the two
inputs, the output, the draws and the two operation counts.

Paths are timed warm: the first call on an input (and, once the code keeps a memo, every
path's first run: :meth:`exactdp.audit.escape.Watch.restore`) runs cold -- a logger fills
its level cache, a memo its entry -- and must give the output of its re-run with the same
draws, whose trace is the path's.  Outputs are compared as an observer sees them
(:mod:`exactdp.audit.outcomes`: ``False`` is not ``0``), so two outcomes that Python calls
equal never mix their traces.

Not covered: the time one instruction takes (big-integer operand sizes) and C code
(:data:`~exactdp.audit.bytecode.NOT_COVERED`); an optional black-box test of wall-clock
times is :func:`exactdp.audit.wallclock.wall_clock_test`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from exactdp.audit.bytecode import NOT_COVERED
from exactdp.audit.report import Distribution, TraceResult
from exactdp.checker import certify_ratio, hockey_stick_eps, worst_ratio
from exactdp.ratio_bounds import BoundsCache

__all__ = ["COMPARED", "timing_result"]

#: What the trace of a path holds, in words.
COMPARED = ("draw sequence, operation count (loop iterations and calls among the bytecode "
            "instructions the audited code executed) and its sleep/clock/output calls")


def _draws(trace: Any) -> list[str]:
    return [" ".join(map(str, e)) for e in trace[0]]


def _calls(trace: Any) -> list[str]:
    return [" ".join(map(str, e)) for e in trace[2]]


def timing_result(joints: Mapping[Any, Mapping[Any, Fraction]], inputs: Sequence[Any],
                  pairs: Sequence[tuple[Any, Any]], eps: Any, delta: Fraction
                  ) -> TraceResult:
    """The claim ``(eps, delta)`` checked on the joint law of (output, trace) of each input:
    ``joints[c]`` maps ``(output, trace)`` to its exact probability, a trace being ``(draw
    events, operation count, calls)``."""
    lengths: set[int] = set()
    count_set: set[Any] = set()
    empty = True
    for c in inputs:  # over the keys, without hashing each trace (long for a deep path)
        for _, t in joints[c]:
            lengths.add(len(t[0]))
            count_set.add(t[1])
            if empty and (t[0] or t[1] or t[2]):
                empty = False
    counts = sorted(count_set)
    examined = (f"the joint law of (output, trace) per input against the claim, exactly; "
                f"trace = {COMPARED}; not covered: {NOT_COVERED}")
    if empty:
        examined += ("; the trace is empty on every path (no draws, no operation of the "
                     "audited code, no calls): nothing was compared")
    ordered = []
    for a, b in pairs:
        ordered.append((a, joints[a], b, joints[b]))
        ordered.append((b, joints[b], a, joints[a]))
    cache = BoundsCache()  # each joint law read once for all its pairs
    worst = worst_ratio(ordered, cache)
    ok, _ = certify_ratio(worst, eps)
    if delta > 0:
        from exactdp.audit.judge import _decide_hockey_stick  # judge imports this module
        ok = all(_decide_hockey_stick(pa, pb, eps, delta, cache=cache)[0] == "holds"
                 for _, pa, _, pb in ordered)
    one = lengths.pop() if len(lengths) == 1 else None
    note = "" if len(counts) <= 1 else (
        f"operation counts {counts[0]}..{counts[-1]} over the paths; the joint law of "
        f"(output, trace) meets the claim")
    if not ok:
        outs = {c: output_law(joints[c]) for c in inputs}
        alone = worst_ratio([(a, outs[a], b, outs[b]) for a, _, b, _ in ordered])
        if not certify_ratio(alone, eps)[0]:
            ok = True
            note = ("not judged apart from the output: the output alone breaks the claim "
                    "(see above)")
    if ok:
        return TraceResult(True, examined, one, randomness_note=note)
    out, trace = worst.outcome
    a, b = worst.numerator_input, worst.denominator_input
    others = [t for (o, t), p in joints[b].items() if o == out and t[0] == trace[0] and p]
    same = sorted({t[1] for t in others})
    witness = {"inputs": [a, b], "output": out, "draws": _draws(trace),
               "operation_count": {"on": a, "count": trace[1]},
               "operation_counts_other": {"on": b, "counts": same},
               "calls": _calls(trace),
               "calls_other": sorted({" | ".join(_calls(t)) for t in others}),
               "probability": str(worst.p), "other_probability": str(worst.q),
               "ratio": "infinite" if worst.ratio is None else str(worst.ratio)}
    if delta > 0:
        witness["hockey_stick"] = str(hockey_stick_eps(joints[a], joints[b], eps,
                                                       cache=cache).lo)
    return TraceResult(False, examined, one, witness)


def output_law(joint: Mapping[Any, Fraction]) -> Distribution:
    """The law of the output alone from the joint law of (output, trace)."""
    dist: Distribution = {}
    for (out, _), p in joint.items():
        was = dist.get(out)
        # the first trace of an output: Fraction(0) + p without the addition
        dist[out] = (p if type(p) is Fraction else Fraction(0) + p) if was is None else was + p
    return dist

