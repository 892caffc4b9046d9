"""The draw engine behind the randomness facades: each facade call is a draw of ``j``
uniform on ``[0, n)`` of the audit's exploring source.

A draw with ``n <= exact_limit`` branches exactly, ``n`` ways.  A larger draw is explored
through its *effect* (:meth:`_Engine.effect`: the rest of the run with this draw forced to
``j`` and the later draws at ``0``, at their maximum or pseudo-random -- *probes*); the
breakpoint search over those effects is :class:`~exactdp.audit.facades.FacadeMechanism`'s,
and its pieces are drawn here as one inverse-CDF draw (:class:`_PieceDraw`).  ``random()``
values and integer draws are handed out lazily on a live run
(:mod:`exactdp.audit.facade_lazy`) until one is used otherwise than compared.  The facades
of ``random``/``secrets`` (:mod:`exactdp.audit.facade_random`) and numpy
(:mod:`exactdp.audit.facade_numpy`) draw only through this engine, so they model each call's
draw the same way.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from exactdp import explore as _explore
from exactdp.audit import facade_floats as ff
from exactdp.audit.bytecode import suspended
from exactdp.audit.draw_native import C as _C
from exactdp.audit.facade_floats import FLOAT_BITS, as_unit_float
from exactdp.audit.facade_lazy import (
    BRANCH,
    COIN,
    LazyInt,
    LazyUnit,
    Parts,
    _set_cell,
    _set_ctx,
    _set_offset,
    context,
)
from exactdp.audit.facade_monotone import LazyIncreasing
from exactdp.explore import (
    ExplorationLimitError,
    ExploringSource,
    NondeterminismError,
    RestartExploration,
)
from exactdp.randomness import RandomSource
from exactdp.trace import active, pause, resume

if TYPE_CHECKING:
    from exactdp.audit.facades import FacadeMechanism

__all__ = ["BUDGET_EVERY", "ESCAPED_NOTE", "EXACT_LIMIT", "GRID", "LAZY_NOTE", "MAX_PIECES",
           "PROBE_MAX_DRAWS", "SPOT_CHECKS", "FacadeRefusal"]

#: Notes (among the large draws' notes, which workers send back) that a random() value was
#: handed out lazily, and that one escaped (:mod:`exactdp.audit.facade_lazy`).
LAZY_NOTE, ESCAPED_NOTE = "(lazy random() values)", "(a lazy random() value escaped)"
_new = object.__new__
if _C is not None:  # the exploring source's coin, as the C comparisons call it
    _C.setup_exploring(ExploringSource, ExploringSource.explore_coin, vars(_explore),
                       _explore.REDUCE_BITS)
#: The trace event of a ``random()`` draw (one tuple, shared).
_UNIT_EVENT = ("uniform", 1 << FLOAT_BITS)
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


class _Context:
    """An engine's context of lazy values, made on its first read and kept in the
    instance (a non-data descriptor: the instance's attribute is read from then on, by the
    Python draws and the C ones alike)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, engine: Any, owner: type | None = None) -> Any:
        if engine is None:
            return self
        return engine._context(self.name)


class _Engine:
    """The draws of one live run of ``fn(c, facade)`` and its probes."""

    _units = _Context()  # the context of this run's lazy random() values
    _ints = _Context()  # and of its lazy integer draws

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
        self._done = False
        #: the source's event-free coin (the exploring source's, through the audit's
        #: guarded source), for a comparison's two parts
        self._coin = getattr(source, "explore_coin", None)
        self._two = self._coin if self._coin is not None else self._coin_drawn
        # The contexts of this run's lazy random() values and integer draws
        # (:func:`~exactdp.audit.facade_lazy.context`), ``_units`` and ``_ints``, are made
        # when the first value is handed out (:class:`_Context`): they hold the engine's
        # methods, and a run that hands out none leaves no cycle behind (its engine,
        # facade and sources are freed when it ends, not by the garbage collector).

    def _context(self, name: str) -> list[Any]:
        """The context ``name`` (``"_units"`` or ``"_ints"``), made now."""
        ctx = context(1 << FLOAT_BITS, self._branch, self.escape, self._two) \
            if name == "_units" else context(1, self._branch, self._escape_int, self._two)
        if self._done:  # (a value handed out after the run: it escapes when used)
            ctx[COIN], ctx[BRANCH] = self._after, self._after
        self.__dict__[name] = ctx  # (read from the instance from now on)
        return ctx

    def finish(self) -> None:
        """The run is over: a lazy value of it compared from now on escapes.  The engine
        lets go of its contexts (the lazy values hold them, and they hold the engine's
        methods): a run that handed out lazy values leaves no cycle either, and is freed
        when it ends; a context read later is made anew, escaping."""
        self._done = True
        made = self.__dict__
        if "_units" in made or "_ints" in made:  # (none made: no lazy value handed out)
            for name in ("_units", "_ints"):
                ctx = made.pop(name, None)
                if ctx is not None:
                    ctx[COIN], ctx[BRANCH] = self._after, self._after

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
        mech = self.mech
        if self.probing is not None or not mech.lazy:
            return as_unit_float(self.draw(1 << FLOAT_BITS))
        events = active()  # the draw sequence, as an explored draw has it (record, inlined)
        if events is not None:
            events.append(_UNIT_EVENT)
        self.lazy += 1
        if not mech.lazy_used:
            mech.lazy_used = True
            mech._large.append(LAZY_NOTE)
        value = _new(LazyUnit)  # fresh(LazyUnit, [0, 2**53], self._units), inlined
        _set_cell(value, [0, 1 << FLOAT_BITS])
        _set_ctx(value, self._units)
        _set_offset(value, 0)
        return value

    def integer(self, n: int) -> Any:
        """``j`` uniform on ``[0, n)``: a :class:`LazyInt` when the mechanism allows it and
        this is a live run (:mod:`exactdp.audit.facade_lazy`), else :meth:`draw`'s int."""
        if self.probing is not None or not self.mech.lazy_ints or n < 2:
            return self.draw(n)
        events = active()  # the draw sequence, as an explored draw has it (record, inlined)
        if events is not None:
            events.append(("uniform", n))
        self.lazy_ints += 1
        value = _new(LazyInt)  # fresh(LazyInt, [0, n], self._ints), inlined
        _set_cell(value, [0, n])
        _set_ctx(value, self._ints)
        _set_offset(value, 0)
        return value

    def _escape_int(self, what: str) -> Any:
        return self.escape(what, unit=False, integer=True)

    def _after(self, *lengths: Any) -> Any:
        """A lazy value's coin or branch once the run is over."""
        return self.escape("used after the call that drew it returned")

    def _branch(self, lengths: tuple[int, ...]) -> int:
        if self._done:
            self.escape("used after the call that drew it returned")
        if len(lengths) == 2:
            return 0 if self._two(lengths[0], lengths[0] + lengths[1]) else 1
        token = pause()  # branching on a comparison is not a draw of the traced code
        try:
            return self.source.inverse_cdf(Parts(lengths))
        finally:
            resume(token)

    def _coin_drawn(self, num: int, den: int) -> bool:
        """The coin of a source without an event-free one: its ``bernoulli``, recording
        nothing (branching on a comparison is not a draw of the traced code)."""
        token = pause()
        try:
            return bool(self.source.bernoulli(num, den))
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


if _C is not None:  # draw(n)'s common case in C, for the facades' integer draws
    _C.setup_engine(_Engine)


def _key(value: Any) -> Hashable:
    try:
        hash(value)
    except TypeError:
        return ("unhashable", repr(value))
    return value  # type: ignore[no-any-return]



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
