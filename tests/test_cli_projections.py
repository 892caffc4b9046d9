"""``exactdp project signs | values`` (paper 001): input files, exact parameters, the public
plan seed, the files conventions (path checked before any randomness, atomic, --force, --json),
one-line errors naming file and line."""

from __future__ import annotations

import json
import struct
import warnings
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.certified import compare_exp
from exactdp.projections import OPORPPlan, sample_rademacher
from exactdp.randomness import ByteSource, SeededSource, SystemSource
from tests._cli import one_line_error, run

ROWS = [(1, 2, 3, 4, 0, -1), (-4, 0, 2, 1, 3, 3), (0, 0, 0, 0, 0, 0), (4, 4, -4, 1, 2, 0)]


def _csv(tmp_path: Path, rows=ROWS, name: str = "v.csv", header: str = "a,b,c,d,e,f\n") -> str:
    path = tmp_path / name
    path.write_text("# comment\n" + header + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return str(path)


def _npy(tmp_path: Path, rows, descr: str = "<i2", fortran: bool = False,
         name: str = "v.npy", version: int = 1) -> str:
    """An NPY file written by hand (the format spec), independent of the reader under test."""
    code = {"<i2": "<h", ">i4": ">i", "|i1": "b", "<i8": "<q", "<f8": "<d", "|u1": "B"}[descr]
    n, p = len(rows), len(rows[0])
    flat = ([rows[r][c] for c in range(p) for r in range(n)] if fortran
            else [v for row in rows for v in row])
    head = repr({"descr": descr, "fortran_order": fortran, "shape": (n, p)}).encode()
    size = 4 if version == 2 else 2
    pad = -(10 + size - 2 + len(head) + 1) % 64
    head += b" " * pad + b"\n"
    magic = b"\x93NUMPY" + bytes([version, 0])
    length = struct.pack("<I" if version == 2 else "<H", len(head))
    path = tmp_path / name
    path.write_bytes(magic + length + head + struct.pack(f"{code[0] if code[0] in '<>' else ''}"
                                                         f"{n * p}{code[-1]}", *flat))
    return str(path)


def _body(out: str) -> tuple[dict[str, str], list[list[int]]]:
    lines = out.splitlines()
    assert lines[0].startswith("# ")
    header = dict(item.split("=", 1) for item in lines[0][2:].split(", "))
    return header, [[int(v) for v in line.split(",")] for line in lines[1:]]


def _seeded(seed: object) -> SeededSource:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SeededSource(seed)  # type: ignore[arg-type]


BASE = ["--k", "3", "--epsilon", "1", "--beta", "1", "--bound", "4"]


def test_signs_are_reproducible_from_the_seeds_and_signs(capsys, tmp_path):
    f = _csv(tmp_path)
    rc, out, err = run(capsys, "project", "signs", f, *BASE, "--plan-seed", "7", "--seed", "1")
    assert rc == 0 and "never release" in err
    header, vecs = _body(out)
    assert header["plan_seed"] == "7" and header["method"] == "oporp-smooth"
    assert len(vecs) == len(ROWS) and all(len(v) == 3 and set(v) <= {-1, 1} for v in vecs)
    rc2, out2, _ = run(capsys, "project", "signs", f, *BASE, "--plan-seed", "7", "--seed", "1")
    assert rc2 == 0 and out2 == out


def test_huge_eps_releases_the_true_signs_of_the_documented_plan(capsys, tmp_path):
    # eps = 200: a flip has probability below e^-200, so every non-zero projection's sign is
    # released as is.  The projection is rebuilt as --help documents, and summed here by hand.
    f = _csv(tmp_path)
    rc, out, _ = run(capsys, "project", "signs", f, "--k", "3", "--epsilon", "200",
                     "--beta", "1", "--bound", "4", "--plan-seed", "11", "--seed", "2",
                     "--max-denominator", "1")
    assert rc == 0
    _, vecs = _body(out)
    plan = OPORPPlan.sample(6, 3, _seeded(11))
    nonzero = 0
    for row, got in zip(ROWS, vecs):
        for j in range(3):
            x = sum(plan.w[t] * row[plan.perm[t]] for t in range(2 * j, 2 * j + 2))
            if x:
                nonzero += 1
                assert got[j] == (1 if x > 0 else -1)
    assert nonzero >= 6


def test_rp_signs_use_the_documented_w(capsys, tmp_path):
    f = _csv(tmp_path)
    rc, out, _ = run(capsys, "project", "signs", f, "--method", "rp-rr", "--k", "2",
                     "--epsilon", "400", "--beta", "1", "--bound", "4", "--plan-seed", "5",
                     "--seed", "3", "--max-denominator", "1")
    assert rc == 0
    _, vecs = _body(out)
    w = sample_rademacher(6, 2, _seeded(5))
    for row, got in zip(ROWS, vecs):
        for j in range(2):
            x = sum(w[i][j] * row[i] for i in range(6))
            if x:
                assert got[j] == (1 if x > 0 else -1)


def test_base_is_rounded_down_below_e_eps(capsys, tmp_path):
    f = _csv(tmp_path)
    for method, extra, power in [("oporp-smooth", ["--repetitions", "3"], 3),
                                 ("rp-rr", [], 3), ("oporp-rr", [], 1)]:
        rc, out, _ = run(capsys, "project", "signs", f, *BASE, "--method", method, *extra,
                         "--seed", "1", "--epsilon", "0.7", "--max-denominator", "20")
        assert rc == 0, out
        header, _ = _body(out)
        rho = Fraction(header["rho"])
        base, exponent = header["privacy_ratio"].strip("(").split(")^")
        assert Fraction(base) == rho and exponent == str(power)
        assert rho.denominator <= 20
        assert compare_exp(Fraction(7, 10), rho**power) > 0  # rho^t < e^eps: certified
        # the next fraction up with the same denominator would pass e^eps (rounded DOWN)
        assert compare_exp(Fraction(7, 10), (rho + Fraction(1, rho.denominator))**power) < 0


def test_npy_equals_csv_in_every_layout(capsys, tmp_path):
    f = _csv(tmp_path)
    args = [*BASE, "--plan-seed", "3", "--seed", "9"]
    _, ref, _ = run(capsys, "project", "signs", f, *args)
    for i, (descr, fortran, version) in enumerate([("<i2", False, 1), (">i4", True, 1),
                                                   ("|i1", False, 2), ("<i8", True, 2)]):
        g = _npy(tmp_path, ROWS, descr, fortran, f"v{i}.npy", version)
        rc, out, _ = run(capsys, "project", "signs", g, *args)
        assert rc == 0 and out == ref, descr


def test_npy_of_floats_is_refused_with_how_to_quantise(capsys, tmp_path):
    g = _npy(tmp_path, [(0.5, 1.0)], "<f8")
    rc, out, err = run(capsys, "project", "signs", g, *BASE)
    assert rc == 2 and out == ""
    one_line_error(err, "v.npy", "'<f8'", "floating-point", "quantise", "--beta")


def test_npy_unsigned_bytes(capsys, tmp_path):
    g = _npy(tmp_path, [(1, 2, 3), (4, 0, 4)], "|u1")
    rc, out, _ = run(capsys, "project", "values", g, "--method", "raw", "--epsilon", "300",
                     "--beta", "1", "--bound", "4", "--seed", "1", "--max-denominator", "1")
    assert rc == 0
    assert _body(out)[1] == [[1, 2, 3], [4, 0, 4]]  # noise 0 with probability 1 - O(e^-300)


@pytest.mark.parametrize("text, words", [
    ("1,2,3\n4,0.5,6\n", ["line 2", "field 2", "'0.5'", "not an integer", "quantise"]),
    ("1,2,3\n4,5\n", ["line 2", "2 values", "3"]),
    ("1,2,3\n4,3,9\n", ["vector 2", "value 3", "9", "[-4, 4]"]),
    ("# only a comment\n", ["no vectors"]),
    ("1,2,3\n1e3,2,3\n", ["line 2", "'1e3'"]),
])
def test_bad_csv_is_one_line_naming_the_place(capsys, tmp_path, text, words):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    rc, out, err = run(capsys, "project", "signs", str(path), *BASE)
    assert rc == 2 and out == ""
    one_line_error(err, "bad.csv", *words)


def test_bad_npy_headers(capsys, tmp_path):
    good = Path(_npy(tmp_path, [(1, 2)], "<i2")).read_bytes()
    cases = {
        "trunc.npy": (good[:-1], "needs 4 data bytes"),
        "magic.npy": (b"NUMPY" + good[5:], "not an NPY file"),
        "shape.npy": (good.replace(b"(1, 2)", b"(1,2,1)"), "must be (p,)"),
        "dict.npy": (good.replace(b"'descr'", b"'dtype'"), "exactly the keys"),
    }
    for name, (data, word) in cases.items():
        (tmp_path / name).write_bytes(data)
        rc, _, err = run(capsys, "project", "signs", str(tmp_path / name), *BASE)
        assert rc == 2
        one_line_error(err, name, word)


class _NoDraws:
    """Fails the test if any OS randomness is drawn (patched over SystemSource.uniform)."""

    def __call__(self, *args, **kwargs):
        raise AssertionError("randomness was drawn before the checks")


def test_checks_come_before_any_randomness(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(SystemSource, "uniform", _NoDraws())
    monkeypatch.setattr(ByteSource, "uniform", _NoDraws())  # the keystream's draws
    f = _csv(tmp_path)
    existing = tmp_path / "out.csv"
    existing.write_text("keep me\n")
    bad = tmp_path / "bad.csv"
    bad.write_text("1,2,x\n")
    for argv, words in [
        ([f, *BASE, "--output", str(existing)], ["out.csv", "exists", "--force"]),
        ([str(bad), *BASE, "--output", str(tmp_path / "new.csv")], ["bad.csv", "line 1"]),
        ([f, *BASE, "--repetitions", "2"], ["--repetitions = 2", "divide"]),
        ([f, "--k", "3", "--epsilon", "0", "--beta", "1", "--bound", "4"], ["--epsilon"]),
        ([f, "--k", "3", "--epsilon", "0.1", "--beta", "1", "--bound", "4", "--method",
          "rp-rr", "--max-denominator", "2"], ["smallest budget", "3*ln(3/2)",
                                               "--max-denominator"]),
        ([f, *BASE, "--epsilon", "0.1e0.5"], ["--epsilon"]),
    ]:
        rc, out, err = run(capsys, "project", "signs", *argv)
        assert rc == 2 and out == ""
        one_line_error(err, *words)
    assert existing.read_text() == "keep me\n"
    assert not (tmp_path / "new.csv").exists()


def test_output_force_and_json(capsys, tmp_path):
    f = _csv(tmp_path)
    target = tmp_path / "out.json"
    target.write_text("old\n")
    rc, out, _ = run(capsys, "project", "signs", f, *BASE, "--json", "--output", str(target),
                     "--force", "--plan-seed", "4")
    assert rc == 0
    doc = json.loads(target.read_text())
    assert json.loads(out) == doc  # --json prints what was written, JSON only
    assert doc["parameters"]["plan_seed"] == "4" and doc["parameters"]["k"] == "3"
    assert len(doc["vectors"]) == len(ROWS)
    assert all(set(v) <= {-1, 1} for v in doc["vectors"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "v.csv"]  # no temp file


def test_plan_seed_is_drawn_and_recorded_when_not_given(capsys, tmp_path):
    f = _csv(tmp_path)
    _, out1, _ = run(capsys, "project", "signs", f, *BASE)
    _, out2, _ = run(capsys, "project", "signs", f, *BASE)
    s1, s2 = _body(out1)[0]["plan_seed"], _body(out2)[0]["plan_seed"]
    assert s1 != s2 and 1 <= int(s1) <= 2**128


def test_values_oporp_huge_eps_equals_the_projection(capsys, tmp_path):
    f = _csv(tmp_path)
    rc, out, _ = run(capsys, "project", "values", f, "--k", "4", "--epsilon", "300",
                     "--beta", "1", "--bound", "4", "--plan-seed", "8", "--seed", "1",
                     "--max-denominator", "1")
    assert rc == 0
    header, vecs = _body(out)
    assert header["p_padded"] == "8"  # 6 padded with zeros to a multiple of k = 4
    plan = OPORPPlan.sample(8, 4, _seeded(8))
    for row, got in zip(ROWS, vecs):
        u = row + (0, 0)
        assert got == [sum(plan.w[t] * u[plan.perm[t]] for t in (2 * j, 2 * j + 1))
                       for j in range(4)]


def test_values_noise_ratio_and_clamp(capsys, tmp_path):
    f = _csv(tmp_path)
    rc, out, _ = run(capsys, "project", "values", f, "--k", "2", "--epsilon", "1/2",
                     "--beta", "2", "--bound", "4", "--seed", "5")
    assert rc == 0
    header, vecs = _body(out)
    r = Fraction(header["noise_ratio"])
    assert compare_exp(Fraction(-1, 2), r**2) < 0  # r^beta > e^-eps: r rounded UP
    lo, hi = (int(v) for v in header["clamp"].strip("[]").split(","))
    top = 4 * 3  # |x_j| <= C * (p/k)
    assert lo < -top and hi > top and r ** (hi - top) * 2**40 <= 1
    assert all(lo <= v <= hi for vec in vecs for v in vec)


def test_values_raw_needs_k_equal_p(capsys, tmp_path):
    f = _csv(tmp_path)
    rc, _, err = run(capsys, "project", "values", f, "--method", "raw", "--k", "2",
                     "--epsilon", "1", "--beta", "1", "--bound", "4")
    assert rc == 2
    one_line_error(err, "--k = 2", "p = 6")


def test_help_explains_the_notation(capsys):
    with pytest.raises(SystemExit) as exc:
        run(capsys, "project", "signs", "--help")
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for words in ["grid", "ONE coordinate", "rounded DOWN", "PLAN SEED", "public", "fair coin",
                  "never release"]:
        assert words in text, words


def test_repeated_runs_release_each_plans_true_signs(capsys, tmp_path):
    # t = 2 runs of one bin each (k = 2): bit r is the sign of run r's whole-vector sum, the
    # plans drawn one after the other from the plan seed (as --help documents).
    f = _csv(tmp_path)
    rc, out, _ = run(capsys, "project", "signs", f, "--k", "2", "--repetitions", "2",
                     "--epsilon", "200", "--beta", "1", "--bound", "4", "--plan-seed", "6",
                     "--seed", "2", "--max-denominator", "1")
    assert rc == 0
    header, vecs = _body(out)
    assert header["repetitions"] == "2" and header["privacy_ratio"].endswith(")^2")
    src = _seeded(6)
    plans = [OPORPPlan.sample(6, 1, src) for _ in range(2)]
    checked = 0
    for row, got in zip(ROWS, vecs):
        for r, plan in enumerate(plans):
            x = sum(plan.w[t] * row[plan.perm[t]] for t in range(6))
            if x:
                checked += 1
                assert got[r] == (1 if x > 0 else -1)
    assert checked >= 4
