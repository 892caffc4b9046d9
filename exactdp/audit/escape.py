"""Randomness that escaped the exploration: guards on unmodelled entropy, and path re-runs.

A white-box law is computed from the code's own runs under the exploring source (or a
facade, :mod:`exactdp.audit.facades`).  It is the code's law only if every run's randomness
came through that source.  Two checks make sure of it, in every white-box run (the
command line, :func:`~exactdp.audit.whitebox_audit`, the assertions of
:mod:`exactdp.testing`, and the worker processes of ``--workers`` / ``--dask``):

* **Guards** (:func:`watching`, armed per call of the audited code by :func:`armed`): while
  an audit runs, the entropy sources the audit does not model are replaced by wrappers
  (:mod:`exactdp.audit.guarded_sources`, which lists them: the ``random`` module and
  generators made outside the facade, ``secrets``, the operating system's randomness, the
  clocks, numpy's global and unseeded generators, values fixed per process or object such
  as ``id()`` and process ids) that, when called from the audited code, stop the audit
  naming the function and the call site.  A call from exactdp's own machinery (the
  exploring source's deadline, a facade's pseudo-random spot checks) is told apart by its
  caller's frame (:mod:`exactdp.audit.callers`), and calls in other threads are not
  watched.  The global generators of ``random`` and ``numpy.random``, and generators found
  in the loaded modules' globals, are also compared before and after each input: a change
  (a draw through a reference the wrappers did not see) stops the audit too, and so does a
  name rebound in the user's modules, the target's object or its closures after the first
  call: state kept between calls, such as a counter (:mod:`exactdp.audit.kept_state`).
* **Re-runs** (:func:`exactdp.audit.replay.replay_path`): every explored path is run a second time with the
  same draws and must give the same output and the same sequence of draws (a path
  without draws included).  This catches what no guard sees: state kept between calls
  (a counter, a cache that changes the result), a generator of a C extension.

Either way the audit stops with a finding (``"escaped"`` or ``"nondeterministic"``):
white-box verdict ``"broken"`` (exit status 3), never ``"pass"``.

A pass is moreover confirmed in two more processes with other hash seeds
(:mod:`exactdp.audit.hash_seed`): the iteration order of a set of strings, fixed per
process, is caught when one of those seeds changes a path's output, draws or trace.

Not guarded (say so, and audit such code black-box): a C extension's own generator or
clock (native code does not call these Python functions), a hardware generator read
directly, values fixed per process that reach the code without a guarded call (an address
shown by ``str()`` or an f-string; a dependence on the hash seed that none of the seeds
tried shows), and state that changes only between two paths in a way that no path's
re-run sees.
"""

from __future__ import annotations

import copy
import functools
import numbers
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from types import FrameType, ModuleType
from typing import Any

from exactdp.audit import guarded_sources
from exactdp.audit.callers import kind, where
from exactdp.audit.guard import Abort, Finding, show
from exactdp.audit.kept_state import (
    MISSING,
    cells_of,
    content_copy,
    generator_states,
    only_gained,
    places,
    same_content,
)
from exactdp.audit.log_clock import private_log_time

__all__ = ["Watch", "armed", "refresh", "watching"]

#: how to hand each kind of source to the audit instead
_HINTS = {
    "random": "module-level randomness: audit with --rng random --patch random (Python: "
              "FacadeMechanism(f, 'random', patch_modules=[random]))",
    "instance": "a generator the code holds, made outside the facade: let the code draw from "
                "the generator the audit passes in (--rng random, --rng-arg; --patch-attr "
                "NAME for an attribute of the target's object)",
    "secrets": "OS randomness through secrets / SystemRandom: audit with --rng secrets "
               "--patch secrets, or pass the generator in (--rng secrets)",
    "numpy": "numpy's global generator: audit with --rng numpy --patch numpy.random",
    "numpy-os": "a numpy generator seeded from the operating system: pass the Generator in "
                "(--rng numpy, --rng-arg) instead of making it inside the code",
    "os": "operating-system randomness, which no facade models",
    "clock": "a clock read: the output may depend on the time, which the audit cannot "
             "explore; remove it from the mechanism",
    "process": "a value fixed for the process or the object (an id, an address-based hash, "
               "a string hash under hash randomization, a process or thread id, an "
               "interpreter counter): the output may depend on it, which the audit cannot "
               "explore; remove it from the mechanism",
}


class Watch:
    """One audit's guard: the first escape seen (``escaped``) and the generator states
    compared before and after each input (:meth:`check`)."""

    def __init__(self, advice: str = "") -> None:
        #: what to do instead, said in place of the command-line advice (``exactdp.testing``)
        self.advice = advice
        self.escaped: Finding | None = None
        self._states: list[tuple[str, Callable[[], Any], Any]] = []
        self._places: list[tuple[str, Callable[[], Mapping[str, Any]]]] = []
        self._spaces: dict[str, Callable[[], Mapping[str, Any]]] = {}
        self._baseline: dict[tuple[str, str], Any] | None = None
        #: copies of the containers bound there (a counter kept in a list or dict changes
        #: the content, not the binding)
        self._contents: dict[tuple[str, str], Any] = {}
        #: ``random.Random`` instances seeded in this call with the constant of their call
        #: site (their draws are a function of that constant: allowed); the seed seen at
        #: each site
        self._seeded: weakref.WeakSet[Any] = weakref.WeakSet()
        self._seeded_any = False  # (whether one was added since the last arm)
        self._seeds: dict[str, Any] = {}
        #: whether the last call grew a watched container (a memo: :meth:`called`), and
        #: the containers that did so far
        self._grew_last = False
        self._memos: set[tuple[str, str]] = set()
        #: per watched container, what reads its binding (:meth:`_reader`)
        self._reads: list[tuple[tuple[str, str], Callable[[], Any]]] = []
        self._initial: dict[tuple[str, str], Any] = {}

    def follow(self, target: object) -> None:
        """Watch the names the audited code can keep state in (:func:`_places`): one rebound
        after the first call is state kept between calls."""
        self._places = places(target)
        self._spaces = dict(self._places)  # (read by label after every call)
        #: the containers' contents before any call: the cold state a memo is reset to
        self._initial = {key: snap for key, value in self._bindings().items()
                         if (snap := content_copy(value)) is not MISSING}

    def _bindings(self) -> dict[tuple[str, str], Any]:
        return {(label, k): v for label, space in self._places for k, v in space().items()
                if not k.startswith("__")}

    def called(self) -> None:
        """After a call of the audited code: the first one sets the baseline (after any
        lazy initialisation it did); after each later one, a container that only gained
        entries (a memo: the old entries unchanged) is allowed, unless the call before
        grew it too -- the re-run of every path follows its first run, so a memo grows on a
        first run and never on its re-run, while a counter kept as entries grows on both
        (:meth:`_grown`); any other change of its content stops the audit (:meth:`check`)."""
        if self._baseline is None and self._places:
            self._baseline = self._bindings()
            self._contents = {key: snap for key, value in self._baseline.items()
                              if (snap := content_copy(value)) is not MISSING}
            self._reads = [(key, self._reader(key)) for key in self._contents]
            return
        if self._contents:
            self._grown()

    def after_call(self) -> None:
        """:meth:`check_call`, then :meth:`called` (after every call of the audited code)."""
        if self.escaped is not None:
            raise Abort(self.escaped)
        if self._contents and self._baseline is not None:
            self._grown()
        else:
            self.called()

    def _reader(self, key: tuple[str, str]) -> Callable[[], Any]:
        """What reads the binding ``key`` now (its namespace's value, or ``MISSING``; an
        empty closure cell raises ``ValueError``): a module's dict or a closure's cell read
        directly (neither is ever replaced: the same values as :func:`places`' readers
        give), any other namespace read whole."""
        label, name = key
        space = self._spaces.get(label)
        if isinstance(space, functools.partial) and not space.keywords:
            if space.func is vars and len(space.args) == 1 \
                    and type(space.args[0]) is ModuleType:
                return functools.partial(vars(space.args[0]).get, name, MISSING)
            if space.func is cells_of and len(space.args) == 2 and name in space.args[0]:
                cell = space.args[1][space.args[0].index(name)]
                return functools.partial(getattr, cell, "cell_contents")
        if space is None:
            return functools.partial(dict.get, {}, name, MISSING)
        return lambda: space().get(name, MISSING)

    def _grown(self) -> None:
        """Update the copies of the containers that only gained entries in this call."""
        grew = False
        contents = self._contents
        for key, read in self._reads:
            before = contents[key]
            try:
                value = read()
            except ValueError:  # an empty cell (read as None, as cells_of reads it)
                value = None
            try:  # (same_content, inlined: once per watched container per call)
                if bool(value == before):
                    continue  # unchanged
            except Exception:  # noqa: BLE001, S112 - content that cannot be compared: binding only
                continue
            if not only_gained(value, before):
                continue  # changed otherwise: check() names it
            if self._grew_last:
                where = key[0].format(key[1])
                self.escape(Finding(
                    "escaped", f"{where} gained entries in two calls in a row (now "
                               f"{show(value)}): a memo gains an entry on a path's first run "
                               f"and none on its re-run with the same draws, so this is state "
                               f"kept between calls, such as a counter. Keep the mechanism's "
                               f"state inside each call, or audit it black-box (--kind "
                               f"blackbox)", {"name": where}))
            self._contents[key] = content_copy(value)
            self._memos.add(key)
            grew = True
        self._grew_last = grew

    @property
    def grew(self) -> bool:
        """Whether the last call grew a memo (a container that only gained entries)."""
        return self._grew_last

    def restore(self) -> bool:
        """Reset every memo (a container that only gained entries) to its content before
        the first call, in place; whether there is one.  The path about to run then runs
        cold, as a first call in a fresh process would, and its re-run warm: their outputs
        must agree on every path, so a memo that changes the output, or an output that
        depends on which inputs came before, stops the audit."""
        if not self._memos:
            return False
        now = self._bindings()
        for key in self._memos:
            value = now.get(key, MISSING)
            initial = self._initial.get(key, MISSING)
            if isinstance(value, (dict, set)):
                value.clear()
                if initial is not MISSING:
                    value.update(copy.deepcopy(initial))
            elif isinstance(value, list):
                value[:] = [] if initial is MISSING else copy.deepcopy(initial)
            self._contents[key] = content_copy(value)
        self._grew_last = False
        return True

    def seen(self, name: str, hint: str, frame: FrameType | None) -> None:
        """A guarded function ``name`` was called from ``frame``: allowed from exactdp's
        machinery, an escape from anything else (recorded, then :class:`Abort`) -- except
        the timestamp of a log record whose time cannot reach the code
        (:func:`private_log_time`)."""
        if hint == "clock" and private_log_time(frame):
            return
        while frame is not None and kind(frame.f_code.co_filename) == "implementation":
            frame = frame.f_back
        if frame is None or kind(frame.f_code.co_filename) == "machinery":
            return
        site = where(frame)
        entry = frame
        outer = frame.f_back
        while outer is not None and kind(outer.f_code.co_filename) != "machinery":
            if kind(outer.f_code.co_filename) == "other":
                entry = outer
            outer = outer.f_back
        via = "" if entry is frame else f", reached from {where(entry)}"
        advice = self.advice or (f"This is {_HINTS[hint]}; otherwise audit it black-box "
                                 f"(--kind blackbox)")
        self.escape(Finding(
            "escaped", f"the mechanism called {name} at {site}{via}: randomness (or state) the "
                       f"audit does not explore, so its law cannot be computed from the explored "
                       f"draws. {advice}", {"function": name, "call_site": site}))

    def seeded(self, rng: Any, value: Any, frame: FrameType | None) -> None:
        """``rng.seed(value)`` (``random.Random(value)``) was called from ``frame``: the
        instance may draw in this call when ``value`` is the same at that call site on every
        run of the audit -- a constant, so its draws are a function of the code alone and
        the re-run of every path checks them; a seed that changes between runs (from the
        input, a clock, an id) stops the audit."""
        while frame is not None and kind(frame.f_code.co_filename) == "implementation":
            frame = frame.f_back
        if frame is None or kind(frame.f_code.co_filename) == "machinery":
            return
        site = where(frame)
        key = _seed_key(value)
        first = self._seeds.setdefault(site, key)
        if first != key:
            self.escape(Finding(
                "escaped", f"the mechanism seeded a random.Random at {site} with {show(value)}, "
                           f"and with {show(first[1])} on an earlier run: a generator seeded "
                           f"with a constant is a function of the code, but this seed changes "
                           f"between runs, so the draws are randomness the audit does not "
                           f"explore. Let the code draw from the generator the audit passes "
                           f"in (--rng random, --rng-arg), or audit it black-box (--kind "
                           f"blackbox)", {"function": "random.Random.seed", "call_site": site}))
        self._seeded.add(rng)
        self._seeded_any = True

    def allows(self, rng: Any) -> bool:
        """Whether ``rng`` was seeded with its site's constant in this call."""
        try:
            return rng in self._seeded
        except TypeError:
            return False

    def escape(self, finding: Finding) -> None:
        if self.escaped is None:
            self.escaped = finding
        raise Abort(self.escaped)

    def arm(self) -> Watch | None:
        """Check this thread's calls of guarded functions against this watch (until
        :meth:`disarm` with the value returned)."""
        before = guarded_sources.set_watch(self)
        if self._seeded_any:  # a generator seeded in an earlier call: kept state
            self._seeded = weakref.WeakSet()
            self._seeded_any = False
        return before

    #: Arm ``before`` again, as it was before :meth:`arm` (guarded_sources.set_watch
    #: itself: called after every call of the audited code).
    disarm = staticmethod(guarded_sources.set_watch)

    def check_call(self) -> None:
        """Raise :class:`Abort` if an escape was seen (even one the audited code caught)."""
        if self.escaped is not None:
            raise Abort(self.escaped)

    def watch_state(self, name: str, read: Callable[[], Any]) -> None:
        """Compare ``read()`` at every :meth:`check` with its value now."""
        try:
            self._states.append((name, read, read()))
        except Exception:  # noqa: BLE001, S110 - an unreadable generator is not watched
            pass

    def check(self) -> None:
        """Raise :class:`Abort` if an escape was seen (even one the audited code caught) or a
        watched generator's state changed."""
        if self.escaped is not None:
            raise Abort(self.escaped)
        guarded_sources.refresh()
        if self._baseline is not None:
            now = self._bindings()
            for key, value in self._baseline.items():
                if now.get(key, MISSING) is not value:
                    where = key[0].format(key[1])
                    self.escape(Finding(
                        "escaped", f"{where} was rebound while the mechanism ran (from "
                                   f"{show(value)} to {show(now.get(key))}): state kept between "
                                   f"calls, such as a counter, so the output is not a function "
                                   f"of the input and the explored draws alone. Keep the "
                                   f"mechanism's state inside each call, or audit it black-box "
                                   f"(--kind blackbox)", {"name": where}))
            for key, before in self._contents.items():
                if not same_content(now.get(key, MISSING), before):
                    where = key[0].format(key[1])
                    self.escape(Finding(
                        "escaped", f"{where} was changed in place while the mechanism ran "
                                   f"(from {show(before)} to {show(now.get(key))}): state kept "
                                   f"between calls, such as a counter, so the output is not a "
                                   f"function of the input and the explored draws alone. Keep "
                                   f"the mechanism's state inside each call, or audit it "
                                   f"black-box (--kind blackbox)", {"name": where}))
        if threading.active_count() > 1 or \
                threading.current_thread() is not threading.main_thread():
            return  # another thread may draw from the shared generators: no blame possible
        for name, read, before in self._states:
            if read() != before:
                self.escape(Finding(
                    "escaped", f"the state of {name} changed while the mechanism ran: it drew "
                               f"from it through a name the guards did not see (e.g. imported "
                               f"before the audit); its law cannot be computed from the "
                               f"explored draws. Let the code draw from the generator the "
                               f"audit passes in (--rng, --patch), or audit it black-box "
                               f"(--kind blackbox)", {"function": name}))


@contextmanager
def armed(watch: Watch) -> Iterator[None]:
    """Calls of guarded functions in this thread are checked against ``watch`` for the
    duration."""
    before = watch.arm()
    try:
        yield
    finally:
        watch.disarm(before)




def _seed_key(value: Any) -> Any:
    """A seed as compared between runs: its type and value (ints, strings, bytes), else its
    type and identity (an object seeds by its hash: the same object, the same seed)."""
    if isinstance(value, (numbers.Real, str, bytes, bytearray)):
        return (type(value).__name__, value if not isinstance(value, bytearray)
                else bytes(value))
    return (type(value).__name__, id(value))



@contextmanager
def watching(target: object = None) -> Iterator[Watch]:
    """Install the guards for the duration (process-wide; calls are checked only in a
    thread :func:`armed` with the returned :class:`Watch`) and watch the global
    generators' states and the names where ``target`` can keep state."""
    guarded_sources.install()
    try:
        watch = Watch()
        for name, read in generator_states():
            watch.watch_state(name, read)
        watch.follow(target)
        yield watch
    finally:
        guarded_sources.uninstall()


def refresh() -> None:
    """Guard numpy (and the other optional sources) if the audited code imported it after
    the guards were installed."""
    guarded_sources.refresh()
