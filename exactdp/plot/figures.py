"""The papers' figures regenerated from the implementation: ``exactdp figures --paper P``.

One entry per paper in :data:`PAPERS`: the files it writes (so that every output path is
checked before any work, :class:`exactdp.files.OutputPath`) and the function that computes
and draws them.  Paper 004 (Balcer & Vadhan) is :mod:`exactdp.plot.paper004`, paper 003's
Figure 3 (ALP) :mod:`exactdp.plot.paper003`; the other papers join by adding an entry here
(the convolution MSE plots as ``002``, Li & Li's projection curves as ``001``), each a
module of its own with the same two functions ``files(quick)`` and
``write(outputs, quick, progress)``.

Tables are written as Markdown and as a standalone HTML page (:mod:`exactdp.plot.tables`:
no network, inline CSS), pictures as PNG.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from exactdp.files import OutputFileError, OutputPath
from exactdp.params import ParameterError
from exactdp.plot.tables import html_page, html_table, markdown_table

__all__ = [
    "PAPERS",
    "Paper",
    "estimate_ns",
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
    #: ``--figure N``: the files that draw the paper's Figure N (None: no per-figure choice).
    figure_files: Mapping[int, Sequence[str]] | None = None
    #: ``estimate(quick, names)``: processor nanoseconds writing ``names`` would take, timed
    #: on a sample before any work (None: not estimated).
    estimate: Callable[[bool, Sequence[str]], int] | None = None
    #: ``set_workers(n)``: run the paper's repetitions in ``n`` processes (None: one only).
    set_workers: Callable[[int], None] | None = None


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

    return Paper(paper001.TITLE, paper001.files, paper001.write, paper001.FIGURE_FILES,
                 paper001.estimate_ns, paper001.set_workers)


#: Paper number (001 Li & Li, 002 convolution, 003 ALP, 004 Balcer & Vadhan) -> its figures,
#: loaded on demand.
PAPERS: dict[str, Callable[[], Paper]] = {"001": _paper_001, "002": _paper_002,
                                          "003": _paper_003, "004": _paper_004}


def _names(entry: Paper, paper: str, quick: bool, figure: int | None) -> list[str]:
    """The files to write: all of the paper's, or those drawing its Figure ``figure``."""
    names = list(entry.files(quick))
    if figure is None:
        return names
    if entry.figure_files is None:
        raise ParameterError(f"--figure: paper {paper} draws all its figures at once (omit "
                             f"--figure)")
    if figure not in entry.figure_files:
        raise ParameterError(f"--figure {figure}: paper {paper} regenerates Figures "
                             f"{', '.join(map(str, sorted(entry.figure_files)))}")
    chosen = [n for n in names if n in entry.figure_files[figure]]
    if not chosen:
        raise ParameterError(f"--figure {figure} of paper {paper} needs the [experiments] extra "
                             f"(scikit-learn): pip install 'exactdp[experiments]'")
    return chosen


def estimate_ns(paper: str, quick: bool = False, figure: int | None = None) -> int:
    """Processor nanoseconds ``write_figures`` would take (0 where not estimated); usage
    errors as :func:`write_figures` raises them."""
    if paper not in PAPERS:
        return 0  # write_figures says why
    entry = PAPERS[paper]()
    names = _names(entry, paper, quick, figure)
    return entry.estimate(quick, names) if entry.estimate is not None else 0


def write_figures(paper: str, output_dir: str, quick: bool = False, force: bool = False,
                  progress: Progress | None = None, figure: int | None = None,
                  workers: int = 1) -> list[str]:
    """Regenerate ``paper``'s figures (or only its Figure ``figure``) into ``output_dir``
    (created if its parent exists); every file is checked first (never over an existing one
    without ``force``).  ``workers``: processes for the repetitions of the papers that run
    experiments (the same results for every count).  Returns one line per file written."""
    if paper not in PAPERS:
        raise ParameterError(f"--paper {paper!r}: exactdp regenerates the figures of paper "
                             f"{', '.join(sorted(PAPERS))} (others join as they land)")
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 64:
        raise ParameterError(f"--workers {workers!r} must be an integer in 1..64")
    entry = PAPERS[paper]()
    if workers != 1 and entry.set_workers is None:
        raise ParameterError(f"--workers {workers}: paper {paper} has no repetitions to share "
                             f"out (only paper 001's experiments do)")
    names = _names(entry, paper, quick, figure)
    if entry.set_workers is not None:
        entry.set_workers(workers)
    directory = Path(output_dir)
    if directory.exists() and not directory.is_dir():
        raise OutputFileError(f"--output {output_dir!r} exists and is not a directory")
    parent = directory.parent if str(directory.parent) else Path(".")
    if not directory.exists() and not parent.is_dir():
        raise OutputFileError(f"--output {output_dir!r}: directory {str(parent)!r} does not "
                              f"exist")
    if directory.exists():
        outputs = {name: OutputPath.check(str(directory / name), force) for name in names}
    else:
        if not os.access(parent, os.W_OK | os.X_OK):
            raise OutputFileError(f"--output {output_dir!r}: directory {str(parent)!r} is not "
                                  f"writable")
        directory.mkdir()
        outputs = {name: OutputPath(directory / name, force) for name in names}
        try:
            return list(entry.write(outputs, quick, progress or (lambda message: None)))
        except BaseException:
            with contextlib.suppress(OSError):
                directory.rmdir()  # made here and still empty: leave nothing behind
            raise
    return list(entry.write(outputs, quick, progress or (lambda message: None)))
