"""Randomness facades: audit code that draws from ``random``, ``secrets`` or numpy, as shipped.

The white-box audit explores ``f(c, source)`` over every path of its draws
(:mod:`exactdp.explore`).  Real code draws from ``random.Random``, ``secrets`` /
``random.SystemRandom`` or a ``numpy.random.Generator`` instead.  A *facade* is an object
that behaves like one of those and turns each call into a draw of the exploring source,
with exact weights; :class:`FacadeMechanism` presents ``fn(c, rng)`` as ``f(c, source)``,
passing the facade in (code taking an rng argument) and/or patching it in for the duration
of each call (module functions such as ``random.random`` or an attribute such as
diffprivlib's ``mechanism._rng``), restoring the originals in a ``finally`` (errors and
KeyboardInterrupt included).

Every facade call is a draw of ``j`` uniform on ``[0, n)``:

* ``getrandbits(k)``: ``n = 2**k``; ``randrange``/``randint``/``choice``/``shuffle`` (and
  ``secrets.randbelow``, numpy's ``integers``/``choice``): ``n`` = the number of options,
  drawn at once (the same law as CPython's rejection sampling ``_randbelow``);
* ``random()``: ``n = 2**53``, returning the float ``j / 2**53`` (CPython's and numpy's
  53-bit doubles, each with probability ``2**-53``); ``uniform(a, b)`` is CPython's
  ``a + (b - a) * random()``.

A draw with ``n <= exact_limit`` branches exactly, ``n`` ways (no assumption).  A larger
draw is explored through its *effect*: the rest of the run (output, or the exception
raised, and the number of later draws), computed by re-running ``fn`` with the earlier
draws replayed, this draw forced to ``j`` and every later draw at ``0`` -- and, when there
are later draws, again with them at their maximum and at pseudo-random values (*probes*).
**Assumed** (the monotone-threshold idea of the counting audit, paper 004's Section 2
inverse-CDF samplers being its model): the effect is piecewise constant in ``j`` with
breakpoints found by cutting ``[0, n)`` into :data:`GRID` equal intervals and bisecting --
whenever the effects at both ends of an interval are equal, the effect is constant on it
(true of a comparison ``random() < t`` and of a monotone map followed by rounding, on each
side of a turn at a grid point such as diffprivlib's ``random() == 1/2``), and the
probes' continuations stand for every continuation.  **Checked**: the effect at the
midpoint of every piece and at 32 pseudo-random ``j`` equals its piece's (with later
draws: also under a fresh pseudo-random continuation per check); when a check
fails, or there are more than ``max_pieces`` pieces, the audit is refused
(:class:`FacadeRefusal`, exit status 2) with a suggestion to audit black-box.  Each piece
is then one branch of the exploring source, weight ``(piece length) / n`` exactly, run with
the piece's first ``j``.  The exploring source's per-path budget (draw cap, deadline:
:meth:`~exactdp.explore.ExploringSource.check_budget`) is checked before a search and
every :data:`BUDGET_EVERY` probe draws, so a costly search cannot overrun it.

The facades of ``random`` and ``secrets`` are in :mod:`exactdp.audit.facade_random`, numpy's
in :mod:`exactdp.audit.facade_numpy`, the draw engine they share (exact branching, probes,
lazy values) in :mod:`exactdp.audit.facade_engine` and the floats they return in
:mod:`exactdp.audit.facade_floats`; this module installs them and holds the breakpoint
search.
"""

from __future__ import annotations

import bisect
import contextlib
import operator
import random
import re
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from types import ModuleType
from typing import Any, Literal

from exactdp.audit.bytecode import gettrace, settrace
from exactdp.audit.facade_engine import (
    BUDGET_EVERY,
    ESCAPED_NOTE,
    EXACT_LIMIT,
    GRID,
    LAZY_NOTE,
    MAX_PIECES,
    PROBE_MAX_DRAWS,
    SPOT_CHECKS,
    FacadeRefusal,
    _Engine,
    _Pieces,
)
from exactdp.audit.facade_lazy import LazyUnit
from exactdp.audit.facade_numpy import UNMODELLED_FUNCTIONS, LegacyNumpyFacade, NumpyFacade
from exactdp.audit.facade_random import RandomFacade, SecretsFacade
from exactdp.explore import RestartExploration
from exactdp.params import ParameterError
from exactdp.randomness import RandomSource

__all__ = ["BUDGET_EVERY", "EXACT_LIMIT", "FACADE_KINDS", "GRID", "MAX_PIECES",
           "PROBE_MAX_DRAWS", "SPOT_CHECKS", "FacadeMechanism", "FacadeRefusal",
           "LegacyNumpyFacade", "NumpyFacade", "RandomFacade", "SecretsFacade",
           "facade_mechanism"]

#: How many draws have been explored by their effect in this process (a law resting on
#: the search's assumption: :attr:`FacadeMechanism.unverified`).
SEARCHES = [0]

FacadeKind = Literal["random", "secrets", "numpy", "numpy-legacy"]
FACADE_KINDS: tuple[str, ...] = ("random", "secrets", "numpy", "numpy-legacy")
#: numpy's module-level functions (``np.random.laplace``...) are methods of its global
#: legacy ``RandomState``: a patched ``numpy.random`` gets the legacy facade's.
LEGACY_FUNCTIONS = ("random", "random_sample", "sample", "rand", "randint", "choice",
                    "uniform", "laplace", "exponential", "standard_exponential", "normal",
                    "standard_normal", "randn", "geometric")
#: Module-level functions a facade replaces when a module is patched, per kind.
MODULE_FUNCTIONS: dict[str, tuple[str, ...]] = {
    "random": ("random", "getrandbits", "randrange", "randint", "choice", "choices",
               "shuffle", "uniform", "sample", "expovariate", "gauss", "normalvariate",
               "lognormvariate", "triangular", "paretovariate", "weibullvariate",
               "betavariate", "gammavariate", "vonmisesvariate", "randbytes",
               "binomialvariate"),
    "secrets": ("randbelow", "randbits", "choice"),
    "numpy": ("integers", "random", "choice"),
    "numpy-legacy": LEGACY_FUNCTIONS,
}


_FACADES: dict[str, Callable[[_Engine], Any]] = {
    "random": RandomFacade, "secrets": SecretsFacade, "numpy": NumpyFacade,
    "numpy-legacy": LegacyNumpyFacade}


def _handed_over(exc: BaseException, facade: object) -> FacadeRefusal | None:
    """The refusal to give when the code handed the facade to a function that takes only
    a real generator (``np.random.default_rng(rng)``, sklearn's ``check_random_state``):
    the error it raised names the facade's type.  None for any other error."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - a third party's __str__ may raise anything
        return None
    if type(facade).__name__ not in text:
        return None
    real = {"NumpyFacade": "numpy Generator", "LegacyNumpyFacade": "numpy RandomState"}.get(
        type(facade).__name__, "random.Random")
    return FacadeRefusal(
        f"the code handed the audit's generator (a facade behaving like a {real}, not one) "
        f"to a function that takes only a real one or a seed ({type(exc).__name__}: "
        f"{re.sub(r' at 0x[0-9a-fA-F]+', '', ' '.join(text.split()))[:160]}); let the code draw from the generator it is "
        f"passed (e.g. rng = random_state if random_state is not None else "
        f"np.random.default_rng()), or audit it black-box")


def _one(get: Callable[[Any], Any]) -> Callable[[Any], tuple[Any]]:
    """The getter of one name as a getter of a tuple (as ``attrgetter`` of several)."""
    return lambda obj: (get(obj),)


def _module_kind(module: object, kind: str) -> str:
    """The facade a patched module gets: numpy's module functions are the legacy
    ``RandomState``'s, whatever facade is passed to the code."""
    return "numpy-legacy" if _name(module) == "numpy.random" else kind


@contextlib.contextmanager
def _patched(patches: Sequence[tuple[object, str, Any]]) -> Iterator[None]:
    """Set each ``obj.name = value`` for the duration; restore every original, always."""
    saved: list[tuple[object, str, Any]] = []
    try:
        for obj, name, value in patches:
            saved.append((obj, name, getattr(obj, name)))
            setattr(obj, name, value)
        yield
    finally:
        for obj, name, value in reversed(saved):
            setattr(obj, name, value)


class FacadeMechanism:
    """``fn(c, rng)`` drawing from a facade, presented as ``f(c, source)`` for
    :func:`~exactdp.audit.whitebox_audit` (``kind="source"``).

    ``patch_modules``: modules (or objects) whose functions named in
    :data:`MODULE_FUNCTIONS` for ``rng`` are replaced by the facade's during each call;
    ``patch_attributes``: ``(obj, name)`` pairs set to the facade itself during each call.
    ``raises_as_outcome``: exception type -> outcome, for code that raises on some draws
    (the outcome's probability is then reported exactly instead of the audit stopping).
    ``assumption`` states, after an audit, what was assumed and checked for large draws.
    """

    def __init__(self, fn: Callable[[Any, Any], Any], rng: str = "random", *,
                 patch_modules: Sequence[object] = (),
                 patch_attributes: Sequence[tuple[object, str]] = (),
                 raises_as_outcome: Mapping[type[BaseException], Hashable] | None = None,
                 exact_limit: int = EXACT_LIMIT, max_pieces: int = MAX_PIECES,
                 description: str | None = None, lazy: bool = True) -> None:
        if rng not in _FACADES:
            raise ParameterError(f"rng = {rng!r} must be one of {', '.join(FACADE_KINDS)}")
        if not callable(fn):
            raise ParameterError(f"fn = {fn!r} must be callable as fn(c, rng)")
        self.fn, self.rng = fn, rng
        self.exact_limit, self.max_pieces = exact_limit, max_pieces
        self.raises = dict(raises_as_outcome or {})
        self.patch_modules = tuple(patch_modules)
        self.patch_attributes = tuple(patch_attributes)
        self.patched_names = [f"{_name(m)}.{f}" for m in self.patch_modules
                              for f in MODULE_FUNCTIONS[_module_kind(m, rng)]
                              if hasattr(m, f)] + \
                             [f"{_name(o)}.{a}" for o, a in self.patch_attributes]
        name = getattr(fn, "__qualname__", None) or repr(fn)
        self.description = description or (
            f"{name} via a {rng} facade" + (f" (patched: {', '.join(self.patched_names)})"
                                            if self.patched_names else ""))
        self._cache: dict[tuple[Any, tuple[tuple[int, int], ...], int], _Pieces] = {}
        self._large: list[str] = []
        self._facade: Any = None
        self._facades: list[Any] = []
        self._planned: list[tuple[Any, str, tuple[str, ...], Callable[[Any], Any]]] | None = None
        #: random() values are handed out lazily (:mod:`exactdp.audit.facade_lazy`) until
        #: one is used otherwise than compared; whether any was
        self.lazy = lazy
        self.lazy_used = False
        #: integer draws likewise (``randrange``, ``randint``, ``secrets.randbelow``)
        self.lazy_ints = lazy

    def __repr__(self) -> str:
        return self.description

    @property
    def assumption(self) -> str:
        """What was assumed about the large draws met so far, and how it was checked."""
        notes = set(self._large)
        lazy = ("random() values used only in comparisons with numbers: branched exactly on "
                "each comparison (no assumption)"
                if LAZY_NOTE in notes and ESCAPED_NOTE not in notes else "")
        large = [n for n in self._large if n not in (LAZY_NOTE, ESCAPED_NOTE)]
        if not large:
            return lazy
        return (lazy + ("; " if lazy else "") + f"{len(large)} large draw(s) explored by their effect ("
                + "; ".join(large[:4]) + ("; ..." if len(large) > 4 else "")
                + f"): assumed piecewise constant in j with breakpoints found by cutting "
                  f"[0, n) into {GRID} equal intervals and bisecting (equal effects at both "
                  f"ends of an interval => constant on it); checked "
                  f"at every piece's midpoint and {SPOT_CHECKS} pseudo-random j per draw "
                  f"(later draws: at 0, at their maximum and pseudo-random in the search, "
                  f"a fresh pseudo-random continuation per check)")

    @property
    def unverified(self) -> str:
        """Non-empty (what was searched) when a draw was explored by its effect: its law
        rests on the piecewise-constant assumption, which checks at finitely many ``j``
        cannot verify (a piece narrower than the checks' spacing, or one the later draws
        open jointly, can be missed), so no PASS may rest on it
        (:func:`~exactdp.audit.whitebox_audit` reports ``"incomplete"`` instead)."""
        large = [n for n in self._large if n not in (LAZY_NOTE, ESCAPED_NOTE)]
        return "; ".join(large[:4]) + ("; ..." if len(large) > 4 else "")

    def invoke(self, c: Any, tracer: Any = None, fresh: bool = False) -> Any:
        """``fn(c, facade)``; ``tracer``: the operation count's trace function, set for
        the duration of the call only (:meth:`__call__`; a probe runs untraced);
        ``fresh``: the facades were just made (in their first state: no reset)."""
        if not fresh:
            for facade in self._facades:  # each run (and each probe) from a fresh state
                facade._reset()
        if tracer is not None:
            settrace(tracer)
        try:
            return self.fn(c, self._facade)
        except tuple(self.raises) as exc:
            return self.raises[type(exc)] if type(exc) in self.raises else next(
                v for t, v in self.raises.items() if isinstance(exc, t))
        except (TypeError, ValueError) as exc:
            refused = _handed_over(exc, self._facade)
            if refused is not None:
                raise refused from None
            raise
        finally:
            if tracer is not None:
                settrace(None)

    def __call__(self, c: Any, source: RandomSource) -> Any:
        # The operation count (:mod:`exactdp.audit.bytecode`) counts only frames called by
        # :meth:`invoke`: its trace function is set around that call alone, so that the
        # set-up here and the checks after it run without a trace event per frame.
        tracer = gettrace()
        if tracer is not None:
            settrace(None)
        try:
            return self.counted(c, source, tracer)
        finally:
            if tracer is not None:
                settrace(tracer)

    def _plan(self) -> list[tuple[Any, str, tuple[str, ...], Callable[[Any], Any]]]:
        """Per patched module: the module, its facade's kind, the names replaced (those it
        has) and a getter of them (on the module: the originals; on the facade: its
        functions) -- made on the first run, read in one call per run."""
        plan = self._planned
        if plan is None:
            plan = []
            for m in self.patch_modules:
                kind = _module_kind(m, self.rng)
                names = tuple(f for f in MODULE_FUNCTIONS[kind] + (  # numpy's other draws:
                    UNMODELLED_FUNCTIONS if _name(m) == "numpy.random" else ())  # refused
                    if hasattr(m, f))
                if names:
                    get = operator.attrgetter(*names)
                    plan.append((m, kind, names, get if len(names) > 1 else _one(get)))
            self._planned = plan
        return plan

    def counted(self, c: Any, source: RandomSource, tracer: Any) -> Any:
        """``self(c, source)`` with tracing off and ``tracer`` (the operation count's trace
        function, or None: uncounted) set around the code's own call: what :meth:`__call__`
        does when run by :meth:`~exactdp.audit.bytecode.Counter.traced_call`, without
        their two frames and four trace switches (called so once per explored path)."""
        engine = _Engine(self, c, source)
        facade = _FACADES[self.rng](engine)
        self._facade = facade
        if self.patch_modules:
            facades = {self.rng: facade}
            plan = self._plan()
            for _, kind, _, _ in plan:
                if kind not in facades:  # numpy.random's functions: a legacy facade, same
                    facades[kind] = _FACADES[kind](engine)  # draws
            self._facades = list(facades.values())
        else:
            plan, facades = [], {}
            self._facades = [facade]
        try:
            # (_patched, inlined: once per run; a module's names set and put back through
            # its dict, one update each, the originals read in one call)
            saved: list[tuple[object, Any, Any]] = []
            try:
                for m, kind, names, get in plan:
                    values = get(facades[kind])
                    if type(m) is ModuleType:  # (a subclass may define __setattr__)
                        space = vars(m)
                        saved.append((space, names, get(m)))
                        space.update(zip(names, values))
                    else:
                        for name, value in zip(names, values):
                            saved.append((m, name, getattr(m, name)))
                            setattr(m, name, value)
                for o, a in self.patch_attributes:
                    saved.append((o, a, getattr(o, a)))
                    setattr(o, a, facade)
                result = self.invoke(c, tracer, True)
            finally:
                for obj, name, value in reversed(saved):
                    if type(name) is tuple:
                        obj.update(zip(name, value))  # type: ignore[attr-defined]
                    else:
                        setattr(obj, name, value)
            if engine.lazy or engine.lazy_ints:
                _settled(result, 0)  # a lazy value returned: explored without them
            return result
        finally:
            engine.finish()
            if engine.escaped:  # even if the code swallowed the restart
                raise RestartExploration(engine.escaped)

    def pieces(self, engine: _Engine, n: int) -> _Pieces:
        """The breakpoints of the next draw (on ``[0, n)``), found once per replayed prefix."""
        SEARCHES[0] += 1  # read by exactdp.testing: no assertion passes on a searched law
        key = (engine.c, tuple(engine.history), n)
        found = self._cache.get(key)
        if found is None:
            found = self._search(engine, n)
            self._cache[key] = found
        return found

    def _search(self, engine: _Engine, n: int) -> _Pieces:
        effects: dict[int, Hashable] = {}

        def effect(j: int) -> Hashable:
            if j not in effects:
                base = engine.effect(j)
                effects[j] = (base, engine.effect(j, "max"), engine.effect(j, 1)) \
                    if base[1] else (base,)
            return effects[j]

        starts: list[int] = []
        last: Hashable = object()
        grid = [n * i // GRID for i in range(GRID + 1)] if n > GRID else [0, n]
        stack = [(a, b - 1) for a, b in zip(grid[-2::-1], grid[:0:-1], strict=True) if a < b]
        while stack:
            a, b = stack.pop()
            if a == b or effect(a) == effect(b):
                if effect(a) != last:
                    starts.append(a)
                    last = effect(a)
                continue
            if len(starts) > self.max_pieces:
                raise FacadeRefusal(
                    f"on input {engine.c!r}, a draw on [0, {n}) splits into more than "
                    f"{self.max_pieces} pieces of constant effect; too many to explore "
                    f"exactly: audit this code black-box")
            m = (a + b) // 2
            stack += [(m + 1, b), (a, m)]
        pieces = _Pieces(n, tuple(starts))
        self._check(engine, pieces, effect)
        self._large.append(f"input {engine.c!r}, draw {len(engine.history)} on [0, 2^"
                           f"{n.bit_length() - 1}): {len(starts)} pieces"
                           if n & (n - 1) == 0 else
                           f"input {engine.c!r}, draw {len(engine.history)} on [0, {n}): "
                           f"{len(starts)} pieces")
        return pieces

    def _check(self, engine: _Engine, pieces: _Pieces,
               effect: Callable[[int], Hashable]) -> None:
        n = pieces.n
        gen = random.Random(f"{engine.c!r}/{engine.history}/{n}")
        points = [(pieces.starts[i] + pieces.end(i) - 1) // 2
                  for i in range(len(pieces.starts))]
        points += [gen.randrange(n) for _ in range(SPOT_CHECKS)]
        for k, j in enumerate(points):
            i = bisect.bisect_right(pieces.starts, j) - 1
            lo = pieces.starts[i]
            first, second = effect(lo), effect(j)
            joint = ""
            if first == second and len(first) > 1:  # type: ignore[arg-type]
                seed = 2 + k  # later draws: a fresh pseudo-random continuation
                first, second = engine.effect(lo, seed), engine.effect(j, seed)
                joint = ("; with the later draws at other values: the output depends on "
                         "this draw and later ones jointly, as when continuous noise values "
                         "are compared")
            if first != second:
                raise FacadeRefusal(
                    f"on input {engine.c!r}, draw {len(engine.history)} on [0, {n}): its "
                    f"effect is not piecewise constant as found by bisection (j = {lo} gives "
                    f"{first!r} but j = {j} in the same piece gives {second!r}{joint}); the "
                    f"facade cannot explore it exactly: audit this code black-box")



def _settled(value: Any, depth: int) -> None:
    """Escape (restart without lazy values) when ``value`` is, or holds in a tuple, list or
    dict, a lazy value: an output must be a value, not a draw still to be made."""
    kind = type(value)
    if kind is int or kind is bool or kind is str:  # (the commonest outputs: settled)
        return
    if issubclass(kind, LazyUnit):  # LazyInt, LazyIncreasing too
        object.__getattribute__(value, "_escape")("returned by the mechanism")
    elif isinstance(value, (tuple, list)) and depth < 8:
        for v in value:
            _settled(v, depth + 1)
    elif isinstance(value, dict) and depth < 8:
        _settled(tuple(value.items()), depth + 1)


def _name(obj: object) -> str:
    return str(getattr(obj, "__name__", None) or type(obj).__name__)


def facade_mechanism(fn: Callable[[Any, Any], Any], rng: str = "random", *,
                     patch_modules: Sequence[object] = (),
                     patch_attributes: Sequence[tuple[object, str]] = (),
                     raises_as_outcome: Mapping[type[BaseException], Hashable] | None = None,
                     lazy: bool = True) -> FacadeMechanism:
    """``FacadeMechanism(fn, rng, ...)``: ``fn(c, rng)`` ready for a white-box audit
    (``lazy=False``: every ``random()`` value explored by its effect, every integer draw
    branched on each of its values)."""
    return FacadeMechanism(fn, rng, patch_modules=patch_modules,
                           patch_attributes=patch_attributes,
                           raises_as_outcome=raises_as_outcome, lazy=lazy)
