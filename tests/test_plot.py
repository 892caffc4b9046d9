"""exactdp.plot and ``exactdp plot``: the numbers drawn are the exact laws (checked against
the paper's closed forms written out here, independently of the code), the pictures are
labelled PNG/SVG files, and the command follows the CLI conventions."""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("matplotlib")

from _cli import one_line_error, run

from exactdp.certified import compare_exp
from exactdp.counting import FastSample, GeoSample
from exactdp.params import ExactDPError, ParameterError
from exactdp.plot import (
    MissingPlotExtra,
    accuracy_figure,
    accuracy_rows,
    figure_bytes,
    loss_bars,
    pmf_data,
    pmf_figure,
    privacy_loss_data,
    privacy_loss_figure,
    require_matplotlib,
    save_figure,
)


def clamped_geometric(n: int, alpha: Fraction, c: int) -> list[Fraction]:
    """Algorithm 4.5's law written out: c + two-sided geometric, clamped to [0, n]; the end
    masses are the geometric tails summed (alpha^j/(1+alpha) beyond distance j - 1)."""
    g = (1 - alpha) / (1 + alpha)
    law = [g * alpha ** abs(z - c) for z in range(n + 1)]
    law[0] = alpha**c / (1 + alpha)
    law[n] = alpha ** (n - c) / (1 + alpha)
    return law


def geo_alpha(eps: Fraction) -> Fraction:
    k = 0
    while Fraction(2, 2**k) > eps:  # k = ceil(log2(2/eps))
        k += 1
    return Fraction(2**k, 2**k + 1)


def zprime_clamped(n: int, alpha: Fraction, t: int, c: int) -> list[Fraction]:
    """Lemma 4.12 i by brute force: the geometric pmf on [c-t, c+t], the tails beyond t
    moved onto c, then every y < 0 summed into 0 and every y > n into n."""
    g = (1 - alpha) / (1 + alpha)
    law = [Fraction(0)] * (n + 1)
    for y in range(c - t, c + t + 1):
        law[min(max(y, 0), n)] += g * alpha ** abs(y - c)
    law[c] += 2 * alpha ** (t + 1) / (1 + alpha)
    return law


# ---------------------------------------------------------------- the exact data


@pytest.mark.parametrize(("n", "eps", "c"), [(8, Fraction(1, 2), 3), (5, Fraction(1), 0),
                                             (12, Fraction(1, 3), 12)])
def test_pmf_data_is_the_clamped_geometric(n: int, eps: Fraction, c: int) -> None:
    data = pmf_data(GeoSample(n, eps), c)
    expected = clamped_geometric(n, geo_alpha(eps), c)
    assert list(data.exact) == expected
    assert list(data.ideal or ()) == expected
    assert data.distance == 0 and sum(data.exact) == 1


def test_pmf_data_fastsample_and_zprime_against_lemma_4_12() -> None:
    fast = FastSample(60, 1, Fraction(1, 2))
    t = 40  # ceil(9/2 * ceil(log2(8 * 61 * (1/2) / (1/2)))) - 1 = ceil(9/2 * 9) - 1
    assert fast.t == t
    zp = zprime_clamped(60, Fraction(2, 3), t, 50)
    assert list(pmf_data(fast.truncated(), 50).exact) == zp
    assert list(pmf_data(fast, 50).exact) == [Fraction(1, 2) * p + Fraction(1, 2 * 61)
                                              for p in zp]
    assert all(p == 0 for p in pmf_data(fast.truncated(), 50).exact[:10])


def test_privacy_loss_geosample_is_1_plus_2_to_minus_k() -> None:
    n, eps = 6, Fraction(1, 2)
    alpha = geo_alpha(eps)
    data = privacy_loss_data(GeoSample(n, eps))
    assert data.claimed_epsilon == eps / 2
    assert abs(data.a - data.b) == 1
    p = clamped_geometric(n, alpha, data.a)
    q = clamped_geometric(n, alpha, data.b)
    assert [bar.ratio for bar in data.bars] == [x / y for x, y in zip(p, q, strict=True)]
    assert data.worst.ratio == 1 / alpha == Fraction(5, 4)
    box = data.worst.ln(64)
    assert compare_exp(box.lo, Fraction(5, 4)) < 0 < compare_exp(box.hi, Fraction(5, 4))
    assert box.hi - box.lo < Fraction(1, 2**60)


def test_privacy_loss_zprime_is_infinite_where_the_support_ends() -> None:
    fast = FastSample(60, 1, Fraction(1, 2))
    data = privacy_loss_data(fast.truncated())
    assert data.claimed_epsilon is None
    # Z' at c reaches [c - 40, c + 40] only: an output one neighbour can give and the other
    # cannot has an infinite loss.
    worst = data.worst
    assert worst.kind == "+inf" and worst.q == 0 < worst.p
    assert abs(worst.outcome - data.b) == 41 and abs(worst.outcome - data.a) == 40
    assert any(bar.kind in ("-inf", "+inf") for bar in data.bars)


def test_loss_bar_kinds() -> None:
    bars = loss_bars({0: Fraction(1, 2), 1: Fraction(1, 2)}, {1: Fraction(1, 4), 2: Fraction(3, 4)})
    assert [b.kind for b in bars] == ["+inf", "finite", "-inf"]
    assert bars[1].ratio == 2 and bars[0].ratio is None and bars[0].ln() is None
    assert loss_bars({"x": Fraction(1)}, {"y": Fraction(1)}, ["z"])[0].kind == "undefined"


def _exact_a(n: int, alpha: Fraction, beta: Fraction) -> int:
    """Smallest a with Pr[|M(c) - c| <= a] >= 1 - beta for every c, from the closed form."""
    a = 0
    while True:
        if all(sum(p for z, p in enumerate(clamped_geometric(n, alpha, c)) if abs(z - c) <= a)
               >= 1 - beta for c in range(n + 1)):
            return a
        a += 1


def _paper_a(k: int, beta: Fraction) -> int:
    """Theorem 4.7 i: the least a with (1 + 2^-k)^a >= 1/beta."""
    a = 0
    while (1 + Fraction(1, 2**k)) ** a < 1 / beta:
        a += 1
    return a


def test_accuracy_rows_against_the_closed_form() -> None:
    n, eps = 10, Fraction(1, 2)
    betas = [Fraction(1, 2), Fraction(1, 10), Fraction(1, 100)]
    rows = accuracy_rows(GeoSample(n, eps), betas)
    assert [r.beta for r in rows] == betas
    assert [r.exact_a for r in rows] == [_exact_a(n, geo_alpha(eps), b) for b in betas]
    assert [r.paper_a for r in rows] == [_paper_a(2, b) for b in betas]
    assert all(r.exact_a <= r.paper_a for r in rows if r.paper_a is not None)
    fast = accuracy_rows(FastSample(4, 1, Fraction(1, 10)), [Fraction(1, 20), Fraction(1, 2)])
    assert fast[0].paper_a is None and fast[1].paper_a is not None  # beta <= gamma: none
    with pytest.raises(ParameterError):
        accuracy_rows(GeoSample(4, 1), [Fraction(3, 2)])


# ---------------------------------------------------------------- the pictures


def test_pmf_figure_draws_the_exact_values() -> None:
    fig = pmf_figure(GeoSample(8, "1/2"), 3)
    ax = fig.axes[0]
    heights = [p.get_height() for p in ax.patches]
    expected = clamped_geometric(8, Fraction(4, 5), 3)
    assert heights == [pytest.approx(float(p), rel=1e-12) for p in expected]
    assert "GeoSample" in ax.get_title() and "c = 3" in ax.get_title()
    assert ax.get_xlabel() and ax.get_ylabel()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("implementation" in t for t in labels)
    assert any("statistical distance 0 exactly" in t for t in labels)


def test_loss_figure_draws_infinite_loss_and_the_claim() -> None:
    fast = FastSample(60, 1, Fraction(1, 2))
    fig = privacy_loss_figure(fast.truncated(), claimed=Fraction(1, 2))
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert "+∞" in texts
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("+inf loss" in t for t in legend)
    assert any("claimed epsilon = 1/2" in t for t in legend)
    hatched = [p for p in ax.patches if p.get_hatch()]
    assert hatched and all(p.get_height() > 0.5 for p in hatched)  # past the claim line


def test_accuracy_figure_and_files(tmp_path: Path) -> None:
    fig = accuracy_figure(GeoSample(8, "1/2"), ["1/2", "1/10"])
    assert "beta" in fig.axes[0].get_xlabel()
    png = tmp_path / "a.png"
    save_figure(fig, str(png))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = figure_bytes(fig, "svg")
    assert b"<svg" in svg and b"http://" not in svg.replace(b"http://www.w3.org", b"")
    with pytest.raises(ExactDPError, match="exists"):
        save_figure(fig, str(png))
    save_figure(fig, str(png), force=True)
    with pytest.raises(ParameterError, match=r"\.png or \.svg"):
        save_figure(fig, str(tmp_path / "a.pdf"))


def test_missing_matplotlib_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingPlotExtra, match=r"pip install 'exactdp\[plot\]'") as info:
        require_matplotlib()
    assert isinstance(info.value, ExactDPError) and "\n" not in str(info.value)


# ---------------------------------------------------------------- exactdp plot


def test_cli_pmf_json_is_exact(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "pmf.svg"
    # --epsilon is the budget of one value: 1/4 gives k = 2 (ln(5/4) <= 1/4 < ln(3/2)).
    rc, stdout, err = run(capsys, "plot", "pmf", "geosample", "--n", "8", "--epsilon", "1/4",
                          "--count", "3", "--output", str(out), "--json")
    assert rc == 0, err
    payload = json.loads(stdout)
    expected = clamped_geometric(8, Fraction(4, 5), 3)
    assert {int(z): Fraction(p) for z, p in payload["pmf"].items()} == dict(enumerate(expected))
    assert payload["statistical_distance"] == "0"
    assert out.read_text().count("<svg") == 1


def test_cli_loss_and_accuracy(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, stdout, err = run(capsys, "plot", "loss", "zprime", "--n", "60", "--epsilon", "1/2",
                          "--gamma", "1/2", "--output", str(tmp_path / "l.png"))
    assert rc == 0, err
    assert "ratio infinite" in stdout
    rc, stdout, err = run(capsys, "plot", "accuracy", "geosample", "--n", "10", "--epsilon",
                          "1/4", "--beta", "1/10", "--beta", "1/100", "--output",
                          str(tmp_path / "a.png"), "--json")
    assert rc == 0, err
    rows = json.loads(stdout)["rows"]
    assert [int(r["exact_a"]) for r in rows] == [_exact_a(10, Fraction(4, 5), Fraction(1, 10)),
                                                 _exact_a(10, Fraction(4, 5), Fraction(1, 100))]


@pytest.mark.parametrize(("args", "words"), [
    (["pmf", "geosample", "--n", "8", "--epsilon", "1/2", "--count", "3"], ["--output"]),
    (["pmf", "geosample", "--n", "8", "--epsilon", "1/2", "--count", "3", "--output",
      "x.pdf"], [".png or .svg"]),
    (["pmf", "geosample", "--n", "8", "--epsilon", "1/2", "--count", "9", "--output",
      "x.png"], ["--count"]),
    (["pmf", "zprime", "--n", "8", "--epsilon", "1/2", "--count", "1", "--output",
      "x.png"], ["--gamma"]),
    (["accuracy", "geosample", "--n", "8", "--epsilon", "1/2", "--beta", "2", "--output",
      "x.png"], ["--beta"]),
    (["pmf", "geosample", "--n", "8", "--epsilon", "0.6", "--count", "3", "--output",
      "x.png"], ["--epsilon = 3/5", "(0, 1/2]"]),
])
def test_cli_errors_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch, args: list[str],
                                 words: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    rc, _, err = run(capsys, "plot", *args)
    assert rc == 2
    one_line_error(err, *words)
    assert list(tmp_path.iterdir()) == []


def test_cli_output_checked_first(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    existing = tmp_path / "p.png"
    existing.write_bytes(b"keep")
    args = ["plot", "pmf", "geosample", "--n", "8", "--epsilon", "1/2", "--count", "3"]
    rc, _, err = run(capsys, *args, "--output", str(existing))
    assert rc == 2 and existing.read_bytes() == b"keep"
    one_line_error(err, "exists", "--force")
    rc, _, err = run(capsys, *args, "--output", str(tmp_path / "no" / "p.png"))
    assert rc == 2
    one_line_error(err, "does not exist")
    rc, _, _ = run(capsys, *args, "--output", str(existing), "--force")
    assert rc == 0 and existing.read_bytes()[:4] == b"\x89PNG"
    # without matplotlib: one line naming the extra, nothing written
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    rc, _, err = run(capsys, *args, "--output", str(tmp_path / "q.png"))
    assert rc == 2 and not (tmp_path / "q.png").exists()
    one_line_error(err, "pip install 'exactdp[plot]'")


def test_help_explains_the_notation(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["plot", "--help"], ["plot", "loss", "--help"], ["figures", "--help"],
                 ["audit", "--help"]):
        with pytest.raises(SystemExit):
            run(capsys, *argv)
        out = capsys.readouterr().out
        assert "the notation: exactdp --help" in out, argv
    with pytest.raises(SystemExit):
        run(capsys, "--help")
    out = capsys.readouterr().out
    assert "notation" in out and "[d]_+" in out and "eps~" in out


# ---------------------------------------------------------------- for all small parameters


@given(n=st.integers(1, 9), m=st.integers(1, 6), data=st.data())
def test_pmf_and_loss_match_the_closed_form_everywhere(n: int, m: int,
                                                       data: st.DataObject) -> None:
    """For every small GeoSample: the pmf drawn is Theorem 4.7 i's law, and every loss bar
    between neighbours is the ratio of those laws (never infinite: full support)."""
    c = data.draw(st.integers(0, n))
    eps = Fraction(1, m)
    alpha = geo_alpha(eps)
    assert list(pmf_data(GeoSample(n, eps), c).exact) == clamped_geometric(n, alpha, c)
    b = c + 1 if c < n else c - 1
    loss = privacy_loss_data(GeoSample(n, eps), pair=(c, b))
    p, q = clamped_geometric(n, alpha, c), clamped_geometric(n, alpha, b)
    assert [bar.ratio for bar in loss.bars] == [x / y for x, y in zip(p, q, strict=True)]
    assert all(1 / alpha >= bar.ratio >= alpha for bar in loss.bars if bar.ratio is not None)
