"""The operation count of a facade mechanism counts the audited code's own operations and
nothing of the audit around it: a ``randrange`` call is one call whether or not the escape
guards are installed, and the count is the same on every run of the same path.  And a lazy
integer compared with ``==`` at either end of what is left of its range branches exactly
(the law against brute force)."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest

from exactdp.audit.counted_runs import Counting
from exactdp.audit.escape import watching
from exactdp.audit.facades import facade_mechanism
from exactdp.audit.guard import Guard
from exactdp.audit.per_input import run_once
from exactdp.explore import ExploringSource, explore


def three_draws(c: int, rng: Any) -> int:
    z = c
    for _ in range(3):
        z += rng.randrange(4)
    return z


def _operations(mech: Any, choices: tuple[int, ...]) -> tuple[Any, int]:
    src = ExploringSource(choices, max_draws=len(choices) + 4)
    out, trace = run_once(mech, 0, src, Guard(None), None, None, Counting(mech))
    return out, trace[1]


@pytest.mark.parametrize("guarded", [False, True])
def test_randrange_is_one_call(guarded: bool) -> None:
    # by hand: range(3) and three randrange calls are 4 calls; the for loop's first
    # instruction runs 4 times (3 iterations and the exit); randrange's own lines and the
    # facade's are not the audited code's
    mech = facade_mechanism(three_draws, "random", lazy=False)
    if guarded:
        with watching(mech):
            out, ops = _operations(mech, (1, 2, 3))
    else:
        out, ops = _operations(mech, (1, 2, 3))
    assert (out, ops) == (6, 8)


def test_same_count_on_every_run() -> None:
    mech = facade_mechanism(three_draws, "random", lazy=False)
    counts = {_operations(mech, choices)[1]
              for choices in itertools.product(range(4), repeat=3)}
    assert counts == {8}


def _equal_at(low: int, target: int) -> Any:
    def mech(c: int, rng: Any) -> tuple[bool, bool]:
        u = rng.randrange(5)
        return (u >= low, u >= low and u == target)
    return mech


@pytest.mark.parametrize(("low", "target"),
                         [(0, 0), (0, 4), (2, 2), (2, 4), (4, 4), (2, 1), (2, 5), (0, -1),
                          (1, 3)])
def test_equality_at_the_ends_of_the_cell(low: int, target: int) -> None:
    mech = facade_mechanism(_equal_at(low, target), "random")
    law = explore(lambda src: mech(0, src))
    brute: dict[tuple[bool, bool], Fraction] = {}
    for u in range(5):
        key = (u >= low, u >= low and u == target)
        brute[key] = brute.get(key, Fraction(0)) + Fraction(1, 5)
    assert law == dict(sorted(brute.items()))
    assert mech.lazy_ints  # compared only: the draw stayed lazy


def test_unweighed_replay_makes_the_same_draws() -> None:
    """A re-run's source keeps no weight (the re-run compares choices and draws only): its
    choices, option counts and denominators are those of a weighing run of the same path."""
    mech = facade_mechanism(_equal_at(2, 4), "random")
    for choices in ((0,), (1, 0), (1, 1)):
        weighed = ExploringSource(choices)
        unweighed = ExploringSource(choices, weigh=False)
        assert mech(0, weighed) == mech(0, unweighed)
        assert weighed.choices == unweighed.choices == list(choices)
        assert [(e[0], e[3], e[4]) for e in weighed.log] == \
            [(e[0], e[3], e[4]) for e in unweighed.log]
        assert unweighed.weight == 1 and weighed.weight < 1
