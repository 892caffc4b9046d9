"""Where audited code can keep state between calls, and the generators it could draw from
unseen: what :mod:`exactdp.audit.escape` compares before and after the audited code runs.

* :func:`places`: the globals of the user's own modules and -- found from the target
  through facades, partials, bound methods and closures -- the attributes of its objects and
  its closures' cells: a name rebound after the first call is state kept between calls
  (a counter).
* :func:`generator_states`: the states of the ``random`` module's generator, numpy's
  global generator and the generators in the user's modules' globals: a change is a draw
  through a reference no guard saw.
"""

from __future__ import annotations

import collections
import copy
import functools
import numbers
import random
import sys
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from exactdp.audit.callers import user_modules

__all__ = ["MISSING", "cells_of", "content_copy", "facade_types", "generator_states",
           "only_gained", "places", "same_content"]

@functools.cache
def facade_types() -> tuple[type, ...]:
    from exactdp.audit.facades import RandomFacade

    return (RandomFacade,)


def _numpy_state(gen: Any) -> Any:
    bitgen = getattr(gen, "bit_generator", None) or getattr(gen, "_bit_generator", None)
    state = (bitgen if bitgen is not None else gen).state
    return _freeze(state)


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    tobytes = getattr(value, "tobytes", None)
    return tobytes() if callable(tobytes) else value


def generator_states() -> list[tuple[str, Callable[[], Any]]]:
    """``(name, read)`` per generator to compare: ``read()`` gives its state."""
    out: list[tuple[str, Callable[[], Any]]] = []
    inst = getattr(random, "_inst", None)
    if inst is not None:
        out.append(("the random module's generator", inst.getstate))
    mtrand = sys.modules.get("numpy.random.mtrand")
    glob = getattr(mtrand, "_rand", None)
    if glob is not None:
        out.append(("numpy.random's global generator",
                    lambda: _freeze(glob.get_state(legacy=False))))
    numpy_types = _numpy_generator_types()
    for mod_name, module in user_modules():
        try:
            items = list(vars(module).items())
        except TypeError:
            continue
        for k, v in items:
            owner = getattr(v, "__self__", v)  # a bound method of a generator too
            if isinstance(owner, random.Random) and not isinstance(owner, facade_types()):
                out.append((f"the generator {mod_name}.{k}", owner.getstate))
            elif numpy_types and isinstance(owner, numpy_types):
                out.append((f"the numpy generator {mod_name}.{k}",
                            functools.partial(_numpy_state, owner)))
    return out


def _numpy_generator_types() -> tuple[type, ...]:
    npr = sys.modules.get("numpy.random")
    if npr is None:
        return ()
    return tuple(t for t in (getattr(npr, "Generator", None), getattr(npr, "RandomState", None),
                             getattr(npr, "BitGenerator", None)) if isinstance(t, type))


def places(target: object) -> list[tuple[str, Callable[[], Mapping[str, Any]]]]:
    """Where the audited code can keep state between calls: the globals of the user's own
    modules, and -- found from ``target`` through facades, partials, bound methods and
    closures -- the attributes of its objects and its closures' cells."""
    from exactdp.audit.facades import FacadeMechanism

    places: list[tuple[str, Callable[[], Mapping[str, Any]]]] = [
        (name + ".{}", functools.partial(vars, module)) for name, module in user_modules()]
    seen: set[int] = set()
    stack: list[tuple[object, int]] = [(target, 0)]
    while stack:
        obj, depth = stack.pop()
        if obj is None or id(obj) in seen or depth > 6:
            continue
        seen.add(id(obj))
        if isinstance(obj, FacadeMechanism):
            stack.append((obj.fn, depth + 1))
        elif isinstance(obj, functools.partial):
            stack.append((obj.func, depth + 1))
        elif hasattr(obj, "__func__") and hasattr(obj, "__self__"):  # a bound method
            stack += [(obj.__func__, depth + 1), (obj.__self__, depth + 1)]
        elif hasattr(obj, "__code__") and hasattr(obj, "__closure__"):  # a function
            cells = obj.__closure__ or ()
            if cells:
                names = obj.__code__.co_freevars
                label = "{} in the closure of " + str(getattr(obj, "__qualname__", "?"))
                places.append((label, functools.partial(cells_of, names, cells)))
                stack += [(_content(cell), depth + 1) for cell in cells
                          if callable(_content(cell))]
        elif not isinstance(obj, (type, ModuleType)) and hasattr(obj, "__dict__") \
                and not type(obj).__module__.startswith("exactdp."):
            places.append(("the attribute {} of the " + type(obj).__qualname__ + " object",
                           functools.partial(vars, obj)))
            stack += [(v, depth + 1) for v in list(vars(obj).values()) if callable(v)]
    return places


def _content(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def cells_of(names: tuple[str, ...], cells: tuple[Any, ...]) -> dict[str, Any]:
    """A closure's cells by name (an empty cell: None)."""
    try:  # (read after every call of the audited code: no call per cell)
        return dict(zip(names, [c.cell_contents for c in cells], strict=False))
    except ValueError:  # an empty cell
        return {n: _content(c) for n, c in zip(names, cells, strict=False)}


MISSING = object()

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


def content_copy(value: Any) -> Any:
    """A deep copy of a built-in container of plain values (to compare its content later),
    else ``MISSING`` (objects inside compare by identity, so a copy would never equal)."""
    if not isinstance(value, _CONTAINERS) or not _plain(value):
        return MISSING
    return copy.deepcopy(value)


def only_gained(now: Any, before: Any) -> bool:
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


def same_content(now: Any, before: Any) -> bool:
    try:
        return bool(now == before)
    except Exception:  # noqa: BLE001 - content that cannot be compared: binding only
        return True
