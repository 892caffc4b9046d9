"""Pages generated at build time from the code itself.

* ``exactdp-cli``: every ``--help`` page, walked from the argparse parser that the
  ``exactdp`` command runs (so the reference cannot drift from the command);
* ``exactdp-claims``: every executable proof of ``exactdp verify`` (claim, statement, proof
  idea), with the grid, worst value, verdict and witnesses of a stored ``exactdp verify
  --json`` output when one is given (``EXACTDP_DOCS_VERIFY=PATH``);
* ``exactdp-benchmarks``: the stored results the benchmark scripts write
  (``tests/benchmarks/results/``), rendered as they are.

Each directive writes Markdown and lets MyST parse it, so the generated pages look like the
written ones.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[3]
RESULTS = ROOT / "tests" / "benchmarks" / "results"
HELP_COLUMNS = "80"


class _MarkdownDirective(SphinxDirective):
    """A directive whose body is Markdown produced by :meth:`markdown`."""

    has_content = False

    def markdown(self) -> str:
        raise NotImplementedError

    def run(self) -> list[nodes.Node]:
        text = self.markdown()
        container = nodes.container()
        source = f"<{self.name}>"
        lines = StringList(text.splitlines(), source=source)
        self.state.nested_parse(lines, 0, container, match_titles=True)
        return container.children


def _fence(text: str, info: str = "text") -> str:
    ticks = "````" if "```" in text else "```"
    return f"{ticks}{info}\n{text.rstrip()}\n{ticks}\n"


# ---------------------------------------------------------------------------- the CLI


def help_pages() -> Iterator[tuple[str, str]]:
    """``(command, help text)`` for ``exactdp`` and every sub-command, depth first."""
    from exactdp.cli import build_parser

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_COLUMNS
    try:
        def walk(parser: argparse.ArgumentParser, name: str) -> Iterator[tuple[str, str]]:
            yield name, parser.format_help()
            for action in parser._actions:
                if isinstance(action, argparse._SubParsersAction):
                    for sub_name, sub in action.choices.items():
                        yield from walk(sub, f"{name} {sub_name}")

        yield from walk(build_parser(), "exactdp")
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old


class CliDirective(_MarkdownDirective):
    def markdown(self) -> str:
        out = []
        for name, text in help_pages():
            level = "##" if name.count(" ") <= 1 else "###"
            out.append(f"{level} `{name}`\n\n{_fence(text)}")
        return "\n".join(out)


# ---------------------------------------------------------------------------- the claims


def proof_modules() -> list[ModuleType]:
    """The modules ``exactdp verify`` runs, in its order."""
    for name in ("exactdp.proofs", "proofs"):
        try:
            package = importlib.import_module(name)
        except ImportError:
            continue
        return list(package.discover())
    raise ImportError("no proofs package (exactdp.proofs or proofs) to document")


def is_slip(module: ModuleType) -> bool:
    """A row that shows a printed claim of a paper failing, with its exact witness: the
    module says so in ``SLIP`` (what the paper prints, in one sentence)."""
    return bool(getattr(module, "SLIP", ""))


def not_exercisable(module: ModuleType) -> dict[str, str]:
    """The parts of a module's claim that no finite computation can check, each with the
    reason in one sentence (``NOT_EXERCISABLE``: a mapping part -> reason)."""
    return dict(getattr(module, "NOT_EXERCISABLE", None) or {})


def stored_verify() -> dict[str, dict[str, Any]]:
    """Rows of a stored ``exactdp verify --json`` output, by claim (empty when none)."""
    path = os.environ.get("EXACTDP_DOCS_VERIFY")
    if not path or not Path(path).is_file():
        return {}
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if isinstance(data, dict):
        data = data.get("claims", data.get("rows"))
    rows = data if isinstance(data, list) else []
    return {row["claim"]: row for row in rows if isinstance(row, dict) and "claim" in row}


def _claim_section(module: ModuleType, rows: dict[str, dict[str, Any]]) -> str:
    claim = str(getattr(module, "CLAIM", module.__name__))
    short = module.__name__.rsplit(".", 1)[-1]
    parts = [f"### {claim}\n",
             (f"Module `{module.__name__}`; run it alone with "
              f"`exactdp verify --only {short}`.\n")]
    slip = getattr(module, "SLIP", "")
    if slip:
        parts.append(f"**What the paper prints.** {slip}\n")
    statement = getattr(module, "STATEMENT", "")
    if statement:
        parts.append("**Statement.**\n\n" + _fence(textwrap.dedent(statement)))
    idea = getattr(module, "PROOF_IDEA", "")
    if idea:
        parts.append("**How it is checked.**\n\n" + _fence(textwrap.dedent(idea)))
    missing = not_exercisable(module)
    if missing:
        parts.append("**Not exercisable.**\n\n" + "\n".join(f"- {part}: {why}"
                                                       for part, why in missing.items()) + "\n")
    row = rows.get(claim)
    if row:
        parts.append(f"**Stored run.** Grid: {row.get('grid', '?')}; worst "
                     f"{row.get('worst', '?')} against {row.get('bound', '?')}: "
                     f"**{row.get('verdict', '?')}**.\n")
        if is_slip(module):
            for cert in row.get("certificates", []):
                if cert.get("witness"):
                    witness = json.dumps(cert["witness"], indent=1, sort_keys=True)
                    parts.append(f"Witness of *{cert.get('claim', '')}*:\n\n"
                                 + _fence(witness[:2000], "json"))
    return "\n".join(parts)


class ClaimsSummaryDirective(_MarkdownDirective):
    """How many claims and slips, and where the verdicts come from (no headings, so that it
    can stand before the generated sections)."""

    def markdown(self) -> str:
        modules = proof_modules()
        slips = [m for m in modules if is_slip(m)]
        out = [(f"{len(modules)} claims; {len(slips)} of them show a printed claim of a "
                "paper failing:\n")]
        out.extend(f"- {getattr(m, 'CLAIM', m.__name__)}: {m.SLIP}" for m in slips)
        missing = [(m, part, why) for m in modules for part, why in not_exercisable(m).items()]
        if missing:
            out.append("\nNot exercisable (listed under their rows, each with its reason):\n")
            out.extend(f"- {part} ({getattr(m, 'CLAIM', m.__name__)}): {why}"
                       for m, part, why in missing)
        if not stored_verify():
            out.append("\nThe verdicts, grids and witnesses are not part of this build: "
                       "`exactdp verify --quick` (or `--full`) computes them, and "
                       "`exactdp verify --only TEXT --json` prints one claim's certificates "
                       "with every witness.\n")
        return "\n".join(out)


class ClaimsDirective(_MarkdownDirective):
    def markdown(self) -> str:
        modules = proof_modules()
        rows = stored_verify()
        slips = [m for m in modules if is_slip(m)]
        out = ["## Slips of the papers\n"]
        out.extend(_claim_section(m, rows) for m in slips)
        out.append("## Claims\n")
        out.extend(_claim_section(m, rows) for m in modules if m not in slips)
        return "\n".join(out)


# ------------------------------------------------------- references to unpublished names


def _lookup(dotted: str) -> bool:
    """Whether ``dotted`` names an importable module or an attribute reachable from one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except Exception:  # noqa: BLE001, S112 - not a module: try a shorter prefix
            continue
        for attr in parts[cut:]:
            if hasattr(obj, attr):
                obj = getattr(obj, attr)
            elif attr in getattr(obj, "__annotations__", {}):  # a field without a default
                obj = None
            else:
                return False
        return True
    return False


def exists(target: str, module: str | None, klass: str | None) -> bool:
    """Whether a Python cross-reference names a real object.

    Tried as written, then relative to the current module and class (as Sphinx does), as a
    builtin, and last as a name defined in one of exactdp's own modules (a docstring's
    short name for something its module imports)."""
    import sys

    target = target.lstrip("~.").removesuffix("()")
    candidates = [target, f"builtins.{target}"]
    if module:
        candidates.append(f"{module}.{target}")
        if klass:
            candidates.append(f"{module}.{klass}.{target}")
    if any(_lookup(c) for c in candidates):
        return True
    head = target.split(".")[0]
    return any(name.startswith(("exactdp", "proofs")) and hasattr(mod, head)
               and _lookup(f"{name}.{target}")
               for name, mod in list(sys.modules.items()) if mod is not None)


def resolve_unpublished(app: Sphinx, env: Any, node: Any, contnode: nodes.Node) -> Any:
    """A reference to a real object outside the published API (an internal module, the
    standard library) is shown as code, without a link; a reference to nothing that exists
    stays unresolved, so the ``-n`` build fails on it."""
    if node.get("refdomain") != "py":
        return None
    if exists(node["reftarget"], node.get("py:module"), node.get("py:class")):
        return contnode
    return None


# ---------------------------------------------------------------------------- benchmarks


def result_files() -> list[Path]:
    """The stored Markdown results, in a stable order."""
    if not RESULTS.is_dir():
        return []
    return sorted(RESULTS.rglob("*.md"))


class BenchmarksDirective(_MarkdownDirective):
    def markdown(self) -> str:
        files = result_files()
        if not files:
            return ("No stored results in this copy of exactdp (they live in the source "
                    "tree, `tests/benchmarks/results/`).\n")
        out = []
        for path in files:
            rel = path.relative_to(RESULTS)
            body = path.read_text(encoding="utf-8")
            # The stored files' own headings become one level lower than the page's.
            lines = []
            for line in body.splitlines():
                if line.startswith("#"):
                    line = "###" + line.lstrip("#").rstrip()
                lines.append(line)
            out.append(f"## `{rel}`\n")
            picture = path.with_suffix(".png")
            if picture.exists():
                out.append(f"![{rel}](/{os.path.relpath(picture, self.env.srcdir)})\n")
            out.append("\n".join(lines) + "\n")
        return "\n".join(out)


# ---------------------------------------------------------------------------- tutorial pictures

TUTORIAL_PICTURES = Path(__file__).resolve().parents[1] / "tutorials" / "pictures"
_INCLUDE = re.compile(r"^```\{include\} \.\./\.\./tutorials/(?P<file>[0-9]{2}-[a-z0-9-]+\.md)\n```",
                      re.MULTILINE)
_SAVED = re.compile(r'OUTPUT_DIR / "(?P<name>[A-Za-z0-9_.-]+\.png)"')


def with_pictures(text: str) -> str:
    """A tutorial's Markdown with each picture a code block saves shown after the block (and
    after its shown output): ``![name](pictures/name.png)``, from the pictures stored beside
    the tutorial pages (``exactdp tutorial NAME --run --output DIR`` draws them)."""
    lines = text.splitlines()
    out: list[str] = []
    pending: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not line.startswith("```"):
            continue
        info = line[3:].strip()
        body: list[str] = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            out.append(lines[i])
            i += 1
        if i < len(lines):
            out.append(lines[i])
            i += 1
        if info.startswith("python"):
            pending = [m.group("name") for m in _SAVED.finditer("\n".join(body))]
            nxt = next((j for j in range(i, len(lines)) if lines[j].strip()), None)
            if nxt is not None and lines[nxt].startswith("```output"):
                continue  # the pictures go after the shown output
        for name in pending:
            out.extend(["", f"![{name}](pictures/{name})", ""])
        pending = []
    return "\n".join(out) + "\n"


def tutorial_source(app: Sphinx, docname: str, source: list[str]) -> None:
    """A tutorial page (a one-line include of ``exactdp/tutorials/NN-name.md``) gets the
    tutorial's text with its pictures shown (:func:`with_pictures`)."""
    if not docname.startswith("tutorials/"):
        return
    found = _INCLUDE.search(source[0])
    if found is None:
        return
    tutorial = Path(__file__).resolve().parents[2] / "tutorials" / found.group("file")
    source[0] = with_pictures(tutorial.read_text(encoding="utf-8"))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("exactdp-cli", CliDirective)
    app.add_directive("exactdp-claims-summary", ClaimsSummaryDirective)
    app.add_directive("exactdp-claims", ClaimsDirective)
    app.add_directive("exactdp-benchmarks", BenchmarksDirective)
    app.connect("missing-reference", resolve_unpublished)
    app.connect("source-read", tutorial_source)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
