"""The convolution benchmark and experiments run in their quick modes (a few seconds).

Timings are not asserted (the machine is shared); what is asserted is the bookkeeping the
README's tables rely on, recomputed here independently: the float baseline is unbiased with
the MSE of eq. 5, the exact release's time split adds up, the experiment rows' baselines agree
with their closed forms.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from fractions import Fraction
from pathlib import Path
from types import ModuleType

import pytest

np = pytest.importorskip("numpy")

BENCH = Path(__file__).resolve().parent / "benchmarks"


def _load(name: str) -> ModuleType:
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_float_algorithm1_matches_eq5_and_convolves() -> None:
    fl = _load("conv_float")
    rng = np.random.default_rng(3)
    n = 32
    x = rng.integers(0, 4, n).astype(float)
    h = np.zeros(n)
    h[:3] = 1
    direct = np.array([sum(x[m] * h[(k - m) % n] for m in range(n)) for k in range(n)])
    xor = np.array([sum(x[b] * h[a ^ b] for b in range(n)) for a in range(n)])
    assert np.allclose(fl.algorithm1_cyclic(x, h, 1e12, 0.5, rng).y, direct, atol=1e-6)
    assert np.allclose(fl.algorithm1_xor(x, h, 1e12, 0.5, rng).y, xor, atol=1e-6)
    # empirical MSE within 10% of eq. 5 (2000 releases; the noise is exactly eq. 5's)
    l1 = np.abs(np.fft.fft(h)).sum() / math.sqrt(n)
    errs = [((fl.algorithm1_cyclic(x, h, 1.0, 1e-6, rng).y - direct) ** 2).mean()
            for _ in range(2000)]
    assert abs(np.mean(errs) / fl.eq5_mse(l1, n, 1.0, 1e-6) - 1) < 0.1


def test_bench_quick_json(capsys: pytest.CaptureFixture[str]) -> None:
    from exactdp.convolution import Domain, WalshFourierMechanism
    from exactdp.convolution.transforms import fwht_ints

    bench = _load("bench_convolution")
    assert bench.main(["--sizes", "6,8", "--sweep", "", "--json", "--filter", "both"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(r["filter"], r["N"]) for r in doc["rows"]] == [
        ("pair", 64), ("pair", 256), ("random", 64), ("random", 256)]
    for r in doc["rows"]:
        n = r["N"]
        if r["filter"] == "pair":
            assert r["draws"] == n // 2  # h = (1, 1, 0, ...): lambda_j = 1 + (-1)^(j_0)
        parts = r["transform_s"] + r["noise_s"] + r["reconstruction_s"]
        assert r["release_s"] == pytest.approx(parts)
        assert r["float_xor_s"] > 0 and r["float_fft_s"] > 0 and r["setup_plus_release_cpu_s"] > 0
        # the grid's MSE cost, recomputed from the two mechanisms' exact mse_bound
        _, h = bench.workload(n, 1000, r["filter"], 1)
        mse = {g: WalshFourierMechanism(h, Domain.histograms(n, 1000), epsilon=1,
                                        delta=Fraction(1, 10**6), accounting="zcdp",
                                        ratio_grid=g).mse_bound()
               for g in ("reciprocal", "fractions")}
        assert r["mse_over_other_grid"] == float(mse["reciprocal"] / mse["fractions"])
        assert r["draws"] == sum(1 for v in fwht_ints(h) if v)
    assert "| pair | 2^6 |" in bench.table(doc) and "| random | 2^8 |" in bench.table(doc)


def test_experiments_quick_rows_match_closed_forms(tmp_path: Path) -> None:
    exp = _load("conv_experiments")
    assert exp.main(["--xor", "3", "--cyclic", "", "--out", str(tmp_path)]) == 0
    doc = json.loads((tmp_path / "conv_experiments.json").read_text(encoding="utf-8"))
    rows = {r["filter"]: r for r in doc["rows"]}
    assert set(rows) == set(exp.FILTERS)
    rs = rows["running-sum"]
    # Walsh eigenvalues of (1^4, 0^4): lambda_0 = 4, lambda_4 = 4, others 0 -> 2 noisy rows
    assert rs["noisy_rows"] == 2
    # eq. 5 on xor: 4 ln(1/delta) (sum |lambda|)^2 / (eps^2 N^2) = 4 L 64/64 = 4 L
    lo, hi = Fraction(rs["eq5_lo"]), Fraction(rs["eq5_hi"])
    assert lo <= 4 * Fraction(math.log(10**6)) * (1 + Fraction(1, 10**9))
    assert hi >= 4 * Fraction(math.log(10**6)) * (1 - Fraction(1, 10**9))
    # input perturbation: ||h||_2^2 times the variance 2r/(r-1)^2 of the ratio r <= e
    # ||h||_2^2 = 4 times 2r/(r-1)^2, decreasing in r, with r <= e < 27183/10000
    e_up = Fraction(27183, 10000)
    assert Fraction(rs["input_mse"]) / 4 >= 2 * e_up / (e_up - 1) ** 2
    # specLB = max_K K^2 lambda_(K)^2 / (N^2 log2^2 N) = max(16, 4*16)/(64*9) = 1/9
    assert Fraction(rs["spec_lb"]) == Fraction(4 * 16, 64 * 9)
    assert (tmp_path / "conv_experiments.csv").read_text(encoding="utf-8").startswith("group,")
    assert "| xor | running-sum | 8 |" in (tmp_path / "conv_experiments.md").read_text("utf-8")
