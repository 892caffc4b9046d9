"""Explore a counting mechanism: change eps, n and c and watch its exact pmf and privacy loss.

A marimo notebook (``pip install 'exactdp[notebook]'``).  Open it as a local web app with
``marimo run PATH`` (``exactdp tutorial notebook --path`` prints PATH; ``marimo edit PATH``
to change the code too), or run it as a plain script: ``python PATH``.  ``marimo export
html`` needs a network (it loads marimo's frontend from a CDN); for a page that works
offline, ``python -m exactdp.tutorials.notebook_export OUT.html`` writes the outputs at the
default settings as plain HTML.  Every number and
bar comes from the implementation, read off by the checker (``exactdp.plot``); nothing is
simulated.  GeoSample is Algorithm 4.8 of Balcer & Vadhan (Theorem 4.7), FastSample
Algorithm 4.11 (Theorem 4.10).
"""

# marimo's cell convention: a bare expression is the cell's output, and every cell ends in
# a return (of the names it defines, possibly none).
# ruff: noqa: B018, PLR1711

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")


@app.cell
def _():
    from fractions import Fraction

    import marimo as mo

    from exactdp.certificate import brief
    from exactdp.certified import compare_exp
    from exactdp.counting import FastSample, GeoSample
    from exactdp.plot import (
        draw_loss,
        draw_pmf,
        figure_bytes,
        new_figure,
        pmf_data,
        privacy_loss_data,
    )

    return (FastSample, Fraction, GeoSample, brief, compare_exp, draw_loss, draw_pmf,
            figure_bytes, mo, new_figure, pmf_data, privacy_loss_data)


@app.cell
def _(mo):
    mo.md(
        """
        # Explore a counting mechanism, exactly

        A counting mechanism releases a count `c` in `[n] = {0, ..., n}` plus noise. Pick
        the mechanism and its privacy parameter `eps = 1/m`, the largest count `n` and the
        true count `c`: the pictures redraw from the **exact** output distribution of the
        implementation (the checker reads it off the code; nothing is sampled).
        """
    )
    return


@app.cell
def _(mo):
    mechanism = mo.ui.dropdown(["GeoSample", "FastSample"], value="GeoSample",
                               label="mechanism")
    m = mo.ui.slider(1, 20, value=2, label="eps = 1/m, m =", show_value=True)
    n = mo.ui.slider(1, 48, value=12, label="n (largest count) =", show_value=True)
    g = mo.ui.slider(1, 12, value=6, label="FastSample: gamma = 2^-g, g =", show_value=True)
    mo.vstack([mechanism, m, n, g])
    return g, m, mechanism, n


@app.cell
def _(mo, n):
    c = mo.ui.slider(0, n.value, value=min(3, n.value), label="true count c =",
                     show_value=True)
    c
    return (c,)


@app.cell
def _(FastSample, Fraction, GeoSample, g, m, mechanism, n):
    eps = Fraction(1, m.value)
    if mechanism.value == "GeoSample":
        mech = GeoSample(n.value, eps)
    else:
        mech = FastSample(n.value, eps, Fraction(1, 2**g.value))
    return eps, mech


@app.cell
def _(c, mech, pmf_data, privacy_loss_data):
    pmf = pmf_data(mech, c.value)
    loss = privacy_loss_data(mech)
    return loss, pmf


@app.cell
def _(draw_loss, draw_pmf, figure_bytes, loss, mo, new_figure, pmf):
    fig, (left, right) = new_figure(width=13, height=6, cols=2)
    draw_pmf(left, pmf)
    draw_loss(right, loss)
    mo.image(figure_bytes(fig, "png"))
    return


@app.cell
def _(GeoSample, brief, c, compare_exp, eps, loss, mech, mo, pmf):
    worst = loss.worst
    if worst.ratio is None:
        ratio, verdict = "infinite", "above"
    else:
        ratio = brief(worst.ratio)
        verdict = "below" if compare_exp(eps / 2, worst.ratio) > 0 else "NOT below"
    if isinstance(mech, GeoSample):
        ideal = ("the clamped geometric law of Theorem 4.7 (i), which GeoSample samples "
                 "exactly")
    else:
        ideal = (f"the law of Lemma 4.12 (ii), `(1 - gamma) Z' + gamma Unif([n])` with "
                 f"`gamma = {mech.gamma}`, which FastSample samples exactly (FastSample's "
                 f"distance to GeoSample's law is a different quantity: at most about "
                 f"`gamma`)")
    lines = [
        f"**{pmf.title}**, true count `c = {c.value}`",
        "",
        (f"* randomness: one integer `u` uniform on `[d]_+` with `d` of "
        f"**{mech.d.bit_length()} bits** (GeoSample's grows like `n log2(2/eps)`);"),
        (f"* worst privacy-loss ratio over neighbouring counts: **{ratio}** (pair "
        f"`a = {loss.a}, b = {loss.b}`, output `z = {worst.outcome}`): **{verdict}** the "
        f"claim `e^(eps/2)`, `eps/2 = {eps / 2}` (decided exactly);"),
        (f"* statistical distance of the implementation's pmf at `c` to {ideal}: "
        f"**{brief(pmf.distance)}**."),
        "",
        "| z | Pr[M(c, U) = z] (exact) |",
        "|---|---|",
        *(f"| {z} | {brief(p)} |" for z, p in zip(pmf.outcomes, pmf.exact)),
    ]
    # Lines start at column 0: indented Markdown would render as a code block.
    mo.md("\n".join(lines))
    return


@app.cell
def _(GeoSample, compare_exp, eps, loss, mech, pmf):
    # The notebook checks what it shows (a script run fails loudly if these break).
    assert sum(pmf.exact) == 1
    assert loss.worst.ratio is not None and compare_exp(eps / 2, loss.worst.ratio) > 0
    if isinstance(mech, GeoSample):
        assert pmf.distance == 0
        assert loss.worst.ratio == mech.privacy_ratio
    return


if __name__ == "__main__":
    app.run()
