"""``exactdp project signs | values``: private (sign) random projections of integer vectors
(Li & Li, paper 001).

``signs`` releases randomized-response signs of projections (Algorithm 8 DP-SignOPORP-RR and
-smooth, with ``t`` repetitions; Algorithm 6 DP-SignRP-RR with ``N+ = k``; Algorithm 7
DP-SignRP-RR-smooth); ``values`` releases noisy integer projections (Algorithm 5 DP-OPORP,
Algorithm 2 DP-RP with a Rademacher W) or the raw-data baseline, with a clamped two-sided
geometric (discrete Laplace) noise: pure eps-DP.  The vectors come from a CSV or NPY file of
integers (:mod:`exactdp.cli.proj_input`).

Order of work: the output path is checked, the whole
input is read and validated against the public bound, the exact parameters are derived; only
then is any randomness drawn: first the public plan seed (if none was given), then the noise.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from array import array
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from exactdp.cli._common import (
    EPILOG,
    OK,
    add_input_limit,
    add_max_seconds,
    add_output,
    clip_value,
    epsilon_in_range,
    input_limit,
    max_seconds,
    output_path,
    per_call_ns,
    progress,
    refuse_if_slow,
    seeded_source,
)
from exactdp.cli.random_source import add_random_source, release_source_of
from exactdp.files import InputFileError
from exactdp.params import ParameterError, positive_int

__all__ = ["COMMANDS"]

#: The public plan seed drawn when none is given: uniform on [1, 2^128].
PLAN_SEED_RANGE = 1 << 128
#: Clamping margin of the noisy values: the geometric's mass beyond it is at most 2^-TAIL_BITS.
TAIL_BITS = 40

SIGN_METHODS = {
    "oporp-smooth": "Algorithm 8, DP-SignOPORP-RR-smooth (the paper's recommended method)",
    "oporp-rr": "Algorithm 8, DP-SignOPORP-RR",
    "rp-rr": "Algorithm 6, DP-SignRP-RR with N+ = k (pure eps)",
    "rp-smooth": "Algorithm 7, DP-SignRP-RR-smooth",
}
VALUE_METHODS = {
    "oporp": "Algorithm 5, DP-OPORP (one bin moves by at most beta)",
    "rp": "Algorithm 2, DP-RP with a Rademacher W (Delta_1 = beta * k)",
    "raw": "the raw-data baseline (noise on every coordinate)",
}

NOTATION = (
    "Each input vector has p integer coordinates in [-C, C] (--bound: quantise real data to a "
    "grid first); neighbours differ in ONE coordinate of one vector by at most beta grid "
    "steps (--beta). Every probability uses a rational base rho = a/b rounded DOWN below "
    "e^(eps per unit).")
PUBLIC = (
    "The projection is public: it is rebuilt from the PLAN SEED written in the output "
    "(--plan-seed reuses one; default: drawn from the OS). The noise comes from the OS; "
    "--seed makes it predictable: never release such output.")


def add_project(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "project", help="private sign / value random projections of integer vectors (Li & Li)",
        description="Private random projections (Li & Li): 'signs' releases "
                    "randomized-response signs, 'values' noisy integer projections. "
                    + NOTATION, epilog=EPILOG)
    kinds = p.add_subparsers(dest="kind", required=True, metavar="KIND")
    s = kinds.add_parser(
        "signs", help="privatised signs of OPORP / RP projections (Algorithms 6-8)",
        description="Release k signs per input vector, each kept with probability "
                    "rho^L/(rho^L + 1): L = 1 for the RR methods, ceil(|x_j| / unit) for the "
                    "smooth ones; a projection equal to 0 gets a fair coin. Pure eps-DP per "
                    "vector. " + NOTATION + " " + PUBLIC, epilog=EPILOG)
    s.add_argument("--method", choices=list(SIGN_METHODS), default="oporp-smooth", metavar="M",
                   help="oporp-smooth (default), oporp-rr (Alg 8), rp-rr (6), rp-smooth (7)")
    s.add_argument("--repetitions", default="1", metavar="T",
                   help="OPORP: t plans of k/t bins, eps/t each (t | k)")
    s.add_argument("--l-max", metavar="L",
                   help="smooth methods: public cap on the level L")
    v = kinds.add_parser(
        "values", help="noisy integer projections (DP-OPORP, DP-RP, raw data)",
        description="Release k noisy integers per input vector: projection + Z, Z a "
                    "two-sided geometric (discrete Laplace) of ratio r = 1/rho with "
                    "rho^Delta_1 <= e^eps (Delta_1 = beta for OPORP and raw data, beta * k for "
                    "RP), clamped to the public range of the projections widened by a margin "
                    f"holding all but 2^-{TAIL_BITS} of the noise (clamping is "
                    "post-processing). Pure eps-DP per vector. " + NOTATION + " " + PUBLIC,
        epilog=EPILOG)
    v.add_argument("--method", choices=list(VALUE_METHODS), default="oporp", metavar="M",
                   help="oporp (default, Alg 5), rp (Alg 2) or raw (no projection)")
    for q in (s, v):
        q.add_argument("file", metavar="FILE",
                       help="CSV (a vector a line) or integer NPY; '-': CSV on stdin")
        q.add_argument("--header", action="store_true",
                       help="the CSV's first line is a header (else only a line with no "
                            "number is)")
        q.add_argument("--k", required=q is s, metavar="K",
                       help="number of bins / projections")
        q.add_argument("--epsilon", required=True, metavar="E",
                       help="privacy budget of the whole release, at most 1000")
        q.add_argument("--beta", required=True, metavar="B",
                       help="largest change of one coordinate, in grid steps")
        q.add_argument("--bound", required=True, metavar="C",
                       help="public bound: every input value lies in [-C, C]")
        q.add_argument("--max-denominator", default="64", metavar="N",
                       help="largest b of the base rho = a/b (default 64)")
        q.add_argument("--plan-seed", metavar="S",
                       help="public seed of the projection (default: from the OS)")
        q.add_argument("--seed", metavar="S",
                       help="seed of the NOISE (reproducible, NOT for releases)")
        add_random_source(q)
        q.add_argument("--json", action="store_true",
                       help="JSON instead of CSV")
        add_output(q, "the release")
        add_input_limit(q)
        add_max_seconds(q)
        q.set_defaults(func=cmd_project)


COMMANDS = [add_project]


def _int_option(value: str | None, name: str) -> int | None:
    if value is None:
        return None
    if not re.fullmatch(r"-?[0-9]+", value.strip(), re.ASCII) or len(value) > 100:
        raise ParameterError(f"{name} = {value!r:.60} must be an integer")
    return int(value)


def _check_bound(rows: list[tuple[int, ...]], bound: int, path: str) -> None:
    for r, row in enumerate(rows, 1):
        for c, val in enumerate(row, 1):
            if abs(val) > bound:
                raise InputFileError(f"input {path!r} vector {r}, value {c}: {val} is outside "
                                     f"[-{bound}, {bound}] (--bound); raise --bound or clip "
                                     f"the data first")


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _plan_source(seed: int | None) -> tuple[Any, int]:
    """The public plan's source and seed: called after every check, as the first draw."""
    from exactdp.randomness import SystemSource

    if seed is None:
        seed = SystemSource().uniform(PLAN_SEED_RANGE)
    return seeded_source(seed), seed


def _sign_mechanism(args: argparse.Namespace, p: int, k: int, beta: int, bound: int,
                    eps: Fraction, maxden: int, seed: int | None
                    ) -> tuple[Any, dict[str, str], Any]:
    from exactdp.projections import (
        DPSignOPORP,
        DPSignOPORPRepeated,
        DPSignRPRR,
        DPSignRPSmooth,
        OPORPPlan,
        SmoothFlipper,
        largest_l_max,
        sample_rademacher,
    )
    from exactdp.projections.rr import MAX_DENOMINATOR_BITS

    method = args.method
    oporp = method.startswith("oporp")
    t = positive_int(args.repetitions, "--repetitions")
    if not oporp and t != 1:
        raise ParameterError(f"--repetitions = {t}: only the OPORP methods repeat")
    if k % t:
        raise ParameterError(f"--repetitions = {t} must divide --k = {k}")
    rho = _base_within(eps, t if oporp else k, maxden)
    smooth = method.endswith("smooth")
    if smooth:
        width = _ceil_div(p, k // t) if oporp else p
        top = max(1, _ceil_div(bound * width, beta))  # |x_j| <= C * (coordinates in x_j)
        cap = _int_option(args.l_max, "--l-max")
        l_max = (positive_int(cap, "--l-max") if cap is not None
                 else max(1, min(top, largest_l_max(rho, MAX_DENOMINATOR_BITS))))
    else:
        if args.l_max is not None:
            raise ParameterError("--l-max applies to the smooth methods only")
        l_max = 1
    flipper = SmoothFlipper(rho, l_max)
    plan_src, seed = _plan_source(seed)
    if oporp:
        runs = tuple(DPSignOPORP(OPORPPlan.sample(p, k // t, plan_src), beta, rho, l_max,
                                 smooth) for _ in range(t))
        mech: Any = runs[0] if t == 1 else DPSignOPORPRepeated(runs)
        power = t
    else:
        w = sample_rademacher(p, k, plan_src)
        mech = DPSignRPSmooth(w, beta, rho, l_max) if smooth else DPSignRPRR(w, rho)
        power = k
    info = {"plan_seed": str(seed), "rho": f"{rho.a}/{rho.b}", "repetitions": str(t),
            "L_max": str(l_max), "D_bits": str(flipper.denominator.bit_length()),
            "privacy_ratio": f"({rho.a}/{rho.b})^{power}"}
    return mech, info, projection_spend(Fraction(rho.a, rho.b), power, eps)


def _value_mechanism(args: argparse.Namespace, p: int, k: int, beta: int, bound: int,
                     eps: Fraction, maxden: int, seed: int | None
                    ) -> tuple[Any, dict[str, str], Any]:
    from exactdp.noise import ClampedGeometric
    from exactdp.projections import (
        DPOPORP,
        DPRP,
        OPORPPlan,
        RawData,
        sample_rademacher,
    )

    method = args.method
    sens, top = {"oporp": (beta, bound * (p // k)), "rp": (beta * k, bound * p),
                 "raw": (beta, bound)}[method]
    rho = _base_within(eps, sens, maxden)
    ratio = Fraction(rho.b, rho.a)  # r = 1/rho: rounded UP, r^-Delta_1 = rho^Delta_1 <= e^eps
    margin = _margin(ratio)
    noise = ClampedGeometric(ratio, -top - margin, top + margin, -top, top)
    plan_src, seed = _plan_source(seed)
    mech: Any = (DPOPORP(OPORPPlan.sample(p, k, plan_src), beta, noise) if method == "oporp"
                 else DPRP(sample_rademacher(p, k, plan_src), beta, noise) if method == "rp"
                 else RawData(p, beta, noise))
    info = {"plan_seed": str(seed), "noise_ratio": f"{ratio.numerator}/{ratio.denominator}",
            "sensitivity_l1": str(sens), "clamp": f"[{-top - margin},{top + margin}]",
            "privacy_ratio": f"({rho.a}/{rho.b})^{sens}"}
    return mech, info, projection_spend(Fraction(rho.a, rho.b), sens, eps)


def _base_within(eps: Fraction, power: int, maxden: int) -> Any:
    """The base ``rho = a/b`` (``b <= maxden``) with ``rho^power <= e^eps`` closest to it;
    a budget below the smallest such spend, ``power ln((maxden + 1)/maxden)``, is refused
    naming it."""
    from exactdp.projections import base_from_eps
    from exactdp.spend import EpsilonRangeError, Spend

    smallest = Spend(Fraction(power), Fraction(maxden + 1, maxden))
    if not smallest.at_most(eps):
        raise EpsilonRangeError(
            f"--epsilon = {eps} is below the smallest budget this release can spend, "
            f"{smallest.expression()} (<= {smallest.to_json()['epsilon_upper']}: a base "
            f"rho = a/b > 1 with b <= --max-denominator {maxden}, to the power {power}); the "
            f"range is [{smallest.expression()}, 1000]: raise --max-denominator")
    return base_from_eps(eps, power, maxden)


def projection_spend(rho: Fraction, power: int, eps: Fraction) -> Any:
    """What the release spends: ``power ln(rho)`` (per vector and per changed coordinate,
    the paper's neighbours), checked against the budget ``eps``."""
    from exactdp.spend import Spend

    spent = Spend(Fraction(power), rho, requested=eps,
                  composition=f"the whole release: a changed coordinate meets {power} "
                              f"randomized responses or noisy values, each ln(rho)",
                  meaning=f"the paper's eps (Li & Li) with its base e^(eps/{power}) rounded "
                          f"down to rho = {rho}: rho^{power} <= e^eps")
    if not spent.at_most(eps):  # never: the base is chosen with rho^power <= e^eps
        raise ParameterError(f"the release would spend {spent.expression()} > --epsilon {eps}")
    return spent


def _margin(r: Fraction) -> int:
    """The least m with r^m <= 2^-TAIL_BITS (exact integers: b^m 2^T <= a^m for r = b/a)."""
    a, b = r.denominator, r.numerator
    hi = 1
    while b**hi << TAIL_BITS > a**hi:
        hi *= 2
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if b**mid << TAIL_BITS <= a**mid else (mid, hi)
    return hi


def cmd_project(args: argparse.Namespace) -> int:
    from exactdp.cli.proj_input import read_vectors
    from exactdp.projections import pad_to_multiple
    from exactdp.randomness import RandomSource
    from exactdp.spend import budget

    out = output_path(args)
    beta = positive_int(args.beta, "--beta")
    bound = positive_int(args.bound, "--bound")
    maxden = positive_int(args.max_denominator, "--max-denominator")
    eps = epsilon_in_range(budget(args.epsilon, "--epsilon"))
    plan_seed = _int_option(args.plan_seed, "--plan-seed")
    noise_seed = _int_option(args.seed, "--seed")
    rows = read_vectors(args.file, input_limit(args), args.header)
    _check_bound(rows, bound, args.file)
    p_in = len(rows[0])
    raw = args.kind == "values" and args.method == "raw"
    if args.k is None and not raw:
        raise ParameterError(f"--k is required for --method {args.method}")
    k = positive_int(p_in if args.k is None else args.k, "--k")
    if k > p_in:
        raise ParameterError(f"--k = {clip_value(k)} is above p = {p_in}, the length of the "
                             f"input vectors: a projection releases at most p values (k bins "
                             f"or projections of the p coordinates)")
    if raw and k != p_in:
        raise ParameterError(f"--k = {k}: the raw-data baseline releases all p = {p_in} "
                             f"coordinates; leave --k out or pass --k {p_in}")
    if args.method.startswith("oporp"):
        rows = [pad_to_multiple(r, k) for r in rows]
    p = len(rows[0])
    # The builders check every parameter, then draw the public plan seed (if not given);
    # the noise comes after.
    build = _sign_mechanism if args.kind == "signs" else _value_mechanism
    mech, info, spent = build(args, p, k, beta, bound, eps, maxden, plan_seed)
    _check_cost(mech, rows, bound, k, max_seconds(args))
    noise: RandomSource
    if noise_seed is not None:
        noise = seeded_source(noise_seed)
        progress("warning: --seed makes the noise predictable; never release this output")
    else:
        noise = release_source_of(args)
    header = {"command": f"exactdp project {args.kind}", "method": args.method,
              "p": str(p_in), "p_padded": str(p), "k": str(k), "beta": str(beta),
              "bound": str(args.bound), "epsilon": str(eps), **info}
    released = _released(mech, rows, bound, noise)
    if args.json:
        pieces = _json_pieces(header, spent.to_json(), released)
    else:
        j = spent.to_json()
        header["spent"] = f"{j['epsilon']} in [{j['epsilon_lower']} {j['epsilon_upper']}]"
        pieces = _csv_pieces(header, released)
    if out is not None:
        out.write_stream(pieces)
        if args.json:  # --json prints what was written, JSON only
            sys.stdout.write(out.path.read_text(encoding="utf-8"))
        else:
            progress(f"wrote {len(rows)} vectors of {k} values to {args.output}")
    else:
        sys.stdout.writelines(pieces)
        sys.stdout.flush()
    return OK


def _check_cost(mech: Any, rows: list[tuple[int, ...]], bound: int, k: int,
                limit: int) -> None:
    """Refuse, before any noise is drawn, a release estimated past ``limit`` seconds: the
    time of one vector's release (timed with a throwaway seeded source, never released)
    times the number of vectors.  Needed up front: on standard output the release streams
    as it is drawn, so the deadline ends with its first line."""
    trial = seeded_source(0)
    one = per_call_ns(lambda: list(_released(mech, rows[:1], bound, trial)))
    refuse_if_slow(f"releasing {len(rows)} vector(s) of {k} values", len(rows) * one, limit,
                   "use fewer vectors or a smaller --k")


def _released(mech: Any, rows: list[tuple[int, ...]], bound: int,
              noise: Any) -> Iterator[list[int]]:
    """The privatised rows: the OPORP sign mechanisms release the whole batch at once
    (``sample_batch``: the C kernel when built; the same law, one ``uniform(D)`` per bit),
    everything else row by row with ``sample``."""
    if hasattr(mech, "sample_batch") and bound < 1 << 31:
        yield from mech.sample_batch(array("i", [v for row in rows for v in row]),
                                     noise).tolist()
    else:
        for row in rows:
            yield list(mech.sample(row, noise))


def _csv_pieces(header: dict[str, str], released: Iterator[list[int]]) -> Iterator[str]:
    yield "# " + ", ".join(f"{k}={v}" for k, v in header.items()) + "\n"
    for vec in released:
        yield ",".join(str(v) for v in vec) + "\n"


def _json_pieces(header: dict[str, str], spent: dict[str, Any],
                 released: Iterator[list[int]]) -> Iterator[str]:
    yield "{\n  \"parameters\": " + json.dumps(header, indent=2).replace("\n", "\n  ")
    yield ",\n  \"spent\": " + json.dumps(spent, indent=2).replace("\n", "\n  ")
    yield ",\n  \"vectors\": ["
    for i, vec in enumerate(released):
        yield ("\n    " if i == 0 else ",\n    ") + json.dumps(vec)
    yield "\n  ]\n}\n"
