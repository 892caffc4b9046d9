"""Mechanisms audited from the command line as written, with no --outputs: labels and noisy
counts past the input range are outcomes like any other under --rng (the declared-outputs
default, the input range, is for f(c, u) and samplers).  Expected ratios are derived by hand
in audit_targets/bench_targets.py."""

from __future__ import annotations

import json

import pytest

from tests._cli import one_line_error, run

T = "audit_targets.bench_targets"
RR = ["--kind", "whitebox", "--rng", "random", "--claimed-epsilon", "ln 3", "--inputs", "0..1",
      "--quiet", "--json"]


def _audit(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    rc, out, _ = run(capsys, "audit", *argv)
    return rc, json.loads(out)


def test_label_outputs_of_a_class_pass_at_their_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    rc, data = _audit(capsys, f"{T}:BinaryRR('no', 'yes').randomise", *RR, "--patch-attr", "_rng")
    assert (rc, data["verdict"]) == (0, "pass"), data.get("findings")
    assert data["worst_ratio"]["ratio"] == "3"
    assert {data["worst_ratio"]["outcome"]} <= {"'no'", "'yes'", "no", "yes"}


def test_label_outputs_of_a_buggy_class_are_a_violation(
        capsys: pytest.CaptureFixture[str]) -> None:
    rc, data = _audit(capsys, f"{T}:BinaryRRBug('no', 'yes').randomise", *RR,
                      "--patch-attr", "_rng")
    assert (rc, data["verdict"]) == (1, "violation")
    assert data["severity"]["infinite_loss"] is True


def test_counts_past_the_inputs_are_outcomes(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--kind", "whitebox", "--rng", "random", "--claimed-epsilon", "ln 5",
            "--inputs", "0..1", "--quiet", "--json"]
    rc, data = _audit(capsys, f"{T}:noisy_count_wide_private", *argv)
    assert (rc, data["verdict"]) == (0, "pass"), data.get("findings")
    assert data["worst_ratio"]["ratio"] == "5"
    rc, data = _audit(capsys, f"{T}:noisy_count_wide", *argv)
    assert (rc, data["verdict"]) == (1, "violation"), data.get("findings")
    assert data["severity"]["infinite_loss"] is True


def test_declared_outputs_still_bind_when_given(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--kind", "whitebox", "--rng", "random", "--claimed-epsilon", "ln 5",
            "--inputs", "0..1", "--outputs", "-1..2", "--quiet", "--json"]
    rc, data = _audit(capsys, f"{T}:noisy_count_wide", *argv)
    assert (rc, data["verdict"]) == (3, "broken")
    assert data["findings"][0]["kind"] == "out_of_range"


@pytest.mark.parametrize(("target", "advice"), [
    (f"{T}:BinaryRR().randomise", ["--patch-attr", "_rng", "--rng", "random"]),
    (f"{T}:NpBinary().randomise", ["--patch-attr", "_rng", "--rng", "numpy-legacy"]),
    (f"{T}:rr_module", ["--patch", "random", "--rng", "random"]),
])
def test_a_one_argument_target_is_told_where_its_randomness_is(
        capsys: pytest.CaptureFixture[str], target: str, advice: list[str]) -> None:
    if "NpBinary" in target:
        pytest.importorskip("numpy")
    base = ["--kind", "whitebox", "--claimed-epsilon", "ln 3", "--inputs", "0..1", "--quiet"]
    rc, out, err = run(capsys, "audit", target, "--rng", "random", *base)
    assert rc == 2 and out == ""
    flag, name, _, rng = advice
    one_line_error(err, f"add {flag} {name} (with --rng {rng})")
    rc, out, err = run(capsys, "audit", target, *advice, *base, "--json")  # the advice works
    data = json.loads(out)
    assert (rc, data["verdict"], data["worst_ratio"]["ratio"]) == (0, "pass", "3"), err


STATDP = ["--rng", "numpy", "--rng-arg", "prng", "--bind", "epsilon=1", "--claimed-epsilon",
          "1", "--inputs", "vectors(3, 0..1, 1, linf)", "--quiet"]
BLACKBOX = ["--kind", "blackbox", "--draws", "400", "--alpha", "1/1000000000"]


def test_code_the_facade_refuses_is_audited_black_box_in_the_same_form(
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("numpy")
    rc, out, err = run(capsys, "audit", f"{T}:noisy_max_laplace", "--kind", "whitebox", *STATDP)
    assert rc == 2 and "black-box" in err
    rc, out, err = run(capsys, "audit", f"{T}:noisy_max_laplace", *BLACKBOX, *STATDP, "--json")
    assert (rc, json.loads(out)["verdict"]) == (0, "no violation detected"), err
    rc, out, err = run(capsys, "audit", f"{T}:noisy_max_laplace_unused", *BLACKBOX, *STATDP,
                       "--json")
    assert (rc, json.loads(out)["verdict"]) == (1, "violation"), err


def test_black_box_one_argument_code_draws_its_own_module_randomness(
        capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "audit", f"{T}:rr_module", *BLACKBOX, "--rng", "random",
                       "--patch", "random", "--ratio-bound", "3", "--inputs", "0..1",
                       "--quiet", "--json")
    assert (rc, json.loads(out)["verdict"]) == (0, "no violation detected"), err
    rc, out, err = run(capsys, "audit", f"{T}:rr_module", *BLACKBOX, "--rng", "random",
                       "--inputs", "0..1", "--ratio-bound", "3", "--quiet")
    assert rc == 2 and "--patch random" in err  # the same advice as white-box


def test_a_per_record_loop_under_add_remove_is_timing_and_says_why(
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--kind", "whitebox", "--rng", "random", "--claimed-epsilon", "ln 5", "--quiet"]
    rc, out, _ = run(capsys, "audit", f"{T}:bounded_sum", *argv,
                     "--inputs", "datasets(0..1, 2, add-remove)")
    assert rc == 1 and "SEVERITY: TIMING" in out and "worst privacy-loss ratio: 5" in out
    assert "datasets of 0 and 1 records" in out or "datasets of 1 and 2 records" in out
    rc, out, _ = run(capsys, "audit", f"{T}:bounded_sum", *argv,
                     "--inputs", "datasets(0..1, 2, replace-one)")  # the size is public
    assert rc == 0 and "verdict: PASS" in out and "records" not in out
