"""Drawing the exact numbers of :mod:`exactdp.plot.data` with matplotlib (the ``[plot]`` extra).

The only module of exactdp that turns Fractions into floats, and only to place marks on a
picture: every number written in a label or legend is the exact value (or a truncated
decimal of it, marked as such), and every value drawn comes from the checker.  matplotlib is
imported when a picture is drawn, never at import time; without it the error says
``pip install 'exactdp[plot]'``.  Figures are :class:`matplotlib.figure.Figure` objects built
without pyplot (no global state, no display needed).
"""

from __future__ import annotations

import io
import re
import textwrap
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from exactdp.certificate import brief
from exactdp.claims import epsilon_bounds
from exactdp.params import ExactDPError, ParameterError

__all__ = [
    "FORMATS",
    "MissingPlotExtra",
    "accuracy_figure",
    "draw_accuracy",
    "draw_blackbox_test",
    "draw_loss",
    "draw_pair",
    "draw_pmf",
    "figure_bytes",
    "figure_format",
    "inline_svg",
    "new_figure",
    "pmf_figure",
    "privacy_loss_figure",
    "require_matplotlib",
    "save_figure",
]

#: Picture formats, chosen by the file name's extension.
FORMATS = ("png", "svg")

IMPLEMENTATION = "#1f5fa8"
IDEAL = "#d9480f"
CLAIM = "#2b8a3e"
INFINITE = "#c92a2a"


class MissingPlotExtra(ExactDPError, ImportError):
    """matplotlib (the ``[plot]`` extra) is not installed."""


def require_matplotlib() -> Any:
    """``matplotlib.figure`` (imported now), or :class:`MissingPlotExtra` saying how to get it."""
    try:
        import matplotlib
        matplotlib.use("Agg", force=False)
        import matplotlib.figure
    except ImportError:
        raise MissingPlotExtra("drawing needs matplotlib: pip install 'exactdp[plot]'") from None
    return matplotlib.figure


def new_figure(width: float = 8, height: float = 4.5, rows: int = 1, cols: int = 1) -> Any:
    """A pyplot-free :class:`~matplotlib.figure.Figure` and its axes (one, or an array)."""
    fig = require_matplotlib().Figure(figsize=(width, height), layout="constrained", dpi=110)
    axes = fig.subplots(rows, cols, squeeze=True)
    return fig, axes


def _f(q: Fraction | int) -> float:
    return float(q)


def _ln(bar: Any) -> float:
    box = bar.ln(64)
    return _f((box.lo + box.hi) / 2)


def draw_pmf(ax: Any, data: Any, title: str | None = None, ideal_label: str = "ideal law "
             "(the paper's closed form)", log: bool = False) -> None:
    """Bars: ``Pr[M(c, U) = z]`` from the implementation; dots: the ideal law.  ``log``: a
    logarithmic probability axis, on which the tails show (an outcome of probability 0
    exactly has no bar at all)."""
    xs = list(data.outcomes)
    ax.bar(xs, [_f(p) for p in data.exact], width=0.8, color=IMPLEMENTATION, alpha=0.75,
           label="implementation: exact Pr[M(c, U) = z] (read off the code by the checker)")
    if data.ideal is not None:
        dist = data.distance
        ax.plot(xs, [_f(p) for p in data.ideal], "o", markersize=4 if len(xs) > 30 else 6,
                markerfacecolor="none", markeredgecolor=IDEAL, markeredgewidth=1.4,
                label=f"{ideal_label}; statistical distance "
                      f"{'0 exactly' if dist == 0 else brief(dist)}")
    ax.axvline(data.count, color="0.4", linestyle=":", linewidth=1, label=f"true count c = "
               f"{data.count}")
    ax.set_xlabel("output z in [n] = {0, ..., n}")
    ax.set_ylabel("probability Pr[M(c, U) = z]" + (" (log scale)" if log else ""))
    if log:
        ax.set_yscale("log")
        ax.set_ylim(_f(min(p for p in data.exact if p > 0)) * 0.2, _f(max(data.exact)) * 3)
    ax.set_title(_wrap(title or f"{data.title}\nexact pmf at c = {data.count}"), fontsize=10)
    ax.set_xlim(min(xs) - 0.7, max(xs) + 0.7)
    _legend_below(ax)


def draw_loss(ax: Any, data: Any, title: str | None = None) -> None:
    """Bars: ``ln(Pr[M(a) = z] / Pr[M(b) = z])`` per outcome; an infinite loss is a hatched
    bar to the edge of the axes labelled +inf (or -inf); the claimed epsilon is drawn at
    ``+eps`` and ``-eps``."""
    pos = _positions([b.outcome for b in data.bars], ax)
    finite = [b for b in data.bars if b.kind == "finite"]
    values = [_ln(b) for b in finite]
    # the claim as an interval: exact for a rational epsilon, ln r for a ratio bound r
    claim = None if data.claimed_epsilon is None else epsilon_bounds(data.claimed_epsilon, 64)
    eps = None if claim is None else _f(claim.lo)
    top = max([abs(v) for v in values] + ([eps] if eps is not None else []) + [1e-12])
    lim = top * 1.35
    ax.bar([pos[i] for i, b in enumerate(data.bars) if b.kind == "finite"], values,
           width=0.8, color=IMPLEMENTATION, alpha=0.8, edgecolor=IMPLEMENTATION, linewidth=1.5,
           label="ln(p/q), p = Pr[M(a) = z], q = Pr[M(b) = z] (exact ratio, certified ln)")
    for sign, kind in ((1, "+inf"), (-1, "-inf")):
        inf = [pos[i] for i, b in enumerate(data.bars) if b.kind == kind]
        if inf:
            what = ("p > 0 = q: the output reveals the input" if sign > 0 else "p = 0 < q")
            ax.bar(inf, [sign * lim * 0.86] * len(inf), width=0.8, color="none",
                   edgecolor=INFINITE, hatch="///", label=f"{kind} loss ({what})")
            for o in inf:
                ax.text(o, sign * lim * 0.88, "+∞" if sign > 0 else "−∞", ha="center",
                        va="bottom" if sign > 0 else "top", color=INFINITE, fontsize=9,
                        fontweight="bold")
    if eps is not None:
        ax.axhline(eps, color=CLAIM, linestyle="--", linewidth=1.3,
                   label=f"claimed epsilon = {data.claimed_epsilon}")
        ax.axhline(-eps, color=CLAIM, linestyle="--", linewidth=1.3)
    ax.axhline(0, color="0.3", linewidth=0.8)
    undefined = [b.outcome for b in data.bars if b.kind == "undefined"]
    if undefined:
        ax.plot([], [], " ", label=f"no bar: {len(undefined)} output(s) impossible under both "
                                   f"inputs (p = q = 0)")
    ax.set_xlim(min(pos) - 0.7, max(pos) + 0.7)
    worst = data.worst
    if worst.kind == "finite":
        box = worst.ln(64)
        note = (f"worst: z = {_label(worst.outcome)}, p/q = {brief(worst.ratio)}, "
                f"ln(p/q) in [{brief(box.lo)}, {brief(box.hi)}]")
        if claim is not None:
            from exactdp.audit.report import _decimal as rounded_down

            lo, hi = box.lo - claim.hi, box.hi - claim.lo
            if lo > 0:
                note += (f"\nexceeds the claimed epsilon by {rounded_down(lo, 4)} or more "
                         f"(certified)")
            elif hi < 0:
                note += (f"\nbelow the claimed epsilon by {rounded_down(-hi, 4)} or more "
                         f"(certified)")
    else:
        note = f"worst: z = {_label(worst.outcome)}, p = {brief(worst.p)} > q = 0: infinite loss"
    # The note sits in a band of its own above the bars (the top of the axes is raised).
    ax.text(0.99, 0.985, note + " (decimals truncated)", transform=ax.transAxes, ha="right",
            va="top", fontsize=7.5, color="0.2",
            bbox={"facecolor": "white", "edgecolor": "0.8", "alpha": 0.9})
    ax.set_ylim(-lim, lim * 1.3)
    ax.set_xlabel("output z")
    ax.set_ylabel(f"privacy loss ln(Pr[M({_label(data.a)}) = z] / Pr[M({_label(data.b)}) = z])")
    ax.set_title(_wrap(title or f"{data.title}\nprivacy loss per output, worst neighbouring "
                                f"pair a = {_label(data.a)}, b = {_label(data.b)}"), fontsize=10)
    _legend_below(ax)


def _label(outcome: Any) -> str:
    text = str(outcome)
    return text if len(text) <= 24 else text[:20] + "..."


def _positions(outcomes: Sequence[Any], ax: Any) -> list[Any]:
    """Where each outcome's bar goes: the outcome itself when every outcome is an int
    (counts), otherwise 0, 1, 2, ... with the outcomes as tick labels."""
    if all(isinstance(o, int) and not isinstance(o, bool) for o in outcomes):
        return list(outcomes)
    ax.set_xticks(range(len(outcomes)), [_label(o) for o in outcomes],
                  rotation=45 if len(outcomes) > 6 else 0, fontsize=8)
    return list(range(len(outcomes)))


def draw_pair(ax: Any, p: Any, q: Any, a: Any, b: Any, title: str) -> None:
    """The two exact laws ``Pr[M(a) = z]`` and ``Pr[M(b) = z]`` side by side per outcome
    (``p``, ``q``: mappings outcome -> Fraction; outcomes of either)."""
    from exactdp.plot.data import loss_bars

    bars = loss_bars(p, q)
    pos = _positions([bar.outcome for bar in bars], ax)
    ax.bar([x - 0.2 for x in pos], [_f(bar.p) for bar in bars], width=0.4,
           color=IMPLEMENTATION, label=f"Pr[M({_label(a)}) = z]")
    ax.bar([x + 0.2 for x in pos], [_f(bar.q) for bar in bars], width=0.4, color=IDEAL,
           alpha=0.8, label=f"Pr[M({_label(b)}) = z]")
    ax.set_xlabel("output z")
    ax.set_ylabel("exact probability")
    ax.set_title(_wrap(title), fontsize=10)
    _legend_below(ax)


def draw_blackbox_test(ax: Any, test: Any, e_eps: Fraction, title: str) -> None:
    """The black-box privacy test as a picture: the estimated ``P_a(S) = x/K`` with its
    Clopper--Pearson lower bound, ``P_b(S) = y/K`` with its upper bound, and ``e^eps`` times
    that upper bound (``e_eps`` an upper bound on ``e^eps``): the test rejects when the lower
    bound on ``P_a(S)`` lies above that line.  ``test`` is a
    :class:`~exactdp.audit.report.PrivacyTest`."""
    pa, pb = Fraction(test.x, test.K), Fraction(test.y, test.K)
    ax.bar([0], [_f(pa)], width=0.5, color=IMPLEMENTATION,
           label=f"P_a(S) estimated on input a = {_label(test.a)}: {test.x} of {test.K}")
    ax.bar([1], [_f(pb)], width=0.5, color=IDEAL, alpha=0.8,
           label=f"P_b(S) estimated on input b = {_label(test.b)}: {test.y} of {test.K}")
    ax.errorbar([0], [_f(pa)], yerr=[[_f(pa - test.lower)], [0.0]], fmt="none", ecolor="black",
                capsize=8, label="lower confidence bound on P_a(S)")
    ax.errorbar([1], [_f(pb)], yerr=[[0.0], [_f(test.upper - pb)]], fmt="none", ecolor="grey",
                capsize=8, label="upper confidence bound on P_b(S)")
    ax.axhline(_f(e_eps * test.upper), color="tab:red", linestyle="--",
               label="e^eps x (upper bound on P_b(S)): a lower bound above it is a violation")
    ax.set_xticks([0, 1], [f"input a = {_label(test.a)}", f"input b = {_label(test.b)}"])
    ax.set_ylabel("Pr[output in S]")
    ax.set_title(_wrap(title), fontsize=10)
    _legend_below(ax)


def _wrap(title: str, width: int = 95) -> str:
    """A long title on several lines (each line of ``title`` wrapped at ``width``)."""
    return "\n".join(textwrap.fill(line, width) for line in title.split("\n"))


def _legend_below(ax: Any) -> None:
    """The legend under the axes, where it hides no bar."""
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), frameon=False)


def draw_accuracy(ax: Any, rows: Sequence[Any], title: str, n: int | None = None) -> None:
    """The exact smallest error ``a`` against ``beta`` beside the paper's bound."""
    xs = [_f(r.beta) for r in rows]
    ax.plot(xs, [r.exact_a for r in rows], "o-", color=IMPLEMENTATION,
            label="exact smallest a: Pr[|M(c) - c| <= a] >= 1 - beta for every c "
                  "(from the implementation's exact laws)")
    paper = [(x, r.paper_a) for x, r in zip(xs, rows, strict=True) if r.paper_a is not None]
    if paper:
        ax.plot([x for x, _ in paper], [a for _, a in paper], "s--", color=IDEAL,
                markerfacecolor="none",
                label="the paper's closed-form a (GeoSample: Theorem 4.7 i; FastSample: "
                      "Theorem 4.10 ii, only for beta > gamma)")
    if n is not None:
        ax.axhline(n, color="0.5", linestyle=":", linewidth=1,
                   label=f"n = {n}: outputs are clamped to [0, n], so no error exceeds n")
    ax.set_xscale("log")
    ax.set_xticks(xs, [str(r.beta) for r in rows], fontsize=7, rotation=45)
    ax.minorticks_off()
    ax.invert_xaxis()
    ax.set_xlabel("failure probability beta (log scale; smaller to the right)")
    ax.set_ylabel("error a (|M(c) - c| <= a)")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_title(_wrap(title), fontsize=10)
    ax.grid(True, alpha=0.3)
    _legend_below(ax)


def pmf_figure(mech: object, count: int, method: Any = "auto", data: Any = None) -> Any:
    """A figure of ``mech``'s exact pmf at ``count`` beside its ideal law (``data``: the
    :class:`~exactdp.plot.data.PmfData` if already computed)."""
    from exactdp.plot.data import pmf_data

    data = data or pmf_data(mech, count, method)
    fig, ax = new_figure(height=5.5)
    draw_pmf(ax, data)
    return fig


def privacy_loss_figure(mech: object, claimed: object = None,
                        pair: tuple[int, int] | None = None, method: Any = "auto",
                        data: Any = None) -> Any:
    """A figure of the privacy loss per outcome for the worst neighbouring pair (or
    ``pair``) with the claimed epsilon (default: the paper's, see
    :func:`exactdp.plot.data.claimed_epsilon`; ``data``: the
    :class:`~exactdp.plot.data.LossData` if already computed)."""
    from exactdp.plot.data import privacy_loss_data

    data = data or privacy_loss_data(mech, claimed, pair, method)
    fig, ax = new_figure(height=5.5)
    draw_loss(ax, data)
    return fig


def accuracy_figure(mech: object, betas: Sequence[object] | None = None,
                    method: Any = "auto", rows: Sequence[Any] | None = None) -> Any:
    """A figure of the exact smallest error ``a`` against ``beta`` beside the paper's bound
    (``rows``: the :func:`~exactdp.plot.data.accuracy_rows` if already computed)."""
    from exactdp.plot.data import accuracy_rows, mechanism_title

    rows = rows or accuracy_rows(mech, betas, method)
    fig, ax = new_figure(height=5.5)
    draw_accuracy(ax, rows, f"{mechanism_title(mech)}\nerror a against failure probability "
                            f"beta (Definition 4.2)", getattr(mech, "n", None))
    return fig


def inline_svg(fig: Any, prefix: str) -> str:
    """``fig`` as an ``<svg>`` element to put inside an HTML page: no XML prolog, no
    DOCTYPE, no metadata, and every ``id`` (and reference to one) prefixed with ``prefix``
    so that several pictures on one page never share an id."""
    text = figure_bytes(fig, "svg").decode("utf-8")
    text = text[text.find("<svg"):]
    text = re.sub(r'\bid="', f'id="{prefix}-', text)
    text = re.sub(r'href="#', f'href="#{prefix}-', text)
    return re.sub(r"url\(#", f"url(#{prefix}-", text)


def figure_format(path: str) -> str:
    """``"png"`` or ``"svg"`` from the file name's extension (checked before any work)."""
    ext = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    if ext not in FORMATS:
        raise ParameterError(f"--output {path!r}: the file name must end in .png or .svg "
                             f"(the picture's format is chosen by the extension)")
    return ext


def figure_bytes(fig: Any, fmt: str) -> bytes:
    """The picture as PNG or SVG bytes (SVG: text as paths, no metadata, no external
    references, so that it can be inlined in a self-contained page)."""
    if fmt not in FORMATS:
        raise ParameterError(f"format = {fmt!r} must be png or svg")
    buf = io.BytesIO()
    meta: dict[str, Any] = ({"Date": None, "Creator": None, "Format": None, "Type": None}
                            if fmt == "svg" else {"Software": None})
    fig.savefig(buf, format=fmt, metadata=meta)
    return buf.getvalue()


def save_figure(fig: Any, path: str, force: bool = False) -> None:
    """Write ``fig`` to ``path`` as PNG or SVG by extension, atomically, never over an
    existing file without ``force`` (:class:`exactdp.files.OutputPath`)."""
    from exactdp.files import OutputPath

    fmt = figure_format(path)
    out = OutputPath.check(path, force)
    out.write_bytes(figure_bytes(fig, fmt))

