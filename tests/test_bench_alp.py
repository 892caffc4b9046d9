"""The ALP benchmark and the Figure 3 script run in their quick modes (a few seconds).

``tests/benchmarks/bench_alp.py --quick`` needs OpenDP (the ``[audit]`` extra) and is skipped
without it; ``tests/benchmarks/alp_figure3.py --quick`` needs only exactdp.  Timings are not
asserted (the machine is shared); what is asserted is the bookkeeping the README's table
relies on and, for Figure 3, that the exact statistics agree with the exact histogram.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from fractions import Fraction
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parent / "benchmarks"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_bench_alp_quick_json(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("opendp")
    bench = _load("bench_alp")
    assert bench.main(["--quick", "--json", "--queries", "50"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["parameters"]["opendp"] is True
    rows = out["rows"]
    assert [r["k"] for r in rows] == [100, 1000]
    for r in rows:
        k = r["k"]
        # s = size_factor * k rows and m = ceil(beta * eps / alpha) = ceil(87/3) = 29 columns
        assert (r["s"], r["m"], r["cells_exactdp"]) == (10 * k, 29, 290 * k)
        # OpenDP's array: a power of two in [s*m, 2*s*m) (the correspondence of the table)
        cells = r["cells_opendp"]
        assert cells & (cells - 1) == 0 and r["cells_exactdp"] <= cells < 2 * r["cells_exactdp"]
        # the sketch holds exactly s*m cell bits (rounded up to bytes) plus 2m seed words
        seed_bits = r["space_bits_paper"] - r["cells_exactdp"]
        assert seed_bits == 2 * 29 * (2**62).bit_length()
        assert r["space_bits_exactdp"] == 8 * (-(-r["cells_exactdp"] // 8)) + seed_bits
        assert r["project_ratio"] == r["project_wall_exactdp"] / r["project_wall_opendp"]
        assert r["query_us_exactdp"] > 0 and r["query_us_opendp"] > 0


def test_opendp_cells_formula() -> None:
    bench = _load("bench_alp")
    # 10 * 100 * 87 / 3 = 29000 -> 2^15; 10 * 1000 * 87 / 3 = 290000 -> 2^19
    assert bench.opendp_cells(100, 87, 3, 1, 10) == 2**15
    assert bench.opendp_cells(1000, 87, 3, 1, 10) == 2**19
    # an exact power of two is not doubled: 50 * 1024 * 4 / 50 ... = 2^12 exactly
    assert bench.opendp_cells(1024, 4, 50, 1, 50) == 2**12


def test_figure3_quick_statistics_are_those_of_the_histogram(tmp_path: Path) -> None:
    fig = _load("alp_figure3")
    hist, facts = fig.run(beta=30, rows_factor=10, k=200, queries=500, seed=5,
                          log=lambda _msg: None)
    assert sum(hist.values()) == 500 == facts["queries"]
    assert (facts["m"], facts["rows"], facts["projections"]) == (10, 2000, 3)
    # every error is estimate - x with estimate = 3 * avg(argmax positions) in [0, 3m]
    assert all(-30 <= e <= 30 and isinstance(e, Fraction) for e in hist)
    st = fig.exact_stats(hist)
    errors = sorted(e for e, c in hist.items() for _ in range(c))
    assert st["mae"] == sum(abs(e) for e in errors) / 500
    assert st["mean"] == sum(errors) / 500
    absolute = sorted(abs(e) for e in errors)
    assert st["p90_abs"] == absolute[449]  # the 450th smallest |err|: 450 >= 0.9 * 500
    # a smoke band around the notes' exact E1 value at beta = 30 (MAE 3.84 with independent
    # 1/10 collisions; real hashing collides less): catches an estimator off by a unit scale
    assert 2 < st["mae"] < 6
    # the smoke run writes its data (the PNG only where matplotlib is importable)
    assert fig.main(["--quick", "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "alp_figure3.json").read_text(encoding="utf-8"))
    assert sum(data["main_histogram"].values()) == data["runs"][0]["queries"] == 2000
    assert (tmp_path / "alp_figure3_hist.csv").read_text(encoding="utf-8").startswith(
        "bin_center,count\n")
