"""Long work is estimated before it starts, refused past ``--max-seconds`` (default 60 s)
with one line naming the estimate and the flag, and cheap where it was needlessly slow.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

import pytest
import sympy
from _cli import leaves, one_line_error, run
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy_oracle import q, sympy_sign

from exactdp.certified import exp_interval
from exactdp.cli import build_parser
from exactdp.cli._common import DEFAULT_MAX_SECONDS
from exactdp.spend import _ln_fits_by_ln, ln_fits
from tests.test_fuzz_cli import bounded


def _just_below_exp(x: Fraction, b: int) -> Fraction:
    """The largest a/b below e^x (the bases the projections choose: e^x - a/b < 1/b)."""
    box = exp_interval(x, 64 + 2 * int(x) + 16)
    a = (box.lo * b).numerator // (box.lo * b).denominator
    return Fraction(a, b)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(x=st.fractions(min_value=Fraction(1, 50), max_value=200, max_denominator=50),
       b=st.integers(1, 64), c=st.integers(1, 5), shift=st.sampled_from([-1, 0, 1]))
def test_ln_fits_routes_agree(x: Fraction, b: int, c: int, shift: int) -> None:
    """Both ways of deciding ``c ln r <= e`` give the same answer, and the sympy oracle's,
    on ratios within 1/b of e^(e/c), where the decision needs the most precision."""
    e = x * c
    r = _just_below_exp(x, b) + Fraction(shift, b)
    if r <= 1:
        return
    want = sympy_sign(q(e) - c * sympy.log(q(r))) >= 0
    assert ln_fits(c, r, e) == want
    assert _ln_fits_by_ln(Fraction(c), r, e) == want


def test_ln_fits_near_e_to_the_1000_is_fast() -> None:
    """A base within 1/53 of e^1000 (1450-bit numerator): deciding ln(rho) <= 1000 took 12 s
    by refining ln(rho); by e^1000 it takes milliseconds."""
    rho = _just_below_exp(Fraction(1000), 53)
    start = time.process_time()
    assert ln_fits(1, rho, 1000)
    assert not ln_fits(1, rho + 1, 1000)
    assert time.process_time() - start < 2


def test_project_at_the_largest_epsilon_is_fast(capsys: pytest.CaptureFixture[str],
                                                tmp_path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "v.csv"
    f.write_text("1,2,3,4\n0,1,1,1\n")
    for kind in ("signs", "values"):
        start = time.process_time()
        rc, _out, err = run(capsys, "project", kind, str(f), "--k", "2", "--epsilon", "1000",
                           "--beta", "1", "--bound", "4", "--seed", "1", "--json")
        assert rc == 0, err
        assert time.process_time() - start < 5  # 7-12 s before


def test_every_max_seconds_defaults_to_a_minute() -> None:
    """The red team's rule: a run past 60 s is a hang, so no command waits longer unasked.
    The exceptions are verify and figures, whose work is a fixed set (the grid of claims,
    the paper's figures), not the input's size: verify (see the test below) and figures,
    whose --quick run of every figure takes about two minutes and whose default is 5
    minutes."""
    found = []
    for path, parser in leaves(build_parser()):
        for action in parser._actions:
            if "--max-seconds" in action.option_strings and path != ("verify",):
                found.append(path)
                limit = 300 if path == ("figures",) else DEFAULT_MAX_SECONDS
                assert int(action.default) == limit and DEFAULT_MAX_SECONDS == 60, path
    assert len(found) >= 6 and ("figures",) in found, found


def test_tiny_max_seconds_refuses_before_work(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "check", "geosample", "--n", "400", "--epsilon", "1/2",
                       "--max-seconds", "1")
    assert rc == 2 and out == ""
    one_line_error(err, "would take about", "--max-seconds")


# --------------------------------------------------------------------------- the deadline

def _spin(*args: object, **kwargs: object) -> object:
    while True:
        sum(range(1000))


def test_work_past_max_seconds_stops_cleanly(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Work the estimate missed (planted: the exact law never returns) stops at the limit,
    status 2, one line, nothing on stdout."""
    import exactdp.checker

    monkeypatch.setattr(exactdp.checker, "counting_distribution", _spin)
    start = time.process_time()
    with bounded(30):  # without the deadline: a failure, not a hang of the test run
        rc, out, err = run(capsys, "distribution", "geosample", "--n", "3", "--epsilon",
                           "1/2", "--count", "1", "--max-seconds", "1")
    assert rc == 2 and out == ""
    one_line_error(err, "stopped after --max-seconds 1", "nothing was released or written")
    assert time.process_time() - start < 5


def test_output_begun_is_not_cut(capsys: pytest.CaptureFixture[str]) -> None:
    """Once the output begins the deadline no longer applies (a half-written output, or one
    written and reported as not, would be worse than a late one)."""
    from exactdp.cli._common import DeadlineReached, delivering, work_deadline

    with pytest.raises(DeadlineReached), work_deadline(1):
        _spin()
    with work_deadline(1):
        delivering()
        end = time.process_time() + 1.5
        while time.process_time() < end:
            pass


def test_sparse_vector_sketch_is_estimated(capsys: pytest.CaptureFixture[str],
                                           tmp_path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "v.csv"
    f.write_text("1,5\n3,2\n")
    # m = 10^6 columns, each walked by k = 1000 padded keys: about two minutes of CPU
    rc, out, err = run(capsys, "sparse-vector", "project", str(f), "--epsilon", "1",
                       "--beta", "3000000", "--rows", "1", "--sparsity", "1000",
                       "--universe-size", "1e6", "--output", str(tmp_path / "s.json"))
    assert rc == 2 and out == "" and not (tmp_path / "s.json").exists()
    one_line_error(err, "1 x 1000000 sketch", "--max-seconds 60", "pass --max-seconds")


def test_sign_oporp_check_is_estimated(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "check", "sign-oporp", "--epsilon", "1", "--p", "4", "--k",
                       "2", "--bound", "2", "--max-seconds", "1")
    assert rc == 2 and out == ""
    one_line_error(err, "384 plan(s) on 625 inputs", "--max-seconds 1")


def test_verify_quick_runs_far_below_its_default_limit() -> None:
    """The quick grids take about 35 s of processor time on a loaded 2-core machine, with or
    without the compiled kernels (/usr/bin/time python -m exactdp.cli verify --quick): the
    commands' 60 s would stop them on a machine twice as slow.  verify's default leaves a
    machine eight times slower room to finish them."""
    from exactdp.cli._common import max_seconds
    from exactdp.cli.verify import VERIFY_MAX_SECONDS

    args = build_parser().parse_args(["verify", "--quick"])
    assert max_seconds(args) == VERIFY_MAX_SECONDS
    assert VERIFY_MAX_SECONDS >= 8 * 35


def test_distribution_estimate_covers_its_exact_fractions() -> None:
    """At large n the time of ``distribution`` is the reduction of its n + 1 exact
    probabilities (gcds of numbers as long as d), not the threshold search: the estimate must
    not fall far below the measured work (the search alone was estimated at a fifth of it)."""
    from exactdp.checker import counting_distribution
    from exactdp.cli.counting import _make_mechanism, distribution_ns

    mech = _make_mechanism(argparse.Namespace(n="6000", epsilon="1/2", gamma=None,
                                              mechanism="geosample"))
    estimate = distribution_ns(mech)
    start = time.process_time_ns()
    law = counting_distribution(mech, 3)
    assert law == mech.ideal_distribution(3)
    assert sum(law.values()) == 1
    text = [str(p) for p in law.values()]
    measured = time.process_time_ns() - start
    assert len(text) == 6001
    assert 2 * estimate >= measured, (estimate, measured)


def test_project_estimates_its_release_before_drawing(
        capsys: pytest.CaptureFixture[str], tmp_path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    """On standard output a projection streams as it is drawn, so its deadline ends with the
    first line: the release is estimated up front (vectors x one vector's time)."""
    import exactdp.cli.projections as proj

    f = tmp_path / "v.csv"
    f.write_text("".join(f"{i % 5},{-(i % 3)},1,0\n" for i in range(300)))
    argv = ["project", "values", "--method", "rp", str(f), "--k", "2", "--epsilon", "1",
            "--beta", "1", "--bound", "5", "--plan-seed", "1", "--seed", "2"]
    rc, out, err = run(capsys, *argv, "--max-seconds", "600")
    assert rc == 0 and len(out.splitlines()) == 301
    timed = []
    monkeypatch.setattr(proj, "per_call_ns", lambda fn: timed.append(fn) or 10**9)
    rc, out, err = run(capsys, *argv, "--max-seconds", "299")
    assert rc == 2 and out == "" and len(timed) == 1
    one_line_error(err, "releasing 300 vector(s) of 2 values", "about 5 minutes",
                   "--max-seconds 299")


def test_query_estimates_its_counts_before_answering(
        capsys: pytest.CaptureFixture[str], tmp_path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    """A compact release evaluates a polynomial of degree n per element: many elements are
    estimated (one count timed, times their number) and refused past --max-seconds."""
    import exactdp.cli.histogram as hist

    data = tmp_path / "d.txt"
    data.write_text("3\n5\n5\n")
    rel = tmp_path / "r.json"
    rc, _, err = run(capsys, "histogram", str(data), "--algorithm", "compact",
                     "--universe-size", "64", "--epsilon", "1", "--seed", "1", "--output",
                     str(rel), "--quiet")
    assert rc == 0, err
    elements = [str(1 + i % 64) for i in range(100)]
    rc, out, err = run(capsys, "query", str(rel), *elements)
    assert rc == 0 and len(out.splitlines()) == 100
    monkeypatch.setattr(hist, "per_call_ns", lambda fn, calls=3: 10**9)
    rc, out, err = run(capsys, "query", str(rel), *elements, "--max-seconds", "100")
    assert rc == 2 and out == ""
    one_line_error(err, "counting 100 element(s)", "--max-seconds 100")


def test_histogram_estimates_reading_a_large_input(
        capsys: pytest.CaptureFixture[str], tmp_path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    """A large input file is estimated (its size times the time of parsing its first
    256 KiB) and refused past --max-seconds before it is read."""
    import exactdp.cli.histogram as hist

    f = tmp_path / "big.txt"
    f.write_text("".join(f"{1 + i % 1000}\n" for i in range(300_000)))  # about 1.1 MB
    argv = ["histogram", str(f), "--algorithm", "pure-sparse", "--universe-size", "1000",
            "--epsilon", "1", "--seed", "1", "--quiet"]
    timed = []
    monkeypatch.setattr(hist, "per_call_ns", lambda fn, calls=3: timed.append(fn) or 10**9)
    rc, out, err = run(capsys, *argv, "--max-seconds", "3")
    assert rc == 2 and out == "" and len(timed) == 1
    one_line_error(err, f"reading {f.stat().st_size} bytes of input", "--max-seconds 3")
