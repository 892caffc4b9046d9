"""``exactdp account``: basic composition of release files, the exact privacy-loss figures
of noisy counts (checked against brute-force product laws), refusals."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction as F
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.accounting.releases import basic_total, parse_spend
from exactdp.certified import compare_exp
from exactdp.checker import counting_distribution
from exactdp.geosample import GeoSample
from tests._cli import one_line_error, run


def sample(capsys, tmp: Path, name: str, *argv: str) -> Path:
    path = tmp / name
    rc, _, err = run(capsys, "sample", *argv, "--json", "--output", str(path))
    assert rc == 0, err
    return path


def brute_delta(mech, values, r):
    """max over neighbouring counts of sum_o max(0, P(o) - r Q(o)) of the product laws."""
    best = F(0)
    for a in range(mech.n + 1):
        for b in (a - 1, a + 1):
            if not 0 <= b <= mech.n:
                continue
            p, q = counting_distribution(mech, a), counting_distribution(mech, b)
            total = F(0)
            for o in itertools.product(range(mech.n + 1), repeat=values):
                pp = qq = F(1)
                for z in o:
                    pp *= p[z]
                    qq *= q[z]
                total += max(F(0), pp - r * qq)
            best = max(best, total)
    return best


def test_ratio_gives_the_exact_delta_of_the_product_laws(capsys, tmp_path):
    g = sample(capsys, tmp_path, "g.json", "geosample", "--n", "3", "--epsilon", "1/2",
               "--count", "1", "--draws", "3")
    for r in (F(1), F(5, 4), F(3, 2), F(2)):
        rc, out, _ = run(capsys, "account", str(g), "--ratio", str(r), "--json")
        assert rc == 0
        exact = json.loads(out)["exact"]
        # --epsilon is the budget of all three values: the mechanism the sampler chose
        assert F(exact["delta"]) == brute_delta(GeoSample.for_budget(3, F(1, 2), 3), 3, r)


def test_basic_composition_adds_the_spends(capsys, tmp_path):
    g = sample(capsys, tmp_path, "g.json", "geosample", "--n", "4", "--epsilon", "1/2",
               "--count", "2", "--draws", "2")
    f = sample(capsys, tmp_path, "f.json", "fastsample", "--n", "4", "--epsilon", "1/2",
               "--gamma", "1/100", "--count", "2")
    rc, out, _ = run(capsys, "account", str(g), str(f), "--json")
    assert rc == 0
    doc = json.loads(out)
    assert doc["basic"]["epsilon"] == "1/2 + 2*ln(5/4)"  # 2 ln(1 + 2^-2) and FastSample's 1/2
    assert doc["basic"]["delta"] == "0" and doc["exact"] is None
    lo, hi = F(doc["basic"]["epsilon_lower"]), F(doc["basic"]["epsilon_upper"])
    assert compare_exp(lo - F(1, 2), F(25, 16)) <= 0 <= compare_exp(hi - F(1, 2), F(25, 16))
    rc, out, _ = run(capsys, "account", str(g), str(f))
    assert rc == 0 and "basic composition: epsilon = 1/2 + 2*ln(5/4)" in out


def test_epsilon_and_delta_bracket_the_exact_figures(capsys, tmp_path):
    g = sample(capsys, tmp_path, "g.json", "geosample", "--n", "2", "--epsilon", "1/2",
               "--count", "1", "--draws", "2")
    rc, out, _ = run(capsys, "account", str(g), "--epsilon", "1/4", "--json")
    assert rc == 0
    e = json.loads(out)["exact"]
    lo, hi = F(e["delta_lower_exact"]), F(e["delta_upper_exact"])
    # delta(e^(1/4)) lies between the brute-force deltas at two ratios around e^(1/4)
    mech = GeoSample.for_budget(2, F(1, 2), 2)
    assert brute_delta(mech, 2, F(1285, 1000)) <= lo <= hi <= brute_delta(mech, 2, F(1284, 1000))
    rc, out, _ = run(capsys, "account", str(g), "--delta", "0", "--json")
    e = json.loads(out)["exact"]
    assert F(e["ratio"]) == (1 + F(1, 2**mech.k)) ** 2  # two values: pure 2 ln(1 + 2^-k)


def test_releases_on_different_neighbours_are_refused(capsys, tmp_path):
    g = sample(capsys, tmp_path, "g.json", "geosample", "--n", "4", "--epsilon", "1/2",
               "--count", "2")
    h = tmp_path / "h.json"
    h.write_text(json.dumps({"format": "exactdp/histogram",
                             "spent": {"epsilon": "1", "delta": "0"}}))
    rc, out, err = run(capsys, "account", str(g), str(h))
    assert rc == 2 and out == ""
    one_line_error(err, "different neighbour relations", "h.json")


@pytest.mark.parametrize("content, words", [
    ("not json", ["not valid JSON"]),
    ('{"values": []}', ["spent"]),
    ('{"spent": {"epsilon": "0.5*ln(2)", "delta": "0"}}', ["not an exact spend"]),
    ('{"spent": {"epsilon": "1", "delta": "0"}}', ["not a release file"]),
])
def test_bad_files_are_one_line_errors(capsys, tmp_path, content, words):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    rc, out, err = run(capsys, "account", str(bad))
    assert rc == 2 and out == ""
    one_line_error(err, *words)


def test_exact_figures_need_known_laws(capsys, tmp_path):
    f = sample(capsys, tmp_path, "f.json", "fastsample", "--n", "4", "--epsilon", "1/2",
               "--gamma", "1/100", "--count", "2")
    doc = json.loads(f.read_text())
    assert doc["gamma"] == "1/100"
    del doc["gamma"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc))
    rc, _, err = run(capsys, "account", str(old), "--epsilon", "1")
    assert rc == 2
    one_line_error(err, "gamma")
    rc, _, _ = run(capsys, "account", str(old))
    assert rc == 0


def test_output_is_atomic_and_never_overwrites(capsys, tmp_path):
    g = sample(capsys, tmp_path, "g.json", "geosample", "--n", "4", "--epsilon", "1/2",
               "--count", "2")
    out_path = tmp_path / "acc.json"
    out_path.write_text("keep")
    rc, _, _ = run(capsys, "account", str(g), "--output", str(out_path))
    assert rc == 2 and out_path.read_text() == "keep"
    rc, _, _ = run(capsys, "account", str(g), "--output", str(out_path), "--force")
    assert rc == 0 and json.loads(out_path.read_text())["basic"]["epsilon"] == "ln(3/2)"


def test_spend_terms():
    assert str(basic_total([parse_spend("1/3"), parse_spend("2*ln(3/2)", "1/10"),
                            parse_spend("ln(1+2^-1)")])) == "1/3 + 3*ln(3/2)"
    assert basic_total([parse_spend("1", "1/10"), parse_spend("0", "1/5")]).delta == F(3, 10)


def _mixed(capsys, tmp):
    g = sample(capsys, tmp, "g.json", "geosample", "--n", "3", "--epsilon", "1", "--count", "1",
               "--draws", "2")
    f = sample(capsys, tmp, "f.json", "fastsample", "--n", "3", "--epsilon", "1",
               "--gamma", "1/1000", "--count", "2", "--draws", "3")
    return [str(g), str(f)]


def test_grid_bounds_bracket_the_exact_figures(capsys, tmp_path, monkeypatch):
    """Forced onto the grid (as when the exact composition is too large), the certified
    bounds contain the exact delta, and overlap the exact epsilon interval."""
    from exactdp.accounting import product

    files = _mixed(capsys, tmp_path)
    exact = {}
    for flag, value in (("--ratio", "3"), ("--ratio", "1"), ("--delta", "1/1000")):
        rc, out, _ = run(capsys, "account", *files, flag, value, "--json")
        assert rc == 0
        exact[(flag, value)] = json.loads(out)["exact"]
        assert exact[(flag, value)]["method"] == "exact"
    monkeypatch.setattr(product, "MAX_ATOMS", 1)
    for (flag, value), ex in exact.items():
        rc, out, _ = run(capsys, "account", *files, flag, value, "--json")
        assert rc == 0
        grid = json.loads(out)["exact"]
        assert grid["method"] == "grid"
        if flag == "--ratio":
            assert F(grid["delta_lower_exact"]) <= F(ex["delta"]) <= F(grid["delta_upper_exact"])
            assert F(grid["delta_lower_exact"]) < F(grid["delta_upper_exact"])
        else:
            assert F(grid["epsilon_lower"]) <= F(ex["epsilon_upper"])
            assert F(ex["epsilon_lower"]) <= F(grid["epsilon_upper"])
    rc, out, _ = run(capsys, "account", *files, "--epsilon", "1")
    assert rc == 0 and "certified bounds on the ratio grid (257/256)^i" in out


def test_grid_work_is_estimated_and_refused_past_max_seconds(capsys, tmp_path, monkeypatch):
    """A planted slow grid bound: the estimate (timed on the first part) refuses the work
    before it runs, in one line, naming a --max-seconds that would do."""
    import time

    from exactdp.accounting import grid, product

    files = _mixed(capsys, tmp_path)
    monkeypatch.setattr(product, "MAX_ATOMS", 1)
    real = grid.grid_bounds
    calls = []

    def slow(*a, **k):
        calls.append(1)
        end = time.process_time() + 0.3
        while time.process_time() < end:
            pass
        return real(*a, **k)

    monkeypatch.setattr(grid, "grid_bounds", slow)
    rc, out, err = run(capsys, "account", *files, "--epsilon", "1", "--max-seconds", "1")
    assert rc == 2 and out == ""
    one_line_error(err, "would take about", "--max-seconds")
    assert len(calls) == 1


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(1, 6), min_size=2, max_size=4),
                          st.integers(1, 4)), min_size=1, max_size=2),
       st.data())
def test_ratio_count_bound_is_an_upper_bound(parts, data):
    """The predicted number of distinct ratios is never below the exact composition's."""
    from exactdp.accounting import PrivacyLoss, compose
    from exactdp.accounting.product import MAX_ATOMS
    from exactdp.accounting.releases import ratio_count_bound

    losses = []
    for weights, k in parts:
        other = data.draw(st.permutations(weights))
        p = {i: F(w, sum(weights)) for i, w in enumerate(weights)}
        q = {i: F(w, sum(other)) for i, w in enumerate(other)}
        losses.append((PrivacyLoss.from_laws(p, q), k))
    exact = compose(*(loss.power(k) for loss, k in losses))
    assert len(exact) <= ratio_count_bound(losses, MAX_ATOMS)
