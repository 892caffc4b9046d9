"""Who is calling: exactdp's machinery, a file implementing a guarded function, or the
audited code; and which loaded modules are the user's own code.

:mod:`exactdp.audit.escape` allows a guarded function (a clock, ``random``...) when the
first caller outside the files implementing such functions is exactdp's machinery (the
exploring source's deadline, a facade's spot checks), and stops the audit otherwise.
"""

from __future__ import annotations

import os
import random
import secrets
import sys
import sysconfig
import uuid
from types import FrameType, ModuleType

__all__ = ["INFRASTRUCTURE", "KINDS", "kind", "own_code", "user_code", "user_modules", "where"]

_EXACTDP = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
#: exactdp files that run other people's code or draw real randomness themselves: a call
#: from them is the audited code's, not the machinery's.
_NOT_MACHINERY = ("examples" + os.sep, "tutorials" + os.sep, "randomness.py",
                  "native_samplers.py", "native_library.py", "adapters.py",
                  "audit" + os.sep + "shipped.py", "audit" + os.sep + "peers.py")
#: files that implement the guarded functions: a frame in them is skipped when looking for
#: the caller (``random.randint`` calls ``randrange`` calls ``getrandbits``...); also the
#: guards themselves and the timing count's recorders and trace functions, which call a
#: guarded function (``time.time``) on the audited code's behalf
_IMPLEMENTATION = frozenset(os.path.abspath(str(m.__file__)) for m in (random, secrets, uuid)) \
    | {os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
       for name in ("guarded_sources.py", "counted_runs.py", "bytecode.py")}
#: packages that run the tests or the workers, never audited code: their globals are left
#: alone by the scan of loaded modules
INFRASTRUCTURE = frozenset({"_pytest", "pytest", "pluggy", "hypothesis", "coverage", "dask",
                             "distributed", "tornado", "IPython", "ipykernel", "marimo",
                             "exactdp", "sympy", "gmpy2", "matplotlib", "mpmath"})

#: co_filename -> "machinery" | "implementation" | "other" (read directly on hot paths)
KINDS: dict[str, str] = {}


def kind(filename: str) -> str:
    """``"machinery"`` (exactdp's own audit and checking code), ``"implementation"`` (a file
    implementing guarded functions: ``random``, ``secrets``, ``uuid``, numpy's random
    package, the guards, frozen import machinery) or ``"other"`` (the audited code, its
    libraries); cached per file name (:data:`KINDS`)."""
    found = KINDS.get(filename)
    if found is None:
        path = os.path.abspath(filename) if not filename.startswith("<") else filename
        if path in _IMPLEMENTATION or "numpy" + os.sep + "random" + os.sep in path \
                or path.startswith("<frozen"):
            found = "implementation"
        elif path.startswith(_EXACTDP) and not path[len(_EXACTDP):].startswith(_NOT_MACHINERY):
            found = "machinery"
        else:
            found = "other"
        KINDS[filename] = found
    return found


def where(frame: FrameType) -> str:
    """``file:line (in function)`` of a frame, the file relative to the current directory
    when inside it."""
    path = frame.f_code.co_filename
    try:
        rel = os.path.relpath(path)
        path = rel if not rel.startswith("..") else path
    except ValueError:  # another drive
        pass
    return f"{path}:{frame.f_lineno} (in {frame.f_code.co_name})"


_LIBRARY_DIRS = tuple({os.path.abspath(p) + os.sep for key in ("purelib", "platlib", "stdlib",
                                                                 "platstdlib")
                       if (p := sysconfig.get_paths().get(key))})


def own_code(module: ModuleType) -> bool:
    """A module of the user's own code (not an installed library)."""
    path = getattr(module, "__file__", None)
    return isinstance(path, str) and not os.path.abspath(path).startswith(_LIBRARY_DIRS)


#: co_filename -> whether it is the user's own code (:func:`user_code`)
_OWN_FILES: dict[str, bool] = {}


def user_code(filename: str) -> bool:
    """Whether code compiled from ``filename`` is the user's own: neither exactdp's
    machinery nor a file implementing guarded functions, nor the standard library or an
    installed library (code compiled from a string, ``<string>``, counts as the user's)."""
    found = _OWN_FILES.get(filename)
    if found is None:
        found = kind(filename) == "other" and (
            filename.startswith("<") or not os.path.abspath(filename).startswith(_LIBRARY_DIRS))
        _OWN_FILES[filename] = found
    return found


_USER: dict[str, tuple[object, bool]] = {}


def user_modules() -> list[tuple[str, ModuleType]]:
    """The loaded modules of the user's own code (:func:`_user_module`), classified once."""
    out = []
    for name, module in list(sys.modules.items()):
        hit = _USER.get(name)
        if hit is None or hit[0] is not module:
            hit = (module, _user_module(name, module))
            _USER[name] = hit
        if hit[1]:
            out.append((name, module))  # type: ignore[arg-type]
    return out


def _user_module(name: str, module: object) -> bool:
    """A module of the user's own code: not exactdp's machinery, the test or worker
    infrastructure, the standard library or an installed library."""
    top = name.partition(".")[0]
    if not isinstance(module, ModuleType) or top in sys.stdlib_module_names:
        return False
    path = getattr(module, "__file__", None)
    if not isinstance(path, str):
        return False
    if top == "exactdp":  # its proofs are checking code wherever they are installed from
        return kind(path) == "other" and not name.startswith("exactdp.proofs")
    return top not in INFRASTRUCTURE and own_code(module)
