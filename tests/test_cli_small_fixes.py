"""Small ways the command line used to go wrong: seeds written '--5', a negative claimed
epsilon, levels of randomized response that are not counts, a mechanism raising
KeyboardInterrupt taken for the user's Ctrl-C, no cap on --workers, a tutorial's temporary
directory left behind."""

from __future__ import annotations

import tempfile
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.cli import tutorial as tutorial_cli
from exactdp.params import ParameterError, ParameterTypeError
from exactdp.projections.rr import Base, rr_keep
from tests._cli import one_line_error, run

SIGNS = ["--k", "2", "--epsilon", "1", "--beta", "1", "--bound", "4"]


@pytest.mark.parametrize("option", ["--plan-seed=--5", "--seed=--1", "--seed=1-", "--seed=٣",
                                    "--plan-seed= ", "--seed=" + "9" * 5000])
def test_malformed_seeds_are_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                          option: str) -> None:
    f = tmp_path / "v.csv"
    f.write_text("1,2,3,4\n0,1,1,1\n")
    rc, out, err = run(capsys, "project", "signs", str(f), *SIGNS, option)
    assert rc == 2 and out == ""
    one_line_error(err, "must be an integer")


def test_negative_seeds_still_work(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = tmp_path / "v.csv"
    f.write_text("1,2,3,4\n0,1,1,1\n")
    rc, _, _ = run(capsys, "project", "signs", str(f), *SIGNS, "--plan-seed=-5", "--seed=-1")
    assert rc == 0


def test_plot_refuses_a_negative_claimed_epsilon(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    rc, _, err = run(capsys, "plot", "loss", "geosample", "--n", "4", "--epsilon", "1/2",
                     "--claimed-epsilon=-1", "--output", str(tmp_path / "x.png"))
    assert rc == 2 and not (tmp_path / "x.png").exists()
    one_line_error(err, "--claimed-epsilon", "-1")


@pytest.mark.parametrize(("level", "error"), [(-1, ParameterError), (-2, ParameterError),
                                              (2.5, ParameterTypeError),
                                              (True, ParameterTypeError),
                                              ("3", ParameterTypeError)])
def test_rr_levels_must_be_counts(level: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="level L"):
        rr_keep(Base(3, 2), level)  # type: ignore[arg-type]
    with pytest.raises(error, match="level L"):
        Base(3, 2).keep(level)  # type: ignore[arg-type]
    with pytest.raises(error, match="level L"):
        Base(3, 2).flip(level)  # type: ignore[arg-type]
    assert Base(3, 2).keep(2) == Fraction(9, 13) and Base(3, 2).flip(0) == Fraction(1, 2)


def test_a_mechanism_raising_keyboardinterrupt_is_broken_not_a_ctrl_c(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "kbd.py"
    target.write_text("def mech(c, u):\n    raise KeyboardInterrupt\n")
    rc, _, err = run(capsys, "audit", f"{target}:mech", "--kind", "whitebox",
                     "--claimed-epsilon", "1", "--inputs", "0..2", "--randomness-size", "4")
    assert rc == 3
    assert "raised KeyboardInterrupt itself" in err.splitlines()[-1]


def test_workers_are_capped(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "verify", "--only", "lemma_3_02", "--workers", "100000")
    assert rc == 2 and out == ""
    one_line_error(err, "--workers", "100000", "256")


def test_an_interrupted_tutorial_leaves_no_temporary_directory(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    from exactdp.tutorials import runner

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def interrupted(tutorial: object, where: Path) -> object:
        (where / "half.png").write_bytes(b"x")
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run", interrupted)
    name = runner.tutorials()[0].name
    monkeypatch.setattr(runner, "missing_modules", lambda mods: [])
    rc, _, err = run(capsys, "tutorial", name, "--run")
    assert rc == 130 and "interrupted" in err
    assert list(tmp_path.iterdir()) == []
    assert tutorial_cli._deliver([], None, name) == []
