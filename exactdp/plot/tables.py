"""Tables for the regenerated figures and the reports: GitHub-style Markdown
(:func:`markdown_table`) and a self-contained HTML page (:func:`html_table`,
:func:`html_page`: inline CSS, nothing fetched from the network)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

__all__ = ["CSS", "html_page", "html_table", "markdown_table"]

def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub-style Markdown table (``|`` in cells escaped)."""
    def cell(x: Any) -> str:
        return str(x).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in headers) + " |",
             "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(x) for x in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def html_table(headers: Sequence[str], rows: Sequence[Sequence[Any]],
               caption: str = "") -> str:
    """An HTML ``<table>`` with every cell escaped."""
    out = ["<table>"]
    if caption:
        out.append(f"<caption>{html.escape(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
               + "</tr></thead><tbody>")
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{html.escape(str(x))}</td>" for x in row) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


#: The page style: inline, no fonts or images from the network.
CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2em auto;
       max-width: 70em; padding: 0 1em; color: #212529; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.4em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #f1f3f5; }
code, .exact { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.92em;
               word-break: break-all; }
.verdict { display: inline-block; padding: 0.3em 0.8em; border-radius: 0.3em; color: white;
           font-weight: 700; letter-spacing: 0.03em; }
.pass { background: #2b8a3e; } .violation, .mismatch { background: #c92a2a; }
.broken { background: #862e9c; } .nodetect { background: #e67700; }
.note { color: #555; font-size: 0.9em; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }
"""


def html_page(title: str, body: str) -> str:
    """A complete, self-contained HTML5 page (inline CSS; nothing fetched)."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{html.escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            f"{body}\n</body>\n</html>\n")
