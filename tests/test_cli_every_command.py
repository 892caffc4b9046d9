"""Conventions checked on every command the parser knows, so that a new command cannot miss
them: each has ``--max-seconds`` (its work is estimated or stopped by a deadline), and with
``--json --output PATH`` the JSON goes to PATH, atomically, and the same JSON, only JSON, is
printed on stdout (``--json`` is the format of standard output, ``--output`` a copy on
disk)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from _cli import leaves, run

from exactdp.cli import build_parser


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {o for a in parser._actions for o in a.option_strings}


def test_every_command_has_max_seconds() -> None:
    commands = list(leaves(build_parser()))
    assert len(commands) >= 20, [p for p, _ in commands]
    missing = [" ".join(p) for p, parser in commands if "--max-seconds" not in _options(parser)]
    assert missing == []


def _cases(tmp: Path) -> dict[tuple[str, ...], list[str]]:
    """Cheap arguments for every command that has both --json and --output and writes the
    JSON itself (plot writes a picture to --output; audit runs other libraries)."""
    csv = tmp / "v.csv"
    csv.write_text("1,2,3,4\n0,1,1,1\n")
    kv = tmp / "kv.csv"
    kv.write_text("1,2\n3,1\n")
    release = tmp / "geo.json"
    return {
        ("distribution",): ["distribution", "geosample", "--n", "4", "--epsilon", "1/2",
                            "--count", "1"],
        ("sample",): ["sample", "geosample", "--n", "4", "--epsilon", "1/2", "--count", "1",
                      "--seed", "1", "--draws", "3"],
        ("check", "geosample"): ["check", "geosample", "--n", "4", "--epsilon", "1/2"],
        ("check", "fastsample"): ["check", "fastsample", "--n", "4", "--epsilon", "1/2",
                                  "--gamma", "1/10"],
        ("project", "signs"): ["project", "signs", str(csv), "--k", "2", "--epsilon", "1",
                               "--beta", "1", "--bound", "4", "--seed", "1"],
        ("project", "values"): ["project", "values", str(csv), "--k", "2", "--epsilon", "1",
                                "--beta", "1", "--bound", "4", "--seed", "1"],
        ("sparse-vector", "project"): ["sparse-vector", "project", str(kv), "--epsilon", "1",
                                       "--beta", "3", "--rows", "1", "--sparsity", "2",
                                       "--universe-size", "10", "--seed", "1"],
        ("account",): ["account", str(release)],
        ("verify",): ["verify", "--quick", "--only", "Lemma A.1"],
    }


def test_json_with_output_writes_the_file_and_prints_the_same_json(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, _, err = run(capsys, "sample", "geosample", "--n", "4", "--epsilon", "1/2", "--count",
                     "1", "--seed", "1", "--json", "--output", str(tmp_path / "geo.json"))
    assert rc == 0, err
    cases = _cases(tmp_path)
    walked = {p for p, parser in leaves(build_parser())
              if {"--json", "--output"} <= _options(parser)}
    # every such command is covered here, or named with its reason
    assert walked - set(cases) <= {("audit",), ("plot", "pmf"), ("plot", "loss"),
                                   ("plot", "accuracy"), ("convolve",)}, walked - set(cases)
    for i, (path, argv) in enumerate(sorted(cases.items())):
        target = tmp_path / f"out{i}.json"
        rc, out, err = run(capsys, *argv, "--json", "--output", str(target))
        assert rc == 0, (path, err)
        written = target.read_text(encoding="utf-8")
        if path == ("sparse-vector", "project"):
            # --output is the sketch itself (up to 10^8 cells), not a copy of stdout: --json
            # prints a summary naming it
            assert json.loads(out)["output"] == str(target)
            json.loads(written)
        else:
            assert out == written, path
            json.loads(out)  # JSON only
        rc, out, err = run(capsys, *argv, "--json", "--output", str(target))
        assert rc == 2 and out == "", path  # never over an existing file without --force
        assert target.read_text(encoding="utf-8") == written
