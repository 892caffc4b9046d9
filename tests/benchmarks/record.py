"""``--record``: a benchmark's output stored as ``results/<script>.md`` for the docs' page.

Every ``bench_*.py`` script ends with ``raise SystemExit(record.run(main, __file__))``.
Without ``--record`` this is ``main()``.  With it, everything the script prints also goes
into ``tests/benchmarks/results/<script>.md``: a heading, the command, when and where it ran
(UTC time, Python, platform, cores, load average at the start and the end), then the output
as it was printed.  The documentation's benchmarks page renders those files as stored; the
measurements live there and nowhere else.
"""

from __future__ import annotations

import datetime
import io
import os
import platform
import sys
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
FLAG = "--record"


class _Tee(io.TextIOBase):
    def __init__(self, *streams: io.TextIOBase) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


def _load() -> str:
    try:
        return ", ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def page(script: str, argv: list[str], output: str, started: str, load_before: str) -> str:
    """The stored Markdown of one recorded run."""
    command = " ".join(["python", f"tests/benchmarks/{script}.py", *argv])
    return (f"# {script}\n\n"
            f"`{command}`, run {started} UTC with Python {platform.python_version()} on "
            f"{platform.platform()} ({os.cpu_count()} cores; load average {load_before} at "
            f"the start, {_load()} at the end).\n\n"
            f"```text\n{output.rstrip()}\n```\n")


def run(main: Callable[..., int | None], file: str, argv: list[str] | None = None) -> int:
    """``main()``, recording its output with ``--record`` (see the module docstring)."""
    args = sys.argv[1:] if argv is None else list(argv)
    if FLAG not in args:
        return main() or 0
    args = [a for a in args if a != FLAG]
    sys.argv[1:] = args
    script = Path(file).stem
    started = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M")
    load_before = _load()
    buffer = io.StringIO()
    with redirect_stdout(_Tee(sys.stdout, buffer)):
        status = main() or 0
    RESULTS.mkdir(exist_ok=True)
    target = RESULTS / f"{script}.md"
    target.write_text(page(script, args, buffer.getvalue(), started, load_before),
                      encoding="utf-8")
    print(f"recorded in {target}", file=sys.stderr)
    return status
