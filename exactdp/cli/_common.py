"""What every ``exactdp`` command shares: exit statuses, output conventions, progress.

The conventions (the documentation's "Conventions of the command line"):

* exit status :data:`OK` 0 success / every claim passes; :data:`FAILED` 1 a privacy
  violation or failed claim was found; :data:`USAGE` 2 usage or input error (nothing was
  released or written); :data:`BROKEN` 3 the audited mechanism is broken; :data:`INTERRUPTED`
  130 interrupted (Ctrl-C);
* errors are one line on stderr naming the parameter or file, the value and the rule;
* ``--json`` prints JSON only, on stdout; ``--output PATH`` writes the JSON to a file,
  atomically, never over an existing file without ``--force``, and the path is checked
  before any randomness is drawn (:func:`output_path`).
"""

from __future__ import annotations

import argparse
import errno
import fcntl
import json
import os
import re
import stat
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any, TextIO

from exactdp.files import DEFAULT_MAX_BYTES, OutputPath

__all__ = [
    "BROKEN",
    "FAILED",
    "INTERRUPTED",
    "NS",
    "OK",
    "USAGE",
    "add_input_limit",
    "add_json",
    "add_output",
    "draw_ns",
    "duration",
    "emit_json",
    "output_path",
    "per_call_ns",
    "progress",
    "seeded_source",
    "write_json",
]

OK, FAILED, USAGE, BROKEN, INTERRUPTED = 0, 1, 2, 3, 130

#: The exit statuses, numbers and notation, once, at the end of ``exactdp --help`` (kept as
#: written: the main parser does not re-wrap its epilog).
CONVENTIONS = """\
exit status:
  0    success (every claim passes; the release was written)
  1    a privacy violation or a failed claim was found, or a drawn release
       could not be written
  2    usage or input error: nothing was released or written
  3    the audited mechanism is broken
  4    an internal error (a bug in exactdp; EXACTDP_DEBUG=1 shows the traceback)
  130  interrupted (Ctrl-C)

numbers are exact: '1/10', '0.1' and '1e-1' all mean exactly 1/10; a float is
never rounded toward less privacy.

notation (Balcer & Vadhan's):
  [n] = {0, ..., n}     the possible counts c and outputs z
  [d]_+ = {1, ..., d}   the values of the one uniform draw u of a mechanism M(c, u)
  eps      the papers' privacy parameter, 1/m for a whole m; --epsilon is the
           budget a release spends, from which each command picks eps
  k, eps~  k = ceil(log2(2/eps)); eps~ = 2 ln(1 + 2^-k) <= eps, the epsilon
           GeoSample actually spends
  gamma, t FastSample's weight on a uniform output, its truncation distance
  beta     the failure probability of an accuracy claim (error at most a with
           probability 1 - beta); beta0 the smallest beta the parameters allow
  delta    the approximate-DP slack
  |X|      the number of possible elements (bins) of a histogram

Each command: exactdp COMMAND --help."""

#: What every sub-command's ``--help`` ends with: where the shared conventions are.
EPILOG = "Exit statuses, exact numbers and the notation: exactdp --help."


#: Nanoseconds per second: the cost estimates are integers (no float in the CLI either).
NS = 10**9


def per_call_ns(fn: Callable[[], object], calls: int = 3) -> int:
    """Nanoseconds per call of ``fn()`` (the fastest of ``calls`` timings; at least 1)."""
    times = []
    for _ in range(calls):
        start = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - start)
    return max(1, min(times))


def draw_ns(mech: Any, c: int) -> int:
    """Nanoseconds per released draw ``mech.sample(c)``, timed with a throwaway seeded source
    (those draws are never released; only the time is used)."""
    trial = seeded_source(0)
    return per_call_ns(lambda: mech.sample(c, trial))


def duration(ns: int) -> str:
    """A rough duration in words (an estimate, rounded to the nearest unit shown)."""
    seconds = (ns + NS // 2) // NS
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{(seconds + 30) // 60} minutes"
    if seconds < 2 * 86400:
        tenths = (seconds + 180) // 360
        return f"{tenths // 10}.{tenths % 10} hours"
    return f"{(seconds + 43200) // 86400} days"


def seeded_source(seed: int | str | bytes) -> Any:
    """``SeededSource(seed)`` without its not-for-release warning: the commands print their
    own warning where the values are released (or use the source only for timing)."""
    from exactdp.randomness import SeededSource

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SeededSource(seed)


def progress(message: str, stream: TextIO | None = None) -> None:
    """A line of progress on stderr; lost without a word if stderr cannot be written (a
    progress line is never worth failing a release for)."""
    out = sys.stderr if stream is None else stream
    if out is None:
        return
    try:
        print(clip(message), file=out, flush=True)
    except OSError:
        pass


# --- standard output and error: checked before any work, failures reported once -----------

#: The longest quoted value an error line shows in full; longer ones are cut in the middle.
QUOTE_CAP = 200
#: The longest line :func:`clip` leaves whole.
LINE_CAP = 2000

_QUOTED = re.compile(r"'(?:[^'\\\n]|\\.){" + str(QUOTE_CAP) + r",}'"
                     r'|"(?:[^"\\\n]|\\.){' + str(QUOTE_CAP) + r',}"')


def clip(line: str) -> str:
    """``line`` with every quoted value longer than :data:`QUOTE_CAP` characters cut to its
    start and end (saying how long it was), and the whole line cut at :data:`LINE_CAP`.

    >>> clip("bad value '" + "9" * 500 + "'")[:24], len(clip("x" * 9000)) < 2100
    ("bad value '999999999999", True)
    """
    def cut(m: re.Match[str]) -> str:
        text = m.group(0)
        half = QUOTE_CAP // 2
        return f"{text[:half]}...({len(text)} characters)...{text[-half:]}"

    line = _QUOTED.sub(cut, line)
    if len(line) > LINE_CAP:
        line = f"{line[:LINE_CAP]}... ({len(line)} characters in all)"
    return line


class StdoutError(Exception):
    """Standard output could not be written (closed, full disk, I/O error)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


class GuardedStdout:
    """``sys.stdout`` for the length of a command: a failed write or flush becomes one
    :class:`StdoutError` (the reader closing a pipe stays a ``BrokenPipeError``)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except Exception as exc:  # noqa: BLE001 - sorted by _failed
            raise self._failed(exc) from None

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except Exception as exc:  # noqa: BLE001 - sorted by _failed
            raise self._failed(exc) from None

    def _failed(self, exc: Exception) -> Exception:
        """A write failure as :class:`StdoutError`; anything else (a broken pipe, a text
        the encoding cannot show) unchanged."""
        if isinstance(exc, OSError) and not isinstance(exc, BrokenPipeError):
            return StdoutError(_why(exc))
        if (type(exc) is ValueError and getattr(self._stream, "closed", False)):
            return StdoutError("it is closed")
        return exc

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class QuietStderr:
    """``sys.stderr`` for the length of a command: a line that cannot be written is lost
    (a full or closed stderr must not turn a finished release into a crash)."""

    def __init__(self, stream: TextIO | None) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if self._stream is not None:
            try:
                return self._stream.write(text)
            except (OSError, ValueError):
                pass
        return len(text)

    def flush(self) -> None:
        if self._stream is not None:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                pass

    def __getattr__(self, name: str) -> Any:
        if self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


_DEV_FULL = (1, 7)


def stdout_problem(stream: Any) -> str | None:
    """Why standard output cannot take the command's output, found before any work (so
    that nothing is drawn for an output nobody can receive), or None.  Only what is
    certain is refused: a closed descriptor, one open read-only, ``/dev/full``, a regular
    file on a file system with no free block; a stream that is not a file descriptor
    (tests capturing output) is not examined."""
    if stream is None:
        return "standard output is closed"
    try:
        fd = stream.fileno()
    except (AttributeError, ValueError, OSError):
        return None
    try:
        st = os.fstat(fd)
        if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY:
            return "standard output is open for reading only"
    except OSError as exc:
        if exc.errno == errno.EBADF:
            return "standard output is closed"
        return None
    if stat.S_ISCHR(st.st_mode) and (os.major(st.st_rdev), os.minor(st.st_rdev)) == _DEV_FULL:
        return "standard output is /dev/full (no space left on device)"
    if stat.S_ISREG(st.st_mode):
        try:
            vfs = os.fstatvfs(fd)
        except OSError:
            return None
        free = vfs.f_bfree if os.geteuid() == 0 else vfs.f_bavail
        if free == 0:
            return "no space left on the device holding standard output"
    return None


def dumps(payload: Any) -> str:
    return json.dumps(payload, indent=2) + "\n"


def write_json(payload: Any, path: OutputPath | None = None) -> None:
    """JSON on stdout, or atomically to an already-checked :class:`OutputPath`."""
    if path is None:
        sys.stdout.write(dumps(payload))
        sys.stdout.flush()
    else:
        path.write(dumps(payload))


def add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true",
                   help="print JSON only, on stdout (exact numbers as strings)")


def add_output(p: argparse.ArgumentParser, what: str = "the JSON") -> None:
    p.add_argument("--output", metavar="PATH",
                   help=f"write {what} to PATH, atomically")
    p.add_argument("--force", action="store_true",
                   help="allow --output to replace an existing file")


def add_input_limit(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-input-bytes", default=str(DEFAULT_MAX_BYTES), metavar="B",
                   help="refuse input files larger than B bytes (default 1 GiB)")


def input_limit(args: argparse.Namespace) -> int:
    from exactdp.params import positive_int

    return positive_int(args.max_input_bytes, "--max-input-bytes")


def output_path(args: argparse.Namespace) -> OutputPath | None:
    """The checked ``--output`` path (call before drawing any randomness), or None."""
    if getattr(args, "output", None) is None:
        return None
    return OutputPath.check(args.output, bool(getattr(args, "force", False)))


def emit_json(args: argparse.Namespace, payload: Any, out: OutputPath | None) -> bool:
    """Write ``payload`` where asked (``--output`` and/or ``--json``); True if it was printed
    on stdout (then nothing else may go there)."""
    if out is not None:
        write_json(payload, out)
    if getattr(args, "json", False):
        write_json(payload)
        return True
    return False
