"""Outcomes keep the type an observer sees: ``0`` is not ``0.0``, ``[1]`` is not ``(1,)``;
``None`` and dicts are outcomes."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.audit import whitebox_audit
from exactdp.audit.facades import facade_mechanism
from exactdp.audit.outcomes import Typed, observed

np = pytest.importorskip("numpy")  # the [test] extra has no numpy

_CONV = {0: int, 1: float}


def int_or_float(bit: int, rng: random.Random) -> Any:
    """Randomized response whose output type is the input: ``1`` from 0, ``1.0`` from 1,
    with the same operations on both inputs (no timing difference)."""
    out = bit if rng.random() < 0.75 else 1 - bit
    return _CONV[bit](out)


_WRAP = {0: tuple, 1: list}


def tuple_or_list(bit: int, rng: random.Random) -> Any:
    out = bit if rng.random() < 0.75 else 1 - bit
    return _WRAP[bit]((out,))


def audit(f: Callable[[int, random.Random], Any], eps: str = "ln 3") -> Any:
    return whitebox_audit(facade_mechanism(f), inputs=range(2), claimed_epsilon=eps,
                          kind="source", hash_seeds=0)


@pytest.mark.parametrize("f", [int_or_float, tuple_or_list])
def test_a_type_that_reveals_the_input_is_a_violation(f: Callable[..., Any]) -> None:
    report = audit(f)
    assert report.verdict == "violation"
    assert report.worst is not None and report.worst.ratio is None  # infinite loss


def test_the_planted_merge_of_types_passes_the_reproducers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With outcomes keyed by their value only (the planted bug), both reproducers pass:
    the tag is what makes them fail."""
    from exactdp.audit import guard

    monkeypatch.setattr(guard, "observed", lambda v: guard._plain(v))
    assert audit(int_or_float).verdict == "pass"
    assert audit(tuple_or_list).verdict == "pass"


def test_one_type_throughout_passes_and_prints_readably() -> None:
    floats = audit(lambda bit, rng: float(bit if rng.random() < 0.75 else 1 - bit))
    assert floats.verdict == "pass"
    assert floats.distributions[0] == {observed(0.0): Fraction(3, 4),
                                       observed(1.0): Fraction(1, 4)}
    assert "0.0" in str(list(floats.distributions[0])) and "1.0" in json.dumps(
        floats.to_json())
    np_ints = audit(lambda bit, rng: np.int64(bit if rng.random() < 0.75 else 1 - bit))
    assert np_ints.verdict == "pass"
    lists = audit(lambda bit, rng: [bit if rng.random() < 0.75 else 1 - bit])
    assert lists.verdict == "pass" and repr(next(iter(lists.distributions[0]))) == "[0]"


def test_observed_tells_types_apart() -> None:
    assert observed(0) != observed(0.0) and observed(0.0) != observed(-0.0)
    assert observed(1) != observed(Fraction(1)) and observed(0.5) != observed(Fraction(1, 2))
    assert observed([1]) != observed((1,)) and observed(np.int64(1)) != observed(1)
    assert observed(np.float64(0.5)) != observed(0.5)  # a float subclass, another repr
    assert observed(np.array([1, 2])) != observed(np.array([1, 2], dtype=np.int32))
    assert observed(np.array([1, 2])) == observed(np.array([1, 2]))
    assert observed(0.1) == observed(0.1) and hash(observed(0.1)) == hash(observed(0.1))
    assert observed({"a": 1, "b": 2}) != observed({"b": 2, "a": 1})  # they print apart
    assert observed(None) == observed(None) and observed(None) != observed(0)
    assert [repr(observed(v)) for v in (0.5, -0.0, [1, None], Fraction(1, 2), None)] == [
        "0.5", "-0.0", "[1, None]", "Fraction(1, 2)", "None"]
    assert sorted([observed(1.5), observed(-2.0)]) == [observed(-2.0), observed(1.5)]
    assert isinstance(observed(2.0), Typed) and type(observed(2)) is int
    assert observed(np.str_("a")) != observed("a") and observed(np.array(3)) != observed(3)
    assert observed(np.array(3)) == observed(np.array(3)) != observed(np.array(3.0))
    assert observed(np.bytes_(b"x")) == observed(np.bytes_(b"x")) != observed(b"x")


#: Values of distinct types an observer tells apart, from an int 0 or 1.
_TYPES: list[Callable[[int], Any]] = [
    int, float, Fraction, np.int64, np.float64, np.float32, str, lambda v: [v],
    lambda v: (v,), lambda v: {"v": v}, lambda v: np.array([v]),
    lambda v: np.array([v], dtype=np.int8), lambda v: None if v else -0.0, bool]


@settings(max_examples=15, deadline=None)
@given(st.permutations(range(len(_TYPES))), st.integers(1, 3), st.booleans())
def test_a_random_type_mix_by_input_never_passes(order: list[int], k: int,
                                                 only_one: bool) -> None:
    """The output's type depends on the input (on every outcome, or on outcome 1 only):
    never PASS, however loose the claim."""
    first, second = _TYPES[order[0]], _TYPES[order[1]]

    def mixed(bit: int, rng: random.Random) -> Any:
        out = bit if rng.randrange(k + 1) else 1 - bit
        conv = (first, second)[bit]
        return conv(out) if not only_one or out == 1 else out

    report = audit(mixed, eps="ln 1000")
    assert report.verdict == "violation"


def above_threshold(q: tuple[int, ...], rng: random.Random) -> int | None:
    """The first index above a noisy threshold, or None."""
    t = 2 if rng.random() < 0.5 else 1
    for i, x in enumerate(q):
        if x + (1 if rng.random() < 0.5 else 0) >= t:
            return i
    return None


def test_none_is_an_outcome_at_top_level_and_inside_lists() -> None:
    r = whitebox_audit(facade_mechanism(above_threshold), inputs=[(0, 0), (0, 1)],
                       claimed_epsilon="ln 100", kind="source", hash_seeds=0)
    assert r.verdict != "broken"
    assert r.distributions[(0, 0)][observed(None)] == Fraction(1, 2) * Fraction(1, 4) + \
        Fraction(1, 2)  # t = 1: both coins 0; t = 2: never above
    svt = whitebox_audit(facade_mechanism(lambda bit, rng: [None if rng.random() < 0.5
                                                           else True, bit]),
                         inputs=range(2), claimed_epsilon="ln 100", kind="source", hash_seeds=0)
    assert svt.verdict == "violation"  # the bit is in the output
    assert observed([None, 0]) in svt.distributions[0]


def test_dict_outcomes_are_counted_by_their_items() -> None:
    r = audit(lambda bit, rng: {"answer": bit if rng.random() < 0.75 else 1 - bit})
    assert r.verdict == "pass"
    assert r.distributions[0][observed({"answer": 0})] == Fraction(3, 4)
