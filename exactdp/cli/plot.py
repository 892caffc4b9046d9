"""``exactdp plot pmf | loss | accuracy MECHANISM``: exact pictures of a counting mechanism.

Order of work: the ``--output`` path (exists? writable? ``.png`` or ``.svg``?), matplotlib
(the ``[plot]`` extra), the parameters, the cost estimate (refused past ``--max-seconds``),
then the exact laws from the implementation (:mod:`exactdp.plot.data`) and the picture,
written atomically.  ``--json`` prints the exact values drawn (fractions as strings).
"""

from __future__ import annotations

import argparse
from typing import Any

from exactdp.cli._common import EPILOG, OK, add_json, add_output, emit_json, output_path

__all__ = ["COMMANDS", "PICTURES"]

#: The three pictures, in words.
PICTURES = {
    "pmf": "the exact pmf Pr[M(c, U) = z], z in [0, n], read off the implementation by the "
           "checker (never simulated), beside the paper's closed-form law (dots) and their "
           "exact statistical distance",
    "loss": "the privacy loss ln(Pr[M(a) = z] / Pr[M(b) = z]) per output z for the worst "
            "neighbouring pair (a, b) = (c, c +/- 1), with the claimed epsilon drawn at +eps "
            "and -eps; an output possible under a but not under b is an infinite loss, drawn "
            "as a hatched bar labelled +inf",
    "accuracy": "the exact smallest error a with Pr[|M(c) - c| <= a] >= 1 - beta for every c "
                "(Definition 4.2) against beta, beside the paper's closed-form a "
                "(Theorem 4.7 i / 4.10 ii)",
}

#: One line each, for the list of pictures in ``exactdp plot --help``.
SHORT = {
    "pmf": "the exact pmf Pr[M(c, U) = z] beside the paper's law",
    "loss": "the privacy loss per output for the worst neighbouring pair",
    "accuracy": "the exact smallest error a at each failure probability beta",
}

_MECHANISMS = ("geosample", "fastsample", "zprime")


def _add_plot(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from exactdp.cli.counting import ONE_VALUE

    p = sub.add_parser(
        "plot", help="exact pictures (PNG or SVG) of a counting mechanism: pmf, privacy loss, "
                     "accuracy (needs the [plot] extra)",
        description="Draw an exact picture of a counting mechanism (Balcer & Vadhan, Section "
                    "4). "
                    + " ".join(f"{k}: {v}." for k, v in PICTURES.items())
                    + " Needs matplotlib: pip install 'exactdp[plot]'. 'exactdp plot "
                    "PICTURE --help' says what its --epsilon means.",
        epilog=EPILOG)
    kinds = p.add_subparsers(dest="picture", required=True, metavar="PICTURE")
    for kind, what in PICTURES.items():
        q = kinds.add_parser(kind, help=SHORT[kind],
                             description=f"{kind}: {what}. {ONE_VALUE}", epilog=EPILOG)
        _plot_args(q, kind)


def _plot_args(p: argparse.ArgumentParser, kind: str) -> None:
    from exactdp.cli.counting import _counting_args

    p.add_argument("mechanism", choices=_MECHANISMS,
                   help="geosample = GeoSample (Algorithm 4.8); fastsample = FastSample "
                        "(Algorithm 4.11, needs --gamma); zprime = Z' clamped to [0, n] "
                        "(Lemma 4.12 i: FastSample without its uniform part, not DP by "
                        "itself; needs --gamma, which fixes t)")
    _counting_args(p, positional=False)
    if kind == "pmf":
        p.add_argument("--count", required=True, help="the true count c in [0, n]")
    if kind == "loss":
        p.add_argument("--claimed-epsilon", metavar="E",
                       help="the epsilon drawn as the claim (default: the paper's, eps/2 per "
                            "released value; none for zprime)")
    if kind == "accuracy":
        p.add_argument("--beta", action="append", metavar="B",
                       help="a failure probability in (0, 1); repeat for several (default "
                            "1/2, 1/3, ..., 1/10000)")
    add_json(p)
    add_output(p, "the picture (PNG or SVG, chosen by the extension; required)")
    p.set_defaults(func=_cmd_plot)


def _mechanism(args: argparse.Namespace) -> Any:
    from exactdp.cli.counting import _make_mechanism

    if args.mechanism != "zprime":
        return _make_mechanism(args)
    return _make_mechanism(argparse.Namespace(**{**vars(args), "mechanism": "fastsample"})
                           ).truncated()


def _cmd_plot(args: argparse.Namespace) -> int:
    from exactdp.certificate import exact_json
    from exactdp.cli.counting import _count, _max_seconds, _refuse_if_slow, estimate_ns
    from exactdp.params import ParameterError, open_unit, to_fraction
    from exactdp.plot import data as pd
    from exactdp.plot import draw

    if args.output is None:
        raise ParameterError("plot needs --output PATH ending in .png or .svg")
    fmt = draw.figure_format(args.output)
    out = output_path(args)
    draw.require_matplotlib()
    mech = _mechanism(args)
    count = _count(args.count, mech.n) if args.picture == "pmf" else None
    claimed = (to_fraction(args.claimed_epsilon, "--claimed-epsilon")
               if getattr(args, "claimed_epsilon", None) is not None else None)
    if claimed is not None and claimed < 0:
        raise ParameterError(f"--claimed-epsilon = {claimed} must be >= 0 (a privacy loss "
                             f"bound)")
    betas = [open_unit(b, "--beta") for b in args.beta] if getattr(args, "beta", None) \
        else None
    counts = 1 if count is not None else mech.n + 1
    _refuse_if_slow(f"plotting {args.picture} of {type(mech).__name__} at n = {mech.n}",
                    estimate_ns(mech, counts), _max_seconds(args), "use a smaller --n")
    payload: dict[str, Any] = {"picture": args.picture, "mechanism": pd.mechanism_title(mech),
                               "output": args.output}
    if count is not None:
        pmf = pd.pmf_data(mech, count)
        fig = draw.pmf_figure(mech, count, data=pmf)
        payload.update(count=count, pmf=dict(zip(pmf.outcomes, pmf.exact, strict=True)),
                       ideal=None if pmf.ideal is None
                       else dict(zip(pmf.outcomes, pmf.ideal, strict=True)),
                       statistical_distance=pmf.distance)
        said = f"statistical distance to the ideal law {pmf.distance}"
    elif args.picture == "loss":
        loss = pd.privacy_loss_data(mech, claimed)
        fig = draw.privacy_loss_figure(mech, data=loss)
        worst = loss.worst
        payload.update(a=loss.a, b=loss.b, claimed_epsilon=loss.claimed_epsilon,
                       ratios={bar.outcome: ("infinity" if bar.kind == "+inf" else
                                             "0" if bar.kind == "-inf" else bar.ratio)
                               for bar in loss.bars if bar.kind != "undefined"})
        said = (f"worst pair a = {loss.a}, b = {loss.b}: ratio "
                f"{'infinite' if worst.ratio is None else worst.ratio} at z = {worst.outcome}")
    else:
        rows = pd.accuracy_rows(mech, betas)
        fig = draw.accuracy_figure(mech, rows=rows)
        payload.update(rows=[{"beta": r.beta, "exact_a": r.exact_a, "paper_a": r.paper_a,
                              "worst_count": r.worst_count} for r in rows])
        said = ", ".join(f"beta {r.beta}: a = {r.exact_a} (paper "
                         f"{'n/a: beta <= gamma' if r.paper_a is None else r.paper_a})"
                         for r in rows)
    assert out is not None
    out.write_bytes(draw.figure_bytes(fig, fmt))
    if not emit_json(args, exact_json(payload), None):
        print(f"wrote {args.output}: {args.picture} of {pd.mechanism_title(mech)}; {said}")
    return OK


COMMANDS = [_add_plot]
