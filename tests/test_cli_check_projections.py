"""``exactdp check sign-oporp``: exact worst ratios of DP-SignOPORP from the implementation
(values from notes LILI.md §3.1, derived there by hand/independent scripts), exit codes 0 / 1 /
2, JSON only on stdout, one-line errors."""

from __future__ import annotations

import json

import pytest
from _cli import one_line_error, run

NOTES_PLAN = ("--perm", "2,0,3,1", "--signs", "1,-1,-1,1")
# e^(41/100) = 1.5068... lies between rho = 3/2 and 25/16: the notes' l1 values violate it.
COMMON = ("check", "sign-oporp", "--epsilon", "41/100", "--rho", "3/2", "--p", "4", "--k", "2",
          "--bound", "2", *NOTES_PLAN)


@pytest.mark.parametrize(("variant", "beta", "worst", "bound"),
                         [("rr", "1", "5/4", "2"), ("smooth", "1", "97/70", "2"),
                          ("rr", "2", "3/2", "2"), ("smooth", "2", "3/2", "4")])
def test_one_coordinate_passes_with_notes_values(capsys: pytest.CaptureFixture[str],
                                                  variant: str, beta: str, worst: str,
                                                  bound: str) -> None:
    """(smooth at beta = 2 reaches level L_max = 4 at projections of 8: C = 4 with bins of
    two coordinates.)"""
    rc, out, err = run(capsys, *COMMON, "--variant", variant, "--beta", beta, "--bound",
                       bound, "--json")
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["worst"] == worst and doc["verdict"] == "pass"
    assert doc["parameters"]["rho"] == "3/2"


@pytest.mark.parametrize(("variant", "worst"), [("rr", "25/16"), ("smooth", "169/100")])
def test_l1_neighbours_violate(capsys: pytest.CaptureFixture[str], variant: str,
                               worst: str) -> None:
    rc, out, _ = run(capsys, *COMMON, "--variant", variant, "--beta", "2", "--neighbours",
                     "l1", "--json")
    assert rc == 1
    doc = json.loads(out)
    assert doc["worst"] == worst and doc["verdict"] == "FAIL"
    wit = doc["witness"]["ratio_witness"]
    assert sum(abs(int(a) - int(b)) for a, b in zip(wit["numerator_input"],
                                                    wit["denominator_input"])) == 2


def test_every_plan_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    """p = 2, k = 1 (8 plans), RR, beta = 1: a sign only moves through 0, (rho+1)/2 = 5/4."""
    rc, out, _ = run(capsys, "check", "sign-oporp", "--epsilon", "1/2", "--rho", "3/2", "--p",
                     "2", "--k", "1", "--variant", "rr")
    assert rc == 0
    assert "worst ratio: 5/4" in out and "x 8 plan(s)" in out and "verdict: pass" in out


def test_rho_above_e_eps_is_refuted(capsys: pytest.CaptureFixture[str]) -> None:
    """rho = 2 > e^(41/100) at beta = 2 (a bin crosses sign: ratio rho = 2)."""
    rc, out, _ = run(capsys, *COMMON, "--rho", "2", "--beta", "2", "--json")
    assert rc == 1 and json.loads(out)["worst"] == "2"


def test_default_rho_is_certified_below_e_eps(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "check", "sign-oporp", "--epsilon", "1/2", "--p", "2", "--k", "2",
                     "--beta", "2", "--json")
    assert rc == 0
    doc = json.loads(out)
    assert doc["worst"] == doc["parameters"]["rho"] == "61/37"      # (61/37)^1 <= e^(1/2)


@pytest.mark.parametrize(("args", "words"), [
    (("--p", "4", "--k", "3"), ("--k", "divide")),
    (("--p", "4", "--k", "2", "--perm", "0,1,2,3"), ("--perm", "--signs")),
    (("--p", "4", "--k", "2", "--perm", "0,1,x,3", "--signs", "1,1,1,1"), ("--perm",)),
    (("--p", "4", "--k", "2", "--bound", "5"), ("limit",)),
    (("--p", "2", "--k", "1", "--rho", "1"), ("rho",)),
    (("--p", "2", "--k", "1", "--epsilon", "0.5x"), ("--epsilon",)),
])
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], args: tuple[str, ...],
                             words: tuple[str, ...]) -> None:
    base = ["check", "sign-oporp", "--epsilon", "1/2"]
    if "--epsilon" in args:
        base = ["check", "sign-oporp"]
    rc, out, err = run(capsys, *base, *args)
    assert rc == 2 and out == ""
    one_line_error(err, *words)
