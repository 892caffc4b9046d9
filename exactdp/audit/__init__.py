r"""Auditing other people's DP code: exact white-box audits and honest black-box audits.

**White-box** (:func:`whitebox_audit`, :mod:`exactdp.audit.whitebox`): the auditor makes
the mechanism's randomness explicit (``f(c, u)`` with ``u`` in ``[d]_+``, or
``f(c, source)`` drawing from a :class:`~exactdp.randomness.RandomSource`), and the output
distribution on every input is computed *exactly* from ``f`` itself; from it the exact
worst privacy-loss ratio with its witness, infinite-loss outcomes, the hockey-stick
``delta``, the distance to a reference.

**Black-box** (:func:`blackbox_audit`, :mod:`exactdp.audit.blackbox`): for code whose
randomness cannot be reached we only sample -- exact binomial fit tests and a
sample-split Clopper--Pearson bound on the privacy loss, each at a stated false-alarm
probability; never "private": at best "no violation detected", with the power stated.

**Operation traces** (the strict-time claim).  Counting kind: for each
``u`` of a set (the thresholds of the first input and the ends of ``[d]_+``), the events of
one call ``f(c, u)`` -- exactdp's own trace events plus every call of a Python function
named in ``trace_calls`` (default ``("cdf",)``, recorded with :func:`sys.setprofile`) --
must be the same for every input ``c`` (the same ``u`` throughout: work that varies with
``u`` alone is no channel on the input; it is reported as information, since it does tell a
timing observer something about ``u``, and the privacy ratios are those of the output
alone).  Source kind (and code behind a facade): the trace of each explored path -- its draw
sequence, its operation count (loop iterations and calls of the audited code's bytecode)
and its sleep/clock/output calls -- is judged with the output: the claim is checked
exactly on the joint law of (output, trace) of every input, and a break that the output
alone does not show is a timing side channel (TIMING) that makes the verdict
``"violation"`` (:mod:`exactdp.audit.timing`; not covered: C code and big-integer operand
sizes -- an optional wall-clock test is :mod:`exactdp.audit.wallclock`).

**Robustness.**  A mechanism that raises (``SystemExit`` included), hangs, returns
something that is not an exact outcome (``None``, nan, an unhashable value; a float counts
as its exact value, a list or numpy array as the tuple of its items) or lies
outside its declared outputs, is not a deterministic function of its randomness, or draws
more randomness than declared produces a report with verdict ``"broken"`` and a finding that
names the input and the randomness where it happened -- never a traceback, in both the
white-box and the black-box audit.  A target that cannot be loaded, a bad declaration and
an audit too large to run are :class:`~exactdp.params.ExactDPError`\ s raised before any
sampling.  Ctrl-C (``KeyboardInterrupt``) is never turned into a finding.

The package, one module per idea: :mod:`~exactdp.audit.guard` (calling audited code:
time limits, findings, outcome checks), :mod:`~exactdp.audit.targets` (loading targets,
ranges, claimed parameters, the audit's size), :mod:`~exactdp.audit.reference`,
:mod:`~exactdp.audit.whitebox`, :mod:`~exactdp.audit.escape` (white-box runs whose
randomness escaped the exploration: guards on unmodelled entropy, path re-runs),
:mod:`~exactdp.audit.blackbox`, :mod:`~exactdp.audit.report`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from exactdp.audit.blackbox import blackbox_audit, privacy_test_rejects
    from exactdp.audit.guard import DEFAULT_TIME_LIMIT, Finding, check_outcome
    from exactdp.audit.reference import RefDistribution, Reference, reference_distributions
    from exactdp.audit.report import (
        EXIT_CODES,
        BlackBoxReport,
        FitResult,
        PrivacyTest,
        TraceResult,
        Verdict,
        WhiteBoxReport,
    )
    from exactdp.audit.targets import (
        MAX_CALLS,
        MAX_INPUTS,
        check_alpha,
        check_delta,
        check_epsilon,
        check_time_limit,
        load_target,
        parse_range,
    )
    from exactdp.audit.whitebox import ENUMERATION_LIMIT, whitebox_audit

#: each public name's module: imported on the name's first use (PEP 562), so that a process
#: that needs one module of the package (another process replaying paths) imports that
#: module alone, not the black-box audit and the reports too
_HOMES = {
    "blackbox_audit": "blackbox", "privacy_test_rejects": "blackbox",
    "DEFAULT_TIME_LIMIT": "guard", "Finding": "guard", "check_outcome": "guard",
    "RefDistribution": "reference", "Reference": "reference",
    "reference_distributions": "reference",
    "EXIT_CODES": "report", "BlackBoxReport": "report", "FitResult": "report",
    "PrivacyTest": "report", "TraceResult": "report", "Verdict": "report",
    "WhiteBoxReport": "report",
    "MAX_CALLS": "targets", "MAX_INPUTS": "targets", "check_alpha": "targets",
    "check_delta": "targets", "check_epsilon": "targets", "check_time_limit": "targets",
    "load_target": "targets", "parse_range": "targets",
    "ENUMERATION_LIMIT": "whitebox", "whitebox_audit": "whitebox",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # (looked up here once)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "DEFAULT_TIME_LIMIT",
    "ENUMERATION_LIMIT",
    "EXIT_CODES",
    "MAX_CALLS",
    "MAX_INPUTS",
    "BlackBoxReport",
    "Finding",
    "FitResult",
    "PrivacyTest",
    "RefDistribution",
    "Reference",
    "TraceResult",
    "Verdict",
    "WhiteBoxReport",
    "blackbox_audit",
    "check_alpha",
    "check_delta",
    "check_epsilon",
    "check_outcome",
    "check_time_limit",
    "load_target",
    "parse_range",
    "privacy_test_rejects",
    "reference_distributions",
    "whitebox_audit",
]
