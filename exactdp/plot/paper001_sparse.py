"""Paper 001 (Li & Li), Figures 12, 14 and 16: linear-SVM test accuracy against eps on sparse
high-dimensional count data, the paper's WEBSPAM (not downloadable here) replaced by a seeded
synthetic set of hashed token counts (:func:`exactdp.plot.paper001_data.sparse_text`), one
panel row per figure: 12 the noisy projections and raw data, 14 DP-SignOPORP-RR and -smooth
(``t = 1``) beside DP-OPORP and raw data, 16 iDP-SignRP-RR (eps-iDP per vector, NOT eps-DP)
beside them.  Exact mechanisms of :mod:`exactdp.plot.paper001_experiments`; the accuracy is a
float metric.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from exactdp.files import OutputPath

__all__ = ["DATA", "FILES", "LEFT_OUT", "PANELS", "figure", "write"]

FILES = ("proj_fig12_14_16_sparse.png", "proj_fig12_14_16_sparse.md",
         "proj_fig12_14_16_sparse.json")
DATA = ("synthetic sparse counts standing in for WEBSPAM (not downloadable here): 2,000 "
        "documents of 5-20 hashed tokens, two classes with different Zipf token laws, "
        "max-normalised per column to 0..16, empty columns removed, the 512 most frequent "
        "kept (1.6 % non-zeros, about 8 per document; the paper's WEBSPAM: 250,000 columns, "
        "about 1.5 % non-zeros)")
#: The paper's Figures 12, 14 and 16 draw Raw-data-G-OPT, not a Laplace raw-data baseline
#: (whose exact draws per coordinate would cost most of the sweep): left out here.
LEFT_OUT = ("Raw-data-L",)
_DENSE = ("DP-OPORP-L", "DP-OPORP-G", "Raw-data-G", "float DP-OPORP-G",
          "float Raw-data-G")
#: figure number -> (title, methods drawn)
PANELS = {12: ("Fig. 12: noisy projections vs raw data", _DENSE),
          14: ("Fig. 14: DP-SignOPORP-RR and -smooth, t = 1",
               ("SignOPORP-smooth t=1", "SignOPORP-RR t=1", "DP-OPORP-G", "Raw-data-G")),
          16: ("Fig. 16: iDP-SignRP-RR (eps-iDP per vector, not eps-DP)",
               ("iDP-SignRP-RR", "DP-OPORP-G", "Raw-data-G"))}


def figure(res: Any) -> Any:
    from exactdp.plot.draw import new_figure
    from exactdp.plot.paper001_experiments import _reference, require_matplotlib_colours

    fig, axes = new_figure(max(11, 6 * len(res.ks)), 4.3 * len(PANELS), len(PANELS),
                           len(res.ks))
    names = list(dict.fromkeys(r["method"] for r in res.rows))
    colours = dict(zip(names, require_matplotlib_colours(len(names)), strict=True))
    raw = _reference(res.refs, "Raw-data", None, "SVM")
    for i, (_, (title, methods)) in enumerate(PANELS.items()):
        for j, k in enumerate(res.ks):
            ax = axes[i][j] if len(res.ks) > 1 else axes[i]
            for name in methods:
                pts = [(float(Fraction(r["eps"])), r["SVM"]) for r in res.rows
                       if r["method"] == name and r["k"] in (k, None)]
                if pts:
                    ax.plot(*zip(*pts), "--" if name.startswith("float") else "-",
                            marker="o", ms=3, label=name, color=colours[name])
            if raw is not None:
                ax.axhline(raw, color="black", linewidth=1.2, linestyle=":",
                           label=f"no privacy: raw counts ({raw:.3f})")
            ax.set_xscale("log")
            ax.set_ylim(0.4, 1.02)
            ax.set_xlabel("eps (pure eps-DP per vector; G rows: (eps, 1e-6))")
            ax.set_ylabel("linear-SVM test accuracy")
            ax.set_title(f"{title}, k = {k}", fontsize=9)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
    fig.suptitle("Paper 001 Figs 12, 14, 16 (the paper: WEBSPAM): SVM accuracy on sparse "
                 "high-dimensional data\n" + DATA.replace(": 2,000", ":\n2,000").replace(
                     " (1.6", "\n(1.6") + "\n"
                 f"{res.reps} repetition(s) per point (the paper: 10); 1,000 train / 1,000 "
                 "test vectors; dashed: float references, not exact", fontsize=9)
    return fig


def write(outputs: Mapping[str, OutputPath], eps: list[Fraction], ks: list[int], reps: int,
          seed: int, command: str, progress: Callable[[str], None], workers: int = 1
          ) -> list[str]:
    from exactdp.plot import paper001_experiments as exp
    from exactdp.plot.draw import figure_bytes

    progress(f"paper 001 Figs 12, 14, 16: SVM on sparse counts, eps "
             f"{','.join(map(str, eps))}, k {ks}, {reps} repetition(s)")
    res = exp.experiments(eps, ks, (1,), reps, seed, log=progress, dataset="sparse",
                          workers=workers, only=lambda name: name not in LEFT_OUT)
    seconds = res.cpu_seconds
    md = [(f"## Li & Li Figures 12, 14, 16 on sparse counts: SVM accuracy against eps\n\n"
           f"Data: {DATA}.\n\nCommand: `{command}` ({seconds:.0f} s CPU; {reps} "
           f"repetition(s), seed {seed})\n"),
          exp.markdown(res.rows, res.refs, "SVM", eps)]
    outputs[FILES[1]].write("\n".join(md))
    outputs[FILES[2]].write(json.dumps({"command": command, "data": DATA, "seconds": seconds,
                                        "rows": res.rows, "no_privacy": res.refs},
                                       indent=1) + "\n")
    outputs[FILES[0]].write_bytes(figure_bytes(figure(res), "png"))
    return [(f"{', '.join(FILES)}: Figures 12, 14, 16, linear-SVM accuracy on sparse counts "
             f"(WEBSPAM's stand-in; {seconds:.0f} s CPU)")]
