"""Long work is estimated before it starts, refused past ``--max-seconds`` (default 60 s)
with one line naming the estimate and the flag, and cheap where it was needlessly slow.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

import pytest
import sympy
from _cli import one_line_error, run
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy_oracle import q, sympy_sign

from exactdp.certified import exp_interval
from exactdp.cli import build_parser
from exactdp.cli._common import DEFAULT_MAX_SECONDS
from exactdp.spend import _ln_fits_by_ln, ln_fits


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


def _leaves(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
        return
    for sub in subs:
        for name, child in sub.choices.items():
            yield from _leaves(child, (*path, name))


def test_every_max_seconds_defaults_to_a_minute() -> None:
    """The red team's rule: a run past 60 s is a hang, so no command waits longer unasked."""
    found = []
    for path, parser in _leaves(build_parser()):
        for action in parser._actions:
            if "--max-seconds" in action.option_strings:
                found.append(path)
                assert int(action.default) <= 60 == DEFAULT_MAX_SECONDS, path
    assert len(found) >= 6, found


def test_tiny_max_seconds_refuses_before_work(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "check", "geosample", "--n", "400", "--epsilon", "1/2",
                       "--max-seconds", "1")
    assert rc == 2 and out == ""
    one_line_error(err, "would take about", "--max-seconds")
