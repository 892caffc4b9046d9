"""The tutorials shipped in exactdp/tutorials/: every one runs and shows what it prints.

Each tutorial runs with its pictures written to a temporary directory; a tutorial that
needs a module that is missing (matplotlib, diffprivlib) is skipped, and a block that
needs one is skipped by the runner.  The runner itself is tested on planted tutorials
(a wrong shown output, an unshown print, a raising block) so that a passing run means
something.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest
from _cli import one_line_error  # not 'tests._cli': diffprivlib installs a package 'tests'
from _cli import run as cli

from exactdp.params import ParameterError
from exactdp.tutorials import runner
from exactdp.tutorials.runner import BlockFailed, OutputMismatch, parse, run, tutorials

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = runner.HERE / "explore_mechanism.py"
PNG = b"\x89PNG\r\n\x1a\n"

EXPECTED = ["why-floats-leak", "geosample-from-scratch", "strict-time", "auditing-your-mechanism",
            "histograms-over-2-64", "float-attack-and-fixes", "timing-by-the-clock",
            "fastsample-and-mixing", "lower-bounds", "the-checker-catches-a-slip",
            "sparse-vectors", "projections-li-li",
            "convolution-fawaz", "eps-delta-and-the-privacy-loss", "discrete-gaussian",
            "composition"]


def test_the_tutorials_are_there_in_order() -> None:
    assert [t.name for t in tutorials()] == EXPECTED
    for t in tutorials():
        assert t.title and t.summary and t.blocks, t.name
        assert sum(1 for b in t.blocks if b.expected) >= 2, f"{t.name} shows too little output"


@pytest.mark.parametrize("name", EXPECTED)
def test_tutorial_runs_and_every_shown_output_matches(name: str, tmp_path: Path) -> None:
    tutorial = runner.find(name)
    gone = runner.missing_modules(tutorial.requires)
    if gone:
        pytest.skip(f"{name} needs {gone}")
    result = run(tutorial, tmp_path)
    assert result.ran + len(result.skipped) == len(tutorial.blocks)
    assert result.ran >= 1
    for picture in result.pictures:
        data = picture.read_bytes()
        assert picture.suffix in (".png", ".svg"), picture
        assert data.startswith(PNG) if picture.suffix == ".png" else b"<svg" in data[:2000]


def _tutorial(text: str) -> runner.Tutorial:
    return parse("# T\n<!-- summary: s -->\n" + text, "t", Path("t.md"))


def test_runner_checks_the_shown_output(tmp_path: Path) -> None:
    good = _tutorial("```python\nx = 6 * 7\nprint(x)\n```\n\n```output\n42\n```\n"
                     "```python\nprint(x + 1)\n```\n```output\n43\n```\n")
    assert run(good, tmp_path).ran == 2
    wrong = _tutorial("```python\nprint(6 * 7)\n```\n```output\n41\n```\n")
    with pytest.raises(OutputMismatch, match=r"t.md, line 4.*\n.*\n.*\n.*\n-41\n\+42"):
        run(wrong, tmp_path)


def test_runner_refuses_output_that_is_not_shown(tmp_path: Path) -> None:
    hidden = _tutorial("```python\nprint('a number nobody checks: 3')\n```\n\nText.\n")
    with pytest.raises(OutputMismatch, match="no output"):
        run(hidden, tmp_path)
    # an output block separated from its code by text belongs to no block
    with pytest.raises(ParameterError, match="must follow"):
        _tutorial("```python\nprint(1)\n```\nText.\n```output\n1\n```\n")


def test_runner_reports_a_raising_block_with_its_line(tmp_path: Path) -> None:
    bad = _tutorial("Some text.\n\n```python\n1 / 0\n```\n")
    with pytest.raises(BlockFailed, match=r"t.md, line 6: the block raised ZeroDivisionError"):
        run(bad, tmp_path)


def test_runner_skips_blocks_whose_modules_are_missing(tmp_path: Path) -> None:
    t = _tutorial("```python requires=no_such_module_xyz\nimport no_such_module_xyz\nprint(1)\n"
                  "```\n```output\n1\n```\n```python\nprint(2)\n```\n```output\n2\n```\n")
    result = run(t, tmp_path)
    assert result.ran == 1 and result.skipped == [(4, ("no_such_module_xyz",))]


def test_a_module_whose_import_fails_counts_as_missing(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """An installed library that raises on import (a mismatched dependency) skips the
    blocks that need it instead of failing them."""
    (tmp_path / "broken_dependency_xyz.py").write_text("raise ImportError('mismatched')\n")
    (tmp_path / "fine_dependency_xyz.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert runner.missing_modules(("broken_dependency_xyz", "fine_dependency_xyz")) == [
        "broken_dependency_xyz"]


def test_parse_errors_name_the_file() -> None:
    with pytest.raises(ParameterError, match="never closed"):
        _tutorial("```python\nprint(1)\n")
    with pytest.raises(ParameterError, match="summary"):
        parse("# Title only\n", "t", Path("t.md"))


def test_package_data_ships_every_tutorial_file() -> None:
    """pyproject's package-data globs cover every non-Python file of exactdp/tutorials
    (``pip install .`` installs exactly those; the slow test below builds the wheel)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]["exactdp.tutorials"]
    files = [p.name for p in runner.HERE.iterdir() if p.is_file() and p.suffix != ".py"]
    assert {f for f in files if f.endswith(".md")} >= {t.path.name for t in tutorials()}
    assert all(any(fnmatch(f, g) for g in globs) for f in files), (files, globs)


@pytest.mark.slow
def test_the_wheel_contains_the_tutorials(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path),
                    str(ROOT)], check=True)
    import zipfile

    (wheel,) = tmp_path.glob("exactdp-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for t in tutorials():
        assert f"exactdp/tutorials/{t.path.name}" in names
    assert "exactdp/tutorials/README.md" in names
    assert "exactdp/tutorials/explore_mechanism.py" in names


# ------------------------------------------------------------------------------ the command


def test_cli_lists_the_tutorials(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = cli(capsys, "tutorial")
    assert rc == 0 and not err
    listed = [line.split()[0] for line in out.splitlines()[:len(EXPECTED)]]
    assert listed == EXPECTED
    for t in tutorials():
        assert t.summary in out


def test_cli_shows_a_tutorial_and_its_path(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = cli(capsys, "tutorial", "strict-time")
    assert rc == 0 and out == runner.find("strict-time").path.read_text(encoding="utf-8")
    rc, out, _ = cli(capsys, "tutorial", "strict-time", "--path")
    assert rc == 0 and Path(out.strip()) == runner.find("strict-time").path


def test_cli_runs_a_tutorial(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, out, err = cli(capsys, "tutorial", "geosample-from-scratch", "--run",
                       "--output", str(tmp_path / "pics"))
    assert rc == 0, err
    assert "every output shown matched" in out
    shown = sorted(Path(line.split("picture: ")[1]) for line in out.splitlines()
                   if "picture: " in line)
    assert shown == sorted((tmp_path / "pics").iterdir())
    if runner.missing_modules(("matplotlib",)):
        return
    assert [p.name for p in shown] == ["geosample-pmf.png", "geosample-privacy-loss.png"]
    # a second run into the same directory replaces the pictures (with --force)
    rc, _, err = cli(capsys, "tutorial", "geosample-from-scratch", "--run",
                     "--output", str(tmp_path / "pics"), "--force")
    assert rc == 0, err


def test_cli_errors_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, _, err = cli(capsys, "tutorial", "no-such-tutorial")
    assert rc == 2
    one_line_error(err, "no-such-tutorial", "strict-time")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    rc, _, err = cli(capsys, "tutorial", "strict-time", "--run", "--output",
                     str(tmp_path / "full"))
    assert rc == 2
    one_line_error(err, "not empty", "--force")
    rc, _, err = cli(capsys, "tutorial", "--run")
    assert rc == 2
    one_line_error(err, "NAME")


def test_cli_reports_a_mismatch_as_failed(capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    """A planted wrong number in a tutorial makes ``--run`` exit 1."""
    path = runner.find("geosample-from-scratch").path
    text = path.read_text(encoding="utf-8").replace("d = 1125 = exactdp's d: True",
                                                    "d = 1124 = exactdp's d: True")
    planted = tmp_path / path.name
    planted.write_text(text, encoding="utf-8")
    monkeypatch.setattr(runner, "HERE", tmp_path)
    rc, _, err = cli(capsys, "tutorial", "geosample-from-scratch", "--run",
                     "--output", str(tmp_path / "pics"))
    assert rc == 1
    assert "-d = 1124" in err and "+d = 1125" in err


# ------------------------------------------------------------------------------ the notebook


def test_notebook_runs_as_a_script(tmp_path: Path) -> None:
    pytest.importorskip("marimo")
    pytest.importorskip("matplotlib")
    done = subprocess.run([sys.executable, str(NOTEBOOK)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={**_env(), "MPLBACKEND": "Agg"},
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_notebook_check_can_fail(tmp_path: Path) -> None:
    """A planted wrong claim in the notebook's check cell makes the script run fail."""
    pytest.importorskip("marimo")
    pytest.importorskip("matplotlib")
    text = NOTEBOOK.read_text(encoding="utf-8")
    planted = text.replace("assert sum(pmf.exact) == 1", "assert sum(pmf.exact) == 2")
    assert planted != text
    (tmp_path / "nb.py").write_text(planted, encoding="utf-8")
    done = subprocess.run([sys.executable, str(tmp_path / "nb.py")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          env={**_env(), "MPLBACKEND": "Agg"}, check=False)
    assert done.returncode != 0 and "AssertionError" in done.stderr


def test_cli_points_at_the_notebook(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = cli(capsys, "tutorial", "notebook", "--path")
    assert rc == 0 and Path(out.strip()) == NOTEBOOK
    rc, out, _ = cli(capsys, "tutorial")
    assert rc == 0 and "notebook" in out


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)
