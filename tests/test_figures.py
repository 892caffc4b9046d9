"""``exactdp figures --paper 004``: Figure 2's exact pmfs against Lemma 4.12 and Theorem 4.7
written out here, Figures 3-6's exact error entries against independent evaluations, the
files (PNG, SVG, JSON, Markdown, a self-contained HTML page) and the CLI conventions."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from _cli import one_line_error, run
from _html import check_page

from exactdp.plot.figures import PAPERS, html_table, markdown_table
from exactdp.plot.paper004 import exact_stability_per_query, files

FILES = ("figure2.png", "figure2.svg", "figure2.json", "figures3-6.md", "figures3-6.html",
         "figures3-6.json", "figures3-6_time.png", "section7.png", "section7.svg",
         "section7.json")


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from exactdp.cli import main

    out = tmp_path_factory.mktemp("fig") / "004"
    assert main(["figures", "--paper", "004", "--output", str(out), "--quick", "--quiet"]) == 0
    return out


def test_every_file_is_written(written: Path) -> None:
    assert sorted(p.name for p in written.iterdir()) == sorted(FILES) == sorted(files(True))
    for png in ("figure2.png", "figures3-6_time.png"):
        assert (written / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (written / "figure2.svg").read_text().count("<svg") == 1


def _geometric(alpha: Fraction, y: int, c: int) -> Fraction:
    return (1 - alpha) / (1 + alpha) * alpha ** abs(y - c)


def test_figure_2_pmfs_are_the_papers_laws(written: Path) -> None:
    payload = json.loads((written / "figure2.json").read_text())
    n, c, t, alpha, gamma = 60, 50, 40, Fraction(2, 3), Fraction(1, 2)  # eps = 1: k = 1
    assert payload["parameters"]["t"] == str(t) and payload["parameters"]["count"] == str(c)
    assert c - t > 0 and c + t > n  # the paper's situation
    panels = {p["name"]: {int(z): Fraction(v) for z, v in p["exact_pmf"].items()}
              for p in payload["panels"]}
    geo = panels["(a) GeoSample"]
    assert geo[0] == alpha**c / (1 + alpha) and geo[n] == alpha ** (n - c) / (1 + alpha)
    assert all(geo[z] == _geometric(alpha, z, c) for z in range(1, n))
    assert sum(geo.values()) == 1
    zprime = panels["(b) Z' clamped to [0, n]"]
    expected = dict.fromkeys(range(n + 1), Fraction(0))
    for y in range(c - t, c + t + 1):  # Lemma 4.12 i, then clamping to [0, n]
        expected[min(y, n)] += _geometric(alpha, y, c)
    expected[c] += 2 * alpha ** (t + 1) / (1 + alpha)
    assert zprime == expected
    assert all(zprime[z] == 0 for z in range(c - t))  # nothing below c - t
    fast = panels["(c) FastSample"]
    assert fast == {z: (1 - gamma) * p + gamma / (n + 1) for z, p in expected.items()}
    assert all(p["statistical_distance"] == "0" for p in payload["panels"])


def _ceil_scaled_ln(scale: Fraction, x: Fraction) -> int:
    """ceil(scale ln x) in floating point, refused when it is within 1e-6 of an integer
    (an independent evaluation for the test, not a certified one)."""
    v = float(scale) * math.log(x)
    assert abs(v - round(v)) > 1e-6
    return math.ceil(v)


def test_figures_3_to_6_exact_entries(written: Path) -> None:
    errors = json.loads((written / "figures3-6.json").read_text())["errors"]
    eps, beta, delta, x_small, x_large = (Fraction(1, 2), Fraction(1, 20), Fraction(1, 1000),
                                          64, 2**64)
    c9, c2, c5 = Fraction(9, 2) / eps, 2 / eps, 5 / eps
    fig3 = errors["3"]
    assert fig3["GeometricMechanism"]["per_query"] == str(_ceil_scaled_ln(c2, 1 / beta))
    assert fig3["GeoSample"]["per_query"] == str(_ceil_scaled_ln(c9, 1 / beta)) == "27"
    assert fig3["FastSample"]["simultaneous"] == str(_ceil_scaled_ln(c9, 2 * x_small / beta))
    fig4 = errors["4"]
    n = int(json.loads((written / "figures3-6.json").read_text())["n_exact"])
    assert fig4["GeoSample"]["b"] == str(1 + _ceil_scaled_ln(c9, 2 / delta))
    assert fig4["FastSample"]["t"] == str(2 + _ceil_scaled_ln(c9, 8 / (beta * delta)))
    assert fig4["GeoSample"]["simultaneous"] == str(2 + _ceil_scaled_ln(c9,
                                                                        2 * n / (beta * delta)))
    assert errors["5"]["FastSample"]["t"] == str(2 * _ceil_scaled_ln(c9, 8 * x_large / beta))
    assert errors["6"]["GeoSample"]["per_query"] == str(_ceil_scaled_ln(c5, 1 / beta))
    assert errors["6"]["FastSample"]["simultaneous"] == str(
        _ceil_scaled_ln(c5, 2 * x_large / beta))
    # The implementation's per-query error of BasicHistogram with GeoSample: the smallest a
    # with Pr[|Z - c| > a] = 2 alpha^(a+1) / (1 + alpha) <= beta for a middle count
    # (alpha = 4/5 for eps = 1/2; the clamped ends only help).
    a = 0
    while 2 * Fraction(4, 5) ** (a + 1) / (1 + Fraction(4, 5)) > beta:
        a += 1
    assert fig3["GeoSample"]["exact_per_query"] == str(a) == "13"


def test_exact_stability_per_query_by_hand() -> None:
    law = {0: Fraction(1, 4), 1: Fraction(1, 4), 2: Fraction(1, 2)}  # M(2) on [0, 2]
    # released only above b = 0: Pr[release within 0 of 2] = 1/2, within 1: 3/4
    assert exact_stability_per_query({2: law}, Fraction(1, 2), 0, 1) == 0
    assert exact_stability_per_query({2: law}, Fraction(1, 4), 0, 1) == 1
    assert exact_stability_per_query({2: law}, Fraction(1, 10), 0, 1) is None  # 0 suppressed
    assert exact_stability_per_query({2: law}, Fraction(1, 10), 0, 2) is None  # no c > t


def test_pages_and_tables(written: Path) -> None:
    text = check_page((written / "figures3-6.html").read_text())
    for fig in (3, 4, 5, 6):
        assert f"Figure {fig}:" in text
    md = (written / "figures3-6.md").read_text()
    assert "O~(|X| n log(1/eps))".replace("|", "\\|") in md and "measured, n = 16" in md
    assert markdown_table(["a|b"], [["x"]]) == "| a\\|b |\n|---|\n| x |\n"
    assert html_table(["<h>"], [["&"]]).count("&lt;h&gt;") == 1


def test_cli_conventions(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, _, err = run(capsys, "figures", "--paper", "999", "--output", str(tmp_path / "x"))
    assert rc == 2 and not (tmp_path / "x").exists()
    one_line_error(err, "--paper", "004")
    out = tmp_path / "d"
    out.mkdir()
    (out / "figure2.json").write_text("keep")
    rc, _, err = run(capsys, "figures", "--paper", "004", "--output", str(out), "--quick")
    assert rc == 2 and (out / "figure2.json").read_text() == "keep"
    assert sorted(p.name for p in out.iterdir()) == ["figure2.json"]  # nothing else written
    one_line_error(err, "exists", "--force")
    rc, _, err = run(capsys, "figures", "--paper", "004", "--output",
                     str(tmp_path / "no" / "such"))
    assert rc == 2
    one_line_error(err, "does not exist")
    assert "004" in PAPERS


def test_paper_003_alp_figure_3(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """ALP's Figure 3 (an experiment on seeded random data): the statistics written are those
    of the exact error histogram written beside them, recomputed here."""
    out = tmp_path / "003"
    rc, stdout, err = run(capsys, "figures", "--paper", "003", "--output", str(out), "--quick",
                          "--quiet")
    assert rc == 0, err
    assert sorted(p.name for p in out.iterdir()) == [
        "alp_figure1.png", "alp_figure2.png", "alp_figure3.json", "alp_figure3.png",
        "alp_sweeps.json", "alp_sweeps.png"]
    assert (out / "alp_figure3.png").read_bytes()[:4] == b"\x89PNG"
    data = json.loads((out / "alp_figure3.json").read_text())
    hist = {Fraction(e): int(c) for e, c in data["histogram"].items()}
    errors = sorted(e for e, c in hist.items() for _ in range(c))
    assert len(errors) == 2000 == int(data["stats"]["n"])
    assert Fraction(data["stats"]["mae"]) == sum(abs(e) for e in errors) / 2000
    assert Fraction(data["stats"]["mean"]) == sum(errors) / 2000
    assert Fraction(data["stats"]["p90_abs"]) == sorted(abs(e) for e in errors)[1799]
    # estimate = alpha * (average of argmax positions) lies in [0, alpha m]: m = 34, beta 100
    assert all(-100 <= e <= 3 * 34 for e in errors)
    assert data["stats"]["mae"] in stdout
    # the paper's setting (every column near collision probability 0.1) beside uniform keys,
    # each labelled; s is the fewest rows with (1 - 1/s)^99 >= 9/10, checked here directly
    s = int(data["facts"]["rows"])
    assert 10 * (s - 1) ** 99 >= 9 * s ** 99 and 10 * (s - 2) ** 99 < 9 * (s - 1) ** 99
    assert "paper" in data["setting"] and "uniform" in data["uniform_keys"]["setting"]
    other = {Fraction(e): int(c) for e, c in data["uniform_keys"]["histogram"].items()}
    assert sum(other.values()) == 2000
    assert Fraction(data["uniform_keys"]["stats"]["mae"]) == sum(
        abs(e) * c for e, c in other.items()) / 2000
    # the sweep's exact MAE at (alpha = 3, s = 10) recomputed from the specification's law
    from exactdp.proofs.alp._alp import spec_estimate_law
    from exactdp.sparse_vectors.alp_params import ALPParams

    sweep = json.loads((out / "alp_sweeps.json").read_text())
    beta = int(sweep["beta"])
    row = next(r for r in sweep["rows"] if r["alpha"] == "3" and r["s"] == "10")
    prm = ALPParams.from_paper(1, 3, beta, 10, 2, 4)
    total = Fraction(0)
    for x1 in range(beta + 1):
        for x2 in range(beta + 1):
            x = {key: v for key, v in ((1, x1), (2, x2)) if v}
            law = spec_estimate_law(prm, 11, x, 1)
            total += sum(abs(est / prm.scale - x1) * w for (_, est), w in law.items())
    assert Fraction(row["mae"]) == total / (beta + 1) ** 2


# --------------------------------------------------------------------------- paper 002


def _walsh(h: list[int]) -> list[int]:
    """The Walsh-Hadamard transform by the Kronecker recursion H_2N = [[H, H], [H, -H]]
    (independent of exactdp's bit-count formula)."""
    if len(h) == 1:
        return list(h)
    half = len(h) // 2
    a, b = _walsh(h[:half]), _walsh(h[half:])
    return [x + y for x, y in zip(a, b, strict=True)] + [x - y for x, y in zip(a, b, strict=True)]


def _taps(kind: str, n: int) -> list[int] | None:
    """The deterministic filters of paper002.FILTERS, written out (None: the seeded one)."""
    if kind == "moving-sum-8":
        return [1 if i < 8 else 0 for i in range(n)]
    if kind == "low-pass-binomial-8":
        return [math.comb(8, i) if i <= 8 else 0 for i in range(n)]
    if kind == "running-sum":
        return [1 if i < n // 2 else 0 for i in range(n)]
    return None


@pytest.fixture(scope="module")
def conv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from exactdp.cli import main

    out = tmp_path_factory.mktemp("fig") / "002"
    assert main(["figures", "--paper", "002", "--output", str(out), "--quick", "--quiet"]) == 0
    return out


def test_paper_002_convolution_mse(conv: Path) -> None:
    """The quick run (xor, N = 4, 8): specLB recomputed from an independent Walsh transform,
    eq. 5 inside its certified interval, input perturbation ||h||_2^2 times one geometric
    variance (the same for every filter, close to 2e/(e-1)^2 at eps = 1), and the table's
    decimals are the JSON's exact values rounded."""
    assert sorted(p.name for p in conv.iterdir()) == ["conv_mse.html", "conv_mse.json",
                                                      "conv_mse.md", "conv_mse.png"]
    assert (conv / "conv_mse.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = json.loads((conv / "conv_mse.json").read_text())["rows"]
    assert {(r["filter"], int(r["N"])) for r in rows} == {
        (f, n) for f in ("moving-sum-8", "low-pass-binomial-8", "running-sum", "random-0/1")
        for n in (4, 8)}
    per_count = set()
    md = (conv / "conv_mse.md").read_text()
    for r in rows:
        n, h = int(r["N"]), _taps(r["filter"], int(r["N"]))
        if h is None:
            continue
        lam = _walsh(h)
        sq = sorted((v * v for v in lam), reverse=True)
        core = max((k + 1) ** 2 * m for k, m in enumerate(sq))
        assert Fraction(r["spec_lb"]) == Fraction(core, n * n * (n.bit_length() - 1) ** 2)
        eq5 = 4 * math.log(10**6) * sum(abs(v) for v in lam) ** 2 / (n * n)
        assert float(Fraction(r["eq5_lo"])) <= eq5 * (1 + 1e-12)
        assert eq5 <= float(Fraction(r["eq5_hi"])) * (1 + 1e-12)
        per_count.add(Fraction(r["input_mse"]) / sum(v * v for v in h))
        assert f"| {float(Fraction(r['exact_mse'])):.4g} |" in md
        assert Fraction(r["exact_mse"]) < Fraction(r["eq5_lo"])  # below the paper's claim
    assert len(per_count) == 1
    (c,) = per_count
    assert abs(float(c) - 2 * math.e / (math.e - 1) ** 2) < 1e-3
    assert Fraction(rows[0]["spec_lb"]) == Fraction(1, 4)  # moving sum at N = 4: (4^2)/(16*4)
    text = check_page((conv / "conv_mse.html").read_text())
    assert "low-pass-binomial-8" in text and "specLB" in text


def test_benchmark_scripts_import_the_figures_code() -> None:
    """conv_experiments.py and proj_experiments.py use exactdp.plot's code, not copies."""
    import importlib
    import sys

    bench = Path(__file__).resolve().parent / "benchmarks"
    sys.path.insert(0, str(bench))
    try:
        conv_script = importlib.import_module("conv_experiments")
        proj_script = importlib.import_module("proj_experiments")
    finally:
        sys.path.remove(str(bench))
    from exactdp.plot import paper001, paper001_experiments, paper002

    assert conv_script.row is paper002.row and conv_script.markdown is paper002.markdown
    assert proj_script.paper001 is paper001 and proj_script.exp is paper001_experiments
    assert not [p.name for p in bench.glob("proj_*.py") if p.name != "proj_experiments.py"]


# --------------------------------------------------------------------------- paper 001


def test_paper_001_analytic_curves(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Eq. 23 recomputed at every (p, k, sigma) written, its limit p/k for large sigma, and
    the very sparse bound m checked from the binomial tail written the other way round.
    Without the [experiments] extra (scikit-learn hidden): the analytic part, one line saying
    what is missing, exit 0."""
    from importlib.util import find_spec

    from exactdp.plot import paper001_experiments as exp

    monkeypatch.setattr(exp, "find_spec",
                        lambda name: None if name == "sklearn" else find_spec(name))
    out = tmp_path / "001"
    rc, stdout, err = run(capsys, "figures", "--paper", "001", "--output", str(out), "--quick",
                          "--quiet")
    assert rc == 0, err
    from exactdp.plot import paper001_theory as theory

    assert sorted(p.name for p in out.iterdir()) == sorted([
        "proj_analytic.json", "proj_analytic.md", "proj_analytic.png",
        *(f for n in theory.available() for f in (theory.FILES[n], theory.JSONS[n]))])
    # scikit-learn is hidden here; numpy/scipy may be missing too (CI installs no extra)
    missing, _, rest = stdout.splitlines()[-1].partition(" missing: ")
    assert "scikit-learn" in missing.split(", ")
    assert rest == ("the retrieval/SVM curves on digits need the [experiments] extra: "
                    "pip install 'exactdp[experiments]'")
    data = json.loads((out / "proj_analytic.json").read_text())
    sigmas = [Fraction(1, 100), Fraction(1, 20), Fraction(1, 10), Fraction(1, 5),
              Fraction(1, 2), Fraction(1), Fraction(2), Fraction(5)]
    assert len(data["variance_ratio"]) == 8
    for r in data["variance_ratio"]:
        p, k = int(r["p"]), int(r["k"])
        for sigma, got, got_oporp in zip(sigmas, r["R"], r["R_oporp"], strict=True):
            v = sigma**2
            var_org = 2 * v + p * v * v
            assert Fraction(got) == var_org / (2 * v + k * v * v + Fraction(1, k))
            assert Fraction(got_oporp) == var_org / (2 * v + k * v * v
                                                     + Fraction(p - k, k * (p - 1)))
        assert abs(Fraction(r["R"][-1]) - Fraction(p, k)) < Fraction(p, k) / 100
    row = next(r for r in data["sensitivity"] if r["k"] == "256" and r["p"] == "100")
    assert row["Rademacher"] == row["OPORP"] == "1"
    k, s, p, delta = 256, 3, 100, Fraction(1, 10**6)
    m = int(Fraction(row["sparse s=3: Delta_2^2"]) * k / s)

    def tail(m: int) -> Fraction:  # Pr[Bin(k, 1/s) > m], summed upwards
        return sum((math.comb(k, j) * Fraction(1, s) ** j * Fraction(s - 1, s) ** (k - j)
                    for j in range(m + 1, k + 1)), Fraction(0))

    assert p * tail(m) <= delta < p * tail(m - 1)


def test_paper_001_experiments(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    """With the [experiments] extra: the digits curves (here one eps and t = 1 to stay fast;
    the real --quick sweep is the script's at k = 16).  Raw pixels without noise rank by the
    very cosine that defines the truth, so their precision is 1 at R = 10 and R = 50."""
    exp = pytest.importorskip("exactdp.plot.paper001_experiments")
    if exp.missing_extra() is not None:
        pytest.skip(exp.missing_extra())
    monkeypatch.setattr(exp, "EPS_QUICK", "5")
    monkeypatch.setattr(exp, "T_VALUES", (1,))
    out = tmp_path / "001"
    rc, stdout, err = run(capsys, "figures", "--paper", "001", "--output", str(out), "--quick",
                          "--quiet")
    assert rc == 0, err
    from exactdp.plot import paper001_theory as theory

    assert sorted(p.name for p in out.iterdir()) == sorted([
        "proj_analytic.json", "proj_analytic.md", "proj_analytic.png", "proj_experiments.json",
        "proj_experiments.md", "proj_svm.png",
        *(f"proj_fig{n}.{ext}" for n in ("10_digits", "13_digits_signs", "15_idp")
          for ext in ("png", "md", "json")),
        "proj_fig11_patches.png", "proj_fig11_patches.md",
        "proj_fig11_patches.json", "proj_fig12_14_16_sparse.png", "proj_fig12_14_16_sparse.md",
        "proj_fig12_14_16_sparse.json",
        *(f for n in theory.available() for f in (theory.FILES[n], theory.JSONS[n]))])
    for png in ("proj_fig10_digits.png", "proj_fig13_digits_signs.png", "proj_svm.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "precision@10/@50" in stdout
    data = json.loads((out / "proj_experiments.json").read_text())
    assert [(r["method"], r["k"], r["eps"]) for r in data["rows"]] == [
        ("SignOPORP-smooth t=1", 16, "5"), ("SignOPORP-RR t=1", 16, "5"), ("SignRP-RR", 16, "5"),
        ("iDP-SignRP-RR", 16, "5"), ("DP-OPORP-L", 16, "5"),
        ("Raw-data-L", None, "5"), ("DP-OPORP-G", 16, "5"), ("Raw-data-G", None, "5"),
        ("float DP-OPORP-G", 16, "5"), ("float Raw-data-G", None, "5")]
    for r in data["rows"]:
        assert all(0 <= r[m] <= 1 for m in ("P@10", "P@50", "P@100", "R@100", "SVM"))
        assert r["R@10"] == r["P@10"] * 10 / 50 and r["R@50"] == r["P@50"]
    raw = data["no_privacy"][0]
    assert raw["method"] == "no privacy: raw pixels" and raw["P@10"] == raw["P@50"] == 1.0
    md = (out / "proj_experiments.md").read_text()
    assert "Command: `exactdp figures --paper 001 --quick`" in md
    assert "| Raw-data-L |  | " in md and "### Exact parameters" in md
    fig13 = json.loads((out / "proj_fig13_digits_signs.json").read_text())
    assert fig13["figure"] == 13 and fig13["rows"] == [
        r for r in data["rows"] if r["method"].startswith("SignOPORP")
        or r["method"] in ("SignRP-RR", "DP-OPORP-L", "DP-OPORP-G", "Raw-data-G",
                           "float DP-OPORP-G")]
    fig10 = json.loads((out / "proj_fig10_digits.json").read_text())
    assert [r["method"] for r in fig10["rows"]] == [
        "DP-OPORP-L", "Raw-data-L", "DP-OPORP-G", "Raw-data-G", "float DP-OPORP-G",
        "float Raw-data-G"]


def test_paper_001_figures_10_and_13_have_their_own_files(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """--figure 10 and --figure 13 write files named by their number, no shared file, and
    run only the methods their picture draws (Figure 10: no sign method; 13: no iDP)."""
    exp = pytest.importorskip("exactdp.plot.paper001_experiments")
    if exp.missing_extra() is not None:
        pytest.skip(exp.missing_extra())
    from exactdp.plot import paper001

    assert not set(paper001.FIGURE_FILES[10]) & set(paper001.FIGURE_FILES[13])
    monkeypatch.setattr(exp, "EPS_QUICK", "5")
    monkeypatch.setattr(exp, "T_VALUES", (1,))
    for n, stem in ((10, "proj_fig10_digits"), (13, "proj_fig13_digits_signs")):
        out = tmp_path / str(n)
        rc, _, err = run(capsys, "figures", "--paper", "001", "--output", str(out), "--quick",
                         "--quiet", "--figure", str(n))
        assert rc == 0, err
        assert sorted(p.name for p in out.iterdir()) == sorted(
            f"{stem}.{ext}" for ext in ("json", "md", "png"))
        methods = {r["method"] for r in json.loads((out / f"{stem}.json").read_text())["rows"]}
        assert ("SignOPORP-smooth t=1" in methods) == (n == 13)
        assert "iDP-SignRP-RR" not in methods and ("Raw-data-L" in methods) == (n == 10)


def test_paper_001_rows_do_not_depend_on_the_worker_count() -> None:
    """The same sweep (real exact methods, a slice of digits, 2 repetitions) in one process
    and in two forked workers: every row equal but the processor seconds."""
    exp = pytest.importorskip("exactdp.plot.paper001_experiments")
    if exp.missing_extra() is not None:
        pytest.skip(exp.missing_extra())
    from exactdp.plot import paper001_data as pdata

    x, y = pdata.digits()
    x, y = x[:400], y[:400]
    sp = pdata.split(y, n_queries=100, n_train=200, seed=1)
    truth = pdata.true_neighbours(x, sp)
    methods = {n: m for n, m in exp.exact_methods(7, (1, 2)).items()
               if n in ("SignOPORP-smooth t=2", "iDP-SignRP-RR", "DP-OPORP-L", "Raw-data-G")}
    eps = [Fraction(1), Fraction(5)]

    def strip(rows: list[dict[str, object]]) -> list[dict[str, object]]:
        return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]

    one = exp.run(methods, eps, [16], 2, x, y, sp, truth, lambda line: None, workers=1)
    two = exp.run(methods, eps, [16], 2, x, y, sp, truth, lambda line: None, workers=2)
    assert len(one) == 8 and strip(one) == strip(two)
    assert len({r["P@10"] for r in one}) > 1  # the rows differ from each other


def test_section_7_errors_are_exact_and_above_the_bounds(written: Path) -> None:
    """The Section 7 picture's numbers: exact errors (Fractions written as strings) never below
    the certified lower bounds, and BasicHistogram's error at beta = 1/2 is a_M(1/2) read off
    GeoSample(64, 1) independently here (the least a with every c's mass within a >= 1/2)."""
    from fractions import Fraction

    from exactdp.checker import counting_distribution
    from exactdp.counting import GeoSample

    data = json.loads((written / "section7.json").read_text())
    rows = data["rows"]
    assert len(rows) == 20
    for r in rows:
        assert int(r["basic_geosample"]) >= Fraction(r["theorem_7_1_i_bound"])
        assert int(r["stability_geosample"]) >= Fraction(r["theorem_7_2_bound"])
    geo = GeoSample(64, 1)
    laws = [counting_distribution(geo, c) for c in range(65)]
    a = 0
    while any(sum((p for z, p in law.items() if abs(z - c) <= a), Fraction(0)) < Fraction(1, 2)
              for c, law in enumerate(laws)):
        a += 1
    assert int(rows[0]["basic_geosample"]) == a
