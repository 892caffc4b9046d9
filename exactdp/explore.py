"""The exploring random source: exact output distributions of randomized code.

How the checker sees the implementation: a composite algorithm is written
once, as sampling code that draws through a :class:`~exactdp.randomness.RandomSource`.
:func:`explore` runs that same code under a branching source that takes every outcome of
every draw with its exact weight, re-running the code along each path (depth-first), and
sums the weights of the paths per output:

* ``uniform(d)`` branches ``d`` ways, weight ``1/d`` each (refused above ``max_uniform``);
* ``inverse_cdf(draw)`` branches once per output ``z`` in ``[0, draw.n]`` with
  ``F(z) > F(z-1)``, weight ``(F(z) - F(z-1)) / d`` -- never once per ``u``;
* ``bernoulli(num, den)`` branches twice, weights ``num/den`` and ``1 - num/den``;
* ``inverse_cdf_many(batch)`` branches on each of its draws as ``inverse_cdf`` does (the
  default of every source that overrides ``inverse_cdf``).

Every path re-runs the code from its start, so the same draw is usually met on many paths.
Each replayed draw is compared with the draw of the run the path branches from: it must
make the same request -- as many options, the same weights over the same denominator --
or :class:`NondeterminismError` is raised (naming the draw and both requests); a draw that
matches takes that run's record, weight included, with no arithmetic.
The options of an ``inverse_cdf`` draw (its outputs with ``F(z) > F(z-1)`` and their
masses) are computed once per :func:`explore` call for a draw with a key that determines
its CDF exactly: ``(type(draw), draw.explore_key)`` when its class defines
``explore_key`` (a hashable of every parameter its ``cdf`` depends on), otherwise, when
the draw is a *value* -- an instance of a frozen dataclass with ``eq`` whose class does
not set ``explore_cache = False`` (its CDF must be a function of its fields) --
``(type(draw), its compared fields)``: equal keys exactly when ``==`` says the draws are
equal.  The memo holds its keys (an unhashable field: not memoised), so an ``id`` is
never reused.  Any other draw, and every draw made while an operation trace is
being recorded (:func:`exactdp.trace.recording`: a ``cdf`` may record events), has its
CDF evaluated on every path, as before.  A replay that makes a different draw meets a
different key: the options offered are still those of the draw made, and
:class:`NondeterminismError` is raised as without the memo.

The result is exact: a ``dict`` from output to ``Fraction`` whose values sum to exactly 1
(checked).  Outputs must be hashable.  Budgets (``max_runs``, ``deadline_ns``, a per-path
``max_draws``) end an exploration that will not finish with
:class:`ExplorationIncomplete`: the exact weights of the paths finished, and their total.

>>> from exactdp.randomness import RandomSource
>>> def two_dice(src: RandomSource) -> int:
...     return src.uniform(2) + src.uniform(2)
>>> explore(two_dice)
{2: Fraction(1, 4), 3: Fraction(1, 2), 4: Fraction(1, 4)}
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import fields, is_dataclass
from fractions import Fraction
from functools import partial
from operator import attrgetter
from typing import Any, TypeVar

from exactdp.params import DomainError, ExactDPError, ResourceLimitError
from exactdp.randomness import (
    InverseCDFBatch,
    InverseCDFDraw,
    RandomSource,
    check_bernoulli,
    check_domain_size,
)
from exactdp.trace import active, record

#: The clock of budgets and deadlines, bound once: an audit replaces ``time.monotonic_ns``
#: by a guard (and a timing recorder) while the audited code runs, and the exploring
#: source reads this clock at every draw.
_now = time.monotonic_ns

__all__ = ["ExplorationIncomplete", "ExplorationLimitError", "ExploringSource",
           "NondeterminismError", "PathCut", "RestartExploration", "explore"]

T = TypeVar("T", bound=Hashable)

#: Default cap on ``d`` for a plain ``uniform(d)`` draw under exploration.
MAX_UNIFORM = 1 << 16
#: Default cap on the number of paths (re-runs of the code).
MAX_RUNS = 1 << 20
#: A path's weight ``num / den`` is reduced (one gcd) once ``den`` has more bits than this.
REDUCE_BITS = 1 << 12
#: At most this many draws have their options memoised per exploration (memory bound).
MAX_CACHED_DRAWS = 1 << 16
#: Most restarts (:class:`RestartExploration`) one exploration accepts.
MAX_RESTARTS = 8

#: The options of a draw: ``(d, outputs, masses)``, output ``outputs[j]`` of mass
#: ``masses[j] / d``, only the outputs of positive mass, in increasing order.
Options = tuple[int, tuple[int, ...], list[int]]

#: One draw of a path (:attr:`ExploringSource.log`): its number of options, the path's
#: weight ``num / den`` before it, the draw's denominator and its options' numerators (None:
#: 1 each).
Entry = tuple[int, int, int, int, list[int] | None]

#: Per draw class: the function giving the part of a draw's key after its class
#: (``attrgetter``: no Python frame), or None (not memoised).
_KEYERS: dict[type, Callable[[Any], Hashable] | None] = {}


def _keyer(cls: type) -> Callable[[Any], Hashable] | None:
    """How a draw of class ``cls`` is keyed (see the module docstring): by its
    ``explore_key``; or, for a frozen dataclass with ``eq`` that does not set
    ``explore_cache = False``, by the tuple of its compared fields -- what its ``==``
    compares (two draws have equal keys iff they are of one class and ``==``); else
    None."""
    if cls in _KEYERS:
        return _KEYERS[cls]
    params = getattr(cls, "__dataclass_params__", None)
    keyer: Callable[[Any], Hashable] | None = None
    if hasattr(cls, "explore_key"):
        keyer = attrgetter("explore_key")
    elif (is_dataclass(cls) and params is not None and params.frozen and params.eq
          and getattr(cls, "explore_cache", True)):
        names = tuple(f.name for f in fields(cls) if f.compare)
        keyer = attrgetter(*names) if len(names) > 1 else (
            (lambda draw: ()) if not names else (lambda draw, n=names[0]: (getattr(draw, n),)))
    _KEYERS[cls] = keyer
    return keyer


def _draw_key(draw: Any) -> Hashable | None:
    """The key under which a draw's options are memoised, or None (not memoised): see the
    module docstring (:meth:`ExploringSource.inverse_cdf` asks only when no operation trace
    is being recorded)."""
    cls = type(draw)
    keyer = _KEYERS.get(cls, _keyer)
    if keyer is _keyer:
        keyer = _keyer(cls)
    return None if keyer is None else (cls, keyer(draw))


def _options(draw: Any, d: int) -> Options:
    """The outputs of positive mass of ``draw`` and their masses over ``d`` (``F`` checked:
    a non-decreasing integer CDF with ``F(n) = d``)."""
    outputs: list[int] = []
    masses: list[int] = []
    prev = 0
    cdf = draw.cdf
    for z in range(draw.n + 1):
        f = cdf(z)
        if f < prev or f > d:
            raise DomainError(f"inverse_cdf: F({z}) = {f} is not in [F({z - 1}) = {prev}, "
                              f"d = {d}]; F must be a non-decreasing integer CDF")
        if f > prev:
            outputs.append(z)
            masses.append(f - prev)
        prev = f
    if prev != d:
        raise DomainError(f"inverse_cdf: F({draw.n}) = {prev} differs from d = {d}")
    return d, tuple(outputs), masses


def _gcd(a: int, b: int) -> int:
    """``gcd(a, b)`` for ints ``a >= 0``, ``b > 0``; when ``b`` is a power of two (the
    denominators of ``random()`` draws and their products), the power of two dividing ``a``
    (at most ``b``) -- two bit operations instead of a gcd of numbers of thousands of
    bits."""
    if b & (b - 1) or a <= 0:
        return math.gcd(a, b)
    return min(a & -a, b)  # a & -a: 2 ** (the number of trailing zero bits of a)


def _reduced(num: int, den: int) -> tuple[int, int]:
    """``num / den`` in lowest terms (a path's weight, once ``den`` passes
    :data:`REDUCE_BITS` bits)."""
    g = _gcd(num, den)
    return num // g, den // g


class ExplorationLimitError(ResourceLimitError):
    """The exploration would branch more than allowed."""


class ExplorationIncomplete(ExplorationLimitError):
    """The exploration stopped at its budget (``max_runs`` or ``deadline_ns``), or finished
    with some paths cut off (``max_draws``).

    ``partial`` holds the exact weights of the paths finished, ``covered`` their total (the
    probability mass explored, exact), ``runs`` the paths run, ``cut`` the paths cut off at
    ``max_draws`` (their mass, with that of the paths never run, is the uncovered
    ``1 - covered``), ``reason`` what stopped it: ``"runs"``, ``"deadline"`` or ``"draws"``
    (every path run, some cut off)."""

    def __init__(self, message: str, partial: dict[Any, Fraction], covered: Fraction,
                 runs: int, cut: int = 0, reason: str = "runs") -> None:
        super().__init__(message)
        self.partial, self.covered, self.runs, self.cut = partial, covered, runs, cut
        self.reason = reason


class PathCut(ExplorationLimitError):
    """Raised by a draw of :class:`ExploringSource` past its ``max_draws`` or its
    ``deadline_ns``: :func:`explore` counts the path's mass so far as uncovered and goes on
    (code that swallows it meets it again at its next draw)."""


class RestartExploration(ExplorationLimitError):
    """Raised by the explored code's randomness (a facade that found it must draw another
    way, :mod:`exactdp.audit.facades`): :func:`explore` discards every path so far and
    starts again from the first (at most :data:`MAX_RESTARTS` times); the runs made still
    count against ``max_runs``."""


class NondeterminismError(ExactDPError, RuntimeError):
    """The explored code did not replay the same draws along the same path."""


class ExploringSource(RandomSource):
    """One path of the exploration: replays ``prefix`` choices, then takes choice 0 -- or,
    with a ``chooser``, a choice drawn with the options' exact weights from that
    (deterministically seeded) generator, so that a path after a cut-off one ends as
    often as the code does.

    After a run, ``sizes[i]`` is the number of options at draw ``i``, ``choices[i]`` the
    option index taken, ``weight`` the exact probability of the path (a ``Fraction``),
    ``before[i] = (num, den)`` the weight ``num / den`` of the path before draw ``i`` and
    ``masses[i] = (den, numerators or None)`` the weights of draw ``i``'s options
    (``numerator / den``; None: ``1 / den`` each).  (Kept as one record per draw,
    ``log[i] = (size, num, den, draw's den, numerators or None)``; ``sizes``, ``before``
    and ``masses`` read it.)

    The path's weight is kept as a pair of ints ``(num, den)``, multiplied by each draw's
    ``(mass, d)`` without reducing (a ``Fraction`` product pays a gcd per draw); the pair is
    reduced by one gcd only once ``den`` passes :data:`REDUCE_BITS` bits, and read as the
    exact ``Fraction`` ``num / den`` by :attr:`weight` -- the same value either way.
    """

    def __init__(self, prefix: tuple[int, ...] = (), max_uniform: int = MAX_UNIFORM,
                 max_draws: int | None = None, deadline_ns: int | None = None,
                 chooser: random.Random | None = None,
                 memo: dict[Hashable, Options] | None = None, weigh: bool = True,
                 recorded: list[Entry] | None = None) -> None:
        self.prefix = prefix
        #: the draws of a run that took the same choices over ``prefix`` (its :attr:`log`):
        #: a replayed draw must make the same request (options, their weights and
        #: denominator) as there -- then its entry is that run's, with no product of big
        #: integers -- else :attr:`mismatch` is set (:func:`explore` raises
        #: :class:`NondeterminismError`, :mod:`exactdp.audit.replay` reports it)
        self.recorded = recorded if prefix else None
        #: the first replayed draw whose request differed from ``recorded``'s, or None
        self.mismatch: int | None = None
        #: False: the path's weight is not kept (``num / den`` stays 1, ``before`` is not
        #: the weight): a re-run that compares only the choices and draws it makes
        #: (:mod:`exactdp.audit.replay`), with no product of big integers per draw
        self.weigh = weigh
        #: the options of value draws, shared by the paths of one exploration
        self.memo: dict[Hashable, Options] = {} if memo is None else memo
        self.max_uniform = max_uniform
        self.max_draws, self.deadline_ns, self.chooser = max_draws, deadline_ns, chooser
        self._budgeted = max_draws is not None or deadline_ns is not None
        self._replayed = len(prefix)
        self.choices: list[int] = []
        #: per draw: (options, path weight's num and den before it, its den, numerators)
        self.log: list[Entry] = []
        self.num, self.den = 1, 1

    @property
    def sizes(self) -> list[int]:
        return [e[0] for e in self.log]

    @property
    def before(self) -> list[tuple[int, int]]:
        return [(e[1], e[2]) for e in self.log]

    @property
    def masses(self) -> list[tuple[int, list[int] | None]]:
        return [(e[3], e[4]) for e in self.log]

    @property
    def weight(self) -> Fraction:
        """The exact probability of the path so far, ``num / den``."""
        return Fraction(self.num, self.den)

    def _choose(self, size: int, den: int, masses: list[int] | None) -> int:
        if self.chooser is None:
            return 0
        r = self.chooser.randrange(den)  # an exact integer draw: option j w.p. masses[j]/den
        if masses is None:
            return r
        for j, m in enumerate(masses):
            if r < m:
                return j
            r -= m
        raise AssertionError("option weights do not sum to their denominator")

    def check_budget(self) -> None:
        """Raise :class:`PathCut` if the next draw would pass ``max_draws`` or the deadline
        has passed (also called by work done for a draw before it is made, such as a
        facade's breakpoint search, :mod:`exactdp.audit.facades`)."""
        if self.max_draws is not None and len(self.choices) >= self.max_draws:
            raise PathCut(f"a path made more than {self.max_draws} draws (max_draws)")
        if self.deadline_ns is not None and _now() > self.deadline_ns:
            raise PathCut("a path was still drawing at the deadline")

    def _take(self, size: int, den: int, masses: list[int] | None = None) -> int:
        """The option taken at the next draw (``size`` options of weights ``masses[j] /
        den``, or ``1 / den`` each when ``masses`` is None); records the draw and
        multiplies the path's weight by the option's."""
        choices = self.choices
        i = len(choices)
        if self._budgeted and (  # (check_budget's test inlined: it raises which cut)
                (self.max_draws is not None and i >= self.max_draws)
                or (self.deadline_ns is not None and _now() > self.deadline_ns)):
            self.check_budget()
        if i < self._replayed:
            idx = self.prefix[i]
            recorded = self.recorded
            if recorded is not None:
                entry = recorded[i]
                if entry[0] == size and entry[3] == den and entry[4] == masses:
                    choices.append(idx)
                    self.log.append(entry)
                    if i + 1 == self._replayed:
                        self._enter(entry, idx)
                    return idx
                if self.mismatch is None:
                    self.mismatch = i
        else:
            idx = 0 if self.chooser is None else self._choose(size, den, masses)
        return self._record(i, idx, size, den, masses)

    def _record(self, i: int, idx: int, size: int, den: int, masses: list[int] | None) -> int:
        """Take option ``idx`` at draw ``i``: record it, weigh the path by it."""
        if idx >= size:
            raise NondeterminismError(
                f"draw {i} offered {size} options on replay, fewer than before; the explored "
                f"code must be a deterministic function of its draws")
        self.choices.append(idx)
        num, wden = self.num, self.den
        self.log.append((size, num, wden, den, masses))
        if not self.weigh:
            return idx
        # times masses[idx] / den, unreduced: one gcd only once den passes REDUCE_BITS bits
        num, wden = (num if masses is None else num * masses[idx]), wden * den
        if wden.bit_length() > REDUCE_BITS:
            num, wden = _reduced(num, wden)
        self.num, self.den = num, wden
        return idx

    def _enter(self, entry: Entry, idx: int) -> None:
        """The path's weight after its last replayed draw ``entry`` (option ``idx``): the
        weight before it, recorded, times the option's."""
        if not self.weigh:
            return
        masses = entry[4]
        num, wden = (entry[1] if masses is None else entry[1] * masses[idx]), \
            entry[2] * entry[3]
        if wden.bit_length() > REDUCE_BITS:
            num, wden = _reduced(num, wden)
        self.num, self.den = num, wden

    def uniform(self, d: int) -> int:
        if type(d) is not int or d < 1:
            check_domain_size(d)  # raises (an int subclass >= 1 passes, as there)
        events = active()  # record("uniform", d), inlined
        if events is not None:
            events.append(("uniform", d))
        if d > self.max_uniform:
            raise ExplorationLimitError(
                f"uniform({d}) under exploration would branch {d} ways (limit "
                f"{self.max_uniform}); draw through inverse_cdf or bernoulli instead")
        # (_take(d, d) + 1, inlined: made once per draw of the explored code)
        choices = self.choices
        i = len(choices)
        if self._budgeted and (  # (check_budget's test inlined: it raises which cut)
                (self.max_draws is not None and i >= self.max_draws)
                or (self.deadline_ns is not None and _now() > self.deadline_ns)):
            self.check_budget()
        if i < self._replayed:
            idx = self.prefix[i]
            recorded = self.recorded
            if recorded is not None:
                entry = recorded[i]
                if entry[0] == d and entry[3] == d and entry[4] is None:
                    choices.append(idx)
                    self.log.append(entry)
                    if i + 1 == self._replayed:
                        self._enter(entry, idx)
                    return idx + 1
                if self.mismatch is None:
                    self.mismatch = i
        elif self.chooser is not None:
            idx = self._choose(d, d, None)
        else:
            choices.append(0)  # (_record of option 0, inlined)
            wnum, wden = self.num, self.den
            self.log.append((d, wnum, wden, d, None))
            if self.weigh:
                wden *= d
                if wden.bit_length() > REDUCE_BITS:
                    wnum, wden = _reduced(wnum, wden)
                self.num, self.den = wnum, wden
            return 1
        return self._record(i, idx, d, d, None) + 1

    def inverse_cdf(self, draw: InverseCDFDraw) -> int:
        d = draw.d
        events = active()
        key = None
        if events is not None:  # record("uniform", d); a cdf may record events: no memo
            events.append(("uniform", d))
        else:
            key = _draw_key(draw)
        entry = None
        if key is not None:
            try:
                entry = self.memo.get(key)
            except TypeError:  # a field is unhashable: not memoised
                key = None
        if entry is None or entry[0] != d:
            entry = _options(draw, d)
            if key is not None and len(self.memo) < MAX_CACHED_DRAWS:
                self.memo[key] = entry
        outputs, masses = entry[1], entry[2]
        return outputs[self._take(len(outputs), d, masses)]

    def inverse_cdf_many(self, batch: InverseCDFBatch) -> list[int]:
        """:meth:`inverse_cdf` on each draw of the batch, in order (what the default does for
        a source that overrides :meth:`inverse_cdf`, without its per-call dispatch)."""
        draw, one = batch.draw, self.inverse_cdf
        return [one(draw(i)) for i in range(len(batch))]

    def explore_coin(self, num: int, den: int) -> bool:
        """``bernoulli(num, den)`` for plain ints ``0 < num < den``, recording no event: a
        branch the caller makes for itself (:mod:`exactdp.audit.facade_lazy`'s
        comparisons), not a draw of the traced code.  (:meth:`_take` of the two options
        ``[num, den - num]``, inlined: made once per comparison of the explored code.)"""
        choices = self.choices
        i = len(choices)
        if self._budgeted and (  # (check_budget's test inlined: it raises which cut)
                (self.max_draws is not None and i >= self.max_draws)
                or (self.deadline_ns is not None and _now() > self.deadline_ns)):
            self.check_budget()
        if i < self._replayed:
            idx = self.prefix[i]
            recorded = self.recorded
            if recorded is not None:
                entry = recorded[i]
                masses = entry[4]
                if entry[0] == 2 and masses is not None and entry[3] == den \
                        and masses[0] == num and masses[1] == den - num:
                    choices.append(idx)
                    self.log.append(entry)
                    if i + 1 == self._replayed:
                        self._enter(entry, idx)
                    return idx == 0
                if self.mismatch is None:
                    self.mismatch = i
            return self._record(i, idx, 2, den, [num, den - num]) == 0
        if self.chooser is not None:
            masses = [num, den - num]
            return self._record(i, self._choose(2, den, masses), 2, den, masses) == 0
        choices.append(0)  # (_record of option 0, inlined)
        wnum, wden = self.num, self.den
        self.log.append((2, wnum, wden, den, [num, den - num]))
        if self.weigh:
            wnum *= num
            wden *= den
            if wden.bit_length() > REDUCE_BITS:
                wnum, wden = _reduced(wnum, wden)
            self.num, self.den = wnum, wden
        return True

    def bernoulli(self, num: int, den: int) -> bool:
        if type(num) is not int or type(den) is not int or not 0 < num < den:
            check_bernoulli(num, den)  # raises, or a coin with one side (or int subclasses)
        else:  # the common case: two sides, plain ints
            events = active()  # record("uniform", den), inlined
            if events is not None:
                events.append(("uniform", den))
            return self._take(2, den, [num, den - num]) == 0
        record("uniform", den)
        options = [(v, w) for v, w in ((True, num), (False, den - num)) if w > 0]
        return options[self._take(len(options), den, [w for _, w in options])][0]


#: A prefix to run: its choices, its exact weight as an unreduced pair ``(num, den)``, and
#: the draws of the run it branches from (:attr:`ExploringSource.recorded`).
Pending = tuple[tuple[int, ...], tuple[int, int], list[Entry]]


def _push_alternatives(src: ExploringSource, start: int,
                       push: Callable[[Pending], None]) -> None:
    """``push((prefix, (num, den), src.log))`` for every prefix taking another option at a
    draw ``i >= start`` of the path ``src`` ran (with its exact weight as an unreduced
    pair): draw by draw, and at each draw the last option first."""
    choices, log = src.choices, src.log
    path = tuple(choices)
    for i in range(start, len(choices)):
        size, num, den, draw_den, masses = log[i]
        if size == 1:
            continue
        base, taken = path[:i], choices[i]
        den *= draw_den
        for j in range(size - 1, -1, -1):
            if j != taken:
                push((base + (j,), (num, den) if masses is None else (num * masses[j], den),
                      log))


def _push_heaviest(heap: list[tuple[Fraction, int, Pending]], order: Iterator[int],
                   alt: Pending) -> None:
    """Push a pending prefix on the heap of :func:`explore` (heaviest first, then FIFO)."""
    heapq.heappush(heap, (-Fraction(*alt[1]), next(order), alt))


def _mismatch(src: ExploringSource) -> str:
    """What a replayed draw of ``src`` requested otherwise than the run it replays."""
    i = src.mismatch
    assert i is not None and src.recorded is not None
    size, _, _, den, masses = src.recorded[i]
    now = (f"{src.log[i][0]} options of weights {_weights(src.log[i][4], src.log[i][0])} / "
           f"{src.log[i][3]}" if i < len(src.log) else "other options")
    return (f"draw {i} offered {now} on replay, {size} of weights "
            f"{_weights(masses, size)} / {den} before; the explored code must be a "
            f"deterministic function of its draws")


def _weights(masses: list[int] | None, size: int) -> str:
    shown = ", ".join(map(str, masses[:4])) + (", ..." if len(masses) > 4 else "") \
        if masses is not None else f"1 each ({size})"
    return f"[{shown}]"


def _sum(parts: dict[int, int]) -> Fraction:
    """``sum(num / den)`` over ``parts = {den: num}``, exactly: over the least common
    denominator ``low`` of the parts seen so far (one gcd per part), reduced once (by the
    power of two dividing ``top`` when ``low`` is a power of two, :func:`_gcd`)."""
    top, low = 0, 1
    for den, num in parts.items():
        if not (den & (den - 1) or low & (low - 1)):  # powers of two: the lcm is the larger,
            shift = den.bit_length() - low.bit_length()  # the products shifts (linear in
            if shift >= 0:  # their bits, where a product and a quotient of numbers of
                top = (top << shift) + num  # thousands of bits are not)
                low = den
            else:
                top += num << -shift
            continue
        g = _gcd(low, den)
        m = den // g  # lcm(low, den) = low * m
        top = top * m + num * (low // g)
        low *= m
    if low & (low - 1):
        return Fraction(top, low)
    g = _gcd(top, low)  # a power of two: lowest terms without Fraction's own gcd
    out = object.__new__(Fraction)
    out._numerator, out._denominator = top // g, low // g  # type: ignore[attr-defined]
    return out


def explore(fn: Callable[[RandomSource], T], *, max_uniform: int = MAX_UNIFORM,
            max_runs: int = MAX_RUNS, deadline_ns: int | None = None,
            progress: Callable[[int, Fraction], None] | None = None,
            max_draws: int | None = None, path_ns: int | None = None) -> dict[T, Fraction]:
    """The exact output distribution of ``fn(source)`` over all paths of its draws.

    Past ``max_runs`` paths, or once :func:`time.monotonic_ns` passes ``deadline_ns``,
    raises :class:`ExplorationIncomplete` with the paths finished so far; ``progress(runs,
    covered)`` is called about once a second (``covered``: the exact mass explored).
    A path whose draw would be its ``max_draws + 1``-th, or that draws past ``deadline_ns``
    or more than ``path_ns`` nanoseconds after it began (checked at every draw: a path that
    never returns is stopped too; past ``deadline_ns`` the exploration stops), is cut off
    (:class:`PathCut`): its mass so far -- the product of the weights of its draws, exact --
    is not covered, the alternatives of its draws are still explored, and the exploration
    ends with :class:`ExplorationIncomplete` (``cut`` > 0) instead of a result.  After the
    first cut (never otherwise: a complete exploration is unchanged), the pending prefixes
    are run heaviest first, each ending with choices drawn with their exact weights by
    ``random.Random(run number)`` (reproducible) instead of choice 0: code whose choice-0
    ending never returns (``while uniform(2) == 1``) still finishes paths, and the mass
    covered grows as fast as the heaviest prefixes allow."""
    # The mass of each output, and the mass covered, as {den: sum of num} over the paths'
    # unreduced weights num/den (paths share few denominators: integer sums, one Fraction
    # sum per denominator at the end).
    dist: dict[T, dict[int, int]] = {}
    covered: dict[int, int] = {}
    stack: list[Pending] = [((), (1, 1), [])]
    heap: list[tuple[Fraction, int, Pending]] = []  # after a cut: heaviest first
    runs = cut = 0
    memo: dict[Hashable, Options] = {}  # options of value draws, shared by every path
    order = itertools.count()
    report_at = _now() + 10**9
    restarts = 0
    while stack or heap:
        prefix, _, recorded = stack.pop() if not cut else heapq.heappop(heap)[2]
        runs += 1
        now = _now() if deadline_ns is not None or progress is not None else 0
        if runs > max_runs or (deadline_ns is not None and now > deadline_ns):
            why = f"more than {max_runs} runs" if runs > max_runs else "its time budget"
            raise ExplorationIncomplete(f"exploration needs {why} (stopped after {runs - 1} "
                                        f"paths)", _sums(dist), _sum(covered), runs - 1, cut,
                                        "runs" if runs > max_runs else "deadline")
        if progress is not None and now >= report_at:
            progress(runs - 1, _sum(covered))
            report_at = now + 10**9
        end = deadline_ns
        if path_ns is not None:
            path_end = _now() + path_ns
            end = path_end if end is None else min(end, path_end)
        src = ExploringSource(prefix, max_uniform, max_draws, end,
                              random.Random(runs) if cut else None, memo, recorded=recorded)
        try:
            out = fn(src)
            finished = True
        except RestartExploration as exc:
            restarts += 1
            if restarts > MAX_RESTARTS:
                raise ExplorationLimitError(f"the exploration restarted more than "
                                            f"{MAX_RESTARTS} times ({exc})") from None
            dist, covered, heap, cut, memo = {}, {}, [], 0, {}
            stack = [((), (1, 1), [])]
            continue
        except PathCut:  # cut even during the replay (path_ns): its prefix's mass uncovered
            finished = False
            if deadline_ns is not None and _now() > deadline_ns:
                raise ExplorationIncomplete(f"exploration needs its time budget (stopped "
                                            f"during path {runs})", _sums(dist), _sum(covered),
                                            runs - 1, cut, "deadline") from None
            if not cut:  # from now on: the heaviest pending prefix first, random endings
                heap = [(-Fraction(*e[1]), k, e) for k, e in enumerate(stack)]
                heapq.heapify(heap)
                stack = []
            cut += 1
        else:
            num, den = src.num, src.den
            covered[den] = covered.get(den, 0) + num
            parts = dist.setdefault(out, {})
            parts[den] = parts.get(den, 0) + num
        if src.mismatch is not None:
            raise NondeterminismError(_mismatch(src))
        if len(src.choices) < len(prefix) and finished:
            raise NondeterminismError(
                f"a replayed path made {len(src.choices)} draws, fewer than the "
                f"{len(prefix)} it made before")
        if cut:
            _push_alternatives(src, len(prefix), partial(_push_heaviest, heap, order))
        else:
            _push_alternatives(src, len(prefix), stack.append)
    if cut:
        raise ExplorationIncomplete(f"{cut} of {runs} paths were cut off at {max_draws} "
                                    f"draws (max_draws) or {path_ns} ns (path_ns)",
                                    _sums(dist), _sum(covered), runs, cut, "draws")
    # the masses as pairs, not a dict: each output is hashed once more, by _ordered
    pairs = [(out, _sum(parts)) for out, parts in dist.items()]
    masses: dict[int, int] = {}  # the masses' exact sum, over their least common denominator
    for _, p in pairs:
        masses[p.denominator] = masses.get(p.denominator, 0) + p.numerator
    total = _sum(masses)
    if total != 1:
        raise NondeterminismError(f"explored path weights sum to {total}, not 1")
    return _ordered(pairs)


def _exact_keys(outs: list[Any]) -> list[Any] | None:
    """Integer sort keys in the order of ``outs`` themselves, or None: when every output is
    an int or a ``Fraction`` (exact types, not ``bool``), or every output is a tuple of
    them, each entry ``x`` at position ``i`` becomes ``x * L_i`` -- an int, ``L_i`` the
    least common denominator of the entries at position ``i`` -- a strictly increasing map
    per position, so keys compare (``<``, ``==``, lexicographically, by length) exactly as
    the outputs do, without a ``Fraction`` comparison per step of the sort."""
    exact = (int, Fraction)
    if all(type(o) in exact for o in outs):
        low = math.lcm(*[o.denominator for o in outs])
        return [o.numerator * (low // o.denominator) for o in outs]
    if not all(type(o) is tuple for o in outs):
        return None
    lows: list[int] = []
    for o in outs:
        for i, x in enumerate(o):
            if type(x) not in exact:
                return None
            if i == len(lows):
                lows.append(1)
            d = x.denominator
            if d != 1:
                lows[i] = math.lcm(lows[i], d)
    return [tuple([x.numerator * (lows[i] // x.denominator) for i, x in enumerate(o)])
            for o in outs]


def _ordered(pairs: list[tuple[T, Fraction]]) -> dict[T, Fraction]:
    """The law as a dict, sorted by output when outputs are naturally ordered, in the order
    found otherwise (``sorted`` raised ``TypeError``).  Outputs of ints, ``Fraction``s or
    tuples of them are sorted by :func:`_exact_keys` (the same order)."""
    keys = _exact_keys([out for out, _ in pairs])
    if keys is not None:
        return dict([pairs[i] for i in sorted(range(len(pairs)), key=keys.__getitem__)])
    try:
        return dict(sorted(pairs))  # type: ignore[type-var]
    except TypeError:  # outputs without a natural order keep the order found
        return dict(pairs)


def _sums(dist: dict[T, dict[int, int]]) -> dict[T, Fraction]:
    """Each output's exact mass from its ``{den: num}`` parts (in the order found)."""
    return {out: _sum(parts) for out, parts in dist.items()}
