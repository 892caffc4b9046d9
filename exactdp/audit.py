"""Auditing other people's DP code: exact white-box audits and honest black-box audits.

**White-box** (:func:`whitebox_audit`): the auditor can make the mechanism's randomness
explicit, either

* as a counting mechanism ``f(c, u)`` with ``u`` uniform on ``[d]_+`` (``d`` passed in or
  read from ``f.d``; an :class:`~exactdp.counting.InverseCDFSampler` qualifies), or
* as code ``f(c, source)`` that draws from a :class:`~exactdp.randomness.RandomSource`
  we pass in, which is then run under the checker's exploring source
  (:func:`exactdp.explore.explore`).

The output distribution for every input of the stated domain is then *exact*, obtained by
calling ``f`` itself (the checker's :func:`~exactdp.checker.enumerate_distribution` for
small ``d``; for large ``d`` and ``f`` declared non-decreasing in ``u``, the checker's
threshold search, whose result is exact *given* monotonicity -- spot-checked, and said so
in the report).  From the distributions: the exact worst privacy-loss ratio over
neighbouring inputs with its witness, compared with ``e**eps`` for the claimed ``eps``
through certified bounds (:func:`~exactdp.checker.certify_ratio`); every outcome
possible on one input and impossible on its neighbour (infinite loss); the hockey-stick
``delta`` at the claimed ``eps`` (an interval, since ``e**eps`` is irrational); the
statistical distance to a reference; and an operation-trace comparison (strict time).

**Black-box** (:func:`blackbox_audit`): for code whose randomness cannot be reached we
only sample, and say exactly what the samples can and cannot show:

* a goodness-of-fit test against an exact reference distribution: one exact two-sided
  binomial test per (input, outcome), Bonferroni-corrected, computed with certified
  binomial tails (:mod:`exactdp.binomial`), so the stated false-alarm probability is
  honoured exactly (not asymptotically, as a chi-square statistic would be);
* a lower confidence bound on the privacy loss of the most distinguishing outcome set,
  with sample splitting: one batch of draws *selects* the neighbour pair and outcome set,
  a fresh batch *estimates* it with Clopper--Pearson bounds on both sides (choosing the
  set from the same samples that bound it would void the confidence statement);
* never "private": at best "no violation detected", with the power stated.

**Operation traces** (the strict-time claim, DESIGN.md rule 2).  Counting kind: for each
``u`` of a set (the thresholds of the first input and the ends of ``[d]_+``), the events of
one call ``f(c, u)`` -- exactdp's own trace events plus every call of a Python function
named in ``trace_calls`` (default ``("cdf",)``, recorded with :func:`sys.setprofile`) --
must be the same for every input ``c`` (the same ``u`` throughout: work that varies with
``u`` alone is no channel on the input; it is reported as information, since it does tell a
timing observer something about ``u``, and the privacy ratios are those of the output
alone).  Source kind: the distribution of the sequence of draws (domain sizes, in order)
must be the same for every input.  A difference is a timing side channel on the input and
makes the verdict ``"violation"`` even when the output distributions are private.

**Robustness.**  A mechanism that raises, hangs, returns something outside its declared
outputs, returns unhashable values, is not a deterministic function of its randomness,
or draws more randomness than declared produces a report with verdict ``"broken"`` and a
finding that names the input and the randomness where it happened -- never a traceback.

Time limits are signal-based (``SIGALRM`` through :func:`signal.setitimer`, per call of
the mechanism).  Why not a subprocess: an audit calls ``f`` up to millions of times (a
process per call is far too slow) and a third party's callable (a closure, a bound
method of a native library object) usually cannot be pickled into another process.  The
price: the limit is enforced only in the main thread, and a hang inside native code that
never returns to the interpreter is interrupted only when it does return (elsewhere the
elapsed time is still measured after the call and reported).
"""

from __future__ import annotations

import ast
import importlib
import math
import numbers
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import FrameType
from typing import Any, Literal

from exactdp.binomial import (
    CriticalCounts,
    clopper_pearson_lower,
    clopper_pearson_upper,
    critical_counts,
    upper_tail,
)
from exactdp.certificate import exact_json
from exactdp.certified import Interval, exp_interval, ln_interval
from exactdp.checker import (
    NotMonotoneError,
    RatioWitness,
    certify_ratio,
    counting_distribution,
    enumerate_distribution,
    hockey_stick_eps,
    statistical_distance,
    threshold_distribution,
    worst_ratio,
)
from exactdp.counting import GeometricMechanism, InverseCDFSampler
from exactdp.explore import ExplorationLimitError, NondeterminismError, explore
from exactdp.params import DomainError, ParameterError, positive_int, to_fraction
from exactdp.randomness import InverseCDFDraw, RandomSource, check_domain_size
from exactdp.trace import Event, recording

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "BlackBoxReport",
    "Finding",
    "PrivacyTest",
    "Reference",
    "WhiteBoxReport",
    "blackbox_audit",
    "load_target",
    "parse_range",
    "privacy_test_rejects",
    "reference_distributions",
    "whitebox_audit",
]

#: Default limit, in whole seconds, on one call of the audited mechanism.
DEFAULT_TIME_LIMIT = 10
#: Default largest ``d`` enumerated by the white-box audit (above it: threshold search).
ENUMERATION_LIMIT = 1 << 14

Verdict = Literal["pass", "violation", "broken", "mismatch", "no violation detected"]
Progress = Callable[[str], None] | None
Outcome = Hashable
Distribution = dict[Any, Fraction]
#: A reference: exact probabilities, or intervals known to contain them.
RefDistribution = Mapping[Any, Fraction | Interval]
Reference = (InverseCDFSampler | GeometricMechanism | Callable[[Any], RefDistribution]
             | Mapping[Any, RefDistribution])

EXIT_CODES: dict[str, int] = {"pass": 0, "no violation detected": 0, "violation": 1,
                              "mismatch": 1, "broken": 3}


@dataclass(frozen=True)
class Finding:
    """Something wrong with the audited code itself (it raised, hung, left its range...)."""

    kind: str
    message: str
    witness: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "witness": exact_json(self.witness)}


class _Abort(BaseException):
    """Stops an audit at a faulty call.  A BaseException, so that the audited code's own
    ``except Exception`` cannot swallow it."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


def _check_output(value: Any, allowed: Any, call: str, c: Any, where: str = "",
                  extra: dict[str, Any] | None = None) -> None:
    """Abort with a finding unless ``value`` is hashable and (when ``allowed`` is given)
    one of the declared outputs."""
    try:
        hash(value)
    except TypeError:
        raise _Abort(Finding("bad_output", f"{call} returned the unhashable "
                             f"{type(value).__name__} {value!r}", {"c": c})) from None
    if allowed is not None and value not in allowed:
        raise _Abort(Finding("out_of_range", f"{call} returned {value!r}, outside the declared "
                             f"outputs{where}", {"c": c, "value": value, **(extra or {})}))


class _Timeout(BaseException):
    pass


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise _Timeout


@contextmanager
def _time_limit(seconds: int | None) -> Iterator[None]:
    """Raise :class:`_Timeout` in the block after ``seconds`` (main thread, POSIX only)."""
    if not seconds or threading.current_thread() is not threading.main_thread() \
            or not hasattr(signal, "setitimer"):
        yield
        return
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _describe(obj: object) -> str:
    description = getattr(obj, "description", None)
    if isinstance(description, str):
        return description
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    module = getattr(obj, "__module__", None)
    if name and module:
        return f"{module}.{name}"
    return repr(obj)


class _Guard:
    """Calls the audited code with a time limit and turns its failures into findings."""

    def __init__(self, time_limit: int | None) -> None:
        self.time_limit = time_limit

    def call(self, fn: Callable[..., Any], args: tuple[Any, ...], what: str,
             witness: Mapping[str, Any]) -> Any:
        start = time.monotonic_ns()
        try:
            with _time_limit(self.time_limit):
                result = fn(*args)
        except _Timeout:
            raise _Abort(Finding("timeout", f"{what} did not return within {self.time_limit} s "
                                 f"(interrupted)", dict(witness))) from None
        except (_Abort, ExplorationLimitError, NondeterminismError):
            raise
        except Exception as exc:  # noqa: BLE001 - the audited code's failure: report it
            raise _Abort(Finding("raised", f"{what} raised {type(exc).__name__}: {exc}",
                                 dict(witness))) from None
        if self.time_limit and time.monotonic_ns() - start > self.time_limit * 10**9:
            raise _Abort(Finding("timeout", f"{what} took longer than {self.time_limit} s",
                                 dict(witness)))
        return result


def _as_int(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return int(value)


# --------------------------------------------------------------------------- parsing helpers

def parse_range(text: str) -> range:
    """``"0..8"`` -> ``range(0, 9)`` (both ends included; negative ends allowed)."""
    parts = text.strip().split("..")
    if len(parts) != 2:
        raise ParameterError(f"range {text!r} must look like 'LO..HI', e.g. '0..8'")
    try:
        lo, hi = int(parts[0]), int(parts[1])
    except ValueError:
        raise ParameterError(f"range {text!r}: both ends must be integers") from None
    if lo > hi:
        raise ParameterError(f"range {text!r} is empty (LO > HI)")
    return range(lo, hi + 1)


def load_target(spec: str) -> Any:
    """Import ``"package.module:name"``, or call ``"package.module:factory(k=v, ...)"``.

    Factory arguments must be Python literals (numbers, strings, tuples, None, ...),
    parsed with :func:`ast.literal_eval`; nothing else is evaluated.
    """
    if ":" not in spec:
        raise ParameterError(f"target {spec!r} must look like 'module:callable'")
    module_name, _, rest = spec.partition(":")
    rest = rest.strip()
    call = None
    if rest.endswith(")") and "(" in rest:
        name = rest[:rest.index("(")].strip()
        call = rest[rest.index("("):]
    else:
        name = rest
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ParameterError(f"cannot import module {module_name!r}: {exc}") from None
    obj: Any = module
    for part in name.split("."):
        if not hasattr(obj, part):
            raise ParameterError(f"module {module_name!r} has no attribute {name!r}")
        obj = getattr(obj, part)
    if call is None:
        return obj
    try:
        node = ast.parse(f"f{call}", mode="eval").body
    except SyntaxError:
        raise ParameterError(f"cannot parse the arguments {call!r}") from None
    if not isinstance(node, ast.Call):
        raise ParameterError(f"cannot parse the arguments {call!r}")
    try:
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    except ValueError:
        raise ParameterError(f"arguments {call!r} must be literals (numbers, strings, "
                             f"tuples)") from None
    return obj(*args, **kwargs)


# --------------------------------------------------------------------------- references

def _interval_distance(p: Mapping[Any, Fraction], ref: RefDistribution) -> Fraction | Interval:
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


def reference_distributions(reference: Reference, inputs: Sequence[Any]) -> dict[Any, RefDistribution]:
    """The reference's distribution for each input (exact or interval-valued).

    An :class:`InverseCDFSampler` is read off its implementation with the checker; a
    :class:`GeometricMechanism` gives its closed form; a mapping or callable gives
    whatever it holds for each input.
    """
    out: dict[Any, RefDistribution] = {}
    for c in inputs:
        if isinstance(reference, InverseCDFSampler):
            out[c] = counting_distribution(reference, c)
        elif isinstance(reference, GeometricMechanism):
            out[c] = dict(enumerate(reference.distribution(c)))
        elif isinstance(reference, Mapping):
            out[c] = reference[c]
        else:
            out[c] = reference(c)
    return out


def _describe_reference(reference: Reference) -> str:
    if isinstance(reference, (InverseCDFSampler, GeometricMechanism)):
        return repr(reference)
    return _describe(reference)


# --------------------------------------------------------------------------- white-box

class _CountingAdapter(InverseCDFSampler):
    """Presents a third party's ``f(c, u)`` to the checker as a counting mechanism.

    Outputs are shifted by ``outputs.start`` so that the checker sees ``[0, n]``; every
    call is guarded (time limit, exceptions) and its value validated.
    """

    def __init__(self, f: Callable[[int, int], Any], d: int, outputs: range,
                 guard: _Guard) -> None:
        self.f = f
        self._d = d
        self.outputs = outputs
        self.n = len(outputs) - 1
        self.guard = guard
        inner_cdf = getattr(f, "cdf", None)
        self.has_cdf = isinstance(f, InverseCDFSampler) and callable(inner_cdf)

    @property
    def d(self) -> int:
        return self._d

    def value(self, c: int, u: int) -> int:
        """``f(c, u)`` itself, validated (not shifted)."""
        z = self.guard.call(self.f, (c, u), f"f({c}, {u})", {"c": c, "u": u})
        zi = _as_int(z)
        if zi is None:
            raise _Abort(Finding("bad_output", f"f({c}, {u}) returned {z!r} of type "
                                 f"{type(z).__name__}, not an int", {"c": c, "u": u}))
        if zi not in self.outputs:
            raise _Abort(Finding(
                "out_of_range", f"f({c}, {u}) = {zi} lies outside the declared outputs "
                f"{self.outputs.start}..{self.outputs.stop - 1}",
                {"c": c, "u": u, "value": zi}))
        return zi

    def __call__(self, c: int, u: int) -> int:
        return self.value(c, u) - self.outputs.start

    def cdf(self, c: int, z: int) -> int:
        f = self.f
        assert isinstance(f, InverseCDFSampler)
        return int(self.guard.call(f.cdf, (c, z + self.outputs.start), f"f.cdf({c}, {z})",
                                   {"c": c, "z": z}))


class _GuardedSource(RandomSource):
    """Forwards draws to the exploring source, charging each draw's domain size against
    the declared randomness domain ``[limit]_+``."""

    def __init__(self, inner: RandomSource, limit: int | None, c: Any) -> None:
        self.inner = inner
        self.limit = limit
        self.c = c
        self.size = 1
        self.draws: list[int] = []

    def _charge(self, d: int) -> None:
        self.size *= d
        self.draws.append(d)
        if self.limit is not None and self.size > self.limit:
            raise _Abort(Finding(
                "randomness_domain",
                f"on input {self.c!r} the mechanism drew from domains of sizes {self.draws} "
                f"(product {self.size}), more randomness than the declared domain "
                f"[{self.limit}]_+", {"c": self.c, "draw_sizes": list(self.draws)}))

    def uniform(self, d: int) -> int:
        self._charge(check_domain_size(d))
        return self.inner.uniform(d)

    def inverse_cdf(self, draw: InverseCDFDraw) -> int:
        self._charge(check_domain_size(draw.d))
        return self.inner.inverse_cdf(draw)

    def bernoulli(self, num: int, den: int) -> bool:
        self._charge(check_domain_size(den))
        return self.inner.bernoulli(num, den)


@dataclass(frozen=True)
class TraceResult:
    """Operation traces compared across inputs (the strict-time claim).

    ``same`` is True when, for every randomness ``u`` examined, every input produced the
    same trace as the first input with that same ``u`` (counting kind), or when every input
    produced the same distribution of traces (source kind).  ``length`` is the common trace
    length when it is one number.  ``randomness_note`` (counting kind, ``same`` True) is
    non-empty when the trace varies with ``u`` -- not a channel on the input, but a timing
    observer then learns about ``u``; the audit's privacy ratios cover the output alone.
    """

    same: bool
    examined: str
    length: int | None
    witness: Mapping[str, Any] = field(default_factory=dict)
    randomness_note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"same": self.same, "examined": self.examined, "length": self.length,
                "witness": exact_json(self.witness),
                "randomness_dependence": self.randomness_note or None}


@dataclass(frozen=True)
class InfiniteLoss:
    outcome: Any
    possible_on: Any
    impossible_on: Any
    probability: Fraction

    def to_json(self) -> dict[str, Any]:
        return {"outcome": exact_json(self.outcome), "possible_on": exact_json(self.possible_on),
                "impossible_on": exact_json(self.impossible_on),
                "probability": str(self.probability)}


@dataclass(frozen=True)
class WhiteBoxReport:
    """Everything the white-box audit established, exactly."""

    mechanism: str
    kind: str
    inputs: tuple[Any, ...]
    claimed_epsilon: Fraction
    claimed_delta: Fraction
    verdict: Verdict
    method: str = ""
    d: int | None = None
    monotone: str = ""
    distributions: Mapping[Any, Distribution] = field(default_factory=dict)
    worst: RatioWitness | None = None
    bound: str = ""
    infinite: tuple[InfiniteLoss, ...] = ()
    hockey_stick: Interval | None = None
    hockey_stick_pair: tuple[Any, Any] | None = None
    reference: str | None = None
    distance: Fraction | Interval | None = None
    distance_input: Any = None
    trace: TraceResult | None = None
    findings: tuple[Finding, ...] = ()
    seconds: Fraction = Fraction(0)
    excess: Fraction | None = None

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    def to_json(self) -> dict[str, Any]:
        return {
            "audit": "whitebox",
            "excess_over_e_eps_at_least": None if self.excess is None else str(self.excess),
            "mechanism": self.mechanism,
            "kind": self.kind,
            "inputs": exact_json(list(self.inputs)),
            "claimed_epsilon": str(self.claimed_epsilon),
            "claimed_delta": str(self.claimed_delta),
            "verdict": self.verdict,
            "method": self.method,
            "d": None if self.d is None else str(self.d),
            "monotone": self.monotone,
            "worst_ratio": None if self.worst is None else self.worst.to_json(),
            "bound": self.bound,
            "infinite_loss": [i.to_json() for i in self.infinite],
            "hockey_stick_delta": None if self.hockey_stick is None else
            {"lo": str(self.hockey_stick.lo), "hi": str(self.hockey_stick.hi),
             "pair": exact_json(list(self.hockey_stick_pair or ()))},
            "reference": self.reference,
            "statistical_distance": _interval_json(self.distance),
            "statistical_distance_input": exact_json(self.distance_input),
            "trace": None if self.trace is None else self.trace.to_json(),
            "findings": [f.to_json() for f in self.findings],
            "distributions": {str(c): {str(o): str(p) for o, p in dist.items() if p}
                              for c, dist in self.distributions.items()},
            "seconds": _seconds_str(self.seconds),
        }

    def summary(self) -> str:
        how = f"; {self.method}" if self.method else ""
        lines = [f"white-box audit of {self.mechanism} ({self.kind}{how})",
                 f"  inputs: {_fmt_inputs(self.inputs)}, neighbours c and c+1"]
        if self.d is not None:
            lines.append(f"  randomness: u in [d]_+ with d = {_short_int(self.d)}")
        if self.monotone:
            lines.append(f"  monotone in u: {self.monotone}")
        for f in self.findings:
            lines.append(f"  FINDING [{f.kind}]: {f.message}")
        if self.worst is not None:
            w = self.worst
            ratio = "infinite" if w.ratio is None else str(w.ratio)
            lines.append(f"  worst privacy-loss ratio: {ratio}")
            lines.append(f"    witness: Pr[M({w.numerator_input!r}) = {w.outcome!r}] = {w.p}, "
                         f"Pr[M({w.denominator_input!r}) = {w.outcome!r}] = {w.q}")
            lines.append(f"  claimed epsilon {self.claimed_epsilon}: {self.bound}")
            if self.excess is not None:
                lines.append(f"    the ratio exceeds e^({self.claimed_epsilon}) by at least "
                             f"{_decimal(self.excess)} (certified)")
        if self.infinite:
            lines.append(f"  outcomes possible on one input, impossible on its neighbour: "
                         f"{len(self.infinite)}")
            for inf in self.infinite[:5]:
                lines.append(f"    outcome {inf.outcome!r}: Pr = {inf.probability} on "
                             f"{inf.possible_on!r}, 0 on {inf.impossible_on!r}")
        if self.hockey_stick is not None:
            lines.append(f"  hockey-stick delta at e^({self.claimed_epsilon}): in "
                         f"[{_short_fraction(self.hockey_stick.lo)}, "
                         f"{_short_fraction(self.hockey_stick.hi)}] "
                         f"(pair {self.hockey_stick_pair})")
        if self.reference is not None and self.distance is not None:
            lines.append(f"  statistical distance to {self.reference}: "
                         f"{_fmt_value(self.distance)} (max, at input {self.distance_input!r})")
        if self.trace is not None:
            t = self.trace
            lines.append(f"  operation traces ({t.examined}): "
                         + ("identical across inputs" if t.same else
                            f"DIFFER across inputs: {dict(t.witness)}"))
            if t.randomness_note:
                lines.append(f"    note: {t.randomness_note}")
        lines.append(f"  verdict: {self.verdict.upper()}  ({_seconds_str(self.seconds)} s)")
        return "\n".join(lines)


def _seconds_str(s: Fraction) -> str:
    ms = int(s * 1000)
    return f"{ms // 1000}.{ms % 1000:03d}"


def _short_int(d: int) -> str:
    text = str(d)
    return text if len(text) <= 40 else f"{text[:12]}...{text[-6:]} ({d.bit_length()} bits)"


def _short_fraction(q: Fraction) -> str:
    text = str(q)
    if len(text) <= 60:
        return text
    return f"~{_decimal(q)}"


def _decimal(q: Fraction, digits: int = 6) -> str:
    """A short decimal rendering for humans (scientific, rounded down); JSON stays exact."""
    if q == 0:
        return "0"
    sign = "-" if q < 0 else ""
    q = abs(q)
    exp10 = len(str(q.numerator)) - len(str(q.denominator))
    scaled = q * Fraction(10) ** (digits - 1 - exp10)
    while scaled >= 10**digits:
        scaled /= 10
        exp10 += 1
    while scaled < 10 ** (digits - 1):
        scaled *= 10
        exp10 -= 1
    m = str(scaled.numerator // scaled.denominator)
    return f"{sign}{m[0]}.{m[1:]}e{exp10}"


def _fmt_value(v: Fraction | Interval) -> str:
    if isinstance(v, Interval):
        return f"in [{_short_fraction(v.lo)}, {_short_fraction(v.hi)}]"
    return _short_fraction(v)


def _interval_json(v: Fraction | Interval | None) -> Any:
    if v is None:
        return None
    if isinstance(v, Interval):
        return {"lo": str(v.lo), "hi": str(v.hi)}
    return str(v)


def _fmt_inputs(inputs: Sequence[Any]) -> str:
    if len(inputs) > 2 and all(isinstance(c, int) for c in inputs) \
            and list(inputs) == list(range(inputs[0], inputs[-1] + 1)):
        return f"{inputs[0]}..{inputs[-1]}"
    return ", ".join(repr(c) for c in inputs)


def _neighbours(inputs: Sequence[Any],
                neighbours: Sequence[tuple[Any, Any]] | None) -> list[tuple[Any, Any]]:
    """The given neighbouring pairs, else consecutive inputs (at least two needed)."""
    if neighbours is not None:
        return list(neighbours)
    if len(inputs) < 2:
        raise ParameterError("inputs must contain at least two values (a neighbouring pair)")
    return [(inputs[i], inputs[i + 1]) for i in range(len(inputs) - 1)]


def _trace_counter(names: frozenset[str], sink: list[Event]) -> Callable[..., Any]:
    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and frame.f_code.co_name in names:
            sink.append(("call", frame.f_code.co_name))
    return profile


def _counting_trace(adapter: _CountingAdapter, c: int, u: int,
                    names: frozenset[str]) -> tuple[tuple[Event, ...], int]:
    """Events of one call ``f(c, u)``: exactdp trace events plus calls of functions named
    in ``names`` (e.g. ``cdf``), recorded with :func:`sys.setprofile`."""
    calls: list[Event] = []
    old = sys.getprofile()
    with recording() as events:
        sys.setprofile(_trace_counter(names, calls))
        try:
            z = adapter.value(c, u)
        finally:
            sys.setprofile(old)
    merged = tuple(events) + tuple(calls)
    return merged, z


def _trace_points(d: int, dist0: Mapping[int, Fraction], limit: int = 48) -> list[int]:
    pts = {1, 2, d // 2, d - 1, d}
    acc = Fraction(0)
    for z in sorted(dist0):
        acc += dist0[z]
        t = acc * d
        if t.denominator == 1:
            pts.update({int(t), int(t) + 1})
    pts = {u for u in pts if 1 <= u <= d}
    chosen = sorted(pts)
    if len(chosen) > limit:
        chosen = chosen[::-(-len(chosen) // limit)]
    return chosen


def _monotone_spot_check(adapter: _CountingAdapter, inputs: Sequence[int],
                         points: Sequence[int]) -> Finding | None:
    rng = random.Random(20180101)
    us = sorted(set(points) | {rng.randrange(1, adapter.d + 1) for _ in range(32)})
    for c in inputs:
        prev_u, prev_z = us[0], adapter.value(c, us[0])
        for u in us[1:]:
            z = adapter.value(c, u)
            if z < prev_z:
                return Finding("not_monotone",
                               f"declared non-decreasing in u, but f({c}, {prev_u}) = {prev_z} "
                               f"> f({c}, {u}) = {z}; the threshold search does not apply",
                               {"c": c, "u1": prev_u, "z1": prev_z, "u2": u, "z2": z})
            prev_u, prev_z = u, z
    return None


def _counting_distributions(adapter: _CountingAdapter, inputs: Sequence[int],
                            monotone: bool | None, enumeration_limit: int,
                            progress: Progress) -> tuple[dict[Any, Distribution], str, str,
                                                         list[Finding]]:
    d = adapter.d
    findings: list[Finding] = []
    dists: dict[Any, Distribution] = {}
    shift = adapter.outputs.start
    if d <= enumeration_limit:
        method = f"enumerated all d = {d} values of u"
        mono = "not needed (enumerated)"
        for i, c in enumerate(inputs):
            _say(progress, f"  input {c} ({i + 1}/{len(inputs)}): enumerating {d} values of u")
            raw = enumerate_distribution(adapter, c, limit=enumeration_limit)
            dists[c] = {z + shift: p for z, p in raw.items()}
        return dists, method, mono, findings
    if not monotone:
        raise _Abort(Finding(
            "cannot_audit", f"d = {_short_int(d)} is too large to enumerate (limit "
            f"{enumeration_limit}) and f is not declared non-decreasing in u; declare it "
            f"monotone (attribute monotone=True / --monotone) if it is, or audit black-box",
            {"d": d}))
    hint = adapter.has_cdf
    method = ("threshold search confirmed from f.cdf" if hint else
              "binary-search thresholds T_z = max{u : f(c,u) <= z}")
    for i, c in enumerate(inputs):
        _say(progress, f"  input {c} ({i + 1}/{len(inputs)}): threshold search over "
                       f"{len(adapter.outputs)} outputs")
        raw = threshold_distribution(adapter, c, hint=hint)
        dists[c] = {z + shift: p for z, p in raw.items()}
    points = _trace_points(d, {z - shift: p for z, p in dists[inputs[0]].items()})
    bad = _monotone_spot_check(adapter, inputs, points)
    if bad is not None:
        raise _Abort(bad)
    mono = ("declared; spot-checked at the thresholds and 32 pseudo-random u (the "
            "distribution is exact if f is non-decreasing in u)")
    return dists, method, mono, findings


def _say(progress: Progress, message: str) -> None:
    if progress is not None:
        progress(message)


def _counting_trace_result(adapter: _CountingAdapter, inputs: Sequence[int],
                           dists: Mapping[Any, Distribution],
                           names: frozenset[str]) -> TraceResult:
    """For each ``u`` examined, compare the trace of ``f(c, u)`` on every input ``c`` with
    the trace of ``f(inputs[0], u)``: a difference at a fixed ``u`` is a dependence on the
    input.  Differences between values of ``u`` are reported separately, as information."""
    shift = adapter.outputs.start
    points = _trace_points(adapter.d, {z - shift: p for z, p in dists[inputs[0]].items()})
    ref_c = inputs[0]
    examined = (f"{len(points)} values of u, at each every one of {len(inputs)} inputs "
                f"compared with input {ref_c}; events: exactdp trace + calls named "
                f"{sorted(names)}")
    per_u: dict[int, tuple[Event, ...]] = {}
    for u in points:
        for c in inputs:
            tr, z = _counting_trace(adapter, c, u, names)
            again = adapter.value(c, u)
            if again != z:
                raise _Abort(Finding(
                    "nondeterministic", f"f({c}, {u}) returned {z} and then {again}: it is not a "
                    f"deterministic function of (c, u) (hidden randomness?)",
                    {"c": c, "u": u, "first": z, "second": again}))
            reference = per_u.setdefault(u, tr)
            if tr != reference:
                return TraceResult(False, examined, None,
                                   {"u": u, "input": c, "trace_length": len(tr),
                                    "reference_input": ref_c,
                                    "reference_length": len(reference),
                                    "trace": [" ".join(map(str, e)) for e in tr[:12]],
                                    "reference": [" ".join(map(str, e))
                                                  for e in reference[:12]]})
    lengths = sorted({len(t) for t in per_u.values()})
    distinct = len(set(per_u.values()))
    note = ""
    if distinct > 1:
        spread = (f"length {lengths[0]} throughout" if len(lengths) == 1 else
                  f"lengths {lengths[0]}..{lengths[-1]}")
        note = (f"the trace varies with the randomness u ({distinct} different traces over "
                f"the {len(points)} values of u, {spread}) but, at each u, not with the "
                f"input; a timing observer learns about u, and the privacy ratios above are "
                f"for the output alone, not for (output, time) jointly")
    return TraceResult(True, examined, lengths[0] if len(lengths) == 1 else None,
                       randomness_note=note)


def _source_distributions(f: Callable[[Any, RandomSource], Any], inputs: Sequence[Any],
                          guard: _Guard, randomness_size: int | None,
                          outputs: Sequence[Any] | None, progress: Progress,
                          max_uniform: int, max_runs: int
                          ) -> tuple[dict[Any, Distribution], dict[Any, dict[Any, Fraction]]]:
    dists: dict[Any, Distribution] = {}
    traces: dict[Any, dict[Any, Fraction]] = {}
    allowed = None if outputs is None else set(outputs)
    for i, c in enumerate(inputs):
        _say(progress, f"  input {c!r} ({i + 1}/{len(inputs)}): exploring every path of draws")

        def run(src: RandomSource, c: Any = c) -> tuple[Any, tuple[Event, ...]]:
            gs = _GuardedSource(src, randomness_size, c)
            with recording() as events:
                out = guard.call(f, (c, gs), f"f({c!r}, source)", {"c": c, "draws": gs.draws})
            _check_output(out, allowed, f"f({c!r}, source)", c,
                          f" (draws {gs.draws})", {"draw_sizes": gs.draws})
            return out, tuple(events)

        try:
            joint = explore(run, max_uniform=max_uniform, max_runs=max_runs)
        except NondeterminismError as exc:
            raise _Abort(Finding("nondeterministic", f"on input {c!r}: {exc}", {"c": c})) from None
        except ExplorationLimitError as exc:
            raise _Abort(Finding("cannot_audit", f"on input {c!r}: {exc}", {"c": c})) from None
        dist: Distribution = {}
        tdist: dict[Any, Fraction] = {}
        for (out, tr), p in joint.items():
            dist[out] = dist.get(out, Fraction(0)) + p
            tdist[tr] = tdist.get(tr, Fraction(0)) + p
        dists[c] = _sorted(dist)
        traces[c] = tdist
    return dists, traces


def _sorted(dist: Distribution) -> Distribution:
    try:
        return dict(sorted(dist.items()))
    except TypeError:
        return dist


def whitebox_audit(mechanism: Any, *, inputs: Sequence[Any] | range | None = None,
                   claimed_epsilon: object, claimed_delta: object = 0,
                   kind: Literal["auto", "counting", "source"] = "auto",
                   d: int | None = None, outputs: range | Sequence[Any] | None = None,
                   monotone: bool | None = None, reference: Reference | None = None,
                   neighbours: Sequence[tuple[Any, Any]] | None = None,
                   randomness_size: int | None = None,
                   time_limit: int | None = DEFAULT_TIME_LIMIT,
                   enumeration_limit: int = ENUMERATION_LIMIT,
                   trace_calls: Sequence[str] = ("cdf",),
                   max_uniform: int = 1 << 16, max_runs: int = 1 << 20,
                   progress: Progress = None) -> WhiteBoxReport:
    """Audit ``mechanism`` exactly: its output distribution on every input, its worst
    privacy-loss ratio over neighbours against ``e**claimed_epsilon``, and more.

    ``kind``:

    * ``"counting"`` -- ``mechanism(c, u)`` with ``u`` in ``[d]_+``; ``d`` from the argument
      or ``mechanism.d``; integer outputs in ``outputs`` (default: ``[0, n]`` for an
      :class:`InverseCDFSampler`, otherwise the input range); ``monotone`` (default
      ``mechanism.monotone`` if present; True for an :class:`InverseCDFSampler`, whose
      contract it is) allows the threshold search when ``d > enumeration_limit``.
    * ``"source"`` -- ``mechanism(c, source)`` drawing from ``source``; explored exactly.
      ``randomness_size`` (or ``d``) declares the randomness domain: the product of the
      domain sizes of the draws along any path may not exceed it.
    * ``"auto"`` -- counting when ``d`` is known (argument or attribute), else source.

    ``neighbours`` defaults to consecutive inputs ``(c, c+1)``; both orders are checked.
    ``reference``: an exactdp mechanism or per-input distributions (exact or interval)
    to measure the statistical distance to.  ``claimed_delta > 0`` judges the claim as
    approximate DP by the hockey-stick divergence instead of the pure ratio.

    The verdict is ``"pass"`` (claim holds exactly on this domain), ``"violation"`` or
    ``"broken"`` (the code failed; see ``findings``).  Never raises for faults of the
    audited code; raises :class:`~exactdp.params.ParameterError` for bad audit arguments.
    """
    start = time.monotonic_ns()
    eps = to_fraction(claimed_epsilon, "claimed_epsilon")
    delta = to_fraction(claimed_delta, "claimed_delta")
    if eps < 0 or not 0 <= delta < 1:
        raise ParameterError(f"claimed epsilon = {eps} must be >= 0 and delta = {delta} in [0, 1)")
    if d is None and kind != "source":
        attr = getattr(mechanism, "d", None)
        d = _as_int(attr) if attr is not None else None
    if kind == "auto":
        kind = "counting" if d is not None else "source"
    if inputs is None:
        if isinstance(mechanism, InverseCDFSampler):
            inputs = range(mechanism.n + 1)
        else:
            raise ParameterError("inputs must be given (e.g. range(0, 9) or '0..8')")
    ins = list(inputs)
    pairs = _neighbours(ins, neighbours)
    if reference is None:
        reference = getattr(mechanism, "reference", None)
    name = _describe(mechanism) if not isinstance(mechanism, InverseCDFSampler) else repr(mechanism)
    guard = _Guard(time_limit)
    common: dict[str, Any] = {"mechanism": name, "kind": kind, "inputs": tuple(ins),
                              "claimed_epsilon": eps, "claimed_delta": delta}
    trace: TraceResult | None = None
    try:
        if kind == "counting":
            if d is None:
                raise ParameterError("a counting mechanism f(c, u) needs its randomness-domain "
                                     "size d (argument d, --randomness-size, or attribute d)")
            d = positive_int(d, "d")
            if monotone is None:
                declared = getattr(mechanism, "monotone", None)
                monotone = bool(declared) if declared is not None else \
                    isinstance(mechanism, InverseCDFSampler)
            if outputs is None:
                if isinstance(mechanism, InverseCDFSampler):
                    outputs = range(mechanism.n + 1)
                elif hasattr(mechanism, "outputs"):
                    outputs = mechanism.outputs
                else:
                    outputs = range(min(ins), max(ins) + 1)
            if not isinstance(outputs, range) or outputs.step != 1:
                raise ParameterError("outputs of a counting mechanism must be a range LO..HI")
            for c in ins:
                if _as_int(c) is None:
                    raise ParameterError(f"input {c!r} of a counting mechanism must be an int")
            adapter = _CountingAdapter(mechanism, d, outputs, guard)
            _say(progress, f"white-box audit of {name}: {len(ins)} inputs, d = {_short_int(d)}")
            dists, method, mono, _ = _counting_distributions(
                adapter, ins, monotone, enumeration_limit, progress)
            _say(progress, "  comparing operation traces across inputs")
            trace = _counting_trace_result(adapter, ins, dists, frozenset(trace_calls))
        elif kind == "source":
            size = randomness_size if randomness_size is not None else d
            _say(progress, f"white-box audit of {name}: {len(ins)} inputs, exploring draws")
            dists, traces = _source_distributions(mechanism, ins, guard, size, outputs,
                                                  progress, max_uniform, max_runs)
            method = "explored every path of draws (exploring source)"
            mono = ""
            d = size
            trace = _source_trace_result(traces, ins)
        else:
            raise ParameterError(f"kind = {kind!r} must be auto, counting or source")
    except _Abort as abort:
        return WhiteBoxReport(**common, verdict="broken", d=d, findings=(abort.finding,),
                              seconds=_elapsed(start))
    except DomainError as exc:  # raised by the checker on an inconsistent mechanism
        kind = "not_monotone" if isinstance(exc, NotMonotoneError) else "inconsistent"
        return WhiteBoxReport(**common, verdict="broken", d=d,
                              findings=(Finding(kind, str(exc)),),
                              seconds=_elapsed(start))
    _say(progress, "  exact privacy-loss ratios over neighbouring inputs")
    report = _judge(common, dists, pairs, eps, delta, reference, method, d, mono, trace, start)
    labels = getattr(mechanism, "labels", None)
    if isinstance(labels, Mapping):
        notes = []
        for o, label in labels.items():
            probs = {c: dist.get(o, Fraction(0)) for c, dist in dists.items()}
            if not any(probs.values()):
                continue
            values = set(probs.values())
            where = (f"{values.pop()} on every input" if len(values) == 1 else
                     ", ".join(f"{p} on input {c!r}" for c, p in probs.items()))
            notes.append(Finding("labelled_outcome", f"outcome {o!r} ({label}) has probability "
                                 f"{where}", {"outcome": o, "probabilities": probs}))
        report = replace(report, findings=report.findings + tuple(notes))
    return report


def _source_trace_result(traces: Mapping[Any, Mapping[Any, Fraction]],
                         inputs: Sequence[Any]) -> TraceResult:
    first = traces[inputs[0]]
    lengths = {len(t) for t in first}
    for c in inputs[1:]:
        if dict(traces[c]) != dict(first):
            diff = next((t for t in set(first) | set(traces[c])
                         if first.get(t, Fraction(0)) != traces[c].get(t, Fraction(0))), None)
            return TraceResult(False, "distribution of the draw sequence per input", None,
                               {"input": c, "reference_input": inputs[0],
                                "draws": None if diff is None else [" ".join(map(str, e))
                                                                    for e in diff],
                                "probability": str(traces[c].get(diff, Fraction(0))),
                                "reference_probability": str(first.get(diff, Fraction(0)))})
    strict = len(first) == 1
    return TraceResult(True, "distribution of the draw sequence per input"
                       + (" (one fixed sequence: strict time)" if strict else
                          " (random length, independent of the input)"),
                       lengths.pop() if len(lengths) == 1 else None)


def _elapsed(start_ns: int) -> Fraction:
    return Fraction(time.monotonic_ns() - start_ns, 10**9)


HockeyStatus = Literal["holds", "exceeds", "undecided"]
#: Precision (bits of ``e**eps``) at which a hockey-stick interval still straddling the
#: claimed delta is given up on.
HOCKEY_STICK_MAX_BITS = 4096


def _decide_hockey_stick(p: Mapping[Any, Fraction], q: Mapping[Any, Fraction], eps: Fraction,
                         delta: Fraction, box: Interval | None = None
                         ) -> tuple[HockeyStatus, Interval]:
    """Decide ``delta(eps) <= delta`` for one ordered pair with certified bounds, refining
    ``e**eps`` (starting from ``box``, the 128-bit interval, when given).

    ``"holds"``: the interval's upper end is ``<= delta``; ``"exceeds"``: its lower end is
    ``> delta``; ``"undecided"``: it still straddles ``delta`` at
    :data:`HOCKEY_STICK_MAX_BITS` bits.  Returns the status and the last interval.
    """
    bits = 128
    if box is None:
        box = hockey_stick_eps(p, q, eps, bits)
    while True:
        if box.hi <= delta:
            return "holds", box
        if box.lo > delta:
            return "exceeds", box
        if bits >= HOCKEY_STICK_MAX_BITS:
            return "undecided", box
        bits *= 2
        box = hockey_stick_eps(p, q, eps, bits)


def _judge(common: dict[str, Any], dists: dict[Any, Distribution],
           pairs: Sequence[tuple[Any, Any]], eps: Fraction, delta: Fraction,
           reference: Reference | None, method: str, d: int | None, mono: str,
           trace: TraceResult | None, start: int) -> WhiteBoxReport:
    ordered = []
    for a, b in pairs:
        ordered.append((a, dists[a], b, dists[b]))
        ordered.append((b, dists[b], a, dists[a]))
    worst = worst_ratio(ordered)
    ok, bound = certify_ratio(worst, eps)
    excess = None if ok or worst.ratio is None else _excess(worst.ratio, eps)
    infinite: list[InfiniteLoss] = []
    zero = Fraction(0)
    for a, pa, b, pb in ordered:
        for o, x in pa.items():
            if x > 0 and pb.get(o, zero) == 0:
                infinite.append(InfiniteLoss(o, a, b, x))
    boxes = [(hockey_stick_eps(pa, pb, eps), a, pa, b, pb) for a, pa, b, pb in ordered]
    top = max(boxes, key=lambda t: t[0].hi)
    hs: Interval = top[0]
    hs_pair: tuple[Any, Any] = (top[1], top[3])
    verdict: Verdict = "pass" if ok else "violation"
    if delta > 0:
        # Every ordered pair is decided on its own (certified): a pair whose 128-bit
        # interval straddles delta need not be the one with the largest upper end.
        decided = [(*_decide_hockey_stick(pa, pb, eps, delta, box), (a, b))
                   for box, a, pa, b, pb in boxes]
        failing = [t for t in decided if t[0] != "holds"]
        if failing:
            status, hs, hs_pair = max(failing, key=lambda t: (t[0] == "exceeds", t[1].lo))
            verdict = "violation"
            how = ("> claimed delta" if status == "exceeds" else
                   f"straddles the claimed delta even with e^eps to {HOCKEY_STICK_MAX_BITS} "
                   f"bits: not certified, reported as a violation; claimed delta")
            bound += (f"; approximate claim: delta(eps) in [{_short_fraction(hs.lo)}, "
                      f"{_short_fraction(hs.hi)}] for the pair {hs_pair} {how} {delta}")
        else:
            _, hs, hs_pair = max(decided, key=lambda t: t[1].hi)
            verdict = "pass"
            bound += (f"; approximate claim: delta(eps) in [{_short_fraction(hs.lo)}, "
                      f"{_short_fraction(hs.hi)}] (largest, pair {hs_pair}) <= claimed delta "
                      f"{delta}, certified for all {len(decided)} ordered pairs")
    dist_val: Fraction | Interval | None = None
    dist_in: Any = None
    ref_name = None
    if reference is not None:
        ref_name = _describe_reference(reference)
        refs = reference_distributions(reference, list(dists))
        for c, p in dists.items():
            v = _interval_distance(p, refs[c])
            key = v.hi if isinstance(v, Interval) else v
            cur = None if dist_val is None else (dist_val.hi if isinstance(dist_val, Interval)
                                                 else dist_val)
            if cur is None or key > cur:
                dist_val, dist_in = v, c
    if trace is not None and not trace.same and verdict == "pass":
        verdict = "violation"
        bound += "; operation traces depend on the input (timing side channel)"
    return WhiteBoxReport(**common, verdict=verdict, method=method, d=d, monotone=mono,
                          distributions=dists, worst=worst, bound=bound,
                          infinite=tuple(infinite), hockey_stick=hs, hockey_stick_pair=hs_pair,
                          reference=ref_name, distance=dist_val, distance_input=dist_in,
                          trace=trace, seconds=_elapsed(start), excess=excess)


def _excess(ratio: Fraction, eps: Fraction) -> Fraction | None:
    """A certified positive lower bound on ``ratio - e**eps`` (None if not found)."""
    bits = 128
    while bits <= 8192:
        gap = ratio - exp_interval(eps, bits).hi
        if gap > 0:
            return gap
        bits *= 2
    return None


# --------------------------------------------------------------------------- black-box

@dataclass(frozen=True)
class PrivacyTest:
    """The sample-split privacy-loss test on the most distinguishing outcome set.

    Selection draws chose the ordered pair ``(a, b)`` and outcome set ``S``; fresh
    estimation draws gave counts ``x`` (on ``a``) and ``y`` (on ``b``) out of ``K`` each.
    ``lower`` / ``upper`` are Clopper--Pearson bounds at level ``alpha/2`` each, so with
    probability ``>= 1 - alpha`` the true ``P_a(S) / P_b(S) >= ratio_lower``.
    ``violation`` is True when the certified test of ``P_a(S) <= e^eps P_b(S)`` rejects
    at level ``alpha``.  Power: if ``P_a(S) >= x_star / K`` and ``P_b(S) <= y0 / K`` the
    test rejects with probability ``>= 1/4`` (binomial medians).
    """

    a: Any
    b: Any
    outcome_set: tuple[Any, ...]
    K: int
    x: int
    y: int
    alpha: Fraction
    lower: Fraction
    upper: Fraction
    ratio_lower: Fraction | None
    ln_ratio_lower: Fraction | None
    violation: bool
    y0: int
    x_star: int | None
    selection_counts: tuple[int, int]

    def to_json(self) -> dict[str, Any]:
        return {"pair": exact_json([self.a, self.b]), "outcome_set": exact_json(list(self.outcome_set)),
                "estimation_draws": str(self.K), "x": str(self.x), "y": str(self.y),
                "alpha": str(self.alpha), "p_a_lower": str(self.lower), "p_b_upper": str(self.upper),
                "ratio_lower": None if self.ratio_lower is None else str(self.ratio_lower),
                "ln_ratio_lower": None if self.ln_ratio_lower is None else str(self.ln_ratio_lower),
                "violation": self.violation, "power": {"y0": str(self.y0),
                                                       "x_star": None if self.x_star is None
                                                       else str(self.x_star)},
                "selection_counts": exact_json(list(self.selection_counts))}


@dataclass(frozen=True)
class FitResult:
    """One rejected (input, outcome) of the goodness-of-fit test, or the widest band."""

    input: Any
    outcome: Any
    count: int
    K: int
    reference: Fraction | Interval
    critical: CriticalCounts | None

    def to_json(self) -> dict[str, Any]:
        c = self.critical
        return {"input": exact_json(self.input), "outcome": exact_json(self.outcome),
                "count": str(self.count), "draws": str(self.K),
                "reference": _interval_json(self.reference),
                "accept_counts": None if c is None else [str(c.k_lo + 1), str(c.k_hi - 1)]}


@dataclass(frozen=True)
class BlackBoxReport:
    """What the samples show, with every error probability stated."""

    mechanism: str
    inputs: tuple[Any, ...]
    claimed_epsilon: Fraction
    alpha: Fraction
    draws: int
    verdict: Verdict
    reference: str | None = None
    fit_alpha: Fraction | None = None
    fit_tests: int = 0
    fit_rejections: tuple[FitResult, ...] = ()
    fit_power: str = ""
    privacy: PrivacyTest | None = None
    privacy_bound: str = ""
    power: str = ""
    findings: tuple[Finding, ...] = ()
    total_draws: int = 0
    seconds: Fraction = Fraction(0)
    reference_table: Mapping[Any, RefDistribution] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    def to_json(self) -> dict[str, Any]:
        return {"audit": "blackbox", "mechanism": self.mechanism,
                "inputs": exact_json(list(self.inputs)),
                "claimed_epsilon": str(self.claimed_epsilon), "alpha": str(self.alpha),
                "draws_per_input": str(self.draws), "total_draws": str(self.total_draws),
                "verdict": self.verdict, "reference": self.reference,
                "fit": None if self.fit_alpha is None else {
                    "alpha": str(self.fit_alpha), "tests": str(self.fit_tests),
                    "rejections": [r.to_json() for r in self.fit_rejections],
                    "power": self.fit_power},
                "privacy": None if self.privacy is None else self.privacy.to_json(),
                "privacy_bound": self.privacy_bound, "power": self.power,
                "reference_distributions": {
                    str(c): {str(o): _interval_json(p) for o, p in ref.items()}
                    for c, ref in self.reference_table.items()},
                "findings": [f.to_json() for f in self.findings],
                "seconds": _seconds_str(self.seconds)}

    def summary(self) -> str:
        lines = [f"black-box audit of {self.mechanism}",
                 (f"  inputs: {_fmt_inputs(self.inputs)}, neighbours c and c+1; "
                  f"{self.draws} draws per input for selection/fit and {self.draws} fresh "
                  f"draws on each of the two selected inputs (total {self.total_draws})"),
                 f"  false-alarm probability of this audit: <= {self.alpha}"]
        for f in self.findings:
            lines.append(f"  FINDING [{f.kind}]: {f.message}")
        if self.fit_alpha is not None:
            lines.append(f"  goodness of fit to {self.reference}: {self.fit_tests} exact "
                         f"binomial tests, Bonferroni, total level {self.fit_alpha}: "
                         + ("REJECTED" if self.fit_rejections else "not rejected"))
            if self.reference_table:
                c0 = next(iter(self.reference_table))
                lines.append(f"    reference probabilities at input {c0!r}:")
                for o, p in self.reference_table[c0].items():
                    lines.append(f"      {o!r}: {_fmt_decimal_interval(p)}")
            for r in self.fit_rejections[:5]:
                ref = _fmt_value(r.reference)
                lines.append(f"    input {r.input!r}, outcome {r.outcome!r}: {r.count} of {r.K} "
                             f"draws, reference probability {ref}")
            if self.fit_power:
                lines.append(f"    power: {self.fit_power}")
        if self.privacy is not None:
            pt = self.privacy
            lines.append(f"  most distinguishing set (chosen on the selection draws): inputs "
                         f"{pt.a!r} vs {pt.b!r}, outcomes {_fmt_set(pt.outcome_set)}")
            lines.append(f"    estimation draws: {pt.x} of {pt.K} vs {pt.y} of {pt.K}")
            lines.append(f"    {self.privacy_bound}")
        if self.power:
            lines.append(f"  power: {self.power}")
        word = {"no violation detected": "NO VIOLATION DETECTED (this is not a proof of privacy)"}
        lines.append(f"  verdict: {word.get(self.verdict, self.verdict.upper())}  "
                     f"({_seconds_str(self.seconds)} s)")
        return "\n".join(lines)


def _fmt_decimal_interval(p: Fraction | Interval, digits: int = 18) -> str:
    """``[lo, hi]`` as decimals rounded outwards (still an enclosure); exact in the JSON."""
    lo, hi = (p.lo, p.hi) if isinstance(p, Interval) else (p, p)
    scale = 10**digits
    a = lo.numerator * scale // lo.denominator
    b = -(-hi.numerator * scale // hi.denominator)

    def dec(v: int) -> str:
        text = str(v).rjust(digits + 1, "0")
        return f"{text[:-digits]}.{text[-digits:]}"

    return f"[{dec(a)}, {dec(b)}]" if a != b else dec(a)


def _fmt_set(s: Sequence[Any]) -> str:
    items = list(s)
    if len(items) > 8:
        return "{" + ", ".join(repr(o) for o in items[:8]) + f", ... ({len(items)} outcomes)}}"
    return "{" + ", ".join(repr(o) for o in items) + "}"


def _draw(sampler: Callable[[Any], Any], c: Any, k: int, guard: _Guard,
          outputs: set[Any] | None, progress: Progress, label: str) -> dict[Any, int]:
    counts: dict[Any, int] = {}
    batch = getattr(sampler, "batch", None)
    step = max(k // 4, 1)
    done = 0
    while done < k:
        m = min(step, k - done)
        if callable(batch):
            values = list(guard.call(batch, (c, m), f"batch({c!r}, {m})", {"c": c}))
            if len(values) != m:
                raise _Abort(Finding("bad_output", f"batch({c!r}, {m}) returned {len(values)} "
                                     f"values", {"c": c}))
        else:
            values = [guard.call(sampler, (c,), f"sampler({c!r})", {"c": c, "draw": done + j})
                      for j in range(m)]
        for v in values:
            _check_output(v, outputs, f"sampler({c!r})", c)
            counts[v] = counts.get(v, 0) + 1
        done += m
        _say(progress, f"  {label}: input {c!r}: {done}/{k} draws")
    return counts


def _pessimistic(x: int, y: int) -> Fraction:
    """Selection score of a set with counts ``x`` vs ``y``: ratio of count bounds three
    rough standard deviations apart (a heuristic: it only *chooses* the set, and favours
    sets with enough mass for the estimation draws to bound)."""
    num = x - 3 * math.isqrt(x)
    return Fraction(max(num, 0), y + 3 * math.isqrt(y) + 3)


def _select(counts: Mapping[Any, Mapping[Any, int]],
            pairs: Sequence[tuple[Any, Any]]) -> tuple[Any, Any, tuple[Any, ...], int, int]:
    best: tuple[Fraction, Any, Any, tuple[Any, ...], int, int] | None = None
    for a0, b0 in pairs:
        for a, b in ((a0, b0), (b0, a0)):
            ca, cb = counts[a], counts[b]
            outs = sorted(set(ca) | set(cb),
                          key=lambda o: Fraction(2 * ca.get(o, 0) + 1, 2 * cb.get(o, 0) + 1),
                          reverse=True)
            x = y = 0
            chosen: list[Any] = []
            for o in outs:
                x += ca.get(o, 0)
                y += cb.get(o, 0)
                chosen.append(o)
                score = _pessimistic(x, y)
                if best is None or score > best[0]:
                    best = (score, a, b, tuple(chosen), x, y)
    assert best is not None
    return best[1], best[2], best[3], best[4], best[5]


def privacy_test_rejects(x: int, y: int, K: int, alpha: Fraction, e_eps_upper: Fraction,
                         upper: Fraction | None = None) -> bool:
    """The black-box privacy test's decision: reject ``P_a(S) <= e^eps P_b(S)``?

    ``x``, ``y``: counts of ``S`` in ``K`` fresh draws on ``a`` and on ``b``;
    ``e_eps_upper >= e**eps``.  With ``U`` the Clopper--Pearson upper bound for ``y`` at
    level ``alpha/2`` and ``t = e_eps_upper * U``, reject when ``t < 1`` and the certified
    ``Pr_t[Bin(K, t) >= x] <= alpha/2``.  If ``P_a(S) <= e^eps P_b(S)`` the rejection
    probability is at most ``alpha``: ``U < P_b(S)`` has probability ``<= alpha/2``, and
    otherwise ``P_a(S) <= t``, so rejecting needs a count whose exact tail under the true
    ``P_a(S)`` is ``<= alpha/2`` (probability ``<= alpha/2``).
    """
    half = alpha / 2
    u = clopper_pearson_upper(y, K, half) if upper is None else upper
    t = e_eps_upper * u
    return t < 1 and upper_tail(K, t, x).hi <= half


def _privacy_test(sampler: Callable[[Any], Any], sel_counts: Mapping[Any, Mapping[Any, int]],
                  pairs: Sequence[tuple[Any, Any]], K: int, alpha: Fraction, eps: Fraction,
                  guard: _Guard, outputs: set[Any] | None, progress: Progress) -> PrivacyTest:
    a, b, S, sx, sy = _select(sel_counts, pairs)
    _say(progress, f"  selected inputs {a!r} vs {b!r}, {len(S)} outcome(s); drawing fresh "
                   f"estimation samples")
    ca = _draw(sampler, a, K, guard, outputs, progress, "estimation")
    cb = _draw(sampler, b, K, guard, outputs, progress, "estimation")
    x = sum(ca.get(o, 0) for o in S)
    y = sum(cb.get(o, 0) for o in S)
    half = alpha / 2
    lower = clopper_pearson_lower(x, K, half)
    upper = clopper_pearson_upper(y, K, half)
    e_hi = exp_interval(eps, 128).hi

    def rejects(xx: int, yy: int) -> bool:
        return privacy_test_rejects(xx, yy, K, alpha, e_hi,
                                    upper if yy == y else None)

    violation = rejects(x, y)
    ratio = lower / upper if upper > 0 else None
    ln_lo = None
    if ratio is not None and ratio > 1:
        ln_lo = ln_interval(ratio, 64).lo
    # Power: the smallest x that rejects when the count on b is y0 = K * q, with q the
    # selection-phase estimate sy / K of P_b(S).
    y0 = sy
    lo_x, hi_x = 0, K + 1
    if rejects(K, y0):
        while hi_x - lo_x > 1:
            mid = (lo_x + hi_x) // 2
            if rejects(mid, y0):
                hi_x = mid
            else:
                lo_x = mid
        x_star: int | None = hi_x
    else:
        x_star = None
    return PrivacyTest(a, b, S, K, x, y, alpha, lower, upper, ratio, ln_lo, violation, y0,
                       x_star, (sx, sy))


def blackbox_audit(sampler: Callable[[Any], Any], *, inputs: Sequence[Any] | range,
                   claimed_epsilon: object, draws: int, alpha: object = Fraction(1, 100),
                   reference: Reference | None = None,
                   outputs: Sequence[Any] | range | None = None,
                   neighbours: Sequence[tuple[Any, Any]] | None = None,
                   time_limit: int | None = DEFAULT_TIME_LIMIT,
                   progress: Progress = None) -> BlackBoxReport:
    """Sample ``sampler(c)`` and test it; every error probability is stated and honoured.

    * ``draws`` per input (selection and goodness of fit), then ``draws`` fresh draws on
      each of the two inputs selected for the privacy test (sample splitting).
    * ``alpha`` bounds the probability that this audit reports anything (a mismatch or a
      violation) about a mechanism that matches the reference and satisfies the claim:
      ``alpha/2`` for the fit test and ``alpha/2`` for the privacy test when a reference
      is given, all of ``alpha`` for the privacy test otherwise.
    * The fit test: one exact two-sided binomial test per (input, outcome) in the
      reference's support, level ``alpha_fit / (2m)`` per side for ``m`` tests; an
      outcome outside the support is a certain mismatch.
    * The privacy test: see :class:`PrivacyTest`.

    The sampler may offer ``sampler.batch(c, k) -> list`` for speed.  Verdicts:
    ``"violation"``, ``"mismatch"``, ``"no violation detected"`` (never "private"),
    ``"broken"``.
    """
    start = time.monotonic_ns()
    eps = to_fraction(claimed_epsilon, "claimed_epsilon")
    a_total = to_fraction(alpha, "alpha")
    if not 0 < a_total < 1:
        raise ParameterError(f"alpha = {a_total} must lie in (0, 1)")
    K = positive_int(draws, "draws")
    ins = list(inputs)
    pairs = _neighbours(ins, neighbours)
    if reference is None:
        reference = getattr(sampler, "reference", None)
    if outputs is None:
        outputs = getattr(sampler, "outputs", None)
    allowed = None if outputs is None else set(outputs)
    name = _describe(sampler)
    guard = _Guard(time_limit)
    fit_alpha = a_total / 2 if reference is not None else None
    priv_alpha = a_total - (fit_alpha or 0)
    common: dict[str, Any] = {"mechanism": name, "inputs": tuple(ins), "claimed_epsilon": eps,
                              "alpha": a_total, "draws": K}
    counts: dict[Any, dict[Any, int]] = {}
    _say(progress, f"black-box audit of {name}: {len(ins)} inputs x {K} draws")
    try:
        for c in ins:
            counts[c] = _draw(sampler, c, K, guard, allowed, progress, "selection/fit")
        rejections: list[FitResult] = []
        fit_power = ""
        tests = 0
        ref_name = None
        table: dict[Any, RefDistribution] = {}
        if reference is not None:
            ref_name = _describe_reference(reference)
            _say(progress, "  exact binomial goodness-of-fit tests")
            table = reference_distributions(reference, ins)
            rejections, tests, fit_power = _fit(counts, table, K, fit_alpha or Fraction(0))
        _say(progress, "  privacy-loss test on the most distinguishing set")
        pt = _privacy_test(sampler, counts, pairs, K, priv_alpha, eps, guard, allowed, progress)
    except _Abort as abort:
        return BlackBoxReport(**common, verdict="broken", findings=(abort.finding,),
                              seconds=_elapsed(start))
    bound, power = _privacy_text(pt, eps)
    verdict: Verdict = ("violation" if pt.violation else
                        "mismatch" if rejections else "no violation detected")
    return BlackBoxReport(**common, verdict=verdict, reference=ref_name, fit_alpha=fit_alpha,
                          fit_tests=tests, fit_rejections=tuple(rejections), fit_power=fit_power,
                          privacy=pt, privacy_bound=bound, power=power,
                          total_draws=K * (len(ins) + 2), seconds=_elapsed(start),
                          reference_table=table)


def _fit(counts: Mapping[Any, Mapping[Any, int]], refs: Mapping[Any, RefDistribution], K: int,
         fit_alpha: Fraction) -> tuple[list[FitResult], int, str]:
    tests = [(c, o, p) for c in refs for o, p in refs[c].items()
             if (p.hi if isinstance(p, Interval) else p) > 0]
    m = len(tests)
    level = fit_alpha / (2 * m)
    rejections: list[FitResult] = []
    widest: tuple[Fraction, str] | None = None
    for c in counts:
        support = {o for o, p in refs[c].items() if (p.hi if isinstance(p, Interval) else p) > 0}
        for o, x in counts[c].items():
            if o not in support:
                rejections.append(FitResult(c, o, x, K, Fraction(0), None))
    for c, o, p in tests:
        x = counts[c].get(o, 0)
        crit = critical_counts(K, p, level)
        if crit.rejects(x):
            rejections.append(FitResult(c, o, x, K, p, crit))
        lo = crit.detect_below
        hi = crit.detect_above
        width = (hi if hi is not None else Fraction(1)) - (lo if lo is not None else Fraction(0))
        if widest is None or width > widest[0]:
            band = (f"[{_decimal(lo) if lo is not None else '0'}, "
                    f"{_decimal(hi) if hi is not None else '1'}]")
            widest = (width, f"input {c!r}, outcome {o!r}: {band}")
    power = ""
    if widest is not None:
        power = ("each (input, outcome) probability outside its detection band [k_lo/K, "
                 "k_hi/K] is detected with probability >= 1/2 (binomial median); widest band: "
                 + widest[1])
    return rejections, m, power


def _privacy_text(pt: PrivacyTest, eps: Fraction) -> tuple[str, str]:
    conf = 1 - pt.alpha
    if pt.ratio_lower is None:
        bound = f"no finite lower bound (P_b(S) upper bound is 0); confidence {conf}"
    else:
        ln = "" if pt.ln_ratio_lower is None else \
            f", i.e. privacy loss >= {_decimal(pt.ln_ratio_lower)}"
        bound = (f"with confidence {conf}: P_{pt.a!r}(S) / P_{pt.b!r}(S) >= "
                 f"{_short_fraction(pt.ratio_lower)} (~{_decimal(pt.ratio_lower)}){ln}; "
                 f"claimed e^({eps}) "
                 + ("EXCEEDED (violation detected at level " + str(pt.alpha) + ")"
                    if pt.violation else "not exceeded"))
    if pt.x_star is None:
        power = (f"with {pt.K} estimation draws no count on input {pt.a!r} could show a "
                 f"violation when the count on {pt.b!r} is {pt.y0}: more draws are needed")
    else:
        power = (f"a violation on this set is detected with probability >= 1/4 whenever "
                 f"P_{pt.a!r}(S) >= {pt.x_star}/{pt.K} and P_{pt.b!r}(S) <= {pt.y0}/{pt.K} "
                 f"(ratio ~{_decimal(Fraction(pt.x_star, max(pt.y0, 1)))}); weaker violations "
                 f"may go undetected")
    return bound, power
