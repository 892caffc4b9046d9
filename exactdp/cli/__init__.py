"""The ``exactdp`` command.

Sub-commands live in one module each (``verify``, ``counting``, ``histogram``, ``audit``):
an ``add_<name>`` function declares a sub-command's arguments and points it at its
``cmd_<name>`` function.  What they share (exit statuses, ``--json`` / ``--output``, progress)
is in :mod:`exactdp.cli._common`.  :func:`main` turns every error a user can cause into one
line on stderr and an exit status, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

__all__ = ["build_parser", "main"]

# Exit statuses (also in exactdp.cli._common, which is imported only inside main()).
USAGE, INTERRUPTED = 2, 130

#: Set to 1 to see the traceback of an internal error (a bug in exactdp).
DEBUG_ENV = "EXACTDP_DEBUG"


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors on one line (the usage itself is one ``--help`` away)."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    from exactdp.cli import (
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
    from exactdp.cli._common import EPILOG

    parser = _Parser(
        prog="exactdp",
        description="Exact-arithmetic differential privacy on finite computers (Balcer & "
                    "Vadhan) with an exact checker. Parameters are exact rationals: "
                    "'1/10', '0.1' or '1e-1' (all exactly 1/10); a binary float is never "
                    "accepted and nothing is rounded toward less privacy.",
        epilog=EPILOG)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in [*verify.COMMANDS, *counting.COMMANDS, *check.COMMANDS, *histogram.COMMANDS,
                *audit.COMMANDS, *sparse_vector.COMMANDS, *convolution.COMMANDS,
                *tutorial.COMMANDS, *plot.COMMANDS,
                *figures.COMMANDS, *projections.COMMANDS]:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # Exact numbers of any length must print and parse: lift CPython's 4300-digit cap on
    # int <-> str conversion (3.11+) for this process.
    sys.set_int_max_str_digits(0)
    try:
        # The heavy imports (gmpy2, sympy, the library) happen here, inside the handler.
        from exactdp.params import ExactDPError

        args = build_parser().parse_args(argv)
        args.argv_ = list(sys.argv[1:] if argv is None else argv)  # recorded by reports
    except KeyboardInterrupt:
        return _interrupted("exactdp")
    name = f"exactdp {args.command}"
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return _interrupted(name)
    except ExactDPError as exc:
        _error(name, f"error: {exc}")
        return USAGE
    except BrokenPipeError:
        # The reader closed the pipe (e.g. ``| head -1``): what it read was delivered, so
        # this is not an error of ours.  Silence the flush of stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except RecursionError:
        _error(name, "error: the input nests too deeply to process")
        return USAGE
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
    except Exception as exc:  # noqa: BLE001 - a bug: one line and status 4, never a traceback
        return _internal(name, exc)


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
    print(f"{name}: {message}".replace("\n", " "), file=sys.stderr, flush=True)


def _interrupted(name: str) -> int:
    # A second Ctrl-C while the line is printed must not produce a traceback either.  (No
    # SIG_IGN: main() also runs inside other programs and tests, whose children would
    # inherit an ignored SIGINT.)
    try:
        _error(name, "interrupted; nothing was written")
    except KeyboardInterrupt:
        pass
    return INTERRUPTED
