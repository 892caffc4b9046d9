"""Help that helps: every ``--help`` page is short, says what is shared once, and lists its
sub-commands whole.

Limits at 80 columns: 60 lines per page, 80 for ``exactdp audit`` (its options are many).
The exit statuses and the notation are in ``exactdp --help`` only; every other page ends
with one line pointing there.  A sub-command's one-line summary is never cut inside a
bracket (it once read "the exact pmf Pr[M(c").
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from exactdp.cli import build_parser

LIMIT, AUDIT_LIMIT = 60, 80
POINTER = "Exit statuses, exact numbers and the notation: exactdp --help."


def parsers() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    def walk(parser: argparse.ArgumentParser,
             name: str) -> Iterator[tuple[str, argparse.ArgumentParser]]:
        yield name, parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub_name, sub in action.choices.items():
                    yield from walk(sub, f"{name} {sub_name}")

    yield from walk(build_parser(), "exactdp")


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")


def test_every_help_page_is_short() -> None:
    long = []
    for name, parser in parsers():
        lines = parser.format_help().count("\n")
        if lines > (AUDIT_LIMIT if name == "exactdp audit" else LIMIT):
            long.append(f"{name} --help: {lines} lines")
    assert not long, long


def test_the_conventions_are_in_the_main_help_once() -> None:
    pages = dict(parsers())
    main = pages.pop("exactdp").format_help()
    for words in ("0    success", "1    a privacy violation", "2    usage or input error",
                  "3    the audited mechanism is broken", "130  interrupted",
                  "[d]_+ = {1, ..., d}", "eps~ = 2 ln(1 + 2^-k)", "'1/10', '0.1' and '1e-1'"):
        assert words in main, words
    for name, parser in pages.items():
        text = parser.format_help()
        assert text.rstrip().endswith(POINTER), name
        assert "130" not in text and "[d]_+ = {1, ..., d}" not in text, name


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def test_sub_command_summaries_are_whole() -> None:
    cut = []
    for name, parser in parsers():
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    if not choice.help or not _balanced(choice.help):
                        cut.append(f"{name} {choice.dest}: {choice.help!r}")
    assert not cut, cut
    assert not _balanced("the exact pmf Pr[M(c")    # the check sees the cut it is for


def test_check_lists_every_check() -> None:
    pages = dict(parsers())
    names = {n.rsplit(" ", 1)[-1] for n in pages if n.startswith("exactdp check ")}
    assert {"geosample", "fastsample", "alp", "convolution", "sign-oporp"} <= names
    text = " ".join(pages["exactdp check"].format_help().split())
    for check in names:
        assert check in text, check


def test_nothing_points_outside_the_package() -> None:
    outside = ("CONV.md", "LILI.md", "ALP.md", "DESIGN", "papers' README", "the notes",
               "README", "/work/")
    hits = [f"{name}: {word}" for name, parser in parsers() for word in outside
            if word in parser.format_help()]
    assert not hits, hits
