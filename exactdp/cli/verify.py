"""``exactdp verify``: every executable proof in proofs/, one row per claim."""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

from exactdp.cli import verify_parallel as par
from exactdp.cli._common import (
    EPILOG,
    FAILED,
    OK,
    DeadlineReached,
    add_json,
    add_max_seconds,
    add_output,
    emit_json,
    output_path,
    progress,
    worker_count,
)
from exactdp.params import ParameterError
from exactdp.proofs import run_check

__all__ = ["COMMANDS", "VERIFY_MAX_SECONDS", "add_verify", "cmd_verify", "run_check"]

#: verify's default --max-seconds, above the other commands' 60 s: its work is a fixed grid
#: of claims, not the size of an input.  The quick grids take about 35 s of processor time
#: on a loaded 2-core machine, so one eight times slower still finishes them; the full grids
#: (about 20 minutes) need it raised.
VERIFY_MAX_SECONDS = 300


def add_verify(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "verify",
        help="check every claim in proofs/ exactly on the implementation",
        description="Run every executable proof in proofs/ (one per theorem/lemma of the "
                    "papers) on its parameter grid and print one row per claim: the grid "
                    "covered, the worst exact value found against the claimed bound, the "
                    "verdict and the time taken. A check that raises an error is a FAIL row "
                    "with the error, and the other claims still run. Exit status 1 if any "
                    "claim fails or is not run (its worker died).",
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
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", metavar="N",
                       help="run the claims on N local worker processes (the table is the "
                            "serial one; a claim whose worker dies twice is NOT RUN)")
    where.add_argument("--dask", metavar="ADDRESS",
                       help="run the claims on the Dask distributed scheduler at ADDRESS "
                            "(e.g. tcp://host:8786; needs pip install 'exactdp[scale]')")
    p.add_argument("--results", metavar="PATH",
                   help="append one JSON line per finished claim to PATH (fsynced), "
                        "for --resume")
    p.add_argument("--resume", action="store_true",
                   help="with --results: reuse the claims PATH records as passed or failed "
                        "for this grid and this exact code (any edit of exactdp/ or proofs/ "
                        "reruns them), a line only if its verdict follows from its "
                        "certificates and its sha256 digest matches; run the rest. The "
                        "digest detects corruption and editing, not a forger who recomputes "
                        "it")
    add_max_seconds(p, VERIFY_MAX_SECONDS,
                    what="stop after S seconds of processor time in this process (default "
                         f"{VERIFY_MAX_SECONDS}; the quick grids take under a minute, the full "
                         "ones about 20 minutes: pass "
                         "--max-seconds 3600); with --results, --resume continues")
    p.set_defaults(func=cmd_verify)


def cmd_verify(args: argparse.Namespace) -> int:
    from exactdp import proofs
    from exactdp.histograms import native

    out = output_path(args)
    full = bool(args.full)
    workers = None if args.workers is None else worker_count(args.workers)
    if args.resume and args.results is None:
        raise ParameterError("--resume continues from a results file: give --results PATH")
    checks = [(module, fn) for module in proofs.discover() for fn in proofs.checks_of(module)]
    every_unit = par.units_of(checks) if args.results is not None else []
    if args.only is not None:
        needle = args.only.strip().lower()
        if not needle:
            raise ParameterError("--only '' matches every claim; give part of a module name "
                                 "or claim (or leave --only out to run them all)")
        checks = [(m, fn) for m, fn in checks
                  if needle in m.__name__.rsplit(".", 1)[-1].lower()
                  or needle in str(getattr(m, "CLAIM", "")).lower()]
        if not checks:
            raise ParameterError(f"--only {args.only!r} matches no proof module or claim; "
                                 f"the modules are: "
                                 + ", ".join(m.__name__.split(".")[-1] for m in proofs.discover()))
    grid_name = "full" if full else "quick"
    code = par.code_hash() if args.results is not None or args.dask is not None else ""
    results = (None if args.results is None
               else par.Results(args.results, args.resume, grid_name, code, every_unit))
    client = None if args.dask is None else par.dask_client(args.dask)
    units = par.units_of(checks)
    todo, rows = par.split_resumed(units, results)
    where = ("" if workers is None and args.dask is None else
             f" on {workers} worker process(es)" if workers is not None else
             f" on the Dask scheduler {args.dask}")
    progress(f"exactdp verify ({grid_name} grids): {len(checks)} claims; CompactHistogram "
             f"arithmetic: {native.status()}"
             + (" (Theorem 8.3 (i) also runs the pure path)" if native.available() else "")
             + where + (f"; {len(rows)} reused from {args.results}"
                        if results is not None and args.resume else ""))

    def done(unit: par.Unit, row: par.Row, ns: int, ran: str) -> None:
        rows[unit] = (row, ns)
        if results is not None:
            results.add(unit, row, ns, ran)
        progress(f"[{len(rows)}/{len(units)}] {row['claim']}: "
                 f"{row['verdict']} ({par.seconds_text(ns, 1)} s)")

    try:
        if workers is not None:
            par.run_pool(todo, full, workers, done)
        elif args.dask is not None:
            par.run_dask(todo, full, client, code, done)
        else:
            for i, (module, fn) in enumerate(checks, 1):
                unit = units[i - 1]
                if unit in rows:
                    continue
                progress(f"[{i}/{len(checks)}] {module.CLAIM} ...")
                start = time.perf_counter_ns()
                report = run_check(fn, full)
                done(unit, report.to_json(), time.perf_counter_ns() - start, code)
    except (KeyboardInterrupt, DeadlineReached) as exc:
        if results is not None:
            why = "interrupted" if isinstance(exc, KeyboardInterrupt) else "stopped"
            progress(f"{why}: the {len(rows)} finished claim(s) are in {args.results}; "
                     "--resume continues")
        raise
    finally:
        if results is not None:
            results.close()
    ordered = [rows[u] for u in units]
    failed = [r["claim"] for r, _ in ordered if r["verdict"] == "FAIL"]
    not_run = [r["claim"] for r, _ in ordered if r["verdict"] == "NOT RUN"]
    payload = {"grid": grid_name, "native_arithmetic": native.status(),
               "claims": [dict(r, seconds=par.seconds_text(ns, 3)) for r, ns in ordered],
               "verdict": not failed and not not_run}
    status = FAILED if failed or not_run else OK
    if emit_json(args, payload, out):
        return status
    _print_table(ordered)
    if failed:
        print(f"\n{len(failed)} claim(s) FAILED: " + "; ".join(failed))
    if not_run:
        print(f"\n{len(not_run)} claim(s) NOT RUN (their worker died or was lost; no verdict): "
              + "; ".join(not_run))
    if status == OK:
        print(f"\nall {len(ordered)} claims pass")
    return status


def _print_table(rows: Sequence[tuple[dict[str, Any], int]]) -> None:
    """One block per claim: verdict, seconds and claim; then the grid covered, and the worst
    exact value found against the bound."""
    print(f"{'verdict':8} {'seconds':>8}  claim")
    print("-" * 78)
    for r, ns in rows:
        print(f"{r['verdict']:8} {par.seconds_text(ns, 1):>8}  {r['claim']}")
        print(f"{'':18}grid:  {r['grid']}")
        print(f"{'':18}worst: {r['worst']}")
        print(f"{'':18}bound: {r['bound']}")


COMMANDS = [add_verify]
