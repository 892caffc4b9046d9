"""Executable Markdown: parse a tutorial, run its code blocks, check the output it shows.

The format (``exactdp/tutorials/README.md`` says it for authors):

* every fenced block opened by a line beginning ```` ```python ```` is code; all code blocks of
  a tutorial run in order, in one namespace;
* a fenced ```` ```output ```` block right after a code block (only blank lines between)
  is what that code block prints, exactly (trailing spaces of each line and trailing blank
  lines aside); a code block *without* one must print nothing, so that no printed number
  goes unchecked;
* ```` ```python requires=diffprivlib,numpy ```` -- the block (and the output shown after it)
  is skipped when one of those modules is missing; ``<!-- requires: matplotlib -->`` on a
  line of its own makes the whole tutorial need the modules;
* ``<!-- summary: ... -->`` is the one-line summary ``exactdp tutorial`` lists;
* the namespace starts with ``OUTPUT_DIR``, a :class:`pathlib.Path` to write pictures to.

A shown output that differs from what the code prints raises :class:`OutputMismatch` (with a
diff); a block that raises is reported as :class:`BlockFailed` with the file and line.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib.util
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from exactdp.params import ParameterError

__all__ = [
    "HERE",
    "Block",
    "BlockFailed",
    "OutputMismatch",
    "RunResult",
    "Tutorial",
    "TutorialFailure",
    "find",
    "missing_modules",
    "parse",
    "run",
    "tutorials",
]

#: The directory holding the tutorials (``NN-name.md``; the number orders them).
HERE = Path(__file__).resolve().parent

_FENCE = re.compile(r"^```(\S*)(.*)$")
_COMMENT = re.compile(r"^<!--\s*(summary|requires):\s*(.*?)\s*-->\s*$")
_FILE = re.compile(r"^\d+-([a-z0-9-]+)\.md$")


class TutorialFailure(Exception):
    """A tutorial did not run as written (not a user error: the tutorial or exactdp is wrong)."""


class OutputMismatch(TutorialFailure):
    """A code block printed something other than the output shown after it."""


class BlockFailed(TutorialFailure):
    """A code block raised."""


@dataclass(frozen=True)
class Block:
    """One code block: its source, where it starts, and what it must print."""

    code: str
    line: int
    expected: str = ""
    expected_line: int | None = None
    requires: tuple[str, ...] = ()


@dataclass(frozen=True)
class Tutorial:
    name: str
    path: Path
    title: str
    summary: str
    requires: tuple[str, ...]
    blocks: tuple[Block, ...]


@dataclass
class RunResult:
    name: str
    ran: int = 0
    skipped: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    pictures: list[Path] = field(default_factory=list)


def _modules(text: str) -> tuple[str, ...]:
    return tuple(m for m in (s.strip() for s in text.split(",")) if m)


def parse(text: str, name: str, path: Path) -> Tutorial:
    """The blocks, title, summary and requirements of one tutorial's Markdown ``text``."""
    lines = text.splitlines()
    title, summary = "", ""
    requires: tuple[str, ...] = ()
    blocks: list[Block] = []
    i = 0
    last_code: int | None = None  # index in blocks of a code block still awaiting its output
    while i < len(lines):
        line = lines[i]
        comment = _COMMENT.match(line)
        if comment:
            if comment.group(1) == "summary":
                summary = comment.group(2)
            else:
                requires = _modules(comment.group(2))
        elif line.startswith("# ") and not title:
            title = line[2:].strip()
        fence = _FENCE.match(line)
        if not fence:
            if line.strip():
                last_code = None
            i += 1
            continue
        lang, rest = fence.group(1), fence.group(2).strip()
        start = i + 1
        end = next((j for j in range(start, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise ParameterError(f"{path}, line {start}: the ``` fence is never closed")
        body = "\n".join(lines[start:end]) + ("\n" if end > start else "")
        if lang == "python":
            options = dict(opt.split("=", 1) for opt in rest.split() if "=" in opt)
            blocks.append(Block(body, start + 1, requires=_modules(options.get("requires", ""))))
            last_code = len(blocks) - 1
        elif lang == "output":
            if last_code is None:
                raise ParameterError(f"{path}, line {start}: an ```output block must follow "
                                     f"a ```python block (only blank lines between)")
            prev = blocks[last_code]
            blocks[last_code] = Block(prev.code, prev.line, body, start + 1, prev.requires)
            last_code = None
        else:
            last_code = None
        i = end + 1
    if not title or not summary:
        raise ParameterError(f"{path}: a tutorial needs a '# Title' line and a "
                             f"'<!-- summary: ... -->' line")
    return Tutorial(name, path, title, summary, requires, tuple(blocks))


def tutorials() -> list[Tutorial]:
    """Every tutorial shipped in the package, in order."""
    found = []
    for path in sorted(HERE.glob("*.md")):
        m = _FILE.match(path.name)
        if m:
            found.append(parse(path.read_text(encoding="utf-8"), m.group(1), path))
    return found


def find(name: str) -> Tutorial:
    """The tutorial called ``name`` (the file name without its number and ``.md``)."""
    everything = tutorials()
    for t in everything:
        if name in (t.name, t.path.name, t.path.stem):
            return t
    raise ParameterError(f"tutorial {name!r} does not exist; the tutorials are: "
                         + ", ".join(t.name for t in everything))


def missing_modules(modules: tuple[str, ...]) -> list[str]:
    """Those of ``modules`` that are not installed here, or whose import fails."""
    gone = []
    for mod in modules:
        try:
            found = importlib.util.find_spec(mod) is not None
            if found:
                importlib.import_module(mod)  # installed but broken (e.g. a mismatched
        except Exception:  # noqa: BLE001 - dependency) is as good as missing here
            found = False
        if not found:
            gone.append(mod)
    return gone


def _normalise(text: str) -> list[str]:
    out = [line.rstrip() for line in text.splitlines()]
    while out and not out[-1]:
        out.pop()
    return out


def run(tutorial: Tutorial, output_dir: Path) -> RunResult:
    """Run every code block of ``tutorial`` in one namespace and check each shown output.

    Pictures go to ``output_dir`` (created if needed).  Raises :class:`OutputMismatch` or
    :class:`BlockFailed` on the first block that does not behave as written; the caller
    checks :attr:`Tutorial.requires` first (a missing module there is a skip, not a failure).
    """
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    if "matplotlib" in tutorial.requires:
        import matplotlib

        matplotlib.use("Agg")  # pictures go to files; never open a window
    before = set(output_dir.iterdir())
    namespace: dict[str, object] = {"__name__": f"tutorial_{tutorial.name.replace('-', '_')}",
                                    "OUTPUT_DIR": output_dir}
    result = RunResult(tutorial.name)
    for block in tutorial.blocks:
        gone = missing_modules(block.requires)
        if gone:
            result.skipped.append((block.line, tuple(gone)))
            continue
        where = f"{tutorial.path.name}, line {block.line}"
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(block.code, where, "exec"), namespace)  # noqa: S102 - our own files
        except Exception as exc:
            raise BlockFailed(f"{where}: the block raised {type(exc).__name__}: {exc}") from exc
        got, want = _normalise(printed.getvalue()), _normalise(block.expected)
        if got != want:
            shown = (f"the output shown at line {block.expected_line}" if block.expected_line
                     else "no output (none is shown)")
            diff = "\n".join(difflib.unified_diff(want, got, "shown", "printed", lineterm=""))
            raise OutputMismatch(f"{where}: the block printed something other than "
                                 f"{shown}:\n{diff}")
        result.ran += 1
    result.pictures = sorted(set(output_dir.iterdir()) - before)
    return result
