"""README.md: short, its set-up commands those CI runs, and its four examples run as printed.

The examples are read from README.md itself (fenced blocks), so the page and the tests cannot
drift apart: the Python blocks are executed, ``mech.py`` is written to a temporary directory
and audited by the ``exactdp`` command line exactly as the README prints it, and every
``exactdp ...`` line must exit with the status its ``# exit N`` comment states.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

from exactdp.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CI = ROOT / ".ci" / "run"
MAX_LINES = 250


def blocks(kind: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    return re.findall(rf"^```{kind}\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def block_starting(kind: str, first_line: str) -> str:
    found = [b for b in blocks(kind) if b.startswith(first_line)]
    assert len(found) == 1, f"README.md must hold one ```{kind} block starting {first_line!r}"
    return found[0]


def commands() -> list[tuple[list[str], int]]:
    """Every ``exactdp ...`` line of the README's ``sh`` blocks, with its expected status."""
    out = []
    for block in blocks("sh"):
        for line in block.splitlines():
            if not line.startswith("exactdp "):
                continue
            command, _, comment = line.partition("#")
            status = re.search(r"exit (\d+)", comment)
            out.append((shlex.split(command)[1:], int(status.group(1)) if status else 0))
    return out


def test_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines (at most {MAX_LINES})"


def test_setup_commands_are_what_ci_runs() -> None:
    setup = [line for block in blocks("sh") for line in block.splitlines()
             if line.startswith("python3 -m venv")]
    assert len(setup) == 2, setup
    main_job, tests = setup
    assert "pip install . &&" in main_job and main_job.endswith("exactdp verify --quick")
    ci = CI.read_text(encoding="utf-8")
    installed = re.search(r"^pip install --quiet '(\.\[[^']*\])'", ci, re.MULTILINE)
    assert installed, ".ci/run must install the package with its extras"
    assert f"pip install '{installed.group(1)}'" in tests
    assert tests.endswith("python -m pytest -q") and "\npython -m pytest -q\n" in ci
    assert "exactdp verify --quick" in ci


def test_documentation_links_exist() -> None:
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)\)", text)
    assert links, "the README links into the documentation"
    missing = [link for link in links if "://" not in link and not (ROOT / link).exists()]
    assert not missing, missing


def test_example_noisy_count(capsys: pytest.CaptureFixture[str]) -> None:
    code = block_starting("python", "from exactdp import GeoSample")
    exec(compile(code, "README.md (noisy count)", "exec"), {})  # noqa: S102
    sample, probability = capsys.readouterr().out.split()
    assert 0 <= int(sample) <= 100
    assert probability == "1/9"    # (1 - r)/(1 + r) with r = 1/(1 + 2^-2) = 4/5 (k = 2)


def test_example_verify(capsys: pytest.CaptureFixture[str]) -> None:
    verify = [(argv, status) for argv, status in commands() if argv[0] == "verify"]
    assert len(verify) == 1
    argv, status = verify[0]
    assert main(argv) == status == 0
    assert "claims pass" in capsys.readouterr().out


def test_example_audit_your_own_function(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "mech.py").write_text(block_starting("python", "# mech.py"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "mech", raising=False)
    audits = [(argv, status) for argv, status in commands() if argv[0] == "audit"]
    assert len(audits) == 1
    argv, status = audits[0]
    assert main(argv) == status == 1
    out = capsys.readouterr().out
    assert "worst privacy-loss ratio: 6584790284608189/2422408970132803" in out
    assert "verdict: VIOLATION" in out


def test_example_oracle_test() -> None:
    namespace: dict[str, object] = {}
    code = block_starting("python", "# test_noisy_bit.py")
    exec(compile(code, "README.md (oracle test)", "exec"), namespace)  # noqa: S102
    tests = [f for name, f in namespace.items() if name.startswith("test_")]
    assert len(tests) == 1
    tests[0]()      # passes: the ratio is exactly 3
    # ... and the same oracle refuses a claim the mechanism does not keep.
    from exactdp.testing import OracleAssertionError, assert_pure_dp
    with pytest.raises(OracleAssertionError):
        assert_pure_dp(namespace["noisy_bit"], [(0, 1)], ratio_bound=2)
