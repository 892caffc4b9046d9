"""The named filters of paper 002 §5.3 (window, decay, Hodrick-Prescott), their verify rows
with planted bugs, and ``--filter window:W|decay:A:W|hp:L`` on the command line."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.convolution import filters
from exactdp.params import ParameterError
from exactdp.proofs.convolution import conv_sec_5_3_filters as row
from exactdp.proofs.convolution import conv_sec_5_3_volatility as vol
from tests._cli import run


def test_filters_by_hand() -> None:
    assert filters.window(3) == [1, 1, 1]
    assert filters.decay("1/2", 3) == [1, Fraction(1, 2), Fraction(1, 4)]
    # lambda = 0: no smoothing, the trend is x itself (h = e_0)
    assert filters.hodrick_prescott(0, 5) == [1, 0, 0, 0, 0]
    with pytest.raises(ParameterError):
        filters.decay(2, 3)
    with pytest.raises(ParameterError):
        filters.hodrick_prescott(1, 4)
    assert filters.named_filter("1,2") is None
    with pytest.raises(ParameterError):
        filters.named_filter("hp:1")                     # needs the series length


def test_rows_pass() -> None:
    assert row.check(False).verdict
    assert vol.check(False).verdict


def test_wrong_hp_stencil_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = filters.hodrick_prescott
    # a first-difference penalty in place of the second difference: not the HP trend
    monkeypatch.setattr(row, "hodrick_prescott",
                        lambda lam, n: orig(0, n) if lam == 0 else _first_difference(lam, n))
    assert not row.hp_certificate(Fraction(10), 6, random.Random(1)).verdict


def _first_difference(lam: Fraction, n: int) -> list[Fraction]:
    # (I + lam (2I - S - S^-1))^-1 e_0 by solving on the cycle (a plausible wrong filter)
    a = [[Fraction(int(i == j)) for j in range(n)] + [Fraction(int(i == 0))] for i in range(n)]
    for i in range(n):
        for d, v in ((0, 2), (1, -1), (-1, -1)):
            a[i][(i + d) % n] += lam * v
    for c in range(n):
        p = a[c][c]
        a[c] = [v / p for v in a[c]]
        for r in range(n):
            if r != c and a[r][c]:
                f = a[r][c]
                a[r] = [u - f * v for u, v in zip(a[r], a[c])]
    return [a[i][n] for i in range(n)]


def test_decay_off_by_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(row, "decay",
                        lambda a, w: [Fraction(a) ** (i + 1) for i in range(int(w))])
    assert not row.window_decay_certificate(False).verdict


def test_volatility_with_a_wrong_mean_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vol, "_deviations",          # mean over W - 1 entries
                        lambda x: [abs(v - Fraction(sum(x), max(1, len(x) - 1))) for v in x])
    assert not vol.sensitivity_certificate(4).verdict


def test_named_filters_on_the_command_line(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    x = [3, 0, 1, 2, 0, 4, 1, 0]
    path.write_text("".join(f"{v}\n" for v in x), encoding="utf-8")
    common = ["--domain", "histograms:n=20", "--epsilon", "1", "--delta", "1/1000000",
              "--seed", "1", "--json"]
    rc, out, _ = run(capsys, "convolve", str(path), "--group", "cyclic", "--filter", "hp:1",
                     *common)
    assert rc == 0
    h = [Fraction(v) for v in json.loads(out)["filter"]]
    assert len(h) == 8 and sum(h) == 1
    rc, out, _ = run(capsys, "convolve", str(path), "--group", "xor", "--filter", "window:3",
                     *common)
    assert rc == 0 and json.loads(out)["filter"] == ["1", "1", "1", "0", "0", "0", "0", "0"]
    rc, out, _ = run(capsys, "convolve", str(path), "--group", "cyclic", "--linear",
                     "--filter", "decay:1/2:4", *common)
    assert rc == 0 and len(json.loads(out)["y"]) == 11
    rc, out, err = run(capsys, "convolve", str(path), "--group", "cyclic", "--linear",
                       "--filter", "hp:1", *common)
    assert rc == 2 and out == "" and err.count("\n") == 1
    rc, out, err = run(capsys, "convolve", str(path), "--group", "cyclic", "--filter",
                       "window:9", *common)
    assert rc == 2 and "more than" in err
