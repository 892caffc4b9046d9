"""Support for ``proofs/balcer_vadhan/def_2_04_domains.py``: boundary cases of input domains, and toys.

A table is a list of :class:`Refuse` and :class:`Accept` cases, each naming its public entry
point.  :func:`run_table` runs every case and returns one certificate per entry point: a
``Refuse`` case passes when the call raises exactly the expected error class (not a subclass,
not a parent: a guard that is skipped often lets a *different* error surface later, deep in
the arithmetic) with a message containing every expected fragment (the parameter's name, the
offending value or the rule); an ``Accept`` case passes when the call returns and its result
equals the expected value (or satisfies the expected predicate), computed independently in
the table.  Each case runs under a time limit (:data:`CASE_SECONDS`, main thread).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from exactdp.audit.guard import Timeout, time_limit
from exactdp.certificate import Certificate, ClaimReport
from exactdp.counting import TabulatedMechanism
from exactdp.randomness import RandomSource

__all__ = ["Accept", "Constant", "Refuse", "Rigged", "lowered", "min_z", "run_table", "under"]

#: Seconds one case may take (each takes milliseconds): a refusal must be prompt, and a
#: boundary value accepted into a loop that never ends (``ceil_log_ratio`` at base 1 refines
#: its logarithms up to 2^20 bits) must fail the row rather than hang it.
CASE_SECONDS = 5


@dataclass(frozen=True)
class Refuse:
    """``call()`` must raise exactly ``error`` with every fragment of ``says`` in its message."""

    entry: str
    what: str
    call: Callable[[], object]
    error: type[BaseException]
    says: tuple[str, ...]


@dataclass(frozen=True)
class Accept:
    """``call()`` must return ``expect`` (compared with ``==``), or a value for which
    ``expect(value)`` is true when ``expect`` is callable."""

    entry: str
    what: str
    call: Callable[[], object]
    expect: object


Case = Refuse | Accept


def _meets(value: object, expect: object) -> bool:
    return bool(expect(value)) if callable(expect) else value == expect


def _run(case: Case) -> str | None:
    """``None`` if the case behaves as specified, else what happened instead."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SeededSource's not-for-release warning
        try:
            with time_limit(CASE_SECONDS):
                value = case.call()
                ok = isinstance(case, Refuse) or _meets(value, case.expect)
        except Timeout:
            return f"did not finish within {CASE_SECONDS} s"
        except Exception as exc:  # noqa: BLE001 - every exception is compared with the spec
            if isinstance(case, Accept):
                return f"raised {type(exc).__name__}: {str(exc)[:160]}"
            if type(exc) is not case.error:
                return (f"raised {type(exc).__name__} ({str(exc)[:120]}), expected "
                        f"{case.error.__name__}")
            missing = [s for s in case.says if s not in str(exc)]
            if missing:
                return f"{case.error.__name__} without {missing!r}: {str(exc)[:160]}"
            return None
    if isinstance(case, Refuse):
        return f"accepted (returned {str(value)[:80]}), expected {case.error.__name__}"
    if not ok:
        return f"returned {str(value)[:120]}, expected " + (
            "the checked property" if callable(case.expect) else str(case.expect)[:80])
    return None


def run_table(claim: str, grid: str, cases: Sequence[Case]) -> ClaimReport:
    """Run ``cases``; one certificate per entry point, listing its first failures."""
    entries: dict[str, list[Case]] = {}
    for case in cases:
        entries.setdefault(case.entry, []).append(case)
    certs = []
    for entry, mine in entries.items():
        failures = []
        for case in mine:
            problem = _run(case)
            if problem is not None:
                failures.append({"case": case.what, "got": problem})
        refused = sum(isinstance(c, Refuse) for c in mine)
        certs.append(Certificate(
            claim, entry, {"refused": refused, "accepted": len(mine) - refused},
            "; ".join(c.what for c in mine)[:400],
            failures[0]["case"] + ": " + failures[0]["got"] if failures else "as specified",
            "each bad input refused with its typed error naming it; each boundary value "
            "accepted with the right result", not failures, {"failures": failures[:10]}))
    failed = [c.mechanism for c in certs if not c.verdict]
    n_refuse = sum(isinstance(c, Refuse) for c in cases)
    return ClaimReport(
        claim, f"{grid}: {len(entries)} entry points, {n_refuse} inputs just outside their "
               f"domain, {len(cases) - n_refuse} boundary values",
        "all as specified" if not failed else "wrong at: " + ", ".join(failed),
        "refused outside the domain with the right error; accepted and right on it", certs)


# --------------------------------------------------------------------------- toys

def min_z(row: Sequence[int], u: int) -> int:
    """``min{z : F(z) >= u}`` by a plain scan (the inverse CDF, Lemma 2.13)."""
    return next(z for z, f in enumerate(row) if f >= u)


class Rigged(TabulatedMechanism):
    """A tabulated mechanism whose ``M(c, u)`` is overridden at the draws in ``rigged``: what
    a broken sampler (an output outside ``[0, n]``, or out of order in ``u``) looks like to
    the checker."""

    def __init__(self, table: Sequence[Sequence[int]], rigged: dict[int, int]) -> None:
        super().__init__(table)
        self.rigged = rigged

    def _search(self, c: int, u: int) -> int:
        return self.rigged.get(u, super()._search(c, u))


class Constant(RandomSource):
    """A source whose ``uniform`` returns ``value`` whatever ``d`` is (or ``d`` itself when
    ``value`` is ``"d"``): a user's source that may break the ``[d]_+`` contract."""

    def __init__(self, value: object) -> None:
        self.value = value

    def uniform(self, d: int) -> Any:
        return d if self.value == "d" else self.value


@contextmanager
def lowered(module: ModuleType, name: str, value: int) -> Iterator[None]:
    """Set the resource limit ``module.name`` to ``value`` for the ``with`` block.  For limits
    too large to reach in a quick check (``MAX_BASIC_BINS`` would need a tuple of 4 million
    bins): the guard reads the module constant when it runs, so its comparison is checked at
    the boundary without the allocation."""
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


def under(module: ModuleType, name: str, value: int,
          call: Callable[[], object]) -> Callable[[], object]:
    """``call`` run with ``module.name`` lowered to ``value`` (see :func:`lowered`)."""
    def run() -> object:
        with lowered(module, name, value):
            return call()
    return run
