"""A command that stops or fails after some of its files were written says which.

``figures`` writes many files over a long run, and ``plot`` or a release with ``--output``
prints after its file is in place: a deadline, a failed write, an interrupt or a failed
standard output after a file was written must name that file (status 1, or 130 when
interrupted), never claim that nothing was written; with nothing written the line and
status 2 stay as they were.
"""

from __future__ import annotations

import errno
import io
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from exactdp.cli import main
from exactdp.cli._common import DeadlineReached
from exactdp.files import OutputPath, OutputWriteError
from exactdp.plot import draw, figures

FILES = ["first.txt", "second.txt", "third.txt"]


def _paper(stop: Callable[[], None], after: int) -> Callable[[], figures.Paper]:
    """A paper writing FILES in order and calling ``stop`` once ``after`` were written."""
    def write(outputs: Mapping[str, OutputPath], quick: bool,
              progress: Callable[[str], None]) -> list[str]:
        for i, name in enumerate(FILES):
            if i == after:
                stop()
            outputs[name].write(f"{name}\n")
        return FILES

    return lambda: figures.Paper("test paper", lambda quick: FILES, write)


def _deadline() -> None:
    raise DeadlineReached(7)


def _write_fails() -> None:
    raise OutputWriteError("cannot write 'third.txt': No space left on device (the disk is "
                           "full); any existing file there is unchanged")


def _ctrl_c() -> None:
    raise KeyboardInterrupt


def _figures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             stop: Callable[[], None], after: int) -> tuple[int, str, Path]:
    monkeypatch.setitem(figures.PAPERS, "004", _paper(stop, after))
    monkeypatch.setattr(draw, "require_matplotlib", lambda: None)
    out = tmp_path / "figs"
    rc = main(["figures", "--paper", "004", "--output", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return rc, lines[0], out


@pytest.mark.parametrize(("stop", "status", "words"), [
    (_deadline, 1, "stopped after --max-seconds 7"),
    (_write_fails, 1, "No space left on device"),
    (_ctrl_c, 130, "interrupted"),
], ids=["deadline", "write-failure", "interrupt"])
def test_figures_stopped_after_two_files_names_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        stop: Callable[[], None], status: int, words: str) -> None:
    rc, line, out = _figures(tmp_path, monkeypatch, capsys, stop, after=2)
    assert rc == status
    assert words in line
    assert "nothing was written" not in line and "nothing was released" not in line
    assert "2 complete file(s)" in line and "first.txt" in line and "second.txt" in line
    assert "nothing else was written" in line
    assert sorted(p.name for p in out.iterdir()) == ["first.txt", "second.txt"]


@pytest.mark.parametrize("stop", [_deadline, _write_fails], ids=["deadline", "write-failure"])
def test_figures_stopped_before_any_file_says_nothing_was_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        stop: Callable[[], None]) -> None:
    rc, line, out = _figures(tmp_path, monkeypatch, capsys, stop, after=0)
    assert rc == 2
    assert "nothing was" in line and "complete file" not in line
    assert not out.exists(), "the directory figures made is removed again when empty"


class _FullStream(io.StringIO):
    def write(self, s: str) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_plot_whose_stdout_fails_after_the_picture_names_the_picture(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    monkeypatch.setattr(sys, "stdout", _FullStream())
    target = tmp_path / "pmf.svg"
    rc = main(["plot", "pmf", "geosample", "--n", "4", "--epsilon", "1/2", "--count", "1",
               "--output", str(target), "--json"])
    err = capsys.readouterr().err
    assert rc == 1 and target.exists()
    assert "pmf.svg" in err and "nothing was written" not in err
    assert "Traceback" not in err


def test_a_release_written_to_its_file_but_not_printed_says_where_it_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdout", _FullStream())
    target = tmp_path / "out.json"
    rc = main(["sample", "geosample", "--n", "8", "--epsilon", "1/2", "--count", "3",
               "--output", str(target), "--json"])
    err = capsys.readouterr().err
    assert rc == 1 and target.exists()
    last = err.splitlines()[-1]
    assert "DRAWN" in last and "out.json" in last and "NOT delivered" not in last
