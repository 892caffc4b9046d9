"""A path log fed the exploring sources themselves (:meth:`PathLog.add`: a path's first draws
taken from the path it branched from) holds exactly the paths that recording each path whole
(:func:`path_record`) gives."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.audit import path_log
from exactdp.audit.path_log import PathLog
from exactdp.audit.per_input import draw_record
from exactdp.explore import explore

#: a mechanism as a list of draws: (kind, k); a uniform draw of k + 1 options, a coin
#: k / (k + 2) (weighed options), an event-free coin 1 / (k + 1); an odd k ends the path
#: when option 0 is taken (paths of several lengths)
SPECS = st.lists(st.tuples(st.sampled_from("ubc"), st.integers(1, 4)), min_size=1,
                 max_size=5)


def path_record(src: Any, result: Any) -> tuple[Any, ...]:
    """A path recorded whole: its choices, its draws ``(options, den, numerators or None)``
    and its result."""
    return tuple(src.choices), draw_record(src), result


def _mechanism(spec: list[tuple[str, int]]) -> Any:
    def f(src: Any) -> Any:
        out = 0
        for kind, k in spec:
            v = (src.uniform(k + 1) if kind == "u" else int(src.bernoulli(k, k + 2))
                 if kind == "b" else int(src.explore_coin(1, k + 1)))
            out = out * 7 + v
            if v == 0 and k % 2:
                break
        return out
    return f


def _both(spec: list[tuple[str, int]]) -> tuple[PathLog, PathLog]:
    """The paths of ``spec`` given whole to one log and as sources to another."""
    added, whole = PathLog(), PathLog()
    f = _mechanism(spec)

    def run(src: Any) -> Any:
        out = f(src)
        added.add(src, out)
        whole.append(path_record(src, out))
        return out
    explore(run)
    return added, whole


@settings(max_examples=40, deadline=None)
@given(SPECS, st.sampled_from([path_log.RECENT, 0, 1]))
def test_sources_pack_to_the_paths_recorded_whole(spec: list[tuple[str, int]],
                                                  recent: int) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(path_log, "RECENT", recent)  # 0, 1: most paths packed whole
        added, whole = _both(spec)
    assert len(added) == len(whole)
    assert added.state() == whole.state()
    assert list(added) == list(whole)


def test_most_paths_pack_only_their_new_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a depth-first exploration a path branches from one of the last few: its first
    draws are taken from there, its new ones packed: here one draw per node of the tree
    where a draw is made, 1 + 4 + 16 + 64, for 4^4 paths of 4 draws."""
    packed: list[int] = []
    records = path_log._records
    monkeypatch.setattr(path_log, "_records",
                        lambda entries: packed.append(len(entries)) or records(entries))
    added, whole = _both([("u", 3)] * 4)
    assert added.state() == whole.state() and len(added) == 4**4
    assert sum(packed) == 1 + 4 + 16 + 64


class _Source:
    """What :meth:`PathLog.add` reads of an exploring source after its run."""

    def __init__(self, choices: list[int], log: list[Any], prefix: tuple[int, ...] = (),
                 recorded: list[Any] | None = None, mismatch: int | None = None) -> None:
        self.choices, self.log, self.prefix = choices, log, prefix
        self.recorded, self.mismatch = recorded, mismatch


def _entry(size: int, masses: list[int] | None = None) -> tuple[Any, ...]:
    return (size, 1, 1, size if masses is None else sum(masses), masses)


def _unshared(mismatch: int | None) -> PathLog:
    """A path that replays one draw of the path before it but whose entry there is not
    that path's (a request the replay did not match)."""
    first = _Source([0, 0], [_entry(2), _entry(3)])
    log = [_entry(5), _entry(2, [1, 3])]
    second = _Source([1, 1], log, (1,), first.log, mismatch)
    added = PathLog()
    added.add(first, "a")
    added.add(second, "b")
    return added


@pytest.mark.parametrize("mismatch", [None, 0])
def test_a_path_whose_replayed_entries_differ_packs_its_own(mismatch: int | None) -> None:
    added = _unshared(mismatch)
    assert list(added)[1] == ((1, 1), ((5, 5, None), (2, 4, (1, 3))), "b")


def test_planted_bug_shared_prefix_unchecked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Packing a path's first draws from the path before it without checking that its
    entries there are that path's hands the other processes draws it did not make: the
    check above sees it."""
    monkeypatch.setattr(path_log, "_shared", lambda log, parent, n: True)
    added = _unshared(None)
    assert list(added)[1][1] != ((5, 5, None), (2, 4, (1, 3)))


@pytest.mark.parametrize("planted", [False, True])
def test_results_share_an_entry_only_when_equal_with_the_same_types(
        planted: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Results share an entry only when equal with the same type at every level (a
    planted key without the types merges ``True``, ``1`` and ``Fraction(1)``)."""
    from exactdp.audit.outcomes import observed

    if planted:
        monkeypatch.setattr(path_log, "strict_key", lambda value: value)
    log = PathLog()
    results = [1, True, (1,), (True,), observed([1]), observed([True]), observed([True]),
               (1,), Fraction(1)]
    for i, result in enumerate(results):
        log.append(((i,), (), result))
    # 1, True, (1,), (True,), [1], [True], Fraction(1): seven distinct results
    got = [r for *_, r in log]
    assert got == results  # equal either way; the types kept only with the strict key
    kept = len(log.results) == 7 and [type(r) for r in got] == [type(r) for r in results]
    assert kept is not planted
    if not planted:
        with pytest.raises(TypeError):
            path_log.strict_key(1.0)  # a float's equality is not strict (1.0 == 1)


@pytest.mark.parametrize("reused_ids", [False, True])
def test_outcome_objects_found_by_identity_keep_their_entries(
        reused_ids: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """An outcome object added again is found by its id, without its key; an equal outcome
    of other types never takes its entry.  With every object given the same id (as after
    an object's death its id is reused), the kept object tells them apart."""
    from exactdp.audit.outcomes import Truth, observed

    if reused_ids:
        monkeypatch.setattr(path_log, "id", lambda value: 0, raising=False)
    true_list, one_list = observed([True]), observed([1])
    results = [true_list, true_list, one_list, true_list, observed([True]), Truth(True),
               one_list, observed((1,)), observed(True), 1]
    log = PathLog()
    for i, result in enumerate(results):
        log.append(((i,), (), result))
    got = [r for *_, r in log]
    assert [(type(r), getattr(r, "kind", None), repr(r)) for r in got] == \
        [(type(r), getattr(r, "kind", None), repr(r)) for r in results]
    # [True], [1], True, (1,), 1: five entries
    assert len(log.results) == 5
    assert [row[2] for row in log.rows] == [0, 0, 1, 0, 0, 2, 1, 3, 2, 4]
