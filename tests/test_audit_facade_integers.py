"""The numpy facades' integer draws (``integers``, ``randint``, ``choice``) against numpy's
definition: the range ``[low, high)`` (``[0, low)`` without ``high``, ``high`` included
with ``endpoint``), one draw of the range's size, the value ``low + j``, and a
``ValueError`` exactly when numpy raises one -- for plain ints (the common short path),
bools, numpy integers and the keyword forms alike."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.audit import facade_numpy
from exactdp.audit.facades import FacadeRefusal, LegacyNumpyFacade, NumpyFacade

np = pytest.importorskip("numpy", reason="the ranges are compared with numpy's own")


class _Fixed:
    """An engine that answers every draw with ``pick(n)`` and records the sizes asked."""

    def __init__(self, pick: int) -> None:
        self.pick = pick
        self.sizes: list[int] = []

    def draw(self, n: int) -> int:
        assert type(n) is int and n >= 1
        self.sizes.append(n)
        return min(self.pick, n - 1)


def _numpy_range(low: Any, high: Any, endpoint: bool) -> range | None:
    """numpy's range of ``Generator.integers(low, high, endpoint=endpoint)``; None when
    numpy raises ``ValueError``."""
    try:
        np.random.default_rng(0).integers(low, high, endpoint=endpoint)
    except ValueError:
        return None
    lo, hi = (0, int(low)) if high is None else (int(low), int(high))
    return range(lo, hi + 1 if endpoint else hi)


_LOWS = st.one_of(st.integers(-3, 9), st.booleans(),
                  st.integers(-3, 9).map(np.int64))


def prop_integers_follow_numpy(low: Any, high: Any, endpoint: bool, pick: int) -> None:
    expected = _numpy_range(low, high, endpoint)
    for make in (NumpyFacade, LegacyNumpyFacade):
        engine = _Fixed(pick)
        facade = make(engine)  # type: ignore[arg-type]
        if make is LegacyNumpyFacade and endpoint:
            continue  # (RandomState.randint has no endpoint)
        call = (lambda f=facade: f.randint(low, high)) if make is LegacyNumpyFacade \
            else (lambda f=facade: f.integers(low, high, endpoint=endpoint))
        if expected is None:
            with pytest.raises(ValueError, match="low >= high"):
                call()
            assert engine.sizes == []
            continue
        value = call()
        assert engine.sizes == [len(expected)]
        assert value == expected[min(pick, len(expected) - 1)]
        assert type(value) is int


@settings(max_examples=120, deadline=None)
@given(_LOWS, st.one_of(st.none(), st.integers(-3, 9)), st.booleans(), st.integers(0, 9))
def test_integers_follow_numpy(low: Any, high: Any, endpoint: bool, pick: int) -> None:
    prop_integers_follow_numpy(low, high, endpoint, pick)


def test_integers_of_plain_ints_edge_cases() -> None:
    for low in (-2, 0, 1, 4, 256, 257):
        for pick in (0, 3, 10**6):
            prop_integers_follow_numpy(low, None, False, pick)
            prop_integers_follow_numpy(low, None, True, pick)


def test_choice_of_an_int_and_of_a_sequence() -> None:
    engine = _Fixed(2)
    facade = NumpyFacade(engine)  # type: ignore[arg-type]
    assert facade.choice(5) == 2 and facade.choice(["a", "b", "c", "d"]) == "c"
    assert engine.sizes == [5, 4]
    with pytest.raises(ValueError, match="low >= high"):
        facade.choice(0)
    with pytest.raises(ValueError, match="cannot be empty"):
        facade.choice([])
    for call in (lambda: facade.choice(3, size=2), lambda: facade.choice(3, p=[1, 0, 0]),
                 lambda: facade.integers(3, size=2), lambda: facade.random(out=[0.0])):
        with pytest.raises(FacadeRefusal, match="black-box"):
            call()
    assert engine.sizes == [5, 4]


@pytest.mark.parametrize(("old", "new"), [
    ("if low <= 0:", "if low < 0:"),
    ("return self._engine.draw(low)", "return self._engine.draw(low + 1)"),
    ("return self._engine.draw(low)", "return 1 + self._engine.draw(low)"),
    ("and not endpoint", ""),
])
def test_a_planted_bug_in_the_short_path_is_caught(monkeypatch: pytest.MonkeyPatch, old: str,
                                                   new: str) -> None:
    from test_checker_mutants import planted

    # the Python method (where the C one is built, it runs every call the C code does not
    # take: the engines here; the C draws are compared with it in test_audit_cdraw.py)
    monkeypatch.setattr(NumpyFacade, "integers", facade_numpy.PY_INTEGERS)
    # a wrong value, or a wrong raise
    with planted(NumpyFacade, "integers", old, new), \
            pytest.raises((AssertionError, ValueError)):
        test_integers_of_plain_ints_edge_cases()
