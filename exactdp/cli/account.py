"""``exactdp account RELEASE...``: the privacy of several releases together.

Basic composition adds the exact spends the release files record; for noisy counts
(``exactdp sample --json``) the exact privacy-loss distribution of all their values is
composed (:mod:`exactdp.accounting`) and the exact ``delta`` at a chosen ``epsilon`` (or the
least ``epsilon`` at a chosen ``delta``) is reported, the worst over every ordered pair of
neighbouring counts.  Releases stated for different neighbour relations are refused.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from typing import Any

from exactdp.cli._common import (
    EPILOG,
    OK,
    add_input_limit,
    add_json,
    add_max_seconds,
    add_output,
    emit_json,
)

__all__ = ["COMMANDS", "add_account", "cmd_account"]

DESCRIPTION = (
    "Account for several releases of the same data together. Reads the JSON files release "
    "commands write (sample, histogram, sparse-vector project, project, convolve with "
    "--json/--output) and reports the exact total under basic composition (the epsilons "
    "add, the deltas add). With --epsilon E: for noisy counts (sample files), the exact "
    "delta of all their values together at E, from the exact privacy-loss distribution "
    "(composed exactly, the worst over every pair of neighbouring counts in [0, n]); with "
    "--delta D: the least epsilon with that delta. Both are certified intervals around exact "
    "values; --ratio R gives the delta at epsilon = ln R as an exact fraction. Files whose "
    "guarantees are stated for different neighbour relations are refused (exit 2).")


def add_account(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("account", help="the privacy of several releases together, exactly",
                       description=DESCRIPTION, epilog=EPILOG)
    p.add_argument("releases", nargs="+", metavar="RELEASE",
                   help="release files (JSON written by a release command)")
    at = p.add_mutually_exclusive_group()
    at.add_argument("--epsilon", metavar="E",
                    help="report the exact delta at this epsilon (an exact rational >= 0)")
    at.add_argument("--delta", metavar="D",
                    help="report the least epsilon with this delta (an exact rational in "
                         "[0, 1])")
    at.add_argument("--ratio", metavar="R",
                    help="report the exact delta at epsilon = ln R (a rational R >= 1)")
    add_max_seconds(p, what="refuse exact figures estimated to take longer than S seconds "
                            "(estimated before the work, and again before the composition), "
                            "and stop work past S seconds of processor time (default 60)")
    add_input_limit(p)
    add_json(p)
    add_output(p)
    p.set_defaults(func=cmd_account)


def _decimal(q: Fraction, up: bool, places: int = 6) -> str:
    v = q * 10**places
    whole = -((-v.numerator) // v.denominator) if up else v.numerator // v.denominator
    sign = "-" if whole < 0 else ""
    digits = str(abs(whole)).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def _short(q: Fraction, up: bool) -> str:
    """``q >= 0`` in decimals (6 places), or as ``m.mmme-X`` below 10^-6, rounded down
    (``up``: up): a true bound either way."""
    if q == 0 or q >= Fraction(1, 10**6):
        return _decimal(q, up)
    e = len(str(q.denominator // q.numerator)) - 1  # 10**e <= 1/q roughly
    while q * 10**e >= 10:
        e -= 1
    while q * 10**e < 1:
        e += 1
    return f"{_decimal(q * 10**e, up, 3)}e-{e}"


def _read(paths: list[str], limit: int) -> list[Any]:
    from exactdp.accounting.releases import read_release
    from exactdp.files import parse_json, read_text

    return [read_release(parse_json(read_text(p, "release", limit), p, "release"), p)
            for p in paths]


def _pairs(pairs: Any, releases: list[Any]) -> list[dict[str, str]]:
    return [{"file": r.path, "from": str(a), "to": str(b)} for r, (a, b) in zip(releases, pairs)]


def _check_at(args: argparse.Namespace) -> None:
    """The point asked for (--epsilon, --delta or --ratio) is valid: checked before any
    exact work."""
    from exactdp.params import ParameterError, to_fraction

    if args.ratio is not None and to_fraction(args.ratio, "--ratio") < 1:
        raise ParameterError(f"--ratio = {args.ratio} must be >= 1 (epsilon = ln R >= 0)")
    if args.epsilon is not None and to_fraction(args.epsilon, "--epsilon") < 0:
        raise ParameterError(f"--epsilon = {args.epsilon} must be >= 0")
    if args.delta is not None and not 0 <= to_fraction(args.delta, "--delta") <= 1:
        raise ParameterError(f"--delta = {args.delta} must lie in [0, 1]")


def _exact(args: argparse.Namespace, releases: list[Any]) -> dict[str, Any] | None:
    from exactdp.accounting.releases import countable, counting_losses
    from exactdp.cli._common import max_seconds
    from exactdp.cli.account_cost import AccountCost
    from exactdp.params import ParameterError, to_fraction

    if args.epsilon is None and args.delta is None and args.ratio is None:
        return None
    _check_at(args)
    countable(releases)
    cost = AccountCost(releases, max_seconds(args))
    cost.up_front()
    losses = counting_losses(releases, *cost.hooks())
    if args.ratio is not None:
        r = to_fraction(args.ratio, "--ratio")
        if r < 1:
            raise ParameterError(f"--ratio = {r} must be >= 1 (epsilon = ln R >= 0)")
        pair, loss = max(losses, key=lambda pl: pl[1].delta_at_ratio(r))
        d = loss.delta_at_ratio(r)
        return {"at": f"epsilon = ln({r})", "delta": str(d), "delta_lower": _short(d, False),
                "delta_upper": _short(d, True), "worst_pairs": _pairs(pair, releases)}
    if args.epsilon is not None:
        eps = to_fraction(args.epsilon, "--epsilon")
        if eps < 0:
            raise ParameterError(f"--epsilon = {eps} must be >= 0")
        boxes = [(pair, loss.delta(eps)) for pair, loss in losses]
        pair, box = max(boxes, key=lambda pb: pb[1].hi)
        lo = max(b.lo for _, b in boxes)
        return {"at": f"epsilon = {eps}", "delta_lower": _short(lo, False),
                "delta_upper": _short(box.hi, True), "delta_lower_exact": str(lo),
                "delta_upper_exact": str(box.hi), "worst_pairs": _pairs(pair, releases)}
    d = to_fraction(args.delta, "--delta")
    if not 0 <= d <= 1:
        raise ParameterError(f"--delta = {d} must lie in [0, 1]")
    ratios = [(pair, loss.smallest_ratio(d)) for pair, loss in losses]
    if any(r is None for _, r in ratios):
        return {"at": f"delta = {d}", "epsilon": "infinity", "ratio": None}
    pair, r = max(ratios, key=lambda pr: pr[1])  # type: ignore[arg-type,return-value]
    assert r is not None
    from exactdp.certified import ln_interval

    box = ln_interval(r, 64) if r != 1 else None
    lo, hi = (box.lo, box.hi) if box is not None else (Fraction(0), Fraction(0))
    return {"at": f"delta = {d}", "epsilon": f"ln({r})" if r != 1 else "0", "ratio": str(r),
            "epsilon_lower": _decimal(lo, False), "epsilon_upper": _decimal(hi, True),
            "worst_pairs": _pairs(pair, releases)}


def cmd_account(args: argparse.Namespace) -> int:
    from exactdp.accounting.releases import ReleaseFormatError, basic_total
    from exactdp.cli._common import input_limit, output_path

    out = output_path(args)
    releases = _read(list(args.releases), input_limit(args))
    first = releases[0]
    for rel in releases[1:]:
        if rel.relation != first.relation:
            raise ReleaseFormatError(
                f"{first.path} ({first.relation}) and {rel.path} ({rel.relation}) are stated "
                f"for different neighbour relations; their guarantees do not compose")
    total = basic_total([r.spend for r in releases])
    box = total.interval(64)
    exact = _exact(args, releases)
    payload: dict[str, Any] = {
        "releases": [{"file": r.path, "kind": r.kind, "epsilon": str(r.spend),
                      "delta": str(r.spend.delta),
                      **({"values": str(r.values)} if r.kind == "sample" else {})}
                     for r in releases],
        "relation": first.relation,
        "basic": {"epsilon": str(total), "epsilon_lower": _decimal(box.lo, False),
                  "epsilon_upper": _decimal(box.hi, True), "delta": str(total.delta)},
        "exact": exact,
    }
    if not emit_json(args, payload, out):
        print(f"{len(releases)} release(s); neighbours: {first.relation}")
        for r in releases:
            extra = f", {r.values} values" if r.kind == "sample" else ""
            print(f"  {r.path}: {r.kind}{extra}, epsilon {r.spend}, delta {r.spend.delta}")
        print(f"basic composition: epsilon = {total} in [{payload['basic']['epsilon_lower']}, "
              f"{payload['basic']['epsilon_upper']}], delta = {total.delta}")
        if exact is not None:
            worst = exact.get("worst_pairs")
            pair = (" (worst: counts " + ", ".join(f"{w['from']} -> {w['to']} in {w['file']}"
                                                    for w in worst) + ")") if worst else ""
            if "delta_upper" in exact:
                exact_d = f" = {exact['delta']}" if "delta" in exact else ""
                print(f"exact privacy-loss distribution at {exact['at']}: delta{exact_d} in "
                      f"[{exact['delta_lower']}, {exact['delta_upper']}]{pair}")
            elif exact["epsilon"] == "infinity":
                print(f"exact privacy-loss distribution at {exact['at']}: no finite epsilon")
            else:
                from exactdp.certificate import brief

                shown = "0" if exact["ratio"] == "1" else f"ln({brief(Fraction(exact['ratio']))})"
                print(f"exact privacy-loss distribution at {exact['at']}: epsilon = "
                      f"{shown} in [{exact['epsilon_lower']}, "
                      f"{exact['epsilon_upper']}]{pair}")
    return OK


COMMANDS = [add_account]
