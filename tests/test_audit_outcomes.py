"""Outcomes are told apart as an observer tells them apart: ``False`` is not ``0``."""

from __future__ import annotations

import json
import random
from fractions import Fraction

from exactdp.audit import whitebox_audit
from exactdp.audit.facades import facade_mechanism
from exactdp.audit.outcomes import Truth, observed


def bool_or_int(c: int, rng: random.Random) -> tuple[bool, object]:
    """``True`` from input 1, ``1`` from input 0: equal in Python, seen apart by anyone."""
    return (rng.randrange(2) == 0, True if c else 1)


def test_true_and_one_are_different_outcomes() -> None:
    report = whitebox_audit(facade_mechanism(bool_or_int), inputs=range(2),
                            claimed_epsilon=1, kind="source")
    assert report.verdict == "violation"  # was PASS: (x, True) and (x, 1) merged
    assert report.worst is not None and report.worst.ratio is None  # infinite loss
    half = Fraction(1, 2)
    assert report.distributions[1] == {(False, True): half, (True, True): half}
    assert (False, 1) not in report.distributions[1]
    assert json.loads(json.dumps(report.to_json()))["verdict"] == "violation"


def twin(c: int, rng: random.Random) -> tuple[bool, bool]:
    return (rng.randrange(2) == 0, True)


def test_the_twin_passes_and_prints_plain_bools() -> None:
    report = whitebox_audit(facade_mechanism(twin), inputs=range(2), claimed_epsilon=1,
                            kind="source")
    assert report.verdict == "pass"
    assert report.distributions[0] == {(False, True): Fraction(1, 2), (True, True): Fraction(1, 2)}
    assert "(True, True)" in json.dumps(report.to_json())


def test_truth_equality() -> None:
    assert observed((False, 0)) == (False, 0) and observed((False, 0)) != (0, 0)
    assert observed(False) != 0 and observed(True) != 1 and observed(True) == True
    assert Truth(True) == Truth(True) and Truth(True) != Truth(False)
    assert sorted([Truth(True), Truth(False)]) == [False, True]
    assert observed((1, 2)) == (1, 2) and type(observed(3)) is int
