"""Run ``exactdp verify --quick``'s checks in a copy of the tree, one JSON line per row.

Used by ``mutate.py`` (run with ``PYTHONPATH=<copy>`` and the copy as working directory):

    python _verify_driver.py --root COPY [--module exactdp.counting] [--names GeoSample,...]
        [--all-rows]

It runs exactly the checks ``exactdp verify --quick`` runs (``proofs.discover()`` and
``proofs.checks_of``, each through the CLI's own ``run_check`` wrapper, on the quick grids),
but the proof modules that mention one of ``--names`` (the mutated function or class) come
first, then those that mention ``--module``, and it stops at the first failing
row unless ``--all-rows`` is given: a kill is found in seconds instead of after every claim.
A mutant passes this driver exactly when every row of ``exactdp verify --quick`` passes.

Exit status: 0 every row passed; 1 a row failed (its JSON line says whether the check raised);
3 the driver could not run the checks (an import failed, or the copy is not what is imported).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from pathlib import Path

RAISED_GRID = "(the check raised before finishing)"


def _mentions(module: object, needles: list[str]) -> bool:
    """Whether the proof module's source, or a private ``_x`` helper it names (beside it or
    shared at the top of ``proofs/``), mentions any of ``needles``."""
    path = Path(getattr(module, "__file__", "") or "")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return False
    texts = [text]
    helpers = [*path.parent.glob("_*.py"), *path.parent.parent.glob("_*.py")]
    for helper in helpers:
        if helper.stem != "__init__" and helper.stem in text:
            texts.append(helper.read_text(encoding="utf-8"))
    return any(n in t for n in needles for t in texts)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--root", required=True)
    p.add_argument("--module", default="")
    p.add_argument("--names", default="", help="comma-separated names to rank first")
    p.add_argument("--all-rows", action="store_true")
    args = p.parse_args(argv)
    try:
        sys.set_int_max_str_digits(0)  # as exactdp.cli.main does
        root = Path(args.root).resolve()
        import exactdp
        from exactdp import proofs
        for mod in (exactdp, proofs):
            where = Path(mod.__file__ or "").resolve()
            if not where.is_relative_to(root):
                print(json.dumps({"error": f"{mod.__name__} imported from {where}, not from "
                                           f"the copy {root}"}), flush=True)
                return 3
        from exactdp.cli.verify import run_check

        modules = proofs.discover()
    except Exception:  # noqa: BLE001 - whatever the mutant broke, report it as a crash
        print(json.dumps({"error": "import failed: " + traceback.format_exc(limit=3)[-2000:]}),
              flush=True)
        return 3
    needles = []
    if args.module:
        parts = args.module.split(".")
        needles = [args.module, ".".join(parts[-2:]), f"import {parts[-1]}"]
    names = [n for n in args.names.split(",") if n]
    order = sorted(range(len(modules)),
                   key=lambda i: (not (names and _mentions(modules[i], names)),
                                  not (needles and _mentions(modules[i], needles)), i))
    failed = False
    for i in order:
        module = modules[i]
        for fn in proofs.checks_of(module):
            start = time.perf_counter()
            report = run_check(fn, False)
            row = {"module": module.__name__, "claim": report.claim,
                   "verdict": bool(report.verdict), "raised": report.grid == RAISED_GRID,
                   "worst": str(report.worst)[:400],
                   "seconds": round(time.perf_counter() - start, 3)}
            print(json.dumps(row), flush=True)
            if not report.verdict:
                failed = True
                if not args.all_rows:
                    return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
