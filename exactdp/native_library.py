"""Where the optional compiled kernels are found (one rule for all of them).

exactdp's C kernels (:mod:`exactdp.histograms.native`, :mod:`exactdp.native_samplers`,
:mod:`exactdp.projections.fast`) are optional extension modules loaded with :mod:`ctypes`.
The compiled file is looked for next to the Python module first (an installed package), then
in every other copy of the same package directory on ``sys.path``: ``python -m pytest`` in a
checkout imports the source tree, while ``pip install .`` compiled the kernels into
site-packages.
"""

from __future__ import annotations

import importlib.machinery
import sys
from pathlib import Path

__all__ = ["candidates"]


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
