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
import contextlib
import errno
import fcntl
import json
import os
import re
import stat
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
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
       could not be written, or the command stopped after writing some files
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
  k, eps~  k = ceil(log2(2/eps)); eps~ = 2 ln(1 + 2^-k) <= eps: GeoSample's
           worst ratio is e^(eps~/2) = 1 + 2^-k: one value spends eps~/2
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


#: The most worker processes a command starts (more only queue on the same cores and memory).
MAX_WORKERS = 256


def worker_count(value: object, name: str = "--workers") -> int:
    """A positive number of worker processes, at most :data:`MAX_WORKERS`."""
    from exactdp.params import ParameterError, positive_int

    n = positive_int(value, name)
    if n > MAX_WORKERS:
        cores = os.cpu_count() or 1
        raise ParameterError(f"{name} = {n} is above {MAX_WORKERS}, the most worker processes "
                             f"started (this machine has {cores} cores; about that many is "
                             f"best)")
    return n


#: The default ``--max-seconds`` of every long command: a run past a minute without being
#: asked for is treated as a hang.
DEFAULT_MAX_SECONDS = 60


def add_max_seconds(p: argparse.ArgumentParser, default: int = DEFAULT_MAX_SECONDS,
                    what: str = "") -> None:
    """``--max-seconds S``: the limit on the work a command does before it draws anything
    (estimated up front where it can be, and enforced by a deadline where it cannot)."""
    p.add_argument("--max-seconds", default=str(default), metavar="S",
                   help=what or f"refuse work estimated to take longer than S seconds, and "
                                f"stop work past S seconds of processor time before its "
                                f"output begins (default {default})")


def max_seconds(args: argparse.Namespace) -> int:
    from exactdp.params import positive_int

    return positive_int(getattr(args, "max_seconds", str(DEFAULT_MAX_SECONDS)),
                        "--max-seconds")


def refuse_if_slow(what: str, ns: int, limit: int, change: str) -> None:
    """Refuse, before it starts, work estimated at ``ns`` nanoseconds past ``limit`` s."""
    from exactdp.params import ResourceLimitError

    if ns > limit * NS:
        raise ResourceLimitError(
            f"{what} would take about {duration(ns)} (estimated by timing it on a sample), "
            f"over --max-seconds {limit}; {change}, or pass --max-seconds "
            f"{2 * ns // NS + 1} to run it anyway (nothing was run or drawn)")


class DeadlineReached(BaseException):
    """The command's work ran past ``--max-seconds`` before its output began.  Not an
    ``Exception``: no ``except Exception`` in the work may swallow it or turn it into another
    error; the command line reports it (status 2, nothing released or written)."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


#: Whether a :func:`work_deadline` is armed (cleared by :func:`delivering`).
_ARMED = [False]


@contextlib.contextmanager
def work_deadline(limit: int) -> Iterator[None]:
    """Stop the work inside with :class:`DeadlineReached` once it has used ``limit`` seconds
    of processor time (the estimates' unit: a busy machine does not stop it early), unless
    its output has begun (:func:`delivering`): a command stops cleanly, before anything is
    released or written, however its estimate erred.  SIGPROF, so only in the main thread
    and when nobody else holds that signal (then nothing is limited here)."""
    import signal
    import threading

    if (threading.current_thread() is not threading.main_thread()
            or not hasattr(signal, "setitimer")
            or signal.getsignal(signal.SIGPROF) not in (signal.SIG_DFL, None)):
        yield
        return

    def expired(signum: int, frame: object) -> None:
        if _ARMED[0]:
            _ARMED[0] = False
            raise DeadlineReached(limit)

    signal.signal(signal.SIGPROF, expired)
    _ARMED[0] = True
    signal.setitimer(signal.ITIMER_PROF, limit)
    try:
        yield
    finally:
        _ARMED[0] = False
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, signal.SIG_DFL)


def delivering() -> None:
    """The work is done and its output begins: the deadline no longer applies (an output
    cut in the middle, or one written and then reported as not, is worse than a late one)."""
    if _ARMED[0]:
        import signal

        _ARMED[0] = False
        signal.setitimer(signal.ITIMER_PROF, 0)


def seeded_source(seed: int | str | bytes) -> Any:
    """``SeededSource(seed)`` without its not-for-release warning: the commands print their
    own warning where the values are released (or use the source only for timing)."""
    from exactdp.randomness import SeededSource

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SeededSource(seed)


#: The budgets of the commands whose exact set-up grows with eps (projections, convolution,
#: sparse vectors, their checks): e^1000 promises no privacy, and below 10^-100 the sizes of
#: the exact numbers, not the privacy, would decide the running time.
EPSILON_RANGE = (Fraction(1, 10**100), Fraction(1000))


def epsilon_in_range(eps: Fraction, name: str = "--epsilon") -> Fraction:
    """``eps`` if it lies in :data:`EPSILON_RANGE`; otherwise a typed error naming the range
    (checked before anything is read or drawn)."""
    from exactdp.params import ResourceLimitError

    lo, hi = EPSILON_RANGE
    if eps > hi:
        raise ResourceLimitError(f"{name} = {clip_value(eps)} is above {hi}: e^{hi} already "
                                 f"promises no privacy, and the exact set-up grows with eps; "
                                 f"pass at most {hi}")
    if eps < lo:
        raise ResourceLimitError(f"{name} = {clip_value(eps)} is below 10^-100: the exact "
                                 f"numbers (not the privacy) would decide the running time; "
                                 f"pass at least 10^-100")
    return eps


def clip_value(value: object) -> str:
    """``str(value)`` cut to :data:`QUOTE_CAP` characters (saying how long it was)."""
    text = str(value)
    if len(text) <= QUOTE_CAP:
        return text
    half = QUOTE_CAP // 2
    return f"{text[:half]}...({len(text)} characters)...{text[-half:]}"


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


_LONG_TOKEN = re.compile(r"[^\s'\"]{" + str(QUOTE_CAP + 1) + ",}")


def clip(line: str) -> str:
    """``line`` with every quoted value, and every unquoted run without spaces, longer than
    :data:`QUOTE_CAP` characters cut to its start and end (saying how long it was), and the whole line cut at :data:`LINE_CAP`.

    >>> clip("bad value '" + "9" * 500 + "'")[:24], len(clip("x" * 9000)) < 2100
    ("bad value '999999999999", True)
    """
    def cut(m: re.Match[str]) -> str:
        text = m.group(0)
        half = QUOTE_CAP // 2
        return f"{text[:half]}...({len(text)} characters)...{text[-half:]}"

    line = _QUOTED.sub(cut, line)
    line = _LONG_TOKEN.sub(cut, line)
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
        delivering()
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


class DeliveredOutputPath(OutputPath):
    """An :class:`OutputPath` that ends the work's deadline once every piece of its content
    has been produced (a stream of draws is still work; the rename is delivery)."""

    def write_stream(self, pieces: Iterable[str | bytes]) -> None:
        def produced() -> Iterator[str | bytes]:
            yield from pieces
            delivering()

        super().write_stream(produced())


def output_path(args: argparse.Namespace) -> OutputPath | None:
    """The checked ``--output`` path (call before drawing any randomness), or None."""
    if getattr(args, "output", None) is None:
        return None
    return DeliveredOutputPath.check(args.output, bool(getattr(args, "force", False)))


def emit_json(args: argparse.Namespace, payload: Any, out: OutputPath | None) -> bool:
    """Write ``payload`` where asked (``--output`` and/or ``--json``); True if it was printed
    on stdout (then nothing else may go there)."""
    if out is not None:
        write_json(payload, out)
    if getattr(args, "json", False):
        write_json(payload)
        return True
    return False
