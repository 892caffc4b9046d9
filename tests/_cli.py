"""Running the ``exactdp`` command in-process, shared by the CLI tests."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator

import pytest

from exactdp.cli import main


def leaves(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
           ) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every command of ``parser`` that has no subcommands, with its path of names."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
        return
    for sub in subs:
        for name, child in sub.choices.items():
            yield from leaves(child, (*path, name))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``exactdp ARGV...`` in-process: (exit status, stdout, stderr); never a traceback."""
    rc = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return rc, out, err


def one_line_error(err: str, *words: str) -> None:
    """``err`` is exactly one non-blank line containing every one of ``words``."""
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    for w in words:
        assert w in lines[0], (w, lines[0])


def histogram_report(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    """``exactdp histogram ARGV...`` must succeed; its JSON report without the fields that
    name the input file (``integrity``, ``input.file``), so that releases of the same data
    read from different sources compare equal."""
    rc, out, err = run(capsys, "histogram", *argv)
    assert rc == 0, err
    rep = json.loads(out)
    rep.pop("integrity")
    rep["input"].pop("file")
    return rep
