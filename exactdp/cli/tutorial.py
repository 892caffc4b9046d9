"""``exactdp tutorial [NAME]``: list, show or run the tutorials shipped in the package."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from exactdp.cli._common import (
    DEFAULT_MAX_SECONDS,
    EPILOG,
    FAILED,
    OK,
    USAGE,
    add_max_seconds,
)

__all__ = ["COMMANDS", "add_tutorial", "cmd_tutorial"]

#: What to install for a module a tutorial needs.
_EXTRA = {"matplotlib": "plot", "diffprivlib": "audit", "opendp": "audit", "marimo": "notebook",
          "hypothesis": "test"}

#: The interactive notebook (a marimo app) beside the Markdown tutorials.
NOTEBOOK = "explore_mechanism.py"


def add_tutorial(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "tutorial",
        help="list, show or run the tutorials (executable Markdown shipped in the package)",
        description="Without NAME: list the tutorials with a one-line summary each. With NAME: "
                    "print the tutorial (Markdown), or its file's path (--path), or run it "
                    "(--run): every code block executes in order and every output the "
                    "tutorial shows is compared with what the code prints; pictures go to "
                    "--output DIR. Exit status 1 if a block fails or prints something else "
                    "than the tutorial shows.",
        epilog=EPILOG)
    p.add_argument("name", nargs="?", metavar="NAME", help="a tutorial's name (see the list)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--path", action="store_true", help="print the path of the tutorial's file")
    what.add_argument("--run", action="store_true",
                      help="execute the tutorial and check every output it shows")
    p.add_argument("--output", metavar="DIR",
                   help="with --run: the directory for the pictures (created if missing; "
                        "default: a new temporary directory)")
    p.add_argument("--force", action="store_true",
                   help="with --run: allow --output to be a directory that is not empty")
    add_max_seconds(p, what=f"with --run: stop a tutorial that runs past S seconds of processor time "
                            f"(default {DEFAULT_MAX_SECONDS})")
    p.set_defaults(func=cmd_tutorial)


def _install_hint(modules: list[str]) -> str:
    extras = sorted({_EXTRA.get(m, "") for m in modules} - {""})
    return (f"pip install 'exactdp[{','.join(extras)}]'" if extras
            else f"pip install {' '.join(modules)}")


def cmd_tutorial(args: argparse.Namespace) -> int:
    from exactdp.params import ParameterError
    from exactdp.tutorials.runner import TutorialFailure, find, missing_modules, run, tutorials

    if args.name is None:
        if args.path or args.run or args.output:
            raise ParameterError("--path, --run and --output need a tutorial NAME")
        everything = tutorials()
        width = max((len(t.name) for t in everything), default=0)
        for t in everything:
            needs = f" (needs {', '.join(t.requires)})" if t.requires else ""
            print(f"{t.name.ljust(width)}  {t.summary}{needs}")
        print(f"{'notebook'.ljust(width)}  an interactive marimo notebook: change eps, n and c, "
              f"watch the exact pmf and privacy loss redraw (needs marimo)")
        print("\nexactdp tutorial NAME shows one; --run executes it and checks its outputs.")
        return OK
    if args.name == "notebook":
        return _notebook(args)
    tutorial = find(args.name)
    if args.output is not None and not args.run:
        raise ParameterError("--output DIR needs --run")
    if args.path:
        print(tutorial.path)
        return OK
    if not args.run:
        sys.stdout.write(tutorial.path.read_text(encoding="utf-8"))
        return OK
    gone = missing_modules(tutorial.requires)
    if gone:
        print(f"exactdp tutorial: error: tutorial {tutorial.name!r} needs {', '.join(gone)}: "
              f"{_install_hint(gone)}", file=sys.stderr)
        return USAGE
    out: Path | None = None
    if args.output is not None:
        out = Path(args.output)
        if out.exists() and not out.is_dir():
            raise ParameterError(f"--output {out} exists and is not a directory")
        if out.is_dir() and any(out.iterdir()) and not args.force:
            raise ParameterError(f"--output {out} is not empty (pass --force to write into it)")
        from exactdp.files import no_space

        existing = next((p for p in (out, *out.parents) if p.exists()), Path("."))
        if no_space(existing):
            raise ParameterError(f"--output {out}: no space left on its device (nothing was "
                                 f"run)")
    # The tutorial writes into a fresh directory (its pictures never meet old files); they
    # are moved to DIR only once every block has run as written.
    with tempfile.TemporaryDirectory(prefix=f"exactdp-{tutorial.name}-") as fresh:
        try:
            result = run(tutorial, Path(fresh))
        except TutorialFailure as exc:
            print(f"exactdp tutorial: FAILED: {exc}", file=sys.stderr)
            return FAILED
        pictures = _deliver(result.pictures, out, tutorial.name)
    print(f"{tutorial.name}: {result.ran} code blocks ran; every output shown matched")
    for line, modules in result.skipped:
        print(f"  skipped the block at line {line}: needs {', '.join(modules)} "
              f"({_install_hint(list(modules))})")
    for picture in pictures:
        print(f"  picture: {picture}")
    return OK


def _deliver(pictures: list[Path], out: Path | None, name: str) -> list[Path]:
    """Move the pictures into ``out`` (default: a new temporary directory, made only now, so
    that an interrupted or failed run leaves none behind); a directory this call made is
    removed again if the move fails or is interrupted."""
    if out is None and not pictures:
        return []
    made = out is None or not out.exists()
    if out is None:
        out = Path(tempfile.mkdtemp(prefix=f"exactdp-{name}-"))
    moved: list[Path] = []
    try:
        out.mkdir(parents=True, exist_ok=True)
        for picture in pictures:
            moved.append(Path(shutil.move(picture, out / picture.name)))
    except BaseException:
        if made:
            shutil.rmtree(out, ignore_errors=True)
        else:
            for p in moved:
                p.unlink(missing_ok=True)
        raise
    return moved


def _notebook(args: argparse.Namespace) -> int:
    """The notebook is a marimo app: print its path (and how to open it), or run it as a
    script (``--run``: every cell executes, its own checks included)."""
    import subprocess

    from exactdp.params import ParameterError
    from exactdp.tutorials.runner import HERE, missing_modules

    path = HERE / NOTEBOOK
    if args.output is not None:
        raise ParameterError("--output applies to the Markdown tutorials, not the notebook")
    if args.path:
        print(path)
        return OK
    gone = missing_modules(("marimo", "matplotlib"))
    if not args.run:
        print(f"{path}\nopen it in a browser with: marimo run {path}"
              + (f"\n(needs {', '.join(gone)}: pip install 'exactdp[notebook]')" if gone else ""))
        return OK
    if gone:
        print(f"exactdp tutorial: error: the notebook needs {', '.join(gone)}: "
              f"pip install 'exactdp[notebook]'", file=sys.stderr)
        return USAGE
    done = subprocess.run([sys.executable, str(path)], check=False)
    if done.returncode != 0:
        print(f"exactdp tutorial: FAILED: the notebook exited with status {done.returncode}",
              file=sys.stderr)
        return FAILED
    print("notebook: every cell ran and its checks passed")
    return OK


COMMANDS = [add_tutorial]
