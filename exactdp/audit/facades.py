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

One module past 600 lines on purpose: the facades of ``random``, ``secrets`` and numpy and
the breakpoint search they share must model each call's draw the same way, so they are read
and changed together (the floats they return are in :mod:`exactdp.audit.facade_floats`).
"""

from __future__ import annotations

import bisect
import contextlib
import random
import secrets
import sys
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from exactdp.audit import facade_floats as ff
from exactdp.audit.bytecode import suspended, untraced
from exactdp.audit.facade_floats import FLOAT_BITS, as_unit_float, uniform_from
from exactdp.audit.facade_lazy import LazyInt, LazyUnit, Parts
from exactdp.audit.facade_monotone import LazyIncreasing
from exactdp.explore import ExplorationLimitError, NondeterminismError, RestartExploration
from exactdp.params import ParameterError
from exactdp.randomness import RandomSource
from exactdp.trace import pause, record, resume

__all__ = ["EXACT_LIMIT", "FACADE_KINDS", "FacadeMechanism", "FacadeRefusal",
           "LegacyNumpyFacade", "NumpyFacade", "RandomFacade", "SecretsFacade",
           "facade_mechanism"]

#: Notes (among the large draws' notes, which workers send back) that a random() value was
#: handed out lazily, and that one escaped (:mod:`exactdp.audit.facade_lazy`).
LAZY_NOTE, ESCAPED_NOTE = "(lazy random() values)", "(a lazy random() value escaped)"
#: Draws on ``[0, n)`` with ``n`` at most this branch exactly, ``n`` ways.
EXACT_LIMIT = 1 << 8
#: Most pieces one large draw may split into before the audit is refused.
MAX_PIECES = 1 << 12
#: A large draw's ``[0, n)`` is first cut into this many equal intervals (so that a turn
#: at a dyadic point such as ``random() == 1/2`` is a breakpoint candidate), then bisected.
GRID = 1 << 8
#: Pseudo-random spot checks of the piecewise-constant assumption per large draw.
SPOT_CHECKS = 32
#: Most draws a probe may make before its effect is recorded as "too many draws".
PROBE_MAX_DRAWS = 1 << 12
#: A probe checks the exploring source's budget (deadline) every this many draws.
BUDGET_EVERY = 1 << 8

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
    "random": ("random", "getrandbits", "randrange", "randint", "choice", "shuffle",
               "uniform", "sample", "expovariate", "gauss", "normalvariate",
               "lognormvariate", "triangular", "paretovariate", "weibullvariate"),
    "secrets": ("randbelow", "randbits", "choice"),
    "numpy": ("integers", "random", "choice"),
    "numpy-legacy": LEGACY_FUNCTIONS,
}


class FacadeRefusal(ExplorationLimitError):
    """The facade cannot explore this code exactly (assumption refuted by a check, too many
    pieces, an unsupported call): nothing is concluded; audit it black-box."""


class _ProbeOverflow(Exception):
    """A probe made more than :data:`PROBE_MAX_DRAWS` draws."""


@dataclass(frozen=True)
class _Pieces:
    """The breakpoints of one large draw: ``starts[i]`` is the first ``j`` of piece ``i``."""

    n: int
    starts: tuple[int, ...]

    def end(self, i: int) -> int:
        return self.starts[i + 1] if i + 1 < len(self.starts) else self.n


class _PieceDraw:
    """The pieces as an inverse-CDF draw over ``[n]_+``: output ``i`` has ``F(i)`` = the end
    of piece ``i``, so the exploring source weighs it ``(length of piece i) / n``."""

    def __init__(self, pieces: _Pieces) -> None:
        self.pieces = pieces

    @property
    def n(self) -> int:
        return len(self.pieces.starts) - 1

    @property
    def d(self) -> int:
        return self.pieces.n

    def cdf(self, z: int) -> int:
        return self.pieces.end(z) if z >= 0 else 0

    def search(self, u: int) -> int:
        return bisect.bisect_right(self.pieces.starts, u - 1) - 1


class _Engine:
    """The draws of one live run of ``fn(c, facade)`` and its probes."""

    def __init__(self, mech: FacadeMechanism, c: Any, source: RandomSource) -> None:
        self.mech, self.c, self.source = mech, c, source
        self.history: list[tuple[int, int]] = []
        self.probing: tuple[tuple[int, int], ...] | None = None
        self.forced = 0
        self.later: str | int = "zero"
        self.count = 0
        #: lazy random() values and integer draws handed out on this run; whether one
        #: escaped; whether the run is over
        self.lazy = self.lazy_ints = 0
        self.escaped = ""
        self.done = False
        #: the source's event-free coin (the exploring source's, through the audit's
        #: guarded source), for a comparison's two parts
        self._coin = getattr(source, "explore_coin", None)

    def draw(self, n: int) -> int:
        """``j`` uniform on ``[0, n)``."""
        if self.probing is not None:
            return self._probe_draw(n)
        if n <= self.mech.exact_limit:
            j = self.source.uniform(n) - 1
        else:
            if self.lazy or self.lazy_ints:  # the search replays the draws: lazy values
                self.escape("followed by a draw explored by its effect",  # have none
                            unit=bool(self.lazy), integer=bool(self.lazy_ints))
            self._check_budget()  # the search is costly: not past the path's budget
            with suspended():  # the search's probes are not the run's bytecode
                pieces = self.mech.pieces(self, n)
            j = pieces.starts[self.source.inverse_cdf(_PieceDraw(pieces))]
        self.history.append((n, j))
        return j

    def unit(self) -> Any:
        """A ``random()`` value: lazy (:mod:`exactdp.audit.facade_lazy`) when the mechanism
        allows it and this is a live run, else the float ``j / 2**53`` of :meth:`draw`."""
        if self.probing is not None or not self.mech.lazy:
            return as_unit_float(self.draw(1 << FLOAT_BITS))
        record("uniform", 1 << FLOAT_BITS)  # the draw sequence, as an explored draw has it
        self.lazy += 1
        if not self.mech.lazy_used:
            self.mech.lazy_used = True
            self.mech._large.append(LAZY_NOTE)
        return LazyUnit(1 << FLOAT_BITS, self._branch, self.escape)

    def integer(self, n: int) -> Any:
        """``j`` uniform on ``[0, n)``: a :class:`LazyInt` when the mechanism allows it and
        this is a live run (:mod:`exactdp.audit.facade_lazy`), else :meth:`draw`'s int."""
        if self.probing is not None or not self.mech.lazy_ints or n < 2:
            return self.draw(n)
        record("uniform", n)  # the draw sequence, as an explored draw has it
        self.lazy_ints += 1
        return LazyInt(n, self._branch, self._escape_int)

    def _escape_int(self, what: str) -> Any:
        return self.escape(what, unit=False, integer=True)

    def _branch(self, lengths: tuple[int, ...]) -> int:
        if self.done:
            self.escape("used after the call that drew it returned")
        if len(lengths) == 2 and self._coin is not None:  # no event: as paused below
            return 0 if self._coin(lengths[0], lengths[0] + lengths[1]) else 1
        token = pause()  # branching on a comparison is not a draw of the traced code
        try:
            if len(lengths) == 2:
                return 0 if self.source.bernoulli(lengths[0], lengths[0] + lengths[1]) else 1
            return self.source.inverse_cdf(Parts(lengths))
        finally:
            resume(token)

    def escape(self, what: str, unit: bool = True, integer: bool = False) -> Any:
        """A lazy value was used otherwise than compared: explore without them (lazy
        ``random()`` values when ``unit``, lazy integer draws when ``integer``)."""
        if unit and self.mech.lazy:
            self.mech.lazy = False
            self.mech._large.append(ESCAPED_NOTE)
        if integer:
            self.mech.lazy_ints = False
        what = ("an integer draw was " if integer and not unit else "a random() value was ") \
            + what
        self.escaped = self.escaped or what
        raise RestartExploration(f"{what}; explored by its effect instead")

    def _check_budget(self) -> None:
        check = getattr(self.source, "check_budget", None)
        if check is not None:
            check()

    def _probe_draw(self, n: int) -> int:
        assert self.probing is not None
        i = self.count
        self.count += 1
        if not i % BUDGET_EVERY:
            self._check_budget()  # a deadline passed during the search cuts the path
        if i < len(self.probing):
            if self.probing[i][0] != n:
                raise NondeterminismError(
                    f"on input {self.c!r}, draw {i} was on [0, {self.probing[i][0]}) and, "
                    f"replayed, on [0, {n}); the code must be a function of its draws")
            return self.probing[i][1]
        if i == len(self.probing):
            return self.forced
        if self.count > PROBE_MAX_DRAWS:
            raise _ProbeOverflow
        if self.later == "zero":
            return 0
        if self.later == "max":
            return n - 1
        return random.Random(f"{self.later}/{i}/{n}").randrange(n)

    def effect(self, j: int, later: str | int = "zero") -> tuple[Hashable, int]:
        """The rest of the run with the next draw forced to ``j`` (a probe) and the draws
        after it at ``later``: ``"zero"``, ``"max"`` (``n - 1``) or an int seed of
        pseudo-random values; the result and the number of later draws."""
        saved = (self.probing, self.forced, self.later, self.count)
        self.probing, self.forced, self.later, self.count = tuple(self.history), j, later, 0
        try:
            out: Hashable = ("returned", _key(self.mech.invoke(self.c)))
        except _ProbeOverflow:
            out = ("more draws than", PROBE_MAX_DRAWS)
        except (ExplorationLimitError, NondeterminismError):
            raise
        except Exception as exc:  # noqa: BLE001 - the audited code's failure is an effect
            out = ("raised", type(exc).__name__)
        finally:
            extra = self.count - len(self.history) - 1
            self.probing, self.forced, self.later, self.count = saved
        return (out, extra)


def _key(value: Any) -> Hashable:
    try:
        hash(value)
    except TypeError:
        return ("unhashable", repr(value))
    return value  # type: ignore[no-any-return]


#: the code of ``random.Random.randrange``, which returns its ``_randbelow`` value (shifted)
_RANDRANGE_FN = getattr(random.Random.randrange, "__wrapped__", random.Random.randrange)
_RANDRANGE = _RANDRANGE_FN.__code__
_RANDINT_FN = getattr(random.Random.randint, "__wrapped__", random.Random.randint)


class RandomFacade(random.Random):
    """Behaves like ``random.Random`` (every method built on ``random``, ``getrandbits`` and
    ``_randbelow``: ``randrange``, ``randint``, ``choice``, ``shuffle``, ``sample``,
    ``uniform``...); each draw goes to the audit's exploring source."""

    def __init__(self, engine: _Engine) -> None:
        self._engine = engine
        super().__init__()

    def seed(self, *args: Any, **kwargs: Any) -> None:
        """Seeding is ignored: the audit takes every value of every draw."""

    def _reset(self) -> None:
        """A fresh generator's state for each run (``gauss`` keeps a second value)."""
        self.gauss_next = None

    def random(self) -> Any:
        frame = sys._getframe(1)
        while frame.f_back is not None and \
                frame.f_globals.get("__name__") == "exactdp.audit.guarded_sources":
            frame = frame.f_back  # a name bound before the audit, forwarded by its guard
        caller = frame.f_globals.get("__name__", "")
        # the draw runs with tracing off (as untraced() would, inlined: once per draw)
        old = sys.gettrace()
        if old is not None:
            sys.settrace(None)
        try:
            return self._unit(caller == "random" or caller.startswith("exactdp."))
        finally:
            if old is not None:
                sys.settrace(old)

    def _unit(self, concrete: bool) -> Any:
        if concrete:  # Random's own methods (expovariate...) compute with the float
            return as_unit_float(self._engine.draw(1 << FLOAT_BITS))
        return self._engine.unit()

    @untraced
    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        return self._engine.draw(1 << k) if k else 0

    # randrange and randint are random.Random's own, run with tracing off: the facade's
    # work, not the audited code's (with the escape guards installed, as in every white-box
    # run, the guard's wrapper calls them from exactdp's frames, which are not counted
    # either); each is one call of the audited code, with one trace event
    # (randrange(n) and randint(a, b) with plain ints, the commonest calls, go straight
    # where random.Random's own code goes: _randbelow(n), resp. a + _randbelow(b - a + 1),
    # the value handed out lazily)
    def randrange(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        old = sys.gettrace()
        if old is not None:
            sys.settrace(None)
        try:
            if len(args) == 1 and not kwargs and type(args[0]) is int and args[0] > 0:
                return self._engine.integer(args[0])
            return _RANDRANGE_FN(self, *args, **kwargs)
        finally:
            if old is not None:
                sys.settrace(old)

    def randint(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        old = sys.gettrace()
        if old is not None:
            sys.settrace(None)
        try:
            if len(args) == 2 and not kwargs and type(args[0]) is int \
                    and type(args[1]) is int and args[1] >= args[0]:
                return args[0] + self._engine.integer(args[1] - args[0] + 1)
            return _RANDINT_FN(self, *args, **kwargs)
        finally:
            if old is not None:
                sys.settrace(old)

    def _randbelow(self, n: int) -> int:  # type: ignore[override]
        # randrange hands the value to the code (lazily); choice, shuffle... index with it
        return self._below(n, sys._getframe(1).f_code is _RANDRANGE)

    @untraced
    def _below(self, n: int, lazy: bool) -> Any:
        return self._engine.integer(n) if lazy else self._engine.draw(n)

    def uniform(self, a: Any, b: Any) -> Any:
        value = _lazy_uniform(self._engine, a, b)  # never truth-tested: that compares it
        return uniform_from(a, b, self) if value is None else value


class SecretsFacade(secrets.SystemRandom, RandomFacade):
    """Behaves like ``secrets.SystemRandom`` (an instance of it, for code that checks) and
    like the ``secrets`` module's ``randbelow``, ``randbits`` and ``choice``."""

    def __init__(self, engine: _Engine) -> None:
        RandomFacade.__init__(self, engine)

    random = RandomFacade.random
    getrandbits = RandomFacade.getrandbits
    seed = RandomFacade.seed
    _randbelow = RandomFacade._randbelow

    def randbelow(self, n: int) -> int:
        if n <= 0:
            raise ValueError("Upper bound must be positive.")
        return self._below(n, True)

    def randbits(self, k: int) -> int:
        return self.getrandbits(k)


def _continuous(name: str, **options: Any) -> None:
    """Continuous draws are modelled one scalar at a time; array parameters are not."""
    for k, v in options.items():
        if isinstance(v, (list, tuple)) or getattr(v, "ndim", 0) != 0:
            raise FacadeRefusal(f"the numpy facade models {name} with scalar parameters only "
                                f"({k} = {v!r:.40}); audit this code black-box")


class NumpyFacade:
    """Behaves like ``numpy.random.Generator``: ``integers(low, high=None, endpoint=False)``,
    ``random()``, ``choice(a)`` (uniform, with replacement), and the continuous draws whose
    algorithm is a function of 53-bit doubles (:mod:`exactdp.audit.facade_floats`):
    ``laplace``, ``uniform``, ``geometric`` (``p >= 1/3``), each also with ``size``.
    numpy's ziggurat draws (``Generator.normal``, ``exponential``, ``standard_normal``,
    ``geometric`` with ``p < 1/3``) work on 64-bit integers through tables and are refused
    (:class:`FacadeRefusal`), as are integer/choice draws with ``size``/``p``."""

    legacy = False

    def __init__(self, engine: _Engine) -> None:
        self._engine = engine

    def _reset(self) -> None:
        """A fresh generator's state for each run."""

    @staticmethod
    def _refuse(call: str, **options: Any) -> None:
        used = {k: v for k, v in options.items() if v is not None}
        if used:
            raise FacadeRefusal(f"the numpy facade does not model {call} with {used} (only "
                                f"scalar uniform draws); audit this code black-box")

    def _double(self) -> Any:
        return as_unit_float(self._engine.draw(1 << FLOAT_BITS))

    def _positive_double(self) -> Any:
        """A double drawn until it is not 0 (numpy's laplace rejects 0), as one draw of
        ``j`` uniform on ``[1, 2**53)``: the same law of the value, exactly, without the
        path of probability 0 that redraws forever."""
        return as_unit_float(self._engine.draw((1 << FLOAT_BITS) - 1) + 1)

    def _unit(self) -> Any:
        """A scalar ``random()``: lazy, branched on each comparison, like ``random.random()``
        (:meth:`_Engine.unit`)."""
        return self._engine.unit()

    def _sized(self, draw: Callable[[], Any], size: Any) -> Any:
        return draw() if size is None else ff.filled(draw, size)

    def integers(self, low: int, high: int | None = None, size: Any = None, dtype: Any = None,
                 endpoint: bool = False) -> int:
        self._refuse("integers", size=size)
        lo, hi = (0, int(low)) if high is None else (int(low), int(high))
        hi += 1 if endpoint else 0
        if hi <= lo:
            raise ValueError("low >= high")
        return lo + self._engine.draw(hi - lo)

    def random(self, size: Any = None, dtype: Any = None, out: Any = None) -> Any:
        self._refuse("random", out=out)
        scalar = dtype is None or str(dtype) in ("float64", "d")  # the default double
        return self._sized(self._unit if scalar and size is None else self._double, size)

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None,
               axis: int = 0, shuffle: bool = True) -> Any:
        self._refuse("choice", size=size, p=p)
        if isinstance(a, int):
            return self.integers(a)
        if not len(a):
            raise ValueError("a cannot be empty unless no samples are taken")
        return a[self._engine.draw(len(a))]

    def laplace(self, loc: Any = 0, scale: Any = 1, size: Any = None) -> Any:
        _continuous("laplace", loc=loc, scale=scale)
        return self._sized(lambda: ff.laplace(self._positive_double, loc, scale), size)

    def uniform(self, low: Any = 0, high: Any = 1, size: Any = None) -> Any:
        _continuous("uniform", low=low, high=high)
        if size is None and type(self) is NumpyFacade:  # Generator: random() is lazy too
            value = _lazy_uniform(self._engine, low, high)
            if value is not None:
                return value
        return self._sized(lambda: ff.uniform_range(self._double, low, high), size)

    def geometric(self, p: Any, size: Any = None) -> Any:
        _continuous("geometric", p=p)
        if not ff.geometric_search_applies(p):
            raise FacadeRefusal(f"geometric(p = {p!r:.20}) with p < 1/3 is drawn by numpy "
                                f"through its ziggurat exponential, which the facade does not "
                                f"model; audit this code black-box")
        return self._sized(lambda: ff.geometric_search(self._double, p), size)

    def _ziggurat(self, name: str) -> Any:
        raise FacadeRefusal(f"numpy's Generator.{name} uses the ziggurat algorithm on 64-bit "
                            f"draws, which the facade does not model exactly; audit this code "
                            f"black-box (np.random.{name} and RandomState.{name}, the legacy "
                            f"algorithms, are modelled: --rng numpy-legacy)")

    def normal(self, *args: Any, **kwargs: Any) -> Any:
        return self._ziggurat("normal")

    def standard_normal(self, *args: Any, **kwargs: Any) -> Any:
        return self._ziggurat("standard_normal")

    def exponential(self, *args: Any, **kwargs: Any) -> Any:
        return self._ziggurat("exponential")

    def standard_exponential(self, *args: Any, **kwargs: Any) -> Any:
        return self._ziggurat("standard_exponential")


class LegacyNumpyFacade(NumpyFacade):
    """Behaves like ``numpy.random.RandomState`` (and so like the module functions
    ``np.random.laplace``, ``np.random.normal``...): its ``exponential`` is ``-log(1 - U)``
    and its ``normal`` the polar method, keeping the second value of each pair for the next
    call (:mod:`exactdp.audit.facade_floats`); ``randint``/``random_sample`` are uniform."""

    legacy = True

    def __init__(self, engine: _Engine) -> None:
        super().__init__(engine)
        self._gauss: Any = None

    def _reset(self) -> None:
        self._gauss = None

    def random_sample(self, size: Any = None) -> Any:
        return self._unit() if size is None else self._sized(self._double, size)

    def random(self, size: Any = None) -> Any:  # type: ignore[override]
        return self.random_sample(size)

    sample = random_sample

    def rand(self, *shape: int) -> Any:
        return self.random_sample(shape or None)

    def randint(self, low: int, high: int | None = None, size: Any = None,
                dtype: Any = None) -> int:
        return self.integers(low, high, size=size)

    def _gauss_draw(self) -> Any:
        if self._gauss is not None:
            value, self._gauss = self._gauss, None
            return value
        value, self._gauss = ff.legacy_gauss_pair(self._double)
        return value

    def standard_normal(self, size: Any = None) -> Any:
        return self._sized(self._gauss_draw, size)

    def randn(self, *shape: int) -> Any:
        return self.standard_normal(shape or None)

    def normal(self, loc: Any = 0, scale: Any = 1, size: Any = None) -> Any:
        _continuous("normal", loc=loc, scale=scale)
        ff.legacy_normal(0, loc, scale)  # parameters checked before any draw, as numpy does
        return self._sized(lambda: ff.legacy_normal(self._gauss_draw(), loc, scale), size)

    def exponential(self, scale: Any = 1, size: Any = None) -> Any:
        _continuous("exponential", scale=scale)
        ff.legacy_exponential(lambda: 0, scale)  # parameters checked before any draw
        return self._sized(lambda: ff.legacy_exponential(self._double, scale), size)

    def standard_exponential(self, size: Any = None) -> Any:
        return self._sized(lambda: ff.legacy_exponential(self._double, 1), size)


_FACADES: dict[str, Callable[[_Engine], Any]] = {
    "random": RandomFacade, "secrets": SecretsFacade, "numpy": NumpyFacade,
    "numpy-legacy": LegacyNumpyFacade}


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

    def invoke(self, c: Any, tracer: Any = None) -> Any:
        """``fn(c, facade)``; ``tracer``: the operation count's trace function, set for
        the duration of the call only (:meth:`__call__`; a probe runs untraced)."""
        for facade in self._facades:  # each run (and each probe) from a fresh state
            facade._reset()
        if tracer is not None:
            sys.settrace(tracer)
        try:
            return self.fn(c, self._facade)
        except tuple(self.raises) as exc:
            return self.raises[type(exc)] if type(exc) in self.raises else next(
                v for t, v in self.raises.items() if isinstance(exc, t))
        finally:
            if tracer is not None:
                sys.settrace(None)

    def __call__(self, c: Any, source: RandomSource) -> Any:
        # The operation count (:mod:`exactdp.audit.bytecode`) counts only frames called by
        # :meth:`invoke`: its trace function is set around that call alone, so that the
        # set-up here and the checks after it run without a trace event per frame.
        tracer = sys.gettrace()
        if tracer is not None:
            sys.settrace(None)
        try:
            return self._run(c, source, tracer)
        finally:
            if tracer is not None:
                sys.settrace(tracer)

    def _run(self, c: Any, source: RandomSource, tracer: Any) -> Any:
        engine = _Engine(self, c, source)
        facade = _FACADES[self.rng](engine)
        facades = {self.rng: facade}
        patches = []
        for m in self.patch_modules:
            kind = _module_kind(m, self.rng)
            if kind not in facades:  # numpy.random's functions: a legacy facade, same draws
                facades[kind] = _FACADES[kind](engine)
            patches += [(m, f, getattr(facades[kind], f)) for f in MODULE_FUNCTIONS[kind]
                        if hasattr(m, f)]
        patches += [(o, a, facade) for o, a in self.patch_attributes]
        self._facade = facade
        self._facades = list(facades.values())
        try:
            with _patched(patches):
                result = self.invoke(c, tracer)
            if engine.lazy or engine.lazy_ints:
                _settled(result, 0)  # a lazy value returned: explored without them
            return result
        finally:
            engine.done = True
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


def _lazy_uniform(engine: _Engine, a: Any, b: Any) -> Any:
    """``uniform(a, b)`` as a :class:`~exactdp.audit.facade_monotone.LazyIncreasing` when
    the draw is lazy and ``a + (b - a) * u`` is non-decreasing in ``u`` for sure; else None
    (the caller computes the double)."""
    g = ff.affine_unit(a, b)
    mech = getattr(engine, "mech", None)  # (an engine of plain draws has neither)
    if g is None or getattr(engine, "probing", None) is not None or not getattr(mech, "lazy",
                                                                                False):
        return None
    return LazyIncreasing(engine.unit(), g)  # unit(): a LazyUnit on a live, lazy run


def _settled(value: Any, depth: int) -> None:
    """Escape (restart without lazy values) when ``value`` is, or holds in a tuple, list or
    dict, a lazy value: an output must be a value, not a draw still to be made."""
    if issubclass(type(value), LazyUnit):  # LazyInt, LazyIncreasing too
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
