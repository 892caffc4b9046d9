"""A PASS that depends on the process's hash seed: confirmed in other processes or refused.

The mechanisms below are fixed functions of their draws within one process (every guard and
the re-run of every path agree), but choose by the iteration order of a set of strings or
bytes, which the hash seed fixes: another process computes another law.  Each must get a
non-PASS verdict (BROKEN, exit status 3) from the command line and fail the exactdp.testing
assertions; the twins that sort first pass.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from exactdp.audit import hash_seed
from exactdp.audit.whitebox import whitebox_audit
from exactdp.testing import OracleAssertionError, assert_pure_dp

ROOT = Path(__file__).resolve().parents[1]

MECHANISMS = textwrap.dedent('''
    import random

    def rr(c):  # the task's route: the first of a set of three strings
        names = {"keep", "flip", "x%d" % c}
        first = next(iter(names))
        return c if (first == "keep") == (random.random() < 0.75) else 1 - c

    def branch(c):  # a branch chosen by the set's order, over many strings
        names = {"n%d" % i for i in range(12)} | {"c%d" % c}
        order = list(names)
        if order.index("n3") < order.index("n7"):
            return c if random.random() < 0.75 else 1 - c
        return 1 - c if random.random() < 0.75 else c

    def bytes_set(c):  # a frozenset of bytes; the output relabelled by its order
        flip = list(frozenset(b"k%d" % i for i in range(10))).index(b"k4") % 2
        return c ^ flip if random.random() < 0.75 else 1 - (c ^ flip)

    def dict_keys(c):  # a dict built from a set keeps the set's order
        table = dict.fromkeys({"a", "b", "c", "d", "e", "f", "g", "h"}, 0)
        flip = int(list(table)[0] in "aceg")
        return c ^ flip if random.random() < 0.75 else 1 - (c ^ flip)

    def twin(c):  # sorted: the same order in every process
        names = sorted({"keep", "flip", "x%d" % c})
        return c if (names[0] == "flip") == (random.random() < 0.75) else 1 - c

    def rr_source(c, source):
        names = {"keep", "flip", "x%d" % c}
        return c if (next(iter(names)) == "keep") == source.bernoulli(3, 4) else 1 - c

    def twin_source(c, source):
        return c if source.bernoulli(3, 4) else 1 - c

    def timed(c):  # the output private, the running time following the set's order
        for name in {"n%d" % i for i in range(6)} | {"x%d" % c}:
            if name == "n3":
                break
        return c if random.random() < 0.75 else 1 - c

    def counting(c, u):  # f(c, u), u in [4]_+, shifted by a position in a set's order
        shift = 2 * list({"s%d" % i for i in range(60)}).index("s7")
        return shift + (c if u <= 3 else 1 - c)

    def counting_twin(c, u):
        return 2 * sorted("s%d" % i for i in range(60)).index("s7") + (c if u <= 3 else 1 - c)
''')

ROUTES = ("rr", "branch", "bytes_set", "dict_keys")


@pytest.fixture(scope="module")
def mechs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("hashseed")
    (where / "hsmechs.py").write_text(MECHANISMS)
    return where


def _cli(where: Path, name: str, seed: str | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PYTHONHASHSEED", None)
    if seed is not None:
        env["PYTHONHASHSEED"] = seed
    return subprocess.run(
        [sys.executable, "-m", "exactdp.cli", "audit", f"hsmechs:{name}", "--kind",
         "whitebox", "--rng", "random", "--patch", "random", "--ratio-bound", "3",
         "--inputs", "0..1", "--quiet"], cwd=where, env=env, capture_output=True,
        text=True, timeout=120, check=False)


@pytest.mark.parametrize("seed", ["11", "12"])
def test_cli_routes_are_broken_under_two_fixed_seeds(mechs: Path, seed: str) -> None:
    for name in ROUTES:
        done = _cli(mechs, name, seed)
        assert done.returncode == 3, (name, done.stdout, done.stderr)
        assert "depends on the process's hash seed" in done.stdout, name
        assert "PASS" not in done.stdout


@pytest.mark.parametrize("seed", ["11", "12"])
def test_cli_counting_kind(mechs: Path, seed: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED=seed)
    runs = {name: subprocess.run(
        [sys.executable, "-m", "exactdp.cli", "audit", f"hsmechs:{name}", "--kind",
         "whitebox", "--randomness-size", "4", "--ratio-bound", "3", "--inputs", "0..1",
         "--outputs", "0..127", "--quiet"], cwd=mechs, env=env, capture_output=True, text=True, timeout=120,
        check=False) for name in ("counting", "counting_twin")}
    assert runs["counting"].returncode == 3, runs["counting"].stdout
    assert "depends on the process's hash seed" in runs["counting"].stdout
    assert runs["counting_twin"].returncode == 0, runs["counting_twin"].stdout
    assert "the same distribution on all 2 inputs" in runs["counting_twin"].stdout


def test_skipped_confirmation_says_so_in_every_form() -> None:
    from exactdp.audit.html import html_report

    def mechanism(c: int, source: object) -> int:
        return c if source.bernoulli(3, 4) else 1 - c  # type: ignore[attr-defined]

    report = whitebox_audit(mechanism, inputs=range(2), claimed_epsilon="ln 3",
                            kind="source", hash_seed_check=False)
    assert report.verdict == "pass" and "in this process only" in report.scope
    assert "verdict: PASS (in this process only" in report.summary()
    assert report.to_json()["pass_scope"] == report.scope
    assert "in this process only" in html_report(report)
    confirmed = whitebox_audit(mechanism, inputs=range(2), claimed_epsilon="ln 3",
                               kind="source")
    assert confirmed.verdict == "pass" and not confirmed.scope
    assert "confirmed in 2 more processes" in confirmed.method


def test_cli_timing_verdict_judged_again_on_the_other_traces(mechs: Path) -> None:
    """Running time that follows a set's order, the output not: the timing verdict is
    judged again on the operation counts of the process with hash seed 1 (a count that
    differs between processes by the same amount on every path, such as a library's
    bookkeeping, changes nothing an observer learns).  Over these seeds the parent sees
    TIMING (exit 1) or the other process does (BROKEN, exit 3), and a pass says the
    timing verdict held there."""
    codes = []
    for seed in ("11", "12", "13", "14", "15", "16"):
        done = _cli(mechs, "timed", seed)
        codes.append(done.returncode)
        if done.returncode == 3:
            assert "the timing verdict depends on the process's hash seed" in done.stdout
        elif done.returncode == 0:
            assert "the timing verdict holds on the traces counted there" in done.stdout
    assert 3 in codes and set(codes) <= {0, 1, 3}, codes


def test_cli_sorted_twin_passes_confirmed(mechs: Path) -> None:
    done = _cli(mechs, "twin", "11")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "confirmed in 2 more processes" in done.stdout


def test_cli_no_hash_seed_check_qualifies_the_pass(mechs: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="11")
    done = subprocess.run(
        [sys.executable, "-m", "exactdp.cli", "audit", "hsmechs:rr", "--kind", "whitebox",
         "--rng", "random", "--patch", "random", "--ratio-bound", "3", "--inputs", "0..1",
         "--quiet", "--hash-seeds", "0"], cwd=mechs, env=env, capture_output=True,
        text=True, timeout=120, check=False)
    assert done.returncode == 0
    assert "verdict: PASS (in this process only" in done.stdout


def _oracle(where: Path, code: str, seed: str | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{where}")
    env.pop("PYTHONHASHSEED", None)
    if seed is not None:
        env["PYTHONHASHSEED"] = seed
    return subprocess.run([sys.executable, "-c", code], cwd=where, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


ORACLE = ("from exactdp.testing import assert_pure_dp, OracleAssertionError\n"
          "import hsmechs\n"
          "try:\n"
          "    assert_pure_dp({target}, [(0, 1)], ratio_bound=3)\n"
          "except OracleAssertionError as exc:\n"
          "    print('FAILED', exc)\n"
          "else:\n"
          "    print('PASSED')\n")


@pytest.mark.parametrize("seed", ["11", "12"])
def test_oracle_fails_under_two_fixed_seeds(mechs: Path, seed: str) -> None:
    for target in ("hsmechs.rr_source", "lambda c, s: hsmechs.rr_source(c, s)"):
        done = _oracle(mechs, ORACLE.format(target=target), seed)
        assert done.stdout.startswith("FAILED"), (target, done.stdout, done.stderr)
        assert "hash seed" in done.stdout


def test_oracle_twin_passes(mechs: Path) -> None:
    done = _oracle(mechs, ORACLE.format(target="hsmechs.twin_source"), "11")
    assert done.stdout.startswith("PASSED"), done.stdout + done.stderr


def test_oracle_unpicklable_mechanism_is_not_passed() -> None:
    import threading

    lock = threading.Lock()

    def mechanism(c: int, source: object) -> int:
        with lock:
            return c if source.bernoulli(3, 4) else 1 - c  # type: ignore[attr-defined]

    with pytest.raises(OracleAssertionError, match="not confirmed in another process"):
        assert_pure_dp(mechanism, [(0, 1)], ratio_bound=3)
    assert_pure_dp(mechanism, [(0, 1)], ratio_bound=3, hash_seed_check=False)


def test_more_seeds_replay_in_more_processes(mechs: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="3")
    done = subprocess.run(
        [sys.executable, "-m", "exactdp.cli", "audit", "hsmechs:twin", "--kind", "whitebox",
         "--rng", "random", "--patch", "random", "--ratio-bound", "3", "--inputs", "0..1",
         "--quiet", "--hash-seeds", "4"], cwd=mechs, env=env, capture_output=True,
        text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "confirmed in 4 more processes (hash seeds 1, 2, 4, 5)" in done.stdout


def test_seeds_skip_this_process_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONHASHSEED", "2")
    assert hash_seed.seeds(3) == ("1", "3", "4")
    monkeypatch.delenv("PYTHONHASHSEED")
    assert hash_seed.seeds(2) == ("1", "2")


def test_planted_bug_confirmation_skipped_passes(mechs: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """With the confirmation planted away, the route passes: the check above is what
    catches it (in this process the law is a fixed, private function of the draws)."""
    sys.path.insert(0, str(mechs))
    try:
        import hsmechs  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(mechs))
    from exactdp.audit import whitebox
    from exactdp.audit.facades import facade_mechanism

    mechanism = facade_mechanism(lambda c, rng: hsmechs.rr(c), "random",
                                 patch_modules=[__import__("random")])
    monkeypatch.setattr(whitebox, "confirm",
                        lambda *args, **kw: hash_seed.Confirmation(line="planted"))
    report = whitebox_audit(mechanism, inputs=range(2), claimed_epsilon="ln 3")
    assert report.verdict == "pass"


@pytest.mark.slow
def test_twenty_processes_never_pass(mechs: Path) -> None:
    for _ in range(20):
        done = _cli(mechs, "rr", None)
        assert done.returncode == 3, done.stdout + done.stderr
        oracle = _oracle(mechs, ORACLE.format(target="hsmechs.rr_source"), None)
        assert oracle.stdout.startswith("FAILED"), oracle.stdout + oracle.stderr
