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
from exactdp.spend import compact, readable_bound

__all__ = ["COMMANDS", "add_account", "cmd_account"]

DESCRIPTION = (
    "Account for several releases of the same data together. Reads the JSON files release "
    "commands write (sample, histogram, sparse-vector project, project, convolve with "
    "--json/--output) and reports the exact total under basic composition (the epsilons "
    "add, the deltas add). With --epsilon E: for noisy counts (sample files), the exact "
    "delta of all their values together at E, from the exact privacy-loss distribution "
    "(composed exactly, the worst over every pair of neighbouring counts in [0, n]); with "
    "--delta D: the least epsilon with that delta. Both are certified intervals around exact "
    "values; --ratio R gives the delta at epsilon = ln R as an exact fraction. When the exact "
    "composition would have more than 2^20 distinct ratios (many FastSample values: their "
    "ratios lie on no common lattice), the figures are certified bounds computed on the "
    "ratio grid (257/256)^i instead, and the output says so. Files whose guarantees are "
    "stated for different neighbour relations are refused (exit 2).")


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
    add_input_limit(p)
    add_max_seconds(p)
    add_json(p)
    add_output(p)
    p.set_defaults(func=cmd_account)


#: The ratio grid of the certified bounds: steps of ``ln(257/256)``, about 2^-8 in epsilon
#: (finer grids barely move the upper end, which is the guarantee, and cost far more).
GRID_BASE = Fraction(257, 256)


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


def _is(q: Fraction) -> str:
    """``= q`` when short, else ``<= bound`` rounded up (text output; JSON is exact)."""
    text = readable_bound(q)
    return text if text.startswith("<=") else f"= {text}"


def _at_text(at: str) -> str:
    """The JSON's ``"at"`` (``"epsilon = ln(R)"``, ``"epsilon = E"``, ``"delta = D"``, exact)
    with its number abbreviated for text output (:func:`exactdp.spend.compact`)."""
    name, _, value = at.partition(" = ")
    if value.startswith("ln(") and value.endswith(")"):
        return f"{name} = ln({compact(Fraction(value[3:-1]))})"
    return f"{name} = {compact(Fraction(value))}"


def _read(paths: list[str], limit: int) -> list[Any]:
    from exactdp.accounting.releases import read_release
    from exactdp.files import parse_json, read_text

    return [read_release(parse_json(read_text(p, "release", limit), p, "release"), p)
            for p in paths]


def _pairs(pairs: Any, releases: list[Any]) -> list[dict[str, str]]:
    return [{"file": r.path, "from": str(a), "to": str(b)} for r, (a, b) in zip(releases, pairs)]


def _exact(args: argparse.Namespace, releases: list[Any]) -> dict[str, Any] | None:
    from exactdp.accounting.product import MAX_ATOMS
    from exactdp.accounting.releases import (
        composed_losses,
        countable,
        counting_parts,
        ratio_count_bound,
    )
    from exactdp.cli._common import EPSILON_RANGE, epsilon_in_range, max_seconds
    from exactdp.cli.account_cost import AccountCost
    from exactdp.params import ParameterError, to_fraction

    if args.epsilon is None and args.delta is None and args.ratio is None:
        return None
    if args.ratio is not None:
        r = to_fraction(args.ratio, "--ratio")
        if r < 1:
            raise ParameterError(f"--ratio = {r} must be >= 1 (epsilon = ln R >= 0)")
    elif args.epsilon is not None:
        eps = to_fraction(args.epsilon, "--epsilon")
        if eps < 0:
            raise ParameterError(f"--epsilon = {eps} must be >= 0")
        if eps > EPSILON_RANGE[1]:
            epsilon_in_range(eps)  # e^1000 promises no privacy; exp of huge eps never ends
    else:
        d = to_fraction(args.delta, "--delta")
        if not 0 <= d <= 1:
            raise ParameterError(f"--delta = {d} must lie in [0, 1]")
    cost = AccountCost(releases, max_seconds(args))
    countable(releases)
    cost.up_front()
    combos = counting_parts(releases)
    largest = max(ratio_count_bound(parts, MAX_ATOMS) for _, parts in combos)
    if largest > MAX_ATOMS:
        at = r if args.ratio is not None else eps if args.epsilon is not None else d
        return _on_grid(args, at, releases, combos)
    cost.before_compose(len(combos))
    losses = composed_losses(combos)
    if args.ratio is not None:
        pair, loss = max(losses, key=lambda pl: pl[1].delta_at_ratio(r))
        dr = loss.delta_at_ratio(r)
        return {"method": "exact", "at": f"epsilon = ln({r})", "delta": str(dr),
                "delta_lower": _short(dr, False), "delta_upper": _short(dr, True),
                "worst_pairs": _pairs(pair, releases)}
    if args.epsilon is not None:
        boxes = [(pair, loss.delta(eps)) for pair, loss in losses]
        pair, box = max(boxes, key=lambda pb: pb[1].hi)
        lo = max(b.lo for _, b in boxes)
        return {"method": "exact", "at": f"epsilon = {eps}", "delta_lower": _short(lo, False),
                "delta_upper": _short(box.hi, True), "delta_lower_exact": str(lo),
                "delta_upper_exact": str(box.hi), "worst_pairs": _pairs(pair, releases)}
    ratios = [(pair, loss.smallest_ratio(d)) for pair, loss in losses]
    if any(r is None for _, r in ratios):
        return {"method": "exact", "at": f"delta = {d}", "epsilon": "infinity", "ratio": None}
    pair, rr = max(ratios, key=lambda pr: pr[1])  # type: ignore[arg-type,return-value]
    assert rr is not None
    from exactdp.certified import ln_interval

    lnbox = ln_interval(rr, 64) if rr != 1 else None
    elo, ehi = (lnbox.lo, lnbox.hi) if lnbox is not None else (Fraction(0), Fraction(0))
    return {"method": "exact", "at": f"delta = {d}", "epsilon": f"ln({rr})" if rr != 1 else "0",
            "ratio": str(rr), "epsilon_lower": _decimal(elo, False),
            "epsilon_upper": _decimal(ehi, True), "worst_pairs": _pairs(pair, releases)}


def _on_grid(args: argparse.Namespace, at: Fraction, releases: list[Any], combos: list[Any]
             ) -> dict[str, Any]:
    """The certified bounds of :mod:`exactdp.accounting.grid` for each combination: every
    ratio rounded down (lower bound) or split onto the two neighbouring grid points (upper
    bound), the masses rounded the bound's way, composed by polynomial products.  ``at``:
    the checked value of whichever of ``--ratio``, ``--epsilon``, ``--delta`` was given."""
    import time

    from exactdp.accounting.grid import epsilon_interval, grid_bounds
    from exactdp.cli._common import NS, duration, max_seconds, progress, refuse_if_slow

    bounds: dict[tuple[int, Any], Any] = {}
    distinct = len({(i, loss) for _, parts in combos for i, (loss, _) in enumerate(parts)})
    loss0, k0 = combos[0][1][0]
    start = time.process_time_ns()
    lo_0, up_0 = grid_bounds(loss0, GRID_BASE)
    bounds[(0, loss0)] = (lo_0.power(k0), up_0.power(k0))
    # each further power and each product of a combination costs about as much as this one
    ns = (time.process_time_ns() - start) * (distinct + len(combos))
    refuse_if_slow(f"certified grid bounds for {len(combos)} combinations of neighbouring "
                   f"pairs", ns, max_seconds(args), "account for fewer releases or values")
    if ns > 10 * NS:
        progress(f"computing certified grid bounds (about {duration(ns)}) ...")
    grids = []
    for pairs, parts in combos:
        lower: Any = None
        upper: Any = None
        for i, (loss, k) in enumerate(parts):
            if (i, loss) not in bounds:
                lo_g, up_g = grid_bounds(loss, GRID_BASE)
                bounds[(i, loss)] = (lo_g.power(k), up_g.power(k))
            lo_k, up_k = bounds[(i, loss)]
            lower = lo_k if lower is None else lower.compose(lo_k)
            upper = up_k if upper is None else upper.compose(up_k)
        grids.append((pairs, lower, upper))
    note = {"method": "grid", "grid_base": str(GRID_BASE)}
    if args.delta is None:
        if args.ratio is not None:
            where = f"epsilon = ln({at})"
            boxes = [(p, lo.delta_at_ratio(at), up.delta_at_ratio(at)) for p, lo, up in grids]
        else:
            where = f"epsilon = {at}"
            boxes = [(p, lo.delta(at), up.delta(at)) for p, lo, up in grids]
        pair, _, hi = max(boxes, key=lambda b: b[2])
        lo = max(b[1] for b in boxes)
        return {**note, "at": where, "delta_lower": _short(lo, False),
                "delta_upper": _short(hi, True), "delta_lower_exact": str(lo),
                "delta_upper_exact": str(hi), "worst_pairs": _pairs(pair, releases)}
    d = at
    if d == 1:
        return {**note, "at": f"delta = {d}", "epsilon": "0", "epsilon_lower": _decimal(
            Fraction(0), False), "epsilon_upper": _decimal(Fraction(0), True), "ratio": "1"}
    boxes_e = [(p, epsilon_interval(lo, up, d)) for p, lo, up in grids]
    if any(b is None for _, b in boxes_e):
        return {**note, "at": f"delta = {d}", "epsilon": "infinity", "ratio": None}
    pair, box = max(boxes_e, key=lambda pb: pb[1].hi)  # type: ignore[union-attr]
    assert box is not None
    lo_e = max(b.lo for _, b in boxes_e if b is not None)
    return {**note, "at": f"delta = {d}", "epsilon": "bounded", "ratio": None,
            "epsilon_lower": _decimal(lo_e, False), "epsilon_upper": _decimal(box.hi, True),
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
            print(f"  {r.path}: {r.kind}{extra}, epsilon {r.spend}, delta "
                  f"{readable_bound(r.spend.delta)}")
        print(f"basic composition: epsilon = {total} in [{payload['basic']['epsilon_lower']}, "
              f"{payload['basic']['epsilon_upper']}], delta {_is(total.delta)}")
        if exact is not None:
            worst = exact.get("worst_pairs")
            pair = (" (worst: counts " + ", ".join(f"{w['from']} -> {w['to']} in {w['file']}"
                                                    for w in worst) + ")") if worst else ""
            head = ("exact privacy-loss distribution" if exact["method"] == "exact" else
                    f"certified bounds on the ratio grid ({exact['grid_base']})^i (the exact "
                    f"composition would have more than 2^20 distinct ratios)")
            at = _at_text(exact["at"])
            if "delta_upper" in exact:
                exact_d = (f" = {exact['delta']}" if "delta" in exact
                           and len(exact["delta"]) <= 40 else "")
                print(f"{head} at {at}: delta{exact_d} in "
                      f"[{exact['delta_lower']}, {exact['delta_upper']}]{pair}")
            elif exact["epsilon"] == "infinity":
                print(f"{head} at {at}: no finite epsilon")
            else:
                from exactdp.certificate import brief

                ratio = exact["ratio"]
                shown = ("" if ratio is None else
                         "= 0 " if ratio == "1" else f"= ln({brief(Fraction(ratio))}) ")
                print(f"{head} at {at}: epsilon {shown}in "
                      f"[{exact['epsilon_lower']}, {exact['epsilon_upper']}]{pair}")
    return OK


COMMANDS = [add_account]
