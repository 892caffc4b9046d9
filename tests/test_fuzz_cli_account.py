"""Fuzzing ``exactdp account`` with the oracle of :mod:`tests.test_fuzz_cli_newer`: exit
statuses of the table only, no traceback, short stderr lines, nothing on stdout and no file
written on status 2, bounded time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.test_fuzz_cli_newer import EPS, FAST, check_run, option

SPENT = {"epsilon": "2*ln(5/4)", "delta": "0"}
GOOD = {"mechanism": "GeoSample", "n": "3", "count": "1", "paper_epsilon": "1/2", "k": "2",
        "spent": SPENT, "values": ["1", "2"]}


def _variants() -> list[bytes]:
    out = [json.dumps(GOOD).encode(), b"", b"{}", b"[]", b"not json", b"\xff\xfe",
           b'{"spent": 1}', b'{"spent": {"epsilon": "1e999999"}}', b"[" * 5000]
    for key, value in [("n", "-1"), ("n", "x"), ("n", "9" * 400), ("paper_epsilon", "0"),
                       ("paper_epsilon", "1/3"), ("values", []), ("values", "x"),
                       ("mechanism", "FastSample"), ("spent", {"epsilon": "ln(0)"}),
                       ("spent", {"epsilon": "1", "delta": "2"}),
                       ("spent", {"epsilon": "3*ln(1+2^-99999999)", "delta": "0"}),
                       ("n", "100000")]:
        doc = dict(GOOD)
        doc[key] = value
        out.append(json.dumps(doc).encode())
    return out


@pytest.fixture
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@st.composite
def account_argv(draw: st.DrawFn, workdir: Path) -> list[str]:
    inputs = workdir.parent / f"{workdir.name}-in"
    inputs.mkdir(exist_ok=True)
    files = []
    for i in range(draw(st.integers(1, 3))):
        f = inputs / f"r{i}.json"
        f.write_bytes(draw(st.sampled_from(_variants()) | st.binary(max_size=30)))
        files.append(str(f))
    argv = ["account", *files]
    argv += draw(st.sampled_from([[], ["--json"], ["--output", str(workdir / "a.json")],
                                  ["--output", ""], ["--max-input-bytes", "0"]]))
    argv += draw(st.one_of(option("--epsilon", EPS), option("--delta", EPS + ["1/10"]),
                           option("--ratio", EPS + ["3/2"])))
    return argv


@FAST
@given(data=st.data())
def test_fuzz_account(data: st.DataObject, capsys: pytest.CaptureFixture[str],
                      workdir: Path) -> None:
    check_run(data.draw(account_argv(workdir)), capsys, workdir)
