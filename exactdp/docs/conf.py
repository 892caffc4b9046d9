"""Sphinx configuration of the exactdp documentation (Markdown sources through MyST).

Build: ``python -m sphinx -W -n -b html exactdp/docs DIR`` (``-W``: a warning is an error;
``-n``: every cross-reference must resolve).  Generated pages (the command-line reference,
the claims and slips, the benchmarks) come from ``_ext/exactdp_docs.py`` at build time.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

project = "exactdp"
author = "the exactdp authors"
copyright = "the exactdp authors"

try:
    from importlib.metadata import version as _version

    release = _version("exactdp")
except Exception:  # noqa: BLE001 - building from a source tree that is not installed
    release = ""

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "exactdp_docs",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "**/README.md"]
templates_path: list[str] = []

myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3

# The API reference documents what the modules export; signatures without type hints (the
# docstrings state the types in the papers' words, and hints such as ``Fraction | str`` would
# each need a target).
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_preserve_defaults = True
napoleon_google_docstring = False
napoleon_numpy_docstring = False

html_title = "exactdp"
try:
    import furo  # noqa: F401

    html_theme = "furo"
except ImportError:  # the built-in theme, when furo is not installed
    html_theme = "alabaster"
html_static_path: list[str] = []
html_show_sourcelink = False
