"""No law from a run that escaped the exploration: every escape route (module ``random``
with and without a facade, a generator of the code's own, numpy's globals and unseeded
generators, ``secrets``, ``os.urandom``, ``uuid4``, the clock, a call counter) stops a
white-box audit with a verdict that is never PASS, on every repetition, and names what
escaped; mechanisms that draw only from what the audit passes in still pass."""

from __future__ import annotations

import builtins
import copy
import dataclasses
import io
import logging
import os
import random
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.audit import whitebox_audit
from exactdp.audit.escape import watching
from exactdp.audit.facades import facade_mechanism
from exactdp.randomness import RandomSource
from tests._cli import run
from tests.audit_targets import escape_targets as et

REPEATS = 3

#: what each route's finding names
NAMED = {"random": "random.random()", "imported": "random.random()",
         "own": "Random.random() on a random.Random", "own_inner": "Random.random()",
         "system": "SystemRandom.random()", "numpy": "numpy.random.random()",
         "default_rng": "default_rng() without a seed", "secrets": "secrets.randbelow()",
         "urandom": "os.urandom()", "uuid4": "uuid.uuid4()", "clock": "time.time()",
         "clock_ns": "time.perf_counter_ns()", "counter": "_CALLS",
         "closure_counter": "calls in the closure", "datetime_now": "datetime.datetime.now()",
         "datetime_imported": "datetime.datetime.now()",
         "datetime_utcnow": "datetime.datetime.utcnow()", "date_today": "datetime.date.today()",
         "time_ns": "time.time_ns()", "monotonic_ns": "time.monotonic_ns()",
         "process_time": "time.process_time()", "thread_time": "time.thread_time()",
         "uuid1": "uuid.uuid1()", "getrandom": "os.getrandom()",
         "seed_sequence": "seeded from the operating system",
         "seeded_from_clock": "time.time()", "id": "id()", "id_function": "id()",
         "hash_object": "hash() of a value", "hash_class": "hash() of a value",
         "hash_str": "hash() of a value", "getpid": "os.getpid()",
         "thread_ident": "threading.get_ident()", "native_id": "threading.get_native_id()",
         "getrusage": "resource.getrusage()", "os_times": "os.times()",
         "dev_urandom": "open() of a random device", "proc_stat": "open() of a random device",
         "os_open": "os.open() of a random device", "ssl_rand": "ssl.RAND_bytes()",
         "gc_count": "gc.get_count()", "allocated_blocks": "sys.getallocatedblocks()",
         "system_subclass": "os.urandom()", "tempfile": "Random.choices()",
         "hashlib_time": "time.time_ns()", "random_state": "seeded from the operating system",
         "posix_urandom": "os.urandom()", "c_random": "Random.random() on a _random.Random",
         "readlink_pid": "os.readlink() of a random device",
         "repr_address": "repr() of a value whose repr shows its address",
         "id_in_hash": "id()"}


def _audit(route: str, shape: str, form: str) -> Any:
    f = et.make(route, shape, form)
    if form == "source":
        return whitebox_audit(f, inputs=range(2), claimed_epsilon=1, kind="source",
                              outputs=range(2))
    mech = facade_mechanism(lambda c, rng: f(c), "random", patch_modules=[random]) \
        if form == "bit" else facade_mechanism(f, "random")
    return whitebox_audit(mech, inputs=range(2), claimed_epsilon=1, kind="source",
                          outputs=range(2))


@pytest.mark.parametrize("shape", ["rare", "rr"])
@pytest.mark.parametrize("route", et.ROUTES)
@pytest.mark.parametrize("form", ["rng", "source"])
def test_every_escape_route_is_never_a_pass(route: str, shape: str, form: str) -> None:
    for _ in range(REPEATS):
        report = _audit(route, shape, form)
        assert report.verdict == "broken", report.summary()
        (finding,) = report.findings
        assert finding.kind == "escaped", finding.message
        assert NAMED[route] in finding.message
        assert "escape_targets.py:" in finding.message or "counter" in route


@pytest.mark.parametrize("route", ["own", "own_inner", "system", "numpy", "default_rng",
                                   "secrets", "clock"])
def test_a_patched_module_does_not_hide_other_sources(route: str) -> None:
    """--patch random models the random module's functions, not the rest."""
    for shape in ("rare", "rr"):
        report = _audit(route, shape, "bit")
        assert report.verdict == "broken" and report.findings[0].kind == "escaped"
        assert NAMED[route] in report.findings[0].message


def test_module_random_patched_in_is_modelled_not_escaped() -> None:
    report = _audit("random", "rr", "bit")
    assert report.verdict == "violation"  # 0.75 as a double: ratio 3 > e
    assert report.worst is not None and report.worst.ratio == 3


def test_a_path_without_draws_is_run_twice() -> None:
    """A counter read on a path that draws nothing: the two runs of that path differ."""
    calls = [0]

    def mech(c: int, source: RandomSource) -> int:
        calls[0] += 1  # state in a list: no name is rebound, the re-run sees it
        return c if calls[0] % 2 else 1 - c

    report = whitebox_audit(mech, inputs=range(2), claimed_epsilon=1, kind="source",
                            outputs=range(2))
    assert report.verdict == "broken"
    finding = report.findings[0]
    assert finding.kind == "nondeterministic" and "re-run with the same draws" in finding.message
    assert finding.witness["choices"] == []


def test_a_counting_mechanism_is_called_twice() -> None:
    calls = [0]

    def f(c: int, u: int) -> int:
        calls[0] += 1
        return (c + calls[0]) % 2

    f.d = 4  # type: ignore[attr-defined]
    report = whitebox_audit(f, inputs=range(2), claimed_epsilon=1, outputs=range(2))
    assert report.verdict == "broken" and report.findings[0].kind == "nondeterministic"


def test_an_escape_the_code_swallows_still_stops_the_audit() -> None:
    def mech(c: int, source: RandomSource) -> int:
        try:
            random.random()
        except BaseException:  # noqa: BLE001, S110 - the point: it cannot hide the escape
            pass
        return source.uniform(2) - 1

    report = whitebox_audit(mech, inputs=range(2), claimed_epsilon=1, kind="source",
                            outputs=range(2))
    assert report.verdict == "broken" and "random.random()" in report.findings[0].message


def test_clean_mechanisms_still_pass() -> None:
    def rr(c: int, rng: random.Random) -> int:
        return c if rng.random() < 0.75 else 1 - c

    def coins(c: int, source: RandomSource) -> int:
        return c if source.uniform(4) <= 3 else 1 - c

    def dyadic_bit(c: int) -> int:
        return c if random.random() < 0.75 else 1 - c

    for report in (
            whitebox_audit(facade_mechanism(rr), inputs=range(2), claimed_epsilon="11/10",
                           kind="source", outputs=range(2)),
            whitebox_audit(coins, inputs=range(2), claimed_epsilon="11/10", kind="source",
                           outputs=range(2)),
            whitebox_audit(facade_mechanism(lambda c, rng: dyadic_bit(c), "random",
                                            patch_modules=[random]),
                           inputs=range(2), claimed_epsilon="11/10", kind="source",
                           outputs=range(2))):
        assert report.verdict == "pass", report.summary()
        assert report.worst is not None and report.worst.ratio == 3


@dataclasses.dataclass(frozen=True)
class _Key:
    name: str
    size: int


def test_bookkeeping_with_ids_hashes_and_threads_is_not_an_escape() -> None:
    """ids, string hashes and thread ids used by the standard library on the code's behalf
    (a deep copy's memo, a dataclass's __hash__ for a dict key, logging, the current
    thread's name), and hashes of numbers, decide nothing random: the audit passes."""
    log = logging.getLogger("exactdp.tests.bookkeeping")

    def rr(c: int, rng: random.Random) -> int:
        table = {_Key("yes", 1): c, _Key("no", 2): 1 - c}
        rows = copy.deepcopy([[c], [1 - c]])
        log.debug("thread %s, key %s", threading.current_thread().name, hash((1, 2)))
        keep, flip = table[_Key("yes", 1)], rows[1][0]
        return keep if rng.random() < 0.75 else flip

    report = whitebox_audit(facade_mechanism(rr, "random"), inputs=range(2),
                            claimed_epsilon="11/10", kind="source", outputs=range(2))
    assert report.verdict == "pass", report.summary()
    assert report.worst is not None and report.worst.ratio == 3


def test_the_guards_are_removed_after_the_audit() -> None:
    originals = (random.random, random.Random.__dict__.get("random"), random.randrange)
    _audit("random", "rare", "rng")
    assert (random.random, random.Random.__dict__.get("random"), random.randrange) == originals
    with watching():
        assert random.random is not originals[0]
        assert 0 <= random.random() < 1  # unarmed: the real function
    assert random.random is originals[0]
    others = (builtins.id, builtins.hash, builtins.open, io.open, os.open, os.getpid,
              threading.get_ident, os.urandom)
    with watching():
        assert builtins.id is not others[0] and os.getpid is not others[5]
        assert id(others) == others[0](others) and hash("x") == others[1]("x")
    assert (builtins.id, builtins.hash, builtins.open, io.open, os.open, os.getpid,
            threading.get_ident, os.urandom) == others


def test_the_datetime_stand_ins_behave_as_the_classes_and_are_removed() -> None:
    import datetime

    originals = (datetime.datetime, datetime.date, et.imported_datetime)
    with watching():
        assert datetime.datetime is not originals[0]  # the guarded stand-in
        assert et.imported_datetime is datetime.datetime  # the name bound at import too
        made = datetime.datetime(2024, 5, 6, 7, 8, 9)
        assert type(made) is originals[0] and isinstance(made, datetime.datetime)
        assert isinstance(datetime.datetime.now(), datetime.date)  # unarmed: the clock
        assert issubclass(originals[0], datetime.date)
        assert datetime.datetime.fromtimestamp(0, datetime.UTC).year == 1970
        assert datetime.date(2024, 1, 2).toordinal() == originals[1](2024, 1, 2).toordinal()
    assert (datetime.datetime, datetime.date, et.imported_datetime) == originals


@pytest.mark.parametrize(("route", "flag"), [("random", "--rng random"),
                                             ("own", "--rng random --patch random"),
                                             ("numpy", "--rng random"),
                                             ("default_rng", "--rng random"),
                                             ("secrets", "--rng random"),
                                             ("urandom", "--rng random"),
                                             ("uuid4", "--rng random"),
                                             ("clock", "--rng random"),
                                             ("counter", "--rng random"),
                                             ("random", "--source"),
                                             ("id", "--rng random"),
                                             ("getpid", "--rng random"),
                                             ("dev_urandom", "--rng random"),
                                             ("hash_object", "--source")])
def test_command_line_reports_broken(capsys: pytest.CaptureFixture[str], route: str,
                                     flag: str) -> None:
    form = "source" if flag == "--source" else "rng"
    target = f"tests.audit_targets.escape_targets:make('{route}', 'rare', '{form}')"
    for _ in range(2):
        code, out, err = run(capsys, "audit", target, "--kind", "whitebox", *flag.split(),
                             "--claimed-epsilon", "1", "--inputs", "0..1", "--quiet")
        assert code == 3, out + err
        assert "FINDING [escaped]" in out and NAMED[route] in out
        assert "verdict: BROKEN" in out and "PASS" not in out


def test_workers_report_the_escape(capsys: pytest.CaptureFixture[str]) -> None:
    target = "tests.audit_targets.escape_targets:make('random', 'rare', 'rng')"
    code, out, err = run(capsys, "audit", target, "--kind", "whitebox", "--rng", "random",
                         "--claimed-epsilon", "1", "--inputs", "0..1", "--quiet",
                         "--workers", "2")
    assert code == 3, out + err
    assert "random.random()" in out and "verdict: BROKEN" in out


_INNER = st.sampled_from(["rr", "coin", "dice", "two"])


def _inner(kind: str, k: int) -> Any:
    if kind == "rr":
        return lambda c, rng: c if rng.random() < 0.75 else 1 - c
    if kind == "coin":
        return lambda c, rng: (c + rng.randrange(k)) % 2
    if kind == "dice":
        return lambda c, rng: min(1, rng.randrange(k + 1) // k + c * rng.randrange(2))
    return lambda c, rng: int(rng.random() < 0.5) ^ int(rng.randrange(2) == 1)


@settings(max_examples=25, deadline=None)
@given(kind=_INNER, k=st.integers(2, 5), route=st.sampled_from(et.ROUTES),
       p=st.sampled_from([0.001, 0.5, 1e-9]), where=st.sampled_from(["after", "before"]))
def test_a_hidden_escape_is_never_a_pass(kind: str, k: int, route: str, p: float,
                                         where: str) -> None:
    inner = _inner(kind, k)
    if where == "after":
        mech = et.hidden(inner, route, p)
    else:
        u = et.escaped(route)

        def mech(c: int, rng: Any) -> Any:
            first = u() < p
            out = inner(c, rng)
            return c if first else out
    report = whitebox_audit(facade_mechanism(mech, "random"), inputs=range(2),
                            claimed_epsilon=1000, kind="source", outputs=range(2))
    assert report.verdict != "pass"
    assert report.verdict == "broken" and report.findings[0].kind in ("escaped",
                                                                      "nondeterministic")


def test_a_name_imported_before_the_audit_gets_the_patched_facade() -> None:
    """``from random import random`` under --patch random draws from the facade, as
    ``random.random()`` does: explored exactly, not an escape."""
    f = et.make("imported", "rr", "bit")
    report = whitebox_audit(facade_mechanism(lambda c, rng: f(c), "random",
                                             patch_modules=[random]),
                            inputs=range(2), claimed_epsilon="11/10", kind="source",
                            outputs=range(2))
    assert report.verdict == "pass" and report.worst is not None and report.worst.ratio == 3


#: a counter kept in a container changes its content, not its binding
_KEPT: dict[str, list[int]] = {"calls": [0], "draws": [0]}


def _every_fifth_call(c: int, rng: random.Random) -> int:
    _KEPT["calls"][0] += 1
    return c if _KEPT["calls"][0] % 5 == 0 else 0


def _drawing_every_third_call(c: int, rng: random.Random) -> int:
    _KEPT["draws"][0] += 1
    if _KEPT["draws"][0] % 3 == 0:
        return c if rng.random() < 0.5 else 0
    return 0


@pytest.mark.parametrize("fn", [_every_fifth_call, _drawing_every_third_call])
def test_a_counter_changed_in_place_is_never_a_pass(fn: Any) -> None:
    # four calls (two inputs, each run and re-run) never reach the fifth: the re-runs alone
    # cannot see this counter; the content of the list it lives in changes
    for _ in range(REPEATS):
        report = whitebox_audit(facade_mechanism(fn, "random"), inputs=range(2),
                                claimed_epsilon=1, kind="source", outputs=range(2))
        assert report.verdict == "broken", report.summary()
        (finding,) = report.findings
        # the content change, or the re-run (a draw made on one run and not on its re-run)
        assert ("changed in place" in finding.message if finding.kind == "escaped"
                else finding.kind == "nondeterministic"), finding.message
