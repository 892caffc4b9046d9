"""``exactdp sparse-vector project | query``: the input format, round trips, bad input, the
output path checked before any draw, reproducibility under --seed, exit statuses."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.cli import main
from exactdp.cli.sparse_vector import decimal_rounded, read_pairs
from exactdp.files import InputFileError
from exactdp.params import DomainError, ExactDPError
from tests._cli import one_line_error, run

BASE = ["--epsilon", "1", "--alpha", "3", "--beta", "30", "--rows", "20", "--sparsity", "4",
        "--universe-size", "1000"]


@pytest.fixture
def vector(tmp_path: Path) -> Path:
    path = tmp_path / "x.csv"
    path.write_text("# a comment\nkey,value\n3,10\n\n17, 2\n999,0\n5,25\n")
    return path


# --------------------------------------------------------------------------- the input format

def test_read_pairs_policy() -> None:
    text = "\ufeff# c\r\nkey,value\r\n  \r\n3,10\r\n17 , 2.5\r\n8,5/2\r\n9,1e1\r\n10,0\r\n"
    assert read_pairs(text.removeprefix("\ufeff"), 100, 2, 4) == {3: 20, 17: 5, 8: 5, 9: 20}
    assert read_pairs("", 5, 1, 1) == {}
    assert read_pairs("key,value\n", 5, 1, 1) == {}
    assert read_pairs("1,0\n2,0\n3,0\n", 5, 1, 1) == {}  # zeros do not count toward k


@pytest.mark.parametrize(("text", "error", "words"), [
    ("3,1\n3,2\n", InputFileError, ["line 2", "line 1", "key 3"]),
    ("0,1\n", InputFileError, ["line 1", "key '0'"]),
    ("01,1\n", InputFileError, ["line 1", "leading zeros"]),
    ("+1,1\n", InputFileError, ["line 1"]),
    ("101,1\n", DomainError, ["line 1", "outside [1, D]", "D = 100"]),
    ("1,-2\n", DomainError, ["line 1", "negative"]),
    ("1,1/3\n", DomainError, ["line 1", "grid", "G = 2", "2/3"]),
    ("1,0.25\n", DomainError, ["line 1", "grid", "1/2"]),
    ("1,nan\n", InputFileError, ["line 1", "not an exact"]),
    ("1,1.5e\n", InputFileError, ["line 1"]),
    ("1,0x10\n", InputFileError, ["line 1"]),
    ("1,２\n", InputFileError, ["line 1"]),
    ("1,1,1\n", InputFileError, ["line 1", "KEY,VALUE"]),
    ("1\n", InputFileError, ["line 1", "KEY,VALUE"]),
    ("1,1\nkey,value\n", InputFileError, ["line 2"]),  # a header only as the first line
    ("1,1\r2,2\n", InputFileError, ["line 1", "carriage return"]),
    ("1,1\n2,1\n3,1\n4,0\n5,1\n", DomainError, ["line 5", "--sparsity K = 3"]),
    ("1," + "9" * 500 + "\n", InputFileError, ["line 1", "characters"]),
    ("1,1e99999\n", InputFileError, ["line 1", "exponent"]),
])
def test_read_pairs_errors_name_the_line(text: str, error: type[Exception],
                                         words: list[str]) -> None:
    with pytest.raises(error) as exc:
        read_pairs(text, 100, 2, 3, where="input 'x'")
    assert isinstance(exc.value, ExactDPError)
    message = str(exc.value)
    assert "\n" not in message and message.startswith("input 'x'")
    for w in words:
        assert w in message, (w, message)


def test_read_pairs_large_keys_and_many_lines() -> None:
    big = 2**64
    assert read_pairs(f"{big},1\n", big, 1, 1) == {big: 1}
    with pytest.raises(DomainError):
        read_pairs(f"{big + 1},1\n", big, 1, 1)
    lines = "".join(f"{i},{i % 7}\n" for i in range(1, 20_001))
    pairs = read_pairs(lines, 10**6, 1, 20_000)
    assert len(pairs) == 20_000 - 20_000 // 7 and pairs[8] == 1


@pytest.mark.parametrize(("q", "text"), [
    (Fraction(17, 3), "5.666667"), (Fraction(-1, 3), "-0.333333"), (Fraction(0), "0.000000"),
    (Fraction(1, 2_000_000), "0.000001"), (Fraction(-1, 2_000_001), "0.000000"),
    (Fraction(12), "12.000000"), (Fraction(9_999_999_5, 10**7), "10.000000"),
])
def test_decimal_rounded_is_exact(q: Fraction, text: str) -> None:
    assert decimal_rounded(q) == text
    # |q - shown| <= 1/2 * 10^-6, checked exactly
    assert abs(q - Fraction(text)) <= Fraction(1, 2 * 10**6)


# --------------------------------------------------------------------------- project and query

def _estimate_from_file(doc: dict, key: int) -> Fraction:
    """Algorithm 5 computed from the file alone, written apart from the library: the rows
    h_b(key) = ((a*key + b) mod P) mod s + 1, the bits, the walk, the average argmax / c."""
    s, m = int(doc["params"]["rows"]), int(doc["params"]["columns"])
    prime = int(doc["hash"]["prime"])
    data = base64.b64decode("".join(doc["bits"]["data"]))
    walk, best, argmax = 0, 0, [0]
    for b, (sa, sb) in enumerate(doc["seeds"], 1):
        row = (int(sa) * key + int(sb)) % prime % s + 1
        j = (b - 1) * s + (row - 1)
        walk += 1 if data[j // 8] >> (j % 8) & 1 else -1
        if walk > best:
            best, argmax = walk, [b]
        elif walk == best:
            argmax.append(b)
    assert b == m
    return Fraction(sum(argmax), len(argmax)) / Fraction(doc["params"]["scale"])


def test_project_then_query_round_trip(capsys: pytest.CaptureFixture[str], vector: Path,
                                       tmp_path: Path) -> None:
    sketch = tmp_path / "s.json"
    rc, out, err = run(capsys, "sparse-vector", "project", *BASE, str(vector), "--output",
                       str(sketch), "--seed", "11")
    assert rc == 0 and "eps_cert = 1 exactly" in out
    assert "warning: --seed" in err
    doc = json.loads(sketch.read_text())
    assert doc["seeded"] is True and doc["input"] == {"file": str(vector)}
    assert doc["request"] == {"constructor": "from_paper", "epsilon": "1", "alpha": "3",
                              "beta": "30"}
    assert doc["params"]["columns"] == "10" and doc["params"]["scale"] == "1/3"
    keys = ["3", "17", "5", "999", "1", "1000"]
    rc, out, err = run(capsys, "sparse-vector", "query", str(sketch), *keys)
    assert rc == 0 and "seeded: true" in err
    lines = out.splitlines()
    assert lines[0] == "key\testimate (exact)\trounded to 6 decimals"
    for key, line in zip(keys, lines[1:], strict=True):
        k, exact, rounded = line.split("\t")
        assert k == key and Fraction(exact) == _estimate_from_file(doc, int(key))
        assert abs(Fraction(exact) - Fraction(rounded)) <= Fraction(1, 2 * 10**6)
    rc, out, _ = run(capsys, "sparse-vector", "query", str(sketch), "3", "--json")
    rows = json.loads(out)
    assert rows == [{"key": "3", "estimate": str(_estimate_from_file(doc, 3)),
                     "estimate_rounded_6_decimals": decimal_rounded(
                         _estimate_from_file(doc, 3))}]


def test_seed_is_reproducible_and_recorded(capsys: pytest.CaptureFixture[str], vector: Path,
                                           tmp_path: Path) -> None:
    texts = []
    for seed, name in [("5", "a"), ("5", "b"), ("6", "c")]:
        path = tmp_path / f"{name}.json"
        rc, _, _ = run(capsys, "sparse-vector", "project", *BASE, str(vector), "--output",
                       str(path), "--seed", seed)
        assert rc == 0
        texts.append(path.read_text().replace(str(path), ""))
    assert texts[0] == texts[1] and texts[0] != texts[2]


def test_unseeded_sketches_differ_and_say_so(capsys: pytest.CaptureFixture[str],
                                             vector: Path, tmp_path: Path) -> None:
    docs = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.json"
        rc, out, err = run(capsys, "sparse-vector", "project", *BASE, str(vector),
                           "--output", str(path), "--json", "--quiet")
        assert rc == 0 and err == ""
        summary = json.loads(out)  # --json: JSON only on stdout
        doc = json.loads(path.read_text())
        assert summary["sha256"] == doc["integrity"]["sha256"] and summary["seeded"] is False
        assert summary["epsilon_cert"] == "1" and summary["cells"] == "200"
        docs.append(doc)
    assert docs[0]["seeded"] is False
    # 10 seeds of two 1009-bit draws and 200 noisy bits: equal only with negligible chance
    assert docs[0]["seeds"] != docs[1]["seeds"]


def test_variants(capsys: pytest.CaptureFixture[str], vector: Path, tmp_path: Path) -> None:
    out_u = tmp_path / "u.json"
    common = ["--beta", "30", "--rows", "20", "--sparsity", "4", "--universe-size", "1000"]
    rc, _, _ = run(capsys, "sparse-vector", "project", "--epsilon", "1/2", *common,
                   "--variant", "unscaled", str(vector), "--output", str(out_u), "--seed", "1")
    doc = json.loads(out_u.read_text())
    assert rc == 0 and doc["params"]["flip"] == "2/5" and doc["params"]["scale"] == "1"
    assert doc["params"]["columns"] == "30" and doc["guarantee"]["epsilon_cert"] == "1/2"
    out_t = tmp_path / "t.json"
    rc, out, _ = run(capsys, "sparse-vector", "project", "--epsilon", "1", "--alpha", "3",
                     *common, "--variant", "histogram-tight", str(vector), "--output",
                     str(out_t), "--seed", "1")
    doc = json.loads(out_t.read_text())
    bound = Fraction(doc["request"]["bound"])
    assert rc == 0 and Fraction(271, 100) < bound < Fraction(2719, 1000)  # e = 2.71828...
    assert doc["params"]["scale"] == "1/3" and doc["params"]["columns"] == "10"
    assert Fraction(doc["guarantee"]["integer_unit_ratio"]) == bound
    assert f"L = {bound}" in out
    # p_T = c / (L - 1 + 2c) is below the paper's 1/(alpha + 2) = 1/5: less noise
    assert Fraction(doc["params"]["flip"]) == Fraction(1, 3) / (bound - 1 + Fraction(2, 3))
    assert Fraction(doc["params"]["flip"]) < Fraction(1, 5)
    rc, _, _ = run(capsys, "sparse-vector", "query", str(out_t), "3")
    assert rc == 0


def test_grid_values(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = tmp_path / "x.csv"
    data.write_text("3,1/2\n4,2.5\n")
    path = tmp_path / "s.json"
    rc, _, _ = run(capsys, "sparse-vector", "project", *BASE, "--grid", "2", str(data),
                   "--output", str(path), "--seed", "2")
    assert rc == 0 and json.loads(path.read_text())["params"]["grid"] == "2"
    data.write_text("3,1/3\n")
    rc, _, err = run(capsys, "sparse-vector", "project", *BASE, "--grid", "2", str(data),
                     "--output", str(tmp_path / "t.json"))
    assert rc == 2
    one_line_error(err, "line 1", "grid")


@pytest.mark.parametrize(("argv", "words"), [
    (["--epsilon", "0"], ["--epsilon", "positive"]),
    (["--epsilon", "-1"], ["--epsilon"]),
    (["--epsilon", "0.1f"], ["--epsilon"]),
    (["--rows", "0"], ["--rows"]),
    (["--rows", "2.5"], ["--rows"]),
    (["--sparsity", "0"], ["--sparsity"]),
    (["--universe-size", "0"], ["universe size"]),
    (["--universe-size", "2^5000"], ["universe size"]),
    (["--beta", "-3"], ["--beta"]),
    (["--alpha", "0"], ["--alpha"]),
    (["--grid", "1/2"], ["--grid"]),
    (["--variant", "unscaled"], ["--alpha", "unscaled"]),
    (["--variant", "histogram-tight", "--grid", "2"], ["--grid 2", "integer"]),
    (["--variant", "histogram-tight", "--epsilon", "2"], ["alpha/eps = 3/2", "whole"]),
    (["--rows", "1000000", "--beta", "3000000"], ["exceeds", "cells"]),
    (["--rows", "1000000", "--beta", "3000"], ["--max-cells", "1000000000 cells"]),
    (["--max-cells", "10"], ["--max-cells", "200 cells"]),
])
def test_bad_parameters_are_one_line_errors(capsys: pytest.CaptureFixture[str], vector: Path,
                                            tmp_path: Path, argv: list[str],
                                            words: list[str]) -> None:
    options = dict(zip(BASE[::2], BASE[1::2], strict=True))
    extra = dict(zip(argv[::2], argv[1::2], strict=True))
    merged = [t for k, v in {**options, **extra}.items() for t in (k, v)]
    out = tmp_path / "s.json"
    rc, stdout, err = run(capsys, "sparse-vector", "project", *merged, str(vector),
                          "--output", str(out))
    assert rc == 2 and stdout == "" and not out.exists()
    one_line_error(err, "exactdp sparse-vector: error:", *words)


@pytest.mark.parametrize(("content", "words"), [
    (b"3,1\n3,2\n", ["line 2", "already appeared on line 1"]),
    (b"3,1\nbob,2\n", ["line 2", "'bob'"]),
    (b"1,1\n2,1\n3,1\n4,1\n5,1\n", ["line 5", "--sparsity K = 4"]),
    (b"1,1\n\xff\n", ["not UTF-8", "line 2"]),
    (b"1001,1\n", ["line 1", "outside [1, D]"]),
])
def test_bad_input_draws_nothing_and_writes_nothing(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    content: bytes, words: list[str]) -> None:
    drawn = _spy_on_draws(monkeypatch)
    data = tmp_path / "x.csv"
    data.write_bytes(content)
    out = tmp_path / "s.json"
    rc, stdout, err = run(capsys, "sparse-vector", "project", *BASE, str(data), "--output",
                          str(out))
    assert rc == 2 and stdout == "" and not out.exists() and not drawn
    one_line_error(err, *words)


def _spy_on_draws(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    from exactdp import randomness

    drawn: list[int] = []
    for cls in (randomness.SystemSource, randomness.ByteSource):  # the OS, the keystream
        def spy(self: randomness.RandomSource, d: int, real=cls.uniform) -> int:
            drawn.append(d)
            return real(self, d)

        monkeypatch.setattr(cls, "uniform", spy)
    return drawn


def test_output_checked_before_reading_or_drawing(capsys: pytest.CaptureFixture[str],
                                                  vector: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = _spy_on_draws(monkeypatch)
    base = ["sparse-vector", "project", *BASE]
    for target, words in [(tmp_path / "missing" / "s.json", "does not exist"),
                          (tmp_path, "is a directory")]:
        # the input does not exist either: the output is checked first
        rc, out, err = run(capsys, *base, str(tmp_path / "nothing.csv"), "--output",
                           str(target))
        assert rc == 2 and out == "" and not drawn
        one_line_error(err, "--output", words)
    existing = tmp_path / "old.json"
    existing.write_text("precious\n")
    rc, _, err = run(capsys, *base, str(vector), "--output", str(existing))
    assert rc == 2 and existing.read_text() == "precious\n" and not drawn
    one_line_error(err, "--force")
    rc, _, _ = run(capsys, *base, str(vector), "--output", str(existing), "--force")
    assert rc == 0 and existing.read_text() != "precious\n" and drawn
    # the draws of one projection depend only on the public parameters (strict time)
    first = list(drawn)
    drawn.clear()
    (tmp_path / "y.csv").write_text("1,100\n2,0\n")
    rc, _, _ = run(capsys, *base, str(tmp_path / "y.csv"), "--output", str(existing),
                   "--force")
    assert rc == 0 and drawn == first


def test_output_is_required(capsys: pytest.CaptureFixture[str], vector: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["sparse-vector", "project", *BASE, str(vector)])
    assert exc.value.code == 2
    one_line_error(capsys.readouterr().err, "--output")


def test_query_errors(capsys: pytest.CaptureFixture[str], vector: Path,
                      tmp_path: Path) -> None:
    sketch = tmp_path / "s.json"
    assert run(capsys, "sparse-vector", "project", *BASE, str(vector), "--output",
               str(sketch), "--seed", "1")[0] == 0
    for key, words in [("0", ["KEY '0'", "plain decimal"]), ("1001", ["outside", "1000"]),
                       ("+3", ["KEY '+3'"]), ("03", ["KEY '03'"]), ("x", ["KEY 'x'"])]:
        rc, out, err = run(capsys, "sparse-vector", "query", str(sketch), "3", key)
        assert rc == 2 and out == ""
        one_line_error(err, *words)
    text = sketch.read_text()
    tampered = tmp_path / "t.json"
    tampered.write_text(text.replace('"seeded": true', '"seeded": false'))
    rc, out, err = run(capsys, "sparse-vector", "query", str(tampered), "3")
    assert rc == 2 and out == ""
    one_line_error(err, str(tampered), "integrity check")
    rc, out, err = run(capsys, "sparse-vector", "query", str(tmp_path / "none.json"), "3")
    assert rc == 2
    one_line_error(err, "cannot read")
    rc, out, err = run(capsys, "sparse-vector", "query", str(sketch), "3",
                       "--max-input-bytes", "100")
    assert rc == 2
    one_line_error(err, "--max-input-bytes")
    hist = tmp_path / "h.json"
    hist.write_text(json.dumps({"format": "exactdp-histogram-release"}))
    rc, _, err = run(capsys, "sparse-vector", "query", str(hist), "3")
    assert rc == 2
    one_line_error(err, "format", "sparse-vector project")


def test_help_says_what_is_guaranteed_and_what_is_public(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["sparse-vector", "project", "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for words in ["||x - x'||_1 <= 1", "eps_cert = c(1 - 2p)/p", "costs 2*eps",
                  "What beta truncates", "hash functions", "public", "exactdp --help",
                  "Blank lines", "'#'", "header 'key,value'"]:
        assert words in text, words


def test_stdin_and_the_installed_entry_point(tmp_path: Path) -> None:
    sketch = tmp_path / "s.json"
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run([sys.executable, "-m", "exactdp.cli", "sparse-vector", "project",
                           *BASE, "-", "--output", str(sketch), "--seed", "4", "--quiet"],
                          input=b"5,7\n", capture_output=True, env=env, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(sketch.read_text())["input"] == {"file": "-"}
    proc = subprocess.run([sys.executable, "-m", "exactdp.cli", "sparse-vector", "query",
                           str(sketch), "5"], capture_output=True, env=env, timeout=120,
                          check=False)
    assert proc.returncode == 0 and proc.stdout.decode().splitlines()[1].startswith("5\t")
