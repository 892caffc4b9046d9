"""A static, offline HTML page of the notebook ``explore_mechanism.py`` at its default settings.

``marimo export html`` writes a page that loads marimo's frontend from a CDN: opened
without a network it stays blank.  This writes a page that needs nothing: the notebook is
run (``app.run()``, the cells in order, as ``python explore_mechanism.py`` does), each
output is written as the HTML marimo rendered for it (Markdown as HTML, the figure as an
embedded PNG), and the interactive widgets, which need marimo's frontend, are replaced by
a table of their labels and current values.

Run: ``python -m exactdp.tutorials.notebook_export OUT.html`` (needs marimo and
matplotlib: ``pip install 'exactdp[notebook]'``).
"""

from __future__ import annotations

import html
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from exactdp.params import ParameterError

__all__ = ["NOTEBOOK", "export_static", "static_html"]

NOTEBOOK = Path(__file__).resolve().parent / "explore_mechanism.py"

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto;
       padding: 0 1rem; line-height: 1.5; color: #222; }
code { background: #f3f3f3; padding: 0 0.2em; border-radius: 3px; }
table { border-collapse: collapse; margin: 0.5rem 0; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.6rem; text-align: left; }
img { max-width: 100%; }
section.cell { margin: 1.5rem 0; }
p.note { color: #555; font-size: 0.9em; }
"""


def _run(notebook: Path) -> tuple[tuple[Any, ...], dict[str, Any]]:
    os.environ.setdefault("MPLBACKEND", "Agg")
    spec = importlib.util.spec_from_file_location("exactdp_notebook_export", notebook)
    if spec is None or spec.loader is None:
        raise ParameterError(f"notebook {notebook} cannot be loaded")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    outputs, defs = module.app.run()
    return tuple(outputs), dict(defs)


def _widgets(defs: dict[str, Any]) -> str:
    from marimo._plugins.ui._core.ui_element import UIElement

    rows = []
    for value in defs.values():
        if isinstance(value, UIElement):
            label = getattr(getattr(value, "_args", None), "label", "") or ""
            rows.append(f"<tr><td>{html.escape(str(label))}</td>"
                        f"<td><code>{html.escape(str(value.value))}</code></td></tr>")
    return ("<table><thead><tr><th>setting</th><th>value</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def static_html(notebook: Path = NOTEBOOK) -> str:
    """The page, as a string (see the module docstring)."""
    outputs, defs = _run(notebook)
    parts: list[str] = []
    widgets_shown = False
    for out in outputs:
        if out is None:
            continue
        text = getattr(out, "text", None)
        if not isinstance(text, str):
            continue
        if "<marimo-" in text:  # an interactive widget: needs marimo's frontend
            if not widgets_shown:
                parts.append("<section class='cell'><p class='note'>The settings (sliders "
                             "in <code>marimo run</code>; this page shows their default "
                             "values):</p>" + _widgets(defs) + "</section>")
                widgets_shown = True
            continue
        parts.append(f"<section class='cell'>{text}</section>")
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            "<title>Explore a counting mechanism, exactly</title>"
            f"<style>{_STYLE}</style></head><body>" + "\n".join(parts) + "</body></html>\n")


def export_static(output: Path, notebook: Path = NOTEBOOK, force: bool = False) -> Path:
    """Write :func:`static_html` to ``output`` (refusing an existing file unless ``force``)."""
    target = Path(output)
    if target.exists() and not force:
        raise ParameterError(f"{target} exists; pass force=True to replace it")
    page = static_html(notebook)
    temporary = target.with_name(target.name + ".tmp")
    temporary.write_text(page, encoding="utf-8")
    temporary.replace(target)
    return target


if __name__ == "__main__":  # pragma: no cover - a thin command
    if len(sys.argv) != 2:
        sys.exit("usage: python -m exactdp.tutorials.notebook_export OUT.html")
    try:
        print(export_static(Path(sys.argv[1])))
    except ParameterError as exc:
        sys.exit(f"error: {exc}")
