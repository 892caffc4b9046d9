"""``exactdp check``: the command group (geosample, fastsample, alp) and ``check alp``'s exact
certificate, exit statuses and refusals."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from exactdp.cli import main
from exactdp.sparse_vectors.alp_params import ALPParams
from tests._cli import run
from tests._plant import plant

C1 = ["check", "alp", "--epsilon", "1", "--alpha", "1", "--rows", "3", "--universe-size", "4",
      "--sparsity", "1"]


def test_alp_c1_certificate(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, *C1, "--json")
    cert = json.loads(out)
    assert rc == 0 and err == "" and cert["verdict"] == "pass"
    assert cert["worst"] == "2"  # notes §3.8 C1: 1 + eps
    wit = cert["witness"]["ratio_witness"]
    assert Fraction(wit["p"]) / Fraction(wit["q"]) == 2 and len(wit["seeds"]) == 3
    assert cert["parameters"]["family"]["prime"] == "5"


def test_alp_c4_grid_half(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "check", "alp", "--epsilon", "1", "--alpha", "1", "--rows", "5",
                     "--universe-size", "3", "--sparsity", "2", "--grid", "2", "--beta", "1",
                     "--json")
    assert rc == 0 and json.loads(out)["worst"] == "9/4"  # notes C4: (1 + eps/2)^2


def test_alp_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, *C1)
    assert rc == 0 and "worst ratio: 2" in out and "verdict: pass" in out
    assert "Carter-Wegman, P = 5" in out


def test_alp_violation_exits_1(capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    # planted: p = 1/(alpha + 3) (notes C8: p = 1/4 at alpha = 1 gives 3 > e)
    plant(monkeypatch, ALPParams, "from_paper", "1 / (a + 2)", "1 / (a + 3)")
    rc, out, _ = run(capsys, *C1, "--json")
    cert = json.loads(out)
    assert rc == 1 and cert["verdict"] == "FAIL" and cert["worst"] == "3"


@pytest.mark.parametrize("extra, words", [
    (["--universe-size", "40", "--sparsity", "4"], ["too large", "limit"]),
    (["--variant", "histogram-tight", "--grid", "2"], ["--grid", "integer"]),
    (["--variant", "unscaled"], ["--alpha"]),
    (["--epsilon", "0"], ["--epsilon"]),
    (["--epsilon", "0.5e"], ["--epsilon"]),
    (["--rows", "0"], ["--rows"]),
])
def test_alp_usage_errors(capsys: pytest.CaptureFixture[str], extra: list[str],
                          words: list[str]) -> None:
    argv = list(C1)
    for flag, value in zip(extra[::2], extra[1::2]):
        if flag in argv:
            argv[argv.index(flag) + 1] = value
        else:
            argv += [flag, value]
    rc, out, err = run(capsys, *argv)
    lines = [line for line in err.splitlines() if line.strip()]
    assert rc == 2 and out == "" and len(lines) == 1
    assert all(w in lines[0] for w in words), lines[0]


def test_missing_alpha_for_paper(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(capsys, "check", "alp", "--epsilon", "1", "--rows", "3",
                     "--universe-size", "4", "--sparsity", "1")
    assert rc == 2 and "--alpha" in err


def test_group_keeps_the_counting_checks(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "check", "geosample", "--n", "4", "--epsilon", "1/4", "--json")
    assert rc == 0 and json.loads(out)["worst"] == "5/4"
    with pytest.raises(SystemExit) as exc:
        main(["check", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert exc.value.code == 0 and "alp" in text and "what its --epsilon means" in text
    with pytest.raises(SystemExit) as exc:
        main(["check", "geosample", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(eps~/2, 0)-DP" in text and "one released value" in text and "K/2" not in text
    with pytest.raises(SystemExit) as exc:
        main(["check", "alp", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Carter-Wegman" in text and "exactdp --help" in text
    with pytest.raises(SystemExit) as exc:
        main(["check", "laplace"])
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and out == "" and "invalid choice" in err
