"""What an ``exactdp check`` grid covers, and the verdict that follows from it.

A check computes exact laws on a finite grid.  Its pass means the claim holds on the
mechanism only when the grid reaches every point where the claim can be tightest; each check
states why its grid does (or computes the smallest grid that does).  Three verdicts:

* ``FAIL`` (exit status 1) -- a violation was found on the grid (whatever it covers);
* ``not covered`` (exit status 2, like any input that cannot decide the claim: one line on
  stderr with the worst ratio found and what to raise, nothing on stdout) -- no violation
  on a grid that cannot reach the tightest points: nothing is concluded, and no report is
  printed that could be read as a result;
* ``pass`` (exit status 0) -- no violation on a grid that covers them.

Each check also counts its non-vacuous grid points: the ordered pairs whose two laws
differ (a pair of equal laws has ratio 1 and can never refute a claim).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from exactdp.cli._common import FAILED, OK
from exactdp.params import ParameterError

__all__ = ["Coverage", "NotCoveredError", "non_vacuous", "outcome"]


class NotCoveredError(ParameterError):
    """A check found no violation on a grid that cannot reach the claim's tightest inputs:
    the parameters given cannot decide the claim (exit status 2, nothing on stdout)."""


@dataclass(frozen=True)
class Coverage:
    """Whether the grid reaches the claim's tightest points (``why`` says how it was
    decided; ``raise_to`` what to raise when it does not), and how many of its ``pairs``
    ordered pairs are non-vacuous."""

    covered: bool
    why: str
    non_vacuous: int
    pairs: int
    raise_to: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"covered": self.covered, "why": self.why,
                "non_vacuous_pairs": str(self.non_vacuous), "pairs": str(self.pairs),
                **({"raise": self.raise_to} if not self.covered else {})}

    def lines(self) -> str:
        """The text lines a check prints about its coverage."""
        head = "covered" if self.covered else "NOT covered"
        return (f"  non-vacuous: {self.non_vacuous} of {self.pairs} ordered pairs (their laws "
                f"differ)\n  coverage: {head}: {self.why}"
                + ("" if self.covered else f"\n    to cover it: {self.raise_to}"))


def non_vacuous(pairs: Iterable[tuple[Any, Any]],
                laws: Mapping[Any, Mapping[Any, Any]] | Sequence[Mapping[Any, Any]]) -> int:
    """The ordered pairs ``(a, b)`` whose laws ``laws[a] != laws[b]`` (a mapping from input
    to law, or a sequence indexed by the input)."""
    return sum(1 for a, b in pairs if laws[a] != laws[b])


def outcome(ok: bool, coverage: Coverage, worst: object = None) -> tuple[str, int]:
    """The verdict word and exit status; a violation is FAIL even on an uncovered grid.  An
    uncovered grid without one raises :class:`NotCoveredError` (one line: the worst ratio
    ``worst`` found, why the grid falls short and what to raise) before any report is
    printed."""
    if not ok:
        return "FAIL", FAILED
    if not coverage.covered:
        found = "" if worst is None else f" (worst ratio on it {worst})"
        raise NotCoveredError(f"not covered: no violation on this grid{found}, but it cannot "
                              f"decide the claim: {coverage.why}; {coverage.raise_to}; "
                              f"nothing is concluded")
    return "pass", OK
