"""Where the optional compiled kernels are found (one rule for all of them).

exactdp's C kernels (:mod:`exactdp.histograms.native`, :mod:`exactdp.native_samplers`,
:mod:`exactdp.projections.fast`) are optional extension modules loaded with :mod:`ctypes`.
The compiled file is looked for next to the Python module first (an installed package), then
in every other copy of the same package directory on ``sys.path``: ``python -m pytest`` in a
checkout imports the source tree, while ``pip install .`` compiled the kernels into
site-packages.
"""

from __future__ import annotations

import ctypes
import importlib.machinery
import os
import sys
from pathlib import Path

__all__ = ["candidates", "load"]


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
    if os.environ.get("EXACTDP_NATIVE", "1") == "0":
        return None, "disabled (EXACTDP_NATIVE=0)"
    paths = candidates(module_file, name)
    if not paths:
        return None, "not built (the optional C extension failed to compile or was not installed)"
    try:
        lib = ctypes.CDLL(str(paths[0]))
    except OSError as exc:
        return None, f"could not be loaded: {exc}"
    if getattr(lib, version_symbol)() != version:
        return None, f"{paths[0].name} is a different version: reinstall the package"
    return lib, f"native ({paths[0].name})"
