"""``random()`` values and integer draws handed out lazily: branched exactly on each
comparison the code makes.

The commonest use of ``random()`` in a mechanism is a comparison with a number,
``random() < p``.  Rather than searching the effect of all ``2**53`` values of the draw
(:mod:`exactdp.audit.facades`: probes re-running the code, assumed piecewise constant), a
facade hands the code a :class:`LazyUnit`: the value ``j / 2**53`` with ``j`` not yet
chosen, only known to lie in an interval ``[lo, hi)`` (at first ``[0, 2**53)``).  Each
comparison with an exact number ``x`` (an int, a float, a ``Fraction``) splits the interval
where the answer changes -- ``j < x * 2**53`` is ``j < ceil(x * 2**53)`` -- and the exploring
source branches over the parts, each weighted by its length over the interval's, exactly.
A path is then the sequence of answers, and its weight the exact probability that a
uniform ``j`` gives them all.

Integer draws (``randrange(n)``, ``randint(a, b)``, ``secrets.randbelow(n)``) are handed
out the same way as a :class:`LazyInt`: the value ``a + j``, ``j`` uniform on ``[0, n)``,
compared like a ``random()`` value; adding or subtracting an int gives the value shifted
(the same draw: ``randint(a, b)`` is ``a + randbelow(b - a + 1)`` inside ``random``).
Code that compares its noise (``u = randrange(4); 0 if u < 2 else 1 if u == 2 else -1``)
then runs three paths per draw instead of four, and a draw on ``[0, 1000)`` compared once
runs two.

**Why this is exact.**  If the value is only ever compared, the rest of the run is a
function of the answers (and of the other draws): every ``j`` left in the final interval
gives the same run.  Any other use -- arithmetic (other than an int added to an integer
draw), a conversion (``float``, ``int``, ``round``, ``index``: a list subscript; C code such
as ``math.log`` converts through ``__float__``), hashing, printing,
an ``isinstance`` check, an attribute, a comparison with another random value or with a
non-number -- is caught (every such operation of the object is intercepted) and the
exploration restarts with plain values, as without this
(:class:`~exactdp.explore.RestartExploration`).  What is not intercepted: ``type(value)``
(a ``LazyUnit`` or ``LazyInt``, not ``float`` or ``int``) and identity (``is``); code that
branches on either is outside this exploration.

The comparisons with an int or a finite float, and the exploring source's coin behind them,
run in C where the optional extension is built (:mod:`exactdp.audit.draw_native`: the base
class of :class:`LazyUnit`); the Python code here is the reference, used otherwise, and the
tests compare the two.
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Callable
from typing import Any

from exactdp.audit.bytecode import gettrace, settrace, untraced
from exactdp.audit.draw_native import C as _C

__all__ = ["BRANCH", "COIN", "ESCAPE", "SCALE", "LazyInt", "LazyUnit", "Parts", "context", "fresh"]


class Parts:
    """An inverse-CDF draw over the parts of an interval: output ``i`` has mass
    ``lengths[i]`` out of ``d = sum(lengths)`` (parts of length 0 are never taken)."""

    def __init__(self, lengths: tuple[int, ...]) -> None:
        self.lengths = lengths
        self._ends = [sum(lengths[:i + 1]) for i in range(len(lengths))]

    @property
    def n(self) -> int:
        return len(self.lengths) - 1

    @property
    def d(self) -> int:
        return self._ends[-1]

    def cdf(self, z: int) -> int:
        return self._ends[z] if z >= 0 else 0

    def search(self, u: int) -> int:
        return next(i for i, e in enumerate(self._ends) if u <= e)


def _exact(other: Any) -> tuple[int, int] | float | None:
    """``other`` as an exact ratio ``(num, den)``, ``den > 0``, an infinite or NaN float,
    or None (not a plain number: the comparison is an escape)."""
    if type(other) is LazyUnit or type(other) is LazyInt:
        return None
    if isinstance(other, float):
        try:
            return other.as_integer_ratio()
        except (ValueError, OverflowError):  # nan, or an infinity: answered without j
            return other
    if isinstance(other, numbers.Rational):
        return int(other.numerator), int(other.denominator)
    return None


#: the largest finite float (a float within +-this is finite and not nan)
_MAX_FLOAT = sys.float_info.max

#: The parts of a value's context (:func:`context`), shared by the values of one run: the
#: value's scale (``j / scale``), the event-free coin ``coin(num, den)`` (True: the part
#: of length ``num`` out of ``den``), the branch over several parts ``branch(lengths)``
#: (the index of the part taken) and ``escape(what)``.
SCALE, COIN, BRANCH, ESCAPE = range(4)


def context(scale: int, branch: Callable[[tuple[int, ...]], int], escape: Callable[[str], Any],
            coin: Callable[[int, int], bool] | None = None) -> list[Any]:
    """A lazy value's context: a list (the facade's engine replaces its coin and branch
    when its run is over, for every value of the run at once); ``coin`` defaults to
    ``branch`` over two parts."""
    if coin is None:
        def coin(num: int, den: int) -> bool:
            return branch((num, den - num)) == 0
    return [scale, coin, branch, escape]


_new = object.__new__


def _ordered(op: str, ceiling: bool, answer: bool) -> Callable[[Any, Any], bool]:
    """``self OP other`` for ``OP`` in ``<, <=, >, >=``, run with tracing off (what
    :func:`~exactdp.audit.bytecode.untraced` does, inlined: a comparison is made once per
    branch of the explored code).  ``(offset + j) / scale OP x`` holds for ``j`` in
    ``[lo, cut)`` (``answer``) or ``[cut, hi)`` (not ``answer``), with ``cut`` the ceiling
    of ``(x * scale - offset)`` (``ceiling``: ``<``, ``>=``) or its floor plus one
    (``<=``, ``>``).  A plain int or finite float is read here; any other operand goes
    through :meth:`LazyUnit._compare`."""

    def compare(self: Any, other: Any) -> bool:
        old = gettrace()
        if old is not None:
            settrace(None)
        try:
            t = type(other)
            if t is int:
                ctx = self._ctx
                cut = other * ctx[0] - self._offset
                if not ceiling:
                    cut += 1
            elif t is float and -_MAX_FLOAT <= other <= _MAX_FLOAT:
                x0, x1 = other.as_integer_ratio()
                ctx = self._ctx
                num = x0 * ctx[0] - self._offset * x1
                cut = -(-num // x1) if ceiling else num // x1 + 1
            else:
                return self._compare(other, op)  # type: ignore[no-any-return]
            cell = self._cell
            lo, hi = cell
            if cut <= lo:
                return not answer
            if cut >= hi:
                return answer
            if ctx[1](cut - lo, hi - lo):
                cell[1] = cut
                return answer
            cell[0] = cut
            return not answer
        finally:
            if old is not None:
                settrace(old)

    compare.__name__ = compare.__qualname__ = {
        "<": "__lt__", "<=": "__le__", ">": "__gt__", ">=": "__ge__"}[op]
    return compare


def _equality(op: str) -> Callable[[Any, Any], bool]:
    """``self == other`` or ``self != other``, run with tracing off (as :func:`_ordered`):
    ``(offset + j) / scale == x`` holds for the one ``j = x * scale - offset`` when that is
    an integer -- the parts ``[lo, j)``, ``[j, j + 1)``, ``[j + 1, hi)`` of the cell, the
    empty ones left out (one cut at an end of the cell: a coin).  A plain int or finite
    float is read here; any other operand goes through :meth:`LazyUnit._compare`."""
    want = op == "=="

    def compare(self: Any, other: Any) -> bool:
        old = gettrace()
        if old is not None:
            settrace(None)
        try:
            t = type(other)
            if t is int:
                j = other * self._ctx[0] - self._offset
            elif t is float and -_MAX_FLOAT <= other <= _MAX_FLOAT:
                x0, x1 = other.as_integer_ratio()
                num = x0 * self._ctx[0] - self._offset * x1
                if num % x1:  # a value no j gives
                    return not want
                j = num // x1
            else:
                return self._compare(other, op)  # type: ignore[no-any-return]
            lo, hi = self._cell
            if j < lo or j >= hi:
                same = False
            elif j == lo:
                same = self._below(lo + 1, True)
            elif j == hi - 1:
                same = self._below(hi - 1, False)
            else:
                same = self._split((j, j + 1), (False, True, False))
            return same if want else not same
        finally:
            if old is not None:
                settrace(old)

    compare.__name__ = compare.__qualname__ = "__eq__" if want else "__ne__"
    return compare


def _comparison(op: str) -> Callable[[Any, Any], bool]:
    """``self OP other`` by :meth:`LazyUnit._compare`, run with tracing off (as
    :func:`_ordered`)."""

    def compare(self: Any, other: Any) -> bool:
        old = gettrace()
        if old is None:
            return self._compare(other, op)  # type: ignore[no-any-return]
        settrace(None)
        try:
            return self._compare(other, op)  # type: ignore[no-any-return]
        finally:
            settrace(old)

    compare.__name__ = compare.__qualname__ = {
        "<": "__lt__", "<=": "__le__", ">": "__gt__", ">=": "__ge__", "==": "__eq__",
        "!=": "__ne__"}[op]
    return compare


#: The base of :class:`LazyUnit`: the C one (:mod:`exactdp.audit.draw_native`: its three
#: members and the comparisons with an int or a finite float, the rules of
#: :func:`_ordered` and :func:`_equality`, any other operand through
#: :meth:`LazyUnit._compare`) or ``object``.
_Base: type = object if _C is None else _C.Lazy


class LazyUnit(_Base):  # type: ignore[valid-type,misc]
    """A ``random()`` value ``j / n`` (``n = 2**53``) with ``j`` known to lie in
    ``[lo, hi)``; see the module docstring.  ``branch(lengths)`` (the facade's) picks a part
    with the exploring source; ``escape(what)`` restarts the exploration without lazy
    values."""

    __slots__ = ("_cell", "_ctx", "_offset") if _C is None else ()

    def __init__(self, n: int, branch: Callable[[tuple[int, ...]], int],
                 escape: Callable[[str], Any], scale: int | None = None, offset: int = 0,
                 cell: list[int] | None = None, ctx: list[Any] | None = None) -> None:
        """The value ``(offset + j) / scale`` (``scale`` defaults to ``n``: ``j / n``), ``j``
        in ``cell = [lo, hi)`` (at first ``[0, n)``; shared by the shifted values of one
        draw); ``ctx``: a :func:`context` to share (then ``scale``, ``branch`` and
        ``escape`` are its own)."""
        object.__setattr__(self, "_offset", offset)
        object.__setattr__(self, "_cell", [0, n] if cell is None else cell)
        object.__setattr__(self, "_ctx", ctx if ctx is not None else context(
            n if scale is None else scale, branch, escape))

    @property
    def _scale(self) -> int:
        return self._ctx[SCALE]  # type: ignore[no-any-return]

    @property
    def _branch(self) -> Callable[[tuple[int, ...]], int]:
        return self._ctx[BRANCH]  # type: ignore[no-any-return]

    @property
    def _escape(self) -> Callable[[str], Any]:
        return self._ctx[ESCAPE]  # type: ignore[no-any-return]

    def _split(self, cuts: tuple[int, ...], truth: tuple[bool, ...]) -> bool:
        """The parts ``[lo, c1), [c1, c2), ..., [ck, hi)`` (cuts clamped to the interval)
        with their answers ``truth``: branch over the non-empty parts."""
        cell = self._cell
        lo, hi = cell
        bounds = [lo] + [min(max(c, lo), hi) for c in cuts] + [hi]
        lengths = tuple(bounds[i + 1] - bounds[i] for i in range(len(bounds) - 1))
        live = [i for i, m in enumerate(lengths) if m]
        if len(live) == 1:
            i = live[0]
        elif len(live) == 2:  # two parts left (== on an end of the cell): a coin
            first = lengths[live[0]]
            i = live[0] if self._ctx[COIN](first, first + lengths[live[1]]) else live[1]
        else:
            i = self._ctx[BRANCH](lengths)
        cell[0], cell[1] = bounds[i], bounds[i + 1]
        return truth[i]

    def _below(self, cut: int, answer: bool) -> bool:
        """The two parts ``[lo, cut)`` (answer ``answer``) and ``[cut, hi)`` (the other):
        :meth:`_split` with one cut, without its lists (every comparison but ``==``)."""
        cell = self._cell
        lo, hi = cell
        if cut <= lo:
            return not answer
        if cut >= hi:
            return answer
        if self._ctx[COIN](cut - lo, hi - lo):
            cell[1] = cut
            return answer
        cell[0] = cut
        return not answer

    def _compare(self, other: Any, op: str) -> bool:
        t = type(other)  # a plain int or a finite float: read here, as _exact reads it
        is_float = t is float  # the user's operand, read exactly (as_integer_ratio)
        x = ((other, 1) if t is int else other.as_integer_ratio()
             if is_float and -_MAX_FLOAT <= other <= _MAX_FLOAT else _exact(other))
        if x is None:
            return bool(self._ctx[ESCAPE](f"compared ({op}) with {type(other).__name__}"))
        if isinstance(x, float):  # inf or nan: the same answer for every j
            above, below = x > 0, x < 0  # the value is below +inf, above -inf
            if not (above or below):  # nan: unordered, unequal
                return op == "!="
            return {"<": above, "<=": above, ">": not above, ">=": not above,
                    "==": False, "!=": True}[op]
        # (offset + j) / scale OP x  <=>  j OP num / den  (scale > 0, x = x0 / x1, x1 > 0)
        num, den = x[0] * self._ctx[SCALE] - self._offset * x[1], x[1]
        floor = num // den
        ceil = -(-num // den)
        if op == "<":
            return self._below(ceil, True)
        if op == "<=":
            return self._below(floor + 1, True)
        if op == ">":
            return self._below(floor + 1, False)
        if op == ">=":
            return self._below(ceil, False)
        if num % den:  # == / != with a value no j gives
            return op == "!="
        lo, hi = self._cell
        if floor <= lo or floor >= hi - 1:  # at an end of the cell, or outside it: the
            # parts of _split with one of them empty -- one cut, the same branch
            same = (lo <= floor < hi) and (self._below(lo + 1, True) if floor == lo
                                            else self._below(hi - 1, False))
        else:
            same = self._split((floor, floor + 1), (False, True, False))
        return same if op == "==" else not same

    if _C is None:  # (else the C base's comparisons, the same rules)
        __lt__ = _ordered("<", True, True)
        __le__ = _ordered("<=", False, True)
        __gt__ = _ordered(">", False, False)
        __ge__ = _ordered(">=", True, False)
        __eq__ = _equality("==")  # type: ignore[assignment]
        __ne__ = _equality("!=")  # type: ignore[assignment]
    __bool__ = untraced(lambda self: self._compare(0, "!="))

    def __getattr__(self, name: str) -> Any:
        return self._ctx[ESCAPE](f"asked for its attribute {name}")

    def __setattr__(self, name: str, value: Any) -> None:
        self._ctx[ESCAPE](f"given the attribute {name}")

    @property  # type: ignore[misc]
    def __class__(self) -> Any:  # isinstance(value, ...) and ABC checks read it
        return self._ctx[ESCAPE]("type-checked (isinstance)")


_set_cell = LazyUnit._cell.__set__  # type: ignore[attr-defined]
_set_ctx = LazyUnit._ctx.__set__  # type: ignore[attr-defined]
_set_offset = LazyUnit._offset.__set__  # type: ignore[attr-defined]


def fresh(cls: type[LazyUnit], cell: list[int], ctx: list[Any], offset: int = 0) -> Any:
    """A new lazy value of class ``cls`` (:class:`LazyUnit` or :class:`LazyInt`) on
    ``cell``, with the run's ``ctx`` (:func:`context`), without a call of ``__init__``
    (made once per draw)."""
    if _C is not None:
        return _C.fresh(cls, cell, ctx, offset)
    value = _new(cls)
    _set_cell(value, cell)
    _set_ctx(value, ctx)
    _set_offset(value, offset)
    return value


def _escaping(name: str) -> Callable[..., Any]:
    def escape(self: LazyUnit, *args: Any, **kwargs: Any) -> Any:
        return object.__getattribute__(self, "_ctx")[ESCAPE](f"used by {name}")
    escape.__name__ = name
    return escape


for _name in ("__hash__", "__repr__", "__str__", "__format__", "__bytes__", "__float__",
              "__int__", "__index__", "__complex__", "__round__", "__trunc__", "__floor__",
              "__ceil__", "__neg__", "__pos__", "__abs__", "__invert__", "__reduce__",
              "__reduce_ex__", "__copy__", "__deepcopy__", "__len__", "__iter__",
              "__getitem__", "__contains__", "__call__", "__array__",
              *(f"__{op}__" for op in ("add", "sub", "mul", "truediv", "floordiv", "mod",
                                       "divmod", "pow", "matmul", "lshift", "rshift", "and",
                                       "or", "xor")),
              *(f"__r{op}__" for op in ("add", "sub", "mul", "truediv", "floordiv", "mod",
                                        "divmod", "pow", "matmul", "lshift", "rshift", "and",
                                        "or", "xor"))):
    setattr(LazyUnit, _name, _escaping(_name))
del _name


class LazyInt(LazyUnit):
    """An integer draw ``offset + j``, ``j`` uniform on ``[0, n)`` and known to lie in
    ``[lo, hi)``: compared like a :class:`LazyUnit`; ``value + k`` and ``value - k`` for an
    int ``k`` are the same draw shifted (see the module docstring)."""

    __slots__ = ()

    def __init__(self, n: int, branch: Callable[[tuple[int, ...]], int],
                 escape: Callable[[str], Any], offset: int = 0,
                 cell: list[int] | None = None) -> None:
        super().__init__(n, branch, escape, 1, offset, cell)

    def _shifted(self, k: Any, sign: int, what: str) -> Any:
        if type(k) is not int and type(k) is not bool:
            return self._ctx[ESCAPE](f"used by {what} with {type(k).__name__}")
        return fresh(LazyInt, self._cell, self._ctx, self._offset + sign * int(k))

    __add__ = untraced(lambda self, k: self._shifted(k, 1, "__add__"))
    __radd__ = untraced(lambda self, k: self._shifted(k, 1, "__radd__"))
    __sub__ = untraced(lambda self, k: self._shifted(k, -1, "__sub__"))
