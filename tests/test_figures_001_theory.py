"""Paper 001's formula figures (exactdp.plot.paper001_theory, ``exactdp figures --paper 001
--figure N``): each figure's values against an independent computation, at a tiny size, and
the ``--figure`` option's conventions."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from _cli import one_line_error, run

from exactdp.plot import paper001_theory as theory


def test_fig6_flip_probabilities_are_the_smooth_formula() -> None:
    v = theory.fig6_values(units=4, top=3)
    a, b = map(int, v["base"].split("/"))
    assert Fraction(a, b) ** 1 <= Fraction(2719, 1000)  # rho <= e (e > 2.718)
    for x, smooth, local, glob in zip(v["x"], v["smooth"], v["local"], v["global"], strict=True):
        level = -(-x // 4)
        assert smooth == Fraction(b**level, a**level + b**level)
        assert glob == Fraction(b, a + b)
        assert local == (Fraction(b, a + b) if x < 4 else 0)


def test_fig9_level_law_by_enumerating_every_sign_vector() -> None:
    u, beta, k = (3, -1, 0, 4, -2, 2, 1), 2, 8
    got = theory.level_law(u, beta, k)
    want: dict[str, dict[int, Fraction]] = {"proof": {}, "printed": {}}
    for w in itertools.product((-1, 1), repeat=len(u)):
        x = abs(sum(wi * ui for wi, ui in zip(w, u)))
        lp = math.ceil(x / beta)
        lq = next(n for n in range(x + 1) if n * n * beta * beta * k >= x * x)
        for name, lv in (("proof", lp), ("printed", lq)):
            want[name][lv] = want[name].get(lv, Fraction(0)) + Fraction(1, 2 ** len(u))
    assert got["proof"] == dict(sorted(want["proof"].items()))
    assert got["printed"] == dict(sorted(want["printed"].items()))


def test_fig1_sigma_star_brackets_the_float_root() -> None:
    scipy_opt = pytest.importorskip("scipy.optimize")
    stats = pytest.importorskip("scipy.stats")

    def delta(s: float, eps: float) -> float:
        return float(stats.norm.cdf(1 / (2 * s) - eps * s)
                     - math.exp(eps) * stats.norm.cdf(-1 / (2 * s) - eps * s))

    for row in theory.fig1_values([Fraction(1, 2), Fraction(5)], step_bits=6):
        e = float(row["eps"])
        root = scipy_opt.brentq(lambda s, e=e: delta(s, e) - 1e-6, 0.01, 100)
        assert row["lo"] <= root <= row["hi"] and row["hi"] - row["lo"] == Fraction(1, 64)


def test_fig4_and_fig5_against_closed_forms() -> None:
    rs = [Fraction(1, 4), Fraction(1, 2), Fraction(1)]
    boxes = theory.fig4_values((1,), rs)[1]
    for r, (lo, hi) in zip(rs, boxes, strict=True):  # p = 1: P(r, 1) = (2/pi) atan(r)
        assert lo <= 2 / math.pi * math.atan(r) <= hi and hi - lo < Fraction(1, 20)
    # the text's example: ||u|| = 10, beta = 1, k = 512, p = 1024 gives N+ about 200
    n = theory.fig5_values((Fraction(1),), [Fraction(10)])[Fraction(1)][0]
    assert n is not None and 190 < n < 225


def test_figure_option_draws_one_figure_and_refuses_the_rest(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "one"
    rc, stdout, err = run(capsys, "figures", "--paper", "001", "--figure", "6", "--output",
                          str(out), "--quiet")
    assert rc == 0, err
    assert sorted(p.name for p in out.iterdir()) == ["proj_fig06_flip.json",
                                                     "proj_fig06_flip.png"]
    assert (out / "proj_fig06_flip.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((out / "proj_fig06_flip.json").read_text())["figure"] == "6"
    for args, words in ((("--paper", "001", "--figure", "7"), "regenerates Figures"),
                        (("--paper", "001", "--figure", "six"), "figure number"),
                        (("--paper", "004", "--figure", "2"), "all its figures at once"),
                        (("--paper", "001", "--figure", "6"), "exists")):
        rc, stdout, err = run(capsys, "figures", *args, "--output", str(out), "--quiet")
        assert rc == 2 and stdout == "", (args, err)
        one_line_error(err, words)


@pytest.mark.slow
def test_every_formula_figure_full_size(capsys: pytest.CaptureFixture[str], tmp_path: Path
                                        ) -> None:
    for n in theory.available():
        rc, _, err = run(capsys, "figures", "--paper", "001", "--figure", str(n), "--output",
                         str(tmp_path / "all"), "--quiet")
        assert rc == 0, err
    assert len(list((tmp_path / "all").iterdir())) == 2 * len(theory.available())


# --------------------------------------------------------------- Figures 8 and 9: five laws of w


def test_sum_counts_by_enumerating_every_sparse_w() -> None:
    from exactdp.plot import paper001_wlaws as wl

    u = (3, -1, 0, 4, -2, 2)
    for s in (1, 3, 10):
        counts, total = wl.sum_counts(u, s)
        want: dict[int, Fraction] = {}
        for w in itertools.product((-1, 0, 1), repeat=len(u)):
            weight = Fraction(1)
            for wi in w:
                weight *= Fraction(1, 2 * s) if wi else Fraction(s - 1, s)
            if weight:
                t = sum(wi * ui for wi, ui in zip(w, u, strict=True))
                want[t] = want.get(t, Fraction(0)) + weight
        assert {t: Fraction(c, total) for t, c in counts.items()} == want
        # eq. 30 straight from its definition: beta max|w_i| >= |w^T u|
        assert wl.p_plus_exact(u, 2, s) == sum(
            (Fraction(1, 2 * s) ** sum(map(abs, w)) * Fraction(s - 1, s) ** w.count(0)
             for w in itertools.product((-1, 0, 1), repeat=len(u))
             if 2 * max(map(abs, w)) >= abs(sum(a * b for a, b in zip(w, u, strict=True)))),
            Fraction(0))
        law = wl.level_law_exact(u, 2, s)
        assert sum(law.values()) == 1 and law.get(0, 0) == want.get(0, 0)


def test_rademacher_p_plus_is_the_fragile_probability_at_fig8_sizes() -> None:
    from exactdp.plot import paper001_wlaws as wl
    from exactdp.projections.nplus import fragile_probability

    for p in (10, 57):
        u = wl.data_vector(p, 10, "test")
        for beta in (1, 10):
            assert wl.p_plus_exact(u, beta, 1) == fragile_probability(u, beta)


def test_eq31_eq32_brackets_and_the_simulation() -> None:
    stats = pytest.importorskip("scipy.stats")
    integrate = pytest.importorskip("scipy.integrate")
    from exactdp.plot import paper001_wlaws as wl

    u = wl.data_vector(50, 10, "test")
    norm = math.sqrt(sum(v * v for v in u)) / 10
    box31 = wl.eq31(u, 10, Fraction(1))
    assert box31.lo <= 2 * stats.norm.cdf(1 / norm) - 1 <= box31.hi
    box32 = wl.eq32(u, 10, Fraction(1))
    r = 1 / norm
    val, _ = integrate.quad(lambda t: 2 * 50 * (2 * stats.norm.cdf(t) - 1) ** 49
                            * (2 * stats.norm.cdf(r * t) - 1) * stats.norm.pdf(t), 0, 12)
    assert box32.lo <= val <= box32.hi
    # eq. 32 bounds the Gaussian w's P+ (a simulation, 20000 draws: 4 standard errors)
    sim = wl.simulate(u, 10, "Gaussian", 20000, 1, Fraction(1))
    assert sim <= float(box32.hi) + 4 * math.sqrt(sim * (1 - sim) / 20000)


def test_figure_8_quick(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, _, err = run(capsys, "figures", "--paper", "001", "--figure", "8", "--quick",
                          "--output", str(tmp_path / "f8"), "--quiet")
    assert rc == 0, err
    data = json.loads((tmp_path / "f8" / "proj_fig08_p_plus_w.json").read_text())["values"]
    row = data["beta"]["1"]
    assert set(row) == {"s=1 (exact)", "s=3 (exact)", "s=10 (exact)", "Gaussian (simulated)",
                        "uniform (simulated)", "eq. 31", "eq. 32"}
    # Rademacher has the smallest P+ at every p (the paper's conclusion), exact values
    for i in range(len(data["p"])):
        assert Fraction(row["s=1 (exact)"][i]) < Fraction(row["s=10 (exact)"][i])
    assert (tmp_path / "f8" / "proj_fig08_p_plus_w.png").read_bytes()[:4] == b"\x89PNG"


def test_experiments_are_estimated_and_refused_past_max_seconds(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    exp = pytest.importorskip("exactdp.plot.paper001_experiments")
    if exp.missing_extra() is not None:
        pytest.skip(exp.missing_extra())
    assert exp.REPS == 10  # the paper's repetitions by default
    out = tmp_path / "refused"
    rc, stdout, err = run(capsys, "figures", "--paper", "001", "--quick", "--max-seconds", "8",
                          "--output", str(out), "--quiet")
    assert rc == 2 and stdout == "", err
    one_line_error(err, "over --max-seconds 8")
    assert not out.exists()  # nothing written, not even the formula figures
    # a formula figure alone is not estimated (no experiments): it runs under any limit
    rc, _, err = run(capsys, "figures", "--paper", "001", "--figure", "6", "--max-seconds",
                     "1", "--output", str(tmp_path / "six"), "--quiet")
    assert rc == 0, err


def test_figure_11_on_image_patches_quick(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    exp = pytest.importorskip("exactdp.plot.paper001_experiments")
    if exp.missing_extra() is not None:
        pytest.skip(exp.missing_extra())
    from exactdp.plot import paper001_data as pdata

    x, y = pdata.patches()
    assert x.shape == (1797, 64) and x.min() == 0 and x.max() == 16 and set(y) == {0, 1}
    assert (x.max(axis=1) > 0).all()  # every patch has a cosine
    monkeypatch.setattr(exp, "EPS_QUICK", "5")
    rc, _, err = run(capsys, "figures", "--paper", "001", "--figure", "11", "--quick",
                     "--output", str(tmp_path / "f11"), "--quiet")
    assert rc == 0, err
    data = json.loads((tmp_path / "f11" / "proj_fig11_patches.json").read_text())
    assert "CIFAR" in data["data"] and "china.jpg" in data["data"]
    assert not [r for r in data["rows"] if "Sign" in r["method"]]  # the paper's Fig. 11 methods
    assert {r["method"] for r in data["rows"]} >= {"DP-OPORP-L", "Raw-data-L", "DP-OPORP-G"}
    for r in data["rows"]:
        assert 0 <= r["P@10"] <= 1 and r["R@100"] == pytest.approx(r["P@100"] * 2)
    assert (tmp_path / "f11" / "proj_fig11_patches.png").read_bytes()[:4] == b"\x89PNG"


def test_sparse_stand_in_for_webspam() -> None:
    pytest.importorskip("sklearn")
    from exactdp.plot import paper001_data as pdata
    from exactdp.plot import paper001_sparse as sparse

    x, y = pdata.sparse_text()
    assert x.shape[0] == 2000 and x.shape[1] % 32 == 0 and x.min() == 0
    assert (x.max(axis=0) == 16).all()  # max-normalised: every column reaches the top
    assert 0.01 < (x > 0).mean() < 0.02 and set(y) == {0, 1}  # sparse, two classes
    assert "WEBSPAM" in sparse.DATA and set(sparse.PANELS) == {12, 14, 16}
