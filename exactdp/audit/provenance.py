"""Where an audit ran: exactdp, Python and audited-library versions, the platform, the
command.  A report is evidence; evidence says how it was produced.

:func:`environment` is called when a report is made (the audited library is imported by
then): it records exactdp's version, the Python implementation and version, the platform,
and the version of every library in :data:`AUDITED_LIBRARIES` that is imported, plus the
top-level package of the audited mechanism's module when it is not exactdp or the
standard library.  The command line is added by the CLI (:func:`command_line`).
"""

from __future__ import annotations

import functools
import importlib.metadata
import platform
import shlex
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["AUDITED_LIBRARIES", "command_line", "environment"]

#: Libraries whose versions a report records whenever they are imported (module names).
AUDITED_LIBRARIES = ("diffprivlib", "opendp", "pydp", "tmlt", "numpy", "scipy")


#: Distribution names that differ from the module name.
_DISTRIBUTIONS = {"tmlt": "tmlt.core", "pydp": "python-dp"}


@functools.cache
def _version(module: str) -> str | None:
    """The installed distribution's version of top-level ``module`` (None if unknown)."""
    try:
        return importlib.metadata.version(_DISTRIBUTIONS.get(module, module))
    except importlib.metadata.PackageNotFoundError:
        version = getattr(sys.modules.get(module), "__version__", None)
        return version if isinstance(version, str) else None


def _top_package(mechanism: str) -> str | None:
    """``"pkg"`` for a mechanism named ``pkg.mod.func`` or ``pkg.mod:func(...)``."""
    head = mechanism.split(":", 1)[0].split("(", 1)[0].split(".", 1)[0].strip()
    if not head.isidentifier() or head in ("exactdp", "__main__") \
            or head in sys.stdlib_module_names:
        return None
    return head


@functools.cache
def _platform() -> str:
    return platform.platform()


def environment(mechanism: str = "") -> dict[str, Any]:
    """exactdp, Python, platform and audited-library versions, as JSON-safe strings.

    >>> env = environment("diffprivlib.mechanisms.Binary.randomise")
    >>> sorted(env)[:3], env["exactdp"] == _version("exactdp")
    (['exactdp', 'libraries', 'platform'], True)
    """
    names = [m for m in AUDITED_LIBRARIES if m in sys.modules]
    top = _top_package(mechanism)
    if top is not None and top in sys.modules and top not in names:
        names.append(top)
    return {"exactdp": _version("exactdp") or "unknown",
            "python": f"{platform.python_implementation()} {platform.python_version()}",
            "platform": _platform(),
            "libraries": {m: _version(m) for m in names}}  # None: a local, uninstalled module


def command_line(argv: Sequence[str]) -> str:
    """``exactdp ARGV...`` quoted as a shell would need it.

    >>> command_line(["audit", "m:f(1, 2)", "--inputs", "0..8"])
    "exactdp audit 'm:f(1, 2)' --inputs 0..8"
    """
    return shlex.join(["exactdp", *argv])
