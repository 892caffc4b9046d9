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
import json
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

#: One paragraph every ``--help`` ends with: the exit statuses and the notation.
EPILOG = ("Exit status: 0 success (every claim passes); 1 a privacy violation or failed "
          "claim was found; 2 usage or input error (nothing was released or written); 3 the "
          "audited mechanism is broken; 4 an internal error (a bug in exactdp); 130 "
          "interrupted. Numbers are exact: '1/10', '0.1' "
          "and '1e-1' all mean exactly 1/10; a float is never rounded. Notation (paper "
          "004's): [n] = {0, ..., n}, the possible counts; [d]_+ = {1, ..., d}, the values of "
          "the one uniform draw u a mechanism M(c, u) makes; c the true count, z an output; "
          "eps the paper's privacy parameter (1/m for a whole m; --epsilon is the budget a "
          "release spends, from which each command picks eps); k = ceil(log2(2/eps)); eps~ = 2 "
          "ln(1 + 2^-k) <= eps, the epsilon GeoSample actually spends; gamma FastSample's "
          "weight on a uniform output, t its truncation distance; beta the failure "
          "probability of an accuracy claim (error at most a with probability 1 - beta) and "
          "beta0 the smallest beta the parameters were chosen for; delta the approximate-DP "
          "slack; |X| the number of possible elements (bins) of a histogram.")


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
    out = sys.stderr if stream is None else stream
    print(message, file=out, flush=True)


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
                   help="print JSON only, on stdout (numbers as exact strings: '12', 'p/q')")


def add_output(p: argparse.ArgumentParser, what: str = "the JSON") -> None:
    p.add_argument("--output", metavar="PATH",
                   help=f"write {what} to PATH (atomically; the path is checked before any "
                        f"work is done)")
    p.add_argument("--force", action="store_true",
                   help="allow --output to replace an existing file")


def add_input_limit(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-input-bytes", default=str(DEFAULT_MAX_BYTES), metavar="B",
                   help=f"refuse input files larger than B bytes (default {DEFAULT_MAX_BYTES})")


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
