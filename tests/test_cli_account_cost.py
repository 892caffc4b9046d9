"""``exactdp account``'s exact figures have a cost estimate and ``--max-seconds``: refused
up front with the estimate, refused before the composition, stopped by the deadline when an
estimate misses (planted slow work), and progress lines on long runs."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests._cli import one_line_error, run
from tests.test_fuzz_cli import bounded


def sample(capsys, tmp: Path, name: str, *argv: str) -> Path:
    path = tmp / name
    rc, _, err = run(capsys, "sample", *argv, "--seed", "1", "--output", str(path), "--json")
    assert rc == 0, err
    capsys.readouterr()
    return path


def _spin(*args: object, **kwargs: object) -> object:
    while True:
        sum(range(1000))


def test_planted_slow_law_stops_at_max_seconds(capsys, tmp_path, monkeypatch):
    f = sample(capsys, tmp_path, "g.json", "geosample", "--n", "4", "--epsilon", "1/4",
               "--count", "1")
    from exactdp.accounting import loss

    monkeypatch.setattr(loss, "law_of", _spin)
    start = time.process_time()
    with bounded(30):
        rc, out, err = run(capsys, "account", str(f), "--epsilon", "1/4", "--max-seconds", "1")
    assert rc == 2 and out == ""
    one_line_error(err, "stopped after --max-seconds 1", "nothing was released or written")
    assert time.process_time() - start < 5


def test_planted_slow_composition_stops_at_max_seconds(capsys, tmp_path, monkeypatch):
    """The estimate is right but the composition is slower than timed (planted: every
    combination after the timed one spins): the deadline stops it."""
    f = sample(capsys, tmp_path, "g.json", "geosample", "--n", "4", "--epsilon", "1/4",
               "--count", "1")
    import importlib

    compose = importlib.import_module("exactdp.accounting.compose")
    real = compose.compose
    calls = []

    def slow(*parts):
        calls.append(1)
        if len(calls) > 1:
            _spin()
        return real(*parts)

    monkeypatch.setattr(compose, "compose", slow)
    out_file = tmp_path / "a.json"
    with bounded(30):
        rc, out, err = run(capsys, "account", str(f), "--epsilon", "1/4", "--max-seconds", "1",
                           "--output", str(out_file))
    assert rc == 2 and out == "" and not out_file.exists()
    one_line_error(err, "stopped after --max-seconds 1")


def test_estimate_refuses_before_the_laws(capsys, tmp_path, monkeypatch):
    """A planted slow law (a tenth of a second per count) makes n = 200 cost about 20 s of
    laws: refused by the estimate at --max-seconds 5, after timing only two laws."""
    f = sample(capsys, tmp_path, "f.json", "fastsample", "--n", "200", "--epsilon", "1/4",
               "--gamma", "1/1000", "--count", "3")
    from exactdp.accounting import loss

    real = loss.law_of
    laws = []

    def slow_law(mech, x, name="x"):
        laws.append(x)
        end = time.process_time() + 0.1
        while time.process_time() < end:
            pass
        return real(mech, x, name)

    monkeypatch.setattr(loss, "law_of", slow_law)
    rc, out, err = run(capsys, "account", str(f), "--epsilon", "1/4", "--max-seconds", "5")
    assert rc == 2 and out == ""
    one_line_error(err, "would take about", "over --max-seconds 5", "n = 200",
                   "pass --max-seconds")
    assert len(laws) == 2


def test_refused_before_the_composition(capsys, tmp_path, monkeypatch):
    """The per-combination time is measured once; many combinations times that, past the
    limit, are refused before composing (planted: one combination said to take 1 s)."""
    from exactdp.cli import account_cost

    g = sample(capsys, tmp_path, "g.json", "geosample", "--n", "6", "--epsilon", "1/4",
               "--count", "1")
    f = sample(capsys, tmp_path, "f.json", "fastsample", "--n", "6", "--epsilon", "1/4",
               "--gamma", "1/100", "--count", "1")
    real = account_cost.AccountCost.up_front

    def planted(self):
        real(self)
        self.combination_ns = 10**9

    monkeypatch.setattr(account_cost.AccountCost, "up_front", planted)
    rc, out, err = run(capsys, "account", str(g), str(f), "--epsilon", "1/4",
                       "--max-seconds", "3")
    assert rc == 2 and out == ""
    one_line_error(err, "combination(s) of the releases' neighbouring pairs",
                   "over --max-seconds 3")


def test_atom_blowup_is_not_timed_exactly(capsys, tmp_path):
    """FastSample's pair losses are on no lattice; 20 values of n = 60 compose to up to
    C(80, 20) > 10^18 ratios: the up-front estimate does not try that composition (it
    reached the 2^20-ratio cap after 30 s), and the certified grid bounds answer."""
    f = sample(capsys, tmp_path, "f.json", "fastsample", "--n", "60", "--epsilon", "5",
               "--gamma", "1/1000", "--count", "3", "--draws", "20")
    start = time.process_time()
    rc, out, err = run(capsys, "account", str(f), "--epsilon", "1/4", "--json")
    assert rc == 0, err
    assert json.loads(out)["exact"]["method"] == "grid"
    assert time.process_time() - start < 30


def test_the_reported_slow_case_is_fast_now(capsys, tmp_path):
    """GeoSample and FastSample releases at n = 100: over 7 minutes of CPU before the
    lattice test decided by exact divisions; a few seconds now, with the exact answer
    unchanged in form."""
    g = sample(capsys, tmp_path, "g.json", "geosample", "--n", "100", "--epsilon", "1/4",
               "--count", "5")
    f = sample(capsys, tmp_path, "f.json", "fastsample", "--n", "100", "--epsilon", "1/4",
               "--gamma", "1/1000", "--count", "5")
    start = time.process_time()
    rc, out, err = run(capsys, "account", str(g), str(f), "--epsilon", "1/4")
    assert rc == 0, err
    assert "delta in [0.054952, 0.054953]" in out
    assert time.process_time() - start < 20


@pytest.mark.parametrize("flag,value", [("--epsilon", "-1"), ("--delta", "2"),
                                        ("--ratio", "1/2")])
def test_bad_point_is_refused_before_any_work(capsys, tmp_path, monkeypatch, flag, value):
    f = sample(capsys, tmp_path, "g.json", "geosample", "--n", "4", "--epsilon", "1/4",
               "--count", "1")
    from exactdp.accounting import loss

    monkeypatch.setattr(loss, "law_of", _spin)
    with bounded(30):
        rc, out, err = run(capsys, "account", str(f), flag, value)
    assert rc == 2 and out == ""
    one_line_error(err, flag)


def test_huge_epsilon_is_refused_not_run(capsys, tmp_path):
    """--epsilon 1e10000 (an exact integer) ran for minutes in the certified exp of the
    delta; past 1000 (e^1000 promises no privacy) it is refused before any work."""
    f = sample(capsys, tmp_path, "g.json", "geosample", "--n", "4", "--epsilon", "1/4",
               "--count", "1")
    start = time.process_time()
    for value in ("1e10000", "1001"):
        with bounded(30):
            rc, out, err = run(capsys, "account", str(f), f"--epsilon={value}")
        assert rc == 2 and out == ""
        one_line_error(err, "--epsilon", "above 1000")
    assert time.process_time() - start < 5
    rc, out, err = run(capsys, "account", str(f), "--epsilon=1000")
    assert rc == 0, err
