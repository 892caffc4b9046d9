"""Standard output, standard error and output files that cannot be written.

Every such failure is one line on stderr: status 2 when nothing was drawn (standard output
closed or full is found before any work), status 1 with a line saying the release was drawn
and not delivered when the failure comes after the noise was drawn; never status 4, never a
traceback.
"""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from exactdp.cli import main
from exactdp.cli._common import LINE_CAP, clip

ROOT = Path(__file__).resolve().parents[1]

SAMPLE = ["sample", "geosample", "--n", "8", "--epsilon", "1/2", "--count", "3", "--json"]
CHECK = ["check", "geosample", "--n", "4", "--epsilon", "1/4", "--json"]


def _exactdp(argv: list[str], **redirect: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "exactdp.cli", *argv], cwd=ROOT, text=True,
                          timeout=120, check=False, **redirect)  # type: ignore[call-overload]


def _one_line(err: str, *words: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


@pytest.mark.parametrize("argv", [SAMPLE, CHECK, ["--help"]])
def test_a_full_stdout_is_refused_before_anything_is_drawn(argv: list[str]) -> None:
    with open("/dev/full", "w") as full:
        done = _exactdp(argv, stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 2
    _one_line(done.stderr, "/dev/full", "nothing was run or drawn")


@pytest.mark.parametrize("argv", [SAMPLE, CHECK])
def test_a_closed_stdout_is_refused_before_anything_is_drawn(argv: list[str]) -> None:
    code = ("import os, sys, runpy; os.close(1); sys.argv = ['exactdp', *sys.argv[1:]]; "
            "runpy.run_module('exactdp.cli', run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", code, *argv], cwd=ROOT, text=True,
                          timeout=120, check=False, stderr=subprocess.PIPE)
    assert done.returncode == 2
    _one_line(done.stderr, "standard output is closed")


def test_a_closed_or_full_stderr_does_not_fail_the_command() -> None:
    with open("/dev/full", "w") as full:
        done = _exactdp(CHECK, stdout=subprocess.PIPE, stderr=full)
    assert done.returncode == 0 and '"verdict"' in done.stdout


class _FullStream(io.StringIO):
    """A stdout that takes nothing: every write fails as a full disk does."""

    def write(self, s: str) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_release_lost_on_stdout_says_it_was_drawn(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", _FullStream())
    rc = main(SAMPLE)
    err = capsys.readouterr().err
    assert rc == 1
    _one_line(err, "No space left on device", "DRAWN", "NOT delivered")


def test_a_failed_write_of_a_command_that_draws_nothing_is_status_2(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", _FullStream())
    rc = main(CHECK)
    err = capsys.readouterr().err
    assert rc == 2
    line = _one_line(err, "No space left on device", "nothing was written")
    assert "DRAWN" not in line


def test_a_release_lost_in_its_output_file_says_it_was_drawn(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    def no_space(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_space)
    target = tmp_path / "out.json"
    rc = main([*SAMPLE[:-1], "--output", str(target)])
    err = capsys.readouterr().err
    assert rc == 1 and not target.exists() and list(tmp_path.iterdir()) == []
    assert "Traceback" not in err
    last = err.splitlines()[-1]  # after the line saying what the release spends
    assert "the disk is full" in last and "DRAWN" in last


def test_an_output_on_a_full_file_system_is_refused_before_drawing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.statvfs

    class Full:
        def __init__(self, st: os.statvfs_result) -> None:
            self.f_blocks, self.f_bfree, self.f_bavail = st.f_blocks or 1, 0, 0

    monkeypatch.setattr(os, "statvfs", lambda p: Full(real(p)))
    rc = main([*SAMPLE[:-1], "--output", str(tmp_path / "out.json")])
    err = capsys.readouterr().err
    assert rc == 2
    _one_line(err, "no space left", "nothing was run or drawn")


def test_error_lines_cut_long_quoted_values() -> None:
    line = clip("error: --n '" + "9" * 10_000 + "' must be small")
    assert len(line) < 400 and "(10002 characters)" in line and line.endswith("must be small")
    assert len(clip("x" * 50_000)) <= LINE_CAP + 40
    assert clip("short 'value'") == "short 'value'"


def test_a_long_bad_value_gives_a_short_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["sample", "geosample", "--n", "x" * 9000, "--epsilon", "1/2", "--count", "1"])
    err = capsys.readouterr().err
    assert rc == 2
    assert len(_one_line(err)) < 600
