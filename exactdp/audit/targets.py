"""What an audit is run on: targets, ranges, claimed parameters, and the audit's size.

A **target** is ``MODULE:NAME``, ``MODULE:FACTORY(literal, k=literal, ...)``,
``MODULE:Class(literal, ...).method`` (a bound method of the object built), or the same
with a file path in place of the module (``./mech.py:f``, ``mech.py:f``,
``/abs/dir/mech.py:f``).  A module is looked for the way ``python -m`` looks for it: on
``sys.path`` with the current directory first.  Importing the module and calling the
factory run under the audit's time limit, so a module that loops at import cannot escape
``--time-limit``.  Anything that goes wrong before a callable target is in hand -- the
module does not import (``ImportError``, ``SyntaxError``, any exception at import, a
hang), the name does not exist, the factory raises or hangs, the arguments are not
literals, the object is not callable -- is a :class:`~exactdp.params.ParameterError`
(command line: exit status 2, "bad target"); the mechanism has not been audited.  What
goes wrong *after* (the mechanism raises, hangs or returns garbage while sampled) is a
finding of the audit (status 3, "broken").

The **size** of an audit is refused before it starts when it is out of proportion:
at most :data:`MAX_INPUTS` inputs by default, and at most :data:`MAX_CALLS` estimated
calls of the mechanism (inputs x draws for black-box; inputs x ``d`` for white-box
enumeration; inputs x outputs x ``log2 d`` for the threshold search).  Both limits are
arguments (``--max-inputs``, ``--max-calls``).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import itertools
import numbers
import os
import re
import sys
import zlib
from collections.abc import Iterable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from exactdp.audit.guard import Abort, Timeout, check_outcome, exception_text, show, time_limit
from exactdp.claims import Claim, RatioClaim, epsilon_bounds, parse_claim
from exactdp.params import (
    ExactDPError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    to_fraction,
)

__all__ = [
    "MAX_CALLS",
    "MAX_INPUTS",
    "check_alpha",
    "check_callable",
    "check_calls",
    "check_delta",
    "check_epsilon",
    "check_time_limit",
    "declared",
    "declared_outputs",
    "load_target",
    "materialise_inputs",
    "neighbour_pairs",
    "parse_bind",
    "parse_range",
]

#: Default largest number of inputs an audit takes (``--max-inputs``).
MAX_INPUTS = 10_000
#: Default largest estimated number of calls of the audited mechanism (``--max-calls``).
MAX_CALLS = 10_000_000
#: Largest claimed epsilon (``e**eps`` is computed with certified bounds; beyond this a
#: claim promises nothing anyway) and the largest number of digits of a claimed parameter's
#: numerator or denominator.
MAX_EPSILON = 1000
MAX_PARAMETER_DIGITS = 100
#: Longest time limit, in seconds (one week).
MAX_TIME_LIMIT = 7 * 86400
#: Longest target specification, and largest target file, accepted.
MAX_SPEC_CHARS = 4096
MAX_TARGET_FILE_BYTES = 10 * 2**20
#: Digits of one end of a range.
MAX_RANGE_DIGITS = 100

_RANGE_RE = re.compile(r"^\s*([+-]?[0-9]+)\s*\.\.\s*([+-]?[0-9]+)\s*$", re.ASCII)


# --------------------------------------------------------------------------- ranges, sizes

def parse_range(text: str, name: str = "range") -> range:
    """``"0..8"`` -> ``range(0, 9)`` (both ends included; negative ends allowed).

    Only ASCII digits (no ``_``, no full-width digits), at most :data:`MAX_RANGE_DIGITS`
    per end.  The range is lazy: a huge one is refused where it is used, by size.
    """
    if not isinstance(text, str):
        raise ParameterError(f"{name} = {text!r} must be a string 'LO..HI', e.g. '0..8'")
    if len(text) > 2 * MAX_RANGE_DIGITS + 10:
        raise ParameterError(f"{name} has {len(text)} characters; each end may have at most "
                             f"{MAX_RANGE_DIGITS} digits")
    m = _RANGE_RE.match(text)
    if m is None:
        raise ParameterError(f"{name} = {text!r} must look like 'LO..HI' with integer ends "
                             f"(ASCII digits), e.g. '0..8'")
    lo, hi = int(m.group(1)), int(m.group(2))
    if max(len(m.group(1)), len(m.group(2))) > MAX_RANGE_DIGITS + 1:
        raise ParameterError(f"{name} = {text!r}: each end may have at most "
                             f"{MAX_RANGE_DIGITS} digits")
    if lo > hi:
        raise ParameterError(f"{name} = {text!r} is empty (LO > HI)")
    return range(lo, hi + 1)


def materialise_inputs(inputs: Iterable[Any], max_inputs: int = MAX_INPUTS,
                       flag: str = "max_inputs (--max-inputs)") -> list[Any]:
    """The audit's inputs as a list, refusing more than ``max_inputs`` without building
    them (a range is measured, any other iterable read at most ``max_inputs + 1`` deep)."""
    if isinstance(inputs, range):
        if len(inputs) > max_inputs:
            raise ResourceLimitError(
                f"inputs: {len(inputs)} values, more than the limit of {max_inputs} ("
                f"{flag}); audit a smaller range (the privacy loss between neighbours c, c+1 "
                f"is local: a window around the counts of interest suffices) or raise "
                f"{flag}")
        return list(inputs)
    if isinstance(inputs, (str, bytes)):
        raise ParameterTypeError(f"inputs = {show(inputs)} must be a range or a sequence of "
                                 f"inputs, e.g. range(0, 9)")
    try:
        ins = list(itertools.islice(inputs, max_inputs + 1))
    except TypeError:
        raise ParameterTypeError(f"inputs = {show(inputs)} must be a range or a sequence of "
                                 f"inputs, e.g. range(0, 9)") from None
    if len(ins) > max_inputs:
        raise ResourceLimitError(f"inputs: more than the limit of {max_inputs} values "
                                 f"({flag}); pass fewer or raise {flag}")
    out = []
    for c in ins:
        _refuse_converted(c)
        try:
            out.append(check_outcome(c, None, "inputs: an input", {}))
        except Abort as abort:
            raise ParameterError(abort.finding.message.replace("returned ", "is ")) from None
    if len(set(out)) != len(out):
        raise ParameterError("inputs contain a value twice")
    return out


def _refuse_converted(c: object, depth: int = 0) -> None:
    """An input is handed to the code as it is: one that an outcome check would convert (a
    float to its rational value, a list or numpy array to a tuple) would reach the code
    as something else, so it is refused."""
    if isinstance(c, (tuple, frozenset)) and depth < 8:
        for v in c:
            _refuse_converted(v, depth + 1)
        return
    if isinstance(c, (bool, int, str, bytes, Fraction)):
        return
    if isinstance(c, list) or type(c).__module__ == "numpy" or (
            isinstance(c, numbers.Real) and not isinstance(c, numbers.Rational)):
        raise ParameterTypeError(f"inputs: an input is {show(c)} of type {type(c).__name__}; "
                                 f"inputs must be exact values handed to the code unchanged: "
                                 f"ints, strings, Fractions, bools or tuples of these")


def check_calls(estimate: int, how: str, max_calls: int,
                flag: str = "max_calls (--max-calls)") -> None:
    """Refuse an audit estimated to call the mechanism more than ``max_calls`` times."""
    if estimate > max_calls:
        raise ResourceLimitError(
            f"this audit would call the mechanism about {estimate} times ({how}), more than "
            f"the limit of {max_calls} ({flag}); use fewer inputs, outputs or draws, or "
            f"raise the limit to {estimate} to run it anyway")


# --------------------------------------------------------------------------- parameters

def _bounded(value: object, name: str) -> Fraction:
    q = to_fraction(value, name)
    for part in (q.numerator, q.denominator):
        if len(str(abs(part))) > MAX_PARAMETER_DIGITS:
            raise ParameterError(f"{name} = {str(q)[:40]}... has more than "
                                 f"{MAX_PARAMETER_DIGITS} digits in its numerator or "
                                 f"denominator; round it toward the claim you want checked")
    return q


def check_epsilon(value: object, name: str = "claimed_epsilon") -> Claim:
    """A claimed epsilon: exact, ``0 <= eps <= MAX_EPSILON`` (0 claims the output ignores
    the input, which an audit can refute); or a ratio bound ``e**eps = r`` stated as
    ``'ln 3'``, ``'2 ln 2'`` or a :class:`~exactdp.claims.RatioClaim`
    (:func:`exactdp.claims.parse_claim`)."""
    claim = parse_claim(value, name) if isinstance(value, (str, RatioClaim)) else None
    if isinstance(claim, RatioClaim):
        if epsilon_bounds(claim, 16).lo > MAX_EPSILON:
            raise ParameterError(f"{name} = {claim} must lie in [0, {MAX_EPSILON}]")
        return claim
    eps = _bounded(value, name)
    if not 0 <= eps <= MAX_EPSILON:
        raise ParameterError(f"{name} = {eps} must lie in [0, {MAX_EPSILON}]")
    return eps


def check_delta(value: object, name: str = "claimed_delta") -> Fraction:
    """A claimed delta in ``[0, 1)`` (``delta = 1`` promises nothing)."""
    delta = _bounded(value, name)
    if not 0 <= delta < 1:
        raise ParameterError(f"{name} = {delta} must lie in [0, 1): delta = 1 promises nothing")
    return delta


def check_alpha(value: object, name: str = "alpha") -> Fraction:
    """A false-alarm probability in ``(0, 1)``."""
    alpha = _bounded(value, name)
    if not 0 < alpha < 1:
        raise ParameterError(f"{name} = {alpha} must lie in (0, 1), e.g. 1/100")
    return alpha


def check_callable(obj: object, name: str, shape: str) -> None:
    """The audited object must be callable (else nothing could be audited: a bad target,
    not a broken mechanism)."""
    if not callable(obj):
        raise ParameterTypeError(f"{name} = {show(obj)} has type {type(obj).__name__}, which "
                                 f"is not callable; pass the mechanism itself, {shape}")


def check_time_limit(value: object, name: str = "time_limit") -> int | None:
    """Whole seconds in ``[1, MAX_TIME_LIMIT]``; None means no limit (library only)."""
    if value is None:
        return None
    q = to_fraction(value, name)
    if q.denominator != 1 or not 1 <= q <= MAX_TIME_LIMIT:
        raise ParameterError(f"{name} = {q} must be a whole number of seconds in "
                             f"[1, {MAX_TIME_LIMIT}]")
    return int(q)


# --------------------------------------------------------------------------- targets

_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$", re.ASCII)


def load_target(spec: str, time_limit_s: int | None = None, *, what: str = "target",
                allow_mapping: bool = False) -> Any:
    """Import ``"package.module:name"``, or call ``"package.module:factory(k=v, ...)"``;
    the module may also be a file path (``./mech.py:f``).

    Factory arguments must be Python literals (numbers, strings, tuples, None, ...),
    parsed with :func:`ast.literal_eval`; nothing else is evaluated.  The import and the
    factory call run under ``time_limit_s`` seconds.  Every failure is a
    :class:`~exactdp.params.ParameterError` naming the target (see the module docstring).
    The result must be callable (or, with ``allow_mapping``, a mapping).
    """
    if not isinstance(spec, str):
        raise ParameterError(f"{what} = {spec!r} must be a string 'module:callable'")
    spec = spec.strip()
    if len(spec) > MAX_SPEC_CHARS:
        raise ParameterError(f"{what} has {len(spec)} characters; at most {MAX_SPEC_CHARS}")
    head, paren, tail = spec.partition("(")
    module_part, colon, name = head.rpartition(":")
    name = name.strip()
    module_part = module_part.strip()
    if not colon or not module_part:
        raise ParameterError(f"{what} {spec!r} must look like 'module:callable', "
                             f"'module:factory(literal, ...)' or './file.py:callable'")
    if not _NAME_RE.match(name):
        raise ParameterError(f"{what} {spec!r}: {name!r} after the ':' must be a (dotted) "
                             f"Python name")
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = {}
    then: tuple[str, ...] = ()
    if paren:
        args, kwargs, then = _literal_arguments(paren + tail, spec, what)
    obj = _import(module_part, spec, what, time_limit_s)
    for part in name.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ParameterError(f"{what} {spec!r}: {module_part!r} has no attribute "
                                 f"{name!r}") from None
        except Exception as exc:  # noqa: BLE001 - a module __getattr__ may raise anything
            raise ParameterError(f"{what} {spec!r}: looking up {name!r} raised "
                                 f"{exception_text(exc)}") from None
    if paren:
        obj = _call_factory(obj, args, kwargs, spec, what, time_limit_s)
    for part in then:  # MODULE:Class(args).method: the method of the object built
        try:
            obj = getattr(obj, part)
        except Exception as exc:  # noqa: BLE001 - a third party's attribute may raise
            raise ParameterError(f"{what} {spec!r}: the object built has no usable "
                                 f"attribute {part!r} ({exception_text(exc)})") from None
    if not callable(obj) and not (allow_mapping and hasattr(obj, "items")):
        kinds = "callable (or a mapping input -> distribution)" if allow_mapping else "callable"
        raise ParameterError(f"{what} {spec!r} is an object of type {type(obj).__name__}, not {kinds}"
                             + ("; add (...) to call a factory" if isinstance(obj, type)
                                else ""))
    return obj


def parse_bind(text: str, flag: str = "--bind") -> dict[str, Any]:
    """``"epsilon=1, N=2"`` -> ``{"epsilon": 1, "N": 2}``: keyword literals passed on every
    call of the target (parsed as factory arguments are: literals only)."""
    args, kwargs, then = _literal_arguments(f"({text})", text, flag)
    if args or then:
        raise ParameterError(f"{flag} {text!r} must be NAME=LITERAL pairs separated by commas, "
                             f"e.g. epsilon=1 or epsilon=0.5, N=2")
    return kwargs


def _literal_arguments(text: str, spec: str, what: str
                       ) -> tuple[tuple[Any, ...], dict[str, Any], tuple[str, ...]]:
    """The factory's literal arguments, and the attribute names after the call
    (``Class(1).randomise`` -> ``(1,), {}, ("randomise",)``)."""
    bad = (f"{what} {spec!r}: the arguments {text!r} must be one parenthesised list of "
           f"Python literals (numbers, strings, tuples, lists, dicts, None, True/False), e.g. "
           f"f(8, '1/2') or f(scale=2, bounds=(0, 8)), optionally followed by .method")
    try:
        node = ast.parse(f"f{text}", mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise ParameterError(bad) from None
    then: list[str] = []
    while isinstance(node, ast.Attribute):
        then.insert(0, node.attr)
        node = node.value
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "f"):
        raise ParameterError(bad)
    if any(isinstance(a, ast.Starred) for a in node.args) \
            or any(k.arg is None for k in node.keywords):
        raise ParameterError(bad + " (no * or ** unpacking)")
    try:
        args = tuple(ast.literal_eval(a) for a in node.args)
        kwargs = {str(k.arg): ast.literal_eval(k.value) for k in node.keywords}
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ParameterError(bad) from None
    return args, kwargs, tuple(then)


def _is_path(module_part: str) -> bool:
    return module_part.endswith(".py") or "/" in module_part or os.sep in module_part


def _import(module_part: str, spec: str, what: str, seconds: int | None) -> Any:
    """Import the module (or file) under the time limit; every failure a ParameterError."""
    if _is_path(module_part):
        return _guarded_import(lambda: _import_file(module_part, spec, what), module_part,
                               spec, what, seconds, None)
    if not _NAME_RE.match(module_part):
        raise ParameterError(f"{what} {spec!r}: {module_part!r} is neither a module name "
                             f"(a.b.c) nor a path to a .py file")
    cwd = os.getcwd()

    def run() -> Any:
        # As ``python -m`` does: the current directory first on sys.path (for this import).
        added = cwd not in sys.path
        if added:
            sys.path.insert(0, cwd)
        try:
            return importlib.import_module(module_part)
        finally:
            if added and cwd in sys.path:
                sys.path.remove(cwd)

    return _guarded_import(run, module_part, spec, what, seconds, cwd)


def _guarded_import(run: Any, module_part: str, spec: str, what: str, seconds: int | None,
                    cwd: str | None) -> Any:
    try:
        with time_limit(seconds):
            return run()
    except Timeout:
        raise ParameterError(f"{what} {spec!r}: importing {module_part!r} did not finish "
                             f"within {seconds} s (--time-limit); does it loop or wait at "
                             f"import?") from None
    except (KeyboardInterrupt, ParameterError):
        raise
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if cwd is not None and (module_part == missing or module_part.startswith(missing + ".")):
            raise ParameterError(
                f"{what} {spec!r}: no module named {missing!r} on sys.path or in the current "
                f"directory {cwd}; to audit a file pass its path (e.g. './mech.py:f'), or "
                f"make the module importable (pip install it, or set PYTHONPATH)") from None
        raise ParameterError(f"{what} {spec!r}: {module_part!r} was found but needs module "
                             f"{missing!r}, which is not installed ({exception_text(exc)})"
                             ) from None
    except SyntaxError as exc:
        where = f"{exc.filename}, line {exc.lineno}" if exc.filename else f"line {exc.lineno}"
        raise ParameterError(f"{what} {spec!r}: {module_part!r} does not compile: {where}: "
                             f"{exc.msg}") from None
    except BaseException as exc:  # noqa: BLE001 - SystemExit at import included
        raise ParameterError(f"{what} {spec!r}: importing {module_part!r} raised "
                             f"{exception_text(exc)}") from None


def _import_file(path_text: str, spec: str, what: str) -> Any:
    path = Path(path_text)
    if not path.name.endswith(".py"):
        raise ParameterError(f"{what} {spec!r}: {path_text!r} is a path but not a .py file")
    try:
        if not path.is_file():
            state = "does not exist" if not path.exists() else "is not a regular file"
            raise ParameterError(f"{what} {spec!r}: the file {path_text!r} {state}")
        size = path.stat().st_size
    except OSError as exc:
        raise ParameterError(f"{what} {spec!r}: cannot read {path_text!r}: "
                             f"{exc.strerror}") from None
    if size > MAX_TARGET_FILE_BYTES:
        raise ParameterError(f"{what} {spec!r}: {path_text!r} has {size} bytes, more than "
                             f"{MAX_TARGET_FILE_BYTES}")
    resolved = path.resolve()
    # Named after the file when that name is free (reports then say "mech.f"), else a
    # name of its own; a file loaded twice is the same module.
    stem = re.sub(r"\W", "_", path.name[:-3], flags=re.ASCII) or "target"
    for module_name in (stem, f"_exactdp_target_{stem}_{zlib.crc32(str(resolved).encode()):08x}"):
        known = sys.modules.get(module_name)
        if known is None:
            break
        if getattr(known, "__file__", None) == str(resolved):
            return known
    loader_spec = importlib.util.spec_from_file_location(module_name, resolved)
    if loader_spec is None or loader_spec.loader is None:
        raise ParameterError(f"{what} {spec!r}: cannot load {path_text!r} as a module")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = module
    folder = str(resolved.parent)
    added = folder not in sys.path
    if added:  # as ``python file.py`` does: the file's folder first, for its own imports
        sys.path.insert(0, folder)
    try:
        loader_spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    finally:
        if added and folder in sys.path:
            sys.path.remove(folder)
    return module


def _call_factory(factory: Any, args: tuple[Any, ...], kwargs: dict[str, Any], spec: str,
                  what: str, seconds: int | None) -> Any:
    if not callable(factory):
        raise ParameterError(f"{what} {spec!r}: {type(factory).__name__} object is not "
                             f"callable, so it cannot take arguments")
    try:
        with time_limit(seconds):
            return factory(*args, **kwargs)
    except Timeout:
        raise ParameterError(f"{what} {spec!r}: the factory did not return within {seconds} "
                             f"s (--time-limit)") from None
    except KeyboardInterrupt:
        raise
    except ExactDPError as exc:
        raise ParameterError(f"{what} {spec!r}: {exc}") from None
    except BaseException as exc:  # noqa: BLE001 - the factory's failure, SystemExit included
        raise ParameterError(f"{what} {spec!r}: the factory raised "
                             f"{exception_text(exc)}") from None


def neighbour_pairs(inputs: Sequence[Any],
                    pairs: Sequence[tuple[Any, Any]] | None) -> list[tuple[Any, Any]]:
    """The given neighbouring pairs (each side one of ``inputs``), else consecutive inputs
    (at least two needed)."""
    if pairs is not None:
        given = list(pairs)
        index = {c for c in inputs if _hashable(c)}
        for pair in given:
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise ParameterError(f"neighbours: each entry must be a pair (a, b) of inputs, "
                                     f"got {pair!r}")
            for side in pair:
                if not _among(side, inputs, index):
                    raise ParameterError(
                        f"neighbours: the pair {pair!r} names {side!r}, which is not among the "
                        f"audited inputs; add it to the inputs or leave the pair out")
        return given
    if len(inputs) < 2:
        raise ParameterError("inputs must contain at least two values (a neighbouring pair)")
    return [(inputs[i], inputs[i + 1]) for i in range(len(inputs) - 1)]


def _among(x: Any, inputs: Sequence[Any], index: set[Any]) -> bool:
    """``x`` equal to one of ``inputs`` (``index``: the hashable ones)."""
    try:
        return x in index or any(x == c for c in inputs if not _hashable(c))
    except TypeError:  # x itself unhashable
        return any(x == c for c in inputs)


def _hashable(x: Any) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


#: Largest collection of declared outputs that is not a range.
MAX_DECLARED_OUTPUTS = 10**6


def declared(obj: object, name: str) -> Any:
    """The attribute ``name`` the audited object declares (``d``, ``outputs``,
    ``reference``...), or None; a property that raises is a bad declaration."""
    try:
        return getattr(obj, name, None)
    except Exception as exc:  # noqa: BLE001 - a third party's property may raise anything
        raise ParameterError(f"the target's attribute {name!r} raised "
                             f"{exception_text(exc)}") from None


def declared_outputs(outputs: object, name: str = "outputs") -> range | frozenset[Any] | None:
    """Declared outputs as a range (``LO..HI``, step 1) or a frozenset of exact outcomes."""
    if outputs is None:
        return None
    if isinstance(outputs, range):
        if outputs.step != 1 or outputs.start >= outputs.stop:  # len() overflows on huge ones
            raise ParameterError(f"{name} = {outputs!r} must be a non-empty range with step 1")
        return outputs
    if isinstance(outputs, (str, bytes)) or not isinstance(outputs, Iterable):
        raise ParameterTypeError(f"{name} = {show(outputs)} must be a range LO..HI or a "
                                 f"collection of outcomes")
    try:
        items = list(itertools.islice(iter(outputs), MAX_DECLARED_OUTPUTS + 1))
    except Exception as exc:  # noqa: BLE001 - a third party's iterable
        raise ParameterError(f"{name}: iterating it raised {exception_text(exc)}") from None
    if len(items) > MAX_DECLARED_OUTPUTS:
        raise ResourceLimitError(f"{name} has more than {MAX_DECLARED_OUTPUTS} values; "
                                 f"declare a range LO..HI instead")
    try:
        return frozenset(check_outcome(o, None, f"{name}: a declared outcome", {})
                         for o in items)
    except Abort as abort:
        raise ParameterError(abort.finding.message.replace("returned ", "is ")) from None
