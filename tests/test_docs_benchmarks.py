"""Benchmark scripts store what they measured with ``--record``; the docs render those files.

``tests/benchmarks/record.py`` tees a script's output into ``results/<script>.md`` (with the
command, the time, the platform and the load, which belong with the measurement); without
``--record`` it runs the script and writes nothing.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("record", ROOT / "tests" / "benchmarks" / "record.py")
assert spec is not None and spec.loader is not None
record = importlib.util.module_from_spec(spec)
spec.loader.exec_module(record)


def fake_main() -> int:
    print("  n   seconds")
    print(f"  10  {sys.argv[1:]}")
    return 0


def test_record_stores_the_output_and_how_it_was_run(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(record, "RESULTS", tmp_path)
    monkeypatch.setattr(sys, "argv", ["bench_fake.py", "--quick", "--record"])
    assert record.run(fake_main, "tests/benchmarks/bench_fake.py") == 0
    printed = capsys.readouterr().out
    assert "['--quick']" in printed                 # the script no longer sees --record
    page = (tmp_path / "bench_fake.md").read_text(encoding="utf-8")
    assert page.startswith("# bench_fake\n")
    assert "`python tests/benchmarks/bench_fake.py --quick`" in page
    assert "load average" in page and "UTC" in page
    assert "```text\n  n   seconds\n  10  ['--quick']\n```" in page


def test_without_the_flag_nothing_is_written(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(record, "RESULTS", tmp_path)
    monkeypatch.setattr(sys, "argv", ["bench_fake.py", "--quick"])
    assert record.run(fake_main, "tests/benchmarks/bench_fake.py") == 0
    assert list(tmp_path.iterdir()) == []


def test_every_benchmark_script_can_record() -> None:
    scripts = sorted((ROOT / "tests" / "benchmarks").glob("bench_*.py"))
    assert scripts
    for script in scripts:
        assert "record.run(main, __file__)" in script.read_text(encoding="utf-8"), script.name
