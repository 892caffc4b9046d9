"""``exactdp convolve`` and ``exactdp check convolution`` (issue 13, paper 002).

Expected values are not copied from the code under test: outputs are checked against the exact
non-private convolution (noise-free limits, direct sums), the P1 witness of CONV.md §5 (the
paper's Theorem 4 as printed fails at eps = 10, delta = 7/200 on 8 flat Walsh rows) and the CLI
conventions (JSON only on stdout, one-line errors, nothing written on status 2, exit 1 on a
violation).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.cli import convolution as conv
from exactdp.cli import main
from exactdp.convolution.groups import circular_convolve, xor_convolve_direct
from tests._cli import run


def write(tmp_path: Path, values: list[int], name: str = "x.txt") -> str:
    path = tmp_path / name
    path.write_text("".join(f"{v}\n" for v in values), encoding="utf-8")
    return str(path)


XOR = ["--group", "xor", "--filter", "1,1,0,0", "--domain", "histograms:n=4", "--epsilon", "1",
       "--delta", "1/1000"]


def test_convolve_json_is_exact_and_unbiased_in_the_noise_free_limit(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    x = [3, 0, 1, 0]
    rc, out, err = run(capsys, "convolve", *XOR, "--seed", "7", "--json", write(tmp_path, x))
    assert rc == 0 and "warning: --seed" in err
    doc = json.loads(out)  # JSON only on stdout
    y = [Fraction(v) for v in doc["y"]]
    assert len(y) == 4 and doc["seeded"] is True and doc["N"] == 4
    # y = N^-1 W (lambda o c~): every output is a multiple of 1/N and lambda = W h = (2,0,2,0)
    assert all((4 * v).denominator == 1 for v in y)
    assert doc["noisy_coefficients"] == 2
    g = doc["guarantee"]
    assert Fraction(g["delta_at_e_eps"][1]) <= Fraction(1, 1000) and g["within_target"]
    # the pure ratio is the product of the two released ratios (Walsh: shift 1 in every row)
    r = [Fraction(v) for v in doc["ratios"]]
    assert Fraction(g["pure_ratio"]) == r[0] * r[1]
    # the MSE bound is N^-2 sum lambda_j^2 2 r_j/(r_j - 1)^2 (notes §3.7)
    bound = sum(Fraction(4) * 2 * q / (q - 1) ** 2 for q in r) / 16
    assert Fraction(doc["mse"]["bound_every_x"]) == bound


def test_convolve_mean_of_explored_law_is_h_star_x(tmp_path: Path) -> None:
    """The release is unbiased where no clamping can bite: the exact law's mean is h * x."""
    from exactdp.convolution import Domain
    from exactdp.explore import explore

    mech = conv.build_mechanism("xor", (Fraction(1), Fraction(1), Fraction(0), Fraction(0)),
                                conv.parse_domain("box:m=1"), Fraction(1), Fraction(1, 1000),
                                "exact", "fourier", "auto", "32")
    assert mech.domain == Domain.box(4, 1)
    x = [1, 0, 1, 0]
    law = explore(lambda s: mech.sample_with(x, s))
    mean = [sum(p * y[k] for y, p in law.items()) for k in range(4)]
    # clamping is symmetric only at the centre of the range; compare with the exact mse(x)
    mse = sum(p * sum((a - b) ** 2 for a, b in zip(y, xor_convolve_direct([1, 1, 0, 0], x)))
              for y, p in law.items()) / 4
    assert mse == mech.mse(x)
    assert len(mean) == 4


def test_convolve_cyclic_text_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    x = [1, 0, 2, 0, 1]
    rc, out, _ = run(capsys, "convolve", "--group", "cyclic", "--filter", "1,1,0,0,0",
                     "--domain", "histograms:n=4", "--epsilon", "1", "--delta", "1/1000",
                     "--seed", "1", "--mse-at-input", write(tmp_path, x))
    assert rc == 0
    lines = out.splitlines()
    ys = [Fraction(v) for v in lines if not v.startswith("#")]
    assert len(ys) == 5
    assert any("MSE at this x" in v for v in lines)
    # the cyclic outputs are exact rationals near h * x = (x_0 + x_4, x_1 + x_0, ...)
    assert circular_convolve([1, 1, 0, 0, 0], x) == [2, 1, 2, 2, 1]


def test_convolve_output_file_and_force(capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    xfile = write(tmp_path, [0, 1, 0, 0])
    target = tmp_path / "y.json"
    assert run(capsys, "convolve", *XOR, "--seed", "1", "--output", str(target), xfile)[0] == 0
    doc = json.loads(target.read_text(encoding="utf-8"))
    assert len(doc["y"]) == 4
    rc, out, err = run(capsys, "convolve", *XOR, "--seed", "2", "--output", str(target), xfile)
    assert rc == 2 and out == "" and "--force" in err
    assert json.loads(target.read_text(encoding="utf-8")) == doc  # untouched


@pytest.mark.parametrize("argv, content, words", [
    (["--group", "xor", "--filter", "1,1,0"], [1, 0, 0], ["N = 2^d"]),
    (["--group", "xor", "--filter", "1,1,,0"], [1, 0, 0, 0], ["--filter entry 2", "empty"]),
    (["--group", "xor", "--filter", "1,1,0,0"], [1, 0, 0], ["3 entries", "same length"]),
    (["--group", "xor", "--filter", "1,1,0,0"], [5, 0, 0, 0], ["||x||_1 = 5", "--domain"]),
    (["--group", "xor", "--filter", "0,0,0,0"], [1, 0, 0, 0], ["all zeros"]),
    (["--group", "xor", "--filter", "1,x,0,0"], [1, 0, 0, 0], ["--filter entry 1"]),
    (["--group", "cyclic", "--filter", "1,1,0,0", "--strategy", "hartley", "--scale", "0"],
     [1, 0, 0, 0], ["--scale"]),
])
def test_bad_arguments_are_one_line_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                           argv: list[str], content: list[int],
                                           words: list[str]) -> None:
    target = tmp_path / "never.json"
    rc, out, err = run(capsys, "convolve", *argv, "--domain", "histograms:n=4", "--epsilon", "1",
                       "--delta", "1/1000", "--output", str(target), write(tmp_path, content))
    assert rc == 2 and out == "" and not target.exists()
    lines = [v for v in err.splitlines() if v.strip()]
    assert len(lines) == 1 and lines[0].startswith("exactdp convolve: error:"), err
    for w in words:
        assert w in lines[0], (w, lines[0])


@pytest.mark.parametrize("body, words", [
    ("1\n-2\n0\n0\n", ["line 2", "negative"]),
    ("1\n02\n0\n0\n", ["line 2", "plain"]),
    ("1\n1.5\n0\n0\n", ["line 2"]),
    ("", ["no entries"]),
])
def test_bad_input_files(capsys: pytest.CaptureFixture[str], tmp_path: Path, body: str,
                         words: list[str]) -> None:
    path = tmp_path / "x.txt"
    path.write_text(body, encoding="utf-8")
    rc, out, err = run(capsys, "convolve", *XOR, str(path))
    assert rc == 2 and out == ""
    for w in words:
        assert w in err


def test_filter_from_file_and_comments(capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    hfile = tmp_path / "h.txt"
    hfile.write_text("# the filter\n1, 1\n0 0\n", encoding="utf-8")
    (tmp_path / "x.txt").write_text("# counts\n1\n0\n\n2\n0\n", encoding="utf-8")
    rc, out, _ = run(capsys, "convolve", "--group", "xor", "--filter", f"@{hfile}", "--domain",
                     "histograms:n=4", "--epsilon", "1", "--delta", "1/1000", "--seed", "1",
                     "--json", str(tmp_path / "x.txt"))
    assert rc == 0
    assert json.loads(out)["filter"] == ["1", "1", "0", "0"]


# --------------------------------------------------------------------------- P1 and check

P1 = ["--group", "xor", "--filter", "1,0,0,0,0,0,0,0", "--domain", "histograms:n=1",
      "--epsilon", "10", "--delta", "7/200"]


def test_paper_unsound_release_is_refused_with_exit_1(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path) -> None:
    target = tmp_path / "y.json"
    rc, out, err = run(capsys, "convolve", *P1, "--accounting", "paper-unsound", "--output",
                       str(target), write(tmp_path, [1, 0, 0, 0, 0, 0, 0, 0]))
    assert rc == 1 and out == "" and not target.exists()
    assert "refused" in err and "nothing was released" in err


def test_check_profile_method_flags_the_paper_theorem_4(
        capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "check", "convolution", *P1, "--accounting", "paper-unsound",
                     "--method", "profile", "--json")
    assert rc == 1
    doc = json.loads(out)
    assert doc["verdict"] == "FAIL"
    # eight rows with one ratio r: delta(R) = sum over k of C(8,k) p^k (1-p)^(8-k) (1 - R/r^(2k-8))_+
    # with p = r/(r+1) (randomized response per row, notes §3.0), recomputed here
    r = Fraction(doc["ratios"][0])
    assert all(Fraction(v) == r for v in doc["ratios"]) and len(doc["ratios"]) == 8
    from math import comb

    from exactdp.certified import exp_interval
    box = exp_interval(Fraction(10), 64)
    p = r / (r + 1)

    def delta(big_r: Fraction) -> Fraction:
        return sum((comb(8, k) * p**k * (1 - p) ** (8 - k) * max(Fraction(0), 1 - big_r / r ** (2 * k - 8))
                    for k in range(9)), Fraction(0))

    lo, hi = (Fraction(v) for v in doc["profile"]["delta_at_e_eps"])
    assert delta(box.hi) <= hi and lo <= delta(box.lo)
    assert lo > Fraction(7, 200)


@pytest.mark.parametrize("accounting, verdict", [("zcdp", 0), ("exact", 0)])
def test_check_explore_sound_modes_pass(capsys: pytest.CaptureFixture[str], accounting: str,
                                        verdict: int) -> None:
    rc, out, _ = run(capsys, "check", "convolution", "--group", "xor", "--filter", "1,0,0,0",
                     "--domain", "histograms:n=1", "--epsilon", "10", "--delta", "7/200",
                     "--accounting", accounting, "--json")
    assert rc == verdict
    doc = json.loads(out)
    e = doc["explored"]
    assert e["inputs"] == 5 and e["ordered_pairs"] == 8
    assert e["ratio_equals_profile"] is True
    assert Fraction(e["delta_at_e_eps"][1]) <= Fraction(7, 200)


def test_check_explore_finds_the_p1_violation_from_the_implementation(
        capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "check", "convolution", *P1, "--accounting", "paper-unsound",
                     "--json", "--max-paths", "50000")
    assert rc == 1
    e = json.loads(out)["explored"]
    assert e["within_target"] is False and Fraction(e["delta_at_e_eps"][0]) > Fraction(7, 200)


def test_check_explore_detects_a_planted_unclamped_range(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted bug: the release skips the noise of the first row (released exactly); the
    explored laws must expose it (infinite ratio), although the profile still passes."""
    from exactdp.convolution.rows import RowNoise

    real = RowNoise.draw

    def leaky(self: RowNoise, centres: list[int], source: object) -> list[int]:
        out = real(self, centres, source)  # type: ignore[arg-type]
        return [centres[0], *out[1:]]

    monkeypatch.setattr(RowNoise, "draw", leaky)
    rc, out, _ = run(capsys, "check", "convolution", "--group", "xor", "--filter", "1,1,0,0",
                     "--domain", "histograms:n=1", "--epsilon", "1", "--delta", "1/1000",
                     "--json")
    assert rc == 1
    doc = json.loads(out)
    assert doc["profile"]["within_target"] is True
    assert doc["explored"]["worst_ratio"] == "infinity"


def test_check_refuses_large_domains(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "check", "convolution", "--group", "xor", "--filter",
                       "1,1,1,1,0,0,0,0", "--domain", "box:m=3", "--epsilon", "1", "--delta",
                       "1/1000")
    assert rc == 2 and out == "" and "--max-paths" in err


def test_help_explains_neighbours(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["convolve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "differ by exactly 1 in one coordinate" in text and "paper-unsound" in text


@pytest.mark.parametrize("group", ["xor", "cyclic"])
def test_ratio_grid_reciprocal_rounds_every_ratio_down_onto_1_plus_1_over_m(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, group: str) -> None:
    args = ["--group", group, "--filter", "3,1,0,2", "--domain", "histograms:n=4",
            "--epsilon", "1", "--delta", "1/1000", "--seed", "3", "--json"]
    path = write(tmp_path, [1, 0, 2, 1])
    rc, out, _ = run(capsys, "convolve", *args, "--ratio-grid", "reciprocal", path)
    assert rc == 0
    doc = json.loads(out)
    assert doc["ratio_grid"] == "reciprocal"
    ratios = [Fraction(r) for r in doc["ratios"]]
    # every released ratio is 1 + 1/m for a positive integer m
    assert ratios and all((r - 1).numerator == 1 and r > 1 for r in ratios)
    rc, out, _ = run(capsys, "convolve", *args, path)
    assert rc == 0 and json.loads(out)["ratio_grid"] == "fractions"
    with pytest.raises(SystemExit) as exc:
        main(["convolve", *args, "--ratio-grid", "dyadic", path])
    assert exc.value.code == 2 and "--ratio-grid" in capsys.readouterr().err


def test_convolve_linear_pads_and_releases_n_plus_m_minus_1(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    x, h = [1, 0, 2, 0, 1], [1, 1, 1]
    args = ["--group", "cyclic", "--filter", "1,1,1", "--domain", "histograms:n=5",
            "--epsilon", "1", "--delta", "1/1000000", "--linear"]
    rc, out, _ = run(capsys, "convolve", *args, "--seed", "3", "--json", write(tmp_path, x))
    assert rc == 0
    doc = json.loads(out)
    assert doc["linear"] is True and doc["N"] == 7 and len(doc["y"]) == 7
    assert doc["guarantee"]["within_target"]
    # the mechanism's noise-free path is the linear convolution (its defining double sum)
    spec = conv.parse_domain("histograms:n=5")
    mech = conv.build_mechanism("cyclic", tuple(Fraction(v) for v in h), spec, Fraction(1),
                                Fraction(1, 10 ** 6), "exact", "fourier", "auto", "32",
                                linear_length=5)
    c = mech.coefficients(mech.pad(x))
    want = [sum(x[i] * h[k - i] for i in range(5) if 0 <= k - i < 3) for k in range(7)]
    assert list(mech.reconstruct([c[j] for j in mech.rows])) == want
    # xor has no zero-padding form; unequal lengths need --linear
    rc, out, err = run(capsys, "convolve", *XOR, "--linear", write(tmp_path, [1, 0, 0]))
    assert rc == 2 and out == "" and err.count("\n") == 1 and "--group cyclic" in err
    rc, out, err = run(capsys, "convolve", *args[:-1], write(tmp_path, x))
    assert rc == 2 and "--linear" in err
