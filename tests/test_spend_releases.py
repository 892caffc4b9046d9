"""``--epsilon`` is the total budget on sparse-vector project, project and convolve, and
each states its exact spend under ``spent`` (checked here with sympy, independently of
exactdp's certified logarithms)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import sympy

from tests._cli import one_line_error, run

FIELDS = {"epsilon", "epsilon_rational", "epsilon_lower", "epsilon_upper", "delta",
          "requested_epsilon", "composition", "meaning"}


def value(expression: str) -> sympy.Expr:
    return sympy.sympify(expression.replace("ln(", "log("), rational=True)


def rational(text: str) -> sympy.Rational:
    q = Fraction(text)
    return sympy.Rational(q.numerator, q.denominator)


def check_spent(spent: dict, budget: str) -> sympy.Expr:
    assert set(spent) == FIELDS
    v = value(spent["epsilon"])
    assert bool(v <= rational(budget))
    assert bool(rational(spent["epsilon_lower"]) <= v <= rational(spent["epsilon_upper"]))
    assert spent["requested_epsilon"] == str(Fraction(budget))
    return v


# --------------------------------------------------------------------------- sparse-vector

@pytest.mark.parametrize("variant", ["paper", "unscaled", "histogram-tight"])
@pytest.mark.parametrize("budget", ["1/3", "2", "10"])
def test_alp_sketch_spends_at_most_its_budget(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path, variant: str,
                                              budget: str) -> None:
    data = tmp_path / "x.txt"
    data.write_text("3,2\n7,1\n")
    extra = [] if variant == "unscaled" else ["--alpha", str(3 * Fraction(budget))] \
        if variant == "histogram-tight" else []
    rc, out, err = run(capsys, "sparse-vector", "project", str(data), "--epsilon", budget,
                       "--beta", "4", "--rows", "6", "--sparsity", "2", "--universe-size",
                       "10", "--variant", variant, "--output", str(tmp_path / "s.json"),
                       "--json", "--seed", "1", *extra)
    assert rc == 0, err
    spent = json.loads(out)["spent"]
    v = check_spent(spent, budget)
    if variant == "histogram-tight":  # ln L with L the certified lower bound of e^eps
        assert spent["epsilon_rational"] is None
        assert bool(v > rational(budget) - sympy.Rational(1, 2**20))
    else:  # eps_cert = eps exactly: the whole budget
        assert spent["epsilon_rational"] == str(Fraction(budget))


# --------------------------------------------------------------------------- project

@pytest.fixture
def vectors(tmp_path: Path) -> Path:
    path = tmp_path / "v.csv"
    path.write_text("1,2,3,4\n-2,0,1,3\n")
    return path


@pytest.mark.parametrize(("kind", "method"), [("signs", "oporp-smooth"), ("signs", "rp-rr"),
                                              ("values", "oporp"), ("values", "rp")])
@pytest.mark.parametrize("budget", ["1/2", "3", "10"])
def test_projection_spends_at_most_its_budget(capsys: pytest.CaptureFixture[str],
                                              vectors: Path, kind: str, method: str,
                                              budget: str) -> None:
    rc, out, err = run(capsys, "project", kind, str(vectors), "--k", "2", "--epsilon", budget,
                       "--beta", "1", "--bound", "4", "--method", method, "--plan-seed", "1",
                       "--seed", "1", "--json")
    assert rc == 0, err
    payload = json.loads(out)
    spent = payload["spent"]
    check_spent(spent, budget)
    base, power = payload["parameters"]["privacy_ratio"].removeprefix("(").split(")^")
    assert spent["epsilon"] == (f"{power}*ln({base})" if power != "1" else f"ln({base})")
    assert len(payload["vectors"]) == 2


def test_projection_smallest_spend_boundary(capsys: pytest.CaptureFixture[str],
                                            vectors: Path) -> None:
    # The smallest spend is k ln((N+1)/N) (N = --max-denominator): irrational, so a rational
    # budget is never on it; just above it rho = (N+1)/N is chosen, just below it is refused.
    threshold = 2 * sympy.log(sympy.Rational(5, 4))
    approx = Fraction(str(sympy.N(threshold, 40)))
    above, below = approx + Fraction(1, 10**30), approx - Fraction(1, 10**30)
    assert bool(rational(str(above)) > threshold) and bool(rational(str(below)) < threshold)
    argv = ["project", "signs", str(vectors), "--k", "2", "--beta", "1", "--bound", "4",
            "--method", "rp-rr", "--max-denominator", "4", "--plan-seed", "1", "--seed", "1"]
    rc, out, err = run(capsys, *argv, "--epsilon", str(above), "--json")
    assert rc == 0, err
    assert json.loads(out)["spent"]["epsilon"] == "2*ln(5/4)"
    rc, out, err = run(capsys, *argv, "--epsilon", str(below))
    assert rc == 2 and out == ""
    one_line_error(err, "smallest budget", "2*ln(5/4)", "raise --max-denominator")


def test_projection_text_header_states_the_spend(capsys: pytest.CaptureFixture[str],
                                                 vectors: Path) -> None:
    rc, out, _ = run(capsys, "project", "values", str(vectors), "--k", "2", "--epsilon",
                     "1/2", "--beta", "1", "--bound", "4", "--plan-seed", "1", "--seed", "1")
    assert rc == 0
    header = out.splitlines()[0]
    assert header.startswith("# ") and "spent=ln(" in header


# --------------------------------------------------------------------------- convolve

@pytest.mark.parametrize("budget", ["1/2", "2", "10"])
def test_convolution_spends_its_budget_with_a_certified_delta(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, budget: str) -> None:
    data = tmp_path / "x.txt"
    data.write_text("1\n0\n2\n1\n")
    rc, out, err = run(capsys, "convolve", str(data), "--group", "xor", "--filter", "1,1,0,0",
                       "--domain", "histograms:n=4", "--epsilon", budget, "--delta", "1/1000",
                       "--seed", "1", "--json")
    assert rc == 0, err
    payload = json.loads(out)
    spent = payload["spent"]
    check_spent(spent, budget)
    assert spent["epsilon_rational"] == str(Fraction(budget))
    lo, hi = (Fraction(v) for v in payload["guarantee"]["delta_at_e_eps"])
    assert Fraction(spent["delta"]) == hi and lo <= hi <= Fraction(1, 1000)


def test_every_release_command_refuses_a_non_positive_budget(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, vectors: Path) -> None:
    data = tmp_path / "x.txt"
    data.write_text("1\n0\n2\n1\n")
    sv = tmp_path / "sv.txt"
    sv.write_text("3,2\n")
    commands = [
        ["sample", "geosample", "--n", "5", "--count", "1"],
        ["histogram", str(data), "--algorithm", "basic", "--universe-size", "4"],
        ["sparse-vector", "project", str(sv), "--beta", "4", "--rows", "6", "--sparsity", "2",
         "--universe-size", "10", "--output", str(tmp_path / "s.json")],
        ["project", "values", str(vectors), "--k", "2", "--beta", "1", "--bound", "4"],
        ["convolve", str(data), "--group", "xor", "--filter", "1,1,0,0", "--domain",
         "histograms:n=4", "--delta", "1/1000"],
    ]
    for argv in commands:
        rc, out, err = run(capsys, *argv, "--epsilon=0")
        assert rc == 2 and out == "", argv
        one_line_error(err, "--epsilon = 0 must be positive")


def test_sketch_file_records_the_spend_and_query_checks_it(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from exactdp.histograms.release_file import seal

    data = tmp_path / "x.txt"
    data.write_text("3,2\n7,1\n")
    sketch = tmp_path / "s.json"
    rc, out, err = run(capsys, "sparse-vector", "project", str(data), "--epsilon", "1/2",
                       "--beta", "4", "--rows", "6", "--sparsity", "2", "--universe-size",
                       "10", "--output", str(sketch), "--json", "--seed", "1")
    assert rc == 0, err
    recorded = json.loads(sketch.read_text())
    assert recorded["spent"] == json.loads(out)["spent"]
    assert run(capsys, "sparse-vector", "query", str(sketch), "3")[0] == 0
    for field, edited_value in [("epsilon", "1/4"), ("requested_epsilon", "1"),
                                ("meaning", "x")]:
        doc = json.loads(sketch.read_text())
        doc["spent"][field] = edited_value
        doc.pop("integrity")
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(seal(doc)))  # a consistent digest: only the check stops it
        rc, _, err = run(capsys, "sparse-vector", "query", str(bad), "3")
        assert rc == 2 and "spent" in err, (field, err)


@pytest.mark.parametrize(("command", "range_words"), [
    (["sample"], "(0, K/2]"), (["histogram"], "(0, 1]"),
    (["sparse-vector", "project"], "no upper limit"), (["project", "signs"], "no upper limit"),
    (["project", "values"], "no upper limit"), (["convolve"], "no upper limit"),
])
def test_every_release_help_says_epsilon_is_a_budget_and_its_range(
        capsys: pytest.CaptureFixture[str], command: list[str], range_words: str) -> None:
    from exactdp.cli import main

    with pytest.raises(SystemExit):
        main([*command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    option = text[text.rindex("--epsilon E "):][:400]  # the option, not the usage line
    assert "budget" in option and range_words in option


def test_alp_params_spend_in_the_library() -> None:
    from exactdp.sparse_vectors.alp import ALPParams, tight_bound

    for eps in (Fraction(1, 3), Fraction(2), Fraction(7, 5)):
        paper = ALPParams.from_paper(eps, 3, 10, 6, 2, 100)
        assert paper.spend(eps).rational == eps and paper.spend().requested is None
        assert ALPParams.unscaled(eps, 10, 6, 2, 100).spend().rational == eps
        bound = tight_bound(eps)
        tight = ALPParams.histogram_tight(bound, 4, 10, 6, 2, 100)
        spent = tight.spend(eps)
        assert spent.ratio == bound and spent.coefficient == 1 and spent.at_most(eps)
        assert bool(value(spent.expression()) <= rational(str(eps)))
