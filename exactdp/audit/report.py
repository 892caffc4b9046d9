"""Audit reports: what a white-box or black-box audit established, as text and exact JSON.

Every number a report prints is exact or an enclosure rounded outwards (decimals are for
reading; the JSON carries the exact fractions as strings).  The verdicts:

* ``"pass"`` (white-box): the claim holds exactly on the audited inputs;
* ``"violation"``: the claim is refuted (white-box: exactly, with a witness; black-box: at
  the stated false-alarm probability);
* ``"mismatch"`` (black-box): the samples do not fit the reference distribution;
* ``"no violation detected"`` (black-box): nothing found at the stated power -- never a
  proof of privacy;
* ``"broken"``: the mechanism itself failed (raised, hung, returned garbage...);
* ``"incomplete"`` (white-box, source kind): the exploration stopped at its budget
  (``--max-paths`` / ``--time-budget``) before covering all the probability mass and no
  violation is certain from the mass covered (:mod:`exactdp.audit.budget`).  Exit status
  2, as for an audit refused past ``--max-calls``: a limit of the audit, not a finding
  about the mechanism (not 1 or 3) and not a pass (not 0).  Also (either white-box kind)
  when an input was not run by the workers of ``--workers`` / ``--dask``
  (:mod:`exactdp.audit.parallel`): its mass counts as uncovered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

from exactdp.audit.guard import Finding, show
from exactdp.audit.provenance import environment
from exactdp.audit.reference import RefDistribution
from exactdp.audit.severity import Severity, decimal_against, in_decimal, severity
from exactdp.binomial import CriticalCounts
from exactdp.certificate import exact_json
from exactdp.certified import Interval
from exactdp.checker import RatioWitness
from exactdp.claims import Claim

__all__ = ["EXIT_CODES", "BlackBoxReport", "Distribution", "FitResult", "InfiniteLoss",
           "PrivacyTest", "TraceResult", "Verdict", "WhiteBoxReport"]

Verdict = Literal["pass", "violation", "broken", "mismatch", "no violation detected",
                  "incomplete"]
Distribution = dict[Any, Fraction]

#: Exit status of the command line for each verdict.
EXIT_CODES: dict[str, int] = {"pass": 0, "no violation detected": 0, "violation": 1,
                              "mismatch": 1, "broken": 3, "incomplete": 2}


@dataclass(frozen=True)
class TraceResult:
    """The timing verdict: what an observer of the running time sees, compared.

    ``same`` is True when, for every randomness ``u`` examined, every input produced the
    same trace as the first input with that same ``u`` (counting kind), or when the joint
    law of (output, trace) of every input meets the claim (exploring kinds,
    :mod:`exactdp.audit.timing`); ``examined`` names what was compared.  ``length`` is the common trace
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
    claimed_epsilon: Claim
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
    #: exactdp / Python / library versions and platform (:mod:`exactdp.audit.provenance`),
    #: recorded when the report is made; ``command``: the command line, set by the CLI.
    environment: Mapping[str, Any] = field(default_factory=dict)
    command: str = ""
    #: the neighbour relation's name when the inputs came from one
    #: (:func:`exactdp.audit.inputs.audit_relation`, ``--inputs datasets(...)``...)
    relation: str = ""
    #: a pass's qualification when it was not confirmed in another process (the hash-seed
    #: confirmation skipped, :mod:`exactdp.audit.hash_seed`): "" for a confirmed pass
    scope: str = ""

    def __post_init__(self) -> None:
        if not self.environment:
            object.__setattr__(self, "environment", environment(self.mechanism))

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    @property
    def severity(self) -> Severity | None:
        """Effective epsilon, excess, hockey-stick delta and a severity level
        (:mod:`exactdp.audit.severity`); None for an audit without ratios."""
        return severity(self.verdict, self.worst, self.claimed_epsilon, self.claimed_delta,
                        self.hockey_stick, None if self.trace is None else self.trace.same)

    def _bound_rest(self) -> list[str]:
        """``bound`` without its first clause (truncated decimals that can read equal; the
        severity block prints both sides to enough places to differ), its approximate-claim
        clause re-rendered the same way."""
        parts = self.bound.split("; ")[1:]
        hs = self.hockey_stick
        return [_approximate_text(hs, self.hockey_stick_pair, self.claimed_delta)
                if p.startswith("approximate claim") and hs is not None else p for p in parts]

    def to_json(self) -> dict[str, Any]:
        sev = self.severity
        return {
            "audit": "whitebox",
            "severity": None if sev is None else sev.to_json(),
            "excess_over_e_eps_at_least": None if self.excess is None else str(self.excess),
            "mechanism": self.mechanism,
            "kind": self.kind,
            "inputs": exact_json(list(self.inputs)),
            "claimed_epsilon": str(self.claimed_epsilon),
            "claimed_delta": str(self.claimed_delta),
            "verdict": self.verdict,
            "pass_scope": self.scope or None,
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
            "environment": _environment_json(self.environment, self.command),
            "neighbours": self.relation or None,
        }

    def summary(self) -> str:
        how = f"; {self.method}" if self.method else ""
        lines = [f"white-box audit of {self.mechanism} ({self.kind}{how})",
                 _environment_line(self.environment, self.command),
                 f"  inputs: {_fmt_inputs(self.inputs)}, {_neighbours_text(self.relation)}"]
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
            lines.append(f"    witness: Pr[M({show(w.numerator_input)}) = {show(w.outcome)}] = {w.p}, "
                         f"Pr[M({show(w.denominator_input)}) = {show(w.outcome)}] = {w.q}")
            lines.append(f"  claimed epsilon {self.claimed_epsilon}, delta {self.claimed_delta}"
                         + "".join(f"; {part}" for part in self._bound_rest()))
            sev = self.severity
            if sev is not None:
                lines.extend(sev.lines())
        if self.infinite:
            lines.append(f"  outcomes possible on one input, impossible on its neighbour: "
                         f"{len(self.infinite)}")
            for inf in self.infinite[:5]:
                lines.append(f"    outcome {show(inf.outcome)}: Pr = {inf.probability} on "
                             f"{show(inf.possible_on)}, 0 on {show(inf.impossible_on)}")
        if self.hockey_stick is not None:
            hs = self.hockey_stick
            lines.append(f"  hockey-stick delta at the claimed epsilon "
                         f"(e^({self.claimed_epsilon})): "
                         + ("0 (exactly)" if hs.hi == 0 else in_decimal(hs))
                         + f" (pair {self.hockey_stick_pair})")
        if self.reference is not None and self.distance is not None:
            lines.append(f"  statistical distance to {self.reference}: "
                         f"{_fmt_value(self.distance)} (max, at input {show(self.distance_input)})")
        if self.trace is not None:
            lines.extend(_trace_lines(self.trace))
        scope = f" ({self.scope})" if self.scope and self.verdict == "pass" else ""
        lines.append(f"  verdict: {self.verdict.upper()}{scope}  "
                     f"({_seconds_str(self.seconds)} s)")
        return "\n".join(lines)


def _trace_lines(t: TraceResult) -> list[str]:
    """The timing part of a white-box summary: what was compared, and the verdict on it."""
    if t.examined.startswith("the joint law"):
        verdict = ("not judged apart: the output alone breaks the claim" if
                   t.randomness_note.startswith("not judged") else
                   "meets the claim" if t.same else
                   f"TIMING: breaks the claim (the output alone does not say as much): "
                   f"{_joint_witness(t.witness)}")
        lines = [f"  timing: {t.examined}", f"    {verdict}"]
    elif t.length == 0:
        lines = [f"  operation traces ({t.examined}): empty on every run examined, nothing "
                 f"was compared" if t.same else
                 f"  operation traces ({t.examined}): TIMING: DIFFER across inputs: "
                 f"{dict(t.witness)}"]
    else:
        lines = [f"  operation traces ({t.examined}): "
                 + ("identical across inputs" if t.same else
                    f"TIMING: DIFFER across inputs: {dict(t.witness)}")]
    if t.randomness_note and not t.randomness_note.startswith("not judged"):
        lines.append(f"    note: {t.randomness_note}")
    sizes = _sizes(t.witness.get("inputs") if not t.same and t.witness else None)
    if sizes is not None:
        lines.append(f"    note: the two inputs are datasets of {sizes[0]} and {sizes[1]} "
                     f"records: code that does work per record shows the size in its "
                     f"operations, and add-remove neighbours keep the size private; do the "
                     f"same work for every size (a fixed bound), or audit under replace-one "
                     f"if the size is public")
    return lines


def _joint_witness(w: Mapping[str, Any]) -> str:
    """A joint-law TIMING witness (:func:`exactdp.audit.timing.timing_result`) in words: the
    two inputs, the output, the draws, the two operation counts (and calls), the two exact
    probabilities and their ratio, and where the operations first differ."""
    try:
        a, b = w["inputs"]
        counts = w["operation_counts_other"]["counts"]
        draws = ", ".join(w["draws"]) or "none"
        calls = f" and the calls {', '.join(w['calls'])}" if w["calls"] else ""
        others = [c for c in w["calls_other"] if c]
        other_calls = f" and the calls {' or '.join(others)}" if others else ""
        same = (f"the same output after the same draws takes "
                f"{' or '.join(map(str, counts))} operations{other_calls}" if counts else
                "no run gives the same output after the same draws")
        ratio = "infinite" if w["ratio"] == "infinite" else w["ratio"]
        text = (f"on input {show(a)}, the output {show(w['output'])} after the draws "
                f"[{draws}] and {w['operation_count']['count']} operations{calls} has "
                f"probability {w['probability']}; on input {show(b)}, that output with that "
                f"trace has probability {w['other_probability']} ({same}): ratio {ratio}")
    except (KeyError, TypeError, ValueError):  # another shape of witness: shown as it is
        return str(dict(w))
    if "hockey_stick" in w:
        text += f", hockey-stick delta at least {w['hockey_stick']}"
    if w.get("first_difference"):
        text += f"; first difference: {w['first_difference']}"
    return text


def _sizes(inputs: Any) -> tuple[int, int] | None:
    """The lengths of a timing witness's two inputs when both are tuples of different
    lengths (datasets of different sizes), else None."""
    if not isinstance(inputs, (list, tuple)) or len(inputs) != 2:
        return None
    a, b = inputs
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) != len(b):
        return len(a), len(b)
    return None


def _approximate_text(hs: Interval, pair: Any, delta: Fraction) -> str:
    """The approximate claim's decision, with decimals on the right side of ``delta``."""
    if hs.hi <= delta:
        how = f"<= claimed delta {delta} (largest over the ordered pairs, each certified)"
    elif hs.lo > delta:
        how = f"> claimed delta {delta}"
    else:
        how = (f"straddles the claimed delta {delta}: not certified, reported as a "
               f"violation")
    return f"approximate claim: delta(eps) {decimal_against(hs, delta)} for the pair {pair} {how}"


def _neighbours_text(relation: str) -> str:
    return f"neighbours: {relation}" if relation else "neighbours c and c+1"


def _environment_json(env: Mapping[str, Any], command: str) -> dict[str, Any]:
    return {**env, "command": command or None}


def _environment_line(env: Mapping[str, Any], command: str) -> str:
    libs = ", ".join(f"{m} {v or '(no installed version)'}"
                     for m, v in env.get("libraries", {}).items())
    return (f"  run with exactdp {env.get('exactdp')}, {env.get('python')} on "
            f"{env.get('platform')}" + (f"; libraries: {libs}" if libs else "")
            + (f"\n  command: {command}" if command else ""))


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
    if len(inputs) > 8:
        return ", ".join(show(c) for c in inputs[:6]) + f", ... ({len(inputs)} inputs)"
    return ", ".join(show(c) for c in inputs)


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
    delta: Fraction = Fraction(0)
    hockey_stick_lower: Fraction | None = None

    def to_json(self) -> dict[str, Any]:
        return {"pair": exact_json([self.a, self.b]), "outcome_set": exact_json(list(self.outcome_set)),
                "estimation_draws": str(self.K), "x": str(self.x), "y": str(self.y),
                "alpha": str(self.alpha), "p_a_lower": str(self.lower), "p_b_upper": str(self.upper),
                "ratio_lower": None if self.ratio_lower is None else str(self.ratio_lower),
                "ln_ratio_lower": None if self.ln_ratio_lower is None else str(self.ln_ratio_lower),
                "violation": self.violation, "power": {"y0": str(self.y0),
                                                       "x_star": None if self.x_star is None
                                                       else str(self.x_star)},
                "selection_counts": exact_json(list(self.selection_counts)),
                "claimed_delta": str(self.delta),
                "hockey_stick_lower": None if self.hockey_stick_lower is None
                else str(self.hockey_stick_lower)}


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
    claimed_epsilon: Claim
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
    claimed_delta: Fraction = Fraction(0)
    environment: Mapping[str, Any] = field(default_factory=dict)
    command: str = ""
    #: the neighbour relation's name when the inputs came from one
    #: (:func:`exactdp.audit.inputs.audit_relation`, ``--inputs datasets(...)``...)
    relation: str = ""

    def __post_init__(self) -> None:
        if not self.environment:
            object.__setattr__(self, "environment", environment(self.mechanism))

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    def to_json(self) -> dict[str, Any]:
        return {"audit": "blackbox", "mechanism": self.mechanism,
                "inputs": exact_json(list(self.inputs)),
                "claimed_epsilon": str(self.claimed_epsilon),
                "claimed_delta": str(self.claimed_delta), "alpha": str(self.alpha),
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
                "seconds": _seconds_str(self.seconds),
                "environment": _environment_json(self.environment, self.command),
                "neighbours": self.relation or None}

    def summary(self) -> str:
        lines = [f"black-box audit of {self.mechanism}",
                 _environment_line(self.environment, self.command),
                 (f"  inputs: {_fmt_inputs(self.inputs)}, {_neighbours_text(self.relation)}; "
                  + ("planned (stopped at the finding below): " if self.verdict == "broken"
                     else "")
                  + f"{self.draws} draws per input for selection/fit and {self.draws} fresh "
                  f"draws on each of the two selected inputs (total {self.total_draws})"),
                 f"  false-alarm probability of this audit: <= {self.alpha}",
                 f"  claim tested: epsilon = {self.claimed_epsilon}, delta = "
                 f"{self.claimed_delta} ("
                 + ("pure DP: lower bound on the privacy-loss ratio)" if self.claimed_delta == 0
                    else "approximate DP: lower bound on the hockey-stick delta(eps))")]
        for f in self.findings:
            lines.append(f"  FINDING [{f.kind}]: {f.message}")
        if self.fit_alpha is not None:
            lines.append(f"  goodness of fit to {self.reference}: {self.fit_tests} exact "
                         f"binomial tests, Bonferroni, total level {self.fit_alpha}: "
                         + ("REJECTED" if self.fit_rejections else "not rejected"))
            if self.reference_table:
                c0 = next(iter(self.reference_table))
                lines.append(f"    reference probabilities at input {show(c0)}:")
                for o, p in self.reference_table[c0].items():
                    lines.append(f"      {show(o)}: {_fmt_decimal_interval(p)}")
            for r in self.fit_rejections[:5]:
                ref = _fmt_value(r.reference)
                lines.append(f"    input {show(r.input)}, outcome {show(r.outcome)}: {r.count} of {r.K} "
                             f"draws, reference probability {ref}")
            if self.fit_power:
                lines.append(f"    power: {self.fit_power}")
        if self.privacy is not None:
            pt = self.privacy
            lines.append(f"  most distinguishing set (chosen on the selection draws): inputs "
                         f"{show(pt.a)} vs {show(pt.b)}, outcomes {_fmt_set(pt.outcome_set)}")
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
        return "{" + ", ".join(show(o) for o in items[:8]) + f", ... ({len(items)} outcomes)}}"
    return "{" + ", ".join(show(o) for o in items) + "}"


