"""Huge values the red-team run found crashing or hanging, one test per class: an exact
integer such as ``1e10000`` is a valid number, so each command caps what it can do before
the work (or the estimate's timing of it) starts, and a C kernel never receives a value
ctypes would cut."""

from __future__ import annotations

from pathlib import Path

import pytest
from _cli import one_line_error, run

from tests.test_fuzz_cli import bounded

HUGE = "1e10000"


def test_a_count_past_the_cap_is_refused_before_any_search(
        capsys: pytest.CaptureFixture[str]) -> None:
    """FastSample's searches over [0, n] grow with (log n)^3: n = 10^10000 ran for many
    minutes inside the estimate's own timing of one draw."""
    for argv in (["sample", "fastsample", "--n=" + HUGE, "--epsilon", "1/2", "--gamma",
                  "1/10", "--count", "3", "--seed", "1"],
                 ["check", "fastsample", "--n=" + HUGE, "--epsilon", "1/4", "--gamma",
                  "1/10"],
                 ["distribution", "fastsample", f"--n={2**1024}", "--epsilon", "1/4", "--gamma",
                  "1/10", "--count", "0"]):
        with bounded(20):
            rc, out, err = run(capsys, *argv)
        assert rc == 2 and out == ""
        one_line_error(err, "--n = ", "bits", "below 2^1024")


def test_a_count_below_the_cap_still_runs(capsys: pytest.CaptureFixture[str]) -> None:
    with bounded(30):
        rc, out, err = run(capsys, "sample", "fastsample", f"--n={2**1023}", "--epsilon", "1/2",
                           "--gamma", "1/10", "--count", "3", "--seed", "1")
    assert rc == 0 and int(out) >= 0, err


@pytest.mark.parametrize("option", ["--universe-size", "--sparsity", "--rows"])
def test_check_alp_refuses_a_domain_it_cannot_enumerate_before_building_it(
        capsys: pytest.CaptureFixture[str], option: str) -> None:
    """--universe-size 10^10000 searched for a prime above it (a hang); --sparsity 10^10000
    made a list of that length (OverflowError, status 4)."""
    values = {"--universe-size": "2", "--sparsity": "1", "--rows": "1"}
    values[option] = HUGE
    argv = ["check", "alp", "--epsilon", "1", "--alpha", "1"]
    for name, value in values.items():
        argv.append(f"{name}={value}")
    with bounded(20):
        rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == ""
    one_line_error(err, "too large to enumerate", option)


@pytest.mark.parametrize(("p", "k"), [(HUGE, "1"), (str(2**70), str(2**70)), ("65", "1")])
def test_check_sign_oporp_refuses_huge_p_or_k_before_counting_plans(
        capsys: pytest.CaptureFixture[str], p: str, k: str) -> None:
    """--p 10^10000 reached factorial(p) (OverflowError, status 4)."""
    with bounded(20):
        rc, out, err = run(capsys, "check", "sign-oporp", "--epsilon", "1", "--rho", "3/2",
                           f"--p={p}", f"--k={k}", "--beta", "1", "--bound", "1")
    assert rc == 2 and out == ""
    one_line_error(err, "needs more than")


def test_project_with_a_beta_past_int64_runs_the_exact_path(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch kernel takes beta as an int64: ctypes cut 10^10000 to a value the kernel
    refused (RuntimeError, status 4), and would cut 2^64 + 1 to 1 silently.  Such a beta
    runs the Python path, which gives the release the kernel-less path gives."""
    from exactdp.projections import fast

    f = tmp_path / "v.csv"
    f.write_text("1,2,3,4\n0,1,1,1\n-2,0,5,1\n")
    argv = ["project", "signs", str(f), "--k", "2", "--epsilon", "1", "--bound", "5",
            "--plan-seed", "1", "--seed", "2"]
    for beta in (HUGE, str(2**64 + 1)):
        rc, out, err = run(capsys, *argv, f"--beta={beta}")
        assert rc == 0, err
        monkeypatch.setattr(fast, "_library", lambda: (None, "disabled in this test"))
        rc, pure, err = run(capsys, *argv, f"--beta={beta}")
        monkeypatch.undo()
        assert rc == 0 and out == pure


def test_an_overflow_anywhere_is_one_line_and_status_2(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The class behind the cases above: a value too large for a fixed-size integer of a
    library call is the user's number, reported in one line, never status 4."""
    import exactdp.checker

    def overflow(*args: object, **kwargs: object) -> None:
        raise OverflowError("cannot fit 'int' into an index-sized integer")

    monkeypatch.setattr(exactdp.checker, "counting_distribution", overflow)
    rc, out, err = run(capsys, "distribution", "geosample", "--n", "8", "--epsilon", "1/2",
                       "--count", "3")
    assert rc == 2 and out == ""
    one_line_error(err, "too large for this computation", "index-sized")
