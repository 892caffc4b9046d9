"""A strict check of the HTML pages exactdp writes (figures, audit reports): they parse
with :mod:`html.parser` with every element closed in order, every ``id`` unique, and
nothing fetched from the network (no scripts, stylesheets, frames or external URLs)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
#: Namespace names are identifiers, never fetched.
NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}
FETCHING = {"script", "link", "iframe", "object", "embed", "img", "audio", "video"}


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.ids: list[str] = []
        self.problems: list[str] = []
        self.tags: set[str] = set()
        self.text: list[str] = []

    def _attrs(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        if tag in FETCHING:
            self.problems.append(f"<{tag}> fetches or runs something")
        for name, value in attrs:
            value = value or ""
            if name == "id":
                self.ids.append(value)
            if name.startswith("xmlns"):
                if value not in NAMESPACES:
                    self.problems.append(f"unknown namespace {value}")
            elif name in ("href", "xlink:href", "src", "action", "data") and \
                    not value.startswith("#"):
                self.problems.append(f"{tag} {name}={value!r} is not an in-page reference")
            elif any(not ref.startswith("#") for ref in re.findall(r"url\(\s*['\"]?([^)'\"]*)",
                                                                    value)):
                self.problems.append(f"{tag} {name}={value!r} refers outside the page")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attrs(tag, attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attrs(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self.stack and self.stack[-1] == "style" and ("@import" in data or "url(" in data):
            self.problems.append("the style sheet imports or refers to something")


def check_page(page: str) -> str:
    """Assert ``page`` is a self-contained, well-formed HTML5 page; return its text."""
    assert page.startswith("<!DOCTYPE html>")
    checker = _Checker()
    checker.feed(page)
    checker.close()
    assert checker.problems == []
    assert checker.stack == []
    assert len(checker.ids) == len(set(checker.ids)), "duplicate ids"
    assert {"html", "head", "body", "title", "style"} <= checker.tags
    return " ".join(checker.text)

