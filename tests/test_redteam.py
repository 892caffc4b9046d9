"""The red-team run (``tests/redteam/redteam.py``): a few hundred bad inputs and faults
against every command, each in its own process; none may end as a silent wrong answer,
status 4, a traceback or a hang.  Minutes long: ``python -m pytest -m slow
tests/test_redteam.py`` (or run the script, which prints the counts by class)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent / "redteam" / "redteam.py"


def _driver():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("exactdp_redteam", HERE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_red_team_finds_nothing_silent_crashing_or_hanging(capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    rc = _driver().main([])
    out = capsys.readouterr().out
    assert rc == 0, out[-5000:]


def test_the_driver_classifies_a_planted_silent_answer_and_a_crash(tmp_path: Path) -> None:
    """The classifier itself: an accepted bad input is ``silent``, status 4 ``status4``,
    a traceback ``traceback``, a clean refusal ``clear`` (each from a real process)."""
    rt = _driver()
    py = [sys.executable, "-c"]

    def klass(code: str, expect: str) -> str:
        case = rt.Case("planted", [], expect)
        original = rt.subprocess.Popen

        def popen(cmd, **kw):  # type: ignore[no-untyped-def]
            return original([*py, code], **kw)

        rt.subprocess.Popen = popen
        try:
            return rt.run_case(case)[0]
        finally:
            rt.subprocess.Popen = original

    assert klass("print('released 3')", "refuse") == "silent"
    assert klass("import sys; sys.exit(4)", "refuse") == "status4"
    assert klass("raise ValueError('x')", "refuse") == "traceback"
    assert klass("import sys; print('error: x', file=sys.stderr); sys.exit(2)",
                 "refuse") == "clear"
    assert klass("import sys; print('a\\nb', file=sys.stderr); sys.exit(2)",
                 "refuse") == "unclear"
    assert subprocess.run([sys.executable, str(HERE), "--help"], capture_output=True,
                          check=False).returncode == 0
