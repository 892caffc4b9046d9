"""Code audited as it is written: one-argument functions under --patch, bound methods with
--patch-attr, the generator at any position (--rng-arg) with fixed parameters (--bind),
claims as the literature states them ('ln 3', --ratio-bound), and the l-infinity relation.
Expected ratios are derived here from the code's float constants by integer arithmetic,
never read from the audit."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.audit import whitebox_audit
from exactdp.audit.callforms import call_form, parse_rng_arg
from exactdp.audit.facades import facade_mechanism
from exactdp.audit.inputs import parse_inputs
from exactdp.audit.outcomes import observed
from exactdp.claims import RatioClaim, parse_claim
from exactdp.neighbours import vectors
from exactdp.params import ExactDPError, ParameterError
from tests._cli import one_line_error, run

# The audited targets (audit_targets/realcode_targets.py) draw numpy's noise.
pytest.importorskip("numpy", reason="the audited targets draw numpy's noise")

ROOT = Path(__file__).resolve().parent.parent
T = "audit_targets.realcode_targets"
TWO53 = 1 << 53


def _count_below(p: float) -> int:
    """#{j in [0, 2^53) : j / 2^53 < p}: the smallest j with j * 2^-53 >= p, from the
    float p's exact integer ratio (no float arithmetic)."""
    num, den = p.as_integer_ratio()  # p = num / den exactly, den a power of two
    return -(-num * TWO53 // den)  # ceil(p * 2^53)


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    return subprocess.run([sys.executable, "-m", "exactdp.cli", *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_done_when_float_rr_violates_with_its_exact_ratio() -> None:
    keep = math.exp(1) / (1 + math.exp(1))
    t = _count_below(keep)
    expected = Fraction(t, TWO53 - t)
    assert expected == Fraction(6584790284608189, 2422408970132803)  # as the claim states
    proc = _cli("audit", f"{T}:rr", "--kind", "whitebox", "--rng", "random", "--patch",
                "random", "--claimed-epsilon", "1", "--inputs", "0..1", "--json")
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert data["verdict"] == "violation"
    assert data["worst_ratio"]["ratio"] == str(expected)
    assert "c ~ c+1" in data["neighbours"]


def test_done_when_dyadic_twin_passes_at_ln_3() -> None:
    assert _count_below(0.75) == 3 * TWO53 // 4  # ratio (3/4) / (1/4) = 3 = e^(ln 3)
    for claim in (["--claimed-epsilon", "ln 3"], ["--ratio-bound", "3"]):
        proc = _cli("audit", f"{T}:rr_dyadic", "--kind", "whitebox", "--rng", "random",
                    "--patch", "random", *claim, "--inputs", "0..1")
        assert proc.returncode == 0, proc.stderr
        assert "verdict: PASS" in proc.stdout and "worst privacy-loss ratio: 3" in proc.stdout
        assert "claimed epsilon ln 3" in proc.stdout
    # a hair less than ln 3 is refuted: the ratio 3 is exactly the bound
    proc = _cli("audit", f"{T}:rr_dyadic", "--kind", "whitebox", "--rng", "random", "--patch",
                "random", "--ratio-bound", "2999/1000", "--inputs", "0..1")
    assert proc.returncode == 1, proc.stderr


def test_bound_method_with_its_generator_attribute(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "audit", f"{T}:Randomiser(0.75).randomise", "--kind",
                       "whitebox", "--rng", "random", "--patch-attr", "_rng",
                       "--claimed-epsilon", "2 ln 2", "--inputs", "0..1", "--json")
    assert rc == 0, err
    assert json.loads(out)["worst_ratio"]["ratio"] == "3"  # 3 <= e^(2 ln 2) = 4
    rc, out, err = run(capsys, "audit", f"{T}:Randomiser(0.75).randomise", "--kind",
                       "whitebox", "--rng", "random", "--patch-attr", "_rng",
                       "--ratio-bound", "2", "--inputs", "0..1", "--json")
    assert rc == 1, err


def test_generator_at_a_keyword_with_bound_parameters(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "audit", f"{T}:keep_with", "--kind", "whitebox", "--rng",
                       "random", "--rng-arg", "prng", "--bind", "keep=0.75", "--ratio-bound",
                       "3", "--inputs", "0..1", "--json")
    assert rc == 0, err
    assert json.loads(out)["worst_ratio"]["ratio"] == "3"
    rc, out, err = run(capsys, "audit", f"{T}:keep_with", "--kind", "whitebox", "--rng",
                       "random", "--rng-arg", "0", "--bind", "keep=0.75", "--ratio-bound",
                       "3", "--inputs", "0..1", "--json")
    assert rc == 0, err
    assert json.loads(out)["worst_ratio"]["ratio"] == "3"


@pytest.mark.parametrize(("argv", "words"), [
    ([f"{T}:rr", "--rng", "random"], ("--patch", "rr")),             # no way to reach it
    ([f"{T}:keep_with", "--rng", "random"], ("keep", "--bind")),      # a parameter missing
    ([f"{T}:keep_with", "--rng", "random", "--rng-arg", "nope"], ("nope",)),
    ([f"{T}:keep_with", "--rng", "random", "--rng-arg", "5", "--bind", "keep=1"], ("5",)),
    ([f"{T}:keep_with", "--rng", "random", "--rng-arg", "prng", "--bind", "k=1"], ("k",)),
    ([f"{T}:Randomiser(0.75).randomise", "--rng", "random", "--patch-attr", "rng"],
     ("rng", "_rng")),
    ([f"{T}:Randomiser(0.75).nothing", "--rng", "random"], ("nothing",)),
    ([f"{T}:rr", "--patch-attr", "_rng"], ("--patch-attr", "--rng")),
    ([f"{T}:rr", "--rng", "random", "--patch", "random", "--bind", "x"], ("--bind",)),
])
def test_signatures_that_do_not_fit_are_usage_errors(capsys: pytest.CaptureFixture[str],
                                                     argv: list[str],
                                                     words: tuple[str, ...]) -> None:
    rc, out, err = run(capsys, "audit", *argv, "--kind", "whitebox", "--claimed-epsilon", "1",
                       "--inputs", "0..1")
    assert rc == 2, (out, err)  # a usage error, never BROKEN (3)
    one_line_error(err, *words)


def test_call_form_places_input_generator_and_keywords() -> None:
    seen: list[tuple] = []

    def f(prng, queries, epsilon, extra=7):
        seen.append((prng, queries, epsilon, extra))

    call_form(f, parse_rng_arg("prng"), {"epsilon": 2})("Q", "G")
    call_form(f, parse_rng_arg("1"), {"epsilon": 2})("Q", "G")
    assert seen == [("G", "Q", 2, 7), ("Q", "G", 2, 7)]

    def one(c):
        return c

    assert call_form(one, patching=True)(5, "G") == 5
    with pytest.raises(ParameterError, match="--patch"):
        call_form(one)
    assert parse_rng_arg(None) == "default" and parse_rng_arg("none") is None


def test_claims_as_stated() -> None:
    assert parse_claim("ln 3") == RatioClaim(Fraction(3), "ln 3")
    assert parse_claim("2 ln 2").ratio == 4 and parse_claim("ln(3/2)").ratio == Fraction(3, 2)
    assert parse_claim("1/2") == Fraction(1, 2)
    for bad in ("ln", "ln -3", "ln 1/2", "x ln 2", "0 ln 2"):
        with pytest.raises(ParameterError):
            parse_claim(bad)
    # the API takes the same strings: ratio 3 passes at ln 3, not at ln 2.9
    mech = facade_mechanism(lambda c, rng: c if rng.randrange(4) < 3 else 1 - c)
    ok = whitebox_audit(mech, inputs=range(2), claimed_epsilon="ln 3", outputs=range(2))
    bad = whitebox_audit(mech, inputs=range(2), claimed_epsilon="ln(29/10)", outputs=range(2))
    assert (ok.verdict, bad.verdict) == ("pass", "violation")
    assert ok.worst is not None and ok.worst.ratio == 3


def test_linf_relation_by_brute_force() -> None:
    rel = vectors(2, 0, 2, 1, "linf")
    pts = [(a, b) for a in range(3) for b in range(3)]
    brute = {(u, v) for u in pts for v in pts
             if u != v and abs(u[0] - v[0]) <= 1 and abs(u[1] - v[1]) <= 1}
    assert set(rel.ordered_pairs()) == brute and len(brute) == 40
    assert "every coordinate may move by at most 1" in rel.name
    spec = parse_inputs("vectors(2, 0..1, 1, linf)")
    assert len(spec.neighbours) == 6  # {0,1}^2: every two distinct points are neighbours
    assert "linf" in spec.relation


def test_reports_state_the_relation_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "audit", f"{T}:keep_with", "--kind", "whitebox", "--rng",
                       "random", "--rng-arg", "prng", "--bind", "keep=0.75", "--ratio-bound",
                       "3", "--inputs", "0..2", "--outputs", "-1..2")
    assert rc == 1, err  # M(1) in {1, 0}, M(2) in {2, -1}: disjoint, infinite loss
    assert "neighbours: counts 0..2, c ~ c+1 (a count changes by one)" in out


def test_outcomes_as_code_returns_them() -> None:
    """check_outcome validates an output as its exact value (lists and arrays as the tuples
    of their items, a float as its exact value); the audit's law keeps the type too (a
    list is not a tuple, 0.5 is not Fraction(1, 2)); nan is not an outcome."""
    import numpy as np
    from audit_targets import realcode_targets as targets

    from exactdp.audit.guard import check_outcome

    assert check_outcome([1, [2, 3]], None, "f", {}) == (1, (2, 3))
    assert check_outcome(np.array([[1, 0]]), None, "f", {}) == ((1, 0),)
    assert check_outcome(np.float64(0.1), None, "f", {}) == Fraction(3602879701896397, 2**55)
    assert check_outcome(-0.0, None, "f", {}) == 0 and check_outcome(np.bool_(True), None,
                                                                       "f", {}) is True
    pair = facade_mechanism(lambda c, rng: [c, rng.randrange(2)])
    r = whitebox_audit(pair, inputs=range(2), claimed_epsilon=1)
    assert r.distributions[0] == {observed([0, 0]): Fraction(1, 2),
                                  observed([0, 1]): Fraction(1, 2)}
    halves = facade_mechanism(lambda c, rng: 0.5 if rng.randrange(2) else Fraction(1, 2))
    r = whitebox_audit(halves, inputs=range(2), claimed_epsilon=0)
    assert r.distributions[0] == {observed(0.5): Fraction(1, 2),
                                  observed(Fraction(1, 2)): Fraction(1, 2)}
    assert r.verdict == "pass"  # the same two outcomes on both inputs
    # np.sign(q + laplace) as an array: for q = 0 the double U = 1/2 gives -0.0 (sign 0),
    # the 2^52 - 1 nonzero doubles below it -1, the 2^52 - 1 above it +1 (0 is redrawn)
    signs = facade_mechanism(call_form(targets.noisy_values, "prng"), "numpy")
    r = whitebox_audit(signs, inputs=[(0,), (1,)], claimed_epsilon=1, kind="source")
    half = Fraction(2**52 - 1, TWO53 - 1)
    assert r.distributions[(0,)] == {observed(np.array([-1.0])): half,
                                     observed(np.array([0.0])): Fraction(1, TWO53 - 1),
                                     observed(np.array([1.0])): half}
    assert repr(observed(np.array([0.0]))) == "array([0.0], dtype=float64)"
    nan = whitebox_audit(facade_mechanism(lambda c, rng: float("nan")), inputs=range(2),
                         claimed_epsilon=1)
    assert nan.verdict == "broken" and nan.findings[0].kind == "bad_output"


def test_testing_takes_the_same_claims() -> None:
    """exactdp.testing reads epsilon with the same parser: 'ln 3' is the ratio bound 3."""
    from exactdp.randomness import RandomSource
    from exactdp.testing import OracleAssertionError, assert_pure_dp

    def rr(c: int, source: RandomSource) -> int:
        return c if source.bernoulli(3, 4) else 1 - c

    assert_pure_dp(rr, [(0, 1)], epsilon="ln 3")
    assert_pure_dp(rr, [(0, 1)], ratio_bound=3)
    with pytest.raises(OracleAssertionError):
        assert_pure_dp(rr, [(0, 1)], epsilon="ln(29/10)")


def test_inputs_reach_the_code_unchanged() -> None:
    """Outputs are converted to exact values, inputs are not: a float or list input would
    reach the code as a Fraction or tuple, so it is refused."""
    from exactdp.audit.targets import materialise_inputs

    assert materialise_inputs([(0, 1), Fraction(1, 2), 3]) == [(0, 1), Fraction(1, 2), 3]
    for bad in ([0.5, 1], [[0, 1], [1, 1]], [(0, 0.5), (1, 1)]):
        with pytest.raises(ExactDPError, match="unchanged"):
            materialise_inputs(bad)
