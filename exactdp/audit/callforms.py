"""How the audit calls code as it was written: where the input and the generator go.

The white-box facade audit (:class:`~exactdp.audit.facades.FacadeMechanism`) calls
``fn(c, rng)``.  Code as people write it has other shapes:

* ``rr(bit)`` -- one argument, randomness from the ``random`` module (``--patch random``):
  called as ``rr(c)``;
* ``noisy_max(prng, queries, epsilon)`` -- the generator first and a parameter after it
  (StatDP's shape): ``--rng-arg prng --bind epsilon=1`` calls
  ``noisy_max(prng=<facade>, queries=c, epsilon=1)``;
* ``mech.randomise(value)`` -- a bound method whose generator is an attribute of its
  instance (diffprivlib's ``_rng``): ``--patch-attr _rng`` sets that attribute to the facade
  during each call and calls ``randomise(c)``.

:func:`call_form` reads the signature once, decides where ``c``, the facade and the bound
keywords go, and returns ``fn2(c, rng)`` for the facade audit.  A signature that does not
fit is a :class:`~exactdp.params.ParameterError` (command line: exit status 2) that names
the form to use -- a usage problem is never reported as a broken mechanism.
"""

from __future__ import annotations

import dis
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from exactdp.params import ParameterError

__all__ = ["DEFAULT", "call_form", "parse_rng_arg"]

#: ``rng_arg`` when the user did not say: ``f(c, rng)``, or ``f(c)`` when the randomness is
#: patched in and ``f`` takes one argument.
DEFAULT = "default"

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def parse_rng_arg(text: str | None, flag: str = "--rng-arg") -> int | str | None:
    """``--rng-arg``: a position (``0``, ``1``, ...), a parameter name, or ``none`` (the
    generator is not passed: it is patched in); unset means :data:`DEFAULT`."""
    if text is None:
        return DEFAULT
    t = text.strip()
    if t == "none":
        return None
    if t.isascii() and t.isdigit() and len(t) <= 3:
        return int(t)
    if t.isidentifier():
        return t
    raise ParameterError(f"{flag} = {text!r} must be a position (0, 1, ...), a parameter "
                         f"name (e.g. prng) or 'none'")


def _forms(name: str) -> str:
    return (f"use f(c, rng) (the default), --rng-arg N|NAME for the generator at another "
            f"position or keyword, --bind NAME=VALUE for further parameters, or --patch "
            f"MODULE / --patch-attr NAME with a one-argument {name}(c)")


def call_form(fn: Callable[..., Any], rng_arg: int | str | None = DEFAULT,
              bind: Mapping[str, Any] | None = None, patching: bool = False,
              name: str = "the target") -> Callable[[Any, Any], Any]:
    """``fn`` as ``g(c, rng)``: ``c`` at the first parameter that is neither the generator's
    nor bound, the generator at ``rng_arg`` (:func:`parse_rng_arg`), ``bind`` as keywords.

    Default placement: ``fn(c, rng)``; with ``patching`` (the generator reaches the code
    through ``--patch`` / ``--patch-attr``) and a function taking one required argument
    after ``bind``, ``fn(c)``.  Raises :class:`ParameterError` when the signature does not
    fit, saying which form to use."""
    kw = dict(bind or {})
    try:
        sig: inspect.Signature | None = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a signature: positional call
        sig = None
    if sig is None:
        return _blind(fn, rng_arg, kw, patching, name)
    params = [p for p in sig.parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    var_kw = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    by_name = {p.name: p for p in params}
    for k in kw:
        if k not in by_name and not var_kw:
            raise ParameterError(f"--bind {k}=...: {name} has no parameter {k!r} (its "
                                 f"parameters: {', '.join(by_name) or 'none'})")
        if k in by_name and by_name[k].kind is inspect.Parameter.POSITIONAL_ONLY:
            raise ParameterError(f"--bind {k}=...: {k!r} of {name} is positional-only")
    free = [p for p in params if p.name not in kw and p.kind in _POSITIONAL]
    if rng_arg == DEFAULT:
        required = [p for p in free if p.default is p.empty]
        if patching and len(required) <= 1:
            rng_arg = None
        elif len(free) >= 2:
            rng_arg = 1
        elif not patching:
            raise ParameterError(
                f"{name} takes {len(free)} argument(s) ({', '.join(p.name for p in free)}), "
                f"so the generator cannot be passed as f(c, rng): "
                + (_seen_randomness(fn) or "for module-level randomness add --patch MODULE "
                   "(e.g. --patch random), for an instance's generator --patch-attr NAME "
                   "(e.g. _rng)") + ", or say where it goes with --rng-arg N|NAME")
        else:
            rng_arg = None
    rng_param: inspect.Parameter | None = None
    if isinstance(rng_arg, int):
        if rng_arg >= len(free):
            raise ParameterError(f"--rng-arg {rng_arg}: {name} has {len(free)} free "
                                 f"positional parameter(s) ({', '.join(p.name for p in free)})"
                                 f"; {_forms(name)}")
        rng_param = free[rng_arg]
    elif isinstance(rng_arg, str):
        if rng_arg not in by_name:
            if not var_kw:
                raise ParameterError(f"--rng-arg {rng_arg}: {name} has no parameter "
                                     f"{rng_arg!r} (its parameters: "
                                     f"{', '.join(by_name) or 'none'})")
        else:
            rng_param = by_name[rng_arg]
            if rng_arg in kw:
                raise ParameterError(f"--rng-arg {rng_arg} and --bind {rng_arg}=... name the "
                                     f"same parameter")
    elif not patching:
        raise ParameterError(f"--rng-arg none: the generator is not passed, so it must be "
                             f"patched in; {_forms(name)}")
    rest = [p for p in free if p is not rng_param]
    if not rest:
        raise ParameterError(f"{name} has no parameter left for the input c; "
                             f"{_forms(name)}")
    c_param = rest[0]
    missing = [p.name for p in params if p.default is p.empty and p.name not in kw
               and p is not rng_param and p is not c_param]
    if missing:
        raise ParameterError(f"{name} needs {', '.join(missing)} besides the input "
                             f"{c_param.name!r}" + (f" and the generator "
                                                    f"{rng_param.name!r}" if rng_param else "")
                             + f": give them with --bind NAME=VALUE, or {_forms(name)}")
    order = [p for p in params if p.kind is inspect.Parameter.POSITIONAL_ONLY]
    rng_key = rng_arg if isinstance(rng_arg, str) and rng_param is None else None
    c_name = c_param.name
    if rng_key is None:
        direct = _positional(fn, params, c_param, rng_param, kw)
        if direct is not None:
            direct.__qualname__ = getattr(fn, "__qualname__", name)
            direct.__module__ = getattr(fn, "__module__", None) or __name__
            return direct
    if not order and rng_key is None:  # every argument by keyword: the same call, made
        # with fewer instructions (it runs once per explored path, under the trace function)
        rng_name = "" if rng_param is None else rng_param.name

        def patched(c: Any, rng: Any) -> Any:
            return fn(**{c_name: c, **kw})

        def passed(c: Any, rng: Any) -> Any:
            return fn(**{c_name: c, **kw, rng_name: rng})

        keyworded = patched if rng_param is None else passed
        keyworded.__qualname__ = getattr(fn, "__qualname__", name)
        keyworded.__module__ = getattr(fn, "__module__", None) or __name__
        return keyworded

    def call(c: Any, rng: Any) -> Any:
        values: dict[str, Any] = {c_param.name: c, **kw}
        if rng_param is not None:
            values[rng_param.name] = rng
        args = []
        for p in order:  # positional-only ones in order; the caller checked none is missing
            if p.name not in values:
                break
            args.append(values.pop(p.name))
        if rng_key is not None:
            values[rng_key] = rng
        return fn(*args, **values)

    call.__qualname__ = getattr(fn, "__qualname__", name)
    call.__module__ = getattr(fn, "__module__", None) or __name__
    return call


#: What to patch for a module the code names: the facades stand in for these modules'
#: generators (numpy's through its ``numpy.random`` functions).
_PATCHES = {"random": "random", "secrets": "secrets", "numpy": "numpy.random",
            "numpy.random": "numpy.random"}


def _positional(fn: Callable[..., Any], params: list[inspect.Parameter],
                c_param: inspect.Parameter, rng_param: inspect.Parameter | None,
                kw: dict[str, Any]) -> Callable[[Any, Any], Any] | None:
    """``g(c, rng)`` as one positional call -- ``fn(c, rng, *bound)``, ``fn(rng, c,
    *bound)`` or, the generator patched in, ``fn(c, *bound)`` -- when the parameters it
    fills are ``fn``'s first ones, each positional, in that order (the bound ones after
    the input and the generator); else None (the call by keyword: the same binding, with
    a dict built per call, under the trace function)."""
    lead = [c_param] if rng_param is None else [c_param, rng_param]
    head = params[:len(lead) + len(kw)]
    if any(p.kind not in _POSITIONAL for p in head) or len(head) < len(lead) + len(kw) \
            or {p.name for p in head[:len(lead)]} != {p.name for p in lead} \
            or any(p.name not in kw for p in head[len(lead):]):
        return None
    bound = tuple(kw[p.name] for p in head[len(lead):])
    if rng_param is None:
        def patched(c: Any, rng: Any) -> Any:
            return fn(c, *bound)
        return patched
    if head[0] is c_param:
        def passed(c: Any, rng: Any) -> Any:
            return fn(c, rng, *bound)
        return passed

    def passed_first(c: Any, rng: Any) -> Any:
        return fn(rng, c, *bound)
    return passed_first


def _seen_randomness(fn: Callable[..., Any]) -> str:
    """Where ``fn`` visibly gets its randomness, as the flag to pass: an attribute of a bound
    method's instance holding a generator (``--patch-attr NAME``), or a module of
    :data:`_PATCHES` its code reads as a global (``--patch MODULE``); "" when none is seen."""
    owner = getattr(fn, "__self__", None)
    if owner is not None and not inspect.ismodule(owner) and hasattr(owner, "__dict__"):
        for attr, value in sorted(vars(owner).items()):
            kind = type(value)
            if (kind.__module__ or "").split(".")[0] in ("random", "numpy") and \
                    kind.__name__ in ("Random", "SystemRandom", "Generator", "RandomState"):
                numpy = kind.__module__.startswith("numpy")
                rng = ("numpy-legacy" if kind.__name__ == "RandomState" else "numpy") \
                    if numpy else "random"
                return (f"its instance's attribute {attr} is a "
                        f"{'numpy ' if numpy else 'random.'}{kind.__name__}: add --patch-attr "
                        f"{attr} (with --rng {rng})")
    func = getattr(fn, "__func__", fn)
    code, scope = getattr(func, "__code__", None), getattr(func, "__globals__", None)
    if code is None or not isinstance(scope, dict):
        return ""
    names = {i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_GLOBAL"}
    used = sorted({_PATCHES.get(getattr(scope.get(n), "__name__", "") or "", "")
                   for n in names if inspect.ismodule(scope.get(n))} - {""})
    rng = {"random": "random", "secrets": "secrets", "numpy.random": "numpy-legacy"}[used[0]] \
        if used else ""
    return (f"its code reads the module{'s' if len(used) > 1 else ''} {', '.join(used)}: add "
            f"--patch {','.join(used)} (with --rng {rng})") if used else ""


def _blind(fn: Callable[..., Any], rng_arg: int | str | None, kw: dict[str, Any],
           patching: bool, name: str) -> Callable[[Any, Any], Any]:
    """No signature to read: ``fn(c, rng, **bind)`` (or ``fn(c, **bind)`` when patched in,
    ``fn(c, NAME=rng)`` with a name, the generator at position N with a position)."""
    if rng_arg == DEFAULT:
        rng_arg = 1
    if rng_arg is None and not patching:
        raise ParameterError(f"--rng-arg none: the generator must be patched in; "
                             f"{_forms(name)}")

    def call(c: Any, rng: Any) -> Any:
        if rng_arg is None:
            return fn(c, **kw)
        if isinstance(rng_arg, str):
            return fn(c, **{rng_arg: rng}, **kw)
        args = [c]
        args.insert(min(rng_arg, 1), rng)
        return fn(*args, **kw)

    return call
