"""Mutation testing of exactdp's privacy-critical modules: does ``exactdp verify`` notice?

Usage (from the repository root, with the project's virtualenv active)::

    python tests/mutation/mutate.py [--modules M ...] [--sample N | --all] [--seed S]
        [--guards-only | --exclude-guards] [--verify-only] [--verify-cli] [--results PATH] [--resume] [--report PATH]
        [--jobs 1] [--list] [--report-only]

What it does, for each mutant of a deterministic sample (``mutation_ops.select``: spread over
the modules and over the operator families, ranked by ``sha256(seed:key)``):

1. writes the mutated module into a private copy of the tree (``git archive`` of the commit,
   default ``HEAD``, plus the built native extension; never the shared working tree) and
2. runs ``exactdp verify --quick``'s checks there (``_verify_driver.py``: the same checks and
   the CLI's own ``run_check``, related proofs first, stopping at the first failing row;
   ``--verify-cli`` runs the real ``exactdp verify --quick --json`` with every row instead)
   with a timeout of 3x the unmutated run; a failing row, a crash or a timeout kills it;
3. if verify did not kill it (and not ``--verify-only``), runs ``python -m pytest -q -x -p
   no:cacheprovider`` over every test file, those most related to the module first, with a
   timeout of 3x the unmutated run.

The unmutated copy must pass verify (and the tests, when they run) first, or nothing is run.
Everything runs under ``nice -n 10``, one mutant at a time by default (``--jobs N`` runs N
private copies in parallel; the machine is shared, so keep 1).  Progress goes to stderr; each
finished mutant is appended to the results file (JSON lines), and ``--resume`` skips the
mutants already there for the same module text (and runs only the test phase for those that
so far had only the verify phase).

Report (``--report PATH``, Markdown; a summary on stdout): per module, mutants killed by
verify (as a FAIL row, by a check that raised, by a crash of verify itself, or by timeout),
by the tests only, surviving both, and equivalent; the verify score ``verify kills /
non-equivalent`` and the combined score ``(verify or tests) kills / non-equivalent``, over
all mutants and without the input-validation ``guard`` mutants; and every surviving mutant
with its diff.  Equivalent mutants are listed, each with the argument that it changes no
behaviour, in ``tests/mutation/equivalent.toml``; one listed there that something kills is
reported as an error (the argument was wrong).

Mutant ids are ``file:line:col:operator``; see ``mutation_ops`` for the operators and what is
never mutated.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mutation_ops import (
    Mutant,
    apply,
    diff,
    family,
    find_mutants,
    is_valid,
    select,
)
from mutation_runner import (
    Outcome,
    Runner,
    Tree,
    cli_argv,
    driver_argv,
    pytest_argv,
)

REPO = Path(__file__).resolve().parents[2]
DEFAULT_MODULES = [
    "exactdp/inverse_cdf.py", "exactdp/mixing.py", "exactdp/randomness.py", "exactdp/checker.py",
    "exactdp/explore.py", "exactdp/certified.py", "exactdp/histograms/basic.py",
    "exactdp/histograms/sparse.py", "exactdp/histograms/orderstats.py",
    "exactdp/histograms/compact.py", "exactdp/dyadic.py",
    # the counting samplers (exactdp/counting.py re-exports them)
    "exactdp/geometric.py", "exactdp/geosample.py", "exactdp/fastsample.py",
]
EQUIVALENT = Path(__file__).resolve().parent / "equivalent.toml"
DEFAULT_RESULTS = Path(tempfile.gettempdir()) / "exactdp-mutation" / "results.jsonl"
VERIFY_KILLS = ("fail-row", "raised", "crashed", "timeout")
TEST_KILLS = ("killed", "crashed", "timeout")


def dotted(file: str) -> str:
    return file.removesuffix(".py").replace("/", ".")


def module_path(name: str) -> str:
    """``exactdp.counting``, ``counting``, ``histograms/sparse.py`` ... -> the file path."""
    if name.endswith(".py"):
        return name if name.startswith("exactdp/") else f"exactdp/{name}"
    name = name.removeprefix("exactdp.")
    return "exactdp/" + name.replace(".", "/") + ".py"


def load_equivalents(path: Path) -> dict[str, dict[str, str]]:
    if not path.exists():
        return {}
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    out = {}
    for entry in data.get("mutant", []):
        if not entry.get("argument", "").strip():
            raise SystemExit(f"{path}: equivalent mutant {entry.get('key')!r} has no argument")
        out[entry["key"]] = entry
    return out


def load_results(path: Path) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rec = json.loads(line)
                out[rec["key"]] = rec
    return out


def classify(rec: dict[str, Any], equivalents: dict[str, Any]) -> str:
    """``verify`` / ``tests`` (killed by), ``survived``, ``pending`` (verify survived and the
    tests have not run), ``equivalent``, or ``wrong-equivalent`` (listed, but killed)."""
    v = rec["verify"]["status"]
    t = (rec.get("tests") or {}).get("status", "not-run")
    killed = "verify" if v in VERIFY_KILLS else "tests" if t in TEST_KILLS else None
    if rec["key"] in equivalents:
        return "wrong-equivalent" if killed else "equivalent"
    if killed:
        return killed
    return "survived" if t == "survived" else "pending"


# -- running --------------------------------------------------------------------------------

def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def make_tree(args: argparse.Namespace, workdir: Path, index: int) -> Tree:
    root = workdir / f"tree{index}"
    if args.source == "worktree":
        return Tree.from_directory(REPO, root)
    return Tree.from_git(REPO, args.commit_hash, root)


def make_runner(tree: Tree, args: argparse.Namespace) -> Runner:
    verify = cli_argv(tree) if args.verify_cli else driver_argv(tree)
    return Runner(tree, verify_argv=verify, tests_argv=pytest_argv(tree), cli=args.verify_cli,
                  verify_timeout=args.verify_timeout or 600.0,
                  tests_timeout=args.tests_timeout or 1800.0)


def check_import(tree: Tree, runner: Runner) -> None:
    code = ("import exactdp; from exactdp import proofs; print(exactdp.__file__); "
            "print(proofs.__file__)")
    out = subprocess.run([sys.executable, "-c", code], cwd=tree.root, env=runner.env,
                         capture_output=True, text=True, check=True).stdout.split()
    for f in out:
        if not Path(f).resolve().is_relative_to(tree.root):
            raise SystemExit(f"the copy is not what gets imported: {f} (copy {tree.root})")


def baseline(runner: Runner, args: argparse.Namespace, tests: bool) -> dict[str, float]:
    """Run the unmutated copy; fail loudly unless it passes; return the times."""
    times = {}
    note(f"baseline: unmutated verify in {runner.tree.root} ...")
    out = runner.run_verify("")
    if out.status != "survived":
        raise SystemExit(f"the unmutated tree fails verify ({out.status}: {out.detail}); "
                         f"fix that first")
    times["verify"] = out.seconds
    note(f"baseline: verify passes in {out.seconds:.1f} s")
    if tests:
        note("baseline: unmutated tests ...")
        out = runner.run_tests("")
        if out.status != "survived":
            raise SystemExit(f"the unmutated tree fails its tests ({out.status}: "
                             f"{out.detail}); fix that first")
        times["tests"] = out.seconds
        note(f"baseline: tests pass in {out.seconds:.1f} s ({out.detail})")
    return times


_lock = threading.Lock()


def note(text: str) -> None:
    with _lock:
        print(text, file=sys.stderr, flush=True)


def run_one(runner: Runner, mutant: Mutant, original: str, prior: dict[str, Any] | None,
            args: argparse.Namespace, module_sha: str) -> dict[str, Any]:
    tree = runner.tree
    module = dotted(mutant.file)
    top = mutant.function.split(".")[0]
    names = [] if top == "<module>" else [top]
    tree.write(mutant.file, apply(original, mutant))
    try:
        if prior is not None:
            verify = Outcome(**prior["verify"])
        else:
            verify = runner.run_verify(module, names)
        tests: Outcome | None = None
        if verify.status not in VERIFY_KILLS and not args.verify_only:
            tests = runner.run_tests(module, names)
    finally:
        tree.restore()
    return {
        "key": mutant.key, "id": mutant.id, "file": mutant.file, "line": mutant.line,
        "col": mutant.col, "operator": mutant.operator, "family": family(mutant.operator),
        "function": mutant.function, "guard": mutant.guard, "original": mutant.original,
        "replacement": mutant.replacement, "diff": diff(original, mutant, context=1),
        "module_sha": module_sha, "commit": args.commit_hash,
        "verify_mode": "cli" if args.verify_cli else "driver",
        "verify": verify.to_json(), "tests": tests.to_json() if tests else None,
        "finished": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }


def run(args: argparse.Namespace) -> int:
    try:
        os.nice(max(0, 10 - os.nice(0)))
    except OSError:
        pass
    args.commit_hash = git("rev-parse", args.commit) if args.source == "head" else (
        git("rev-parse", "HEAD") + "+worktree")
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="exactdp-mutation-"))
    try:
        return _run_in(args, workdir)
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)


def _run_in(args: argparse.Namespace, workdir: Path) -> int:
    trees = [make_tree(args, workdir, i) for i in range(max(1, args.jobs))]
    files = [module_path(m) for m in args.modules]
    sources = {f: trees[0].read(f) for f in files}
    shas = {f: hashlib.sha256(s.encode()).hexdigest()[:16] for f, s in sources.items()}
    by_module = {f: [m for m in find_mutants(sources[f], f, validate=False)
                     if not (args.exclude_guards and m.guard)
                     and not (args.guards_only and not m.guard)
                     and (not args.families or family(m.operator) in args.families)]
                 for f in files}
    chosen = select(by_module, None if args.all else args.sample, args.seed,
                    accept=lambda m: is_valid(sources[m.file], m))
    note(f"{sum(map(len, by_module.values()))} mutants in {len(files)} modules; "
         f"{len(chosen)} selected (seed {args.seed}); commit {args.commit_hash}; "
         f"copy in {workdir}")
    if args.list:
        for m in chosen:
            print(m.id, m.key, "guard" if m.guard else "")
        return 0
    results_path = Path(args.results)
    results_path.parent.mkdir(parents=True, exist_ok=True)
    previous = load_results(results_path) if args.resume else {}
    if not args.resume and results_path.exists():
        results_path.rename(results_path.with_suffix(".jsonl.bak"))
    todo: list[tuple[Mutant, dict[str, Any] | None]] = []
    for m in chosen:
        rec = previous.get(m.key)
        if rec is not None and rec.get("module_sha") == shas[m.file]:
            needs_tests = (not args.verify_only and rec["tests"] is None
                           and rec["verify"]["status"] not in VERIFY_KILLS)
            if not needs_tests:
                continue
            todo.append((m, rec))
        else:
            todo.append((m, None))
    note(f"{len(chosen) - len(todo)} already in {results_path}; {len(todo)} to run")
    runners = [make_runner(t, args) for t in trees]
    for t, r in zip(trees, runners):
        check_import(t, r)
    if todo and args.skip_baseline:
        if not args.verify_timeout or not (args.verify_only or args.tests_timeout):
            raise SystemExit("--skip-baseline needs --verify-timeout (and --tests-timeout "
                             "unless --verify-only)")
        note("baseline: skipped (--skip-baseline)")
    elif todo:
        # The unmutated tests always run first (a given --tests-timeout only replaces the
        # default): a test that already fails would otherwise "kill" every mutant it meets.
        times = baseline(runners[0], args, tests=not args.verify_only)
        for r in runners:
            r.verify_timeout = args.verify_timeout or max(60.0, 3 * times["verify"])
            r.tests_timeout = args.tests_timeout or max(120.0, 3 * times.get("tests", 600))
    done = Counter[str]()
    start = time.perf_counter()
    free = list(runners)

    def job(item: tuple[int, tuple[Mutant, dict[str, Any] | None]]) -> None:
        i, (m, prior) = item
        with _lock:
            runner = free.pop()
        try:
            rec = run_one(runner, m, sources[m.file], prior, args, shas[m.file])
        finally:
            with _lock:
                free.append(runner)
        with _lock:
            with results_path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(rec) + "\n")
            verdict = classify(rec, {})
            done[verdict] += 1
            elapsed = time.perf_counter() - start
        t = rec["tests"]
        note(f"[{i}/{len(todo)}] {m.id}  verify: {rec['verify']['status']} "
             f"({rec['verify']['seconds']:.1f} s)"
             + (f"  tests: {t['status']} ({t['seconds']:.1f} s)" if t else "")
             + f"  | so far {dict(done)}, {elapsed / 60:.1f} min")

    with ThreadPoolExecutor(max_workers=len(runners)) as pool:
        list(pool.map(job, enumerate(todo, 1)))
    return report(args, chosen)


# -- reporting ------------------------------------------------------------------------------

def pct(a: int, b: int) -> str:
    return f"{a}/{b} = {100 * a / b:.1f}%" if b else f"{a}/0"


def scores(recs: Iterable[dict[str, Any]], eq: dict[str, Any]) -> dict[str, Any]:
    recs = list(recs)
    cls = Counter(classify(r, eq) for r in recs)
    non_eq = len(recs) - cls["equivalent"]
    vk = Counter(r["verify"]["status"] for r in recs
                 if classify(r, eq) in ("verify", "wrong-equivalent")
                 and r["verify"]["status"] in VERIFY_KILLS)
    return {"total": len(recs), "non_equivalent": non_eq, "classes": cls, "verify_kinds": vk,
            "verify": cls["verify"] + sum(1 for r in recs if classify(r, eq) ==
                                          "wrong-equivalent" and r["verify"]["status"] in
                                          VERIFY_KILLS),
            "combined": cls["verify"] + cls["tests"] + cls["wrong-equivalent"]}


def report(args: argparse.Namespace, chosen: list[Mutant] | None) -> int:
    eq = load_equivalents(Path(args.equivalent))
    allrecs = load_results(Path(args.results))
    if chosen is not None:
        keys = {m.key for m in chosen}
        recs = [r for r in allrecs.values() if r["key"] in keys]
    else:
        recs = list(allrecs.values())
    recs.sort(key=lambda r: (r["file"], r["line"], r["col"], r["operator"]))
    lines = report_lines(recs, eq, args)
    text = "\n".join(lines) + "\n"
    summary_end = lines.index("## Per module") if "## Per module" in lines else len(lines)
    print("\n".join(lines[:summary_end]))
    if args.report:
        Path(args.report).write_text(text, encoding="utf-8")
        note(f"report written to {args.report}")
    wrong = [r for r in recs if classify(r, eq) == "wrong-equivalent"]
    return 1 if wrong else 0


def report_lines(recs: list[dict[str, Any]], eq: dict[str, Any],
                 args: argparse.Namespace) -> list[str]:
    commits = sorted({r["commit"] for r in recs})
    modes = sorted({r.get("verify_mode", "driver") for r in recs})
    s = scores(recs, eq)
    sg = scores([r for r in recs if not r["guard"]], eq)
    cls = s["classes"]
    out = ["# Mutation score of `exactdp verify --quick`", "",
           f"- commit(s): {', '.join(commits) or '-'}",
           f"- command: `python tests/mutation/mutate.py {' '.join(map(shlex.quote, args.argv))}`",
           (f"- verify run as: {', '.join(modes)} (driver = verify --quick's checks, related "
            f"first, stopping at the first failing row; cli = `exactdp verify --quick --json`)"),
           (f"- mutants: {s['total']} ({cls['equivalent']} equivalent, "
            f"{sum(r['guard'] for r in recs)} input-validation guards)"), "",
           "## Scores", ""]
    for title, sc in (("all mutants", s), ("without input-validation guards", sg)):
        c = sc["classes"]
        pend = c["pending"]
        combined = pct(sc["combined"], sc["non_equivalent"])
        if pend:
            combined += f" (at least; {pend} not yet run through the tests)"
        kinds = ", ".join(f"{k} {sc['verify_kinds'][k]}" for k in VERIFY_KILLS
                          if sc["verify_kinds"][k])
        out += [f"**{title}**: verify kills {pct(sc['verify'], sc['non_equivalent'])} of the "
                f"non-equivalent ({kinds or 'none'}); verify + tests kill {combined}; "
                f"killed by the tests only {c['tests']}, survived both {c['survived']}, "
                f"equivalent {c['equivalent']}"
                + (f", WRONGLY LISTED AS EQUIVALENT {c['wrong-equivalent']}"
                   if c["wrong-equivalent"] else ""), ""]
    out += ["## Per module", "",
            ("| module | mutants | verify: FAIL row | raised | crashed | timeout | tests only "
             "| survived | not yet tested | equivalent | verify score | combined |"),
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for file in sorted({r["file"] for r in recs}):
        mine = [r for r in recs if r["file"] == file]
        sc = scores(mine, eq)
        c, k = sc["classes"], sc["verify_kinds"]
        out.append(f"| {file} | {len(mine)} | {k['fail-row']} | {k['raised']} | {k['crashed']} "
                   f"| {k['timeout']} | {c['tests']} | {c['survived']} | {c['pending']} "
                   f"| {c['equivalent']} | {pct(sc['verify'], sc['non_equivalent'])} "
                   f"| {pct(sc['combined'], sc['non_equivalent'])} |")
    out += ["", "## Per operator family", "", "| family | mutants | verify kills | combined |",
            "|---|---|---|---|"]
    for fam in sorted({r["family"] for r in recs}):
        sc = scores([r for r in recs if r["family"] == fam], eq)
        out.append(f"| {fam} | {sc['total']} | {pct(sc['verify'], sc['non_equivalent'])} "
                   f"| {pct(sc['combined'], sc['non_equivalent'])} |")
    sections = (("Not killed by verify (killed by the tests only)", "tests"),
                ("Not killed by verify, tests not run", "pending"),
                ("Survived verify and the tests", "survived"),
                ("Listed as equivalent but killed (the argument is wrong)", "wrong-equivalent"),
                ("Equivalent (argued in tests/mutation/equivalent.toml)", "equivalent"))
    for title, want in sections:
        chosen = [r for r in recs if classify(r, eq) == want]
        if not chosen:
            continue
        out += ["", f"## {title}: {len(chosen)}", ""]
        for r in chosen:
            extra = " (guard)" if r["guard"] else ""
            out.append(f"### `{r['id']}`{extra} in `{r['function']}`")
            out.append("")
            if want == "tests":
                out.append(f"killed by: {r['tests']['detail']}")
            if want in ("equivalent", "wrong-equivalent"):
                out.append("argument: " + " ".join(eq[r["key"]]["argument"].split()))
            out += ["", "```diff", r["diff"].rstrip("\n"), "```", ""]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Mutation testing of exactdp's privacy-critical "
                                            "modules against `exactdp verify --quick` and the "
                                            "tests (see the module docstring).")
    p.add_argument("--modules", nargs="+", default=DEFAULT_MODULES,
                   help="modules to mutate (paths or dotted names; default: the eleven "
                        "privacy-critical modules)")
    p.add_argument("--sample", type=int, default=70, help="how many mutants (default 70)")
    p.add_argument("--all", action="store_true", help="every mutant (thousands: hours)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--families", nargs="+", help="only these operator families (cmp arith "
                   "const bool stmt loop range return minmax)")
    p.add_argument("--exclude-guards", action="store_true",
                   help="leave out the input-validation guard mutants")
    p.add_argument("--guards-only", action="store_true",
                   help="only the input-validation guard mutants (see mutation_ops)")
    p.add_argument("--verify-only", action="store_true", help="skip the test phase")
    p.add_argument("--verify-cli", action="store_true",
                   help="run the real `exactdp verify --quick --json` (every row) instead of "
                        "the fail-fast driver")
    p.add_argument("--results", default=str(DEFAULT_RESULTS), help="JSON lines results file "
                   f"(default {DEFAULT_RESULTS})")
    p.add_argument("--resume", action="store_true",
                   help="keep the results file and skip the mutants it already has")
    p.add_argument("--report", metavar="PATH", help="write the Markdown report here")
    p.add_argument("--report-only", action="store_true",
                   help="only build the report from the results file")
    p.add_argument("--list", action="store_true", help="list the selected mutants and stop")
    p.add_argument("--equivalent", default=str(EQUIVALENT))
    p.add_argument("--source", choices=("head", "worktree"), default="head",
                   help="copy the committed tree (default) or the working tree as it is")
    p.add_argument("--commit", default="HEAD", help="the commit to copy (default HEAD)")
    p.add_argument("--workdir", help="where to make the copies (default: a new temp dir)")
    p.add_argument("--jobs", type=int, default=1, help="parallel copies (default 1)")
    p.add_argument("--verify-timeout", type=float, help="seconds (default 3x the unmutated)")
    p.add_argument("--tests-timeout", type=float, help="seconds (default 3x the unmutated)")
    p.add_argument("--skip-baseline", action="store_true",
                   help="do not run the unmutated tree first (only to resume a run whose "
                        "unmutated baseline passed on the same commit; give the timeouts)")
    args = p.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else list(argv)
    if args.guards_only and args.exclude_guards:
        p.error("--guards-only and --exclude-guards exclude each other")
    if args.report_only:
        return report(args, None)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
