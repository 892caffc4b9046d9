"""The hash-seed confirmation's job: the explored paths as the other processes receive them
(choices packed, draws and results in shared tables) must replay exactly the paths recorded
here, and a replay that differs in its draws, choices or output (type included) is found."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.audit import hash_seed, path_log, whitebox
from exactdp.audit.outcomes import Truth, observed
from exactdp.audit.path_log import PathLog, strict_key
from exactdp.audit.whitebox import whitebox_audit

ROOT = Path(__file__).resolve().parents[1]


def rr(c: int, source: Any) -> int:  # randomized response at ln 3
    return c if source.bernoulli(3, 4) else 1 - c


def wide(c: int, source: Any) -> int:  # a choice past 255: the choices as a tuple
    return (source.uniform(300) + c) % 2


def _rr_integers(c: int, rng: Any) -> int:  # ln 3 through numpy's integers(4)
    return c if rng.integers(4) else 1 - c


_STUCK = {"on": False}


def rr_hangs_there(c: int, source: Any) -> int:  # ln 3; hangs once _STUCK is set
    keep = source.bernoulli(3, 4)
    while _STUCK["on"]:
        pass
    return c if keep else 1 - c


def rr_numpy() -> Any:
    from exactdp.audit.facades import facade_mechanism

    return facade_mechanism(_rr_integers, "numpy")


def _same(a: Any, b: Any) -> bool:
    """Equal with the same type at every level."""
    if type(a) is not type(b):
        return False
    if type(a) is tuple:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is Truth:
        return a.value is b.value
    return bool(a == b)


def _round_trip(paths: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    task = pickle.loads(hash_seed._job("oracle", {}, [("c", paths)]))
    [(c, state)] = task["inputs"]
    assert c == "c"
    return [row[:3] for row in hash_seed._Replays(*state)]


def test_strict_keys_tell_apart_what_equality_merges() -> None:
    # 1 == True == Truth(True) and (1,) == (True,) == (1.0,): never one key
    assert strict_key(1) != strict_key(True)
    assert strict_key(True) != strict_key(Truth(True))
    assert strict_key(1) != strict_key(Fraction(1))
    assert strict_key((1, 2)) != strict_key((True, 2))
    assert strict_key(observed([1])) != strict_key(observed([True]))
    assert strict_key(observed(1.0)) != strict_key(1)
    assert strict_key(observed(0.0)) != strict_key(observed(-0.0))
    # equal values of one type share a key
    assert strict_key((1, "a", b"x")) == strict_key((1, "a", b"x"))
    assert strict_key(Truth(False)) == strict_key(observed(False))
    for unknown in (1.0, [1], {1: 2}, frozenset({1})):  # no key: never shared
        with pytest.raises(TypeError):
            strict_key(unknown)


RESULTS = st.recursive(
    st.one_of(st.integers(-3, 3), st.booleans(), st.sampled_from(["a", b"a", None]),
              st.booleans().map(Truth), st.floats(-2, 2, allow_nan=False),
              st.sampled_from([Fraction(1), Fraction(1, 2)]),
              st.lists(st.integers(0, 1), max_size=2).map(observed)),
    lambda inner: st.tuples(inner, inner), max_leaves=4)
PATHS = st.lists(st.tuples(
    st.lists(st.integers(0, 400), max_size=4).map(tuple),
    st.lists(st.tuples(st.integers(1, 3), st.sampled_from([2, 4, 300]),
                       st.one_of(st.none(), st.tuples(st.integers(1, 3), st.integers(1, 3)))),
             max_size=3).map(tuple),
    RESULTS), max_size=8)


@settings(max_examples=60, deadline=None)
@given(PATHS)
def test_the_job_replays_exactly_the_recorded_paths(paths: list[tuple[Any, ...]]) -> None:
    again = _round_trip(paths)
    assert len(again) == len(paths)
    for (choices, draws, result), (choices2, draws2, result2) in zip(paths, again,
                                                                     strict=True):
        assert type(choices2) is tuple and choices2 == choices
        assert all(type(x) is int for x in choices2)
        assert draws2 == draws
        assert _same(result2, result), (result, result2)


def test_planted_bug_loose_table_merges_one_with_true(monkeypatch: pytest.MonkeyPatch) -> None:
    """A results table keyed by plain equality hands the other process True where 1 was
    recorded; the round trip sees it (and the strict key does not merge them)."""
    paths = [((0,), (), 1), ((1,), (), True)]
    assert all(_same(a[2], b[2]) for a, b in zip(paths, _round_trip(paths), strict=True))
    monkeypatch.setattr(path_log, "strict_key", lambda value: value)
    assert not all(_same(a[2], b[2]) for a, b in zip(paths, _round_trip(paths), strict=True))


def _recorded(mechanism: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    """What the audit hands :func:`~exactdp.audit.hash_seed.confirm` for ``mechanism``."""
    seen: list[tuple[Any, ...]] = []
    monkeypatch.setattr(whitebox, "confirm", lambda *args, **kw: seen.append(args) or
                        hash_seed.Confirmation(line="recorded"))
    report = whitebox_audit(mechanism, inputs=range(2), claimed_epsilon="ln 3",
                            kind="source")
    assert report.verdict == "pass"
    [args] = seen
    return args


def _answer(args: tuple[Any, ...], inputs: Any, traced: bool) -> dict[str, Any]:
    rebuild, mode, params = args[:3]
    head = pickle.dumps({"loader": rebuild.loader, "blob": rebuild.blob,
                         "cwd": "."})
    return hash_seed._answer(head, hash_seed._job(mode, params, inputs), traced)


@pytest.mark.parametrize("mechanism", [rr, wide, rr_numpy])
@pytest.mark.parametrize("traced", [True, False])
def test_a_faithful_replay_confirms(mechanism: Any, traced: bool,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    args = _recorded(mechanism() if mechanism is rr_numpy else mechanism, monkeypatch)
    answer = _answer(args, args[3], traced)
    assert "ok" in answer, answer
    if traced:  # the joint law of (output, trace) per input, its masses summing to 1
        for c in (0, 1):
            assert sum(answer["laws"][c].values()) == 1


def _tampered(inputs: Any, change: Any) -> list[tuple[Any, Any]]:
    (c, log), rest = inputs[0], inputs[1:]
    paths = list(log)
    return [(c, [change(*paths[0]), *paths[1:]]), *rest]


@pytest.mark.parametrize("traced", [True, False])
@pytest.mark.parametrize(("what", "change"), [
    ("made draws", lambda ch, dr, out: (ch, ((dr[0][0], dr[0][1] * 2, dr[0][2]),) + dr[1:],
                                        out)),
    ("made draws", lambda ch, dr, out: (ch, ((dr[0][0], dr[0][1], None),) + dr[1:], out)),
    ("output", lambda ch, dr, out: (ch, dr, Truth(bool(out)))),
    ("output", lambda ch, dr, out: (ch, dr, 1 - out)),
    ("made more draws", lambda ch, dr, out: (ch[:-1], dr[:-1], out)),
])
def test_a_replay_that_differs_is_found(what: str, change: Any, traced: bool,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    for mechanism in (rr, rr_numpy()):  # (the facade's integer draws: their native chain)
        args = _recorded(mechanism, monkeypatch)
        tampered = _tampered(args[3], change)
        if tampered[0][1][0] == next(iter(args[3][0][1])):
            continue  # (no weights to drop: numpy's integers(4) draws are equally likely)
        answer = _answer(args, tampered, traced)
        assert "differ" in answer, answer
        assert what in answer["differ"]["second"]


@pytest.mark.parametrize("traced", [True, False])
def test_a_replay_that_hangs_is_stopped_at_its_time_limit(
        traced: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The replays run as the audit's runs do, under one timer for their time limits: a
    path that hangs there is interrupted after its limit and found."""
    args = _recorded(rr_hangs_there, monkeypatch)
    rebuild, mode, params = args[:3]
    monkeypatch.setitem(_STUCK, "on", True)
    answer = _answer((rebuild, mode, dict(params, time_limit=1)), args[3], traced)
    assert "differ" in answer, answer
    assert "did not return within 1 s" in answer["differ"]["second"]


@pytest.mark.parametrize("traced", [True, False])
def test_a_replay_past_the_declared_domain_is_found(traced: bool,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Both processes draw from the audit's guarded source: a domain declared smaller than
    the draws made there stops the replay (the audit's own runs would have stopped)."""
    args = _recorded(rr_numpy(), monkeypatch)
    rebuild, mode, params = args[:3]
    answer = _answer((rebuild, mode, dict(params, randomness_size=3)), args[3], traced)
    assert "differ" in answer, answer
    assert "more randomness than the declared domain" in answer["differ"]["second"]


def test_a_replay_with_other_choices_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    args = _recorded(wide, monkeypatch)
    c, paths = args[3][0][0], list(args[3][0][1])
    (ch, dr, out), other = paths[0], max(paths, key=lambda path: path[0])
    assert other[0] == (299,) and ch == (0,)  # uniform(300): options 0..299
    assert "ok" in _answer(args, [(c, [other])], False)  # as recorded: confirmed
    answer = _answer(args, [(c, [(other[0], dr, out), *paths[1:]])], False)
    assert "differ" in answer, answer


@settings(max_examples=30, deadline=None)
@given(PATHS)
def test_a_log_iterates_and_pickles_back_its_paths(paths: list[tuple[Any, ...]]) -> None:
    log = PathLog.of(paths)
    for again in (list(log), list(pickle.loads(pickle.dumps(log)))):
        assert len(again) == len(paths)
        for path, path2 in zip(paths, again, strict=True):
            assert path2[0] == path[0] and path2[1] == path[1] and _same(path2[2], path[2])


_table: dict[int, int] = {}


def rr_memo(c: int, source: Any) -> int:  # ln 3, its noise kept in a memo keyed by the draw
    u = source.uniform(4) - 1
    if u not in _table:
        _table[u] = (0, 0, 1, 1)[u]
    return c if _table[u] == 0 else 1 - c


@pytest.mark.parametrize("traced", [True, False])
def test_a_memo_filled_on_every_path_is_confirmed(traced: bool,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A memo gains an entry on most paths' runs; the audit resets it before each path (the
    guard allows a memo that never grows on a re-run), and so must the replay: each path
    runs once there, and a memo grown on two runs in a row reads as a counter."""
    args = _recorded(rr_memo, monkeypatch)
    _table.clear()  # as in a fresh process
    assert "ok" in _answer(args, args[3], traced)


@pytest.mark.parametrize("traced", [True, False])
def test_planted_bug_replay_without_memo_reset_is_a_false_alarm(
        traced: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.audit.escape import Watch

    args = _recorded(rr_memo, monkeypatch)
    # the replay neither resets the memo nor re-runs warm a path whose run grew it: each
    # path's one run grows it, two in a row read as a counter
    monkeypatch.setattr(Watch, "restore", lambda self: False)
    monkeypatch.setattr(Watch, "grew", property(lambda self: False))
    _table.clear()
    answer = _answer(args, args[3], traced)
    assert "gained entries in two calls in a row" in answer["differ"]["second"]


MEMO = '''
import random

_table = {}


def rr_memo(c):  # ln 3, its noise kept in a memo keyed by the draw
    u = random.randrange(4)
    if u not in _table:
        _table[u] = (0, 0, 1, 1)[u]
    return c if _table[u] == 0 else 1 - c
'''


def test_cli_memo_keyed_by_the_draw_passes_confirmed(tmp_path: Path) -> None:
    (tmp_path / "memomech.py").write_text(MEMO, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PYTHONHASHSEED", None)
    done = subprocess.run(
        [sys.executable, "-m", "exactdp.cli", "audit", "memomech:rr_memo", "--kind",
         "whitebox", "--rng", "random", "--patch", "random", "--claimed-epsilon", "ln 3",
         "--inputs", "0..1", "--quiet"], cwd=tmp_path, env=env, capture_output=True,
        text=True, timeout=300, check=False)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert "verdict: PASS" in done.stdout
    assert "confirmed in 2 more processes" in done.stdout


@pytest.mark.parametrize("check", [True, False])
def test_the_cost_estimate_says_a_pass_is_replayed(check: bool,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    said: list[str] = []
    monkeypatch.setattr(whitebox, "confirm", lambda *args, **kw:
                        hash_seed.Confirmation(line="recorded"))
    report = whitebox_audit(rr, inputs=range(2), claimed_epsilon="ln 3", kind="source",
                            max_seconds=60, progress=said.append, notice=said.append,
                            hash_seed_check=check)
    assert report.verdict == "pass"
    [line] = [line for line in said if "estimate:" in line]
    assert ("confirmed in other processes replaying every path" in line) == check


def test_a_path_weighs_the_product_of_its_options_weights() -> None:
    # 1/4 (option 1 of 3/4, 1/4) * 1/3 (one of three) * 5/8 (option 0 of 5/8, 3/8) = 5/96
    draws = ((2, 4, (3, 1)), (3, 3, None), (2, 8, (5, 3)))
    den, coins = hash_seed._weights(draws)
    assert den == 4 * 3 * 8
    assert Fraction(hash_seed._numerator((1, 2, 0), coins), den) == Fraction(5, 96)
    assert (Fraction(hash_seed._numerator((0, 0, 1), coins), den)
            == Fraction(3, 4) * Fraction(1, 3) * Fraction(3, 8))


LOADED = '''
import random


def rr(c, rng):  # ln 3
    return c if rng.randrange(4) != 0 else 1 - c


def load():
    from exactdp.audit.facades import facade_mechanism
    return facade_mechanism(rr, "random")
'''


def test_the_other_processes_import_from_this_process_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A loader (pickled by name) from a module this process imports through an entry it
    added to sys.path while running (not in PYTHONPATH): the other processes set the path
    before they read the loader, so they rebuild it and confirm."""
    from exactdp.audit.parallel import Loader

    (tmp_path / "loadedmech.py").write_text(LOADED, encoding="utf-8")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    monkeypatch.delenv("PYTHONPATH", raising=False)
    import loadedmech  # type: ignore[import-not-found]

    try:
        report = whitebox_audit(loadedmech.load(), inputs=range(2), claimed_epsilon="ln 3",
                                kind="source", rebuild=Loader(loadedmech.load, ()))
    finally:
        sys.modules.pop("loadedmech", None)
    assert report.verdict == "pass", report.summary()
    assert not report.scope and "confirmed in 2 more processes" in report.method


_HANG = [False]


def sleepy_rr(c: int, source: Any) -> int:  # rr at ln 3, hanging 2.5 s per call when told
    if _HANG[0]:
        import time
        time.sleep(2.5)
    return c if source.bernoulli(3, 4) else 1 - c


@pytest.mark.parametrize("planted", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_a_replay_past_the_time_limit_is_interrupted(planted: bool,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The replays of an input run under one timer (the exploration's clock, as in the
    audit): a replay that hangs past the time limit (1 s) is interrupted and reported.
    Planted: a clock whose alarm never interrupts (the hang then ends by itself, past the
    limit: reported as taking longer, not interrupted)."""
    from exactdp.audit import guard

    if planted:
        monkeypatch.setattr(guard._Clock, "expired",
                            lambda self: self.arm(guard._now(), self.seconds))
    args = _recorded(sleepy_rr, monkeypatch)
    rebuild, mode, params = args[:3]
    _HANG[0] = True
    try:
        answer = _answer((rebuild, mode, dict(params, time_limit=1)), args[3], True)
    finally:
        _HANG[0] = False
    assert "differ" in answer, answer
    assert ("did not return within 1 s" in str(answer["differ"])) is not planted, answer


def _boot_leaves(boot: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """Run the other process's program ``boot`` here on a job file (its ``main``
    recorded, not run): the names it leaves in its globals bound to anything but a module
    or a function (what the escape watch would compare after every call there)."""
    got: list[tuple[Any, ...]] = []
    monkeypatch.setattr(hash_seed, "main", lambda *args: got.append(args))
    name = tmp_path / "job"
    name.write_bytes(pickle.dumps((list(sys.path), b"head", b"job")))
    monkeypatch.setattr(sys, "argv", ["-c", str(name), "traced"])
    monkeypatch.setattr(sys, "path", list(sys.path))
    space: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(boot, "<boot>", "exec"), space)  # noqa: S102 - the program under test
    assert got == [(b"head", b"job", True)]
    return {k for k, v in space.items() if not k.startswith("__") and
            not isinstance(v, type(sys)) and not callable(v)}


def test_the_other_process_keeps_the_job_out_of_its_main_globals(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _boot_leaves(hash_seed._BOOT, tmp_path, monkeypatch) == set()


def test_planted_bug_job_bound_in_main_globals(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A program that unpacks the job at the top level leaves the import path (a list the
    watch compares after every call) and the job in ``__main__``: seen."""
    planted = ("import sys, pickle; p, h, j = pickle.load(open(sys.argv[1], 'rb')); "
               "sys.path[:] = p; from exactdp.audit.hash_seed import main; "
               "main(h, j, sys.argv[2] == 'traced')")
    assert _boot_leaves(planted, tmp_path, monkeypatch) == {"p", "h", "j"}


@pytest.mark.parametrize("blob", [b"not a pickle", None])
def test_the_other_process_collects_garbage_again_after_the_job_is_read(
        blob: bytes | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The job is read with the garbage collector off; it is on again afterwards, whether
    the mechanism was rebuilt or not."""
    import gc

    args = _recorded(rr, monkeypatch)
    head = pickle.dumps({"loader": None, "blob": args[0].blob if blob is None else blob,
                         "cwd": "."})
    try:
        answer = hash_seed._answer(head, hash_seed._job(*args[1:3], args[3]), False)
        assert gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()
    assert ("unbuilt" in answer) is (blob is not None), answer


def test_an_inputs_paths_iterate_again_from_the_first() -> None:
    """A replay restarted by the facade (lazy values given up) iterates the input's paths
    again from the first: the same paths each time."""
    paths = [((0, 1), ((2, 2, None), (3, 3, None)), 1), ((1,), ((2, 2, None),), 0)]
    replays = hash_seed._Replays(*PathLog.of(paths).state())
    first, again = list(replays), list(replays)
    assert len(replays) == 2 and first == again
    assert [row[:3] for row in first] == paths


def flips_type(c: int, source: Any) -> list[Any]:  # [True] or [1], each half the time
    return [True] if source.uniform(2) == 1 else [1]


@pytest.mark.parametrize("planted", [False, True])
def test_a_replayed_list_keeps_its_items_types(planted: bool,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The output-only process keys a list's outcome by its items and their types (one
    outcome object per equal output): ``[1]`` replayed where ``[True]`` was recorded is a
    difference.  Planted: outcomes kept by the items alone hand back ``[True]``'s."""
    from exactdp.audit import guard

    args = _recorded(flips_type, monkeypatch)
    c, log = args[3][0]
    paths = list(log)
    assert [p[2] for p in paths] == [observed([True]), observed([1])]
    tampered = [(c, [paths[0], (paths[1][0], paths[1][1], paths[0][2])])]
    if planted:
        def by_items(value: Any, memo: dict[Any, Any] | None = None) -> Any:
            if type(value) is not list or memo is None:
                return guard.SLOW
            return memo.setdefault(tuple(value), observed(value))
        monkeypatch.setattr(guard, "plain_observed", by_items)
    answer = _answer(args, tampered, False)
    assert ("differ" in answer) is not planted, answer
    if not planted:
        assert answer["differ"]["second"] == "output [1]"


def rr4(c: int, source: Any) -> int:  # ln 3, over four equally likely paths
    return c if source.uniform(4) > 1 else 1 - c


@pytest.mark.parametrize("traced", [True, False])
@pytest.mark.parametrize("planted", [False, True])
def test_a_later_path_recorded_with_another_output_is_found(
        traced: bool, planted: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A replayed outcome found equal to a recorded result is not compared again with that
    result; a path recorded with another result is compared.  Planted: the outcome kept
    for every result alike (its key not the result's) passes the later path unseen."""
    args = _recorded(rr4, monkeypatch)
    c, log = args[3][0]
    paths = list(log)
    alike = [p for p in paths if p[2] == paths[-1][2]]
    assert len(alike) == 3
    later = alike[1]
    tampered = [(c, [(later[0], later[1], 1 - later[2]) if p is later else p
                     for p in paths])]
    if planted:
        monkeypatch.setattr(hash_seed, "id", lambda result: 0, raising=False)
    answer = _answer(args, tampered, traced)
    assert ("differ" in answer) is not planted, answer
    if not planted:
        assert answer["differ"]["choices"] == later[0]
