"""The ``exactdp`` command.

Sub-commands each live in one ``_cmd_<name>`` function registered in ``_COMMANDS`` by an
``_add_<name>`` function that declares its arguments.  Every command that prints results
accepts ``--json`` (numbers as exact decimal strings and "p/q"); errors in user input
print one line to stderr and exit with status 2; failed verifications exit with 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from exactdp.certificate import ClaimReport
from exactdp.params import ExactDPError

__all__ = ["main"]


def _progress(message: str, stream: TextIO | None = None) -> None:
    out = sys.stderr if stream is None else stream
    print(message, file=out, flush=True)


def _write_json(payload: Any, path: str | None) -> None:
    text = json.dumps(payload, indent=2)
    if path is None or path == "-":
        print(text)
    else:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")


# --------------------------------------------------------------------------- verify

def _add_verify(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "verify",
        help="check every claim in proofs/ exactly on the implementation",
        description="Run every executable proof in proofs/ (one per theorem/lemma of the "
                    "papers) on its parameter grid and print one row per claim: the grid "
                    "covered, the worst exact value found against the claimed bound, the "
                    "verdict and the time taken. Exit status 1 if any claim fails.")
    grid = p.add_mutually_exclusive_group()
    grid.add_argument("--quick", action="store_true",
                      help="the small grids (default; about two minutes at most)")
    grid.add_argument("--full", action="store_true", help="the full exhaustive grids")
    p.add_argument("--json", metavar="PATH",
                   help="also write all certificates as JSON to PATH ('-' for stdout)")
    p.add_argument("--only", metavar="TEXT",
                   help="run only the proof modules whose name or claim contains TEXT")
    p.set_defaults(func=_cmd_verify)


def _cmd_verify(args: argparse.Namespace) -> int:
    import proofs

    full = bool(args.full)
    modules = proofs.discover()
    if args.only:
        needle = args.only.lower()
        modules = [m for m in modules
                   if needle in m.__name__.lower() or needle in str(getattr(m, "CLAIM", "")).lower()]
    rows: list[tuple[ClaimReport, float]] = []
    grid_name = "full" if full else "quick"
    _progress(f"exactdp verify ({grid_name} grids): {len(modules)} claims")
    for i, module in enumerate(modules, 1):
        _progress(f"[{i}/{len(modules)}] {module.CLAIM} ...")
        start = time.perf_counter()
        report: ClaimReport = module.check(full)
        seconds = time.perf_counter() - start
        rows.append((report, seconds))
        _progress(f"[{i}/{len(modules)}] {report.claim}: "
                  f"{'pass' if report.verdict else 'FAIL'} ({seconds:.1f} s)")
    _print_table(rows)
    if args.json:
        _write_json({"grid": grid_name,
                     "claims": [dict(r.to_json(), seconds=f"{s:.3f}") for r, s in rows]},
                    args.json)
    failed = [r.claim for r, _ in rows if not r.verdict]
    if failed:
        print(f"\n{len(failed)} claim(s) FAILED: " + "; ".join(failed))
        return 1
    print(f"\nall {len(rows)} claims pass")
    return 0


def _print_table(rows: Sequence[tuple[ClaimReport, float]]) -> None:
    headers = ("claim", "grid covered", "worst exact value", "bound", "verdict", "seconds")
    table = [(r.claim, r.grid, r.worst, r.bound, "pass" if r.verdict else "FAIL", f"{s:.1f}")
             for r, s in rows]
    widths = [min(max([len(h)] + [len(row[j]) for row in table]), 60)
              for j, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths))
    print(line)
    print("-" * len(line))
    for row in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))


# --------------------------------------------------------------------------- main

_COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [  # type: ignore[type-arg]
    _add_verify,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="exactdp",
        description="Exact-arithmetic differential privacy on finite computers (Balcer & "
                    "Vadhan) with an exact checker. Parameters are exact rationals: write "
                    "epsilon as '1/10', never 0.1.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in _COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except ExactDPError as exc:
        print(f"exactdp {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
