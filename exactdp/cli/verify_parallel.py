"""``exactdp verify`` beyond one process: local worker processes, a Dask cluster, a results file.

The unit of work is one check of one proof module (a claim, or one part of a claim when the
module lists ``CHECKS``).  Every unit runs exactly the code the serial path runs
(:func:`exactdp.proofs.run_check`) and sends back ``ClaimReport.to_json()``: plain strings
with the exact fractions already printed, so the merged table is the serial one, row for row,
whatever the order in which the units finish.

A unit is *not run* -- never passed -- when its worker process dies twice on it (local pool: the
parent knows which unit each worker holds, so a death is charged to that unit only), when the
Dask scheduler gives up on it (``KilledWorker``, after its ``allowed-failures``), or when the
worker ran different code from ours (a cluster with another version installed).

The results file (``--results PATH``) gets one JSON line per finished unit, appended with one
``write`` and ``fsync``; a line cut short by a crash is ignored.  Each line records the code hash
of the process that ran the unit (:func:`code_hash`: every source file of ``exactdp`` and
``proofs``, so any edit changes it) and, for people, the git commit.  ``--resume`` reuses a line only
when it is internally consistent (:func:`judge`): well formed, its sha256 digest of its
canonical JSON matching, naming a check that exists, for this grid and this code hash, and
its verdict the one its certificates give; every other line's claim runs again, and one
stderr line per reason says how many lines were not reused and why.  The digest detects
corruption and editing, not a forger who recomputes it.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exactdp import proofs
from exactdp import workers as wk
from exactdp.cli._common import progress
from exactdp.params import ExactDPError, ParameterError
from exactdp.workers import code_hash, dask_client, tree_hash

__all__ = [
    "Results",
    "ResultsFileError",
    "Unit",
    "code_hash",
    "dask_client",
    "digest",
    "judge",
    "not_run_row",
    "recomputed_verdict",
    "run_dask",
    "run_pool",
    "run_unit",
    "seconds_text",
    "split_resumed",
    "tree_hash",
    "units_of",
]

Row = dict[str, Any]
Done = Callable[["Unit", Row, int, str], None]  # unit, row, nanoseconds, code hash that ran


@dataclass(frozen=True)
class Unit:
    """One check: ``proofs.checks_of(load(module))[index]``, named ``check`` (its function)."""

    module: str
    index: int
    check: str
    claim: str

    @property
    def key(self) -> tuple[str, int, str]:
        return (self.module, self.index, self.check)


def units_of(checks: Sequence[tuple[Any, Any]]) -> list[Unit]:
    """The units of ``verify``'s ``(module, check)`` list, in its order."""
    units = []
    for module, fn in checks:
        index = next(i for i, f in enumerate(proofs.checks_of(module)) if f is fn)
        units.append(Unit(module.__name__, index, getattr(fn, "__name__", "check"),
                          str(getattr(module, "CLAIM", module.__name__))))
    return units


def run_unit(module: str, index: int, full: bool) -> Row:
    """Run one unit in this process (the worker's job): its row."""
    fn = proofs.checks_of(proofs.load(module))[index]
    return proofs.run_check(fn, full).to_json()


def seconds_text(ns: int, places: int) -> str:
    """``ns`` nanoseconds as seconds with ``places`` (1 to 9) decimals, rounded half up.

    >>> seconds_text(1_250_000_000, 1), seconds_text(999_600_000, 3), seconds_text(0, 1)
    ('1.3', '1.000', '0.0')
    """
    unit = 10**(9 - places)
    whole, frac = divmod((ns + unit // 2) // unit, 10**places)
    return f"{whole}.{frac:0{places}d}"


def not_run_row(unit: Unit, why: str) -> Row:
    """The row of a unit that did not finish: verdict ``NOT RUN``, which fails the run."""
    return {"claim": f"{unit.claim} [{unit.check}]", "grid": f"(not run: {why})",
            "worst": "-", "bound": "the check must finish", "verdict": "NOT RUN",
            "certificates": []}


def _jobs(units: Sequence[Unit], full: bool) -> list[wk.Job]:
    return [(u, run_unit, (u.module, u.index, full)) for u in units]


def _adapt(done: Done) -> tuple[wk.Done, wk.Lost]:
    """``verify``'s ``done`` as the pool's ``done`` and ``lost`` (a lost unit: NOT RUN)."""
    return (lambda u, e: done(u, e["value"], e["ns"], e["code"]),
            lambda u, why: done(u, not_run_row(u, why), 0, ""))


def run_pool(units: Sequence[Unit], full: bool, workers: int, done: Done) -> None:
    """Run ``units`` on ``workers`` local processes (:func:`exactdp.workers.run_pool`): a
    unit whose worker dies is retried once, then reported as not run."""
    wk.run_pool(_jobs(units, full), workers, *_adapt(done),
                     label=lambda u: f"{u.claim} [{u.check}]")


def run_dask(units: Sequence[Unit], full: bool, client: Any, code: str, done: Done) -> None:
    """Run ``units`` on the Dask cluster of ``client`` (:func:`exactdp.workers.run_dask`): a
    unit lost on the cluster, or run by other code than ``code``, is reported as not run."""
    wk.run_dask(_jobs(units, full), client, code, *_adapt(done), rehash=code_hash)


# --- the results file ---------------------------------------------------------------------

def _git_commit() -> str | None:
    """The commit of the source tree (recorded for people; resuming compares the code hash)."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10, cwd=Path(proofs.__file__).parent, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


class ResultsFileError(ExactDPError, ValueError):
    """The results file cannot be appended to (a full disk, an I/O error)."""


def digest(record: Row) -> str:
    """sha256 of the record's canonical JSON (sorted keys, no spaces), its ``digest`` left
    out.  It detects a corrupted or edited line, not a forger who recomputes it."""
    body = {k: v for k, v in record.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


#: Why a line of the results file was not reused (one stderr line per class that occurred).
WHY = {
    "unreadable": "unreadable (not one JSON object: cut short by a crash, or not ours)",
    "fields": "malformed (a field is missing or of the wrong type)",
    "digest": "digest does not match the content (edited or corrupted)",
    "unknown": "name no check that exists (module, check or claim unknown)",
    "grid": "recorded for the other grid",
    "code": "recorded for other code (a different hash of exactdp/ and proofs/)",
    "verdict": "verdict does not follow from its certificates",
    "not run": "record a claim that was not run",
}


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def recomputed_verdict(row: object) -> str | None:
    """The verdict a row's certificates give (``pass`` when there is at least one and every
    one passes, else ``FAIL``), or None when the row is not well formed."""
    if not isinstance(row, dict):
        return None
    if not all(isinstance(row.get(k), str) for k in ("claim", "grid", "worst", "bound")):
        return None
    certs = row.get("certificates")
    if not isinstance(certs, list):
        return None
    verdicts = [c.get("verdict") if isinstance(c, dict) else None for c in certs]
    if any(v not in ("pass", "FAIL") for v in verdicts):
        return None
    return "pass" if verdicts and all(v == "pass" for v in verdicts) else "FAIL"


def judge(record: object, units: dict[tuple[str, int, str], Unit], grid: str,
          code: str) -> str | None:
    """Why ``record`` (one parsed line) cannot be reused -- a key of :data:`WHY` -- or None
    when it can: well formed, its digest matching, naming a check that exists, for this grid
    and this code, its verdict the one its certificates give."""
    if not isinstance(record, dict):
        return "unreadable"
    fields = {"module": str, "index": int, "check": str, "claim": str, "grid": str,
              "code": str, "ns": int, "row": dict, "digest": str}
    for k, kind in fields.items():
        v = record.get(k)
        if not isinstance(v, kind) or (kind is int and not _is_int(v)):
            return "fields"
    if record["ns"] < 0:
        return "fields"
    if digest(record) != record["digest"]:
        return "digest"
    unit = units.get((record["module"], record["index"], record["check"]))
    row = record["row"]
    if unit is None or record["claim"] != unit.claim:
        return "unknown"
    if record["grid"] != grid:
        return "grid"
    if record["code"] != code:
        return "code"
    if row.get("verdict") == "NOT RUN":
        return "not run"
    if row.get("verdict") not in ("pass", "FAIL"):
        return "verdict"
    if not isinstance(row.get("claim"), str) or not row["claim"].startswith(unit.claim):
        return "unknown"
    if recomputed_verdict(row) != row["verdict"]:
        return "verdict"
    return None


class Results:
    """The JSON-lines file of finished units: one record per line, appended and fsynced.

    ``units`` are every check that exists (not only those selected): a line is reused only
    when :func:`judge` finds nothing wrong with it.
    """

    def __init__(self, path: str, resume: bool, grid: str, code: str,
                 units: Sequence[Unit] = ()) -> None:
        from exactdp.files import no_space

        self.path = Path(path)
        self.grid = grid
        self.code = code
        self.units = {u.key: u for u in units}
        self.reused: dict[tuple[str, int, str], tuple[Row, int]] = {}
        self.why: dict[str, int] = {}
        self._cut = False  # the file ends inside a line (a crash while appending)
        if not self.path.parent.is_dir():
            raise ParameterError(f"--results {path}: the directory {self.path.parent} "
                                 "does not exist")
        if self.path.exists() and not resume:
            raise ParameterError(f"--results {path} exists; pass --resume to continue from it, "
                                 "or remove it to start over")
        if self.path.exists() and not self.path.is_file():
            raise ParameterError(f"--results {path} is not a regular file")
        if no_space(self.path.parent):
            raise ParameterError(f"--results {path}: no space left on its device (nothing "
                                 f"was run)")
        if resume and self.path.exists():
            self.reused = self._read()
        self._commit = _git_commit()
        self._fd: int | None = None

    def _read(self) -> dict[tuple[str, int, str], tuple[Row, int]]:
        from exactdp.files import read_text

        reused: dict[tuple[str, int, str], tuple[Row, int]] = {}
        text = read_text(str(self.path), "--results", max_bytes=1 << 30)
        self._cut = bool(text) and not text.endswith("\n")
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                record = None
            why = judge(record, self.units, self.grid, self.code)
            if why is not None:
                self.why[why] = self.why.get(why, 0) + 1
                continue
            reused[(record["module"], record["index"], record["check"])] = (
                record["row"], record["ns"])
        for why, count in self.why.items():
            progress(f"{self.path}: {count} line(s) not reused: {WHY[why]}; their claims "
                     f"run again")
        return reused

    def add(self, unit: Unit, row: Row, ns: int, code: str) -> None:
        """Append the record of a finished unit; ``code`` is the hash of the code that ran it."""
        record: Row = {"module": unit.module, "index": unit.index, "check": unit.check,
                       "claim": unit.claim, "grid": self.grid, "code": code,
                       "commit": self._commit, "ns": ns, "row": row}
        record["digest"] = digest(record)
        try:
            if self._fd is None:
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                if self._cut:
                    os.write(self._fd, b"\n")
            os.write(self._fd, (json.dumps(record) + "\n").encode())
            os.fsync(self._fd)
        except OSError as exc:
            raise ResultsFileError(
                f"--results {str(self.path)!r}: cannot append "
                f"({exc.strerror or type(exc).__name__}); the claims recorded before are "
                f"in it and --resume continues from them") from None

    def close(self) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass
            self._fd = None


def split_resumed(units: Iterable[Unit], results: Results | None
                  ) -> tuple[list[Unit], dict[Unit, tuple[Row, int]]]:
    """The units still to run, and the rows reused from the results file."""
    todo, reused = [], {}
    for u in units:
        if results is not None and u.key in results.reused:
            reused[u] = results.reused[u.key]
        else:
            todo.append(u)
    return todo, reused
