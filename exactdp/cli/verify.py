"""``exactdp verify``: every executable proof in proofs/, one row per claim."""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections.abc import Sequence

from exactdp.certificate import ClaimReport
from exactdp.cli._common import (
    EPILOG,
    FAILED,
    OK,
    add_json,
    add_output,
    emit_json,
    output_path,
    progress,
)
from exactdp.params import ParameterError

__all__ = ["COMMANDS", "add_verify", "cmd_verify", "run_check"]


def add_verify(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "verify",
        help="check every claim in proofs/ exactly on the implementation",
        description="Run every executable proof in proofs/ (one per theorem/lemma of the "
                    "papers) on its parameter grid and print one row per claim: the grid "
                    "covered, the worst exact value found against the claimed bound, the "
                    "verdict and the time taken. A check that raises an error is a FAIL row "
                    "with the error, and the other claims still run. Exit status 1 if any "
                    "claim fails.",
        epilog=EPILOG)
    grid = p.add_mutually_exclusive_group()
    grid.add_argument("--quick", action="store_true",
                      help="the small grids (default; under a minute on 2 cores)")
    grid.add_argument("--full", action="store_true",
                      help="the full exhaustive grids (about 20 minutes of CPU)")
    add_json(p)
    add_output(p, "all certificates as JSON")
    p.add_argument("--only", metavar="TEXT",
                   help="run only the proof modules whose name or claim contains TEXT "
                        "(an error if none does)")
    p.set_defaults(func=cmd_verify)


def run_check(check: object, full: bool) -> ClaimReport:
    """Run one proof check; an exception becomes a failed :class:`ClaimReport` naming it
    (with no certificates, so its verdict is FAIL)."""
    try:
        report = check(full)  # type: ignore[operator]
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure of a check is its FAIL row
        module = getattr(check, "__module__", "?")
        claim = str(getattr(check, "CLAIM", None)
                    or getattr(sys.modules.get(module), "CLAIM", module))
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return ClaimReport(claim=f"{claim} [{getattr(check, '__name__', 'check')}]",
                           grid="(the check raised before finishing)",
                           worst=f"{type(exc).__name__}: {exc} (at {where.filename}:"
                                 f"{where.lineno})",
                           bound="the check must finish", certificates=())
    if not isinstance(report, ClaimReport):
        return ClaimReport(claim=str(getattr(check, "__module__", "?")), grid="",
                           worst=f"the check returned {type(report).__name__}",
                           bound="a ClaimReport", certificates=())
    return report


def cmd_verify(args: argparse.Namespace) -> int:
    import proofs
    from exactdp.histograms import native

    out = output_path(args)
    full = bool(args.full)
    checks = [(module, fn) for module in proofs.discover() for fn in proofs.checks_of(module)]
    if args.only is not None:
        needle = args.only.strip().lower()
        if not needle:
            raise ParameterError("--only '' matches every claim; give part of a module name "
                                 "or claim (or leave --only out to run them all)")
        checks = [(m, fn) for m, fn in checks
                  if needle in m.__name__.lower() or needle in str(getattr(m, "CLAIM", "")).lower()]
        if not checks:
            raise ParameterError(f"--only {args.only!r} matches no proof module or claim; "
                                 f"the modules are: "
                                 + ", ".join(m.__name__.split(".")[-1] for m in proofs.discover()))
    rows: list[tuple[ClaimReport, float]] = []
    grid_name = "full" if full else "quick"
    progress(f"exactdp verify ({grid_name} grids): {len(checks)} claims; CompactHistogram "
             f"arithmetic: {native.status()}"
             + (" (Theorem 8.3 (i) also runs the pure path)" if native.available() else ""))
    for i, (module, fn) in enumerate(checks, 1):
        progress(f"[{i}/{len(checks)}] {module.CLAIM} ...")
        start = time.perf_counter()
        report = run_check(fn, full)
        seconds = time.perf_counter() - start
        rows.append((report, seconds))
        progress(f"[{i}/{len(checks)}] {report.claim}: "
                 f"{'pass' if report.verdict else 'FAIL'} ({seconds:.1f} s)")
    failed = [r.claim for r, _ in rows if not r.verdict]
    payload = {"grid": grid_name, "native_arithmetic": native.status(),
               "claims": [dict(r.to_json(), seconds=f"{s:.3f}") for r, s in rows],
               "verdict": not failed}
    if emit_json(args, payload, out):
        return FAILED if failed else OK
    _print_table(rows)
    if failed:
        print(f"\n{len(failed)} claim(s) FAILED: " + "; ".join(failed))
        return FAILED
    print(f"\nall {len(rows)} claims pass")
    return OK


def _print_table(rows: Sequence[tuple[ClaimReport, float]]) -> None:
    """One block per claim: verdict, seconds and claim; then the grid covered, and the worst
    exact value found against the bound."""
    print(f"{'verdict':8} {'seconds':>8}  claim")
    print("-" * 78)
    for r, s in rows:
        print(f"{'pass' if r.verdict else 'FAIL':8} {s:8.1f}  {r.claim}")
        print(f"{'':18}grid:  {r.grid}")
        print(f"{'':18}worst: {r.worst}")
        print(f"{'':18}bound: {r.bound}")


COMMANDS = [add_verify]
