"""``exactdp audit``: white-box and black-box audits of third-party mechanisms."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from exactdp.cli._common import add_json, add_output, emit_json, output_path, progress as _progress



def _add_audit(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "audit", help="audit a third-party DP mechanism (exact white-box or sampling black-box)",
        description="Audit MODULE:CALLABLE (or MODULE:FACTORY(k=literal, ...)) against a "
                    "claimed epsilon on the inputs RANGE (e.g. 0..8; neighbours c and c+1). "
                    "whitebox: the callable is f(c, u) with u in [D]_+ (D from "
                    "--randomness-size or the attribute f.d), or with --source f(c, source) "
                    "drawing from an exactdp RandomSource; its exact distribution on every "
                    "input gives the exact worst privacy-loss ratio p/q with its witness. "
                    "blackbox: the callable is sampler(c); samples are tested against the "
                    "reference (--reference or sampler.reference) with false-alarm probability "
                    "alpha, and the privacy loss is bounded from below. Exit status: 0 no "
                    "violation, 1 violation or mismatch detected, 2 bad arguments, 3 the "
                    "mechanism is broken (raised, hung, left its range).")
    p.add_argument("target", metavar="MODULE:CALLABLE")
    p.add_argument("--kind", required=True, choices=("whitebox", "blackbox"))
    p.add_argument("--claimed-epsilon", required=True, metavar="E", help="e.g. 1/2")
    p.add_argument("--claimed-delta", default="0", metavar="DELTA",
                   help="whitebox: judge (eps, delta)-DP by the hockey-stick divergence")
    p.add_argument("--inputs", required=True, metavar="RANGE", help="e.g. 0..8")
    p.add_argument("--outputs", metavar="RANGE",
                   help="declared outputs (default: f.outputs, else the input range)")
    p.add_argument("--randomness-size", metavar="D",
                   help="whitebox: u in [D]_+ (with --source: bound on the product of the "
                        "draws' domain sizes)")
    p.add_argument("--source", action="store_true",
                   help="whitebox: the callable is f(c, source), drawing from a RandomSource")
    p.add_argument("--monotone", action="store_true",
                   help="whitebox: f(c, u) is non-decreasing in u (allows threshold search "
                        "when D is too large to enumerate)")
    p.add_argument("--reference", metavar="MODULE:CALLABLE",
                   help="reference distributions: an exactdp mechanism or c -> {outcome: p}")
    p.add_argument("--draws", default="10000", metavar="K",
                   help="blackbox: draws per input (default 10000)")
    p.add_argument("--alpha", default="1/100", metavar="A",
                   help="blackbox: false-alarm probability of the audit (default 1/100)")
    p.add_argument("--time-limit", default="10", metavar="S",
                   help="seconds allowed for one call of the mechanism (default 10)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_json(p)
    add_output(p, "the report as JSON")
    p.set_defaults(func=_cmd_audit)


def _cmd_audit(args: argparse.Namespace) -> int:
    from exactdp.audit import blackbox_audit, load_target, parse_range, whitebox_audit
    from exactdp.params import positive_int

    out = output_path(args)
    progress = None if args.quiet else _progress
    target = load_target(args.target)
    inputs = parse_range(args.inputs)
    outputs = parse_range(args.outputs) if args.outputs else None
    reference = load_target(args.reference) if args.reference else None
    time_limit = positive_int(args.time_limit, "time-limit")
    report: Any
    if args.kind == "whitebox":
        size = positive_int(args.randomness_size, "randomness-size") \
            if args.randomness_size else None
        report = whitebox_audit(
            target, inputs=inputs, claimed_epsilon=args.claimed_epsilon,
            claimed_delta=args.claimed_delta, kind="source" if args.source else "auto",
            d=None if args.source else size, randomness_size=size if args.source else None,
            outputs=outputs, monotone=True if args.monotone else None, reference=reference,
            time_limit=time_limit, progress=progress)
    else:
        report = blackbox_audit(
            target, inputs=inputs, claimed_epsilon=args.claimed_epsilon,
            draws=positive_int(args.draws, "draws"), alpha=args.alpha, reference=reference,
            outputs=outputs, time_limit=time_limit, progress=progress)
    if not emit_json(args, report.to_json(), out):
        print(report.summary())
    return int(report.exit_code)




COMMANDS = [_add_audit]
