"""The papers' figures regenerated from the implementation: ``exactdp figures --paper P``.

One entry per paper in :data:`PAPERS`: the files it writes (so that every output path is
checked before any work, :class:`exactdp.files.OutputPath`) and the function that computes
and draws them.  Paper 004 (Balcer & Vadhan) is :mod:`exactdp.plot.paper004`, paper 003's
Figure 3 (ALP) :mod:`exactdp.plot.paper003`; the other papers join by adding an entry here
(the convolution MSE plots as ``002``, Li & Li's projection curves as ``001``), each a
module of its own with the same two functions ``files(quick)`` and
``write(outputs, quick, progress)``.

Tables are written as Markdown and as a standalone HTML page (:func:`markdown_table`,
:func:`html_table`, :func:`html_page`: no network, inline CSS), pictures as PNG.
"""

from __future__ import annotations

import html
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exactdp.files import OutputFileError, OutputPath
from exactdp.params import ParameterError

__all__ = [
    "PAPERS",
    "Paper",
    "html_page",
    "html_table",
    "markdown_table",
    "write_figures",
]

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Paper:
    """A paper whose figures exactdp regenerates: ``files(quick)`` names what ``write``
    produces; ``write(outputs, quick, progress)`` computes and writes them (``outputs`` maps
    each name to its checked :class:`OutputPath`) and returns one line per file."""

    title: str
    files: Callable[[bool], Sequence[str]]
    write: Callable[[Mapping[str, OutputPath], bool, Progress], Sequence[str]]


def _paper_004() -> Paper:
    from exactdp.plot import paper004

    return Paper(paper004.TITLE, paper004.files, paper004.write)


def _paper_003() -> Paper:
    from exactdp.plot import paper003

    return Paper(paper003.TITLE, paper003.files, paper003.write)


def _paper_002() -> Paper:
    from exactdp.plot import paper002

    return Paper(paper002.TITLE, paper002.files, paper002.write)


def _paper_001() -> Paper:
    from exactdp.plot import paper001

    return Paper(paper001.TITLE, paper001.files, paper001.write)


#: Paper number (001 Li & Li, 002 convolution, 003 ALP, 004 Balcer & Vadhan) -> its figures,
#: loaded on demand.
PAPERS: dict[str, Callable[[], Paper]] = {"001": _paper_001, "002": _paper_002,
                                          "003": _paper_003, "004": _paper_004}


def write_figures(paper: str, output_dir: str, quick: bool = False, force: bool = False,
                  progress: Progress | None = None) -> list[str]:
    """Regenerate ``paper``'s figures into ``output_dir`` (created if its parent exists);
    every file is checked first (never over an existing one without ``force``).  Returns one
    line per file written."""
    if paper not in PAPERS:
        raise ParameterError(f"--paper {paper!r}: exactdp regenerates the figures of paper "
                             f"{', '.join(sorted(PAPERS))} (others join as they land)")
    entry = PAPERS[paper]()
    directory = Path(output_dir)
    if directory.exists() and not directory.is_dir():
        raise OutputFileError(f"--output {output_dir!r} exists and is not a directory")
    parent = directory.parent if str(directory.parent) else Path(".")
    if not directory.exists() and not parent.is_dir():
        raise OutputFileError(f"--output {output_dir!r}: directory {str(parent)!r} does not "
                              f"exist")
    if directory.exists():
        outputs = {name: OutputPath.check(str(directory / name), force)
                   for name in entry.files(quick)}
    else:
        if not os.access(parent, os.W_OK | os.X_OK):
            raise OutputFileError(f"--output {output_dir!r}: directory {str(parent)!r} is not "
                                  f"writable")
        directory.mkdir()
        outputs = {name: OutputPath(directory / name, force) for name in entry.files(quick)}
    return list(entry.write(outputs, quick, progress or (lambda message: None)))


# --------------------------------------------------------------------------- tables


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
