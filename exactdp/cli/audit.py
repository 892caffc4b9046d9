"""``exactdp audit``: white-box and black-box audits of third-party mechanisms.

Order of work: the ``--output`` path, the numbers and ranges, then the target is loaded
(import and factory under ``--time-limit``), the audit's size estimated and refused past
``--max-inputs`` / ``--max-calls`` -- all before the mechanism is sampled once.  Anything
the audited code prints goes to stderr (``--json`` keeps stdout to the JSON alone).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import re
import sys
from typing import Any

from exactdp.cli._common import (
    DEFAULT_MAX_SECONDS,
    EPILOG,
    add_json,
    add_output,
    emit_json,
    output_path,
)
from exactdp.cli._common import progress as _progress

__all__ = ["COMMANDS"]

#: The default ``--max-seconds`` of a white-box exploration (estimated before it starts,
#: enforced while it runs): every long command's default, a run past it being a hang.
AUDIT_MAX_SECONDS = DEFAULT_MAX_SECONDS

_VERDICTS = ("Verdicts (exit status): PASS, or NO VIOLATION DETECTED in black-box, never a "
             "proof of privacy (0); VIOLATION, with its exact witness, or MISMATCH with the "
             "reference (1); INCOMPLETE, an exploration stopped by its budget, a law resting "
             "on draws explored by their effect (assumed piecewise constant: never a PASS), "
             "or an audit refused, nothing audited (2); BROKEN: the mechanism raised, hung, returned a "
             "value outside the declared outputs, drew more randomness than declared or is "
             "not a function of its randomness (3). White-box runs guard the randomness the "
             "audit does not model (random, secrets, os.urandom, uuid4, random devices, clocks "
             "of time and datetime, numpy's globals and unseeded generators, id(), "
             "address-based and string hashes, process and thread ids, state kept between "
             "calls), re-run every path and replay a PASS under --hash-seeds more seeds (an "
             "escape or a set order: BROKEN; 0: PASS in this process only). Not guarded (use "
             "black-box): C extensions' generators, addresses in str(), set orders no seed "
             "tried shows.")


def _add_audit(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from exactdp.audit import DEFAULT_TIME_LIMIT, MAX_CALLS, MAX_INPUTS

    p = sub.add_parser(
        "audit", help="audit a DP mechanism against a claim (exact white-box, or black-box)",
        description="Audit TARGET (MODULE:CALLABLE, MODULE:FACTORY(literals) or "
                    "FILE.py:CALLABLE) against a claimed epsilon on the inputs RANGE. "
                    "whitebox: f(c, u) with u in [D]_+, f(c, source) (--source) or f(c, rng) "
                    "(--rng): the exact law on every input, the exact worst privacy-loss "
                    "ratio and its witness, the operation traces. blackbox: sampler(c) (--rng: "
                    "f(c, rng), a real rng), tested at false-alarm probability --alpha. "
                    + _VERDICTS,
        epilog=EPILOG)
    p.add_argument("target", metavar="TARGET")
    p.add_argument("--kind", required=True, choices=("whitebox", "blackbox"), metavar="KIND",
                   help="whitebox or blackbox")
    claim = p.add_mutually_exclusive_group(required=True)
    claim.add_argument("--claimed-epsilon", metavar="E",
                       help="the claimed epsilon, exact: 1/2, 'ln 3', '2 ln 2'")
    claim.add_argument("--ratio-bound", metavar="R",
                       help="the claim as a bound R >= 1 on e^eps")
    p.add_argument("--claimed-delta", metavar="D",
                   help="judge (eps, delta)-DP by the hockey-stick divergence")
    # A range with a negative end such as -2..2 is a value, not an option (argparse would
    # otherwise take it for one because it starts with '-').
    p._negative_number_matcher = re.compile(r"^-[0-9]+$|^-[0-9]*\.[0-9]+$|^-[0-9]+\.\.-?[0-9]+$")
    p._has_negative_number_optionals = []
    p.add_argument("--inputs", required=True, metavar="RANGE",
                   help="LO..HI (neighbours c, c+1), or 'datasets(LO..HI, N, "
                        "add-remove|replace-one)', 'vectors(P, LO..HI, BETA, "
                        "one-coordinate|l1|linf)', 'booleans(P)'")
    p.add_argument("--outputs", metavar="RANGE",
                   help="declared outputs (default: the target's; the input range unless "
                        "--rng or --source: then any exact outcome)")
    p.add_argument("--randomness-size", metavar="D",
                   help="whitebox: u in [D]_+ (default: the attribute f.d)")
    p.add_argument("--source", action="store_true",
                   help="whitebox: the callable is f(c, source)")
    p.add_argument("--monotone", action="store_true",
                   help="whitebox: f(c, u) non-decreasing in u (bisection)")
    p.add_argument("--reference", metavar="TARGET",
                   help="reference laws: a mechanism or c -> {outcome: p}")
    p.add_argument("--draws", metavar="K", help="blackbox: draws per input (default 10000)")
    p.add_argument("--alpha", metavar="A",
                   help="blackbox: false-alarm probability (default 1/100)")
    p.add_argument("--time-limit", default=str(DEFAULT_TIME_LIMIT), metavar="S",
                   help=f"seconds for the import and each call (default {DEFAULT_TIME_LIMIT})")
    p.add_argument("--max-inputs", default=str(MAX_INPUTS), metavar="N",
                   help=f"refuse more than N inputs (default {MAX_INPUTS})")
    p.add_argument("--max-calls", default=str(MAX_CALLS), metavar="N",
                   help=f"refuse more than N estimated calls (default {MAX_CALLS})")
    p.add_argument("--rng", choices=("random", "secrets", "numpy", "numpy-legacy"),
                   metavar="KIND",
                   help="f(c, rng); random, secrets, numpy(-legacy): a facade "
                        "(whitebox), a fresh generator (blackbox)")
    p.add_argument("--patch", metavar="MODULES",
                   help="with --rng: patch these modules' functions too")
    p.add_argument("--patch-attr", metavar="NAME",
                   help="with --rng: the facade as the instance's NAME")
    p.add_argument("--rng-arg", metavar="WHERE",
                   help="with --rng: the facade's position, keyword or none")
    p.add_argument("--bind", metavar="K=V,..",
                   help="keyword arguments (literals) for every call")
    p.add_argument("--max-paths", metavar="N",
                   help="whitebox: paths explored per input (default 1048576)")
    p.add_argument("--time-budget", metavar="S",
                   help="whitebox: seconds of exploration in all")
    p.add_argument("--max-seconds", metavar="S", default=str(AUDIT_MAX_SECONDS),
                   help=f"whitebox: refuse or stop past S s CPU (default {AUDIT_MAX_SECONDS})")
    p.add_argument("--wall-clock-test", metavar="N", dest="wall_clock_test",
                   help="time N calls per neighbour, KS test at --alpha (finding)")
    p.add_argument("--max-draws-per-path", metavar="N",
                   help="whitebox: cut a path after N draws (default 10000)")
    p.add_argument("--hash-seeds", metavar="N", dest="hash_seeds",
                   help="whitebox: replay a PASS under N more hash seeds (2)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", metavar="N",
                       help="whitebox: one input per job on N local processes")
    where.add_argument("--dask", metavar="ADDRESS",
                       help="whitebox: the same on a Dask scheduler ([scale])")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_json(p)
    add_output(p, "the report as JSON")
    p.add_argument("--html", metavar="FILE",
                   help="also a self-contained HTML report ([plot])")
    p.set_defaults(func=_cmd_audit)


_WHITEBOX_ONLY = (("randomness_size", "--randomness-size"),
                  ("source", "--source"), ("monotone", "--monotone"),
                  ("max_paths", "--max-paths"),
                  ("time_budget", "--time-budget"),
                  ("max_draws_per_path", "--max-draws-per-path"),
                  ("hash_seeds", "--hash-seeds"))
_BLACKBOX_ONLY = (("draws", "--draws"), ("alpha", "--alpha"))


def _refuse_misplaced(args: argparse.Namespace) -> None:
    """An option of the other kind would be silently ignored: refuse it instead."""
    from exactdp.params import ParameterError

    other: tuple[tuple[str, str], ...] = _BLACKBOX_ONLY if args.kind == "whitebox" else _WHITEBOX_ONLY
    if args.kind == "blackbox" and args.max_seconds != str(AUDIT_MAX_SECONDS):
        other += (("max_seconds", "--max-seconds"),)  # (its default is no choice)
    for attr, flag in other:
        if getattr(args, attr) not in (None, False):
            raise ParameterError(f"{flag} applies to --kind "
                                 f"{'blackbox' if args.kind == 'whitebox' else 'whitebox'} "
                                 f"only, not --kind {args.kind}")


def _budget(args: argparse.Namespace) -> dict[str, Any]:
    """``--max-paths`` / ``--time-budget`` / ``--max-draws-per-path`` as whitebox_audit
    arguments (checked)."""
    from exactdp.audit.budget import check_time_budget
    from exactdp.params import ParameterError, positive_int

    for flag, value in (("--patch", args.patch), ("--patch-attr", args.patch_attr),
                        ("--rng-arg", args.rng_arg)):
        if value is not None and args.rng is None:
            raise ParameterError(f"{flag} needs --rng (the kind of facade)")
    out: dict[str, Any] = {"time_budget": check_time_budget(args.time_budget, "--time-budget")}
    if args.max_paths is not None:
        out["max_runs"] = positive_int(args.max_paths, "--max-paths")
    if args.max_draws_per_path is not None:
        out["max_draws"] = positive_int(args.max_draws_per_path, "--max-draws-per-path")
    return out


def load_mechanism(spec: str, time_limit: int | None, rng: str | None,
                   patch: str | None, patch_attr: str | None = None,
                   rng_arg: str | None = None, bind: str | None = None) -> Any:
    """TARGET as the audit calls it: loaded (:func:`~exactdp.audit.load_target`) and, with
    ``--rng``, put behind its facade, called in the form ``--rng-arg`` / ``--bind`` /
    ``--patch`` / ``--patch-attr`` say (:func:`~exactdp.audit.callforms.call_form`).
    Module-level, so that the workers of ``--workers`` / ``--dask`` rebuild the mechanism
    by this same function (:mod:`exactdp.audit.parallel`)."""
    import functools

    from exactdp.audit import load_target
    from exactdp.audit.targets import parse_bind

    target = load_target(spec, time_limit, what="target")
    kw = parse_bind(bind) if bind else {}
    if rng is None:
        return functools.partial(target, **kw) if kw else target
    return _facade(target, spec, rng, patch, patch_attr, rng_arg, kw)


#: The generator a black-box audit hands the code for ``--rng KIND``: the real one, seeded
#: by the operating system (what the code would get in use).
_REAL_GENERATORS = {"random": ("random", "Random"), "secrets": ("secrets", "SystemRandom"),
                    "numpy": ("numpy.random", "default_rng"),
                    "numpy-legacy": ("numpy.random", "RandomState")}


def load_sampler(spec: str, time_limit: int | None, rng: str | None, patch: str | None,
                 patch_attr: str | None, rng_arg: str | None, bind: str | None) -> Any:
    """TARGET as a black-box audit samples it: ``sampler(c)``; with ``--rng``, called in
    the form ``--rng-arg`` / ``--bind`` say with one real generator of that kind (seeded by
    the operating system), or as ``f(c)`` when ``--patch`` / ``--patch-attr`` say the code
    draws from a module or its instance (left as they are: their own randomness is
    sampled)."""
    import importlib

    from exactdp.audit import load_target
    from exactdp.audit.callforms import call_form, parse_rng_arg
    from exactdp.audit.targets import parse_bind

    if rng is None:
        return load_mechanism(spec, time_limit, rng, patch, patch_attr, rng_arg, bind)
    target = load_target(spec, time_limit, what="target")
    kw = parse_bind(bind) if bind else {}
    fn = call_form(target, parse_rng_arg(rng_arg), kw, patching=bool(patch or patch_attr),
                   name=spec.rpartition(":")[2])
    module, maker = _REAL_GENERATORS[rng]
    generator = getattr(importlib.import_module(module), maker)()

    def sampler(c: Any) -> Any:
        return fn(c, generator)

    sampler.__qualname__ = sampler.__name__ = spec.rpartition(":")[2]
    return sampler


def _spread(args: argparse.Namespace, time_limit: int | None, progress: Any) -> Any:
    """The :class:`~exactdp.audit.parallel.Spread` of ``--workers`` / ``--dask`` (None:
    serial); checked, and the Dask scheduler reached, before any work."""
    from exactdp.params import ParameterError

    if args.workers is None and args.dask is None:
        return None
    flag = "--workers" if args.workers is not None else "--dask"
    if args.kind == "blackbox":
        raise ParameterError(f"{flag} applies to --kind whitebox only: a black-box audit "
                             "samples the mechanism's own randomness, so its draws cannot be "
                             "split among processes and merged into the serial report "
                             "(run it serially)")
    from exactdp import workers
    from exactdp.audit.parallel import Spread

    loader = _loader(args, time_limit)
    if args.workers is not None:
        from exactdp.cli._common import worker_count

        return Spread(loader, workers=worker_count(args.workers),
                      progress=progress)
    return Spread(loader, client=workers.dask_client(args.dask), code=workers.code_hash(),
                  progress=progress)


def _hash_seeds(args: argparse.Namespace) -> int:
    """``--hash-seeds N`` (default 2; 0: a PASS in this process only)."""
    from exactdp.audit.hash_seed import SEEDS
    from exactdp.params import ParameterError

    if args.hash_seeds is None:
        return SEEDS
    text = str(args.hash_seeds).strip()
    if not text.isdigit() or int(text) > 64:
        raise ParameterError(f"--hash-seeds {args.hash_seeds!r} must be an int from 0 to 64 "
                             f"(the number of other processes a PASS is replayed in)")
    return int(text)


def _loader(args: argparse.Namespace, time_limit: int | None) -> Any:
    """How another process rebuilds TARGET: its text and options, by
    :func:`load_mechanism` (the workers; the hash-seed confirmation)."""
    from exactdp.audit.parallel import Loader

    return Loader(load_mechanism, (args.target, time_limit, args.rng, args.patch,
                                   args.patch_attr, args.rng_arg, args.bind))


def _facade(target: Any, spec: str, rng: str, patch: str | None, patch_attr: str | None,
            rng_arg: str | None, bind: dict[str, Any]) -> Any:
    """TARGET behind a facade of kind ``--rng`` (modules of ``--patch`` imported here, under
    the same import rules as the target)."""
    import importlib

    from exactdp.audit.callforms import call_form, parse_rng_arg
    from exactdp.audit.facades import facade_mechanism
    from exactdp.params import ParameterError

    modules = []
    for name in patch.split(",") if patch else []:
        try:
            modules.append(importlib.import_module(name.strip()))
        except ImportError as exc:
            raise ParameterError(f"--patch: module {name.strip()!r} does not import "
                                 f"({exc})") from None
    attributes = []
    if patch_attr is not None:
        name = patch_attr.strip()
        owner = getattr(target, "__self__", target)
        if not name.isidentifier() or not hasattr(owner, name):
            raise ParameterError(f"--patch-attr {patch_attr!r}: the target's object "
                                 f"{type(owner).__name__} has no attribute {name!r}; name "
                                 f"the attribute holding its generator (e.g. _rng), with a "
                                 f"bound method as TARGET (MODULE:Class(args).method)")
        attributes.append((owner, name))
    fn = call_form(target, parse_rng_arg(rng_arg), bind,
                   patching=bool(modules or attributes), name=spec.rpartition(":")[2])
    return facade_mechanism(fn, rng, patch_modules=modules, patch_attributes=attributes)


def _cmd_audit(args: argparse.Namespace) -> int:
    from exactdp.audit import (
        blackbox_audit,
        check_alpha,
        check_delta,
        check_epsilon,
        check_time_limit,
        load_target,
        parse_range,
        whitebox_audit,
    )
    from exactdp.audit.inputs import parse_inputs
    from exactdp.audit.targets import declared
    from exactdp.counting import InverseCDFSampler
    from exactdp.params import positive_int

    out = output_path(args)
    html_out = None
    if args.html is not None:
        from exactdp.files import OutputPath
        from exactdp.plot.draw import require_matplotlib

        html_out = OutputPath.check(args.html, args.force, "--html")
        require_matplotlib()
    _refuse_misplaced(args)
    progress = None if args.quiet else _progress
    if args.ratio_bound is not None:
        from exactdp.claims import ratio_claim

        eps = check_epsilon(ratio_claim(args.ratio_bound, "--ratio-bound"), "--ratio-bound")
    else:
        eps = check_epsilon(args.claimed_epsilon, "--claimed-epsilon")
    delta = check_delta(args.claimed_delta or "0", "--claimed-delta")
    alpha = check_alpha(args.alpha or "1/100", "--alpha")
    draws = positive_int(args.draws or "10000", "--draws")
    time_limit = check_time_limit(args.time_limit, "--time-limit")
    max_inputs = positive_int(args.max_inputs, "--max-inputs")
    max_calls = positive_int(args.max_calls, "--max-calls")
    budget = _budget(args)
    max_seconds = positive_int(args.max_seconds, "--max-seconds")
    spread = _spread(args, time_limit, progress)
    size = positive_int(args.randomness_size, "--randomness-size") \
        if args.randomness_size else None
    spec = parse_inputs(args.inputs, "--inputs")
    inputs, neighbours = spec.inputs, spec.neighbours
    outputs = parse_range(args.outputs, "--outputs") if args.outputs else None
    limits: dict[str, Any] = {"time_limit": time_limit, "max_inputs": max_inputs,
                              "max_calls": max_calls}
    report: Any
    # The audited code's prints must not mix into the report (--json: stdout is JSON only).
    with contextlib.redirect_stdout(sys.stderr), contextlib.ExitStack() as closing:
        if spread is not None:
            closing.callback(spread.close)  # the Dask client, also when the audit raises
        target = (load_mechanism if args.kind == "whitebox" else load_sampler)(
            args.target, time_limit, args.rng, args.patch, args.patch_attr, args.rng_arg,
            args.bind)
        reference = load_target(args.reference, time_limit, what="--reference",
                                allow_mapping=True) if args.reference else None
        # Documented default: the input range, for f(c, u) and samplers; code audited through
        # a facade or a source returns whatever it computes (labels, noisy counts past the
        # inputs, tuples), every exact outcome explored, so nothing is declared for it.
        if outputs is None and declared(target, "outputs") is None \
                and isinstance(inputs, range) and not isinstance(target, InverseCDFSampler) \
                and not (args.rng or args.source):
            outputs = inputs
        if args.kind == "whitebox":
            if spread is None:  # --max-seconds: this process's processor time
                from exactdp.audit.cost import cpu_limit

                closing.enter_context(cpu_limit(max_seconds))
            report = whitebox_audit(
                target, inputs=inputs, neighbours=neighbours, claimed_epsilon=eps,
                claimed_delta=delta, kind="source" if args.source else "auto",
                d=None if args.source else size,
                randomness_size=size if args.source else None, outputs=outputs,
                monotone=True if args.monotone else None, reference=reference,
                progress=progress, spread=spread, **budget, **limits,
                max_seconds=max_seconds,
                hash_seeds=_hash_seeds(args), rebuild=_loader(args, time_limit),
                notice=lambda line: print(line, file=sys.stderr, flush=True))
        else:
            report = blackbox_audit(
                target, inputs=inputs, neighbours=neighbours, claimed_epsilon=eps,
                claimed_delta=delta, draws=draws, alpha=alpha,
                reference=reference, outputs=outputs, progress=progress, **limits)
    if args.wall_clock_test is not None:
        report = _wall_clock(args, target, inputs, neighbours, alpha, report)
    from exactdp.audit.provenance import command_line

    report = dataclasses.replace(report, command=command_line(args.argv_),
                                 relation=spec.relation)
    if html_out is not None:
        from exactdp.audit.html import html_report

        html_out.write(html_report(report, report.command))
    if not emit_json(args, report.to_json(), out):
        print(report.summary())
    return int(report.exit_code)


def _wall_clock(args: argparse.Namespace, target: Any, inputs: Any, neighbours: Any,
                alpha: Any, report: Any) -> Any:
    """``--wall-clock-test N``: the black-box timing test on the first neighbouring pair,
    added to the report as a finding (:mod:`exactdp.audit.wallclock`)."""
    import random

    from exactdp.audit.facades import FacadeMechanism
    from exactdp.audit.guard import Finding
    from exactdp.audit.wallclock import wall_clock_test
    from exactdp.params import ParameterError, positive_int

    n = positive_int(args.wall_clock_test, "--wall-clock-test")
    if args.kind == "blackbox":
        sampler = target
    elif isinstance(target, FacadeMechanism):
        def sampler(c: Any) -> Any:  # the code with real randomness, as it runs shipped
            return target.fn(c, random.Random())
    else:
        raise ParameterError("--wall-clock-test needs --kind blackbox or --rng (code that "
                             "draws its own randomness)")
    a, b = neighbours[0] if neighbours else (inputs[0], inputs[1])
    with contextlib.redirect_stdout(sys.stderr):
        result = wall_clock_test(sampler, a, b, max(n, 2), alpha)
    finding = Finding("wall_clock", result.summary(),
                      {"inputs": [a, b], "draws": n, "statistic": result.statistic,
                       "threshold_squared": result.threshold, "differ": result.differ,
                       "median_ns": list(result.median_ns), "alpha": result.alpha})
    return dataclasses.replace(report, findings=report.findings + (finding,))


COMMANDS = [_add_audit]
