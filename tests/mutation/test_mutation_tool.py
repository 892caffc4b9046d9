"""Tests of the mutation tester itself (``tests/mutation/mutate.py``) on a toy module and a toy
tree, plus the opt-in mutation job (``python -m pytest -m mutation tests/mutation``).

The toy checks: every operator produces a program that parses and differs from the original;
nothing is mutated where the tool promises not to; guards are tagged; keys are stable under an
edit elsewhere in the file; and the runner classifies a mutant killed by verify (FAIL row, a
raising check, a crash, a timeout), one killed by the tests only, and one surviving both.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).resolve().parent


def _load(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


ops = _load("mutation_ops")
runner_mod = _load("mutation_runner")

TOY = textwrap.dedent('''\
    """Module docstring: a < b and c + 1 must not be mutated."""
    from fractions import Fraction

    LIMIT = 1 << 20


    def arith(a: int, b: int) -> int:
        """Docstring 2 < 3."""
        x = a + b - 1
        x += a * b // 2
        y = Fraction(9, 2) / 3 % 5 ** 2
        z = (a << 1) >> 1 & 7 | 2 ^ 1
        return x + int(y) + z


    def logic(a: int, b: int, xs: list[int]) -> bool:
        if a < b <= 3 and not a > b >= 0:
            return a == b or a != b
        if a is None or xs is not None:
            raise ValueError(f"a = {a + 1} must be {b < 2}")
        assert a in xs or b not in xs, "invariant"
        return True


    def loops(n: int, xs: list[int]) -> int:
        total = 0
        for i in range(n):
            total += i
        for j in range(1, n):
            total -= j
        while total > 100:
            total = min(total, 50)
        return max(sum(x for x in xs), total)


    class Box:
        size: int = 3

        def __repr__(self) -> str:
            return f"Box({self.size + 1})"

        def grow(self, k: int = 2, flag: bool = False) -> int:
            return self.size + k if flag else self.size
''')

EXPECTED_OPERATORS = {
    "cmp_lt_le", "cmp_le_lt", "cmp_gt_ge", "cmp_ge_gt", "cmp_eq_ne", "cmp_ne_eq",
    "cmp_is_isnot", "cmp_isnot_is",
    "arith_add_sub", "arith_sub_add", "arith_mul_floordiv", "arith_floordiv_mul",
    "arith_div_mul", "arith_mod_floordiv", "arith_pow_mul", "arith_lshift_rshift",
    "arith_rshift_lshift", "arith_and_or", "arith_or_and", "arith_xor_or",
    "const_inc", "const_dec", "fraction_swap", "bool_flip", "bool_and_or", "bool_or_and",
    "not_drop", "stmt_drop", "loop_skip_first", "loop_skip_last", "range_stop_inc",
    "range_stop_dec", "range_start_inc", "return_negate", "return_inc", "minmax",
}


def test_every_operator_gives_a_valid_different_program() -> None:
    mutants = ops.find_mutants(TOY, "toy.py")
    assert {m.operator for m in mutants} == EXPECTED_OPERATORS
    original = ast.dump(ast.parse(TOY))
    texts = set()
    for m in mutants:
        mutated = ops.apply(TOY, m)
        assert ast.dump(ast.parse(mutated)) != original, m.id
        texts.add(mutated)
        # the edit is where the id says, and the rest of the file is untouched
        line = TOY.splitlines()[m.line - 1]
        assert line[m.col:].startswith(m.original.splitlines()[0]), m.id
        changed = [i for i, (a, b) in enumerate(zip(TOY.splitlines(), mutated.splitlines()))
                   if a != b]
        assert changed and changed[0] == m.line - 1, m.id
    assert len(texts) == len(mutants)
    assert len({m.key for m in mutants}) == len(mutants)
    assert len({m.id for m in mutants}) == len(mutants)


def test_nothing_mutated_where_promised_not() -> None:
    mutants = ops.find_mutants(TOY, "toy.py")
    lines = TOY.splitlines()
    for m in mutants:
        text = lines[m.line - 1]
        assert "docstring" not in text.lower(), m.id       # docstrings
        assert "LIMIT" not in text, m.id                   # module level
        if "raise" in text:                                # error messages: only dropped
            assert m.operator == "stmt_drop" and m.guard and m.original.startswith("raise")
        assert "assert" not in text, m.id                  # invariants
        assert "Box(" not in text, m.id                    # __repr__
        assert "size: int" not in text, m.id               # class attributes
        if text.lstrip().startswith("def "):
            assert m.function == "Box.grow", m.id          # only default values there
    # annotations: `xs: list[int]` has no mutable operator; the default values do
    grow = [m for m in mutants if m.function == "Box.grow"]
    assert {m.operator for m in grow} >= {"const_inc", "bool_flip", "arith_add_sub"}


def test_guards_are_tagged() -> None:
    mutants = ops.find_mutants(TOY, "toy.py")
    guard = {(m.line, m.operator) for m in mutants if m.guard}
    raise_if = next(i for i, t in enumerate(TOY.splitlines(), 1) if "xs is not None" in t)
    assert (raise_if, "cmp_is_isnot") in guard
    assert (raise_if + 1, "stmt_drop") in guard
    assert all(m.line in (raise_if, raise_if + 1) for m in mutants if m.guard)


def test_guards_only_and_exclude_guards_select_complements(
        capsys: pytest.CaptureFixture[str]) -> None:
    mutate = _load("mutate")
    listed = {}
    for flag in ("--guards-only", "--exclude-guards"):
        assert mutate.main(["--modules", "exactdp/mixing.py", "--all", "--list", "--source",
                            "worktree", flag]) == 0
        listed[flag] = capsys.readouterr().out.splitlines()
    assert listed["--guards-only"] and listed["--exclude-guards"]
    assert all(line.endswith(" guard") for line in listed["--guards-only"])
    assert not any(line.endswith(" guard") for line in listed["--exclude-guards"])
    with pytest.raises(SystemExit):
        mutate.main(["--guards-only", "--exclude-guards", "--list"])


def test_keys_survive_edits_elsewhere_and_selection_is_deterministic() -> None:
    before = ops.find_mutants(TOY, "toy.py")
    edited = TOY.replace("LIMIT = 1 << 20\n", "LIMIT = 1 << 20\nOTHER = 2\n\n\n")
    after = ops.find_mutants(edited, "toy.py")
    assert [m.key for m in before] == [m.key for m in after]
    assert [m.line + 3 for m in before] == [m.line for m in after]
    pick = ops.select({"toy.py": before}, 10, seed=1)
    assert [m.key for m in pick] == [m.key for m in ops.select({"toy.py": after}, 10, seed=1)]
    assert len({ops.family(m.operator) for m in pick}) >= 8  # spread over the families
    assert pick != ops.select({"toy.py": before}, 10, seed=2)


# -- the runner on a toy tree -------------------------------------------------------------

TOY_MOD = textwrap.dedent('''\
    def add_one(x):
        return x + 1


    def double(x):
        return x * 2


    def unused(x):
        return x - 3


    def checked(x):
        return x % 7


    def loop(x):
        while x < 3:
            x += 1
        return x
''')

TOY_VERIFY = textwrap.dedent('''\
    import json, sys
    rows = []
    try:
        import toy.mod as m
    except Exception as exc:
        print(json.dumps({"error": repr(exc)}))
        sys.exit(3)
    def row(claim, fn):
        try:
            ok, raised = bool(fn()), False
        except Exception:
            ok, raised = False, True
        print(json.dumps({"claim": claim, "verdict": ok, "raised": raised, "worst": ""}))
        return ok
    ok = row("add_one", lambda: m.add_one(1) == 2)
    ok = row("checked", lambda: [1, 2, 3, 4, 5, 6, 7][m.checked(50)] == 2) and ok
    ok = row("loop", lambda: m.loop(0) == 3) and ok
    sys.exit(0 if ok else 1)
''')

TOY_TEST = textwrap.dedent('''\
    import toy.mod as m


    def test_double():
        assert m.double(3) == 6
''')


@pytest.fixture()
def toy_runner(tmp_path: Path):  # type: ignore[no-untyped-def]
    src = tmp_path / "src"
    (src / "toy").mkdir(parents=True)
    (src / "toy" / "__init__.py").write_text("")
    (src / "toy" / "mod.py").write_text(TOY_MOD)
    (src / "tests").mkdir()
    (src / "tests" / "test_toy.py").write_text(TOY_TEST)
    (src / "toy_verify.py").write_text(TOY_VERIFY)
    tree = runner_mod.Tree.from_directory(src, tmp_path / "copy",
                                          parts=("toy", "tests", "toy_verify.py"))

    def verify(module: str, names: object) -> list[str]:
        return [sys.executable, str(tree.root / "toy_verify.py")]

    tests = runner_mod.pytest_argv(tree)
    run = runner_mod.Runner(tree, verify_argv=verify, tests_argv=tests,
                            verify_timeout=3.0, tests_timeout=60.0)
    mutants = ops.find_mutants(TOY_MOD, "toy/mod.py")
    return src, tree, run, mutants


def _classify(tree, run, mutant):  # type: ignore[no-untyped-def]
    tree.write(mutant.file, ops.apply(TOY_MOD, mutant))
    try:
        verify = run.run_verify("toy.mod", [mutant.function])
        tests = None if verify.status != "survived" else run.run_tests("toy.mod")
    finally:
        tree.restore()
    return verify.status, tests.status if tests else None


def _pick(mutants, function, operator):  # type: ignore[no-untyped-def]
    return next(m for m in mutants if m.function == function and m.operator == operator)


def test_runner_classifies_known_mutants(toy_runner) -> None:  # type: ignore[no-untyped-def]
    src, tree, run, mutants = toy_runner
    # the copy, never the source, is what the subprocesses import
    out = run._run([sys.executable, "-c", "import toy; print(toy.__file__)"], 30)[1]
    assert Path(out.strip()).resolve().is_relative_to(tree.root)
    assert run.run_verify("toy.mod").status == "survived"   # the unmutated toy passes
    assert run.run_tests("toy.mod").status == "survived"
    cases = [
        (_pick(mutants, "add_one", "arith_add_sub"), ("fail-row", None)),
        (_pick(mutants, "checked", "arith_mod_floordiv"), ("raised", None)),  # IndexError
        (_pick(mutants, "loop", "arith_add_sub"), ("timeout", None)),         # x -= 1
        (_pick(mutants, "double", "arith_mul_floordiv"), ("survived", "killed")),
        (_pick(mutants, "unused", "arith_sub_add"), ("survived", "survived")),
    ]
    for mutant, expected in cases:
        assert _classify(tree, run, mutant) == expected, mutant.id
    # a mutant that breaks the import crashes verify
    tree.write("toy/mod.py", TOY_MOD + "\nraise ImportError('broken')\n")
    try:
        assert run.run_verify("toy.mod").status == "crashed"
        assert run.run_tests("toy.mod").status in ("killed", "crashed")
    finally:
        tree.restore()
    # the source tree was never touched
    assert (src / "toy" / "mod.py").read_text() == TOY_MOD
    assert (tree.root / "toy" / "mod.py").read_text() == TOY_MOD


def test_ordered_test_files_puts_related_first(tmp_path: Path) -> None:
    t = tmp_path / "tests"
    t.mkdir()
    (t / "test_a.py").write_text("import os\n")
    (t / "test_b.py").write_text("from exactdp.histograms import sparse\n")
    (t / "test_c.py").write_text("from exactdp.histograms.sparse import KeepHeavy\n")
    (t / "test_sparse_misc.py").write_text("x = 1\n")
    (t / "mutation").mkdir()
    (t / "mutation" / "test_m.py").write_text("KeepHeavy\n")
    order = runner_mod.ordered_test_files(tmp_path, "exactdp.histograms.sparse", ["KeepHeavy"])
    assert order == ["tests/test_c.py", "tests/test_sparse_misc.py", "tests/test_b.py",
                     "tests/test_a.py"]


# -- the opt-in job -------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.mutation
def test_mutation_score_meets_targets(tmp_path: Path) -> None:
    """The kept score (issue 16): ``verify --quick`` kills >= 90% of the non-equivalent
    mutants of a seeded sample, verify + tests >= 98%.  Hours of CPU: ``python -m pytest -m
    mutation tests/mutation`` (sample size from ``MUTATION_SAMPLE``, default 70)."""
    mutate = _load("mutate")
    results = tmp_path / "results.jsonl"
    sample = os.environ.get("MUTATION_SAMPLE", "70")
    mutate.main(["--sample", sample, "--results", str(results),
                 "--report", str(tmp_path / "report.md")])
    recs = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    s = mutate.scores(recs, mutate.load_equivalents(mutate.EQUIVALENT))
    assert s["classes"]["wrong-equivalent"] == 0
    assert s["verify"] >= 0.90 * s["non_equivalent"], (tmp_path / "report.md").read_text()
    assert s["combined"] >= 0.98 * s["non_equivalent"], (tmp_path / "report.md").read_text()
