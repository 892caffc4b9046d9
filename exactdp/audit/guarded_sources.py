"""The entropy sources a white-box audit does not model, replaced by guarded wrappers.

While an audit runs (:func:`install` .. :func:`uninstall`, reference-counted: nested and
concurrent audits share one installation), each function below is a wrapper that, in a
thread armed with a :class:`~exactdp.audit.escape.Watch` and when called from the audited
code, hands the call to :meth:`Watch.seen <exactdp.audit.escape.Watch.seen>` (which stops
the audit naming the function and the call site) before calling the original:

* the ``random`` module's functions and the drawing methods of ``random.Random`` /
  ``random.SystemRandom`` and their subclasses (instances made outside the facade, at any
  time), ``random()`` / ``getrandbits`` of their C base class ``_random.Random``;
  ``random.Random.seed`` notes a seed given inside a call;
* ``secrets``; ``os.urandom`` / ``os.getrandom``; ``uuid.uuid1`` / ``uuid4``; ``ssl``'s
  ``RAND_bytes`` / ``RAND_pseudo_bytes`` (when ``ssl`` is loaded); ``open`` / ``io.open``
  / ``os.open`` / ``os.readlink`` / ``os.listdir`` / ``os.scandir`` of a random device or
  of a path under ``/proc`` (:data:`DEVICES`); the ``os`` functions here are guarded under
  ``posix`` (the C module behind ``os``) too;
* the clocks of ``time`` (``time``, ``perf_counter``, ``monotonic``, ``process_time``,
  ``thread_time``, ``clock_gettime``, their ``_ns`` forms, and ``localtime`` / ``gmtime``
  / ``ctime`` / ``strftime`` without a time argument), ``os.times``,
  ``resource.getrusage`` (when ``resource`` is loaded), ``datetime.datetime.now`` /
  ``utcnow`` / ``today`` and ``datetime.date.today`` (C code reading the clock itself: the
  classes are replaced by guarded stand-ins);
* values fixed per process or per object, when the call is made by the user's own code
  (not by the standard library or an installed library, which use them for bookkeeping:
  ``copy.deepcopy`` keys its memo by ``id``): ``os.getpid`` / ``getppid``,
  ``threading.get_ident`` / ``get_native_id``, ``id()``, ``repr()`` of a value whose repr
  shows its address, ``hash()`` of a value whose hash
  is its address (a plain ``object()``) or, under hash randomization, of a string or bytes
  (tuples and frozensets of these included; a ``__hash__`` method hashing its fields is
  left alone), the interpreter's counters ``gc.get_count`` and
  ``sys.getallocatedblocks``;
* numpy's global functions (``np.random.laplace``...: its global ``RandomState``),
  ``np.random.default_rng()`` without a seed and every generator numpy seeds from the
  operating system (``RandomState()``, ``SeedSequence()``).

Names bound before the audit (``from random import random``, ``from time import time``) in
the loaded modules are replaced too (:meth:`_Installed._scan`).  A module loaded during the
audit (numpy, ``ssl``, ``resource``) is guarded from the next check on (:func:`refresh`).
"""

from __future__ import annotations

import builtins
import functools
import os
import random
import secrets
import sys
import threading
import time
import uuid
from collections.abc import Callable
from types import ModuleType
from typing import Any

from exactdp.audit.callers import INFRASTRUCTURE, KINDS, user_code
from exactdp.audit.kept_state import facade_types

__all__ = ["active_watch", "install", "refresh", "set_watch", "uninstall"]

_local = threading.local()  # .watch: the Watch armed in this thread, if any


def active_watch() -> Any:
    """The :class:`~exactdp.audit.escape.Watch` armed in this thread, or None."""
    return getattr(_local, "watch", None)


def set_watch(watch: Any) -> Any:
    """Arm ``watch`` (None: none) in this thread; return the one armed before."""
    before = getattr(_local, "watch", None)
    _local.watch = watch
    return before


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




@_memo
def _direct(fn: Callable[..., Any], name: str, hint: str,
            reads: Callable[[tuple[Any, ...], dict[str, Any]], bool] | None = None
            ) -> Callable[..., Any]:
    """``fn`` guarded when the user's own code calls it directly (:func:`user_code`): the
    standard library and installed libraries use ids, hashes and thread ids for their
    bookkeeping (``copy.deepcopy``, ``logging``), not as randomness.  ``hash()`` called by
    a ``__hash__`` method hashing its fields (a dataclass's) is left alone too: that hash
    orders sets and dicts, which no guard sees."""
    fields_hash = fn is builtins.hash

    def guarded(*args: Any, **kwargs: Any) -> Any:
        watch = getattr(_local, "watch", None)
        if watch is not None:
            frame = sys._getframe(1)
            code = frame.f_code
            if not (fields_hash and code.co_name == "__hash__") and \
                    user_code(code.co_filename) and (reads is None or reads(args, kwargs)):
                watch.seen(name, hint, frame)
        return fn(*args, **kwargs)
    _copy_names(guarded, fn)
    return guarded


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


def _unstable_hash(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """``hash(value)`` that differs between runs: a value hashed by its address, or a
    string or bytes under hash randomization (inside tuples and frozensets too)."""
    return len(args) == 1 and not kwargs and _unstable(args[0], 0)


def _unstable(value: Any, depth: int) -> bool:
    if isinstance(value, (str, bytes)):
        return bool(sys.flags.hash_randomization)
    if isinstance(value, (tuple, frozenset)):
        return depth < 8 and any(_unstable(v, depth + 1) for v in value)
    return getattr(type(value), "__hash__", None) is object.__hash__


_ID, _REPR = builtins.id, builtins.repr  # the originals (the guards replace them)


def _address_repr(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """``repr(value)`` showing the value's address (``<object object at 0x7f...>``)."""
    if len(args) != 1 or kwargs:
        return False
    try:
        return f"{_ID(args[0]):x}" in _REPR(args[0]).lower()
    except Exception:  # noqa: BLE001 - a raising __repr__: the call itself will raise
        return False


#: files whose content is randomness or the process's own changing state
DEVICES = ("/dev/urandom", "/dev/random", "/dev/arandom", "/dev/hwrng", "/proc/")


def _device(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """``open(path)`` / ``os.open(path)`` of a random device or of ``/proc``."""
    path = args[0] if args else kwargs.get("file", kwargs.get("path"))
    if path is None or isinstance(path, int):
        return False  # no path, or a file descriptor already open
    if getattr(_local, "resolving", False):
        return False  # realpath's own readlink calls, while resolving the path below
    _local.resolving = True
    try:
        text = os.fsdecode(os.fspath(path))
        full = os.path.realpath(text)
    except (TypeError, ValueError, OSError):
        return False
    finally:
        _local.resolving = False
    return any(p.startswith(d) or p == d.rstrip("/") for p in (os.path.abspath(text), full)
               for d in DEVICES)


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
    import _random  # the C base class, whose instances draw without random.Random's methods
    for name in ("random", "getrandbits"):
        fn = vars(_random.Random).get(name)
        if fn is not None:
            plan.append((_random.Random, name, _method(fn, f"Random.{name}", "instance")))
    plan.append((random.Random, "seed", _seeding(random.Random.seed, "Random.seed")))
    for name in ("randbelow", "randbits", "choice", "token_bytes", "token_hex",
                 "token_urlsafe"):
        plan.append((secrets, name, _function(getattr(secrets, name), f"secrets.{name}()",
                                              "secrets", None, (secrets, name))))
    for owner in _os_modules():
        for name in ("urandom", "getrandom"):
            if hasattr(owner, name):
                plan.append((owner, name, _function(getattr(owner, name), f"os.{name}()",
                                                    "os")))
    for name in ("uuid1", "uuid4"):
        plan.append((uuid, name, _function(getattr(uuid, name), f"uuid.{name}()", "os")))
    for name in _CLOCKS:
        if hasattr(time, name):
            plan.append((time, name, _function(getattr(time, name), f"time.{name}()", "clock")))
    for name, pos in (("localtime", 0), ("gmtime", 0), ("ctime", 0), ("strftime", 1)):
        plan.append((time, name, _function(getattr(time, name), f"time.{name}() (no time "
                                           f"given: the clock)", "clock", _no_time(pos))))
    plan += _datetime_plan()
    plan += _process_plan()
    plan += _numpy_plan() + _optional_plan(("ssl", "resource"))
    return plan


def _process_plan() -> list[tuple[object, str, Callable[..., Any]]]:
    """Values fixed per process or object and interpreter counters (called by the user's
    own code: :func:`_direct`), the ``os`` clock of ``os.times`` and reads of random
    devices through ``open``."""
    import _thread
    import gc
    import io

    plan: list[tuple[object, str, Callable[..., Any]]] = []
    for owner, names in ((os, ("getpid", "getppid")), (posix_or_os(), ("getpid", "getppid")),
                         (threading, ("get_ident",
                                                                   "get_native_id")),
                         (_thread, ("get_ident", "get_native_id")), (gc, ("get_count",)),
                         (sys, ("getallocatedblocks",))):
        for name in names:
            fn = getattr(owner, name, None)
            if fn is not None:
                plan.append((owner, name, _direct(fn, f"{owner.__name__.lstrip('_')}.{name}()",
                                                  "process")))
    plan.append((builtins, "id", _direct(builtins.id, "id()", "process")))
    plan.append((builtins, "repr", _direct(
        builtins.repr, "repr() of a value whose repr shows its address", "process",
        _address_repr)))
    plan.append((builtins, "hash", _direct(
        builtins.hash, "hash() of a value whose hash changes between runs (an address, or a "
        "string under hash randomization)", "process", _unstable_hash)))
    opener = _function(builtins.open, "open() of a random device or /proc", "os", _device)
    plan += [(builtins, "open", opener), (io, "open", opener)]
    for owner in _os_modules():
        if hasattr(owner, "times"):
            plan.append((owner, "times", _function(owner.times, "os.times()", "clock")))
        for name in ("open", "readlink", "listdir", "scandir"):
            if hasattr(owner, name):
                plan.append((owner, name, _function(
                    getattr(owner, name), f"os.{name}() of a random device or /proc", "os",
                    _device)))
    return plan


def posix_or_os() -> ModuleType:
    """The C module behind ``os`` (``posix``, ``nt``), whose functions ``os`` re-exports."""
    return sys.modules.get("posix") or sys.modules.get("nt") or os


def _os_modules() -> tuple[ModuleType, ...]:
    """``os`` and the C module behind it: code that imports ``posix`` calls the same
    functions under another module's name."""
    inner = posix_or_os()
    return (os,) if inner is os else (os, inner)


#: optional modules guarded when loaded: (attribute, what it is)
_OPTIONAL = {"ssl": (("RAND_bytes", "os"), ("RAND_pseudo_bytes", "os")),
             "resource": (("getrusage", "clock"),)}


def _optional_plan(names: tuple[str, ...]) -> list[tuple[object, str, Callable[..., Any]]]:
    plan: list[tuple[object, str, Callable[..., Any]]] = []
    for mod_name in names:
        module = sys.modules.get(mod_name)
        for attr, hint in _OPTIONAL[mod_name] if module is not None else ():
            fn = getattr(module, attr, None)
            if callable(fn):
                plan.append((module, attr, _function(fn, f"{mod_name}.{attr}()", hint)))
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
        self.optional: set[str] = set()  # of _OPTIONAL, guarded
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
                self.optional = {m for m in _OPTIONAL if m in sys.modules}
                self._apply(_plan())
                self._scan()

    def refresh(self) -> None:
        """numpy, ``ssl`` or ``resource`` imported since the install (by the audited code):
        guard them too."""
        new = tuple(m for m in _OPTIONAL if m not in self.optional and m in sys.modules)
        if (self.numpy or "numpy.random" not in sys.modules) and not new:
            return
        with self.lock:
            if not self.users:
                return
            plan = _optional_plan(tuple(m for m in new if m not in self.optional))
            self.optional.update(new)
            if not self.numpy and "numpy.random" in sys.modules:
                self.numpy = True
                plan += _numpy_plan()
            self._apply(plan)
            self._scan()

    def _apply(self, plan: list[tuple[object, str, Callable[..., Any]]]) -> None:
        for obj, name, wrapper in plan:
            original = (vars(obj).get(name, _ABSENT) if isinstance(obj, type)
                        else getattr(obj, name))
            setattr(obj, name, wrapper)
            self.saved.append((obj, name, original, wrapper))

    def _scan(self) -> None:
        """Names bound to a guarded function in the loaded modules (``from time import
        time``) are rebound to its wrapper (each module's dict is read in full once per
        process; afterwards only the names found in it)."""
        by_id = {id(orig): wrapper for obj, _, orig, wrapper in self.saved
                 if orig is not _ABSENT and not isinstance(obj, type)}
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
                if original is _ABSENT:
                    delattr(obj, name)
                else:
                    setattr(obj, name, original)
            self.saved.clear()
            self.numpy = False
            self.optional = set()




_ABSENT = object()  # an attribute a class did not define itself (deleted again on removal)
_INSTALLED = _Installed()


def install() -> None:
    """Install the wrappers (or count one more user of them)."""
    _INSTALLED.install()


def uninstall() -> None:
    """One user fewer; the last restores every original."""
    _INSTALLED.uninstall()


def refresh() -> None:
    """Guard the optional modules (numpy, ``ssl``, ``resource``) the audited code loaded
    after the guards were installed."""
    _INSTALLED.refresh()
