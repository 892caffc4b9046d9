"""The shipped text speaks of the software only.

README.md, the documentation sources, the tutorials, every docstring and string constant of
``exactdp`` and ``proofs`` (verify's row names among them) and every ``--help`` page are
scanned for words of the development process: issue numbers, sessions, helpers and agents,
the load of the machine, commit hashes as history, and files that do not ship (design notes,
the papers' index, the paper-version markers).  History belongs in commit messages.

Comments are not scanned: they are for whoever edits the code.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: (name, pattern): each names what it forbids.  Case-insensitive unless the pattern says.
RULES: list[tuple[str, re.Pattern[str]]] = [
    ("an issue number", re.compile(r"\bissues?\s*#?\d+", re.IGNORECASE)),
    ("a session", re.compile(r"\bsessions?\b", re.IGNORECASE)),
    ("a helper (as a worker)", re.compile(
        r"\b(escape|realcode|timing|checks|reliability|structure|docs|epsilon|another|other|"
        r"the lead)\s+helpers?\b|\bhelpers?'? (sessions?|worktrees?|branch)", re.IGNORECASE)),
    ("an agent", re.compile(r"\bagents?\b", re.IGNORECASE)),
    ("the machine's load", re.compile(
        r"load average|\bunder (heavy |the |a )?load\b|\bloaded machine|\bmachine was (busy|"
        r"loaded)|\bother (jobs|processes|programs) (were )?running|\bcores? shared\b", re.IGNORECASE)),
    ("a commit hash", re.compile(r"(?<!\.)\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,12}\b")),
    ("a design-notes file", re.compile(r"\b(LILI|CONV|ALP|DESIGN)\.md\b|\bnotes/", re.IGNORECASE)),
    ("the design notes", re.compile(r"\bthe notes\b|\bnotes'|\bnotes\s+(§|section|[PCTE]\d)|"
                                    r"\bdesign notes\b", re.IGNORECASE)),
    ("the design rules", re.compile(r"\bDESIGN\b(?!\.)|\bDESIGN\.md\b")),
    ("the papers' index", re.compile(r"\bpapers' README\b", re.IGNORECASE)),
    ("a paper-version marker", re.compile(r"(?<![\w\]])\[[SF]\](?!\^)")),
]


def offences(text: str) -> list[str]:
    """Every rule ``text`` breaks, as ``"name: 'excerpt'"``."""
    found = []
    for name, pattern in RULES:
        for m in pattern.finditer(text):
            lo, hi = max(0, m.start() - 30), min(len(text), m.end() + 30)
            found.append(f"{name}: {text[lo:hi]!r}".replace("\\n", " "))
    return found


def _python_strings(path: Path) -> Iterator[tuple[int, str]]:
    """Every string constant of a module (docstrings included), with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


def _help_pages() -> Iterator[tuple[str, str]]:
    from exactdp.cli import build_parser

    def walk(parser: argparse.ArgumentParser, name: str) -> Iterator[tuple[str, str]]:
        yield name, parser.format_help()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub_name, sub in action.choices.items():
                    yield from walk(sub, f"{name} {sub_name}")

    yield from walk(build_parser(), "exactdp")


def shipped_texts() -> Iterator[tuple[str, str]]:
    """(where, text) for every piece of shipped text."""
    yield "README.md", (ROOT / "README.md").read_text(encoding="utf-8")
    for folder in ("exactdp", "proofs"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for line, text in _python_strings(path):
                yield f"{path.relative_to(ROOT)}:{line}", text
    for folder in ("exactdp/docs", "exactdp/tutorials"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in {".md", ".rst", ".txt", ".json"} and "_build" not in path.parts:
                yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")
    with redirect_stdout(io.StringIO()):
        yield from ((f"{name} --help", text) for name, text in _help_pages())


def test_shipped_text_speaks_of_the_software_only() -> None:
    hits = [f"{where}: {hit}" for where, text in shipped_texts() for hit in offences(text)]
    assert not hits, f"{len(hits)} development-process words in shipped text:\n" + "\n".join(hits)


@pytest.mark.parametrize("sentence", [
    "Fixed in issue 14 after the review.",
    "Measured while another session was running on the machine.",
    "The checks helper wrote this row.",
    "Another helper edits this file.",
    "An agent ran the mutation tool.",
    "Timings with a load average of 7.",
    "Timings on a loaded machine.",
    "As of commit 0912eaa the row passes.",
    "Speed-up after the rewrite (0912eaa).",
    "See notes LILI.md §5 P6.",
    "Notes P6: the printed spectrum is wrong.",
    "The exact form of the notes' table.",
    "Domains (DESIGN rules 4-5).",
    "The paper number, as in the papers' README.",
    "ALP ([S] Algorithm 1 = [F] Algorithm 4).",
])
def test_a_planted_sentence_is_caught(sentence: str) -> None:
    assert offences(f"Innocent text. {sentence} More innocent text.")


@pytest.mark.parametrize("sentence", [
    "Each call runs in a helper thread while the main thread waits.",
    "The input a lies in [s]^t with ||a||_1 <= s.",
    "and E[F] must equal the collision agreement.",
    "The release notes a spend of 1/2.",
    "The API helper parses the grammar; each helper says which way its bounds err.",
    "exactdp verify --only 'Theorem 4.7'",
    "A 64-bit key 0x1f2e3d4c5b6a7988 in the file.",
    "| 1/2  | 8.762354e-03 | 6.934370e-09 |",
])
def test_software_words_pass(sentence: str) -> None:
    assert offences(sentence) == []
