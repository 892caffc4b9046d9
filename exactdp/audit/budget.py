"""Budgets of the white-box exploration: progress, and what an incomplete one still proves.

An exploration that will not finish (an unbounded rejection loop has infinitely many paths)
stops at its budget -- ``max_runs`` paths per input (``--max-paths``) or a deadline
(``--time-budget``), checked between paths and, for a path that never returns, at each of
its draws; a path making more than ``max_draws`` draws (``--max-draws-per-path``, default
:data:`MAX_DRAWS_PER_PATH`) is cut off and the others explored -- with, per input, the
exact weights of the paths finished and their total, the *covered* mass ``m_c``.  The uncovered mass ``1 - m_c`` may fall on any outcome.
A ratio is then *certain* to exceed the claim when it does even if all uncovered mass went
the other way: for inputs ``a, b`` and outcome ``o``,
``Pr[M(a) = o] >= p_a(o)`` and ``Pr[M(b) = o] <= p_b(o) + (1 - m_b)``, so
``p_a(o) / (p_b(o) + 1 - m_b) > e**eps`` (decided with a certified upper bound on
``e**eps``) refutes the claim exactly, and ``p_a(o) > 0 = p_b(o) + 1 - m_b`` is a certain
infinite loss.  Anything else is undecided: the verdict is ``"incomplete"``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from exactdp.audit.guard import Finding, Progress, say, show
from exactdp.audit.report import Distribution, WhiteBoxReport, _decimal
from exactdp.claims import Claim, exp_bounds
from exactdp.params import ParameterError

__all__ = ["MAX_DRAWS_PER_PATH", "certain_violation", "check_time_budget", "incomplete_report", "progress_printer"]

#: Default cap on the draws of one path (``--max-draws-per-path``): a path past it is cut
#: off, its mass uncovered (an unbounded loop on a probability-0 path ends there).
MAX_DRAWS_PER_PATH = 10**4
#: Largest ``--time-budget`` accepted, in seconds (a week).
MAX_TIME_BUDGET = 7 * 24 * 3600


def check_time_budget(value: object, name: str = "time_budget") -> int | None:
    """A whole number of seconds in ``[1, MAX_TIME_BUDGET]``, or None (no budget)."""
    if value is None:
        return None
    text = str(value).strip()
    if isinstance(value, bool) or not text.isdigit() or not 1 <= int(text) <= MAX_TIME_BUDGET:
        raise ParameterError(f"{name} = {value!r} must be a whole number of seconds in "
                             f"[1, {MAX_TIME_BUDGET}]")
    return int(text)


def progress_printer(progress: Progress, c: Any) -> Callable[[int, Fraction], None] | None:
    """A callback for :func:`exactdp.explore.explore` printing paths, mass covered (rounded
    down: "at least") and the rate, for input ``c``."""
    if progress is None:
        return None
    start = time.monotonic_ns()

    def show_progress(runs: int, covered: Fraction) -> None:
        seconds = max(time.monotonic_ns() - start, 1)
        rate = runs * 10**9 // seconds
        say(progress, f"    input {show(c)}: {runs} paths, mass covered {_covered(covered)}, "
                      f"{rate} paths/s")
    return show_progress


def _covered(mass: Fraction) -> str:
    """``mass`` in words: ``1``, ``0``, or ``1 - u`` with ``u <= 2^-k`` (``k`` largest)."""
    if mass in (0, 1):
        return str(mass)
    u = 1 - mass
    k = (u.denominator // u.numerator).bit_length() - 1  # 2^k <= 1/u
    return f"1 - u, u <= 2^-{k}" if k else f"{_decimal(mass)} (rounded down)"


def certain_violation(dists: Mapping[Any, Distribution], covered: Mapping[Any, Fraction],
                      pairs: Sequence[tuple[Any, Any]], eps: Claim
                      ) -> tuple[Fraction | None, Any, Any, Any, Fraction, Fraction] | None:
    """The largest certain lower bound on a privacy-loss ratio above ``e**eps``, as
    ``(ratio or None for infinite, a, b, outcome, p_a(o), upper bound on Pr[M(b) = o])``;
    None when no ratio is certain to exceed ``e**eps`` from the mass covered."""
    e_hi = exp_bounds(eps, 128).hi
    best: tuple[Fraction | None, Any, Any, Any, Fraction, Fraction] | None = None
    for x, y in pairs:
        for a, b in ((x, y), (y, x)):
            slack = 1 - covered[b]
            for o, p in dists[a].items():
                q = dists[b].get(o, Fraction(0)) + slack
                if p == 0:
                    continue
                if q == 0:
                    return (None, a, b, o, p, q)
                if p / q > e_hi and (best is None or p / q > best[0]):  # type: ignore[operator]
                    best = (p / q, a, b, o, p, q)
    return best


def incomplete_report(common: dict[str, Any], dists: dict[Any, Distribution],
                      covered: Mapping[Any, Fraction], pairs: Sequence[tuple[Any, Any]],
                      eps: Claim, method: str, d: int | None, why: str,
                      seconds: Fraction) -> WhiteBoxReport:
    """The report of an exploration stopped at its budget: ``"violation"`` when a ratio is
    certain to exceed ``e**eps`` from the covered mass alone, else ``"incomplete"``."""
    short = min(covered, key=lambda c: covered[c])
    masses = {c: str(m) for c, m in covered.items()}
    findings = [Finding("incomplete", f"exploration stopped at {why}; probability mass "
                        f"covered per input: " + ", ".join(
                            f"{show(c)}: {_covered(m)}" for c, m in covered.items())
                        + f" (least: input {show(short)}; exact fractions in the JSON)",
                        {"covered": masses, "stopped_at": why})]
    hit = certain_violation(dists, covered, pairs, eps)
    bound = "undecided: no ratio is certain to exceed the claim from the mass covered"
    verdict: Any = "incomplete"
    if hit is not None:
        ratio, a, b, o, p, q = hit
        verdict = "violation"
        what = ("an infinite privacy loss" if ratio is None else
                f"a ratio of at least {ratio} > e^({eps})")
        bound = (f"certain from the mass covered: Pr[M({show(a)}) = {show(o)}] >= {p} and "
                 f"Pr[M({show(b)}) = {show(o)}] <= {q} (uncovered mass included), "
                 f"{what}")
        findings.append(Finding("certain_violation", bound,
                                {"numerator_input": a, "denominator_input": b, "outcome": o,
                                 "p_at_least": p, "q_at_most": q}))
    return WhiteBoxReport(**common, verdict=verdict, method=method, d=d,
                          distributions=dists, bound=bound, findings=tuple(findings),
                          seconds=seconds)
