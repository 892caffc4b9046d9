"""Run mutants in a private copy of the source tree and classify them (used by ``mutate.py``).

The copy (:class:`Tree`) holds ``exactdp/``, ``proofs/``, ``tests/``, ``pyproject.toml`` and
``README.md`` (tests/test_histogram_dask_recipe.py runs the README's recipe)
taken from a git commit (``git archive``; the built native extension, which git does not
track, is copied from the working tree) or from the working tree itself.  Each mutant is
written into the copy, run, and the original file put back; nothing is ever written to the
shared working tree.  Subprocesses run with ``PYTHONPATH=<copy>``, the copy as working
directory and no bytecode caches (a mutant the same size as the original, written in the same
second, could otherwise be shadowed by a stale ``.pyc``), in their own process group (killed
whole on timeout) and under a 3 GiB address-space limit.

Verdicts of the verify phase: ``fail-row`` (a claim's row failed), ``raised`` (the first
failing row is a check that raised), ``crashed`` (verify itself could not run, e.g. the
mutated module does not import), ``timeout``, ``survived``.  Of the test phase: ``killed``,
``crashed`` (pytest error, e.g. collection), ``timeout``, ``survived``.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

__all__ = ["Outcome", "Runner", "Tree", "ordered_test_files"]

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "_verify_driver.py"
RAISED_GRID = "(the check raised before finishing)"
MEMORY_LIMIT = 3 << 30
TREE_PARTS = ("exactdp", "proofs", "tests", "pyproject.toml", "README.md")


@dataclass
class Outcome:
    status: str
    seconds: float
    detail: str = ""

    def to_json(self) -> dict[str, object]:
        return asdict(self)


class Tree:
    """A private copy of the source tree at ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._saved: dict[str, bytes] = {}

    @classmethod
    def from_git(cls, repo: Path, commit: str, root: Path,
                 parts: Sequence[str] = TREE_PARTS) -> Tree:
        """The tree of ``commit`` (plus the working tree's built ``*.so`` files)."""
        root.mkdir(parents=True, exist_ok=True)
        data = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", commit,
                               *parts], check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(root, filter="data")
        tree = cls(root)
        tree._copy_native(repo)
        return tree

    @classmethod
    def from_directory(cls, source: Path, root: Path,
                       parts: Sequence[str] = TREE_PARTS) -> Tree:
        """A copy of ``parts`` of the directory ``source`` as it is now."""
        root.mkdir(parents=True, exist_ok=True)
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", ".pytest_cache",
                                        "*.egg-info")
        for part in parts:
            src = source / part
            if src.is_dir():
                shutil.copytree(src, root / part, ignore=ignore)
            elif src.exists():
                shutil.copy2(src, root / part)
        return cls(root)

    def _copy_native(self, repo: Path) -> None:
        for so in (repo / "exactdp").rglob("*.so"):
            dest = self.root / so.relative_to(repo)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(so, dest)

    def read(self, file: str) -> str:
        return (self.root / file).read_text(encoding="utf-8")

    def write(self, file: str, text: str) -> None:
        path = self.root / file
        if file not in self._saved:
            self._saved[file] = path.read_bytes()
        path.write_text(text, encoding="utf-8")

    def restore(self) -> None:
        for file, data in self._saved.items():
            (self.root / file).write_bytes(data)
        self._saved.clear()

    def clean_caches(self) -> None:
        for name in ("__pycache__", ".hypothesis", ".pytest_cache"):
            for path in self.root.rglob(name):
                shutil.rmtree(path, ignore_errors=True)


def ordered_test_files(root: Path, module: str, names: Sequence[str] = (),
                       tests_dir: str = "tests",
                       exclude: Sequence[str] = ("tests/mutation",)) -> list[str]:
    """The test files of ``root``, those most related to the dotted ``module`` first: files
    that mention one of ``names`` (the mutated function or class), then files whose name
    contains the module's name, then files importing it, then the rest."""
    stem = module.split(".")[-1]
    pattern = re.compile(rf"\b{re.escape(module)}\b|from {re.escape(module.rsplit('.', 1)[0])}"
                         rf" import [^\n]*\b{re.escape(stem)}\b")
    ranked = []
    for path in sorted((root / tests_dir).rglob("test_*.py")):
        rel = path.relative_to(root).as_posix()
        if any(rel.startswith(e + "/") for e in exclude):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        rank = (not any(re.search(rf"\b{re.escape(n)}\b", text) for n in names),
                stem not in path.stem, not pattern.search(text))
        ranked.append((rank, rel))
    return [rel for _, rel in sorted(ranked)]


#: Runs a command under the address-space limit (``preexec_fn`` is unsafe with threads).
_LIMITED = ("import os, resource, sys; "
            f"resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT})); "
            "os.execv(sys.argv[1], sys.argv[1:])")


class Runner:
    """Runs the verify and test phases in ``tree``.

    ``verify_argv(module, names)`` and ``tests_argv(module, names)`` build the commands
    (``module`` is the mutated module's dotted name and ``names`` the mutated function or
    class, used to put related checks and tests first).  The verify
    command speaks either the driver's protocol (JSON lines, exit 0/1/3; ``cli=False``) or
    ``exactdp verify --json``'s (one JSON document, exit 0/1, anything else a crash).
    """

    def __init__(self, tree: Tree, *, verify_argv: Callable[[str, Sequence[str]], list[str]],
                 tests_argv: Callable[[str, Sequence[str]], list[str]], cli: bool = False,
                 verify_timeout: float = 120.0, tests_timeout: float = 300.0) -> None:
        self.tree = tree
        self.verify_argv = verify_argv
        self.tests_argv = tests_argv
        self.cli = cli
        self.verify_timeout = verify_timeout
        self.tests_timeout = tests_timeout
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "EXACTDP_DEBUG", "PYTHONSTARTUP")}
        env.update(PYTHONPATH=str(tree.root), PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
        self.env = env

    def _run(self, argv: list[str], timeout: float) -> tuple[int | None, str, str, float]:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", _LIMITED, *argv], cwd=self.tree.root,
                                env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
            code: int | None = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            code = None
        return code, out, err, time.perf_counter() - start

    def run_verify(self, module: str, names: Sequence[str] = ()) -> Outcome:
        code, out, err, seconds = self._run(self.verify_argv(module, names),
                                            self.verify_timeout)
        if code is None:
            return Outcome("timeout", seconds, f"no result within {self.verify_timeout:.0f} s")
        if self.cli:
            return self._classify_cli(code, out, err, seconds)
        rows = []
        for line in out.splitlines():
            try:
                rows.append(json.loads(line))
            except ValueError:
                continue
        if code == 0:
            return Outcome("survived", seconds, f"{len(rows)} rows pass")
        failing = [r for r in rows if r.get("verdict") is False]
        if code == 1 and failing:
            r = failing[0]
            status = "raised" if r.get("raised") else "fail-row"
            return Outcome(status, seconds, f"{r.get('claim')}: {r.get('worst')}"[:500])
        errors = [r["error"] for r in rows if "error" in r]
        detail = errors[0] if errors else (err.strip().splitlines() or ["?"])[-1]
        return Outcome("crashed", seconds, f"exit {code}: {detail}"[:500])

    @staticmethod
    def _classify_cli(code: int, out: str, err: str, seconds: float) -> Outcome:
        if code == 0:
            return Outcome("survived", seconds, "all rows pass")
        if code == 1:
            try:
                claims = json.loads(out)["claims"]
            except (ValueError, KeyError, TypeError):
                claims = []
            failing = [c for c in claims if c.get("verdict") != "pass"]
            real = [c for c in failing if c.get("grid") != RAISED_GRID]
            if failing:
                c = (real or failing)[0]
                return Outcome("fail-row" if real else "raised", seconds,
                               f"{c.get('claim')}: {c.get('worst')}"[:500])
        detail = (err.strip().splitlines() or ["?"])[-1]
        return Outcome("crashed", seconds, f"exit {code}: {detail}"[:500])

    def run_tests(self, module: str, names: Sequence[str] = ()) -> Outcome:
        code, out, err, seconds = self._run(self.tests_argv(module, names), self.tests_timeout)
        self.tree.clean_caches()  # no Hypothesis example database carried between mutants
        if code is None:
            return Outcome("timeout", seconds, f"no result within {self.tests_timeout:.0f} s")
        if code == 0:
            return Outcome("survived", seconds, (out.strip().splitlines() or [""])[-1])
        failed = [ln for ln in out.splitlines() if ln.startswith(("FAILED ", "ERROR "))]
        if code == 1:
            return Outcome("killed", seconds, (failed or ["?"])[0][:500])
        detail = (failed or err.strip().splitlines() or out.strip().splitlines() or ["?"])[-1]
        return Outcome("crashed", seconds, f"exit {code}: {detail}"[:500])


def driver_argv(tree: Tree, all_rows: bool = False) -> Callable[[str, Sequence[str]], list[str]]:
    """The verify command through ``_verify_driver.py`` (fail fast, related checks first),
    copied beside the tree so that edits to the working tree do not reach a running job."""
    driver = tree.root.parent / f"{tree.root.name}_verify_driver.py"
    shutil.copy2(DRIVER, driver)

    def argv(module: str, names: Sequence[str]) -> list[str]:
        cmd = [sys.executable, str(driver), "--root", str(tree.root), "--module", module,
               "--names", ",".join(names)]
        return cmd + (["--all-rows"] if all_rows else [])
    return argv


def cli_argv(tree: Tree) -> Callable[[str, Sequence[str]], list[str]]:
    """The verify command as ``exactdp verify --quick --json`` run from the copy."""
    code = "import sys; from exactdp.cli import main; sys.exit(main(sys.argv[1:]))"
    return lambda module, names: [sys.executable, "-c", code, "verify", "--quick", "--json"]


def pytest_argv(tree: Tree) -> Callable[[str, Sequence[str]], list[str]]:
    """``python -m pytest -q -x -p no:cacheprovider`` over every test file, related first."""
    def argv(module: str, names: Sequence[str]) -> list[str]:
        return [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                *ordered_test_files(tree.root, module, names)]
    return argv
