"""Exact pictures of exactdp's mechanisms (the ``[plot]`` extra: ``pip install 'exactdp[plot]'``).

Every value drawn is exact and read off the implementation by the checker, never simulated:

* :func:`pmf_figure` -- a counting mechanism's pmf ``Pr[M(c, U) = z]`` beside its ideal law;
* :func:`privacy_loss_figure` -- ``ln(Pr[M(a) = z] / Pr[M(b) = z])`` per output ``z`` for the
  worst neighbouring pair, with the claimed epsilon (an infinite loss drawn as such);
* :func:`accuracy_figure` -- the exact smallest error ``a`` against ``beta`` beside the
  paper's bound (Definition 4.2; Theorems 4.7 i, 4.10 ii);
* :func:`save_figure` -- PNG or SVG by extension, atomically (``exactdp.files.OutputPath``).

The numbers behind them are in :mod:`exactdp.plot.data` (Fractions; no matplotlib needed);
``draw_pmf`` / ``draw_loss`` / ``draw_accuracy`` draw them on axes of your own.  matplotlib
is imported only when a picture is drawn; without it a one-line
:class:`~exactdp.params.ExactDPError` says ``pip install 'exactdp[plot]'``.

>>> from exactdp.counting import GeoSample
>>> from exactdp.plot import pmf_figure, save_figure
>>> save_figure(pmf_figure(GeoSample(8, "1/2"), 3), "geosample.png")  # doctest: +SKIP
"""

from __future__ import annotations

from exactdp.plot.data import (
    AccuracyRow,
    LossBar,
    LossData,
    PmfData,
    accuracy_rows,
    claimed_epsilon,
    ideal_law,
    loss_bars,
    mechanism_title,
    pmf_data,
    privacy_loss_data,
)
from exactdp.plot.draw import (
    FORMATS,
    MissingPlotExtra,
    accuracy_figure,
    draw_accuracy,
    draw_loss,
    draw_pair,
    draw_pmf,
    figure_bytes,
    figure_format,
    inline_svg,
    new_figure,
    pmf_figure,
    privacy_loss_figure,
    require_matplotlib,
    save_figure,
)

__all__ = [
    "FORMATS",
    "AccuracyRow",
    "LossBar",
    "LossData",
    "MissingPlotExtra",
    "PmfData",
    "accuracy_figure",
    "accuracy_rows",
    "claimed_epsilon",
    "draw_accuracy",
    "draw_loss",
    "draw_pair",
    "draw_pmf",
    "figure_bytes",
    "figure_format",
    "ideal_law",
    "inline_svg",
    "loss_bars",
    "mechanism_title",
    "new_figure",
    "pmf_data",
    "pmf_figure",
    "privacy_loss_data",
    "privacy_loss_figure",
    "require_matplotlib",
    "save_figure",
]
