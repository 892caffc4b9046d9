"""Every ``exactdp check`` command covers the inputs where its claim is tightest, or says
"not covered" (exit status 2); each is shown failing on a case that only the far end of its
grid refutes."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Any

import pytest
from _cli import one_line_error, run
from _plant import plant

import exactdp.checker
import exactdp.explore
from exactdp.cli import main
from exactdp.cli.check_projections import covering_bound
from exactdp.sparse_vectors import alp

# rho = 5/3 > e^(1/2) = 1.6487...: the smooth flip ratio (rho^L + 1)/(rho^(L-1) + 1) passes
# e^(1/2) only from L = 9 on, which the box {-1..1}^2 (projections up to 2) never reaches.
SIGN = ("check", "sign-oporp", "--epsilon", "1/2", "--rho", "5/3", "--p", "2", "--k", "1",
        "--l-max", "20")


def test_sign_oporp_default_box_reaches_the_peak(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, *SIGN, "--json")
    doc = json.loads(out)
    assert rc == 1 and doc["verdict"] == "FAIL" and doc["parameters"]["C"] == "10"
    ratio = Fraction(doc["worst"])
    rho = Fraction(5, 3)
    # the level 19 -> 20 flip ratio, by the closed form (not by the code under test)
    assert ratio == (rho ** 20 + 1) / (rho ** 19 + 1)
    assert doc["coverage"]["covered"] is True


def test_sign_oporp_small_box_is_not_covered(capsys: pytest.CaptureFixture[str]) -> None:
    # not a result: status 2, one line (the worst ratio found, what to raise), no report
    for extra in (("--json",), ()):
        rc, out, err = run(capsys, *SIGN, "--bound", "1", *extra)
        assert rc == 2 and out == ""
        one_line_error(err, "not covered", "17/12", "--bound to 10")


def _worst(capsys: pytest.CaptureFixture[str], *argv: str) -> Fraction:
    """The worst ratio a check found: from its report, or (not covered, status 2) from its
    one error line."""
    rc, out, err = run(capsys, *argv, "--json")
    assert rc in (0, 1, 2), err
    if rc == 2:
        m = re.search(r"worst ratio on it ([0-9/]+)\)", err)
        assert m is not None, err
        return Fraction(m.group(1))
    return Fraction(json.loads(out)["worst"])


@pytest.mark.parametrize(("p", "k", "beta", "l_max", "variant", "relation", "plan"), [
    (2, 1, 1, 4, "smooth", "one-coordinate", ("0,1", "1,-1")),
    (2, 2, 2, 3, "smooth", "one-coordinate", ("1,0", "-1,1")),
    (2, 1, 3, 2, "smooth", "one-coordinate", ("0,1", "1,1")),
    (2, 1, 2, 3, "smooth", "l1", ("0,1", "1,-1")),
    (4, 2, 3, 1, "rr", "one-coordinate", ("2,0,3,1", "1,-1,-1,1")),
])
def test_sign_oporp_covering_bound_reaches_the_supremum(
        capsys: pytest.CaptureFixture[str], p: int, k: int, beta: int, l_max: int,
        variant: str, relation: str, plan: tuple[str, str]) -> None:
    """A box past the covering bound finds no larger ratio (the bound reaches the peak)."""
    need = covering_bound(p, k, beta, l_max, relation)
    argv = ("check", "sign-oporp", "--epsilon", "1", "--rho", "3/2", "--p", str(p), "--k",
            str(k), "--beta", str(beta), "--variant", variant, "--neighbours", relation,
            f"--perm={plan[0]}", f"--signs={plan[1]}")
    if variant == "smooth":
        argv += ("--l-max", str(l_max))
    at = _worst(capsys, *argv, "--bound", str(need))
    assert at == _worst(capsys, *argv, "--bound", str(need + 2))


def test_sign_oporp_covering_bound_is_needed(capsys: pytest.CaptureFixture[str]) -> None:
    """One step short of the covering bound misses the top level's ratio."""
    argv = ("check", "sign-oporp", "--epsilon", "1", "--rho", "3/2", "--p", "2", "--k", "1",
            "--l-max", "6", "--perm", "0,1", "--signs", "1,1")
    need = covering_bound(2, 1, 1, 6, "one-coordinate")
    assert need == 3
    assert _worst(capsys, *argv, "--bound", str(need - 1)) < _worst(capsys, *argv)


# ALP with c = eps/alpha = 1/4, beta = 1: m = 1 column, saturated from x = m/c = 4 on; a
# grid "up to beta + 1" stops at 2.
ALP = ("check", "alp", "--epsilon", "1", "--alpha", "4", "--beta", "1", "--rows", "2",
       "--universe-size", "2", "--sparsity", "1")
SCALED = "min(rand_round(value * cn, den, source), m)"


def test_alp_grid_reaches_saturation(capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    rc, out, _ = run(capsys, *ALP, "--json")
    doc = json.loads(out)
    assert rc == 0 and "entries in [0, 4]" in doc["domain"]
    assert doc["coverage"]["covered"] is True
    # planted: the rounding of x = 3 (beyond beta + 1, below m/c) always gives 0
    plant(monkeypatch, alp, "_scaled", SCALED, f"(0 if value == 3 else {SCALED})")
    rc, out, _ = run(capsys, *ALP, "--json")
    doc = json.loads(out)
    assert rc == 1 and doc["verdict"] == "FAIL"
    assert {doc["witness"]["ratio_witness"]["numerator_input"].get("1"),
            doc["witness"]["ratio_witness"]["denominator_input"].get("1")} & {"3"}


def test_alp_law_changing_above_saturation_is_not_covered(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # planted: the rounding of x = 5 (above m/c = 4, outside the grid) gives 0
    plant(monkeypatch, alp, "_scaled", SCALED, f"(0 if value == 5 else {SCALED})")
    rc, out, err = run(capsys, *ALP, "--json")
    assert rc == 2 and out == ""
    one_line_error(err, "not covered", "outside the check's premise")


def test_alp_counts_vacuous_pairs(capsys: pytest.CaptureFixture[str]) -> None:
    """c = 1, beta = 3: entries 3 and 4 both round to the cap m = 3, so the pairs between
    them (one key of four, both orders: 8 pairs) have equal laws."""
    rc, out, _ = run(capsys, "check", "alp", "--epsilon", "1", "--alpha", "1", "--rows", "3",
                     "--universe-size", "4", "--sparsity", "1", "--json")
    cov = json.loads(out)["coverage"]
    assert rc == 0 and int(cov["pairs"]) - int(cov["non_vacuous_pairs"]) == 8


def test_counting_checks_reach_the_last_count(capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The grid is [0, n]: a law broken only at c = n is found."""
    for argv in (("geosample",), ("fastsample", "--gamma", "1/10")):
        rc, out, _ = run(capsys, "check", *argv, "--n", "5", "--epsilon", "1/4", "--json")
        doc = json.loads(out)
        assert rc == 0 and doc["coverage"] == {
            "covered": True, "why": "c ranges over [0, 5], the mechanism's whole input domain",
            "non_vacuous_pairs": "10", "pairs": "10"}
    real = exactdp.checker.counting_distributions

    def broken_at_top(mech: Any, *args: Any) -> Any:
        dists = real(mech, *args)
        dists[mech.n] = {mech.n: Fraction(1)}
        return dists

    monkeypatch.setattr(exactdp.checker, "counting_distributions", broken_at_top)
    for argv in (("geosample",), ("fastsample", "--gamma", "1/10")):
        rc, out, _ = run(capsys, "check", *argv, "--n", "5", "--epsilon", "1/4", "--json")
        doc = json.loads(out)
        assert rc == 1 and doc["worst"] is None and doc["verdict"] == "FAIL"
        assert {doc["witness"]["ratio_witness"]["numerator_input"],
                doc["witness"]["ratio_witness"]["denominator_input"]} == {"4", "5"}


CONV = ("check", "convolution", "--group", "xor", "--filter", "1,1", "--domain", "box:m=2",
        "--epsilon", "1", "--delta", "1/1000")


def test_convolution_reaches_the_last_input(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The grid is the whole public domain: a law broken only at its last input, (2, 2),
    is found."""
    rc, out, _ = run(capsys, *CONV, "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["coverage"]["covered"] is True
    assert doc["coverage"]["pairs"] == "24" == doc["coverage"]["non_vacuous_pairs"]
    real = exactdp.explore.explore

    def broken_at_top(run_one: Any, *args: Any, **kwargs: Any) -> Any:
        law = real(run_one, *args, **kwargs)
        if getattr(run_one, "args", None) == ((2, 2),):
            top = max(law, key=law.__getitem__)
            return {top: Fraction(1)}
        return law

    monkeypatch.setattr(exactdp.explore, "explore", broken_at_top)
    rc, out, _ = run(capsys, *CONV, "--json")
    doc = json.loads(out)
    assert rc == 1 and doc["verdict"] == "FAIL"
    assert [2, 2] in (doc["explored"]["worst_ratio_pair"]["x"],
                      doc["explored"]["worst_ratio_pair"]["x_prime"])


def test_check_help_lists_every_mechanism(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["check", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert exc.value.code == 0
    for name in ("geosample", "fastsample", "alp", "convolution", "sign-oporp"):
        assert f"{name} (" in text or f"{name}," in text or f"or {name}" in text, name
    assert "not covered" in text


def test_alp_alpha_is_required_by_its_variants(capsys: pytest.CaptureFixture[str]) -> None:
    base = ("check", "alp", "--epsilon", "1", "--rows", "2", "--universe-size", "2",
            "--sparsity", "1")
    for extra in ((), ("--variant", "histogram-tight")):
        rc, out, err = run(capsys, *base, *extra)
        assert rc == 2 and out == ""
        one_line_error(err, "--alpha")
    rc, out, _ = run(capsys, *base, "--variant", "unscaled")
    assert rc == 0 and "verdict: pass" in out
