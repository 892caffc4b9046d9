"""The ``exactdp`` command.

Sub-commands live in one module each (``verify``, ``counting``, ``histogram``, ``audit``):
an ``add_<name>`` function declares a sub-command's arguments and points it at its
``cmd_<name>`` function.  What they share (exit statuses, ``--json`` / ``--output``, progress)
is in :mod:`exactdp.cli._common`.  :func:`main` turns every error a user can cause into one
line on stderr and an exit status, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any, NoReturn, TextIO

__all__ = ["build_parser", "main"]

# Exit statuses (also in exactdp.cli._common, which is imported only inside main()).
USAGE, BROKEN, INTERRUPTED = 2, 3, 130
#: A release was drawn but could not be written (status 1: not "nothing happened").
FAILED_WRITE = 1

#: Set to 1 to see the traceback of an internal error (a bug in exactdp).
DEBUG_ENV = "EXACTDP_DEBUG"


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors on one line (the usage itself is one ``--help`` away)."""

    def error(self, message: str) -> NoReturn:
        from exactdp.cli._common import clip

        self.exit(USAGE, clip(f"{self.prog}: error: {message} (see '{self.prog} --help')")
                  + "\n")


def build_parser() -> argparse.ArgumentParser:
    from exactdp.cli import (
        account,
        audit,
        check,
        convolution,
        counting,
        figures,
        histogram,
        plot,
        projections,
        sparse_vector,
        tutorial,
        verify,
    )
    from exactdp.cli._common import CONVENTIONS

    parser = _Parser(
        prog="exactdp",
        description="Exact-arithmetic differential privacy on finite computers, with an exact\n"
                    "checker: the mechanisms of Balcer & Vadhan, Aumuller, Lebeda & Pagh (ALP),\n"
                    "Li & Li and Fawaz, Muthukrishnan & Nikolov, and audits of other code.",
        epilog=CONVENTIONS, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in [*verify.COMMANDS, *counting.COMMANDS, *check.COMMANDS, *histogram.COMMANDS,
                *audit.COMMANDS, *sparse_vector.COMMANDS, *convolution.COMMANDS,
                *tutorial.COMMANDS, *plot.COMMANDS,
                *figures.COMMANDS, *projections.COMMANDS, *account.COMMANDS]:
        add(sub)
    return parser


#: The commands that draw a release before printing it (a failed write loses privacy spent).
_RELEASES = {"histogram", "sample", "project", "convolve", "sparse-vector project"}


def _drew(args: argparse.Namespace) -> bool:
    action = getattr(args, "action", None)
    return args.command in _RELEASES or f"{args.command} {action}" in _RELEASES


def main(argv: Sequence[str] | None = None) -> int:
    # Exact numbers of any length must print and parse: lift CPython's 4300-digit cap on
    # int <-> str conversion (3.11+) for this process.
    sys.set_int_max_str_digits(0)
    from exactdp.cli._common import QuietStderr

    stdout, stderr = sys.stdout, sys.stderr
    sys.stderr = QuietStderr(stderr)  # type: ignore[assignment]
    old = _watch_sigint()
    try:
        return _main(argv, stdout)
    finally:
        sys.stdout, sys.stderr = stdout, stderr
        if old is not None:
            signal.signal(signal.SIGINT, old)


#: Whether a real SIGINT (Ctrl-C) arrived; None when it cannot be told (no handler of ours).
_SIGINT: list[bool | None] = [None]


def _watch_sigint() -> Any:
    """Install a SIGINT handler that records a real Ctrl-C before raising KeyboardInterrupt
    as Python's does, so that a KeyboardInterrupt raised by code (an audited mechanism) is
    told apart from the user's; the old handler, or None if ours could not be installed."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        _SIGINT[0] = None
        return None

    def on_sigint(signum: int, frame: object) -> None:
        _SIGINT[0] = True
        raise KeyboardInterrupt

    _SIGINT[0] = False
    return signal.signal(signal.SIGINT, on_sigint)


def _raised_by_code(args: argparse.Namespace) -> bool:
    """A KeyboardInterrupt with no Ctrl-C behind it, in a command that runs others' code."""
    return _SIGINT[0] is False and args.command == "audit"


def _main(argv: Sequence[str] | None, stdout: TextIO | None) -> int:
    try:
        # The heavy imports (gmpy2, sympy, the library) happen here, inside the handler.
        from exactdp.cli._common import (
            DeadlineReached,
            GuardedStdout,
            StdoutError,
            stdout_problem,
        )
        from exactdp.files import OutputWriteError, recording_writes
        from exactdp.params import ExactDPError

        words = list(sys.argv[1:] if argv is None else argv)
        problem = stdout_problem(stdout)
        if problem is not None:
            first = next((w for w in words[:1] if not w.startswith("-")), "")
            _error(f"exactdp {first}".strip(),
                   f"error: {problem}; nothing was run or drawn (redirect standard output to "
                   f"a file or to /dev/null)")
            return USAGE
        args = build_parser().parse_args(argv)
        args.argv_ = words  # recorded by reports
    except KeyboardInterrupt:
        return _interrupted("exactdp")
    name = f"exactdp {args.command}"
    sys.stdout = GuardedStdout(stdout)  # type: ignore[arg-type, assignment]
    written: list[Any] = []
    try:
        with recording_writes() as written, _limited(args):
            status = int(args.func(args))
        sys.stdout.flush()
        return status
    except DeadlineReached as exc:
        _error(name, f"error: stopped after --max-seconds {exc.limit} (its cost estimate "
                     f"was too low, or there was none); "
                     + ("nothing was released or written" if not written
                        else _written_before(written))
                     + ": pass a larger --max-seconds, or smaller parameters")
        return FAILED_WRITE if written else USAGE
    except KeyboardInterrupt:
        if _raised_by_code(args):
            _error(name, "BROKEN: the audited code raised KeyboardInterrupt itself (no Ctrl-C "
                         "was received); a mechanism must not raise it")
            return BROKEN
        return _interrupted(name, written)
    except StdoutError as exc:
        _silence_stdout(stdout)
        return _undelivered(name, args, f"cannot write standard output ({exc.why})", written)
    except OutputWriteError as exc:
        return _undelivered(name, args, str(exc), written)
    except ExactDPError as exc:
        if written:
            _error(name, f"error: {exc}; {_written_before(written)}")
            return FAILED_WRITE
        _error(name, f"error: {exc}")
        return USAGE
    except BrokenPipeError:
        # The reader closed the pipe (e.g. ``| head -1``): what it read was delivered, so
        # this is not an error of ours.  Silence the flush of stdout at exit.
        _silence_stdout(stdout)
        return 0
    except RecursionError:
        _error(name, "error: the input nests too deeply to process")
        return USAGE
    except OverflowError as exc:
        # A value too large for a fixed-size integer of a library call (an index, a C
        # argument): the user's number, not a result; the command's own caps name most.
        why = (f"error: a value is too large for this computation ({exc}); use smaller "
               f"parameters or inputs")
        _error(name, f"{why}; {_written_before(written)}" if written else why)
        return FAILED_WRITE if written else USAGE
    except UnicodeEncodeError as exc:
        if not _stdout_codec(exc.encoding):
            return _internal(name, exc)
        _error(name, f"error: standard output (encoding {sys.stdout.encoding}) cannot show "
                     f"{exc.object[exc.start:exc.end]!r}; set PYTHONIOENCODING=utf-8 (or a "
                     f"UTF-8 locale) to print it")
        return USAGE
    except MemoryError:
        _error(name, "error: out of memory; use smaller inputs or parameters")
        return USAGE
    except OSError as exc:
        # The system refused something (a full disk, an I/O error, a file that vanished):
        # not a bug of ours, and never a traceback.
        where = f" ({exc.filename})" if exc.filename else ""
        return _undelivered(name, args, f"{exc.strerror or type(exc).__name__}{where}",
                            written)
    except Exception as exc:  # noqa: BLE001 - a bug: one line and status 4, never a traceback
        return _internal(name, exc)


def _limited(args: argparse.Namespace) -> Any:
    """The deadline of a command with ``--max-seconds`` (its work stops there, before any
    output); the audit keeps its own limits and alarm."""
    from exactdp.cli._common import max_seconds, work_deadline

    if args.command == "audit" or getattr(args, "max_seconds", None) is None:
        return contextlib.nullcontext()
    return work_deadline(max_seconds(args))


def _silence_stdout(stdout: TextIO | None) -> None:
    """Point the real stdout at /dev/null, so that the flush at exit does not fail again."""
    try:
        fd = stdout.fileno() if stdout is not None else -1
    except (AttributeError, ValueError, OSError):
        return
    if fd < 0:
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def _written_before(written: Sequence[Any]) -> str:
    """What a command that stopped had already written (complete files, each put in place
    atomically), for its error line."""
    names = ", ".join(repr(str(p)) for p in written[:4])
    more = f" and {len(written) - 4} more" if len(written) > 4 else ""
    return (f"{len(written)} complete file(s) had been written before that ({names}{more}); "
            f"nothing else was written")


def _undelivered(name: str, args: argparse.Namespace, why: str,
                 written: Sequence[Any] = ()) -> int:
    """A write failed: for a command that draws a release, say that it was drawn (its
    privacy spent) and not delivered, status 1; say which files were written before the
    failure (status 1: not "nothing happened"); otherwise status 2."""
    if _drew(args):
        where = (f"; it was written to {', '.join(repr(str(p)) for p in written)} only"
                 if written else " but NOT delivered")
        _error(name, f"error: {why}; the release was DRAWN (its privacy budget is spent){where}")
        return FAILED_WRITE
    if written:
        _error(name, f"error: {why}; {_written_before(written)}")
        return FAILED_WRITE
    _error(name, f"error: {why}; nothing was written")
    return USAGE


def _internal(name: str, exc: Exception) -> int:
    if os.environ.get(DEBUG_ENV):
        raise exc
    _error(name, f"internal error (a bug in exactdp, please report it): "
                 f"{type(exc).__name__}: {exc}; set {DEBUG_ENV}=1 for the traceback")
    return 4


def _stdout_codec(encoding: str) -> bool:
    """Whether ``encoding`` is standard output's (a text it cannot show, not a bug)."""
    import codecs

    try:
        return codecs.lookup(encoding).name == codecs.lookup(sys.stdout.encoding).name
    except (LookupError, TypeError):
        return False


def _error(name: str, message: str) -> None:
    from exactdp.cli._common import clip

    try:
        print(clip(f"{name}: {message}".replace("\n", " ")), file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass  # stderr itself is gone: the exit status still says what happened


def _interrupted(name: str, written: Sequence[Any] = ()) -> int:
    # A second Ctrl-C while the line is printed must not produce a traceback either.  (No
    # SIG_IGN: main() also runs inside other programs and tests, whose children would
    # inherit an ignored SIGINT.)
    try:
        _error(name, "interrupted; " + (_written_before(written) if written
                                        else "nothing was written"))
    except KeyboardInterrupt:
        pass
    return INTERRUPTED
