"""The facades of ``random.Random`` and ``secrets``/``random.SystemRandom``: objects that
behave like them and turn each call into a draw of the audit's exploring source
(:mod:`exactdp.audit.facade_engine`).

``getrandbits(k)`` draws ``j`` on ``[0, 2**k)``; ``randrange``/``randint``/``choice``/
``shuffle`` (and ``secrets.randbelow``) draw on the number of options at once (the same law
as CPython's rejection sampling ``_randbelow``); ``random()`` draws ``j`` on ``[0, 2**53)``
and returns ``j / 2**53`` (:mod:`exactdp.audit.facade_floats`); ``uniform(a, b)`` is
CPython's ``a + (b - a) * random()``.
"""

from __future__ import annotations

import random
import secrets
import sys
from typing import Any

from exactdp.audit.bytecode import gettrace, settrace, untraced
from exactdp.audit.draw_native import C as _C
from exactdp.audit.facade_choices import choose, prepared
from exactdp.audit.facade_engine import _UNIT_EVENT, _Engine, _lazy_uniform
from exactdp.audit.facade_floats import FLOAT_BITS, as_unit_float, uniform_from
from exactdp.audit.facade_lazy import LazyInt, LazyUnit
from exactdp.trace import _EVENTS

__all__ = ["RandomFacade", "SecretsFacade"]


#: the code of ``random.Random.randrange``, which returns its ``_randbelow`` value (shifted)
_RANDRANGE_FN = getattr(random.Random.randrange, "__wrapped__", random.Random.randrange)
_RANDRANGE = _RANDRANGE_FN.__code__
_RANDINT_FN = getattr(random.Random.randint, "__wrapped__", random.Random.randint)
#: the module of the escape guards' forwarders (a name bound before the audit)
_GUARDS = "exactdp.audit.guarded_sources"
_getframe = sys._getframe


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
        frame = _getframe(1)
        caller = frame.f_globals.get("__name__", "")
        while caller == _GUARDS and frame.f_back is not None:
            frame = frame.f_back  # a name bound before the audit, forwarded by its guard
            caller = frame.f_globals.get("__name__", "")
        # the draw runs with tracing off (as untraced() would, inlined: once per draw)
        old = gettrace()
        if old is not None:
            settrace(None)
        try:
            if caller == "random" or caller.startswith("exactdp."):
                # Random's own methods (expovariate...) compute with the float
                return as_unit_float(self._engine.draw(1 << FLOAT_BITS))
            return self._engine.unit()
        finally:
            if old is not None:
                settrace(old)

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
        old = gettrace()
        if old is not None:
            settrace(None)
        try:
            if len(args) == 1 and not kwargs and type(args[0]) is int and args[0] > 0:
                return self._engine.integer(args[0])
            return _RANDRANGE_FN(self, *args, **kwargs)
        finally:
            if old is not None:
                settrace(old)

    def randint(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        old = gettrace()
        if old is not None:
            settrace(None)
        try:
            if len(args) == 2 and not kwargs and type(args[0]) is int \
                    and type(args[1]) is int and args[1] >= args[0]:
                return args[0] + self._engine.integer(args[1] - args[0] + 1)
            return _RANDINT_FN(self, *args, **kwargs)
        finally:
            if old is not None:
                settrace(old)

    def _randbelow(self, n: int) -> int:  # type: ignore[override]
        # randrange hands the value to the code (lazily); choice, shuffle... index with it
        return self._below(n, sys._getframe(1).f_code is _RANDRANGE)

    @untraced
    def _below(self, n: int, lazy: bool) -> Any:
        return self._engine.integer(n) if lazy else self._engine.draw(n)

    @untraced
    def choices(self, population: Any, weights: Any = None, *, cum_weights: Any = None,
                k: int = 1) -> list[Any]:
        """CPython's ``choices``, its ``random() * total`` compared exactly
        (:mod:`exactdp.audit.facade_choices`)."""
        cum, total = prepared(len(population), weights, cum_weights, k)
        return [choose(self._engine.unit(), population, cum, total) for _ in range(k)]

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


#: The Python methods ``random`` and ``randrange`` (the reference of the C ones, which call
#: them for every case they do not handle themselves).
PY_RANDOM, PY_RANDRANGE = RandomFacade.random, RandomFacade.randrange

if _C is not None:  # random() and randrange() in C: their common cases there, every other
    # call the methods above (exactdp.audit.draw_native)
    _C.setup_random(RandomFacade.random, LazyUnit, _EVENTS, _UNIT_EVENT,
                    1 << FLOAT_BITS, _GUARDS)
    _C.setup_integer(RandomFacade.randrange, LazyInt)
    RandomFacade.random = SecretsFacade.random = _C.as_method(_C.random)  # type: ignore
    RandomFacade.randrange = _C.as_method(_C.randrange)  # type: ignore[method-assign]
