"""Where the optional compiled kernels are found (one rule for all of them).

exactdp's C kernels (:mod:`exactdp.histograms.native`, :mod:`exactdp.native_samplers`,
:mod:`exactdp.projections.fast`) are optional extension modules loaded with :mod:`ctypes`;
the white-box audit's (:mod:`exactdp.audit.bytecode`, :mod:`exactdp.audit.draw_native`) are
CPython extension modules (:func:`load_module`).
The compiled file is looked for next to the Python module first (an installed package), then
in every other copy of the same package directory on ``sys.path``: ``python -m pytest`` in a
checkout imports the source tree, while ``pip install .`` compiled the kernels into
site-packages.
"""

from __future__ import annotations

import ctypes
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["candidates", "load", "load_module"]


def candidates(module_file: str, name: str) -> list[Path]:
    """The compiled library ``name`` (e.g. ``"_gf2native"``) beside ``module_file`` (the
    loader's ``__file__``), then in the same package directory under each ``sys.path``
    entry; existing files only, in that order."""
    here = Path(module_file).resolve().parent
    package = here.relative_to(Path(__file__).resolve().parent.parent)  # e.g. exactdp/histograms
    dirs = [here] + [Path(entry) / package for entry in sys.path if entry]
    return [d / f"{name}{suffix}" for d in dirs
            for suffix in importlib.machinery.EXTENSION_SUFFIXES
            if (d / f"{name}{suffix}").is_file()]


def load(module_file: str, name: str, version_symbol: str,
         version: int) -> tuple[ctypes.CDLL | None, str]:
    """The compiled library ``name`` (first of :func:`candidates`) loaded with :mod:`ctypes`
    and its ``version_symbol()`` equal to ``version``, with the status line; ``(None, why)``
    when disabled (``EXACTDP_NATIVE=0``), not built, not loadable or of another version.
    The caller then declares the functions' argument types."""
    paths, why = _found(module_file, name)
    if not paths:
        return None, why
    try:
        lib = ctypes.CDLL(str(paths[0]))
    except OSError as exc:
        return None, f"could not be loaded: {exc}"
    if getattr(lib, version_symbol)() != version:
        return None, f"{paths[0].name} is a different version: reinstall the package"
    return lib, f"native ({paths[0].name})"


def load_module(module_file: str, name: str, version: int,
                switch: str = "") -> tuple[Any, str]:
    """The CPython extension module ``name`` (first of :func:`candidates`) imported as
    ``<package>.<name>``, its ``version()`` equal to ``version``, with the status line;
    ``(None, why)`` when disabled (``EXACTDP_NATIVE=0``, or ``switch=0`` for this one), not
    built, not importable (built for another Python) or of another version."""
    paths, why = _found(module_file, name)
    if why.startswith("disabled"):
        return None, why
    if switch and os.environ.get(switch, "1") == "0":
        return None, f"disabled ({switch}=0)"
    if not paths:
        return None, why
    package = Path(module_file).resolve().parent.relative_to(
        Path(__file__).resolve().parent.parent)
    try:
        spec = importlib.util.spec_from_file_location(
            ".".join((*package.parts, name)), paths[0])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except ImportError as exc:
        return None, f"could not be loaded: {exc}"
    if module.version() != version:
        return None, f"{paths[0].name} is a different version: reinstall the package"
    return module, f"native ({paths[0].name})"


def _found(module_file: str, name: str) -> tuple[list[Path], str]:
    """:func:`candidates`, or why there are none (disabled, or not built)."""
    if os.environ.get("EXACTDP_NATIVE", "1") == "0":
        return [], "disabled (EXACTDP_NATIVE=0)"
    paths = candidates(module_file, name)
    return paths, ("" if paths else
                   "not built (the optional C extension failed to compile or was not installed)")
