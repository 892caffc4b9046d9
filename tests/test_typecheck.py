"""mypy over the package (slow: about 15 s of CPU; run with ``-m slow``).

A path not yet clean may be listed in ``NOT_YET_CLEAN`` so that the rest of the package
cannot regress unnoticed; remove an entry once its errors are fixed.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Paths whose mypy errors are not counted (yet).
NOT_YET_CLEAN: tuple[str, ...] = ()

_ERROR = re.compile(r"^(?P<path>[^:]+):\d+: error:", re.MULTILINE)


def errors_outside(report: str, skipped: tuple[str, ...]) -> list[str]:
    """The error lines of a mypy report whose file is not under one of ``skipped``."""
    return [m.group(0) for m in _ERROR.finditer(report)
            if not m.group("path").replace("\\", "/").startswith(skipped)]


def test_errors_outside_filters_by_path() -> None:
    report = ("exactdp/audit/cost.py:1: error: x  [operator]\n"
              "exactdp/cli/audit.py:2: error: y  [assignment]\n"
              "exactdp/cli/check.py:3: error: z  [misc]\n"
              "exactdp/cli/check.py:3: note: a note\n")
    skipped = ("exactdp/audit/", "exactdp/cli/audit.py")
    assert errors_outside(report, skipped) == ["exactdp/cli/check.py:3: error:"]
    assert len(errors_outside(report, ())) == 3


@pytest.mark.slow
def test_mypy_is_clean_outside_the_listed_paths() -> None:
    pytest.importorskip("mypy")
    done = subprocess.run([sys.executable, "-m", "mypy", "exactdp"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900, check=False)
    assert "error:" in done.stdout or done.returncode == 0, done.stdout + done.stderr
    assert errors_outside(done.stdout, NOT_YET_CLEAN) == [], done.stdout
