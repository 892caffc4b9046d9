"""The accounting guide page prints what the code prints.

Its Python blocks run through the tutorial runner (every shown output compared line by line);
its ``console`` blocks are run command by command (``$ exactdp ...``) in a temporary
directory and each command's standard output must be exactly the lines shown under it.
A planted wrong line shows that the console check compares.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from exactdp.tutorials.runner import parse, run

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "exactdp" / "docs" / "guide" / "accounting.md"


def console_steps(text: str) -> list[tuple[list[str], list[str]]]:
    """``(argv after 'exactdp', shown stdout lines)`` for every ``$ exactdp`` line."""
    steps: list[tuple[list[str], list[str]]] = []
    for block in re.findall(r"^```console\n(.*?)^```", text, re.MULTILINE | re.DOTALL):
        for line in block.splitlines():
            if line.startswith("$ "):
                argv = shlex.split(line[2:])
                assert argv[0] == "exactdp", line
                steps.append((argv[1:], []))
            else:
                assert steps, f"output before any command: {line!r}"
                steps[-1][1].append(line)
    return steps


def run_console(text: str, where: Path) -> int:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for argv, shown in console_steps(text):
        done = subprocess.run([sys.executable, "-m", "exactdp.cli", *argv], check=False,
                              cwd=where, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (argv, done.stderr)
        printed = [line.rstrip() for line in done.stdout.rstrip("\n").splitlines()]
        assert printed == [line.rstrip() for line in shown], (argv, printed)
    return len(console_steps(text))


def test_python_blocks_print_what_is_shown(tmp_path: Path) -> None:
    result = run(parse(PAGE.read_text(encoding="utf-8"), "accounting", PAGE), tmp_path)
    assert result.ran >= 6 and not result.skipped


def test_console_blocks_print_what_is_shown(tmp_path: Path) -> None:
    assert run_console(PAGE.read_text(encoding="utf-8"), tmp_path) >= 5


def test_a_wrong_shown_line_fails(tmp_path: Path) -> None:
    text = PAGE.read_text(encoding="utf-8")
    planted = text.replace("in [0.655041, 0.655042], delta = 0\n```",
                           "in [0.655041, 0.655043], delta = 0\n```", 1)
    assert planted != text
    with pytest.raises(AssertionError):
        run_console(planted, tmp_path)
