"""``exactdp audit ... --html REPORT.html``: an audit report a person reads in a browser.

One self-contained HTML5 page (inline CSS and inline SVG pictures; nothing is fetched from
the network) with: the verdict and its severity with the effective epsilon, a certified interval containing
``ln`` of the exact worst privacy-loss ratio (:mod:`exactdp.audit.severity`);
the two exact pmfs of the worst neighbouring pair; the privacy loss ``ln(p/q)`` per outcome
with the claimed epsilon (an infinite loss drawn and labelled as such); the timing verdict
and what it compared; and the exact figures (fractions) the verdict rests on.  A
black-box report shows its tests, their error probabilities and the sampled counts.

The pictures need matplotlib (the ``[plot]`` extra); every number written on the page is
exact or an outward-rounded / truncated decimal of an exact value, marked as such.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from exactdp.audit.guard import show
from exactdp.audit.report import BlackBoxReport, WhiteBoxReport
from exactdp.audit.report import _decimal as scientific
from exactdp.audit.severity import in_decimal
from exactdp.certified import Interval
from exactdp.params import ParameterTypeError

__all__ = ["DECIMAL_BESIDE", "LOG_SPAN", "MAX_TABLE_OUTCOMES", "html_report", "needs_log_axis"]

#: Outcomes listed in the page's exact tables (the JSON report has every one).
MAX_TABLE_OUTCOMES = 200

#: Exact values longer than this many characters get a decimal beside them.
DECIMAL_BESIDE = 12

#: The pmf picture uses a log axis when the positive probabilities span more than this factor.
LOG_SPAN = 1000

_BADGE = {"pass": ("pass", "PASS"), "violation": ("violation", "VIOLATION"),
          "mismatch": ("mismatch", "MISMATCH"), "broken": ("broken", "BROKEN"),
          "no violation detected": ("nodetect", "NO VIOLATION DETECTED"),
          "incomplete": ("nodetect", "INCOMPLETE")}

_MEANING = {
    "pass": "the claim holds exactly on the audited inputs: the distributions were computed "
            "from the code itself, not estimated.",
    "violation": "the claim is refuted (white-box: exactly, with the witness below; black-box: "
                 "with false-alarm probability at most alpha).",
    "mismatch": "the samples do not fit the reference distribution (false-alarm probability "
                "at most alpha).",
    "broken": "the mechanism itself failed while being audited (see the findings).",
    "no violation detected": "nothing was found at the stated power; this is NOT a proof of "
                             "privacy.",
    "incomplete": "the exploration stopped at its budget before covering all the probability "
                  "mass, and no violation is certain from the mass covered (see the findings).",
}


def _e(x: object) -> str:
    return html.escape(str(x))


def _exact(q: Fraction | int) -> str:
    """An exact value for the page: the fraction itself when short, with a decimal beside it
    when it is long enough to be hard to read (more than :data:`DECIMAL_BESIDE` characters);
    past 90 characters a truncated decimal and the sizes of its terms only (the JSON report
    carries every digit)."""
    text = str(q)
    if len(text) <= DECIMAL_BESIDE:
        return text
    q = Fraction(q)
    if len(text) <= 90:
        return f"{text} (= {scientific(q)}, rounded toward 0)"
    return (f"{scientific(q)} (rounded toward 0; the exact fraction, of "
            f"{len(str(q.numerator))} / {len(str(q.denominator))} digits, is in --json)")


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]], caption: str = "") -> str:
    from exactdp.plot.tables import html_table

    return html_table(headers, rows, caption)


def _section(title: str, *parts: str) -> str:
    return f"<h2>{_e(title)}</h2>\n" + "\n".join(parts)


def _dl(items: Sequence[tuple[str, Any]]) -> str:
    return _table(["", "value"], [(k, v) for k, v in items])


def html_report(report: WhiteBoxReport | BlackBoxReport, command: str = "") -> str:
    """The page for a white-box or black-box audit report (``command``: how it was run)."""
    from exactdp.plot.tables import html_page

    if isinstance(report, WhiteBoxReport):
        kind, body = "white-box", _whitebox(report)
    elif isinstance(report, BlackBoxReport):
        kind, body = "black-box", _blackbox(report)
    else:
        raise ParameterTypeError(f"report = {type(report).__name__}: html_report takes a "
                                 f"WhiteBoxReport or a BlackBoxReport")
    css, word = _BADGE[report.verdict]
    sev = report.severity if isinstance(report, WhiteBoxReport) else None
    level = f" (severity: {sev.level})" if sev is not None and sev.level != "none" else ""
    if isinstance(report, WhiteBoxReport) and report.scope and report.verdict == "pass":
        level += f" ({report.scope})"  # a pass not confirmed in another process
    head = [f"<h1>exactdp {kind} audit of {_e(report.mechanism)}</h1>",
            (f"<p><span class=\"verdict {css}\">{word}{_e(level)}</span> "
             f"{_e(_MEANING[report.verdict])}</p>")]
    if command:
        head.append(f"<p class=\"note\">Command: <code>{_e(command)}</code></p>")
    for f in report.findings:
        head.append(f"<p><strong>Finding [{_e(f.kind)}]:</strong> {_e(f.message)}</p>")
    notation = ("<p class=\"note\">Notation: [d]_+ = {1, ..., d}, the values of the uniform "
                "draw u; Pr[M(c) = z] is the probability that the mechanism outputs z on "
                "input c; the privacy loss of z between inputs a and b is ln(Pr[M(a) = z] / "
                "Pr[M(b) = z]), and a mechanism is (eps, 0)-DP when it is at most eps for "
                "every z and every neighbouring pair. Decimals are truncated (or rounded "
                "outwards where an interval is shown); fractions are exact.</p>")
    return html_page(f"exactdp audit: {report.mechanism}: {word}",
                     "\n".join([*head, *body, notation]))


def _whitebox(r: WhiteBoxReport) -> list[str]:
    parts: list[str] = []
    w = r.worst
    summary = [("mechanism", r.mechanism), ("kind", r.kind + (f"; {r.method}" if r.method
                                                              else "")),
               ("inputs", _inputs(r.inputs) + " (neighbours c and c+1)"),
               ("claimed", f"({r.claimed_epsilon}, {r.claimed_delta})-DP")]
    sev = r.severity
    if sev is None:
        summary.append(("effective epsilon = ln(worst ratio)", ("not computed (the audit did "
                                                                "not finish the exact laws)")))
    else:
        summary.append(("severity", f"{sev.level.upper()}: {sev.headline}"))
        if sev.infinite:
            summary.append(("effective epsilon = ln(worst ratio)",
                            ("infinite: an outcome is possible on one input and impossible "
                             "on its neighbour")))
        elif sev.excess is not None:
            summary.append(("effective epsilon = ln(worst ratio)",
                            (f"{sev.effective_decimal} (a certified enclosure of "
                             f"ln({_exact(w.ratio) if w and w.ratio else ''}), rounded "
                             f"outwards)")))
            over = sev.excess.lo > 0
            margin = sev.excess if over else Interval(-sev.excess.hi, -sev.excess.lo)
            summary.append(("excess over the claimed epsilon" if over else
                            "margin below the claimed epsilon", in_decimal(margin)))
        if sev.comparison:
            summary.append(("worst ratio against e^eps", sev.comparison))
    parts.append(_section("Verdict and effective epsilon", _dl(summary)))
    if w is not None and {w.numerator_input, w.denominator_input} <= set(r.distributions):
        parts.append(_pictures(r, w))
    parts.append(_trace(r))
    parts.append(_figures(r))
    return parts


def _inputs(inputs: Sequence[Any]) -> str:
    if len(inputs) > 2 and all(isinstance(c, int) for c in inputs) \
            and list(inputs) == list(range(inputs[0], inputs[-1] + 1)):
        return f"{inputs[0]}..{inputs[-1]}"
    return ", ".join(show(c) for c in inputs)


def _pictures(r: WhiteBoxReport, w: Any) -> str:
    from exactdp.plot.data import LossData, loss_bars
    from exactdp.plot.draw import draw_loss, draw_pair, inline_svg, new_figure

    a, b = w.numerator_input, w.denominator_input
    p, q = r.distributions[a], r.distributions[b]
    fig, ax = new_figure(9, 5)
    log = needs_log_axis(p, q)
    draw_pair(ax, p, q, a, b, f"{r.mechanism}\nthe exact laws of the worst neighbouring pair "
                              f"a = {show(a)}, b = {show(b)} (worst output "
                              f"{show(w.outcome)})"
                              + (" (log scale: the probabilities span orders of magnitude)"
                                 if log else ""))
    if log:
        ax.set_yscale("log")
        ax.set_ylabel("exact probability (log scale)")
    pmfs = inline_svg(fig, "pmfs")
    loss = LossData(r.mechanism, a, b, loss_bars(p, q), r.claimed_epsilon)
    fig, ax = new_figure(9, 6)
    draw_loss(ax, loss)
    losses = inline_svg(fig, "loss")
    return _section("The worst pair: two pmfs and the privacy loss per outcome",
                    f"<figure>{pmfs}</figure>", f"<figure>{losses}</figure>",
                    "<p class=\"note\">Each bar is an exact probability (or the certified "
                    "logarithm of an exact ratio) computed from the audited code; the dashed "
                    "lines are the claimed epsilon at +eps and -eps."
                    + (f" The pmfs are drawn on a log axis: their probabilities span more "
                       f"than {LOG_SPAN} times, and a linear axis would hide the worst "
                       f"output {_e(show(w.outcome))}." if log else "") + "</p>")


def needs_log_axis(p: Mapping[Any, Fraction], q: Mapping[Any, Fraction]) -> bool:
    """Whether the positive probabilities of ``p`` and ``q`` span more than :data:`LOG_SPAN`."""
    values = [v for law in (p, q) for v in law.values() if v > 0]
    return bool(values) and max(values) > LOG_SPAN * min(values)


def _trace(r: WhiteBoxReport) -> str:
    t = r.trace
    if t is None:
        return _section("Timing", "<p>Not compared in this audit.</p>")
    joint = t.examined.startswith("the joint law")
    result = (("meets the claim" if t.same else "TIMING: breaks the claim (a timing side "
               "channel)") if joint else
              ("empty on every run examined: nothing was compared" if t.same and t.length == 0
               else "identical across inputs" if t.same else
               "TIMING: DIFFER across inputs (a timing side channel)"))
    rows = [("compared", t.examined), ("result", result),
            ("trace length (events per run)", "varies" if t.length is None else t.length)]
    if t.randomness_note:
        rows.append(("note", t.randomness_note))
    parts = [_dl(rows)]
    if t.witness:
        parts.append(_table(["witness", "value"],
                            [(k, show(v, 400)) for k, v in t.witness.items()],
                            "The first difference found"))
    return _section("Timing", *parts)


def _figures(r: WhiteBoxReport) -> str:
    rows: list[tuple[str, Any]] = [("method", r.method or "-"), ("monotone in u", r.monotone
                                                                 or "-")]
    if r.d is not None:
        rows.append(("d (u in [d]_+)", _exact(r.d)))
    w = r.worst
    if w is not None:
        rows += [("worst ratio p/q", "infinite" if w.ratio is None else _exact(w.ratio)),
                 ("witness", (f"Pr[M({show(w.numerator_input)}) = {show(w.outcome)}] = "
                              f"{_exact(w.p)}, Pr[M({show(w.denominator_input)}) = "
                              f"{show(w.outcome)}] = {_exact(w.q)}"))]
    if r.hockey_stick is not None:
        rows.append((f"hockey-stick delta at e^({r.claimed_epsilon})",
                     (f"in [{_exact(r.hockey_stick.lo)}, {_exact(r.hockey_stick.hi)}] "
                      f"(pair {show(r.hockey_stick_pair)})")))
    for inf in r.infinite[:20]:
        rows.append(("infinite loss", (f"outcome {show(inf.outcome)}: Pr = "
                                       f"{_exact(inf.probability)} on "
                                       f"{show(inf.possible_on)}, 0 on "
                                       f"{show(inf.impossible_on)}")))
    if r.reference is not None and r.distance is not None:
        dist = r.distance
        text = (f"in [{_exact(dist.lo)}, {_exact(dist.hi)}]" if isinstance(dist, Interval)
                else _exact(dist))
        rows.append((f"statistical distance to {r.reference}",
                     f"{text} (max, at input {show(r.distance_input)})"))
    parts = [_dl(rows)]
    if r.distributions:
        parts.append(_law_table(r.distributions))
    return _section("The exact figures", *parts)


def _law_table(dists: Mapping[Any, Mapping[Any, Fraction]]) -> str:
    inputs = list(dists)
    outcomes = list(dict.fromkeys(o for d in dists.values() for o in d))
    try:
        outcomes.sort()
    except TypeError:
        pass
    shown = outcomes[:MAX_TABLE_OUTCOMES]
    rows = [[show(o)] + [_exact(dists[c].get(o, Fraction(0))) for c in inputs] for o in shown]
    caption = "Pr[M(c) = z], exact, for every audited input c"
    if len(outcomes) > len(shown):
        caption += f" (first {len(shown)} of {len(outcomes)} outcomes; all in --json)"
    return ("<details><summary>The exact distributions (click to open)</summary>"
            + _table(["z"] + [f"c = {show(c)}" for c in inputs], rows, caption)
            + "</details>")


def _blackbox(r: BlackBoxReport) -> list[str]:
    rows: list[tuple[str, Any]] = [
        ("mechanism", r.mechanism), ("inputs", _inputs(r.inputs) + " (neighbours c and c+1)"),
        ("claimed epsilon", r.claimed_epsilon),
        ("false-alarm probability of the audit", f"at most {r.alpha}"),
        ("draws", f"{r.draws} per input (total {r.total_draws})")]
    if r.power:
        rows.append(("power", r.power))
    parts = [_section("Verdict and set-up", _dl(rows))]
    if r.privacy is not None:
        pt = r.privacy
        prows = [("inputs", f"{show(pt.a)} vs {show(pt.b)}"),
                 ("outcome set (chosen on separate draws)", show(pt.outcome_set, 400)),
                 ("estimation counts", f"{pt.x} of {pt.K} vs {pt.y} of {pt.K}"),
                 ("lower bound on the privacy loss", r.privacy_bound)]
        parts.append(_section("Privacy test", _dl(prows), _blackbox_picture(r)))
    if r.fit_alpha is not None:
        frows = [[show(f.input), show(f.outcome), f"{f.count} of {f.K}",
                  (f"in [{_exact(f.reference.lo)}, {_exact(f.reference.hi)}]"
                   if isinstance(f.reference, Interval) else _exact(f.reference))]
                 for f in r.fit_rejections[:50]]
        parts.append(_section(
            f"Goodness of fit to {r.reference}",
            f"<p>{r.fit_tests} exact binomial tests, Bonferroni, total level {r.fit_alpha}: "
            f"{'REJECTED' if r.fit_rejections else 'not rejected'}. {_e(r.fit_power)}</p>",
            _table(["input", "outcome", "count", "reference probability"], frows,
                   "Rejected cells") if frows else ""))
    return parts


def _blackbox_picture(r: BlackBoxReport) -> str:
    """The privacy test drawn (:func:`exactdp.plot.draw.draw_blackbox_test`); empty without
    matplotlib (the table above carries the same numbers)."""
    from exactdp.certified import exp_interval
    from exactdp.claims import epsilon_bounds
    from exactdp.plot.draw import MissingPlotExtra, draw_blackbox_test, inline_svg, new_figure

    pt = r.privacy
    assert pt is not None
    try:
        fig, ax = new_figure(8, 5)
    except MissingPlotExtra:
        return ""
    e_eps = exp_interval(epsilon_bounds(r.claimed_epsilon, 64).hi, 64).hi
    draw_blackbox_test(ax, pt, e_eps, f"{r.mechanism}: the privacy test on the outcome set "
                                      f"S chosen from separate draws")
    return f"<figure>{inline_svg(fig, 'blackbox')}</figure>"
