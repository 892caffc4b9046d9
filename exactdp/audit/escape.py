"""Randomness that escaped the exploration: guards on unmodelled entropy, and path re-runs.

A white-box law is computed from the code's own runs under the exploring source (or a
facade, :mod:`exactdp.audit.facades`).  It is the code's law only if every run's randomness
came through that source.  Two checks make sure of it, in every white-box run (the
command line, :func:`~exactdp.audit.whitebox_audit`, the assertions of
:mod:`exactdp.testing`, and the worker processes of ``--workers`` / ``--dask``):

* **Guards** (:func:`watching`, armed per call of the audited code by :func:`armed`): while
  an audit runs, the entropy sources the audit does not model are replaced by wrappers
  that, when called from the audited code, stop the audit naming the function and the
  call site: the ``random`` module's functions and the drawing methods of
  ``random.Random`` / ``random.SystemRandom`` (instances made outside the facade, at any
  time), ``secrets``, ``os.urandom`` / ``os.getrandom``, ``uuid.uuid1`` / ``uuid4``, the
  clocks of ``time`` (``time``, ``perf_counter``, ``monotonic``, ``process_time``,
  ``thread_time``, ``clock_gettime``, their ``_ns`` forms, and ``localtime`` / ``gmtime``
  / ``ctime`` / ``strftime`` without a time argument), ``datetime.datetime.now`` /
  ``utcnow`` / ``today`` and ``datetime.date.today`` (C code reading the clock itself:
  the classes are replaced by guarded stand-ins), numpy's global functions
  (``np.random.laplace``...: its global ``RandomState``), ``np.random.default_rng()``
  without a seed and every generator numpy seeds from the operating system
  (``RandomState()``, ``SeedSequence()``).  Names bound before the audit (``from random
  import random``, ``from time import time``) in the modules loaded are replaced too.  A
  call from exactdp's own machinery (the exploring source's deadline, a facade's
  pseudo-random spot checks) is told apart by its caller's frame, and calls in other
  threads are not watched.  The global generators of ``random`` and ``numpy.random``,
  and generators found in the loaded modules' globals, are also compared before and after
  each input: a change (a draw through a reference the wrappers did not see) stops the
  audit too, and so does a name rebound in the user's modules, the target's object or its
  closures after the first call: state kept between calls, such as a counter
  (:mod:`exactdp.audit.kept_state`).  Who called is read from the caller's frame
  (:mod:`exactdp.audit.callers`).
* **Re-runs** (:func:`exactdp.audit.replay.replay_path`): every explored path is run a second time with the
  same draws and must give the same output and the same sequence of draws (a path
  without draws included).  This catches what no guard sees: state kept between calls
  (a counter, a cache that changes the result), a generator of a C extension.

Either way the audit stops with a finding (``"escaped"`` or ``"nondeterministic"``):
white-box verdict ``"broken"`` (exit status 3), never ``"pass"``.

Not guarded (say so, and audit such code black-box): a C extension's own generator or
clock (native code does not call these Python functions), a hardware generator read
directly, values fixed per process (string hashes under ``PYTHONHASHSEED``, object ids,
set order), and state that changes only between two paths in a way that no path's
re-run sees.
"""

from __future__ import annotations

import collections
import copy
import functools
import numbers
import os
import random
import secrets
import sys
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from types import FrameType, ModuleType
from typing import Any

from exactdp.audit.callers import INFRASTRUCTURE, KINDS, kind, where
from exactdp.audit.guard import Abort, Finding, show
from exactdp.audit.kept_state import facade_types, generator_states, places

__all__ = ["Watch", "armed", "refresh", "watching"]

_local = threading.local()  # .watch: the Watch armed in this thread, if any

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
        self._baseline: dict[tuple[str, str], Any] | None = None
        #: copies of the containers bound there (a counter kept in a list or dict changes
        #: the content, not the binding)
        self._contents: dict[tuple[str, str], Any] = {}
        #: ``random.Random`` instances seeded in this call with the constant of their call
        #: site (their draws are a function of that constant: allowed); the seed seen at
        #: each site
        self._seeded: weakref.WeakSet[Any] = weakref.WeakSet()
        self._seeds: dict[str, Any] = {}
        #: whether the last call grew a watched container (a memo: :meth:`called`), and
        #: the containers that did so far
        self._grew_last = False
        self._memos: set[tuple[str, str]] = set()
        self._initial: dict[tuple[str, str], Any] = {}

    def follow(self, target: object) -> None:
        """Watch the names the audited code can keep state in (:func:`_places`): one rebound
        after the first call is state kept between calls."""
        self._places = places(target)
        #: the containers' contents before any call: the cold state a memo is reset to
        self._initial = {key: snap for key, value in self._bindings().items()
                         if (snap := _content_copy(value)) is not _MISSING}

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
                              if (snap := _content_copy(value)) is not _MISSING}
            return
        if self._contents:
            self._grown()

    def _grown(self) -> None:
        """Update the copies of the containers that only gained entries in this call."""
        grew = False
        spaces = dict(self._places)
        read: dict[str, Mapping[str, Any]] = {}
        for key, before in self._contents.items():
            label = key[0]
            if label not in read:  # only the namespaces holding a watched container
                read[label] = spaces[label]() if label in spaces else {}
            value = read[label].get(key[1], _MISSING)
            if _same_content(value, before) or not _only_gained(value, before):
                continue  # unchanged, or changed otherwise: check() names it
            if self._grew_last:
                where = key[0].format(key[1])
                self.escape(Finding(
                    "escaped", f"{where} gained entries in two calls in a row (now "
                               f"{show(value)}): a memo gains an entry on a path's first run "
                               f"and none on its re-run with the same draws, so this is state "
                               f"kept between calls, such as a counter. Keep the mechanism's "
                               f"state inside each call, or audit it black-box (--kind "
                               f"blackbox)", {"name": where}))
            self._contents[key] = _content_copy(value)
            self._memos.add(key)
            grew = True
        self._grew_last = grew

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
            value = now.get(key, _MISSING)
            initial = self._initial.get(key, _MISSING)
            if isinstance(value, (dict, set)):
                value.clear()
                if initial is not _MISSING:
                    value.update(copy.deepcopy(initial))
            elif isinstance(value, list):
                value[:] = [] if initial is _MISSING else copy.deepcopy(initial)
            self._contents[key] = _content_copy(value)
        self._grew_last = False
        return True

    def seen(self, name: str, hint: str, frame: FrameType | None) -> None:
        """A guarded function ``name`` was called from ``frame``: allowed from exactdp's
        machinery, an escape from anything else (recorded, then :class:`Abort`) -- except
        the timestamp of a log record whose time cannot reach the code
        (:func:`_private_log_time`)."""
        if hint == "clock" and _private_log_time(frame):
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
        before = getattr(_local, "watch", None)
        _local.watch = self
        self._seeded = weakref.WeakSet()  # a generator seeded in an earlier call: kept state
        return before

    @staticmethod
    def disarm(before: Watch | None) -> None:
        _local.watch = before

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
        _INSTALLED.refresh()
        if self._baseline is not None:
            now = self._bindings()
            for key, value in self._baseline.items():
                if now.get(key, _MISSING) is not value:
                    where = key[0].format(key[1])
                    self.escape(Finding(
                        "escaped", f"{where} was rebound while the mechanism ran (from "
                                   f"{show(value)} to {show(now.get(key))}): state kept between "
                                   f"calls, such as a counter, so the output is not a function "
                                   f"of the input and the explored draws alone. Keep the "
                                   f"mechanism's state inside each call, or audit it black-box "
                                   f"(--kind blackbox)", {"name": where}))
            for key, before in self._contents.items():
                if not _same_content(now.get(key, _MISSING), before):
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


#: wrappers made so far, by (original's id, name): the same original gets the same wrapper
_MADE: dict[tuple[int, str], tuple[Callable[..., Any], Callable[..., Any]]] = {}


def _memo(make: Callable[..., Callable[..., Any]]) -> Callable[..., Callable[..., Any]]:
    @functools.wraps(make)
    def cached(fn: Callable[..., Any], name: str, *args: Any) -> Callable[..., Any]:
        hit = _MADE.get((id(fn), name))
        if hit is not None and hit[0] is fn:
            return hit[1]
        wrapper = make(fn, name, *args)
        _MADE[(id(fn), name)] = (fn, wrapper)
        return wrapper
    return cached


@_memo
def _function(fn: Callable[..., Any], name: str, hint: str,
              reads: Callable[[tuple[Any, ...], dict[str, Any]], bool] | None = None,
              home: tuple[object, str] | None = None) -> Callable[..., Any]:
    """``fn`` guarded.  ``home``: the module attribute it stands for; when a facade is
    patched there (``--patch``), a copy of the name bound before the audit (``from random
    import random``) calls the facade, as the module's name does."""
    def guarded(*args: Any, **kwargs: Any) -> Any:
        watch = getattr(_local, "watch", None)
        if watch is not None and KINDS.get(sys._getframe(1).f_code.co_filename) != "machinery":
            if home is not None:
                current = getattr(home[0], home[1], guarded)
                if current is not guarded:
                    return current(*args, **kwargs)
            if reads is None or reads(args, kwargs):
                watch.seen(name, hint, sys._getframe(1))
        return fn(*args, **kwargs)
    _copy_names(guarded, fn)
    return guarded


@_memo
def _method(fn: Callable[..., Any], name: str, hint: str) -> Callable[..., Any]:
    def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
        watch = getattr(_local, "watch", None)
        if watch is not None and not isinstance(self, facade_types()) \
                and not watch.allows(self):
            watch.seen(f"{name}() on {_what(self)}", hint, sys._getframe(1))
        return fn(self, *args, **kwargs)
    _copy_names(guarded, fn)
    return guarded


@_memo
def _seeding(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``random.Random.seed`` noting a seed given inside a call (:meth:`Watch.seeded`)."""
    def seed(self: Any, a: Any = None, *args: Any, **kwargs: Any) -> Any:
        watch = getattr(_local, "watch", None)
        if watch is not None and a is not None and type(self) is random.Random:
            watch.seeded(self, a, sys._getframe(1))
        return fn(self, a, *args, **kwargs)
    _copy_names(seed, fn)
    return seed


def _seed_key(value: Any) -> Any:
    """A seed as compared between runs: its type and value (ints, strings, bytes), else its
    type and identity (an object seeds by its hash: the same object, the same seed)."""
    if isinstance(value, (numbers.Real, str, bytes, bytearray)):
        return (type(value).__name__, value if not isinstance(value, bytearray)
                else bytes(value))
    return (type(value).__name__, id(value))


def _copy_names(wrapper: Callable[..., Any], fn: Callable[..., Any]) -> None:
    for attr in ("__name__", "__qualname__", "__doc__"):
        value = getattr(fn, attr, None)
        if isinstance(value, str):
            setattr(wrapper, attr, value)
    wrapper.__wrapped__ = fn  # type: ignore[attr-defined]


def _what(obj: object) -> str:
    return f"a {type(obj).__module__}.{type(obj).__qualname__}"


def _no_time(position: int) -> Callable[[tuple[Any, ...], dict[str, Any]], bool]:
    """``localtime()`` and the like read the clock only without a time argument."""
    def reads(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
        return (len(args) <= position or args[position] is None) and not kwargs
    return reads


def _unseeded(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    return (not args or args[0] is None) and kwargs.get("seed") is None


_CLOCKS = ("time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns",
           "process_time", "process_time_ns", "thread_time", "thread_time_ns",
           "clock_gettime", "clock_gettime_ns")
#: drawing methods of random.Random (SystemRandom's own are added)
_RANDOM_METHODS = ("random", "getrandbits", "randbytes", "randrange", "randint", "choice",
                   "choices", "shuffle", "sample", "uniform", "triangular", "normalvariate",
                   "gauss", "lognormvariate", "expovariate", "vonmisesvariate", "gammavariate",
                   "betavariate", "paretovariate", "weibullvariate", "binomialvariate")


def _plan() -> list[tuple[object, str, Callable[..., Any]]]:
    """Every ``(object, attribute, wrapper)`` the guard installs (numpy's when imported)."""
    plan: list[tuple[object, str, Callable[..., Any]]] = []
    inst = getattr(random, "_inst", None)
    for name in dir(random):
        fn = getattr(random, name)
        if getattr(fn, "__self__", None) is inst and name in _RANDOM_METHODS:
            plan.append((random, name, _function(fn, f"random.{name}()", "random", None,
                                                 (random, name))))
    for cls, hint in ((random.Random, "instance"), (random.SystemRandom, "secrets")):
        for name in _RANDOM_METHODS:
            if cls is random.Random or name in vars(cls):
                fn = getattr(cls, name, None)
                if fn is not None:
                    plan.append((cls, name, _method(fn, f"{cls.__name__}.{name}", hint)))
    plan.append((random.Random, "seed", _seeding(random.Random.seed, "Random.seed")))
    for name in ("randbelow", "randbits", "choice", "token_bytes", "token_hex",
                 "token_urlsafe"):
        plan.append((secrets, name, _function(getattr(secrets, name), f"secrets.{name}()",
                                              "secrets", None, (secrets, name))))
    for name in ("urandom", "getrandom"):
        if hasattr(os, name):
            plan.append((os, name, _function(getattr(os, name), f"os.{name}()", "os")))
    for name in ("uuid1", "uuid4"):
        plan.append((uuid, name, _function(getattr(uuid, name), f"uuid.{name}()", "os")))
    for name in _CLOCKS:
        if hasattr(time, name):
            plan.append((time, name, _function(getattr(time, name), f"time.{name}()", "clock")))
    for name, pos in (("localtime", 0), ("gmtime", 0), ("ctime", 0), ("strftime", 1)):
        plan.append((time, name, _function(getattr(time, name), f"time.{name}() (no time "
                                           f"given: the clock)", "clock", _no_time(pos))))
    plan += _datetime_plan()
    plan += _numpy_plan()
    return plan


#: the clock reads of ``datetime``'s classes (C code that reads the clock itself, without
#: calling ``time.time``): ``datetime.now``/``utcnow``/``today``, ``date.today``
_DATETIME_CLOCKS = {"datetime": ("now", "utcnow", "today"), "date": ("today",)}


def _datetime_plan() -> list[tuple[object, str, Callable[..., Any]]]:
    """``datetime.datetime`` and ``datetime.date`` replaced, in the ``datetime`` module (and
    by the scan, wherever ``from datetime import datetime`` bound them), by guarded
    stand-ins: subclasses whose clock reads are guarded, whose constructor returns an
    instance of the original class, and for which ``isinstance`` / ``issubclass`` answer
    as for the original."""
    import datetime

    return [(datetime, name, _guarded_class(getattr(datetime, name), name, clocks))
            for name, clocks in _DATETIME_CLOCKS.items()]


_CLASSES: dict[int, tuple[type, type]] = {}


def _guarded_class(original: type, name: str, clocks: tuple[str, ...]) -> Any:
    hit = _CLASSES.get(id(original))
    if hit is not None and hit[0] is original:
        return hit[1]

    class _Like(type):
        def __instancecheck__(cls, obj: Any) -> bool:
            return isinstance(obj, original)

        def __subclasscheck__(cls, sub: type) -> bool:
            return issubclass(sub, original)

    def clock(method: str) -> Any:
        fn = getattr(original, method)

        def guarded(cls: type, *args: Any, **kwargs: Any) -> Any:
            watch = getattr(_local, "watch", None)
            if watch is not None:
                watch.seen(f"datetime.{name}.{method}()", "clock", sys._getframe(1))
            return fn(*args, **kwargs)
        guarded.__name__ = guarded.__qualname__ = method
        return classmethod(guarded)

    def new(cls: type, *args: Any, **kwargs: Any) -> Any:
        return original(*args, **kwargs)

    body: dict[str, Any] = {m: clock(m) for m in clocks}
    body.update(__new__=new, __module__=original.__module__, __doc__=original.__doc__,
                __qualname__=original.__qualname__)
    stand_in = _Like(name, (original,), body)
    _CLASSES[id(original)] = (original, stand_in)
    return stand_in


def _numpy_plan() -> list[tuple[object, str, Callable[..., Any]]]:
    npr = sys.modules.get("numpy.random")
    if npr is None:
        return []
    plan: list[tuple[object, str, Callable[..., Any]]] = []
    mtrand = sys.modules.get("numpy.random.mtrand")
    glob = getattr(mtrand, "_rand", None)
    for name in dir(npr):
        fn = getattr(npr, name, None)
        if glob is not None and getattr(fn, "__self__", None) is glob and name not in (
                "get_state", "set_state", "seed"):
            plan.append((npr, name, _function(fn, f"numpy.random.{name}()", "numpy", None,
                                              (npr, name))))
    if hasattr(npr, "default_rng"):
        plan.append((npr, "default_rng", _function(
            npr.default_rng, "numpy.random.default_rng() without a seed", "numpy-os",
            _unseeded)))
    bitgen = sys.modules.get("numpy.random.bit_generator")
    if bitgen is not None and callable(getattr(bitgen, "randbits", None)):
        # the OS entropy of every unseeded numpy generator (RandomState(), SeedSequence())
        plan.append((bitgen, "randbits", _function(
            bitgen.randbits, "a numpy generator seeded from the operating system "
            "(RandomState(), SeedSequence() or default_rng() without a seed)", "numpy-os")))
    return plan


class _Installed:
    """The process-wide wrappers, installed once for any number of nested or concurrent
    audits (threads) and removed by the last."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0
        self.numpy = False
        self.saved: list[tuple[object, str, Any, Any]] = []  # obj, name, original, wrapper
        self.scanned: dict[str, list[str]] = {}  # module name -> names found (once)
        self.hits: dict[str, list[str]] = {}  # the modules with names found

    def install(self) -> None:
        with self.lock:
            self.users += 1
            if self.users == 1:
                if "numpy" in sys.modules and "numpy.random" not in sys.modules:
                    import numpy.random  # noqa: F401  # float-ok: loaded to guard its generators, no arithmetic
                self.numpy = "numpy.random" in sys.modules
                self._apply(_plan())
                self._scan()

    def refresh(self) -> None:
        """numpy imported since the install (by the audited code): guard it too."""
        if self.numpy or "numpy.random" not in sys.modules:
            return
        with self.lock:
            if self.users and not self.numpy:
                self.numpy = True
                self._apply(_numpy_plan())
                self._scan()

    def _apply(self, plan: list[tuple[object, str, Callable[..., Any]]]) -> None:
        for obj, name, wrapper in plan:
            original = (vars(obj).get(name, _MISSING) if isinstance(obj, type)
                        else getattr(obj, name))
            setattr(obj, name, wrapper)
            self.saved.append((obj, name, original, wrapper))

    def _scan(self) -> None:
        """Names bound to a guarded function in the loaded modules (``from time import
        time``) are rebound to its wrapper (each module's dict is read in full once per
        process; afterwards only the names found in it)."""
        by_id = {id(orig): wrapper for obj, _, orig, wrapper in self.saved
                 if orig is not _MISSING and not isinstance(obj, type)}
        for mod_name in list(sys.modules.keys() - self.scanned.keys()):
            module = sys.modules.get(mod_name)
            top = mod_name.partition(".")[0]
            names = []
            if isinstance(module, ModuleType) and top not in INFRASTRUCTURE \
                    and top not in sys.stdlib_module_names:
                try:
                    items = list(vars(module).items())
                except TypeError:
                    items = []
                names = [k for k, v in items if id(v) in by_id and not k.startswith("__")]
            self.scanned[mod_name] = names
            if names:
                self.hits[mod_name] = names
        for mod_name, names in self.hits.items():
            module = sys.modules.get(mod_name)
            for k in names:
                orig = getattr(module, k, None)
                if id(orig) in by_id:
                    setattr(module, k, by_id[id(orig)])
                    self.saved.append((module, k, orig, by_id[id(orig)]))

    def uninstall(self) -> None:
        with self.lock:
            self.users -= 1
            if self.users:
                return
            for obj, name, original, wrapper in reversed(self.saved):
                current = vars(obj).get(name) if isinstance(obj, type) else \
                    getattr(obj, name, None)
                if current is not wrapper:
                    continue  # rebound by someone else meanwhile: theirs now
                if original is _MISSING:
                    delattr(obj, name)
                else:
                    setattr(obj, name, original)
            self.saved.clear()
            self.numpy = False


_MISSING = object()

#: the containers whose content is compared between calls (others: their binding only)
_CONTAINERS = (list, dict, set, bytearray, collections.deque)


#: the values compared by content inside such containers
_PLAIN = (numbers.Number, str, bytes, type(None))


def _plain(value: Any, depth: int = 0) -> bool:
    """Made only of plain values and containers of them (things compared by value)."""
    if isinstance(value, _PLAIN):
        return True
    if depth > 8 or not isinstance(value, (*_CONTAINERS, tuple, frozenset)):
        return False
    items = (*value.keys(), *value.values()) if isinstance(value, dict) else value
    return all(_plain(v, depth + 1) for v in items)


def _content_copy(value: Any) -> Any:
    """A deep copy of a built-in container of plain values (to compare its content later),
    else ``_MISSING`` (objects inside compare by identity, so a copy would never equal)."""
    if not isinstance(value, _CONTAINERS) or not _plain(value):
        return _MISSING
    return copy.deepcopy(value)


#: format fields of a log record that carry its time
_TIME_FIELDS = ("asctime", "created", "msecs")


def _private_log_time(frame: FrameType | None) -> bool:
    """Whether a clock read from ``frame`` is the timestamp ``logging`` gives a record made
    by ``logger.info(...)`` and the like, in a configuration where no code but
    ``logging``'s own sees that record and no text it writes holds the time: the record
    factory, the logger classes, every handler the record reaches (stream, file, null or
    the last-resort handler, of exactly those classes) and every filter (exactly
    ``logging.Filter``) are ``logging``'s, and no formatter's format names ``asctime``,
    ``created``, ``msecs`` or ``relativeCreated``.  The time then never reaches the
    output: the read is not the mechanism's randomness.  Anything else -- a handler,
    filter, formatter or record factory of other code, which could hand the time back --
    is a clock read like any other."""
    while frame is not None and kind(frame.f_code.co_filename) == "implementation":
        frame = frame.f_back  # the timing count's recorder of the clock
    logging = sys.modules.get("logging")
    if logging is None or frame is None or \
            frame.f_code is not logging.LogRecord.__init__.__code__:
        return False
    make = frame.f_back
    log = make.f_back if make is not None else None
    if make is None or log is None or make.f_code is not logging.Logger.makeRecord.__code__ \
            or log.f_code is not logging.Logger._log.__code__:
        return False
    logger = log.f_locals.get("self")
    if logger is None or type(logger) not in (logging.Logger, logging.RootLogger) or \
            logging.getLogRecordFactory() is not logging.LogRecord:
        return False
    handlers: list[Any] = []
    filters = list(logger.filters)
    node = logger
    while node is not None:
        handlers += node.handlers
        if not node.propagate:
            break
        node = node.parent
    if not handlers and logging.lastResort is not None:
        handlers = [logging.lastResort]
    allowed = (logging.StreamHandler, logging.FileHandler, logging.NullHandler,
               type(logging.lastResort))
    for handler in handlers:
        if type(handler) not in allowed:
            return False
        filters += handler.filters
        form = handler.formatter
        if form is not None and (type(form) is not logging.Formatter or any(
                field in str(getattr(form, "_fmt", "")).lower() for field in _TIME_FIELDS)):
            return False
    return all(type(f) is logging.Filter for f in filters)


def _only_gained(now: Any, before: Any) -> bool:
    """``now`` is ``before`` with entries added and none changed or removed: a dict with
    new keys, a set with new elements, a list with new items at its end."""
    try:
        if isinstance(before, dict) and isinstance(now, dict):
            return len(now) > len(before) and all(
                k in now and bool(now[k] == v) for k, v in before.items())
        if isinstance(before, set) and isinstance(now, set):
            return len(now) > len(before) and before <= now
        if isinstance(before, list) and isinstance(now, list):
            return len(now) > len(before) and bool(now[:len(before)] == before)
    except Exception:  # noqa: BLE001 - content that cannot be compared: not a memo
        return False
    return False


def _same_content(now: Any, before: Any) -> bool:
    try:
        return bool(now == before)
    except Exception:  # noqa: BLE001 - content that cannot be compared: binding only
        return True
_INSTALLED = _Installed()


@contextmanager
def watching(target: object = None) -> Iterator[Watch]:
    """Install the guards for the duration (process-wide; calls are checked only in a
    thread :func:`armed` with the returned :class:`Watch`) and watch the global
    generators' states and the names where ``target`` can keep state."""
    _INSTALLED.install()
    try:
        watch = Watch()
        for name, read in generator_states():
            watch.watch_state(name, read)
        watch.follow(target)
        yield watch
    finally:
        _INSTALLED.uninstall()


def refresh() -> None:
    """Guard numpy if the audited code imported it after the guards were installed."""
    _INSTALLED.refresh()


